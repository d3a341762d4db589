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
/* 1 if it is built and this process sees at least one CUDA GPU. */
int hs_nccl_available(void);

/* Collective over MPI_COMM_WORLD (ncclUniqueId travels by MPI_Bcast).
 * emulate_compute: as for the MPI transport. NULL on failure (reported). */
hs_worker *hs_nccl_worker_create(const hs_scenario *sc, int emulate_compute);
void hs_nccl_worker_start_clock(hs_worker *w);
void hs_nccl_worker_free(hs_worker *w);

#endif
