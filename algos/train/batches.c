/* batches.c — per-worker epoch shuffles of the shard. */
#include "algos/train/batches.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

void hs_batcher_init(hs_batcher *b, const hs_dataset *ds, int worker, long seed) {
  b->ds = ds;
  b->worker = worker;
  b->seed = seed;
  b->epoch = -1;
  b->perm = malloc((size_t)ds->shard_size[worker] * sizeof(long));
}

void hs_batcher_free(hs_batcher *b) {
  free(b->perm);
  b->perm = NULL;
}

static void shuffle_epoch(hs_batcher *b, long epoch) {
  long m = b->ds->shard_size[b->worker];
  memcpy(b->perm, b->ds->shard_index + b->ds->shard_start[b->worker], (size_t)m * sizeof(long));
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  /* One stream per (seed, worker, epoch); the constants only spread them. */
  gsl_rng_set(r, ((unsigned long)b->seed * 2654435761UL) ^ ((unsigned long)b->worker * 40503UL) ^
                     ((unsigned long)epoch * 9176UL + 17UL));
  gsl_ran_shuffle(r, b->perm, m, sizeof(long));
  gsl_rng_free(r);
  b->epoch = epoch;
}

void hs_batcher_indices(hs_batcher *b, long iteration, int batch, long *out) {
  long m = b->ds->shard_size[b->worker];
  for (int j = 0; j < batch; j++) {
    long p = iteration * batch + j;
    long e = p / m;
    if (e != b->epoch) shuffle_epoch(b, e);
    out[j] = b->perm[p % m];
  }
}
