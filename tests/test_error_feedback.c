/* test_error_feedback.c — error feedback (algos/compressor.h) does what
 * EF-SGD promises for the sparsifiers, top-k and random-k, which used to
 * take a residual buffer and ignore it:
 *
 *  - hs_cz_encode with a residual: after one step the residual is the input
 *    with the sent elements zeroed (exact: a sparsifier sends values as
 *    they are); over T steps what was sent plus the final residual is the
 *    sum of the inputs (telescoping; only err + x rounds, half an ulp of
 *    |err + x| per step, the bound computed below);
 *  - so the sum of what was sent tracks the sum of the inputs: the gap is
 *    the last residual, which stays bounded while the sums grow with T.
 *    With 5% kept an element waits n/k = 20 steps between sends on
 *    average, so the residual holds about 20 of T = 400 steps of input (5%
 *    of the sums; random-k's waits are geometric, some much longer): the
 *    bound is a relative gap under 15%. The same compressor without a
 *    residual loses most of it (over 50%: an element gets through only the
 *    steps it is among the kept ones);
 *  - the same through the scatter-gather allreduce (hs_sg_create with
 *    error_feedback = 1: a residual on each worker and on each chunk's
 *    server), simulated over 4 ranks for 200 steps: the sum of the averages
 *    it returns tracks the sum of the true averages (relative gap under 15%;
 *    about 10% expected from 20 of 200 steps, 7.6% observed), and without
 *    error feedback it does not (over 50%). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/compressor.h"
#include "algos/scatter_gather.h"
#include "tests/harness.h"
#include "tests/tap.h"

/* Inputs in [-1, 1.5): a mean of 0.25 so sums grow with the steps, and
 * signs that vary so top-k's choice changes from step to step. A hash of
 * (rank, step, element), so every rank of a simulation and the checker
 * draw the same values without sharing a generator. */
