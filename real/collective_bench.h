/* collective_bench.h — `hearsay-real collective`: nccl-tests' table over
 * hearsay's own transports, for `hearsay calibrate` to read. */
#ifndef HS_REAL_COLLECTIVE_BENCH_H
#define HS_REAL_COLLECTIVE_BENCH_H

#include "real/run.h"

typedef struct {
  hs_real_options run; /* the scenario and its --sets */
  const char *op;      /* allreduce, ..., alltoall, or all */
  double min_bytes, max_bytes, factor;
  int iters, warmup;   /* nccl-tests' -n and -w */
} hs_real_collective_options;

/* Collective over MPI_COMM_WORLD; every rank returns the same exit code. */
int hs_real_collective(const hs_real_collective_options *o);

#endif
