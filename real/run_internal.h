/* run_internal.h — what hearsay-real's commands share (run.c): loading a
 * scenario on every rank, checking the rank count, picking and starting a
 * transport, each decided by all ranks together. */
#ifndef HS_REAL_RUN_INTERNAL_H
#define HS_REAL_RUN_INTERNAL_H

#include "algos/comm/comm.h"
#include "real/emulator.h"
#include "real/run.h"
#include "scenarios/scenario.h"

/* Every rank proposes an exit code (0: fine); all get the largest. */
int hs_real_agree(int rc);
/* Loads the scenario on every rank; rank 0 reports a bad one once. */
int hs_real_load(const hs_real_options *opt, int rank, hs_scenario *sc);
/* The cluster's GPUs must be the ranks started. */
int hs_real_check_ranks(const hs_scenario *sc, int rank, int size);
/* The transport the scenario asks for, or why it cannot run (said once). */
int hs_real_choose_transport(const hs_scenario *sc, int rank, hs_transport *out);
hs_worker *hs_real_make_worker(const hs_scenario *sc, hs_transport t, hs_emulator *emu);
void hs_real_free_worker(hs_worker *w, hs_transport t);

#endif
