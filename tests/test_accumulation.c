/* test_accumulation.c — workload.accumulation_steps: k micro-batches of
 * `batch` samples per optimizer step (algos/train/train.c).
 *
 *  - One GPU, timing-only ResNet-50: k = 4 costs exactly 3 more forward
 *    and backward passes than k = 1, plus the accumulation's adds (12
 *    bytes a parameter at the A100's 1555 GB/s and a launch of 4 us per
 *    parameter tensor, 161, for each of the 3 later micro-batches), within
 *    1e-9 s (SimGrid's clock).
 *  - Eight GPUs: the bytes the ranks send an iteration do not change
 *    (the micro-batches before the last do not communicate) and the
 *    throughput counts k x batch samples a worker.
 *  - The numeric workload: 2 micro-batches of 16 train on the same samples
 *    as one batch of 32 (the batcher's micro-batch it x k + j), so the
 *    losses agree to float rounding (1e-5 relative: two partial means
 *    summed, against one sum).
 *  - accumulation_steps = 0 is refused with exit 2 and no output folder. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/harness.h"
#include "tests/run_csv.h"
#include "tests/tap.h"

/* A number of summary.json; NAN if absent. */
static double summary(const hs_csv_run *r, const char *key) {
  char path[700], text[1 << 16], quoted[80];
  snprintf(path, sizeof path, "%s/summary.json", r->out);
  snprintf(quoted, sizeof quoted, "\"%s\":", key);
  if (!hs_test_slurp(path, text, sizeof text)) return NAN;
  const char *m = strstr(text, quoted);
  return m ? strtod(m + strlen(quoted), NULL) : NAN;
}

static const char *timing =
    "cluster { nodes = %d, gpus_per_node = %d, gpu = { flops = '100TF', efficiency = 0.5 },\n"
    "          inter = { bandwidth = '100Gbps' } }\n"
    "workload { model = 'resnet50', batch = 32, accumulation_steps = %d }\n"
    "algorithm { name = 'gradient_allreduce', gradient_as_bucket_view = true, broadcast_buffers = false }\n"
    "run { iterations = 3 }\n";

static void run_timing(const char *name, int nodes, int gpus, int k, hs_csv_run *r) {
  char lua[1024];
  snprintf(lua, sizeof lua, timing, nodes, gpus, k);
  hs_csv_run_lua(name, lua, "", r);
}

int main(void) {
  static hs_csv_run one, four;
  run_timing("one-gpu-k1", 1, 1, 1, &one);
  run_timing("one-gpu-k4", 1, 1, 4, &four);
  double t1 = hs_csv(&one, 2, "iter_time_s"), t4 = hs_csv(&four, 2, "iter_time_s");
  /* one forward and backward pass: what an iteration computes at k = 1 */
  double pass = hs_csv(&one, 2, "compute_s");
  double params = 25557032, adds = 3 * (12 * params / 1555e9 + 161 * 4e-6);
  tap_ok(one.rc == 0 && four.rc == 0, "one GPU, k = 1 and k = 4 run (%d, %d)", one.rc, four.rc);
  tap_ok(fabs(t4 - t1 - (3 * pass + adds)) < 1e-9,
         "k = 4: %.9f s an iteration = k = 1's %.9f s + 3 passes of %.9f s + 3 accumulations of %.0f parameters "
         "in 161 tensors (%.9f s)", t4, t1, pass, params, adds);
  tap_ok(fabs(hs_csv(&four, 2, "compute_s") - (4 * pass + adds)) < 1e-9,
         "k = 4 computes 4 passes and the 3 accumulations' adds, on the compute stream (%.9f s)",
         hs_csv(&four, 2, "compute_s"));

  static hs_csv_run e1, e4;
  run_timing("eight-k1", 2, 4, 1, &e1);
  run_timing("eight-k4", 2, 4, 4, &e4);
  double b1 = hs_csv(&e1, 2, "bytes_sent"), b4 = hs_csv(&e4, 2, "bytes_sent");
  tap_ok(e1.rc == 0 && e4.rc == 0 && b1 > 0 && b1 == b4,
         "eight GPUs: the ranks send the same bytes an iteration with k = 4 as with 1 (%.0f, %.0f)", b1, b4);
  double tput = summary(&e4, "throughput_samples_per_s"), per = summary(&e4, "time_per_iteration_s");
  /* both figures printed to 9 significant digits (%.9g): each off by up
   * to 5e-9 relative */
  tap_ok(fabs(tput - 8 * 32 * 4 / per) < 1e-8 * tput,
         "eight GPUs, k = 4: throughput %.6g samples/s = 8 workers x 32 x 4 / %.9f s", tput, per);

  /* numeric: 2 x 16 against 1 x 32 */
  static hs_csv_run m1, m2;
  const char *numeric =
      "cluster { nodes = 2, gpus_per_node = 2, gpu = { flops = '1TF' }, inter = { bandwidth = '10Gbps' } }\n"
      "workload { model = 'softmax', dataset = { classes = 4, features = 8, samples = 4096 },\n"
      "           batch = %d, accumulation_steps = %d, lr = 0.1 }\n"
      "algorithm { name = 'gradient_allreduce' }\nrun { iterations = 20, eval_every = 10 }\n";
  char lua[1024];
  snprintf(lua, sizeof lua, numeric, 32, 1);
  hs_csv_run_lua("numeric-32", lua, "", &m1);
  snprintf(lua, sizeof lua, numeric, 16, 2);
  hs_csv_run_lua("numeric-16x2", lua, "", &m2);
  double worst = 0;
  int rows = m1.rows == m2.rows && m1.rows == 20;
  for (int i = 0; rows && i < m1.rows; i++) {
    double a = hs_csv(&m1, i, "loss"), b = hs_csv(&m2, i, "loss");
    double d = fabs(a - b) / fabs(a);
    if (!(d <= worst)) worst = d;
  }
  tap_ok(m1.rc == 0 && m2.rc == 0 && rows && worst < 1e-5,
         "numeric: 2 micro-batches of 16 follow one batch of 32 (20 iterations, largest relative loss difference %.3g)",
         worst);
  double acc1 = hs_csv(&m1, 19, "accuracy"), acc2 = hs_csv(&m2, 19, "accuracy");
  tap_ok(fabs(acc1 - acc2) < 1e-3, "numeric: the same held-out accuracy at the end (%.4f, %.4f)", acc1, acc2);

  static hs_csv_run bad;
  run_timing("bad", 1, 1, 0, &bad);
  struct stat sb;
  tap_ok(bad.rc == 2 && strstr(bad.err, "accumulation_steps") && stat(bad.out, &sb) != 0,
         "accumulation_steps = 0: exit %d, names the key, no output folder", bad.rc);
  return tap_done(0);
}
