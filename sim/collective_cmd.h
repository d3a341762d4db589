/* collective_cmd.h — `hearsay collective`: time collectives on a scenario's
 * cluster, like nccl-tests does on real hardware. */
#ifndef HS_SIM_COLLECTIVE_CMD_H
#define HS_SIM_COLLECTIVE_CMD_H

#include "algos/comm/comm.h"
#include "scenarios/scenario.h"

typedef struct {
  const char *op;     /* allreduce, reduce_scatter, allgather, broadcast, reduce, alltoall, or all */
  double min_bytes;   /* the full vector (M) */
  double max_bytes;   /* == min_bytes: one size, the detailed report */
  double factor;      /* between sizes of a sweep (nccl-tests -f; 2) */
  double step;        /* > 0: added between sizes instead (nccl-tests -i) */
  int model_nccl;     /* print NCCL's own model beside each time (--model nccl) */
  const char *csv;    /* also write the table there, or NULL */
  int gpus_per_thread; /* nccl-tests' -g: GPUs one host thread launches on (0 or 1: one; nccltests.h) */
} hs_collective_options;

/* Parses "--bytes" text: SIZE or MIN:MAX. 0, or -1 with a message in err. */
int hs_collective_parse_bytes(const char *text, double *min, double *max, char *err, size_t len);

/* Simulates one collective k of `bytes` (the whole vector; rounded down to
 * whole shares as a sweep does) over every GPU of sc on the platform file
 * hs_platform_write_temp wrote for it, in a child process; 0 with its
 * seconds, -1 if it could not run (fewer bytes than shares). */
int hs_collective_simulate(const hs_scenario *sc, const char *platform, hs_op_kind k, double bytes, double *seconds);

/* Prints a report; returns an exit code (2: bad options, nothing written). */
int hs_cmd_collective(const hs_scenario *sc, const hs_collective_options *o);

#endif
