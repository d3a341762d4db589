/* test_decentralized.c — the decentralized algorithm does what it says.
 *
 *  1. Bagua's shift_one pairs are symmetric at every step for n in
 *     {2, 4, 6, 8, 64}, and algos/peers/peers.c equals the published formula
 *     (written out again here, independently).
 *  2. A run of shift_one with lr = 0 from scattered starting weights gives,
 *     bit for bit, the weights of a plain C replay of pairwise averaging
 *     with that formula: every rank met exactly the peers of the formula.
 *  3. peers = "all" equals allreduce model averaging: a plain C replay
 *     (x_r <- mean of the replicas, then each replica's own SGD step with
 *     its own gradient) is matched bit for bit at n = 2 (the sum of two
 *     floats does not depend on order) and within 1e-5 of the largest weight
 *     at n = 16 (the ring adds the 16 replicas in another order than the
 *     replay, which moves each step by a few ulps).
 *  4. The consensus distance is in metrics.csv, and with lr = 0 it shrinks
 *     at every step for shift_one and ring; with all it is exactly 0 from
 *     the first step on.
 *  5. shift_one with an odd number of workers is rejected: exit 2, the
 *     file, line and key algorithm.peers, nothing written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/train/batches.h"
#include "algos/workloads/dataset.h"
#include "algos/workloads/model.h"
#include "algos/peers/peers.h"
#include "algos/workloads/softmax.h"
#include "kernels/kernels.h"
#include "tests/harness.h"
#include "tests/tap.h"
#include "tests/train_run.h"

static const char *scenario_fmt =
    "cluster { nodes = %d, gpus_per_node = %d, gpu = { flops = \"1GF\" }, inter = { bandwidth = \"10Gbps\" } }\n"
    "workload { model = \"softmax\", dataset = { classes = 10, features = 32, samples = 16000 },\n"
    "           batch = 16, lr = %g, momentum = %g, init_noise = %g }\n"
    "algorithm { name = \"decentralized\", peers = \"%s\" }\n"
    "run { iterations = %d, seed = 4 }\n";

static int load(hs_scenario *sc, int nodes, int gpn, double lr, double mom, double noise, const char *peers, int it) {
  char lua[2048];
  snprintf(lua, sizeof lua, scenario_fmt, nodes, gpn, lr, mom, noise, peers, it);
  return hs_test_load(lua, sc);
}

/* REFERENCE.md, verbatim: if r < n/2, peer = ((step + r) mod floor((n+1)/2)) + n/2,
 * else peer = (r - n/2 - step) mod (n/2). */
static int published(int r, int n, int step) {
  if (r < n / 2) return ((step + r) % ((n + 1) / 2)) + n / 2;
  int m = n / 2, v = (r - n / 2 - step) % m;
  return v < 0 ? v + m : v;
}

static void test_pairs(void) {
  const int sizes[] = {2, 4, 6, 8, 64};
  for (int s = 0; s < 5; s++) {
    int n = sizes[s], ok = 1, formula = 1;
    for (int step = 0; step < 3 * n; step++)
      for (int r = 0; r < n; r++) {
        int p = hs_peer_shift_one(r, n, step);
        ok &= p >= 0 && p < n && p != r && hs_peer_shift_one(p, n, step) == r;
        formula &= p == published(r, n, step);
      }
    tap_ok(ok, "shift_one, n = %d: every rank has a peer, and the pairing is symmetric, at each of %d steps", n, 3 * n);
    tap_ok(formula, "shift_one, n = %d: peers equal the published formula at every step", n);
  }
}

/* Each replica's starting weights, as the training loop draws them. */
static float **start_weights(const hs_scenario *sc, int n, size_t *P) {
  float **x = malloc((size_t)n * sizeof *x);
  for (int r = 0; r < n; r++) {
    hs_model *m = hs_model_create(&sc->workload, 0);
    hs_model_init_params(m, &sc->workload, sc->run.seed, r);
    *P = m->n_params;
    x[r] = malloc(*P * sizeof(float));
    memcpy(x[r], m->params, *P * sizeof(float));
    hs_model_free(m);
  }
  return x;
}

