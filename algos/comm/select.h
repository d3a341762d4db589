/* select.h — the one place that decides how an operation runs.
 *
 * In the spirit of OpenMPI's coll framework (comm_query picks a module per
 * communicator): when a backend creates a communicator it says what it can
 * run (an hs_offer) and asks hs_select, which returns the communicator's
 * plan: for every kind of operation, the engine that runs it and, for the
 * engines that follow hearsay's own schedules, which schedule. A backend
 * then looks its operations up in the plan (hs_plan_exec: an array index
 * and two tests, no strings) and never reads a scenario setting to decide.
 *
 * The policy lives here and only here: sim.collectives (which schedule),
 * sim.fidelity (timed or message by message, in the simulator),
 * real.lowering (the MPI library's collectives or hearsay's). A tuner that
 * predicts each schedule's time on the communicator's topology and picks
 * the fastest per size belongs in hs_select as well, nowhere else. */
#ifndef HS_SELECT_H
#define HS_SELECT_H

#include "algos/comm/comm.h"
#include "algos/comm/protocol.h"
#include "scenarios/scenario.h"

/* Who carries an operation out. */
typedef enum {
  HS_ENGINE_MESSAGES, /* the shared lowering (lowering.h): every message moved by the backend */
  HS_ENGINE_TIMED,    /* the same schedule timed without messages (the simulator's fast fidelity);
                         timing-only operations only */
  HS_ENGINE_LIBRARY,  /* the transport's own library: MPI's collectives, NCCL */
  HS_ENGINES
} hs_engine;

typedef struct {
  hs_engine engine;
  hs_coll_algo algo; /* the schedule of MESSAGES and TIMED; LIBRARY picks its own */
  int proto;         /* hs_proto or HS_PROTO_NONE: how MESSAGES and TIMED carry it */
  hs_proto_cost cost; /* what that protocol costs on this communicator (protocol.h) */
} hs_exec;

/* What a backend can run, told to the selector for each communicator. */
typedef struct {
  unsigned engines;       /* bit 1u << e for every engine e it has */
  unsigned library_types; /* LIBRARY: bit 1u << t for every dtype t whose reductions
                             the library computes (MPI has no 16-bit floats) */
} hs_offer;

/* A communicator, as the selector sees it. */
typedef struct {
  const hs_scenario *sc; /* the policy, and the cluster a tuner would model */
  int ranks;             /* ranks in the whole run */
  int size;              /* members of this communicator */
  const int *members;    /* their world ranks, in communicator order */
  hs_offer offer;
} hs_select_query;

/* The answer: per kind of operation, how it runs, and how it runs when the
 * chosen engine cannot take this particular operation (TIMED and an
 * operation carrying data; LIBRARY and a reduction of a type it lacks). */
typedef struct {
  hs_exec exec[HS_OP_KINDS];
  hs_exec fallback[HS_OP_KINDS];
  unsigned library_types;
} hs_plan;

/* Fills *plan for the communicator q describes. Every member of a
 * communicator gets the same plan (it depends on nothing rank-specific),
 * so members lower the same schedule. */
void hs_select(const hs_select_query *q, hs_plan *plan);

/* Whether collectives of a run of `ranks` ranks are timed without messages
 * when the backend offers it: sim.fidelity "fast", or "auto" above
 * HS_FIDELITY_AUTO_STEP_MAX ranks; never for the doubling schedules when
 * ranks do not arrive together (select.c says why). */
int hs_select_timed(const hs_scenario *sc, int ranks, unsigned engines);

/* How o runs on a communicator with plan p. */
static inline hs_exec hs_plan_exec(const hs_plan *p, const hs_op *o) {
  hs_exec x = p->exec[o->kind];
  int data = o->send.data || o->recv.data;
  if (data && x.engine == HS_ENGINE_TIMED) return p->fallback[o->kind];
  if (data && x.engine == HS_ENGINE_LIBRARY && hs_op_reduces(o->kind) && !(p->library_types & (1u << o->send.dtype)))
    return p->fallback[o->kind];
  return x;
}

/* "ring", "hierarchical": for summaries and reports. */
const char *hs_coll_algo_name(hs_coll_algo a);

/* "messages", "timed", "library": for summaries and messages. */
const char *hs_engine_name(hs_engine e);

#endif
