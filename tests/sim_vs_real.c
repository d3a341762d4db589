/* sim_vs_real.c — a scenario simulated and under mpirun, compared (sim_vs_real.h). */
#include "tests/sim_vs_real.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "tests/tap.h"

int hs_csv_read_metrics(const char *dir, hs_csv_table *t) {
  char path[1200], line[1024];
  snprintf(path, sizeof path, "%s/metrics.csv", dir);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  t->rows = 0;
  if (!fgets(line, sizeof line, f)) return fclose(f), -1;
  while (t->rows < HS_CSV_MAX_ROWS && fgets(line, sizeof line, f)) {
    char *p = line;
    for (int c = 0; c < HS_CSV_COLS; c++) {
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

void hs_test_sim_vs_real(const char *name, const char *scenario, const char *sets, int np, int numeric) {
  const char *tmp = hs_test_tmpdir();
  char cmd[8192], sim_dir[600], real_dir[600], err[4096];
  snprintf(sim_dir, sizeof sim_dir, "%s/sim", tmp);
  snprintf(real_dir, sizeof real_dir, "%s/real", tmp);
  snprintf(cmd, sizeof cmd, "%s run %s %s --out %s --quiet", HEARSAY_BIN, scenario, sets, sim_dir);
  int rc = hs_test_command(cmd, err, sizeof err);
  if (!tap_ok(rc == 0, "%s: simulated run exits 0 (%d) %s", name, rc, rc ? err : "")) return;
  snprintf(cmd, sizeof cmd, "timeout -k 5 300 %s %s %s %s --out %s --quiet", hs_test_mpirun(np), HEARSAY_REAL_BIN,
           scenario, sets, real_dir);
  rc = hs_test_command(cmd, err, sizeof err);
  if (!tap_ok(rc == 0, "%s: mpirun -np %d hearsay-real exits 0 (%d) %s", name, np, rc, rc ? err : "")) return;

  static hs_csv_table s, r;
  int read_ok = hs_csv_read_metrics(sim_dir, &s) == 0 && hs_csv_read_metrics(real_dir, &r) == 0;
  if (!tap_ok(read_ok && s.rows == r.rows && s.rows > 0,
              "%s: both wrote metrics.csv with the same rows (%d, %d)", name, s.rows, r.rows))
    return;
  double worst = 0;
  int loss_ok = 1, eval_ok = 1, bytes_ok = 1, evals = 0;
  for (int i = 0; i < s.rows; i++) {
    double a = s.v[i][HS_CSV_LOSS], b = r.v[i][HS_CSV_LOSS];
    if (!same_or_both_nan(b, a, 1e-5)) loss_ok = 0;
    if (!isnan(a) && a != 0) worst = fmax(worst, fabs(a - b) / fabs(a));
    eval_ok &= same_or_both_nan(r.v[i][HS_CSV_TEST_LOSS], s.v[i][HS_CSV_TEST_LOSS], 1e-5) &&
              same_or_both_nan(r.v[i][HS_CSV_ACCURACY], s.v[i][HS_CSV_ACCURACY], 1e-5);
    evals += !isnan(s.v[i][HS_CSV_ACCURACY]);
    bytes_ok &= r.v[i][HS_CSV_BYTES] == s.v[i][HS_CSV_BYTES];
  }
  if (numeric) {
    tap_ok(loss_ok, "%s: training loss curves agree to 1e-5 relative over %d iterations (worst %.3g)", name,
           s.rows, worst);
    tap_ok(eval_ok && evals > 0, "%s: held-out loss and accuracy agree at all %d evaluations", name, evals);
  }
  tap_ok(bytes_ok, "%s: bytes sent per iteration identical", name);
  tap_ok(r.v[s.rows - 1][HS_CSV_TIME] > 0, "%s: the real run reports wall-clock time (%.3g s)", name,
         r.v[s.rows - 1][HS_CSV_TIME]);
}

