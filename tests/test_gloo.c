/* test_gloo.c — collectives as Gloo runs them (sim.library = "gloo",
 * algos/comm/gloo.h), on the closed forms of its ring.
 *
 * On 4 one-GPU nodes over 40 Gb/s TCP (inter.efficiency 1, so the NIC's
 * 5 GB/s is above a thread's rate), an allreduce of M = 20 MB (float32)
 * runs gloo's ring: reduce-scatter and allgather, 2(n-1) steps, each rank
 * cutting its chunk of M/n = 5 MB into S = 5 segments of at most 1 MiB,
 * rounded up to a multiple of the 2 it keeps in flight: 6, moved as G =
 * S/2 = 3 windows a step. Every flow is one process's connection, moved
 * by one host thread at r = host.tcp_stream_bandwidth; every message
 * across nodes pays the NICs' message cost a = inter.message_cost (34 us
 * on TCP, half on each NIC) and Gloo's own beyond it, 0 here (its 34 us
 * is that stack). The pipelined ring's form (docs/fidelity.md):
 *   T = 2(n-1)(G a + M/(n r)),  G = 3,
 * with the GPU's buffers already on the host (sim.gloo_staging = false).
 * With staging, each way over the GPU's PCIe link (gpu.pcie_bandwidth P):
 *   T + 2M/P,
 * and as much for a send and a receive of M (point-to-point).
 * Halving r adds exactly 2(n-1) M/(n r). A broadcast is gloo's binomial
 * tree of the whole vector: ceil(log2 n)(a + M/r). An alltoall's n - 1
 * flows share the process's one thread: a + (n-1)(M/n)/r. On one node
 * of 8 GPUs an 8 B allreduce is 2(n-1) messages through the kernel's
 * stack, host.tcp_message_cost h = 34 us each: 2(n-1) h (NCCL's is
 * under 20 us).
 * Gloo runs on the CPUs, so a training run's backward keeps every SM
 * (NCCL's channels take some beside it: its compute is longer), and on
 * ResNet-50 over 2 DGX-1s NCCL's iteration is the faster. NCCL's
 * schedules and protocols are refused under Gloo (FILE:LINE: key), and
 * `hearsay calibrate` refuses a Gloo scenario (nccl-tests measures NCCL). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/harness.h"
#include "tests/tap.h"

#define M 20e6
#define R 2.06e9
#define A 34e-6

static char dir[512];

static const char *const four_nodes =
    "cluster { nodes = 4, gpus_per_node = 1, gpu = { flops = '10TF', pcie_bandwidth = '12GBps' },\n"
    "  inter = { bandwidth = '40Gbps', transport = 'tcp', efficiency = 1 } }\n";

/* `hearsay collective` on cluster with Gloo: the simulated time, NAN on failure. */
/* Writes a one-iteration scenario on cluster under Gloo to path: 0 on success. */
static int write_gloo(const char *path, const char *cluster) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f,
          "%s\nworkload { model = 'resnet50' }\nalgorithm { name = 'gradient_allreduce' }\nrun { iterations = 1 }\n"
          "sim { library = 'gloo' }\n",
          cluster);
  return fclose(f);
}

static double gloo_time(const char *cluster, const char *sets, const char *what) {
  char path[700], args[512], result[2048];
  snprintf(path, sizeof path, "%s/c.lua", dir);
  if (write_gloo(path, cluster)) return NAN;
  snprintf(args, sizeof args, "%s %s", what, sets);
  if (hs_test_collective(path, args, result, sizeof result, NULL)) return NAN;
  return hs_test_result_value(result, "sim_s");
}

static int near(double got, double want, double tol) { return fabs(got - want) <= tol * fabs(want); }

