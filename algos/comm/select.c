/* select.c — the policy that turns a scenario and a backend's offer into a
 * communicator's plan (select.h). */
#include "algos/comm/select.h"

static unsigned bit(hs_engine e) { return 1u << e; }

const char *hs_engine_name(hs_engine e) {
  static const char *const names[HS_ENGINES] = {"messages", "timed", "library"};
  return e < HS_ENGINES ? names[e] : "?";
}

const char *hs_coll_algo_name(hs_coll_algo a) {
  static const char *const names[HS_COLL_ALGOS] = {"ring", "hierarchical", "halving_doubling", "recursive_doubling"};
  return a < HS_COLL_ALGOS ? names[a] : "?";
}

/* The fast engine tells which flows run together by their round in the
 * schedule. Rings are timed by their own recurrence, whatever the
 * arrivals; the doubling schedules' rounds run together only when the
 * ranks arrive together: with stragglers or uneven GPU speeds, step
 * desynchronises their cross-node exchanges, which then share NICs less
 * than fast assumes (7-8% slower in fast on 16 x 8 with one 3x straggler).
 * There they run message by message. */
static int rounds_stay_together(const hs_scenario *sc) {
  int doubling = sc->sim.collectives == HS_COLL_HALVING_DOUBLING || sc->sim.collectives == HS_COLL_RECURSIVE_DOUBLING;
  return !doubling || (sc->stragglers.n == 0 && !sc->stragglers.fn && sc->cluster.n_speed == 0);
}

int hs_select_timed(const hs_scenario *sc, int ranks, unsigned engines) {
  if (!(engines & bit(HS_ENGINE_TIMED))) return 0;
  if (!rounds_stay_together(sc)) return 0;
  return sc->sim.fidelity == HS_FIDELITY_FAST ||
         (sc->sim.fidelity == HS_FIDELITY_AUTO && ranks > HS_FIDELITY_AUTO_STEP_MAX);
}

void hs_select(const hs_select_query *q, hs_plan *p) {
  const hs_scenario *sc = q->sc;
  unsigned offered = q->offer.engines;
  int messages = (offered & bit(HS_ENGINE_MESSAGES)) != 0, library = (offered & bit(HS_ENGINE_LIBRARY)) != 0;
  /* One schedule for every kind for now: the scenario's. A tuner would
   * choose here, per kind and size class, from the communicator's size and
   * members' placement. */
  hs_coll_algo algo = sc->sim.collectives;
  int proto = sc->sim.protocol;
  int gpn = sc->cluster.gpus_per_node > 0 ? sc->cluster.gpus_per_node : 1, multi_node = 0;
  for (int i = 1; i < q->size && !multi_node; i++) multi_node = q->members[i] / gpn != q->members[0] / gpn;
  hs_proto_cost cost = hs_proto_cost_of(proto, HS_PROTO_FOR_RING, multi_node, sc->cluster.cpu == HS_CPU_AMD);
  hs_exec by_messages = {HS_ENGINE_MESSAGES, algo, proto, cost}, timed = {HS_ENGINE_TIMED, algo, proto, cost},
          by_library = {HS_ENGINE_LIBRARY, algo, proto, cost};
  /* The library's own collectives when it is the only way, or when the
   * scenario asks for them (real.lowering = "mpi"; "auto" outside
   * emulation, where hearsay's schedules are what the emulated links
   * delay). */
  int prefer_library = library && (!messages || sc->real.lowering == HS_LOWERING_MPI ||
                                   (sc->real.lowering == HS_LOWERING_AUTO && !sc->real.emulate));
  int time_them = hs_select_timed(sc, q->ranks, offered);
  hs_exec fallback = messages ? by_messages : by_library;
  for (int k = 0; k < HS_OP_KINDS; k++) {
    /* Point-to-point has no schedule to time or hand over. */
    int collective = k != HS_OP_P2P;
    p->exec[k] = collective && time_them ? timed : collective && prefer_library ? by_library : fallback;
    p->fallback[k] = fallback;
  }
  p->library_types = q->offer.library_types;
}
