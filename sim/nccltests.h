/* nccltests.h — reads what nccl-tests printed (all_reduce_perf and its
 * siblings, NVIDIA/nccl-tests src/common.cu and util.cu).
 *
 * One file is one run of one binary: its '# Rank ... on HOST device ...'
 * lines tell how many ranks ran on how many nodes, and its table one row
 * per size. The collective comes from '# Collective test starting: NAME'
 * (nccl-tests 2.14 and later), else from the file's name (all_reduce_perf
 * in it), else from the table itself: the ratio busbw / algbw is nccl-tests'
 * bus factor (2(n-1)/n for allreduce, (n-1)/n for the collectives that split
 * the vector, 1 for broadcast and reduce) and the redop/root columns tell
 * the rest, except allgather from alltoall, which must be named. */
#ifndef HS_SIM_NCCLTESTS_H
#define HS_SIM_NCCLTESTS_H

#include <stddef.h>

#include "algos/comm/comm.h"

typedef struct {
  double bytes;   /* the size column: the whole vector, as `hearsay collective --bytes` takes it */
  double time_us; /* out-of-place time, µs */
  double busbw;   /* out-of-place bus bandwidth as printed, GB/s */
  int line;       /* in the file, from 1 */
} hs_nccltests_row;

typedef struct {
  char path[4096];
  char name[32];        /* all_reduce_perf, ... */
  hs_op_kind kind;      /* the collective */
  int ranks, nodes, gpus_per_node;
  int gpus_per_thread;  /* nccl-tests' -g, from its '# nThread T nGpus G' line (1 without it) */
  int graph;            /* nccl-tests' -G, the same line's 'graph: N': iterations a CUDA graph holds (0: none) */
  char device[128];     /* rank 0's device, as printed */
  hs_nccltests_row *rows;
  int n_rows;
} hs_nccltests_run;

/* Reads `path` into *run; nodes x gpus_per_node, when nodes > 0, stands for
 * the rank lines (output printed without them, e.g. NVIDIA DeepOps' docs).
 * Lines may carry a launcher's tag (srun --label "0: ", mpirun
 * --tag-output "[1,0]<stdout>:"). 0 on success; -1 with "PATH:LINE:
 * message" (or "PATH: message") in err. A file that is not nccl-tests output, names a
 * collective hearsay does not time (sendrecv_perf), or spreads its ranks
 * unevenly over nodes is refused. */
int hs_nccltests_read(const char *path, int nodes, int gpus_per_node, hs_nccltests_run *run, char *err, size_t len);
void hs_nccltests_free(hs_nccltests_run *run);

/* What nccl-tests prints as the time of one collective: the mean over a
 * run of back-to-back iterations, each launched by the host. A thread that
 * drives G GPUs (nccl-tests' -g G) launches the collective's kernel on each
 * of them in turn, `launch_s` apiece (cluster.gpu.launch_overhead), so it
 * issues an iteration every G x launch_s at best: the GPUs finish each one
 * sooner when the collective takes less, and wait for the host ("the CUDA
 * latency overheads of single process jobs", NVIDIA/nccl-tests#333, a
 * maintainer). In the steady state an iteration takes the longer of the
 * two. With one GPU a thread (mpirun -np N -g 1) that is one launch, under
 * NCCL's own base latency (6.6 us and more) at the default 4 us, so the
 * collective's time stands. */
double hs_nccltests_iteration(double collective_s, int gpus_per_thread, double launch_s);

/* The GPUs whose launches pace one of run's iterations: its thread's G,
 * or 1 where nccl-tests captured its iterations in a CUDA graph (-G N:
 * one graph launch issues N iterations' kernels, so the host no longer
 * launches each of them). */
int hs_nccltests_launching_gpus(const hs_nccltests_run *run);

/* The binary's name for a kind: "all_reduce_perf", ... */
const char *hs_nccltests_name(hs_op_kind k);

#endif
