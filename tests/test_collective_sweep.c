/* test_collective_sweep.c — `hearsay collective` as nccl-tests
 * (docs/performance.md): a size sweep prints one row per operation and
 * size with the simulated time of that size, the schedule that ran and
 * nccl-tests' bandwidths; --csv writes the same rows; --model nccl prints
 * what NCCL's model (algos/comm/nccl_model.h) predicts for the scenario's
 * cluster; --step sweeps linearly (nccl-tests -i) and every sweep ends
 * with nccl-tests' average bus bandwidth; bad sweeps exit 2 and write
 * nothing.
 *
 * On bench-1024.lua cut to 2 nodes (16 GPUs, step fidelity). Times are
 * compared to the single-size run of the same size at 1e-6 relative (the
 * table prints µs with 2 decimals, the CSV 6). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "algos/comm/lowering.h"
#include "algos/comm/nccl_model.h"
#include "algos/comm/select.h"
#include "scenarios/loader.h"
#include "tests/harness.h"
#include "tests/tap.h"

static int collective(const char *args, char *out, size_t len) {
  char cmd[8192]; /* args may be a whole CSV path and its --set list */
  snprintf(cmd, sizeof cmd,
           "timeout -k 5 300 %s collective %s/scenarios/bench-1024.lua --set cluster.nodes=2 %s 2>&1", HEARSAY_BIN,
           HS_SOURCE_DIR, args);
  return hs_test_output(cmd, out, len);
}

static int result_word(const char *out, const char *key, char *word, size_t len) {
  const char *line = strstr(out, "result ");
  char pat[64];
  snprintf(pat, sizeof pat, " %s=", key);
  const char *v = line ? strstr(line, pat) : NULL;
  if (!v) return -1;
  v += strlen(pat);
  size_t n = strcspn(v, " \n");
  snprintf(word, len, "%.*s", (int)(n < len - 1 ? n : len - 1), v);
  return 0;
}

