/* test_summary_warmup.c — the printed summary says when an algorithm's
 * warm-up (its warmup_steps) is in the iterations it reports: all of them
 * (qadam's default 100 over a short run, which then never times qadam's
 * compressed phase), some of them, or none. And run.warmup_iterations
 * leaves the first iterations, and the algorithm's set-up before them, out
 * of the measured figures, as a benchmark discards its warm-up batches:
 * the figures equal what metrics.csv's rows after them give. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "tests/tap.h"

static const char *lua_fmt = "cluster { nodes = 2, gpus_per_node = 2, gpu = { flops = '10TF' },\n"
                             "          inter = { bandwidth = '10Gbps' } }\n"
                             "workload { model = 'resnet18', batch = 8 }\n"
                             "algorithm { name = '%s'%s }\n"
                             "run { iterations = 3%s }\n";

static void summary_run(const char *what, const char *algorithm, const char *options, const char *run,
                        const char *want) {
  char lua[1024], out[800], text[8192];
  snprintf(lua, sizeof lua, lua_fmt, algorithm, options, run);
  int rc = hs_test_run_text(what, lua, out, sizeof out, text, sizeof text);
  int lines = hs_test_count(text, "\n  warm-up     ");
  int ok = rc == 0 && (want ? lines == 1 && strstr(text, want) : lines == 0);
  tap_ok(ok, "%s: exit %d, %s", what, rc, want ? want : "no warm-up line");
  if (!ok) fprintf(stderr, "# %s\n", text);
}

static void summary(const char *what, const char *algorithm, const char *options, const char *want) {
  summary_run(what, algorithm, options, "", want);
}

/* low_precision_decentralized exchanges the starting weights in full
 * precision before its first iteration: a set-up a benchmark's warm-up
 * hides. 4 ranks, 5 iterations, the first 2 left out. */
static void measured_after_warmup(void) {
  const char *lua = "cluster { nodes = 2, gpus_per_node = 2, gpu = { flops = '10TF' },\n"
                    "          inter = { bandwidth = '10Gbps' } }\n"
                    "workload { model = 'resnet18', batch = 8 }\n"
                    "algorithm { name = 'low_precision_decentralized' }\n"
                    "run { iterations = 5, warmup_iterations = %d }\n";
  double per_iter[2] = {NAN, NAN};
  for (int w = 0; w <= 2; w += 2) {
    char text[8192], out[800], path[900], json[16384], csv[16384], l[512];
    snprintf(l, sizeof l, lua, w);
    char name[32];
    snprintf(name, sizeof name, "run-warmup-%d", w);
    int rc = hs_test_run_text(name, l, out, sizeof out, text, sizeof text);
    snprintf(path, sizeof path, "%s/summary.json", out);
    json[hs_test_slurp(path, json, sizeof json)] = '\0';
    snprintf(path, sizeof path, "%s/metrics.csv", out);
    csv[hs_test_slurp(path, csv, sizeof csv)] = '\0';
    /* time_s, the end of each iteration, from metrics.csv's rows */
    double end[5] = {0};
    int rows = 0;
    for (char *line = strchr(csv, '\n'); line && line[1] && rows < 5; line = strchr(line + 1, '\n')) {
      char *comma = strchr(line + 1, ',');
      if (comma) end[rows++] = strtod(comma + 1, NULL);
    }
    double t = hs_test_json_number(json, "time_per_iteration_s"), thr = hs_test_json_number(json, "throughput_samples_per_s");
    double measured = hs_test_json_number(json, "measured_time_s"), total = hs_test_json_number(json, "total_time_s");
    double start = w ? end[w - 1] : 0, want = (end[4] - start) / (5 - w);
    /* exact but for the decimal digits the files print (9 significant) */
    int ok = rc == 0 && rows == 5 && fabs(t - want) <= 1e-8 * want && fabs(measured - (end[4] - start)) <= 1e-8 * total &&
             fabs(thr - 4 * 8 / want) <= 1e-7 * thr && hs_test_json_number(json, "warmup_iterations") == w &&
             fabs(total - end[4]) <= 1e-8 * total;
    tap_ok(ok, "warmup_iterations = %d: %.6g s an iteration == (%.6g - %.6g) / %d from metrics.csv, throughput %.6g, "
           "measured %.6g of %.6g s (exit %d)", w, t, end[4], start, 5 - w, thr, measured, total, rc);
    int line = strstr(text, "after 2 warm-up iterations") != NULL;
    tap_ok(w ? line : !line, "warmup_iterations = %d: the summary's per-iteration line %s", w,
           w ? "says it comes after 2 warm-up iterations" : "names no warm-up");
    per_iter[w / 2] = t;
  }
  /* and the set-up it leaves out costs time: without the warm-up the
   * figure is larger (the starting weights' exchange in iteration 0) */
  tap_ok(per_iter[0] > 1.05 * per_iter[1], "the set-up is left out: %.6g s an iteration measured whole, %.6g after "
         "the warm-up", per_iter[0], per_iter[1]);
}

