/* test_bench_scale.c — scripts/bench-scale --smoke: every 1024-GPU case of
 * the scale benchmark runs to the end (2 iterations: correctness, never
 * timing), the summary says which fidelity ran, and the fast and step ring
 * allreduce of 100 MiB over 1024 GPUs agree on the simulated time. 1e-5:
 * fast replays the same schedule with SimGrid's own shares, and 100 MiB
 * divides evenly over 1024 ranks, so no chunk is timed as a mean; but the
 * tuner runs it with LL128, whose messages take 1/0.92 of their payload
 * on the wire, and step rounds each message up to a whole byte (SimGrid's
 * sizes are integers) where fast does not: at most 1 byte in 111 305,
 * 9e-6 of the bandwidth term. Timings are in docs/performance.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "tests/tap.h"

int main(void) {
  static char md[16384];
  char out[600], cmd[2048], err[4096], path[700];
  snprintf(out, sizeof out, "%s/bench", hs_test_tmpdir());
  setenv("HEARSAY_BIN", HEARSAY_BIN, 1);
  snprintf(cmd, sizeof cmd, "timeout -k 5 600 %s/scripts/bench-scale --smoke --out %s >/dev/null", HS_SOURCE_DIR, out);
  int rc = hs_test_command(cmd, err, sizeof err);
  tap_ok(rc == 0, "bench-scale --smoke exits 0 (%d): every 1024-GPU case ran %s", rc, rc ? err : "");
  snprintf(path, sizeof path, "%s/bench-scale.md", out);
  hs_test_slurp(path, md, sizeof md);
  tap_ok(strstr(md, "| A. ring allreduce 100 MiB | 1024 | step |") && strstr(md, "| A. ring allreduce 100 MiB | 1024 | fast |") &&
             strstr(md, "| B. resnet50 gradient_allreduce | 1024 | fast |") &&
             strstr(md, "| B2. resnet50 gradient_allreduce, DDP's buffer broadcast | 1024 | fast |") &&
             strstr(md, "| C. resnet50 decentralized shift_one | 1024 | fast |") &&
             strstr(md, "| D. softmax decentralized (numeric) | 1024 | fast |") && !strstr(md, "error"),
         "the table has the five cases at 1024 GPUs, fast chosen by default above 128 ranks, no error");
  const char *ratio = strstr(md, "simulated time fast/step ");
  double r = ratio ? strtod(ratio + strlen("simulated time fast/step "), NULL) : 0;
  tap_ok(r > 1 - 1e-5 && r < 1 + 1e-5, "1024-GPU ring allreduce: fast/step simulated time %.9f (1 within 1e-5)", r);
  return tap_done(0);
}
