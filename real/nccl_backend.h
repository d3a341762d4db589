/* nccl_backend.h — the NCCL transport: hs_backend over NCCL on CUDA streams.
 *
 * Built when CMake finds the CUDA toolkit and NCCL (real/nccl_backend.c);
 * otherwise real/nccl_absent.c answers "not built". Rank r uses GPU
 * (local rank on its machine) mod (visible GPUs). Buffers may be on the
 * device or on the host; host buffers are staged through device memory,
 * timing-only buffers use device scratch of the same size, so every byte
 * really crosses the GPUs' links. */
#ifndef HS_REAL_NCCL_BACKEND_H
#define HS_REAL_NCCL_BACKEND_H

#include "algos/comm/comm.h"
#include "scenarios/scenario.h"

/* 1 if this build has the NCCL transport. */
int hs_nccl_built(void);
/* How many CUDA GPUs this process sees; 0 where the transport is not built.
 * NCCL refuses two ranks of one communicator on the same GPU, so the
 * transport is usable only where a machine has a GPU for each of its ranks. */
int hs_nccl_gpus(void);

/* The GPU this process uses (after hs_nccl_worker_create): its index,
 * with its name and PCI address as nccl-tests prints them; -1 where the
 * transport is not built or no GPU is set. */
int hs_nccl_device(char *name, size_t name_len, char *bus, size_t bus_len);

/* Collective over MPI_COMM_WORLD (ncclUniqueId travels by MPI_Bcast).
 * emulate_compute: as for the MPI transport. NULL on failure (reported). */
hs_worker *hs_nccl_worker_create(const hs_scenario *sc, int emulate_compute);
void hs_nccl_worker_start_clock(hs_worker *w);
void hs_nccl_worker_free(hs_worker *w);

#endif
