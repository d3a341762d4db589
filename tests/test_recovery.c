/* test_recovery.c — the recovery lifecycle of algorithm.h: after a node
 * failure under run.on_failure = "shrink", the survivors agree on the
 * weights before the algorithm starts again, so no algorithm keeps a copy
 * of the model from before (ring gossip's public copies, a server's shard,
 * an averaging thread's buffer) and every survivor restarts from the same
 * weights.
 *
 * The sharp case: replicas start different (workload.init_noise) and the
 * learning rate is 0, so only communication moves the weights. Without the
 * failure they drift together slowly; after the restart they must be equal
 * and stay equal: averaging equal weights gives them back. An algorithm
 * that restarted from a stale copy carries the old disagreement on: with
 * init() before the broadcast, low_precision_decentralized and choco keep
 * it for the rest of the run.
 *
 * The realistic case: the quickstart's kind of training (lr 0.05), where
 * the survivors' final consensus distance must be back where the run
 * without a failure has it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algos/algorithm.h"
#include "tests/run_csv.h"
#include "tests/tap.h"

static const char *lua_fmt =
    "cluster { nodes = 4, gpus_per_node = 2, gpu = { flops = '2GF', efficiency = 1 },\n"
    "  intra = { bandwidth = '100GBps', latency = '2us' }, inter = { bandwidth = '10Gbps', latency = '20us' } }\n"
    "workload { model = 'softmax', dataset = { classes = 4, features = 16, samples = 8000, test_samples = 200 },\n"
    "  batch = 16, lr = %g, momentum = 0.9, init_noise = %g }\n"
    "algorithm { name = '%s'%s }\n"
    "run { iterations = 120, seed = 11, on_failure = 'shrink' }\n%s";

/* Options that make each algorithm communicate within the 120 iterations. */
static const char *options(const char *algo) {
  if (strcmp(algo, "qadam") == 0 || strcmp(algo, "onebit_adam") == 0) return ", warmup_steps = 5";
  if (strcmp(algo, "async_model_average") == 0) return ", sync_interval = '1ms'";
  if (strcmp(algo, "local_sgd") == 0) return ", period = 2";
  return "";
}

static double col_max(const hs_csv_run *r, int from, const char *name) {
  double m = 0;
  for (int i = from; i < r->rows; i++) m = fmax(m, hs_csv(r, i, name));
  return m;
}

/* The first row where the workers differ from the first row's: the
 * failure's. */
static int failed_row(const hs_csv_run *r) {
  int i = 0;
  while (i < r->rows && hs_csv(r, i, "workers") == hs_csv(r, 0, "workers")) i++;
  return i;
}

/* The first row from the failure on where the survivors (the first row's
 * workers less node 1's two) all report, 5 rows running. An asynchronous
 * run's workers are apart when the failure strikes: the rows of the
 * iterations some of them had reached before it come first, with fewer
 * workers or, by chance, as many (adpsgd's passive workers, which never
 * wait, were two iterations ahead). */
static int restart_row(const hs_csv_run *r) {
  double survivors = hs_csv(r, 0, "workers") - 2;
  for (int i = failed_row(r); i + 5 <= r->rows; i++) {
    int stable = 1;
    for (int j = i; j < i + 5; j++) stable &= hs_csv(r, j, "workers") == survivors;
    if (stable) return i;
  }
  return r->rows;
}