static void free_weights(float **x, int n) {
  for (int r = 0; r < n; r++) free(x[r]);
  free(x);
}

static void test_shift_one_replay(void) {
  hs_scenario sc;
  const int n = 8, T = 10;
  if (load(&sc, 2, 4, 0, 0.9, 1.0, "shift_one", T)) {
    tap_ok(0, "scenario loads");
    return;
  }
  hs_run_result *r = hs_run_sim("shift_one, lr = 0", &sc, 60);
  size_t P;
  float **x = start_weights(&sc, n, &P), **next = start_weights(&sc, n, &P);
  for (int t = 0; t < T; t++) {
    for (int k = 0; k < n; k++) hs_k_average2_f32(next[k], x[k], x[published(k, n, t)], P);
    float **tmp = x;
    x = next, next = tmp;
  }
  tap_ok(r->ok && memcmp(r->params, x[0], P * sizeof(float)) == 0,
         "shift_one, 8 workers, 10 steps, lr = 0: rank 0's weights equal a replay of the published pairing, bit for bit");
  free_weights(x, n), free_weights(next, n);
  hs_run_free(r);
  hs_scenario_free(&sc);
}

/* Replays peers = "all" in plain C and compares with the simulated run. */
static void test_all_replay(int nodes, int gpn, double tolerance) {
  hs_scenario sc;
  const int T = 20, n = nodes * gpn;
  if (load(&sc, nodes, gpn, 0.05, 0.9, 0.5, "all", T)) {
    tap_ok(0, "scenario loads");
    return;
  }
  hs_run_result *r = hs_run_sim("peers = all", &sc, 60);
  const hs_workload_spec *wl = &sc.workload;
  char err[256];
  hs_dataset *ds = hs_dataset_create(wl, sc.run.seed, n, err, sizeof err);
  size_t P;
  float **x = start_weights(&sc, n, &P), *avg = malloc(P * sizeof(float));
  float **mom = malloc((size_t)n * sizeof *mom);
  float **grads = malloc((size_t)n * sizeof *grads);
  hs_batcher *b = calloc((size_t)n, sizeof *b);
  long *idx = malloc((size_t)wl->batch * sizeof *idx);
  for (int k = 0; k < n; k++) {
    mom[k] = calloc(P, sizeof(float));
    grads[k] = malloc(P * sizeof(float));
    hs_batcher_init(&b[k], ds, k, sc.run.seed);
  }
  for (int t = 0; t < T; t++) {
    for (int k = 0; k < n; k++) {
      hs_batcher_indices(&b[k], t, wl->batch, idx);
      hs_softmax_grad(x[k], ds, idx, wl->batch, grads[k]);
    }
    memcpy(avg, x[0], P * sizeof(float));
    for (int k = 1; k < n; k++) hs_k_reduce(HS_K_F32, HS_K_SUM, avg, x[k], P);
    hs_k_divide(HS_K_F32, avg, P, n);
    for (int k = 0; k < n; k++) {
      memcpy(x[k], avg, P * sizeof(float));
      hs_k_sgd_momentum_f32(x[k], grads[k], mom[k], P, (float)wl->lr, (float)wl->momentum, (float)wl->weight_decay);
    }
  }
  double worst = 0, norm = 0;
  for (size_t i = 0; i < P; i++) {
    worst = fmax(worst, fabs((double)r->params[i] - x[0][i]));
    norm = fmax(norm, fabs((double)x[0][i]));
  }
  if (tolerance == 0)
    tap_ok(r->ok && worst == 0, "peers = all, %d workers, 20 steps: equals allreduce model averaging then local "
           "SGD, bit for bit", n);
  else
    tap_ok(r->ok && worst <= tolerance * norm, "peers = all, %d workers, 20 steps: equals allreduce model averaging "
           "then local SGD (max diff %.3g, largest weight %.3g)", n, worst, norm);
  for (int k = 0; k < n; k++) free(mom[k]), free(grads[k]), hs_batcher_free(&b[k]);
  free(mom), free(grads), free(b), free(idx), free(avg);
  free_weights(x, n);
  hs_dataset_free(ds);
  hs_run_free(r);
  hs_scenario_free(&sc);
}

