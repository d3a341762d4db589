/* test_kernel_costs.c — no algorithm's GPU work is free (algos/train/
 * gpu_kernel.h): every algorithm of the registry takes longer with the
 * GPU's published memory bandwidth and launch cost than with kernels made
 * nearly free; qadam and bytegrad, which once came out identical to the
 * microsecond, differ as their kernels do; the optimizer step costs what
 * its bytes and launches say, fused over buckets or per tensor; so do
 * PyTorch DDP's copies into and out of its buckets and its broadcast of
 * the batch-norms' buffers before every forward, PowerSGD's two hooks'
 * launches, local SGD's
 * averaging, and the compression, decoding and mixing of the two ring
 * gossips (choco, low_precision_decentralized). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "algos/compressor.h"
#include "tests/harness.h"
#include "tests/tap.h"

static char dir[600];

/* `key` of the summary of `hearsay run` on the scenario; NAN on failure. */
static double run_summary(const char *name, const char *algorithm, const char *extra, const char *key) {
  char path[800], out[700], cmd[2400], err[4096], buf[1 << 16];
  snprintf(path, sizeof path, "%s/%s.lua", dir, name);
  FILE *f = fopen(path, "w");
  fprintf(f,
          "cluster { nodes = 2, gpus_per_node = 2, gpu = { flops = '100TF', efficiency = 0.5, variability = 0 },\n"
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
  char field[64];
  snprintf(field, sizeof field, "\"%s\":", key);
  const char *t = strstr(buf, field);
  return t ? strtod(t + strlen(field), NULL) : NAN;
}

static double run_time(const char *name, const char *algorithm, const char *extra) {
  return run_summary(name, algorithm, extra, "total_time_s");
}

int main(void) {
  snprintf(dir, sizeof dir, "%s", hs_test_tmpdir());
  /* nearly free: the largest memory bandwidth a scenario takes, no launch cost */
  const char *free_kernels = "--set cluster.gpu.memory_bandwidth=1000000GBps --set cluster.gpu.launch_overhead=0";
  for (const hs_algorithm_desc *const *a = hs_algorithm_list(); *a; a++) {
    char n1[96], n2[96];
    snprintf(n1, sizeof n1, "%s-gpu", (*a)->name);
    snprintf(n2, sizeof n2, "%s-free", (*a)->name);
    if ((*a)->asynchronous && !(*a)->layout) {
      /* An asynchronous run ends when its workers agree that the sample
       * budget is spent, past it by what ran meanwhile: its samples vary
       * with its speed, so what the kernels must lower is its throughput
       * (adpsgd's free run did 22 iterations to the other's 20, and took
       * longer). */
      double with = run_summary(n1, (*a)->name, "", "throughput_samples_per_s"),
             without = run_summary(n2, (*a)->name, free_kernels, "throughput_samples_per_s");
      tap_ok(with * (1 + 1e-6) < without, "%s: %.6g samples/s with the A100's 1555 GB/s and 4 us launches, %.6g with "
             "kernels nearly free (%.3g%%)", (*a)->name, with, without, 100 * (with / without - 1));
      continue;
    }
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
   * launches: ResNet-50's 161 parameter tensors against its 5 buckets (DDP's
   * first of 1 MiB, then 25 MiB), 4 us each, 4 iterations. */
  /* no copies: the optimizer alone; PowerSGD's host free, so that its
   * launches are counted at their GPU cost */
#define HOST_FREE \
  "--set cluster.host.op_overhead=0 --set cluster.host.collective_overhead=0 --set cluster.host.sync_overhead=0"
  const char *host0 = HOST_FREE;
  const char *view = "--set algorithm.gradient_as_bucket_view=true " HOST_FREE;
  char sets[512];
  double fused = run_time("fused", "gradient_allreduce", view);
  snprintf(sets, sizeof sets, "%s --set workload.fused_optimizer=false", view);
  double per_tensor = run_time("per_tensor", "gradient_allreduce", sets);
  double extra = per_tensor - fused, launches = extra / 4e-6 / 4;
  /* 1e-3 of a launch: the difference of two sums of doubles */
  tap_ok(fabs(launches - 156) < 1e-3,
         "per-tensor optimizer: %.6f s against fused %.6f s, %.4g launches more an iteration at 4 us (161 tensors "
         "less 5 buckets: 156)", per_tensor, fused, launches);
  /* and its bytes at the memory bandwidth: half the bandwidth, twice the time */
  const char *half = "--set cluster.gpu.memory_bandwidth=777.5GBps";
  snprintf(sets, sizeof sets, "%s %s", view, half);
  double slow = run_time("slow", "gradient_allreduce", sets);
  double params = 25.557032e6; /* the resnet50 profile's parameters (scenarios/models/resnet50.lua) */
  double want = 4 * params * 20 / 1555e9;
  tap_ok(fabs((slow - fused) - want) < 0.02 * want,
         "memory bandwidth halved: %.6f s more over 4 iterations, 4 x 20 bytes x %.4g M parameters / 1555 GB/s = %.6f "
         "(2%%)", slow - fused, params / 1e6, want);

  /* Each of the kernels below is on its iteration's critical path (the
   * step, or backward on the compute stream with overlap off), so halving
   * the memory bandwidth adds exactly their bytes once more, 4 iterations
   * (2%: the same sums of doubles, and messages that start later on every
   * rank alike). The optimizer's 20 bytes a parameter are in each sum. */
  const struct {
    const char *name, *algorithm, *sets, *why;
    double bytes; /* per parameter per iteration */
  } cases[] = {
      {"ddp", "gradient_allreduce", "--set algorithm.overlap=false", "DDP's copies into and out of its buckets", 20 + 8 + 8},
      {"local_sgd", "local_sgd", "--set algorithm.period=1", "local SGD's torch.cat and division every step", 20 + 16},
      {"lpd", "low_precision_decentralized", "",
       "the difference (20), 8-bit encode (4 + wire), 3 decodes and adds (3 x (wire + 16)), the copy back (8)",
       20 + 20 + 4 + 3 * 16 + 8},
      {"choco", "choco", "", "the difference (12), top-k's 5 passes (20 + wire), 3 decodes and adds, the mixing (20)",
       20 + 12 + 20 + 3 * 16 + 20},
  };
  hs_compressor minmax = {.kind = HS_CZ_MINMAX_U8, .chunk = 16384}, topk = {.kind = HS_CZ_TOPK, .fraction = 0.1};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    char n1[64], n2[64];
    snprintf(n1, sizeof n1, "%s-full", cases[c].name);
    snprintf(n2, sizeof n2, "%s-half", cases[c].name);
    snprintf(sets, sizeof sets, "%s %s", cases[c].sets, half);
    double full = run_time(n1, cases[c].algorithm, cases[c].sets), halved = run_time(n2, cases[c].algorithm, sets);
    /* the wire bytes are touched four times: written once, read by 3 decodes */
    const hs_compressor *cz = strcmp(cases[c].name, "lpd") == 0 ? &minmax : strcmp(cases[c].name, "choco") == 0 ? &topk : NULL;
    double wire = cz ? 4.0 * (double)hs_cz_bytes(cz, (size_t)params) : 0;
    double expect = 4 * (params * cases[c].bytes + wire) / 1555e9;
    tap_ok(fabs((halved - full) - expect) < 0.02 * expect,
           "%s: memory bandwidth halved adds %.6f s over 4 iterations, %.4g bytes a parameter an iteration (%s) "
           "= %.6f s (2%%)", cases[c].name, halved - full, cases[c].bytes + wire / params, cases[c].why, expect);
  }

  /* DDP's copies against none (Bagua, gradient_as_bucket_view): 16 bytes a
   * parameter and two launches per tensor (161) each iteration */
  snprintf(sets, sizeof sets, "--set algorithm.overlap=false %s", view);
  double copies = run_time("copies", "gradient_allreduce", "--set algorithm.overlap=false");
  double none = run_time("no-copies", "gradient_allreduce", sets);
  double copy_cost = 4 * (16 * params / 1555e9 + 2 * 161 * 4e-6);
  tap_ok(fabs((copies - none) - copy_cost) < 0.02 * copy_cost,
         "DDP's bucket copies cost %.6f s over 4 iterations, 4 x (16 bytes x %.4g M / 1555 GB/s + 322 launches x 4 us) "
         "= %.6f s (2%%)", copies - none, params / 1e6, copy_cost);
  /* DDP's communication hooks run on the same buckets: the reducer copies
   * before the hook and after it all the same */
  const char *hooks[] = {"fp16_compress", "powersgd"};
  for (int h = 0; h < 2; h++) {
    char with[64], without[64];
    snprintf(with, sizeof with, "%s-copies", hooks[h]);
    snprintf(without, sizeof without, "%s-no-copies", hooks[h]);
    double c = run_time(with, hooks[h], host0), n = run_time(without, hooks[h], view);
    tap_ok(fabs((c - n) - copy_cost) < 0.02 * copy_cost,
           "%s: DDP's bucket copies around the hook cost %.6f s over 4 iterations (want %.6f s, 2%%)", hooks[h], c - n,
           copy_cost);
  }

  /* PowerSGD's two hooks launch what they run, and backward waits for
   * each bucket's chain (the hook's synchronize), so every launch is on
   * the critical path: how much longer a 4 us launch makes an iteration
   * than a free one counts them, the model's own kernels and the step
   * alike in both. powerSGD_hook at rank 4 over ResNet-50's 5 buckets: 3
   * a bucket (add, clone, cat), each of its 54 matrices two Gram-Schmidts
   * of 2r + 4(r - 1) = 20 launches and a matmul after each, the 107
   * uncompressed tensors' division and copies back (1 + theirs a bucket),
   * and per bucket Q's division, each P Q^T and the error: 2459.
   * batched_powerSGD_hook: one square a bucket, 2 (resize_, fill_) + 2
   * (add, clone: no cat) + 21 + 21 + 3 = 49, 245 in all. 1e-3 of a
   * launch: sums of doubles. */
  const double launch_seconds_a_run = 4 * 4e-6; /* the run's 4 iterations at the A100's 4 us a launch */
  snprintf(sets, sizeof sets, "%s --set cluster.gpu.launch_overhead=0", view);
  double per_tensor_launches =
      (run_time("psgd", "powersgd", view) - run_time("psgd-free", "powersgd", sets)) / launch_seconds_a_run;
  char batched[256];
  snprintf(batched, sizeof batched, "%s --set algorithm.batched=true", view);
  snprintf(sets, sizeof sets, "%s --set cluster.gpu.launch_overhead=0", batched);
  double batched_launches =
      (run_time("psgd-batched", "powersgd", batched) - run_time("psgd-batched-free", "powersgd", sets)) /
      launch_seconds_a_run;
  tap_ok(fabs((per_tensor_launches - batched_launches) - (2459 - 245)) < 1e-3,
         "powersgd: %.4f launches an iteration tensor by tensor, %.4f batched: 2214 more (2459 against 49 a bucket)",
         per_tensor_launches, batched_launches);

  /* PowerSGD's host, where backward waits for the hook (its synchronize
   * after each bucket): every operation of the hook costs the host
   * host.op_overhead to issue (its kernels free here: no launch cost, the
   * largest memory bandwidth), every collective host.collective_overhead,
   * every synchronisation host.sync_overhead of the GPU's idling. Over 4
   * iterations of ResNet-50's 5 buckets: tensor by tensor 2459 operations,
   * 15 collectives (the uncompressed tensors', P's, Q's), batched 245 and
   * 10 (P's, Q's); 5 synchronisations. Beside backward (sync_each_bucket
   * = false) the host's lead hides it all. 1e-5 s: the kernels' bytes
   * over 10^6 GB/s, which the host's time replaces, stay in the free run. */
  const char *no_launch = "--set cluster.gpu.launch_overhead=0 --set cluster.gpu.memory_bandwidth=1000000GBps "
                          "--set algorithm.gradient_as_bucket_view=true";
  const char *host_costs = "--set cluster.host.op_overhead=100us --set cluster.host.collective_overhead=1ms "
                           "--set cluster.host.sync_overhead=2ms";
  const char *forms[] = {"", "--set algorithm.batched=true", "--set algorithm.sync_each_bucket=false"};
  const double host_want[] = {4 * (2459 * 100e-6 + 15 * 1e-3 + 5 * 2e-3), 4 * (245 * 100e-6 + 10 * 1e-3 + 5 * 2e-3), 0};
  const char *what[] = {"tensor by tensor", "batched", "beside backward"};
  for (int f = 0; f < 3; f++) {
    char with[700], without[700], n1[64], n2[64];
    snprintf(with, sizeof with, "%s %s %s", no_launch, forms[f], host_costs);
    snprintf(without, sizeof without, "%s %s %s", no_launch, forms[f], host0);
    snprintf(n1, sizeof n1, "psgd-host-%d", f);
    snprintf(n2, sizeof n2, "psgd-host-free-%d", f);
    double d = run_time(n1, "powersgd", with) - run_time(n2, "powersgd", without);
    tap_ok(fabs(d - host_want[f]) < 1e-5, "powersgd %s: the hook's host costs %.6f s over 4 iterations (want %.6f s)",
           what[f], d, host_want[f]);
  }

  /* DDP's buffer broadcast before forward (broadcast_buffers, its
   * default): ResNet-50's 159 batch-norm buffers, 212,904 bytes, in two
   * dtypes (106 fp32 statistics, 53 int64 counters), each group flattened
   * (a launch, read and written) and broadcast from rank 0 over the 4
   * GPUs, then every buffer copied back (159 launches): 4 x (2 x 2 x
   * 212,904 B / 1555 GB/s + 161 x 4 us) of kernels each iteration, plus
   * the two broadcasts, one after the other on each rank's stream, each
   * timed alone by `hearsay collective` on the same cluster: more than the
   * fp32 one alone (5%: the int64 one adds at least its latency, 18%
   * here), no more than both end to end (2%: a rank done with the first
   * starts the second while the root's last bytes still arrive
   * elsewhere). */
  double bcast = run_time("bcast", "gradient_allreduce", "");
  double no_bcast = run_time("no-bcast", "gradient_allreduce", "--set algorithm.broadcast_buffers=false");
  double buffer_kernels = 4 * (4 * 212904 / 1555e9 + 161 * 4e-6), left = (bcast - no_bcast) - buffer_kernels;
  char scenario[800], result[2048];
  snprintf(scenario, sizeof scenario, "%s/bcast.lua", dir);
  double fp32 = NAN, int64 = NAN;
  if (hs_test_collective(scenario, "--op broadcast --bytes 212480B", result, sizeof result, NULL) == 0)
    fp32 = hs_test_result_value(result, "sim_s");
  if (hs_test_collective(scenario, "--op broadcast --bytes 424B", result, sizeof result, NULL) == 0)
    int64 = hs_test_result_value(result, "sim_s");
  tap_ok(left / 4 > 1.05 * fp32 && left / 4 < 1.02 * (fp32 + int64),
         "DDP's buffer broadcast costs %.6f s over 4 iterations: %.6f s of kernels (159 buffers' copies back, two "
         "flattens) and %.1f us an iteration for the broadcasts, the fp32 statistics' %.1f us and the int64 "
         "counters' %.1f us alone", bcast - no_bcast, buffer_kernels, left / 4 * 1e6, fp32 * 1e6, int64 * 1e6);

  /* The model's own passes launch kernels too (algos/train/train.c): on
   * one GPU, the numeric softmax's iteration computes its FLOPs and 7
   * launches (nn.Linear and cross-entropy op by op: addmm, log_softmax,
   * nll_loss forward; their gradients and the weight's and bias's
   * backward), 4 us each, as the default scenario's 64 features and 10
   * classes make its FLOPs nanoseconds. Exact to SimGrid's clock. The
   * gradients live in the bucket: DDP's copy into it would count as
   * compute too (bucket_kernels, algorithm.h). */
  snprintf(scenario, sizeof scenario, "%s/softmax.lua", dir);
  FILE *f = fopen(scenario, "w");
  fputs("cluster { nodes = 1, gpus_per_node = 1, gpu = { flops = '100TF', efficiency = 0.5 },\n"
        "          inter = { bandwidth = '100Gbps' } }\n"
        "workload { model = 'softmax', dataset = { classes = 10, features = 64, samples = 1000 }, batch = 32 }\n"
        "algorithm { name = 'gradient_allreduce', gradient_as_bucket_view = true }\nrun { iterations = 3 }\n",
        f);
  fclose(f);
  char cmd[2400], err[4096], buf[1 << 16], summary[800];
  snprintf(summary, sizeof summary, "%s/softmax-out", dir);
  snprintf(cmd, sizeof cmd, "timeout -k 5 300 %s run %s --out %s --quiet", HEARSAY_BIN, scenario, summary);
  double compute = NAN;
  strncat(summary, "/summary.json", sizeof summary - strlen(summary) - 1);
  if (hs_test_command(cmd, err, sizeof err) == 0 && hs_test_slurp(summary, buf, sizeof buf)) {
    const char *c = strstr(buf, "\"compute_per_iteration_s\":");
    if (c) compute = strtod(c + strlen("\"compute_per_iteration_s\":"), NULL);
  }
  double flops = 32 * (2.0 + 4.0) * 10 * 64 / 50e12, seven = 7 * 4e-6;
  tap_ok(fabs(compute - (flops + seven)) < 1e-12,
         "softmax on one GPU: %.9g s of compute an iteration = %.3g s of FLOPs + 7 launches of 4 us", compute, flops);
  return tap_done(0);
}
