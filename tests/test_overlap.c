/* test_overlap.c — bucket communication really overlaps backward.
 *
 * A model of 8 layers of 4Mi fp32 parameters (16 MiB each), 16 MiB buckets
 * (one per layer), 8 GPUs on a flat switch. Backward of one layer (3 ms:
 * its FLOPs and its 2 kernels' launches, 4 us each; forward 1.5 ms with 1
 * launch) is longer than one bucket's ring allreduce (about 2.6 ms), so with overlap
 * the iteration costs compute + the last bucket's allreduce; without, the
 * allreduces run after backward: compute + 8 allreduces. Both are checked
 * against those closed forms (within 1e-6, SimGrid's solver precision).
 * While a bucket's allreduce runs beside the next layer's backward, its 2
 * NCCL channels hold 2 of the A100's 108 SMs (sim/sm_hold.c): that
 * layer takes s x the allreduce longer, s = 2/108; with gpu.sms = 0 (no
 * SMs held) it does not.
 *
 * Its links deliver their line rate (efficiency = 1), and its gradients
 * live in their buckets (no DDP copies), as its by-hand figures assume.
 *
 * And the hierarchical forms do not block backward: in the trace of a
 * hierarchical bytegrad iteration on 2 nodes of 4 GPUs, every rank's
 * backward buckets run back to back, while the intra-node reduces of the
 * buckets already done run beside them on the communication stream. */
/* MAP_ANONYMOUS is a BSD/Linux extension beyond POSIX. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <sys/mman.h>

#include <string.h>

#include "algos/report/metrics.h"
#include "algos/report/trace.h"
#include "algos/train/train.h"
#include "scenarios/units.h"
#include "tests/harness.h"
#include "tests/tap.h"

static hs_metrics *metrics;
static const hs_scenario *scenario;

static void train_rank(hs_worker *w, void *arg) {
  (void)arg;
  hs_train_job job = {.sc = scenario, .metrics = metrics};
  hs_train_worker(w, &job);
}

typedef struct {
  const char *overlap;
  const char *gpu;       /* more keys of cluster.gpu */
  const char *algorithm; /* more keys of algorithm */
  double *iter_time;     /* the second iteration's */
  double *first_end;     /* when the first iteration ended */
} job;

static void write_profile(char *profile, size_t len) {
  snprintf(profile, len, "%s/eight.lua", hs_test_tmpdir());
  FILE *f = fopen(profile, "w");
  fputs("local layers = {}\n"
        "for i = 1, 8 do layers[i] = { name = 'l' .. i, params = 4 * 1048576,\n"
        "  fwd_flops = 1.496e11, bwd_flops = 2.992e11 } end\n"
        "return { layers = layers }\n",
        f);
  fclose(f);
}

