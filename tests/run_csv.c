/* run_csv.c — see run_csv.h. */
#include "tests/run_csv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/harness.h"

/* Writes the scenario, runs `PREFIX SCENARIO --out DIR --quiet ARGS`,
 * reads metrics.csv back. */
static void run(const char *name, const char *lua, const char *prefix, const char *args, hs_csv_run *r) {
  memset(r, 0, sizeof *r);
  const char *dir = hs_test_tmpdir();
  char path[700], cmd[4096], csv[800];
  snprintf(path, sizeof path, "%s/%s.lua", dir, name);
  snprintf(r->out, sizeof r->out, "%s/out", dir);
  FILE *f = fopen(path, "w");
  fputs(lua, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "timeout -k 5 120 %s %s --out %s --quiet %s", prefix, path, r->out, args ? args : "");
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  r->rc = hs_test_command(cmd, r->err, sizeof r->err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  r->wall = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  snprintf(csv, sizeof csv, "%s/metrics.csv", r->out);
  f = fopen(csv, "r");
  if (!f) return;
  char line[4096];
  if (fgets(line, sizeof line, f)) {
    for (char *tok = strtok(line, ",\n"); tok && r->cols < HS_CSV_MAX_COLS; tok = strtok(NULL, ",\n"))
      snprintf(r->header[r->cols++], sizeof r->header[0], "%s", tok);
  }
  while (r->rows < HS_CSV_MAX_ROWS && fgets(line, sizeof line, f)) {
    char *p = line;
    for (int c = 0; c < r->cols; c++) {
      char *end = p + strcspn(p, ",\n");
      r->v[r->rows][c] = end == p ? NAN : strtod(p, NULL);
      p = *end ? end + 1 : end;
    }
    r->rows++;
  }
  fclose(f);
}

void hs_csv_run_lua(const char *name, const char *lua, const char *args, hs_csv_run *r) {
  run(name, lua, HEARSAY_BIN " run", args, r);
}

void hs_csv_run_real(const char *name, const char *lua, int np, const char *args, hs_csv_run *r) {
  char prefix[1024];
  snprintf(prefix, sizeof prefix, "%s %s", hs_test_mpirun(np), HEARSAY_REAL_BIN);
  run(name, lua, prefix, args, r);
}

double hs_csv(const hs_csv_run *r, int i, const char *name) {
  for (int c = 0; c < r->cols; c++)
    if (strcmp(r->header[c], name) == 0 && i >= 0 && i < r->rows) return r->v[i][c];
  return NAN;
}
