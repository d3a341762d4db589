/* test_real_training.c — the same scenario file, simulated and run on real
 * processes (mpirun -np 4), trains the same model: the loss curves agree to
 * 1e-5 relative (same seed, same partition). Both backends lower collectives
 * the same way (algos/lowering.c) and reduce in the same order, so the
 * curves are in fact expected to be identical; 1e-5 is the promise. The
 * held-out evaluations and the bytes each rank sent must match too.
 *
 * Cases: scenarios/emulated-4.lua as shipped (4 nodes x 1 GPU, links
 * emulated), scenarios/quickstart.lua shrunk to 2 nodes x 2 GPUs with
 * hierarchical collectives and no emulation (the MPI library's
 * collectives), and the timing-only resnet50-16x8.lua shrunk the same way
 * with both lowerings (same bytes, exit 0). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "tests/tap.h"

#define MAX_ROWS 1000
#define COLS 9 /* iteration,time_s,iter_time_s,compute_s,exposed_comm_s,loss,test_loss,accuracy,bytes_sent */

typedef struct {
  int rows;
  double v[MAX_ROWS][COLS]; /* NAN for empty fields */
} table;

static int read_metrics(const char *dir, table *t) {
  char path[1200], line[1024];
  snprintf(path, sizeof path, "%s/metrics.csv", dir);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  t->rows = 0;
  if (!fgets(line, sizeof line, f)) return fclose(f), -1;
  while (t->rows < MAX_ROWS && fgets(line, sizeof line, f)) {
    char *p = line;
    for (int c = 0; c < COLS; c++) {
      char *end;
      double x = strtod(p, &end);
      t->v[t->rows][c] = end == p ? NAN : x;
      p = strchr(end, ',');
      if (!p) break;
      p++;
    }
    t->rows++;
  }
  fclose(f);
  return 0;
}

static int same_or_both_nan(double a, double b, double rel) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  return fabs(a - b) <= rel * fabs(b);
}

/* numeric: compare losses and evaluations; timing-only runs have none. */
static void compare_runs(const char *name, const char *scenario, const char *sets, int numeric);

static void compare(const char *name, const char *scenario, const char *sets) {
  compare_runs(name, scenario, sets, 1);
}

static void compare_runs(const char *name, const char *scenario, const char *sets, int numeric) {
  const char *tmp = hs_test_tmpdir();
  char cmd[8192], sim_dir[600], real_dir[600], err[4096];
  snprintf(sim_dir, sizeof sim_dir, "%s/sim", tmp);
  snprintf(real_dir, sizeof real_dir, "%s/real", tmp);
  snprintf(cmd, sizeof cmd, "%s run %s/%s %s --out %s --quiet", HEARSAY_BIN, HS_SOURCE_DIR, scenario, sets, sim_dir);
  int rc = hs_test_command(cmd, err, sizeof err);
  if (!tap_ok(rc == 0, "%s: simulated run exits 0 (%d) %s", name, rc, rc ? err : "")) return;
  snprintf(cmd, sizeof cmd, "timeout -k 5 300 %s %s %s/%s %s --out %s --quiet", hs_test_mpirun(4), HEARSAY_REAL_BIN,
           HS_SOURCE_DIR, scenario, sets, real_dir);
  rc = hs_test_command(cmd, err, sizeof err);
  if (!tap_ok(rc == 0, "%s: mpirun -np 4 hearsay-real exits 0 (%d) %s", name, rc, rc ? err : "")) return;

  static table s, r;
  int read_ok = read_metrics(sim_dir, &s) == 0 && read_metrics(real_dir, &r) == 0;
  if (!tap_ok(read_ok && s.rows == r.rows && s.rows > 0,
              "%s: both wrote metrics.csv with the same rows (%d, %d)", name, s.rows, r.rows))
    return;
  double worst = 0;
  int loss_ok = 1, eval_ok = 1, bytes_ok = 1, evals = 0;
  for (int i = 0; i < s.rows; i++) {
    double a = s.v[i][5], b = r.v[i][5];
    if (!same_or_both_nan(b, a, 1e-5)) loss_ok = 0;
    if (!isnan(a) && a != 0) worst = fmax(worst, fabs(a - b) / fabs(a));
    eval_ok &= same_or_both_nan(r.v[i][6], s.v[i][6], 1e-5) && same_or_both_nan(r.v[i][7], s.v[i][7], 1e-5);
    evals += !isnan(s.v[i][7]);
    bytes_ok &= r.v[i][8] == s.v[i][8];
  }
  if (numeric) {
    tap_ok(loss_ok, "%s: training loss curves agree to 1e-5 relative over %d iterations (worst %.3g)", name,
           s.rows, worst);
    tap_ok(eval_ok && evals > 0, "%s: held-out loss and accuracy agree at all %d evaluations", name, evals);
  }
  tap_ok(bytes_ok, "%s: bytes sent per iteration identical", name);
  tap_ok(r.v[s.rows - 1][1] > 0, "%s: the real run reports wall-clock time (%.3g s)", name, r.v[s.rows - 1][1]);
}

int main(void) {
  compare("emulated-4", "scenarios/emulated-4.lua", "--set run.iterations=30");
  compare("quickstart 2x2 hierarchical", "scenarios/quickstart.lua",
          "--set cluster.nodes=2 --set cluster.gpus_per_node=2 --set sim.collectives=hierarchical "
          "--set run.iterations=60");
  /* Timing-only (a model profile): buffers carry no data, real bytes still
   * move (scratch), compute is emulated; both lowerings. */
  const char *resnet = "--set cluster.nodes=2 --set cluster.gpus_per_node=2 --set run.iterations=3";
  char sets[512];
  for (int i = 0; i < 2; i++) {
    const char *lowering = i ? "mpi" : "hearsay";
    char name[64];
    snprintf(name, sizeof name, "resnet50 timing-only, lowering=%s", lowering);
    snprintf(sets, sizeof sets, "%s --set real.lowering=%s", resnet, lowering);
    compare_runs(name, "scenarios/resnet50-16x8.lua", sets, 0);
  }
  return tap_done(0);
}