static void check(const char *algo) {
  static hs_csv_run base, fail;
  char lua[2048], failure[128];
  const char *opt = options(algo);

  /* Sharp case. Node 1 (ranks 2, 3; never a parameter server, the last
   * rank) dies 5% of the way through, while the replicas still differ:
   * gossip without gradients shrinks their distance about 1.5x per step. */
  snprintf(lua, sizeof lua, lua_fmt, 0.0, 0.1, algo, opt, "");
  hs_csv_run_lua("base", lua, NULL, &base);
  double t_fail = 0.05 * hs_csv(&base, base.rows - 1, "time_s");
  snprintf(failure, sizeof failure, "failures { { node = 1, at = %.17g } }\n", t_fail);
  snprintf(lua, sizeof lua, lua_fmt, 0.0, 0.1, algo, opt, failure);
  hs_csv_run_lua("shrink", lua, NULL, &fail);
  /* The row of the restart may hold what some survivors finished before
   * they learnt of the failure: the restart shows from the next. */
  int first = restart_row(&fail) + 1;
  double spread = hs_csv(&base, 0, "consensus");
  double after = first < fail.rows ? col_max(&fail, first, "consensus") : NAN;
  /* Equal weights averaged stay equal up to rounding: ring gossip's 1/3
   * weights and the 8-bit codes of a zero difference leave at most a few
   * float ulps per step, far below 1e-6 of the initial spread (of 1 where
   * an algorithm makes the replicas equal from the start: servers). */
  tap_ok(base.rc == 0 && fail.rc == 0 && first > 1 && first < fail.rows && after <= 1e-6 * (spread > 0 ? spread : 1),
         "%s, lr 0, replicas start apart (consensus %.3g after iteration 0): node 1 fails at iteration %d, and "
         "after the restart the 6 survivors' consensus distance is at most %.3g (want <= 1e-6 of the spread; "
         "without the failure it is %.3g at the end; exit %d, %d)",
         algo, spread, first, after, hs_csv(&base, base.rows - 1, "consensus"), base.rc, fail.rc);

  /* Realistic case: training, replicas start equal. */
  snprintf(lua, sizeof lua, lua_fmt, 0.05, 0.0, algo, opt, "");
  hs_csv_run_lua("base-train", lua, NULL, &base);
  t_fail = 0.4 * hs_csv(&base, base.rows - 1, "time_s");
  snprintf(failure, sizeof failure, "failures { { node = 1, at = %.17g } }\n", t_fail);
  snprintf(lua, sizeof lua, lua_fmt, 0.05, 0.0, algo, opt, failure);
  hs_csv_run_lua("shrink-train", lua, NULL, &fail);
  double end_base = hs_csv(&base, base.rows - 1, "consensus"), end_fail = hs_csv(&fail, fail.rows - 1, "consensus");
  /* The survivors go on from where training was, neither from the start
   * nor thrown off by state that did not restart cleanly: the mean loss of
   * the 5 iterations after the restart has lost at most a quarter of the
   * way from the initial loss (log 4 = 1.39) to the loss of the 5 before
   * the failure (about 0.04 by then). The survivors' batches differ from
   * the eight's, so the loss does move a little. */
  first = failed_row(&fail);
  int restart = restart_row(&fail);
  double before_loss = 0, after_loss = 0;
  for (int i = 0; i < 5; i++) {
    before_loss += first - 1 - i >= 0 ? hs_csv(&fail, first - 1 - i, "loss") / 5 : NAN;
    after_loss += restart + 1 + i < fail.rows ? hs_csv(&fail, restart + 1 + i, "loss") / 5 : NAN;
  }
  double initial = hs_csv(&base, 0, "loss");
  tap_ok(fail.rc == 0 && first >= 5 && after_loss <= before_loss + 0.25 * (initial - before_loss),
         "%s, lr 0.05: mean loss %.4f over the 5 iterations after the restart, %.4f over the 5 before the failure, "
         "%.4f at the start (want at most a quarter of the progress lost)", algo, after_loss, before_loss, initial);
  /* Six survivors instead of eight gossip on a shorter ring (a larger
   * spectral gap) and see fewer, larger gradient differences: their steady
   * state may sit either side of the eight's, within a factor of 2; the
   * 1e-6 absolute floor covers the algorithms whose replicas are equal. */
  tap_ok(base.rc == 0 && fail.rc == 0 && end_fail <= 2 * end_base + 1e-6 && end_fail >= 0,
         "%s, lr 0.05: final consensus distance %.4g after a failure at %.3g s, %.4g without (want <= 2x + 1e-6)",
         algo, end_fail, t_fail, end_base);
}

int main(void) {
  for (const hs_algorithm_desc *const *a = hs_algorithm_list(); *a; a++) check((*a)->name);
  return tap_done(0);
}
