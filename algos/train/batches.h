/* batches.h — which samples a worker trains on at each iteration.
 *
 * A pure function of (seed, worker, iteration): the worker walks its shard
 * in an order reshuffled every epoch. Tests replay it to build reference
 * runs on exactly the same samples. */
#ifndef HS_BATCHES_H
#define HS_BATCHES_H

#include "algos/workloads/dataset.h"

typedef struct {
  const hs_dataset *ds;
  int worker;
  long seed;
  long epoch; /* epoch whose order is cached in perm, -1 if none */
  long *perm;
} hs_batcher;

void hs_batcher_init(hs_batcher *b, const hs_dataset *ds, int worker, long seed);
void hs_batcher_free(hs_batcher *b);
/* Writes the `batch` global sample indices of this worker's iteration. */
void hs_batcher_indices(hs_batcher *b, long iteration, int batch, long *out);

#endif