/* Rows of the table: lines that do not start with '#'. */
static int rows(const char *out) {
  int n = 0;
  for (const char *p = out; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
    if (*p != '#' && *p != '\n') n++;
  return n;
}

int main(void) {
  char out[65536], one[8192];
  const char *dir = hs_test_tmpdir();
  char csv[4096];
  snprintf(csv, sizeof csv, "%s/sweep.csv", dir);

  /* 1. 1 KiB to 8 KiB allreduce by x2: four rows, each the time of that size alone. */
  char args[4300];
  snprintf(args, sizeof args, "--bytes 1KiB:8KiB --model nccl --csv %s", csv);
  int rc = collective(args, out, sizeof out);
  tap_ok(rc == 0 && rows(out) == 4, "1KiB:8KiB sweep: exit %d, %d rows (want 4)", rc, rows(out));
  char body[65536];
  size_t got = hs_test_slurp(csv, body, sizeof body);
  tap_ok(got > 0 && hs_test_count(body, "\nallreduce,") == 4, "the CSV holds the 4 rows (%zu bytes)", got);
  const double sizes[4] = {1024, 2048, 4096, 8192};
  int agree = 0;
  for (int i = 0; i < 4; i++) {
    char a[64], key[64];
    snprintf(a, sizeof a, "--bytes %.0fB", sizes[i]);
    collective(a, one, sizeof one);
    double single = hs_test_output_value(one, "sim_s") * 1e6;
    snprintf(key, sizeof key, "\nallreduce,%.0f,", sizes[i]);
    const char *row = strstr(body, key);
    double in_csv = NAN, busbw = NAN, algbw = NAN;
    if (row) {
      /* op,size_B,count,type,redop,root,time_us,algbw,busbw */
      const char *f = row + 1;
      for (int k = 0; k < 6 && f; k++) f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL;
      if (f) in_csv = strtod(f, NULL);
      f = f ? strchr(f, ',') : NULL;
      if (f) algbw = strtod(f + 1, NULL);
      f = f ? strchr(f + 1, ',') : NULL;
      if (f) busbw = strtod(f + 1, NULL);
    }
    int ok = fabs(in_csv - single) <= 1e-6 * single && fabs(busbw - algbw * 2 * 15 / 16) <= 2e-6; /* both printed to 1e-6 */
    agree += ok;
    tap_diag("%.0f B: sweep %.6f us, alone %.6f us; algbw %.6f busbw %.6f", sizes[i], in_csv, single, algbw, busbw);
  }
  tap_ok(agree == 4, "each row is the time of its size simulated alone, busbw = algbw x 2(n-1)/n (%d of 4)", agree);

  /* 2. every operation: 7 ops x 2 sizes */
  rc = collective("--op all --bytes 64B:128B", out, sizeof out);
  int all_ops = 1;
  const char *names[] = {"allreduce", "reduce_scatter", "allgather", "broadcast", "reduce", "alltoall", "sendrecv"};
  for (int i = 0; i < 7; i++) {
    char tail[40];
    snprintf(tail, sizeof tail, "  %s\n", names[i]); /* the row's last column */
    all_ops &= hs_test_count(out, tail) == 2;
  }
  tap_ok(rc == 0 && rows(out) == 14 && all_ops, "--op all: exit %d, %d rows (want 14), each operation twice", rc,
         rows(out));
  /* a factor whose product rounds back down still advances: 1, 2, 3, 4 B */
  rc = collective("--bytes 1B:4B --factor 1.1", out, sizeof out);
  tap_ok(rc == 0 && rows(out) == 4, "--bytes 1B:4B --factor 1.1 ends: exit %d, %d rows (want 4: 1, 2, 3, 4 B)", rc,
         rows(out));
  /* --step (nccl-tests' -i): sizes added, not multiplied, and nccl-tests'
   * closing line, the mean of the busbw column (printed to 1e-3 each) */
  rc = collective("--bytes 1KiB:4KiB --step 1KiB", out, sizeof out);
  double sum = 0;
  int n_rows = 0, linear = 1;
  for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    if (*l == '#' || *l == '\n') continue;
    double size, busbw;
    char skip[64];
    if (sscanf(l, "%lf %63s %63s %63s %63s %63s %63s %lf", &size, skip, skip, skip, skip, skip, skip, &busbw) == 8) {
      linear &= size == 1024.0 * (n_rows + 1);
      sum += busbw, n_rows++;
    }
  }
  const char *avg = strstr(out, "# Avg bus bandwidth    : ");
  double mean = avg ? strtod(avg + strlen("# Avg bus bandwidth    : "), NULL) : NAN;
  tap_ok(rc == 0 && n_rows == 4 && linear && fabs(mean - sum / 4) <= 1e-3,
         "--bytes 1KiB:4KiB --step 1KiB: exit %d, %d rows at 1, 2, 3, 4 KiB (%s), average line %g = mean busbw %g", rc,
         n_rows, linear ? "yes" : "no", mean, sum / (n_rows ? n_rows : 1));
  rc = collective("--bytes 1B:1GiB --step 1B", out, sizeof out);
  tap_ok(rc == 2 && strstr(out, "more than 10000 sizes"), "--step 1B over 1 GiB: exit %d (2), refused, no endless sweep",
         rc);
  /* a share that does not split into whole bytes per rank is skipped, said so */
  rc = collective("--op allgather --bytes 8B:16B", out, sizeof out);
  tap_ok(rc == 0 && rows(out) == 1 && strstr(out, "# allgather of 8 B skipped") != NULL,
         "allgather 8B:16B over 16 ranks: 8 B skipped with a note, 16 B timed (exit %d, %d rows)", rc, rows(out));

  /* 3. --model nccl: the prediction is NCCL's model on this cluster */
  rc = collective("--bytes 64MiB --model nccl", one, sizeof one);
  hs_scenario sc;
  const char *sets[] = {"cluster.nodes=2"};
  char path[4096];
  snprintf(path, sizeof path, "%s/scenarios/bench-1024.lua", HS_SOURCE_DIR);
  int loaded = hs_scenario_load(path, sets, 1, &sc) == 0;
  hs_nccl_topo t;
  hs_nccl_model m;
  double want = -1;
  hs_nccl_algo a = HS_NCCL_RING;
  hs_proto p = HS_PROTO_SIMPLE;
  if (loaded) {
    hs_nccl_topo_of(&sc, &t);
    hs_nccl_model_init(&m, &t);
    hs_nccl_pick(&m, HS_OP_ALLREDUCE, 67108864.0, &a, &p, &want);
    hs_scenario_free(&sc);
  }
  double printed = hs_test_output_value(one, "nccl_s");
  char algo[32] = "", proto[32] = "";
  result_word(one, "nccl_algo", algo, sizeof algo);
  result_word(one, "nccl_proto", proto, sizeof proto);
  tap_ok(rc == 0 && want > 0 && fabs(printed - want) <= 1e-6 * want && strcmp(algo, hs_nccl_algo_name(a)) == 0 &&
             strcmp(proto, hs_proto_name(p)) == 0 && strstr(one, "nccl model") != NULL,
         "--model nccl prints NCCL's model: %.9g s %s/%s (library: %.9g s %s/%s)", printed, algo, proto, want,
         hs_nccl_algo_name(a), hs_proto_name(p));

  /* 4. the schedule that ran is named */
  char sched[32] = "";
  result_word(one, "schedule", sched, sizeof sched);
  /* the default is the tuner's pick for 64 MiB on this communicator */
  const char *want_sched = "?";
  if (hs_scenario_load(path, sets, 1, &sc) == 0) {
    int n = hs_scenario_gpus(&sc), *members = malloc((size_t)n * sizeof *members);
    for (int r = 0; r < n; r++) members[r] = r;
    hs_select_query q = {&sc, n, n, members, {1u << HS_ENGINE_MESSAGES, 0, 1}, 0};
    hs_plan *plan = malloc(sizeof *plan);
    hs_select(&q, plan);
    hs_tuned t = hs_test_tuned_class(plan, HS_OP_ALLREDUCE, hs_test_size_class(67108864.0));
    want_sched = plan->tuned ? hs_lower_schedule_name(HS_OP_ALLREDUCE, (hs_coll_algo)t.algo) : "(not tuned)";
    free(plan);
    free(members);
    hs_scenario_free(&sc);
  }
  tap_ok(strcmp(sched, want_sched) == 0, "default scenario (sim.collectives = auto): schedule=%s, the tuner's pick %s",
         sched, want_sched);
  /* a forced schedule names what the lowering runs */
  static const struct {
    const char *args, *want;
  } forced[] = {{"--set sim.collectives=ring", "ring"},
                {"--op broadcast --set sim.collectives=ring", "pipelined_chain"},
                {"--op broadcast --set sim.collectives=tree", "pipelined_tree"},
                {"--set sim.collectives=hierarchical", "hierarchical"}};
  for (int i = 0; i < 4; i++) {
    snprintf(args, sizeof args, "--bytes 64MiB %s", forced[i].args);
    collective(args, one, sizeof one);
    result_word(one, "schedule", sched, sizeof sched);
    tap_ok(strcmp(sched, forced[i].want) == 0, "%s: schedule=%s (want %s)", forced[i].args, sched, forced[i].want);
  }

  /* 4b. sendrecv, nccl-tests' sendrecv_perf: each rank sends the size to
   * the next and receives as much from the previous, one flow each; busbw
   * = algbw; the time is the group's launch and the slowest flow's hop,
   * latency and bytes over its rate: the tuner's closed form to the
   * printed digits. One GPU's flow across nodes gets what that GPU
   * reaches, one NIC of a node's eight (25 GB/s of 8 x 200 Gb/s); it got
   * the node's eight when a direct point-to-point kept its communicator's
   * spread (the node's GPUs, for the ring). */
  {
    char word[64] = "", tuner[64] = "";
    rc = collective("--op sendrecv --bytes 64MiB --set sim.fidelity=step", one, sizeof one);
    result_word(one, "schedule", sched, sizeof sched);
    result_word(one, "sim_s", word, sizeof word);
    result_word(one, "tuner_s", tuner, sizeof tuner);
    double t = atof(word), closed = atof(tuner);
    tap_ok(rc == 0 && strcmp(sched, "p2p") == 0 && t > 0 && fabs(t / closed - 1) < 1e-6,
           "sendrecv 64 MiB: p2p, %.9g s simulated, the closed form %.9g", t, closed);
    const char *algbw = strstr(one, "algbw / busbw");
    double a = 0, b = -1;
    if (algbw) sscanf(algbw, "algbw / busbw %lf / %lf", &a, &b);
    tap_ok(a > 0 && a == b, "sendrecv: busbw = algbw (%g, %g GB/s)", a, b);
    rc = collective("--op sendrecv --bytes 64MiB --set sim.fidelity=step --set cluster.inter.nics_per_node=8", one,
                    sizeof one);
    result_word(one, "sim_s", word, sizeof word);
    double bw = 67108864 / atof(word);
    tap_ok(rc == 0 && bw <= 25e9 && bw > 20e9,
           "sendrecv across nodes of 8 NICs: %.4g GB/s, one GPU's NIC (at most 25 GB/s, not the node's 200)",
           bw / 1e9);
  }

  /* 4c. what a point-to-point group pays beyond its links: NCCL runs it as
   * one kernel, on LL up to 16 KiB and Simple above; hearsay charges the
   * ring's launch and hop for that protocol (NCCL 2.30.7 tuning.cc: base
   * latency LL 6.6 µs, Simple 8.4; NVLink hop LL 0.6, Simple 3.4), against
   * sim.protocol = none (the links alone). Inside one node: 7.2 µs at 8 B,
   * 11.8 µs at 32 KiB (the bytes' wire time differs by at most LL's 8 more
   * bytes, under a picosecond at NVLink's rate). */
  {
    const struct { const char *bytes, *label; double want; } p2p[] = {{"8", "8 B", 7.2e-6}, {"32KiB", "32 KiB", 11.8e-6}};
    for (int i = 0; i < 2; i++) {
      char word[64], a[512];
      double t[2];
      for (int none = 0; none < 2; none++) {
        snprintf(a, sizeof a, "--op sendrecv --bytes %s --set cluster.nodes=1 --set sim.fidelity=step%s", p2p[i].bytes,
                 none ? " --set sim.protocol=none" : "");
        collective(a, one, sizeof one);
        t[none] = result_word(one, "sim_s", word, sizeof word) == 0 ? atof(word) : NAN;
      }
      tap_ok(fabs(t[0] - t[1] - p2p[i].want) < 1e-9, "sendrecv of %s inside a node: %.4g us with its protocol, %.4g "
             "without: %.4g us more (want %.4g)", p2p[i].label, t[0] * 1e6, t[1] * 1e6, (t[0] - t[1]) * 1e6,
             p2p[i].want * 1e6);
    }
  }

  /* 4d. --gpus-per-thread G (nccl-tests -g G): one host thread launches
   * each collective on G GPUs in turn, gpu.launch_overhead apiece, and
   * nccl-tests' back-to-back iterations take the longer of that and the
   * collective (NVIDIA/nccl-tests#333). With launches of 20 µs the 8-GPU
   * threads of this cluster bind an 8 B allreduce at 160 µs exactly, in
   * the report and in a sweep's rows; with one GPU a thread the simulated
   * time stands; 4 µs launches leave a 64 MiB allreduce its own time. */
  {
    char word[64];
    rc = collective("--bytes 8B --gpus-per-thread 8 --set cluster.gpu.launch_overhead=20us", one, sizeof one);
    double sim = hs_test_output_value(one, "sim_s"), iter = hs_test_output_value(one, "nccltests_s");
    result_word(one, "gpus_per_thread", word, sizeof word);
    tap_ok(rc == 0 && sim < 160e-6 && fabs(iter - 160e-6) < 1e-12 && strcmp(word, "8") == 0 &&
               strstr(one, "host-bound") != NULL,
           "-g 8, 20 us launches, 8 B: the collective takes %.4g us, nccl-tests %.6g us (8 x 20, host-bound)",
           sim * 1e6, iter * 1e6);
    rc = collective("--bytes 8B:16B --gpus-per-thread 8 --set cluster.gpu.launch_overhead=20us", out, sizeof out);
    tap_ok(rc == 0 && rows(out) == 2 && hs_test_count(out, "      160.00 ") == 2 &&
               strstr(out, "8 GPUs a thread") != NULL,
           "a sweep's rows print the same 160.00 us (exit %d, %d rows)", rc, rows(out));
    rc = collective("--bytes 8B --set cluster.gpu.launch_overhead=20us", one, sizeof one);
    sim = hs_test_output_value(one, "sim_s"), iter = hs_test_output_value(one, "nccltests_s");
    tap_ok(rc == 0 && sim > 20e-6 && iter == sim && !strstr(one, "nccl-tests -g"),
           "one GPU a thread: the collective's %.4g us stands (%.4g)", sim * 1e6, iter * 1e6);
    rc = collective("--bytes 64MiB --gpus-per-thread 8", one, sizeof one);
    sim = hs_test_output_value(one, "sim_s"), iter = hs_test_output_value(one, "nccltests_s");
    tap_ok(rc == 0 && iter == sim && strstr(one, "under the collective's time") != NULL,
           "-g 8, 64 MiB: 32 us of launches under the collective's %.4g us", sim * 1e6);
    const char *bad_g[] = {"--bytes 8B --gpus-per-thread 9", "--bytes 8B --gpus-per-thread 3",
                           "--bytes 8B --gpus-per-thread 0", "--bytes 8B --gpus-per-thread two"};
    const char *why[] = {"whose 8 GPUs are not threads of 9 each", "whose 8 GPUs are not threads of 3 each",
                         "expected an integer in 1..1024", "expected an integer in 1..1024"};
    for (int i = 0; i < 4; i++) {
      rc = collective(bad_g[i], out, sizeof out);
      tap_ok(rc == 2 && strstr(out, why[i]) != NULL, "%s: exit %d (2), %.*s", bad_g[i], rc, (int)strcspn(out, "\n"),
             out);
    }
  }

  /* 5. bad sweeps: exit 2, no CSV */
  char bad_csv[4200];
  snprintf(bad_csv, sizeof bad_csv, "%s/bad.csv", dir);
  const char *bad[] = {"--bytes 2KiB:1KiB", "--bytes 1KiB:2KiB --factor 1", "--bytes 1KiB --model astra",
                       "--bytes 0B:1KiB", "--bytes 1.5B", "--op gather --bytes 1KiB"};
  for (int i = 0; i < 6; i++) {
    snprintf(args, sizeof args, "%s --csv %s", bad[i], bad_csv);
    rc = collective(args, out, sizeof out);
    struct stat st;
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp", bad_csv);
    tap_ok(rc == 2 && stat(bad_csv, &st) != 0 && stat(tmp, &st) != 0 && strstr(out, "hearsay collective: ") != NULL,
           "%s: exit %d, nothing written: %.*s", bad[i], rc, (int)strcspn(out, "\n"), out);
  }
  remove(csv);
  rmdir(dir);
  /* A sweep killed outright (SIGKILL: no handler runs) leaves no platform
   * file in /tmp: it is unlinked as soon as it is made and read through
   * its descriptor (sim/platform.c). Before, each kill left one. */
  {
    char scenario[4096];
    snprintf(scenario, sizeof scenario, "%s/scenarios/bench-1024.lua", HS_SOURCE_DIR);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      int null = open("/dev/null", O_WRONLY);
      dup2(null, 1), dup2(null, 2);
      execl(HEARSAY_BIN, "hearsay", "collective", scenario, "--op", "allreduce", "--bytes", "64MiB:1GiB", "--set",
            "sim.fidelity=step", "--set", "cluster.nodes=16", "--set", "sim.collectives=ring", "--set",
            "sim.slices_in_flight=8", (char *)NULL);
      _exit(127);
    }
    nanosleep(&(struct timespec){0, 400000000}, NULL); /* well inside the sweep: its sizes take seconds */
    int running = pid > 0 && waitpid(pid, NULL, WNOHANG) == 0;
    if (pid > 0) kill(pid, SIGKILL), waitpid(pid, NULL, 0);
    int left = 0;
    DIR *d = opendir("/tmp");
    for (struct dirent *e; d && (e = readdir(d));) left += strncmp(e->d_name, "hearsay-platform-", 17) == 0;
    if (d) closedir(d);
    tap_ok(running && left == 0, "a sweep killed while it ran (%s) leaves no platform file in /tmp (%d found)",
           running ? "it was running" : "it had ended", left);
  }
  return tap_done(0);
}