static void ring(void) {
  const char *op = "--op allreduce --bytes 20000000";
  for (int fast = 0; fast <= 1; fast++) {
    char sets[256];
    snprintf(sets, sizeof sets, "--set sim.fidelity=%s --set sim.gloo_staging=false", fast ? "fast" : "step");
    double t = gloo_time(four_nodes, sets, op), n = 4, want = 2 * (n - 1) * (3 * A + M / (n * R));
    /* 1e-6: the simulator's clock against the form's arithmetic */
    tap_ok(near(t, want, 1e-6), "%s: allreduce of 20 MB over 4 nodes, 2(n-1)(3a + M/(n r)) = %.6g s, got %.6g",
           fast ? "fast" : "step", want, t);
    snprintf(sets, sizeof sets,
             "--set sim.fidelity=%s --set sim.gloo_staging=false --set cluster.host.tcp_stream_bandwidth=1.03GBps",
             fast ? "fast" : "step");
    double slow = gloo_time(four_nodes, sets, op), more = 2 * (n - 1) * M / (n * R);
    tap_ok(near(slow - t, more, 1e-6), "%s: a thread at half the rate adds 2(n-1) M/(n r) = %.6g s, got %.6g",
           fast ? "fast" : "step", more, slow - t);
    snprintf(sets, sizeof sets, "--set sim.fidelity=%s", fast ? "fast" : "step");
    double staged = gloo_time(four_nodes, sets, op);
    tap_ok(near(staged - t, 2 * M / 12e9, 1e-6),
           "%s: the copies to the host and back add 2M/P = %.6g s over a 12 GB/s PCIe link, got %.6g",
           fast ? "fast" : "step", 2 * M / 12e9, staged - t);
  }
  /* a send and a receive of M each (every rank to the next): the send's
   * buffer to the host, the receive's back, 2M/P again */
  const char *p2p = "--op sendrecv --bytes 20000000";
  double plain = gloo_time(four_nodes, "--set sim.gloo_staging=false", p2p), staged = gloo_time(four_nodes, "", p2p);
  tap_ok(near(staged - plain, 2 * M / 12e9, 1e-6),
         "point-to-point: a send's and a receive's copies add 2M/P = %.6g s, got %.6g", 2 * M / 12e9, staged - plain);
}

/* gloo/broadcast.cc: a binomial tree of the whole vector, the root
 * sending to its children one after the other, ceil(log2 n) rounds of
 * one message each, a + M/r, on 4 nodes (2 rounds) and 5 (3 rounds). */
static void broadcast(void) {
  const char *five_nodes =
      "cluster { nodes = 5, gpus_per_node = 1, gpu = { flops = '10TF', pcie_bandwidth = '12GBps' },\n"
      "  inter = { bandwidth = '40Gbps', transport = 'tcp', efficiency = 1 } }\n";
  const char *clusters[] = {four_nodes, five_nodes};
  for (int c = 0; c < 2; c++)
    for (int fast = 0; fast <= 1; fast++) {
      char sets[128];
      snprintf(sets, sizeof sets, "--set sim.fidelity=%s --set sim.gloo_staging=false", fast ? "fast" : "step");
      double t = gloo_time(clusters[c], sets, "--op broadcast --bytes 20000000"), rounds = c ? 3 : 2;
      double want = rounds * (A + M / R);
      /* 1e-6: the simulator's clock against the form's arithmetic */
      tap_ok(near(t, want, 1e-6),
             "%s: broadcast of 20 MB over %d nodes, a binomial tree, %g (a + M/r) = %.6g s, got %.6g",
             fast ? "fast" : "step", c ? 5 : 4, rounds, want, t);
    }
}

/* An alltoall posts its n - 1 sends and receives at once (gloo/alltoall.cc);
 * a process's one thread each way moves them all (gloo's device loop
 * receives every connection): a + (n-1)(M/n)/r on 4 nodes, where a flow
 * each at r would be bound by the NIC (3.03 ms). */
static void alltoall(void) {
  for (int fast = 0; fast <= 1; fast++) {
    char sets[128];
    snprintf(sets, sizeof sets, "--set sim.fidelity=%s --set sim.gloo_staging=false", fast ? "fast" : "step");
    double t = gloo_time(four_nodes, sets, "--op alltoall --bytes 20000000"), n = 4;
    double want = A + (n - 1) * (M / n) / R;
    /* 1e-6: the simulator's clock against the form's arithmetic */
    tap_ok(near(t, want, 1e-6),
           "%s: alltoall of 20 MB over 4 nodes, one thread a process, a + (n-1)(M/n)/r = %.6g s, got %.6g",
           fast ? "fast" : "step", want, t);
  }
}

static void one_node(void) {
  const char *node = "cluster { nodes = 1, gpus_per_node = 8, gpu = { flops = '10TF' }, inter = { bandwidth = '100Gbps' } }";
  double t = gloo_time(node, "--set sim.gloo_staging=false", "--op allreduce --bytes 8"), want = 2 * 7 * A;
  /* 1e-3: the 8 bytes' own time on the links, nanoseconds */
  tap_ok(near(t, want, 1e-3), "one node of 8, 8 B: 2(n-1) messages through the host's stack, %.4g s, got %.4g", want,
         t);
}

