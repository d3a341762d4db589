/* fidelity_auto.c — what sim.fidelity = "auto" runs a scenario at
 * (fidelity_auto.h). */
#include "sim/fidelity_auto.h"

/* A step message's bytes, as an order of magnitude: a step of NCCL's
 * Simple moves 512 KiB, of LL128 about 560 KiB and of LL 32 KiB
 * (algos/comm/protocol.c), a ring's chunk is cut into as many slices as
 * keep its window full, and a tree pipelines finer. */
#define HS_FIDELITY_AUTO_SLICE (256.0 * 1024)

double hs_fidelity_step_messages(const hs_scenario *sc) {
  const hs_workload_spec *wl = &sc->workload;
  double params = 0; /* the numeric model's layers hold its weights too */
  for (int l = 0; l < wl->n_layers; l++) params += wl->layers[l].params;
  double bytes = params * wl->dtype_bytes;
  double n = hs_scenario_ranks(sc);
  double per_rank = 2 * bytes / HS_FIDELITY_AUTO_SLICE, ring = 2 * (n - 1);
  return (double)sc->run.iterations * n * (per_rank > ring ? per_rank : ring);
}

bool hs_fidelity_auto_fast(const hs_scenario *sc) {
  return sc->sim.fidelity == HS_FIDELITY_AUTO && hs_fidelity_step_messages(sc) > HS_FIDELITY_AUTO_STEP_MESSAGES;
}
