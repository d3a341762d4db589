/* run_csv.h — runs `hearsay run` (or hearsay-real under mpirun) on a
 * scenario text and reads metrics.csv back by column name: what the
 * straggler and failure tests check. */
#ifndef HS_TEST_RUN_CSV_H
#define HS_TEST_RUN_CSV_H

#define HS_CSV_MAX_ROWS 512
#define HS_CSV_MAX_COLS 16

typedef struct {
  int rc;          /* hearsay's exit status */
  double wall;     /* seconds it took */
  int rows;
  char header[HS_CSV_MAX_COLS][32];
  int cols;
  double v[HS_CSV_MAX_ROWS][HS_CSV_MAX_COLS]; /* NAN where empty */
  char err[4096];  /* its stderr */
  char out[512];   /* its output folder */
} hs_csv_run;

/* Writes lua to a file named after `name`, runs it with extra arguments. */
void hs_csv_run_lua(const char *name, const char *lua, const char *args, hs_csv_run *r);
/* The same under `mpirun -np np hearsay-real`. */
void hs_csv_run_real(const char *name, const char *lua, int np, const char *args, hs_csv_run *r);
/* Column `name` of row i (NAN if absent). */
double hs_csv(const hs_csv_run *r, int i, const char *name);

#endif