static void child(void *arg, FILE *report) {
  job *j = arg;
  char profile[600], lua[2048];
  write_profile(profile, sizeof profile);
  snprintf(lua, sizeof lua,
           "cluster { nodes = 8, gpus_per_node = 1, gpu = { flops = \"100TF\", variability = 0%s },\n"
           "  intra = { efficiency = 1, bandwidth = \"100GBps\", latency = \"1us\" },\n"
           "  inter = { efficiency = 1, bandwidth = \"100Gbps\", latency = \"5us\" } }\n"
           "workload { model = \"%s\", batch = 1 }\n"
           "algorithm { name = \"gradient_allreduce\", bucket_size = \"16MiB\", overlap = %s,\n"
           "            gradient_as_bucket_view = true%s }\n"
           "run { iterations = 3, trace = 1 }\nsim { collectives = \"ring\", protocol = \"simple\" }\n",
           j->gpu, profile, j->overlap, j->algorithm);
  hs_scenario sc;
  if (hs_test_load(lua, &sc)) {
    hs_report(report, 0, "scenario loads");
    return;
  }
  scenario = &sc;
  metrics = hs_metrics_create(3, 0);
  hs_trace *trace = hs_trace_create();
  hs_test_simulate(&sc, 0, train_rank, NULL, NULL, trace);
  hs_report(report, metrics->count[2] == 8, "all 8 ranks ran 3 iterations");
  double t1 = metrics->end_time[0], t2 = metrics->end_time[1] - metrics->end_time[0];
  if (!*j->algorithm) hs_report(report, fabs(t1 - t2) <= 1e-9 * t1, "iterations take the same time (%.9g, %.9g)", t1, t2);
  *j->iter_time = t2;
  *j->first_end = t1;
  /* The timeline of rank 0's first iteration tells the same story. */
  char negotiation[32], four[16];
  hs_format_bytes(4, four, sizeof four);
  snprintf(negotiation, sizeof negotiation, "allreduce %s", four);
  int allreduces = 0, overlapped = 0;
  double last_backward_end = 0;
  for (size_t i = 0; i < hs_trace_count(trace); i++) {
    int rank, lane;
    const char *name;
    double s, e;
    hs_trace_get(trace, i, &rank, &lane, &name, &s, &e);
    if (rank == 0 && strncmp(name, "backward", 8) == 0 && e > last_backward_end) last_backward_end = e;
  }
  for (size_t i = 0; i < hs_trace_count(trace); i++) {
    int rank, lane;
    const char *name;
    double s, e;
    hs_trace_get(trace, i, &rank, &lane, &name, &s, &e);
    /* Horovod's negotiation (an allreduce of one 4-byte integer a cycle,
     * on a communicator of its own) is not a bucket's */
    if (rank != 0 || strncmp(name, "allreduce", 9) != 0 || strcmp(name, negotiation) == 0) continue;
    allreduces++;
    overlapped += s < last_backward_end;
  }
  int on = strcmp(j->overlap, "true") == 0;
  hs_report(report, allreduces == 8, "trace: 8 bucket allreduces in the traced iteration (got %d)", allreduces);
  hs_report(report, on ? overlapped == 7 : overlapped == 0,
            "trace: %d allreduces start before backward ends (want %d)", overlapped, on ? 7 : 0);
  hs_trace_free(trace);
}

/* An algorithm whose buckets' chains run on a communication stream,
 * traced: backward never waits for them. */
typedef struct {
  const char *what;      /* for the report */
  const char *algorithm; /* the algorithm { } line's keys */
  const char *op;        /* the operation counted ("reduce ", "allreduce ") */
  int ops, beside;       /* how many a rank posts in the traced iteration, and start while backward runs */
  int blocks;            /* backward waits for each bucket's chain (PowerSGD's hook) */
} chains_job;

static void chains(void *arg, FILE *report) {
  const chains_job *j = arg;
  char profile[600], lua[2048];
  write_profile(profile, sizeof profile);
  snprintf(lua, sizeof lua,
           "cluster { nodes = 2, gpus_per_node = 4, gpu = { flops = \"100TF\", variability = 0 },\n"
           "  intra = { bandwidth = \"100GBps\", latency = \"1us\" },\n"
           "  inter = { bandwidth = \"100Gbps\", latency = \"5us\" } }\n"
           "workload { model = \"%s\", batch = 1 }\n"
           "algorithm { %s }\n"
           "run { iterations = 2, trace = 1 }\n",
           profile, j->algorithm);
  hs_scenario sc;
  if (hs_test_load(lua, &sc)) {
    hs_report(report, 0, "scenario loads");
    return;
  }
  scenario = &sc;
  metrics = hs_metrics_create(2, 0);
  hs_trace *trace = hs_trace_create();
  hs_test_simulate(&sc, 0, train_rank, NULL, NULL, trace);
  hs_report(report, metrics->count[1] == 8, "%s: all 8 ranks ran 2 iterations", j->what);
  for (int rank = 0; rank < 8; rank++) {
    double bwd_start[8], bwd_end[8], backward_end = 0;
    int n_bwd = 0, ops = 0, beside = 0;
    for (size_t i = 0; i < hs_trace_count(trace); i++) {
      int r, lane, b;
      const char *name;
      double s, e;
      hs_trace_get(trace, i, &r, &lane, &name, &s, &e);
      if (r == rank && sscanf(name, "backward (bucket %d)", &b) == 1 && b >= 0 && b < 8) {
        bwd_start[b] = s, bwd_end[b] = e, n_bwd++;
        if (e > backward_end) backward_end = e;
      }
    }
    /* back to back: each bucket's backward starts when the previous one
     * ended (1e-9 s: SimGrid's clock is a double) */
    double worst_gap = 0;
    for (int b = 1; b < 8 && n_bwd == 8; b++)
      if (bwd_start[b] - bwd_end[b - 1] > worst_gap) worst_gap = bwd_start[b] - bwd_end[b - 1];
    for (size_t i = 0; i < hs_trace_count(trace); i++) {
      int r, lane;
      const char *name;
      double s, e;
      hs_trace_get(trace, i, &r, &lane, &name, &s, &e);
      if (r != rank || lane < HS_LANE_COMM || strncmp(name, j->op, strlen(j->op)) != 0) continue;
      ops++;
      beside += s < backward_end;
    }
    /* or, where the hook synchronises, each bucket's backward waits for
     * the previous bucket's chain: two allreduces of 2 x 7/8 x 32 KiB and
     * the chain's launches, over 20 us */
    double least_gap = 1;
    for (int b = 1; b < 8 && n_bwd == 8; b++)
      if (bwd_start[b] - bwd_end[b - 1] < least_gap) least_gap = bwd_start[b] - bwd_end[b - 1];
    if (j->blocks)
      hs_report(report, n_bwd == 8 && least_gap > 20e-6,
                "%s, rank %d: each of its 8 backward buckets waits for the chain before it (least gap %.3g s)",
                j->what, rank, least_gap);
    else
      hs_report(report, n_bwd == 8 && worst_gap <= 1e-9,
                "%s, rank %d: its 8 backward buckets run back to back (largest gap %.3g s): nothing blocks backward",
                j->what, rank, worst_gap);
    /* the last bucket's chain can only start when backward is over */
    hs_report(report, ops == j->ops && beside == j->beside,
              "%s, rank %d: %d of its %d '%s' start while backward runs (want %d of %d)", j->what, rank, beside, ops,
              j->op, j->beside, j->ops);
  }
  hs_trace_free(trace);
  hs_metrics_free(metrics);
  hs_scenario_free(&sc);
}

