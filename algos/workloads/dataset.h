/* dataset.h — the numeric workload's data: a Gaussian mixture drawn with GSL
 * from the run's seed, and its partition across workers.
 *
 * One instance is generated per process and shared read-only by every
 * worker of that process (all simulated workers share one), so memory grows
 * with the data set, not with the number of workers. */
#ifndef HS_DATASET_H
#define HS_DATASET_H

#include <stddef.h>

#include "scenarios/scenario.h"

typedef struct {
  int classes, features;
  long n_train, n_test;
  float *x_train; /* n_train x features, row-major */
  int *y_train;
  float *x_test;
  int *y_test;
  int n_workers;
  long *shard_start; /* worker w owns shard_index[shard_start[w] .. +shard_size[w]) */
  long *shard_size;
  long *shard_index; /* training sample indices grouped by worker */
} hs_dataset;

/* Returns NULL and a message in err when the partition is impossible
 * (a worker would get no sample). */
hs_dataset *hs_dataset_create(const hs_workload_spec *wl, long seed, int n_workers, char *err, size_t errlen);
void hs_dataset_free(hs_dataset *d);

#endif
