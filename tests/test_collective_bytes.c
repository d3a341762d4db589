/* test_collective_bytes.c — `hearsay collective --bytes` times the bytes
 * asked, or says what it timed instead, or refuses (docs/performance.md):
 *
 *  - allreduce, broadcast and reduce time exactly the bytes asked, however
 *    few: 8 B over 1024 ranks is 8 B (it used to become 4 KiB, one float
 *    per rank, silently), 1002 B (not whole floats) is 1002 B;
 *  - reduce_scatter, allgather and alltoall, which split the vector into
 *    one share per rank, refuse fewer bytes than ranks (exit 2, naming the
 *    minimum) and round other sizes down to a multiple of the ranks, and
 *    the report then prints the bytes timed next to the bytes asked;
 *  - a fraction of a byte is refused; a usual size is unchanged.
 * Byte counts are compared exactly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "tests/tap.h"

/* Runs `hearsay collective` on bench-1024.lua with args; out gets stdout
 * and stderr together. Returns the exit status. */
static int collective(const char *args, char *out, size_t len) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "timeout -k 5 120 %s collective %s/scenarios/bench-1024.lua %s 2>&1", HEARSAY_BIN,
           HS_SOURCE_DIR, args);
  return hs_test_output(cmd, out, len);
}

static void timed(const char *what, const char *args, double want, double asked) {
  char out[8192];
  int rc = collective(args, out, sizeof out);
  double bytes = hs_test_output_value(out, "bytes"), requested = hs_test_output_value(out, "requested_bytes");
  int noted = strstr(out, "not the ") != NULL;
  tap_ok(rc == 0 && bytes == want && requested == asked && noted == (want != asked),
         "%s: exit %d, timed %.0f B (want %.0f), asked %.0f B, %s", what, rc, bytes, want, requested,
         noted ? "the report says so" : "no note");
  if (noted) {
    char note[160];
    snprintf(note, sizeof note, "timed            %.0f B, not the %.0f B asked", want, asked);
    tap_ok(strstr(out, note) != NULL, "%s: the report prints \"%s\"", what, note);
  }
}

static void refused(const char *what, const char *args, const char *message) {
  char out[8192];
  int rc = collective(args, out, sizeof out);
  out[strcspn(out, "\n")] = '\0';
  tap_ok(rc == 2 && strstr(out, message) != NULL, "%s: exit %d, \"%s\"", what, rc, out);
}

int main(void) {
  /* bench-1024.lua: 128 x 8 GPUs, fast fidelity above 128 ranks (a few
   * hundredths of a second per collective). */
  timed("1024 ranks, allreduce of 8 B", "--op allreduce --bytes 8B", 8, 8);
  timed("1024 ranks, broadcast of 8 B", "--op broadcast --bytes 8B", 8, 8);
  timed("1024 ranks, reduce of 3 B", "--op reduce --bytes 3B", 3, 3);
  timed("1024 ranks, allreduce of 100 MiB", "--op allreduce --bytes 100MiB", 104857600, 104857600);
  refused("1024 ranks, allgather of 8 B", "--op allgather --bytes 8B",
          "hearsay collective: --bytes 8B: allgather over 1024 ranks needs at least 1024 B");
  refused("1024 ranks, reduce_scatter of 1000 B", "--op reduce_scatter --bytes 1000B",
          "hearsay collective: --bytes 1000B: reduce_scatter over 1024 ranks needs at least 1024 B");
  refused("1024 ranks, alltoall of 1 B", "--op alltoall --bytes 1B",
          "hearsay collective: --bytes 1B: alltoall over 1024 ranks needs at least 1024 B");
  timed("1024 ranks, allgather of 1024 B", "--op allgather --bytes 1KiB", 1024, 1024);
  refused("allreduce of 2.5 B", "--op allreduce --bytes 2.5B", "hearsay collective: --bytes 2.5B: not a whole number");
  /* 16 ranks (2 nodes), step fidelity: every message simulated. */
  const char *small = "--set cluster.nodes=2 --set sim.fidelity=step";
  char args[256];
  snprintf(args, sizeof args, "%s --op allreduce --bytes 1002B", small);
  timed("16 ranks, allreduce of 1002 B (not whole floats)", args, 1002, 1002);
  snprintf(args, sizeof args, "%s --op reduce_scatter --bytes 1001B", small);
  timed("16 ranks, reduce_scatter of 1001 B", args, 992, 1001);
  snprintf(args, sizeof args, "%s --op alltoall --bytes 1028B", small);
  timed("16 ranks, alltoall of 1028 B", args, 1024, 1028);
  snprintf(args, sizeof args, "%s --op allgather --bytes 16B", small);
  timed("16 ranks, allgather of 16 B (1 B per rank)", args, 16, 16);
  return tap_done(0);
}