static float input(int r, int t, size_t i) {
  uint64_t z = ((uint64_t)r << 48) ^ ((uint64_t)t << 24) ^ i;
  z = (z + 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (float)(-1.0 + 2.5 * (double)(z >> 11) / 9007199254740992.0);
}

static double rel_gap(const double *sent, const double *truth, size_t n) {
  double d = 0, t = 0;
  for (size_t i = 0; i < n; i++) d += (sent[i] - truth[i]) * (sent[i] - truth[i]), t += truth[i] * truth[i];
  return sqrt(d / t);
}

/* T steps of one compressor on one buffer; returns the relative gap
 * between the sums sent and the sums of the inputs. */
static double track(const hs_compressor *cz, const char *name, int feedback) {
  const size_t n = 1000;
  const int T = 400;
  float *x = malloc(n * sizeof *x), *dec = malloc(n * sizeof *dec), *err = feedback ? calloc(n, sizeof *err) : NULL;
  double *sent = calloc(n, sizeof *sent), *truth = calloc(n, sizeof *truth), bound = 0;
  uint8_t *buf = malloc(hs_cz_bytes(cz, n));
  size_t k = hs_cz_kept(cz, n);
  for (int t = 0; t < T; t++) {
    double vmax = 0;
    for (size_t i = 0; i < n; i++) {
      x[i] = input(0, t, i);
      truth[i] += x[i];
      if (err) vmax = fmax(vmax, fabs(err[i] + x[i]));
    }
    bound += vmax * ldexp(1, -24);
    hs_cz_encode(cz, x, err, n, (uint64_t)t, buf);
    hs_cz_decode(cz, buf, n, (uint64_t)t, dec);
    for (size_t i = 0; i < n; i++) sent[i] += dec[i];
    if (err && t == 0) {
      /* The first residual, exactly: x where nothing was sent, 0 where x went. */
      size_t kept = 0, exact = 1;
      for (size_t i = 0; i < n; i++) {
        kept += dec[i] != 0;
        exact &= dec[i] != 0 ? err[i] == 0 && dec[i] == x[i] : err[i] == x[i];
      }
      tap_ok(kept == k && exact, "%s with error feedback, step 1: %zu sent, the residual holds the other %zu inputs "
             "exactly and 0 where they went", name, kept, n - kept);
    }
  }
  if (err) {
    double worst = 0;
    for (size_t i = 0; i < n; i++) worst = fmax(worst, fabs(sent[i] + err[i] - truth[i]));
    /* Double sums of floats add far less than the float rounding bound. */
    tap_ok(worst <= bound, "%s with error feedback: sent + residual == sum of inputs over %d steps (max diff %.3g, "
           "bound %.3g)", name, T, worst, bound);
  }
  double gap = rel_gap(sent, truth, n);
  free(x), free(dec), free(err), free(sent), free(truth), free(buf);
  return gap;
}

static void test_encode(void) {
  const hs_compressor topk = {.kind = HS_CZ_TOPK, .fraction = 0.05},
                      randk = {.kind = HS_CZ_RANDK, .fraction = 0.05, .seed = 3};
  const struct {
    const hs_compressor *cz;
    const char *name;
  } cases[] = {{&topk, "top-5%"}, {&randk, "random-5%"}};
  for (int c = 0; c < 2; c++) {
    double with = track(cases[c].cz, cases[c].name, 1), without = track(cases[c].cz, cases[c].name, 0);
    tap_ok(with < 0.15, "%s with error feedback: the sums sent track the sums of the inputs (relative gap %.4f < 0.15)",
           cases[c].name, with);
    tap_ok(without > 0.5, "%s without error feedback: they do not (relative gap %.4f > 0.5)", cases[c].name, without);
  }
}

/* ---- through the scatter-gather allreduce -------------------------------- */

#define SG_N 1003 /* not a multiple of the 4 ranks: the last chunk is shorter */
#define SG_T 200

typedef struct {
  hs_compressor cz;
  int feedback;
  const hs_cluster_spec *gpu;
  double sent[SG_N]; /* rank 0's sums of the averages returned */
  int failed;
} sg_job;

static void sg_rank(hs_worker *w, void *arg) {
  sg_job *j = arg;
  hs_sg *s = hs_sg_create(j->gpu, &j->cz, SG_N, w->size, 1, j->feedback);
  float *x = malloc(SG_N * sizeof *x), *out = malloc(SG_N * sizeof *out);
  for (int t = 0; t < SG_T && !j->failed; t++) {
    for (size_t i = 0; i < SG_N; i++) x[i] = input(w->rank, t, i);
    if (hs_sg_start(s, w, w->world, x, (uint64_t)t) || hs_sg_exchange(s, w, w->world, (uint64_t)t) ||
        hs_sg_finish(s, w, out, (uint64_t)t))
      j->failed = 1;
    if (w->rank == 0)
      for (size_t i = 0; i < SG_N; i++) j->sent[i] += out[i];
  }
  free(x), free(out);
  hs_sg_free(s);
}

static void sg_child(void *arg, FILE *report) {
  sg_job *j = arg;
  const char *lua = "cluster { nodes = 1, gpus_per_node = 4, gpu = { flops = \"10TF\" },\n"
                    "  inter = { bandwidth = \"10Gbps\" } }\n"
                    "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\n"
                    "run { iterations = 1 }\n";
  hs_scenario sc;
  if (hs_test_load(lua, &sc)) {
    hs_report(report, 0, "scenario loads");
    return;
  }
  static double truth[SG_N];
  for (int t = 0; t < SG_T; t++)
    for (size_t i = 0; i < SG_N; i++) {
      double mean = 0;
      for (int r = 0; r < 4; r++) mean += input(r, t, i);
      truth[i] += mean / 4;
    }
  j->gpu = &sc.cluster;
  hs_test_simulate(&sc, 4, sg_rank, j, NULL, NULL);
  double gap = rel_gap(j->sent, truth, SG_N);
  if (j->feedback)
    hs_report(report, !j->failed && gap < 0.15, "top-5%% scatter-gather allreduce of %d floats over 4 ranks, %d "
              "steps, error feedback on both sides: the sums returned track the sums of the averages (relative gap "
              "%.4f < 0.15)", SG_N, SG_T, gap);
  else
    hs_report(report, !j->failed && gap > 0.5, "the same without error feedback does not (relative gap %.4f > 0.5)",
              gap);
  hs_scenario_free(&sc);
}

int main(void) {
  test_encode();
  for (int feedback = 1; feedback >= 0; feedback--) {
    sg_job *j = calloc(1, sizeof *j);
    j->cz = (hs_compressor){.kind = HS_CZ_TOPK, .fraction = 0.05};
    j->feedback = feedback;
    hs_test_in_child(feedback ? "scatter-gather with error feedback" : "scatter-gather without", sg_child, j, 120);
    free(j);
  }
  return tap_done(0);
}
