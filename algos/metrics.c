/* metrics.c — the per-iteration sink and what the summary derives from it. */
#include "algos/metrics.h"

#include <math.h>
#include <stdlib.h>

hs_metrics *hs_metrics_create(int n) {
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
  free(m);
}

void hs_metrics_add(hs_metrics *m, int it, double end_time, double compute, double loss, double bytes) {
  if (end_time > m->end_time[it]) m->end_time[it] = end_time;
  m->compute[it] += compute;
  m->loss[it] += loss;
  m->bytes[it] += bytes;
  m->count[it]++;
}

void hs_metrics_eval(hs_metrics *m, int it, double test_loss, double accuracy) {
  m->test_loss[it] = test_loss;
  m->accuracy[it] = accuracy;
}

void hs_metrics_summarize(const hs_metrics *m, hs_metrics_summary *s) {
  int n = m->iterations;
  double compute = 0, bytes = 0;
  for (int i = 0; i < n; i++) {
    compute += m->count[i] ? m->compute[i] / m->count[i] : 0;
    bytes += m->bytes[i];
  }
  s->total_time = n ? m->end_time[n - 1] : 0;
  s->time_per_iter = n ? s->total_time / n : 0;
  s->compute_per_iter = n ? compute / n : 0;
  s->comm_share = s->time_per_iter > 0 ? fmax(0, 1 - s->compute_per_iter / s->time_per_iter) : 0;
  s->bytes_per_iter = n ? bytes / n : 0;
  s->final_loss = n && m->count[n - 1] ? m->loss[n - 1] / m->count[n - 1] : NAN;
  s->final_test_loss = s->final_accuracy = NAN;
  for (int i = n - 1; i >= 0; i--)
    if (!isnan(m->accuracy[i])) {
      s->final_test_loss = m->test_loss[i];
      s->final_accuracy = m->accuracy[i];
      break;
    }
}
