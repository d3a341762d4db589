/* sim_vs_real.h — one scenario simulated and run under mpirun, compared:
 * the loss curves (to 1e-5 relative), held-out evaluations, bytes sent per
 * iteration, and that the real run reports wall-clock time. Shared by
 * test_real_training and test_real_algorithms. */
#ifndef HS_TEST_SIM_VS_REAL_H
#define HS_TEST_SIM_VS_REAL_H

#define HS_CSV_MAX_ROWS 1000
/* iteration,time_s,iter_time_s,compute_s,exposed_comm_s,loss,test_loss,accuracy,bytes_sent,workers,consensus */
#define HS_CSV_COLS 11
enum { HS_CSV_TIME = 1, HS_CSV_LOSS = 5, HS_CSV_TEST_LOSS = 6, HS_CSV_ACCURACY = 7, HS_CSV_BYTES = 8 };

typedef struct {
  int rows;
  double v[HS_CSV_MAX_ROWS][HS_CSV_COLS]; /* NAN for empty fields */
} hs_csv_table;

/* Reads DIR/metrics.csv; returns 0 or -1. */
int hs_csv_read_metrics(const char *dir, hs_csv_table *t);

/* Runs `hearsay run SCENARIO SETS` and `mpirun -np NP hearsay-real SCENARIO
 * SETS` into two fresh folders and reports TAP checks. numeric: compare
 * losses and evaluations too (timing-only runs have none). */
void hs_test_sim_vs_real(const char *name, const char *scenario, const char *sets, int np, int numeric);

#endif