/* Through the command line, so metrics.csv itself is what is checked. */
static void test_consensus_in_metrics(const char *peers) {
  char lua[2048], path[700], cmd[2048], out[700], err[512];
  snprintf(lua, sizeof lua, scenario_fmt, 2, 4, 0.0, 0.9, 1.0, peers, 12);
  snprintf(path, sizeof path, "%s/consensus-%s.lua", hs_test_tmpdir(), peers);
  snprintf(out, sizeof out, "%s/out-%s", hs_test_tmpdir(), peers);
  FILE *f = fopen(path, "w");
  fputs(lua, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s run %s --out %s --quiet", HEARSAY_BIN, path, out);
  int rc = hs_test_command(cmd, err, sizeof err);
  char csv[800], line[1024];
  snprintf(csv, sizeof csv, "%s/metrics.csv", out);
  f = fopen(csv, "r");
  int header = 0, rows = 0, shrinking = 1;
  double first = NAN, prev = INFINITY, last = NAN;
  int col = -1; /* the consensus column, by name */
  if (f && fgets(line, sizeof line, f)) {
    header = strstr(line, ",consensus,") != NULL;
    col = 0;
    for (char *p = line; p < strstr(line, ",consensus,") + 1 && *p; p++) col += *p == ',';
  }
  while (f && fgets(line, sizeof line, f)) {
    char *c = line;
    for (int k = 0; k < col && c; k++) c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL;
    double v = c ? strtod(c, NULL) : NAN;
    if (rows == 0) first = v;
    shrinking &= v < prev || (v == 0 && prev == 0);
    prev = last = v;
    rows++;
  }
  if (f) fclose(f);
  if (strcmp(peers, "all") == 0) /* one allreduce gives every replica the same bits */
    tap_ok(rc == 0 && header && rows == 12 && first == 0 && last == 0,
           "peers = all, lr = 0: metrics.csv's consensus column is exactly 0 from the first step on");
  else
    tap_ok(rc == 0 && header && rows == 12 && shrinking && last < first,
           "peers = %s, lr = 0: metrics.csv's consensus column shrinks at every step (%.3g -> %.3g)", peers, first,
           last);
}

static void test_odd_rejected(void) {
  char lua[2048], path[700], cmd[2048], out[700], err[1024];
  snprintf(lua, sizeof lua, scenario_fmt, 1, 5, 0.05, 0.9, 0.0, "shift_one", 5);
  snprintf(path, sizeof path, "%s/odd.lua", hs_test_tmpdir());
  snprintf(out, sizeof out, "%s/out-odd", hs_test_tmpdir());
  FILE *f = fopen(path, "w");
  fputs(lua, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s run %s --out %s", HEARSAY_BIN, path, out);
  int rc = hs_test_command(cmd, err, sizeof err);
  char where[800];
  snprintf(where, sizeof where, "%s:4: algorithm.peers", path);
  FILE *o = fopen(out, "r");
  tap_ok(rc == 2 && strstr(err, where) && strstr(err, "even") && !o,
         "shift_one with 5 workers: exit 2, '%s: ...even...', nothing written (got %d: %.200s)", where, rc, err);
  if (o) fclose(o);
}

int main(void) {
  test_pairs();
  test_shift_one_replay();
  test_all_replay(1, 2, 0);
  test_all_replay(4, 4, 1e-5);
  test_consensus_in_metrics("shift_one");
  test_consensus_in_metrics("ring");
  test_consensus_in_metrics("all");
  test_odd_rejected();
  return tap_done(0);
}