/* Asynchronous workers report unequal rows (AD-PSGD, one of two GPUs 10
 * times slower: 4 rows against 20 of 10 iterations' budget). The window
 * opens when the first rank had left its warm-up, so every measured row
 * falls in it: the rate after the warm-up is a steady run's rate (within
 * 25%), where timing from the slowest rank's end of its warm-up counted
 * the fast one's earlier rows in a shorter window (3 times the rate with
 * 3 warm-up rows; with 4, an empty window and no throughput). */
static void asynchronous_warmup(void) {
  const char *lua = "cluster { nodes = 2, gpus_per_node = 1, gpu = { flops = '10TF' }, inter = { bandwidth = '100Gbps' } }\n"
                    "workload { model = 'resnet18', batch = 32 }\nalgorithm { name = 'adpsgd' }\n"
                    "stragglers { { gpu = 1, slowdown = 10 } }\nrun { iterations = 10, warmup_iterations = %d }\n";
  double whole = NAN;
  for (int w = 0; w <= 4; w += 4) {
    char l[1024], name[32], out[800], text[8192], path[900], json[16384];
    snprintf(l, sizeof l, lua, w);
    snprintf(name, sizeof name, "async-warmup-%d", w);
    int rc = hs_test_run_text(name, l, out, sizeof out, text, sizeof text);
    snprintf(path, sizeof path, "%s/summary.json", out);
    json[hs_test_slurp(path, json, sizeof json)] = '\0';
    double thr = hs_test_json_number(json, "throughput_samples_per_s"), measured = hs_test_json_number(json, "measured_time_s"),
           total = hs_test_json_number(json, "total_time_s");
    if (w == 0) {
      whole = thr;
      continue;
    }
    tap_ok(rc == 0 && measured > 0 && measured < total && thr > 0 && thr <= 1.25 * whole,
           "asynchronous, 4 warm-up iterations: %.6g samples/s measured over %.6g of %.6g s, the whole run's %.6g "
           "(exit %d)", thr, measured, total, whole, rc);
  }
}

int main(void) {
  measured_after_warmup();
  asynchronous_warmup();
  summary("qadam-default", "qadam", "",
          "all 3 iterations are qadam's warm-up (warmup_steps = 100), none its own phase");
  summary("onebit-two", "onebit_adam", ", warmup_steps = 2",
          "the first 2 of the 3 iterations are onebit_adam's warm-up (warmup_steps)");
  summary("qadam-none", "qadam", ", warmup_steps = 0", NULL);
  /* the run's warm-up iterations cover the algorithm's: the line says the
   * figures leave them out (it said they included them) */
  summary_run("onebit-two-run-two", "onebit_adam", ", warmup_steps = 2", ", warmup_iterations = 2",
              "which the figures below leave out with the run's 2 warm-up iterations");
  summary("allreduce", "gradient_allreduce", "", NULL);
  return tap_done(0);
}
