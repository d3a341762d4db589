/* mpi_backend.h — the MPI transport: hs_backend over MPI in host memory.
 *
 * Call after MPI_Init_thread(MPI_THREAD_MULTIPLE). Rank r of
 * MPI_COMM_WORLD plays GPU r of the scenario's cluster (node r /
 * gpus_per_node). With an emulator, every message is delayed by the
 * scenario's link model (real/emulator.h). */
#ifndef HS_REAL_MPI_BACKEND_H
#define HS_REAL_MPI_BACKEND_H

#include "algos/comm/comm.h"
#include "real/emulator.h"
#include "scenarios/scenario.h"

/* Collective over MPI_COMM_WORLD. emulate_compute: hs_compute sleeps for
 * the scenario GPU's time (timing-only workloads, which have nothing real
 * to compute); otherwise it costs nothing, the caller really computed. */
hs_worker *hs_mpi_worker_create(const hs_scenario *sc, hs_emulator *emu, int emulate_compute);

/* Restarts hs_now() at zero (call right after a barrier). */
void hs_mpi_worker_start_clock(hs_worker *w);

/* Collective: frees the world communicator and its stream. Sub-communicators
 * must be freed first. */
void hs_mpi_worker_free(hs_worker *w);

#endif
