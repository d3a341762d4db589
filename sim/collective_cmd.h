/* collective_cmd.h — `hearsay collective`: time one collective on a
 * scenario's cluster, like nccl-tests does on real hardware. */
#ifndef HS_SIM_COLLECTIVE_CMD_H
#define HS_SIM_COLLECTIVE_CMD_H

#include "scenarios/scenario.h"

/* op: allreduce, reduce_scatter, allgather, broadcast, reduce, alltoall;
 * bytes: the full vector (M). Prints a report; returns an exit code. */
int hs_cmd_collective(const hs_scenario *sc, const char *op, double bytes);

#endif
