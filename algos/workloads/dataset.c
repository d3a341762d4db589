/* dataset.c — Gaussian-mixture generation and iid / Dirichlet partitions. */
#include "algos/workloads/dataset.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Stream identifiers mixed into the seed so that each use of randomness has
 * its own reproducible stream. */
enum { STREAM_DATA = 1, STREAM_PARTITION = 2 };

static gsl_rng *rng_for(long seed, int stream) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, (unsigned long)seed * 1000003UL + (unsigned long)stream);
  return r;
}

static void draw_samples(gsl_rng *r, const double *means, int C, int F, double noise, long n,
                         float *x, int *y) {
  for (long i = 0; i < n; i++) {
    int c = (int)(i % C); /* balanced classes */
    y[i] = c;
    for (int f = 0; f < F; f++) x[i * F + f] = (float)(means[c * F + f] + gsl_ran_gaussian(r, noise));
  }
}

static int partition_iid(hs_dataset *d, gsl_rng *r) {
  long n = d->n_train;
  for (long i = 0; i < n; i++) d->shard_index[i] = i;
  gsl_ran_shuffle(r, d->shard_index, n, sizeof(long));
  long start = 0;
  for (int w = 0; w < d->n_workers; w++) {
    d->shard_start[w] = start;
    d->shard_size[w] = n / d->n_workers + (w < n % d->n_workers);
    start += d->shard_size[w];
  }
  return 0;
}

/* For each class, worker shares ~ Dirichlet(alpha), counts ~ multinomial. */
static int partition_dirichlet(hs_dataset *d, gsl_rng *r, double alpha) {
  int W = d->n_workers, C = d->classes;
  double *a = malloc(W * sizeof *a), *p = malloc(W * sizeof *p);
  unsigned *cnt = malloc(W * sizeof *cnt);
  long *per = calloc((size_t)W * C, sizeof *per); /* per[w*C + c] */
  int ok = 0;
  for (int w = 0; w < W; w++) a[w] = alpha;
  long class_n[1024];
  for (int c = 0; c < C; c++) class_n[c] = d->n_train / C + (c < d->n_train % C);
  for (int attempt = 0; attempt < 100 && !ok; attempt++) {
    for (int c = 0; c < C; c++) {
      gsl_ran_dirichlet(r, W, a, p);
      gsl_ran_multinomial(r, W, (unsigned)class_n[c], p, cnt);
      for (int w = 0; w < W; w++) per[w * C + c] = cnt[w];
    }
    ok = 1;
    for (int w = 0; w < W && ok; w++) {
      long s = 0;
      for (int c = 0; c < C; c++) s += per[w * C + c];
      ok = s > 0;
    }
  }
  if (ok) {
    /* Lay out: worker by worker, class by class, taking samples of class c
     * in index order (sample i has class i % C). */
    long *next = calloc(C, sizeof *next);
    long pos = 0;
    for (int w = 0; w < W; w++) {
      d->shard_start[w] = pos;
      for (int c = 0; c < C; c++)
        for (long k = 0; k < per[w * C + c]; k++) d->shard_index[pos++] = (next[c]++) * C + c;
      d->shard_size[w] = pos - d->shard_start[w];
    }
    free(next);
  }
  free(a);
  free(p);
  free(cnt);
  free(per);
  return ok ? 0 : -1;
}

hs_dataset *hs_dataset_create(const hs_workload_spec *wl, long seed, int n_workers, char *err, size_t errlen) {
  if (wl->samples < n_workers) {
    snprintf(err, errlen, "workload.dataset.samples = %ld is fewer than the %d workers", wl->samples, n_workers);
    return NULL;
  }
  if (wl->classes > 1024) {
    snprintf(err, errlen, "workload.dataset.classes = %d exceeds 1024", wl->classes);
    return NULL;
  }
  hs_dataset *d = calloc(1, sizeof *d);
  int C = d->classes = wl->classes, F = d->features = wl->features;
  d->n_train = wl->samples;
  d->n_test = wl->test_samples;
  d->n_workers = n_workers;
  d->x_train = malloc((size_t)d->n_train * F * sizeof(float));
  d->y_train = malloc((size_t)d->n_train * sizeof(int));
  d->x_test = malloc((size_t)d->n_test * F * sizeof(float));
  d->y_test = malloc((size_t)d->n_test * sizeof(int));
  d->shard_start = calloc(n_workers, sizeof(long));
  d->shard_size = calloc(n_workers, sizeof(long));
  d->shard_index = malloc((size_t)d->n_train * sizeof(long));

  gsl_rng *r = rng_for(seed, STREAM_DATA);
  /* Means with coordinates N(0, separation^2/F): their norm is about
   * `separation` noise standard deviations. */
  double *means = malloc((size_t)C * F * sizeof *means);
  for (int i = 0; i < C * F; i++) means[i] = gsl_ran_gaussian(r, wl->separation * wl->noise / sqrt(F));
  draw_samples(r, means, C, F, wl->noise, d->n_train, d->x_train, d->y_train);
  draw_samples(r, means, C, F, wl->noise, d->n_test, d->x_test, d->y_test);
  free(means);
  gsl_rng_free(r);

  r = rng_for(seed, STREAM_PARTITION);
  int rc = wl->partition == HS_PARTITION_IID ? partition_iid(d, r) : partition_dirichlet(d, r, wl->alpha);
  gsl_rng_free(r);
  if (rc) {
    snprintf(err, errlen, "Dirichlet partition (alpha = %g) left a worker without samples in 100 draws; "
             "raise workload.dataset.samples or alpha", wl->alpha);
    hs_dataset_free(d);
    return NULL;
  }
  return d;
}

void hs_dataset_free(hs_dataset *d) {
  if (!d) return;
  free(d->x_train);
  free(d->y_train);
  free(d->x_test);
  free(d->y_test);
  free(d->shard_start);
  free(d->shard_size);
  free(d->shard_index);
  free(d);
}
