/* metrics.h — per-iteration measurements gathered from every rank.
 *
 * Each rank adds its own numbers for each iteration; the sink keeps sums
 * and maxima, never one row per rank, so it stays small at 1024 ranks. In
 * simulation all ranks share one sink (adding costs no simulated time); in
 * real runs each process fills its own and the backend merges them. */
#ifndef HS_METRICS_H
#define HS_METRICS_H

#include <stdint.h>

typedef struct {
  int iterations;
  double *end_time; /* max over ranks of the time the iteration ended */
  double *compute;  /* sum over ranks of time spent computing */
  double *loss;     /* sum over ranks of the training loss (numeric runs) */
  double *bytes;    /* sum over ranks of bytes sent */
  int *count;       /* ranks that reported */
  double *test_loss, *accuracy; /* held-out evaluation, NAN where none ran */
} hs_metrics;

hs_metrics *hs_metrics_create(int iterations);
void hs_metrics_free(hs_metrics *m);
void hs_metrics_add(hs_metrics *m, int it, double end_time, double compute, double loss, double bytes);
void hs_metrics_eval(hs_metrics *m, int it, double test_loss, double accuracy);

/* Derived figures, for the summary. */
typedef struct {
  double total_time;      /* end of the last iteration */
  double time_per_iter;   /* mean */
  double compute_per_iter;/* mean over ranks and iterations */
  double comm_share;      /* exposed communication / iteration time */
  double bytes_per_iter;  /* all ranks together */
  double final_loss;      /* NAN for timing-only runs */
  double final_test_loss, final_accuracy; /* NAN if never evaluated */
} hs_metrics_summary;

void hs_metrics_summarize(const hs_metrics *m, hs_metrics_summary *s);

#endif
