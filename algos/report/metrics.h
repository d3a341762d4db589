/* metrics.h — per-iteration measurements gathered from every rank.
 *
 * Each rank adds its own numbers for each iteration; the sink keeps sums
 * and maxima, never one row per rank, so it stays small at 1024 ranks. In
 * simulation all ranks share one sink (adding costs no simulated time); in
 * real runs each process fills its own and the backend merges them. */
#ifndef HS_METRICS_H
#define HS_METRICS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  int iterations;   /* rows allocated: the most iterations any rank may run */
  double *end_time; /* max over ranks of the time the iteration ended */
  double *end_first; /* min over the ranks that reported it (INFINITY: none yet) */
  double *compute;  /* sum over ranks of time spent computing */
  double *loss;     /* sum over ranks of the training loss (numeric runs) */
  double *bytes;    /* sum over ranks of bytes sent */
  int *count;       /* ranks that reported */
  double *test_loss, *accuracy; /* held-out evaluation, NAN where none ran */
  /* When the evaluated replica (rank 0's) had finished the iteration. In
   * asynchronous runs ranks drift apart, and end_time (the last rank to get
   * there) is not when that model existed: time-to-accuracy reads this. */
  double *eval_time;
  /* Who held the others up: the sum over ranks of the time each spent not
   * computing (blocked on others: communication, synchronisation), and the
   * largest and second-largest compute time of one rank, with the rank. */
  double *wait;
  double *slow1, *slow2;
  int *slow_rank;
  /* Numeric runs: sums over ranks of the weights and of their squared norm,
   * per iteration, from which the consensus distance (1/n) sum ||x_i - mean||^2
   * follows. NULL when n_params is 0. */
  size_t n_params;
  double *param_sum; /* iterations x n_params */
  double *param_sq;
  /* When the last worker's run was over: its last iteration and then what
   * it waits for before it may stop (an asynchronous algorithm's averaging
   * or pushes still in flight, joined in finish). 0 until reported. */
  double run_end;
} hs_metrics;

/* iterations rows; n_params > 0 also tracks the consensus distance. */
hs_metrics *hs_metrics_create(int iterations, size_t n_params);
void hs_metrics_free(hs_metrics *m);
/* Rank's iteration it ran from start to end_time, computing `compute`. */
void hs_metrics_add(hs_metrics *m, int it, int rank, double start, double end_time, double compute, double loss,
                    double bytes);
/* A worker's run ended at `time`, its algorithm finished (train.c). */
void hs_metrics_run_end(hs_metrics *m, double time);
/* Folds one rank's compute time into the iteration's slowest two (merging
 * real runs' per-process sinks uses it too). */
void hs_metrics_note_compute(hs_metrics *m, int it, int rank, double compute);
void hs_metrics_eval(hs_metrics *m, int it, double time, double test_loss, double accuracy);
/* Adds one rank's weights after iteration it (numeric runs). */
void hs_metrics_add_params(hs_metrics *m, int it, const float *params);
/* Rows that some rank reported (asynchronous runs may stop early). */
int hs_metrics_rows(const hs_metrics *m);
/* Mean squared distance of the replicas to their mean after iteration it;
 * NAN when not tracked. Computed in double as E||x||^2 - ||E x||^2: absolute
 * error about 1e-15 of ||x||^2, far below float32 weights' own resolution. */
double hs_metrics_consensus(const hs_metrics *m, int it);

#define HS_METRICS_COSTLY 3

/* Derived figures, for the summary. */
typedef struct {
  double total_time;      /* end of the last iteration, or of the last worker's run (run_end) if later */
  double time_per_iter;   /* measured time / measured iterations of the mean worker */
  int warmup;             /* rows left out of the measured figures */
  double measured_time;   /* from the end of the warm-up (or 0) to total_time */
  double compute_per_iter;/* mean over ranks and iterations */
  double samples_per_s;   /* every worker's measured iterations x batch / measured time */
  double comm_share;      /* exposed communication / iteration time */
  double bytes_per_iter;  /* all ranks together */
  double final_loss;      /* NAN for timing-only runs */
  double final_test_loss, final_accuracy; /* NAN if never evaluated */
  double final_consensus; /* NAN when not tracked */
  double wait_per_iter;   /* mean over ranks and iterations of the time blocked on others */
  /* The ranks that cost the run the most: in each iteration the slowest
   * rank costs what it computed beyond the runner-up (what the run would
   * have saved had it been as fast); summed over the run, largest first. */
  int n_costly;
  int costly_rank[HS_METRICS_COSTLY];
  int costly_iterations[HS_METRICS_COSTLY]; /* iterations in which it was the slowest */
  double costly_seconds[HS_METRICS_COSTLY];
} hs_metrics_summary;

/* batch: samples a worker's iteration trains on (micro-batches included).
 * warmup: the first rows, and everything before them, are left out of the
 * per-iteration figures, the throughput and the costliest ranks (all rows
 * where the run has no row after them, a run a failure stopped early);
 * total_time and the final figures are the whole run's. */
void hs_metrics_summarize(const hs_metrics *m, int batch, int warmup, hs_metrics_summary *s);

#endif
