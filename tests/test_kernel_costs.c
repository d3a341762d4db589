/* test_kernel_costs.c — no algorithm's GPU work is free (algos/train/
 * gpu_kernel.h): every algorithm of the registry takes longer with the
 * GPU's published memory bandwidth and launch cost than with kernels made
 * nearly free; qadam and bytegrad, which once came out identical to the
 * microsecond, differ as their kernels do; the optimizer step costs what
 * its bytes and launches say, fused over buckets or per tensor. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "tests/harness.h"
#include "tests/tap.h"

static char dir[600];

/* total_time_s of `hearsay run` on the scenario; NAN on failure. */
static double run_time(const char *name, const char *algorithm, const char *extra) {
  char path[800], out[700], cmd[2400], err[4096], buf[1 << 16];
  snprintf(path, sizeof path, "%s/%s.lua", dir, name);
  FILE *f = fopen(path, "w");
  fprintf(f,
          "cluster { nodes = 2, gpus_per_node = 2, gpu = { flops = '100TF', efficiency = 0.5 },\n"
          "          inter = { bandwidth = '100Gbps' } }\n"
          "workload { model = 'resnet50', batch = 32 }\n"
          "algorithm { name = '%s' }\n"
          "run { iterations = 4 }\n",
          algorithm);
  fclose(f);
  snprintf(out, sizeof out, "%s/%s", dir, name);
  snprintf(cmd, sizeof cmd, "timeout -k 5 300 %s run %s --out %s --quiet %s", HEARSAY_BIN, path, out, extra);
  if (hs_test_command(cmd, err, sizeof err) != 0) {
    tap_diag("%s: %s", name, err);
    return NAN;
  }
  snprintf(path, sizeof path, "%s/summary.json", out);
  if (!hs_test_slurp(path, buf, sizeof buf)) return NAN;
  const char *t = strstr(buf, "\"total_time_s\":");
  return t ? strtod(t + 15, NULL) : NAN;
}

int main(void) {
  snprintf(dir, sizeof dir, "%s", hs_test_tmpdir());
  /* nearly free: the largest memory bandwidth a scenario takes, no launch cost */
  const char *free_kernels = "--set cluster.gpu.memory_bandwidth=1000000GBps --set cluster.gpu.launch_overhead=0";
  for (const hs_algorithm_desc *const *a = hs_algorithm_list(); *a; a++) {
    char n1[96], n2[96];
    snprintf(n1, sizeof n1, "%s-gpu", (*a)->name);
    snprintf(n2, sizeof n2, "%s-free", (*a)->name);
    double with = run_time(n1, (*a)->name, ""), without = run_time(n2, (*a)->name, free_kernels);
    tap_ok(with > without * (1 + 1e-6), "%s: %.6f s with the A100's 1555 GB/s and 4 us launches, %.6f s with kernels "
           "nearly free (+%.3g%%)", (*a)->name, with, without, 100 * (with / without - 1));
  }

  /* qadam (Adam: weights, gradient, two moments) against bytegrad (SGD
   * with momentum), both compressing to 8 bits, qadam past its warm-up */
  double q = run_time("qadam", "qadam", "--set algorithm.warmup_steps=0");
  double b = run_time("bytegrad", "bytegrad", "");
  tap_ok(q > b * (1 + 1e-4), "qadam %.6f s against bytegrad %.6f s: their kernels differ (+%.3g%%)", q, b,
         100 * (q / b - 1));

  /* The optimizer after the last allreduce is on the critical path, so
   * one launch per tensor instead of per bucket costs exactly the extra
   * launches: ResNet-50's 54 layers against its 4 buckets of 25 MiB, 4 us
   * each, 4 iterations. */
  double fused = run_time("fused", "gradient_allreduce", "");
  double per_tensor = run_time("per_tensor", "gradient_allreduce", "--set workload.fused_optimizer=false");
  double extra = per_tensor - fused, launches = extra / 4e-6 / 4;
  /* 1e-3 of a launch: the difference of two sums of doubles */
  tap_ok(fabs(launches - 50) < 1e-3,
         "per-tensor optimizer: %.6f s against fused %.6f s, %.4g launches more an iteration at 4 us (54 layers less "
         "4 buckets: 50)", per_tensor, fused, launches);
  /* and its bytes at the memory bandwidth: half the bandwidth, twice the time */
  double slow = run_time("slow", "gradient_allreduce", "--set cluster.gpu.memory_bandwidth=777.5GBps");
  double params = 25.557032e6; /* the resnet50 profile's parameters (scenarios/models/resnet50.lua) */
  double want = 4 * params * 20 / 1555e9;
  tap_ok(fabs((slow - fused) - want) < 0.02 * want,
         "memory bandwidth halved: %.6f s more over 4 iterations, 4 x 20 bytes x %.4g M parameters / 1555 GB/s = %.6f "
         "(2%%)", slow - fused, params / 1e6, want);
  return tap_done(0);
}
