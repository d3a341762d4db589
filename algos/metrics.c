/* metrics.c — the per-iteration sink and what the summary derives from it. */
#include "algos/metrics.h"

#include <math.h>
#include <stdlib.h>

hs_metrics *hs_metrics_create(int n, size_t n_params) {
  hs_metrics *m = calloc(1, sizeof *m);
  m->iterations = n;
  m->end_time = calloc(n, sizeof(double));
  m->compute = calloc(n, sizeof(double));
  m->loss = calloc(n, sizeof(double));
  m->bytes = calloc(n, sizeof(double));
  m->count = calloc(n, sizeof(int));
  m->test_loss = malloc(n * sizeof(double));
  m->accuracy = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) m->test_loss[i] = m->accuracy[i] = NAN;
  if (n_params) {
    m->n_params = n_params;
    m->param_sum = calloc((size_t)n * n_params, sizeof(double));
    m->param_sq = calloc(n, sizeof(double));
  }
  return m;
}

void hs_metrics_free(hs_metrics *m) {
  if (!m) return;
  free(m->end_time);
  free(m->compute);
  free(m->loss);
  free(m->bytes);
  free(m->count);
  free(m->test_loss);
  free(m->accuracy);
  free(m->param_sum);
  free(m->param_sq);
  free(m);
}

void hs_metrics_add(hs_metrics *m, int it, double end_time, double compute, double loss, double bytes) {
  if (end_time > m->end_time[it]) m->end_time[it] = end_time;
  m->compute[it] += compute;
  m->loss[it] += loss;
  m->bytes[it] += bytes;
  m->count[it]++;
}

void hs_metrics_add_params(hs_metrics *m, int it, const float *params) {
  if (!m->param_sum || !params) return;
  double *sum = m->param_sum + (size_t)it * m->n_params, sq = 0;
  for (size_t i = 0; i < m->n_params; i++) {
    sum[i] += params[i];
    sq += (double)params[i] * params[i];
  }
  m->param_sq[it] += sq;
}

void hs_metrics_eval(hs_metrics *m, int it, double test_loss, double accuracy) {
  m->test_loss[it] = test_loss;
  m->accuracy[it] = accuracy;
}

int hs_metrics_rows(const hs_metrics *m) {
  int rows = m->iterations;
  while (rows > 0 && m->count[rows - 1] == 0) rows--;
  return rows;
}

double hs_metrics_consensus(const hs_metrics *m, int it) {
  if (!m->param_sum || m->count[it] == 0) return NAN;
  const double *sum = m->param_sum + (size_t)it * m->n_params;
  double n = m->count[it], mean_sq = 0;
  for (size_t i = 0; i < m->n_params; i++) mean_sq += (sum[i] / n) * (sum[i] / n);
  return fmax(0, m->param_sq[it] / n - mean_sq);
}

void hs_metrics_summarize(const hs_metrics *m, int batch, hs_metrics_summary *s) {
  int n = hs_metrics_rows(m);
  double compute = 0, bytes = 0, reports = 0, total = 0;
  int workers = 0;
  for (int i = 0; i < n; i++) {
    compute += m->compute[i];
    bytes += m->bytes[i];
    reports += m->count[i];
    if (m->count[i] > workers) workers = m->count[i];
    if (m->end_time[i] > total) total = m->end_time[i];
  }
  /* Synchronous runs: every worker reports every row, and these are plain
   * per-iteration means. Asynchronous ones: a mean worker's iterations. */
  double iterations = workers ? reports / workers : 0;
  s->total_time = total;
  s->time_per_iter = iterations > 0 ? total / iterations : 0;
  s->compute_per_iter = reports > 0 ? compute / reports : 0;
  s->samples_per_s = total > 0 ? reports * batch / total : NAN;
  s->comm_share = s->time_per_iter > 0 ? fmax(0, 1 - s->compute_per_iter / s->time_per_iter) : 0;
  s->bytes_per_iter = iterations > 0 ? bytes / iterations : 0;
  s->final_loss = n && m->count[n - 1] ? m->loss[n - 1] / m->count[n - 1] : NAN;
  s->final_consensus = n ? hs_metrics_consensus(m, n - 1) : NAN;
  s->final_test_loss = s->final_accuracy = NAN;
  for (int i = n - 1; i >= 0; i--)
    if (!isnan(m->accuracy[i])) {
      s->final_test_loss = m->test_loss[i];
      s->final_accuracy = m->accuracy[i];
      break;
    }
}
