/* test_gradient_allreduce.c — data-parallel SGD is what it claims to be.
 *
 * 1. n workers with batch b for 50 iterations end with the same weights as
 *    one worker with batch n*b on the same samples (within 1e-5 relative):
 *    the reference here is plain C, no communication at all, fed with the
 *    union of the batches the n workers drew at each iteration.
 * 2. With 8 and 64 workers it reaches at least 90% held-out accuracy on a
 *    separable 10-class mixture. */
/* MAP_ANONYMOUS is a BSD/Linux extension beyond POSIX. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "algos/train/batches.h"
#include "algos/workloads/dataset.h"
#include "algos/report/metrics.h"
#include "algos/workloads/softmax.h"
#include "algos/train/train.h"
#include "kernels/kernels.h"
#include "tests/harness.h"
#include "tests/tap.h"

static const char *scenario_fmt =
    "cluster { nodes = %d, gpus_per_node = %d, gpu = { flops = \"100TF\" },\n"
    "  inter = { bandwidth = \"100Gbps\" } }\n"
    "workload { model = \"softmax\", dataset = { classes = 10, features = 32, samples = %d,\n"
    "           partition = \"%s\" }, batch = %d, lr = 0.05, momentum = 0.9, weight_decay = 0.001 }\n"
    "algorithm { name = \"gradient_allreduce\", bucket_size = \"%s\" }\n"
    "run { iterations = %d, seed = 11, eval_every = 10 }\n";

typedef struct {
  const hs_scenario *sc;
  float *params; /* shared with the parent */
  double *accuracy;
} job;

static hs_dataset *shared_ds;
static hs_metrics *shared_metrics;

static void train_rank(hs_worker *w, void *arg) {
  job *j = arg;
  hs_train_job tj = {.sc = j->sc, .ds = shared_ds, .metrics = shared_metrics, .final_params = j->params};
  hs_train_worker(w, &tj);
}

static void child(void *arg, FILE *report) {
  job *j = arg;
  char err[256];
  shared_ds = hs_dataset_create(&j->sc->workload, j->sc->run.seed, hs_scenario_gpus(j->sc), err, sizeof err);
  shared_metrics = hs_metrics_create(j->sc->run.iterations, 0);
  hs_test_simulate(j->sc, 0, train_rank, j, NULL, NULL);
  hs_metrics_summary s;
  hs_metrics_summarize(shared_metrics, j->sc->workload.batch, 0, &s);
  *j->accuracy = s.final_accuracy;
  hs_report(report, shared_metrics->count[j->sc->run.iterations - 1] == hs_scenario_gpus(j->sc),
            "every worker finished every iteration");
}

/* One worker, batch n*b, the very samples the n workers used. */
static void reference(const hs_scenario *sc, float *w) {
  const hs_workload_spec *wl = &sc->workload;
  int n = hs_scenario_gpus(sc), b = wl->batch;
  char err[256];
  hs_dataset *ds = hs_dataset_create(wl, sc->run.seed, n, err, sizeof err);
  size_t P = (size_t)wl->classes * wl->features + wl->classes;
  float *g = calloc(P, sizeof(float)), *m = calloc(P, sizeof(float));
  long *idx = malloc((size_t)n * b * sizeof(long));
  hs_batcher *bt = calloc(n, sizeof *bt);
  for (int r = 0; r < n; r++) hs_batcher_init(&bt[r], ds, r, sc->run.seed);
  memset(w, 0, P * sizeof(float));
  for (int it = 0; it < sc->run.iterations; it++) {
    for (int r = 0; r < n; r++) hs_batcher_indices(&bt[r], it, b, idx + (size_t)r * b);
    hs_softmax_grad(w, ds, idx, n * b, g);
    hs_k_sgd_momentum_f32(w, g, m, P, (float)wl->lr, (float)wl->momentum, (float)wl->weight_decay);
  }
  for (int r = 0; r < n; r++) hs_batcher_free(&bt[r]);
  free(bt);
  free(idx);
  free(g);
  free(m);
  hs_dataset_free(ds);
}

/* Trains the scenario in a child; returns rank 0's final weights (malloc'd)
 * and the final held-out accuracy through memory shared with the child. */
static float *train_in_child(const char *what, hs_scenario *sc, double *accuracy, int timeout_s) {
  size_t P = (size_t)sc->workload.classes * sc->workload.features + sc->workload.classes;
  float *sim = mmap(NULL, P * sizeof(float), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  double *acc = mmap(NULL, sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  job j = {sc, sim, acc};
  hs_test_in_child(what, child, &j, timeout_s);
  float *out = malloc(P * sizeof(float));
  memcpy(out, sim, P * sizeof(float));
  *accuracy = *acc;
  munmap(sim, P * sizeof(float));
  munmap(acc, sizeof(double));
  return out;
}

static int load(hs_scenario *sc, int nodes, int gpn, int samples, const char *part, int batch, const char *bucket,
                int iters) {
  char lua[2048];
  snprintf(lua, sizeof lua, scenario_fmt, nodes, gpn, samples, part, batch, bucket, iters);
  return hs_test_load(lua, sc);
}

int main(void) {
  /* 1. Equivalence with the large-batch single worker. */
  const struct { int nodes, gpn; const char *part; const char *bucket; } eq[] = {
      {2, 2, "iid", "25MiB"}, {2, 3, "dirichlet", "256B"}, {1, 1, "iid", "25MiB"}};
  for (int e = 0; e < 3; e++) {
    hs_scenario sc;
    if (load(&sc, eq[e].nodes, eq[e].gpn, 6000, eq[e].part, 16, eq[e].bucket, 50)) {
      tap_ok(0, "scenario loads");
      continue;
    }
    size_t P = (size_t)sc.workload.classes * sc.workload.features + sc.workload.classes;
    int n = hs_scenario_gpus(&sc);
    char what[128];
    double acc;
    snprintf(what, sizeof what, "%d workers, %s data, buckets of %s", n, eq[e].part, eq[e].bucket);
    float *sim = train_in_child(what, &sc, &acc, 120);
    float *ref = malloc(P * sizeof(float));
    reference(&sc, ref);
    double worst = 0, norm = 0;
    for (size_t i = 0; i < P; i++) {
      worst = fmax(worst, fabs((double)sim[i] - ref[i]));
      norm = fmax(norm, fabs((double)ref[i]));
    }
    /* Tolerance 1e-5 of the largest weight: the two runs sum the same float
     * gradients in different orders (ring reduction vs one big batch), which
     * moves each step by a few float32 ulps. */
    tap_ok(worst <= 1e-5 * norm, "%s: weights after 50 iterations equal one worker with batch %d "
           "(max diff %.3g, largest weight %.3g)", what, 16 * n, worst, norm);
    free(ref);
    free(sim);
    hs_scenario_free(&sc);
  }

  /* 2. Accuracy at 8 and 64 workers. */
  const struct { int nodes, gpn, iters; } ac[] = {{1, 8, 150}, {8, 8, 100}};
  for (int e = 0; e < 2; e++) {
    hs_scenario sc;
    if (load(&sc, ac[e].nodes, ac[e].gpn, 32000, "iid", 32, "25MiB", ac[e].iters)) {
      tap_ok(0, "scenario loads");
      continue;
    }
    char what[64];
    double acc;
    snprintf(what, sizeof what, "%d workers", hs_scenario_gpus(&sc));
    free(train_in_child(what, &sc, &acc, 300));
    tap_ok(acc >= 0.90, "%s reach %.2f%% held-out accuracy (>= 90%%)", what, 100 * acc);
    hs_scenario_free(&sc);
  }
  return tap_done(0);
}