/* A training run's summary.json into out; 0 on success. */
static int train(const char *library, char *out, size_t len) {
  char path[700], cmd[2048];
  snprintf(path, sizeof path, "%s/t-%s.lua", dir, library);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f,
          "cluster { system = 'dgx1-v100', nodes = 2, gpu = { efficiency = 0.066 } }\n"
          "workload { model = 'resnet50', batch = 32 }\n"
          "algorithm { name = 'gradient_allreduce', bucket_size = '25MiB', broadcast_buffers = false }\n"
          "run { iterations = 3 }\nsim { library = '%s', fidelity = 'fast' }\n",
          library);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s run %s --quiet --out %s/o-%s && cat %s/o-%s/summary.json", HEARSAY_BIN, path, dir,
           library, dir, library);
  return hs_test_output(cmd, out, len);
}

static void training(void) {
  static char nccl[65536], gloo[65536];
  int rn = train("nccl", nccl, sizeof nccl), rg = train("gloo", gloo, sizeof gloo);
  double tn = hs_test_json_number(nccl, "time_per_iteration_s"), tg = hs_test_json_number(gloo, "time_per_iteration_s");
  double cn = hs_test_json_number(nccl, "compute_per_iteration_s"), cg = hs_test_json_number(gloo, "compute_per_iteration_s");
  tap_ok(rn == 0 && rg == 0 && tn < tg, "ResNet-50 on 2 DGX-1s: NCCL's iteration (%.4g s) before Gloo's (%.4g s)", tn,
         tg);
  tap_ok(rg == 0 && strstr(gloo, "\"library\": \"gloo\"") != NULL, "the summary says the library");
  /* NCCL's channels hold SMs beside backward (docs/fidelity.md); Gloo's
   * ring holds none */
  tap_ok(cg < cn, "backward beside Gloo keeps every SM: compute %.6g s against %.6g s beside NCCL", cg, cn);
}

static void refused(void) {
  char path[700], cmd[2048], err[2048];
  snprintf(path, sizeof path, "%s/bad.lua", dir);
  const char *sets[] = {"sim.collectives=tree", "sim.protocol=ll"};
  const char *keys[] = {"sim.collectives", "sim.protocol"};
  for (int i = 0; i < 2; i++) {
    if (!tap_ok(write_gloo(path, four_nodes) == 0, "scenario written")) return;
    snprintf(cmd, sizeof cmd, "%s run %s --set %s --out %s/never", HEARSAY_BIN, path, sets[i], dir);
    int rc = hs_test_command(cmd, err, sizeof err);
    tap_ok(rc == 2 && strstr(err, keys[i]) && strstr(err, "Gloo"), "Gloo with %s: refused, exit 2 naming %s (%d: %s)",
           sets[i], keys[i], rc, err);
  }
}

/* nccl-tests measures NCCL: `hearsay calibrate` on a Gloo scenario would
 * fit the cluster through Gloo's costs, and refuses it. */
static void calibrate_refused(void) {
  char table[700], path[700], cmd[2048], err[2048];
  snprintf(table, sizeof table, "%s/all_reduce_perf.txt", dir);
  snprintf(path, sizeof path, "%s/cal.lua", dir);
  FILE *t = fopen(table, "w");
  if (!tap_ok(t && write_gloo(path, four_nodes) == 0, "files written")) {
    if (t) fclose(t);
    return;
  }
  fputs("# Collective test starting: all_reduce_perf\n"
        "# nThread 1 nGpus 1 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
        "validation: 1\n"
        "#  Rank  0 Group  0 Pid 1 on a device  0 [0x01] GPU\n"
        "#  Rank  1 Group  0 Pid 2 on b device  0 [0x01] GPU\n"
        "        1024  256  float  sum  -1  50.0  0.02  0.02  0  50.0  0.02  0.02  0\n",
        t);
  fclose(t);
  snprintf(cmd, sizeof cmd, "%s calibrate %s --scenario %s --out %s/never.lua", HEARSAY_BIN, table, path, dir);
  int rc = hs_test_command(cmd, err, sizeof err);
  tap_ok(rc == 2 && strstr(err, "sim.library") && strstr(err, "nccl-tests measures NCCL"),
         "hearsay calibrate on a Gloo scenario: refused, exit 2 (%d: %s)", rc, err);
  snprintf(cmd, sizeof cmd, "%s/never.lua", dir);
  tap_ok(access(cmd, F_OK) != 0, "and no system file written");
}

int main(void) {
  snprintf(dir, sizeof dir, "%s", hs_test_tmpdir());
  ring();
  broadcast();
  alltoall();
  one_node();
  training();
  refused();
  calibrate_refused();
  return tap_done(0);
}
