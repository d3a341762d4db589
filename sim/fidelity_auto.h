/* fidelity_auto.h — what sim.fidelity = "auto" runs a scenario at.
 *
 * Step simulates every message, and its wall time follows their number:
 * tens of microseconds each. Up to HS_FIDELITY_AUTO_STEP_MAX ranks auto
 * ran step whatever the model, so 64 GPUs of BERT-Large took ten minutes
 * for five iterations where fast took ten seconds, within 0.4%. Auto now
 * also asks how many messages the run would cost step, from the model's
 * gradient and the iterations, before anything runs. */
#ifndef HS_FIDELITY_AUTO_H
#define HS_FIDELITY_AUTO_H

#include "scenarios/scenario.h"

/* The messages a step run of sc would simulate, to within a few times:
 * each rank sends its gradient's bytes about twice an iteration (a ring's
 * reduce-scatter and allgather, a tree's reduce and broadcast) in messages
 * of about HS_FIDELITY_AUTO_SLICE bytes, and at least one ring's 2(n - 1)
 * messages an iteration. On 64 GPUs of BERT-Large over 5 iterations it
 * says 3.3 million where step sent 1.65 (gradient_allreduce: NCCL's
 * ring) and 10.8 (qadam: its tree). */
double hs_fidelity_step_messages(const hs_scenario *sc);

/* Whether auto should time this run's collectives as fast does though it
 * has HS_FIDELITY_AUTO_STEP_MAX ranks or fewer: its step messages above
 * HS_FIDELITY_AUTO_STEP_MESSAGES. Only under "auto". */
bool hs_fidelity_auto_fast(const hs_scenario *sc);

#endif
