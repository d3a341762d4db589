/* metrics.c — the per-iteration sink and what the summary derives from it. */
#include "algos/report/metrics.h"

#include <math.h>
#include <stdlib.h>

hs_metrics *hs_metrics_create(int n, size_t n_params) {
  hs_metrics *m = calloc(1, sizeof *m);
  m->iterations = n;
  m->end_time = calloc(n, sizeof(double));
  m->end_first = malloc((n > 0 ? n : 1) * sizeof(double));
  m->compute = calloc(n, sizeof(double));
  m->loss = calloc(n, sizeof(double));
  m->bytes = calloc(n, sizeof(double));
  m->count = calloc(n, sizeof(int));
  m->test_loss = malloc(n * sizeof(double));
  m->accuracy = malloc(n * sizeof(double));
  m->eval_time = malloc(n * sizeof(double));
  m->wait = calloc(n, sizeof(double));
  m->slow1 = malloc(n * sizeof(double));
  m->slow2 = malloc(n * sizeof(double));
  m->slow_rank = malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) {
    m->test_loss[i] = m->accuracy[i] = m->eval_time[i] = NAN;
    m->end_first[i] = INFINITY;
    m->slow1[i] = m->slow2[i] = -1;
    m->slow_rank[i] = -1;
  }
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
  free(m->end_first);
  free(m->compute);
  free(m->loss);
  free(m->bytes);
  free(m->count);
  free(m->test_loss);
  free(m->accuracy);
  free(m->eval_time);
  free(m->wait);
  free(m->slow1);
  free(m->slow2);
  free(m->slow_rank);
  free(m->param_sum);
  free(m->param_sq);
  free(m);
}

void hs_metrics_note_compute(hs_metrics *m, int it, int rank, double compute) {
  /* Ties go to the lower rank, so the result does not depend on the order
   * in which ranks report. */
  if (compute > m->slow1[it] || (compute == m->slow1[it] && rank < m->slow_rank[it])) {
    m->slow2[it] = m->slow1[it];
    m->slow1[it] = compute;
    m->slow_rank[it] = rank;
  } else if (compute > m->slow2[it]) {
    m->slow2[it] = compute;
  }
}

void hs_metrics_add(hs_metrics *m, int it, int rank, double start, double end_time, double compute, double loss,
                    double bytes) {
  if (end_time > m->end_time[it]) m->end_time[it] = end_time;
  if (end_time < m->end_first[it]) m->end_first[it] = end_time;
  m->wait[it] += fmax(0, end_time - start - compute);
  hs_metrics_note_compute(m, it, rank, compute);
  m->compute[it] += compute;
  m->loss[it] += loss;
  m->bytes[it] += bytes;
  m->count[it]++;
}

void hs_metrics_run_end(hs_metrics *m, double time) {
  if (time > m->run_end) m->run_end = time;
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

void hs_metrics_eval(hs_metrics *m, int it, double time, double test_loss, double accuracy) {
  m->eval_time[it] = time;
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

void hs_metrics_summarize(const hs_metrics *m, int batch, int warmup, hs_metrics_summary *s) {
  int n = hs_metrics_rows(m);
  /* The measured rows: from `first` on, timed from when the last rank had
   * finished the row before (for the whole run, from time 0: the set-up
   * counts). A run with no row past the warm-up is measured whole. Where
   * ranks report unequal rows (asynchronous workers apart, survivors of a
   * failure) a fast rank's measured rows may end before the slowest had
   * left its warm-up: the window then opens when the first rank had,
   * so that every measured row falls in it. */
  int first = warmup > 0 && warmup < n ? warmup : 0, uneven = 0;
  for (int i = 1; i < n; i++) uneven |= m->count[i] != m->count[0];
  double start = !first ? 0 : uneven ? m->end_first[first - 1] : m->end_time[first - 1];
  s->warmup = first;
  double compute = 0, bytes = 0, reports = 0, total = 0;
  int workers = 0;
  for (int i = 0; i < n; i++) {
    if (m->end_time[i] > total) total = m->end_time[i];
    if (i < first) continue;
    compute += m->compute[i];
    bytes += m->bytes[i];
    reports += m->count[i];
    if (m->count[i] > workers) workers = m->count[i];
  }
  /* An asynchronous worker is not done at its last iteration: the
   * averaging or pushes its iterations feed are, until joined. */
  if (n && m->run_end > total) total = m->run_end;
  /* Synchronous runs: every worker reports every row, and these are plain
   * per-iteration means. Asynchronous ones: a mean worker's iterations. */
  double iterations = workers ? reports / workers : 0, measured = total - start;
  s->total_time = total;
  s->measured_time = measured;
  s->time_per_iter = iterations > 0 ? measured / iterations : 0;
  s->compute_per_iter = reports > 0 ? compute / reports : 0;
  s->samples_per_s = measured > 0 ? reports * batch / measured : NAN;
  s->comm_share = s->time_per_iter > 0 ? fmax(0, 1 - s->compute_per_iter / s->time_per_iter) : 0;
  s->bytes_per_iter = iterations > 0 ? bytes / iterations : 0;
  s->final_loss = n && m->count[n - 1] ? m->loss[n - 1] / m->count[n - 1] : NAN;
  s->final_consensus = n ? hs_metrics_consensus(m, n - 1) : NAN;
  s->final_test_loss = s->final_accuracy = NAN;
  double wait = 0;
  int ranks = 0;
  for (int i = first; i < n; i++) {
    wait += m->wait[i];
    if (m->slow_rank[i] + 1 > ranks) ranks = m->slow_rank[i] + 1;
  }
  s->wait_per_iter = reports > 0 ? wait / reports : 0;
  /* Cost per rank: the slowest one's lead over the runner-up, summed. */
  double *cost = calloc(ranks > 0 ? ranks : 1, sizeof *cost);
  int *times = calloc(ranks > 0 ? ranks : 1, sizeof *times);
  for (int i = first; i < n; i++)
    if (m->slow_rank[i] >= 0 && m->count[i] > 1) {
      cost[m->slow_rank[i]] += m->slow1[i] - fmax(0, m->slow2[i]);
      times[m->slow_rank[i]]++;
    }
  s->n_costly = 0;
  for (int k = 0; k < HS_METRICS_COSTLY; k++) {
    int best = -1;
    for (int r = 0; r < ranks; r++)
      if (cost[r] > 0 && (best < 0 || cost[r] > cost[best])) best = r;
    if (best < 0) break;
    s->costly_rank[k] = best;
    s->costly_seconds[k] = cost[best];
    s->costly_iterations[k] = times[best];
    cost[best] = 0;
    s->n_costly++;
  }
  free(cost);
  free(times);
  for (int i = n - 1; i >= 0; i--)
    if (!isnan(m->accuracy[i])) {
      s->final_test_loss = m->test_loss[i];
      s->final_accuracy = m->accuracy[i];
      break;
    }
}