int main(void) {
  /* The children write their iteration times into memory shared with us. */
  double *t = mmap(NULL, 12 * sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  for (int i = 0; i < 12; i++) t[i] = 0;
  job a = {"true", "", "", &t[0], &t[5]}, b = {"false", "", "", &t[1], &t[6]}, c = {"true", ", sms = 0", "", &t[2], &t[7]};
  job d = {"false", "", ", cycle_time = \"5ms\"", &t[3], &t[8]}, e = {"true", ", sms = 0", ", cycle_time = \"5ms\"", &t[4], &t[9]};
  hs_test_in_child("overlap on", child, &a, 120);
  hs_test_in_child("overlap off", child, &b, 120);
  hs_test_in_child("overlap on, no SMs held", child, &c, 120);
  hs_test_in_child("Horovod's cycle, overlap off", child, &d, 120);
  hs_test_in_child("Horovod's cycle, overlap on, no SMs held", child, &e, 120);
  job f = {"true", ", sms = 2", "", &t[10], &t[11]};
  hs_test_in_child("overlap on, collectives hold every SM", child, &f, 120);
  /* Hierarchical bytegrad: each bucket's intra-node reduce beside
   * backward, the last one's after it. */
  chains_job hier = {"hierarchical bytegrad", "name = \"bytegrad\", bucket_size = \"16MiB\", hierarchical = true",
                     "reduce ", 8, 7, 0};
  hs_test_in_child("hierarchical bytegrad", chains, &hier, 120);
  /* PowerSGD's chains on the communication stream: each bucket's
   * allreduces of P and of Q (each layer one 2048 x 2048 matrix, 32 KiB
   * each at rank 4) start while backward runs, the last bucket's two after
   * it. Without DDP's copies into the buckets, which run on the compute
   * stream between backward's buckets (test_kernel_costs charges them).
   * With the hook's synchronisation (the default) backward waits for each
   * chain; without it the chains run beside backward. */
  chains_job psgd = {"powersgd, the hook's sync",
                     "name = \"powersgd\", bucket_size = \"16MiB\", gradient_as_bucket_view = true", "allreduce ", 16,
                     14, 1};
  hs_test_in_child("powersgd, the hook's sync", chains, &psgd, 120);
  chains_job psgd_free = {"powersgd, no sync",
                          "name = \"powersgd\", bucket_size = \"16MiB\", gradient_as_bucket_view = true, "
                          "sync_each_bucket = false",
                          "allreduce ", 16, 14, 0};
  hs_test_in_child("powersgd, no sync", chains, &psgd_free, 120);
  double on = t[0], off = t[1], on_free = t[2];
  int n = 8;
  /* The links' 1 + 5 us, and NCCL's Simple protocol (the default;
   * protocol.h): 14 us more per hop across nodes, 8.4 us of launch. */
  double alpha = 6e-6 + 14e-6, launch = 8.4e-6, B = 12.5e9, M = 16.0 * 1048576;
  double comm = launch + 2 * (n - 1) * alpha + 2.0 * (n - 1) / n * M / B;
  /* Each layer's passes: its FLOPs at 100 TF/s and its kernels' launches
   * (one forward, two backward; 4 us each, scenarios/gpu_defaults.c):
   * 1.5 and 3 ms. The optimizer's step after the last allreduce
   * (algos/train/sgd.h): 20 bytes a parameter (grad, weights, momentum) at
   * the A100's 1555 GB/s, and a launch of 4 us per bucket. */
  double layer_fwd = 1.496e11 / 100e12 + 4e-6, layer_bwd = 2.992e11 / 100e12 + 2 * 4e-6;
  double compute = 8 * (layer_fwd + layer_bwd) + 8 * 4194304.0 * 20 / 1555e9 + 8 * 4e-6;
  tap_diag("compute %.6g s (with the optimizer), one bucket's allreduce %.6g s", compute, comm);
  tap_close(off, compute + 8 * comm, 1e-6, "overlap off: iteration = compute + 8 allreduces + the optimizer, done serially");
  /* 7 allreduces run beside backward, each holding 2 of 108 SMs */
  double s = 2.0 / 108;
  tap_close(on_free, compute + comm, 1e-6,
            "overlap on, gpu.sms = 0: iteration = compute + the last bucket's allreduce + the optimizer");
  tap_close(on, compute + comm + 7 * s * comm, 1e-6,
            "overlap on: and each of the 7 layers whose backward runs beside an allreduce takes 2/108 of it longer");
  /* With 2 SMs, the allreduce's 2 channels take them all: backward beside
   * it keeps 1% of its speed (sim/platform.h, HS_SM_SPEED_FLOOR). */
  tap_close(t[10], compute + comm + 7 * 0.99 * comm, 1e-6,
            "overlap on, gpu.sms = 2: backward all but stops while each of the 7 allreduces beside it runs");
  /* Horovod's loop, a cycle every 5 ms from 0. Each cycle the ranks
   * first agree on what is ready everywhere: an allreduce of one 4-byte
   * integer, on the same ring (its bytes' time is 14/8 x 4 B / B). Without
   * overlap the 8 layers are ready together at the first cycle after
   * backward (36 ms of compute: 40 ms); 16 MiB each, they cannot fuse
   * under bucket_size's 16 MiB, and run one after the other. */
  double negotiate = launch + 2 * (n - 1) * alpha + 2.0 * (n - 1) / n * 4 / B;
  double fwd = 8 * layer_fwd, bwd = layer_bwd, cycle = 5e-3, opt = compute - 8 * (layer_fwd + layer_bwd);
  tap_close(t[8], 0.040 + negotiate + 8 * comm + opt, 1e-6,
            "cycle_time 5ms, overlap off: the first iteration's allreduces start at the cycle after backward (40 ms) "
            "and its negotiation");
  /* With overlap each layer is ready 3 ms after the previous one, from
   * the end of forward, and goes out at the next cycle, once negotiated;
   * the stream runs them in order. */
  double stream_free = 0;
  for (int k = 1; k <= 8; k++) {
    double ready = fwd + k * bwd, post = ceil(ready / cycle - 1e-6) * cycle + negotiate;
    stream_free = (post > stream_free ? post : stream_free) + comm;
  }
  tap_close(t[9], stream_free + opt, 1e-6,
            "cycle_time 5ms, overlap on: each layer's allreduce starts at the first cycle after it is ready, once "
            "negotiated");
  tap_ok(t[9] > t[7], "Horovod's cycles cost time against posting from backward's hooks (%.6g > %.6g)", t[9], t[7]);
  tap_ok(on > 0 && on < compute + 8 * comm, "overlap on is faster than compute + communication done serially (%.6g < %.6g)",
         on, compute + 8 * comm);
  return tap_done(0);
}
