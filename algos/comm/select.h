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
 * real.lowering (the MPI library's collectives or hearsay's), sim.protocol.
 * With sim.collectives or sim.protocol "auto", the plan runs per
 * operation and size what sim.tuner picks: NCCL's choice by NCCL's
 * own model (nccl_model.h; by NCCL 2.3's and 2.4's thresholds where
 * sim.nccl_version names one, nccl_legacy.h), or the fastest of hearsay's
 * schedules by hearsay's predictions on the communicator's placement
 * (tuner.h). */
#ifndef HS_SELECT_H
#define HS_SELECT_H

#include "algos/comm/comm.h"
#include "algos/comm/nccl_model.h"
#include "algos/comm/protocol.h"
#include "algos/comm/tuner.h"
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
  hs_unmodelled unmodelled; /* NCCL's model would run this algorithm, which hearsay does not: algo is the fastest
                               one it runs by that model (sim.tuner = "nccl", sim.collectives = "auto") */
} hs_exec;

/* What a backend can run, told to the selector for each communicator. */
typedef struct {
  unsigned engines;       /* bit 1u << e for every engine e it has */
  unsigned library_types; /* LIBRARY: bit 1u << t for every dtype t whose reductions
                             the library computes (MPI has no 16-bit floats) */
  int switches;           /* it runs a reducing switch's part (sim.collectives "nvls") */
} hs_offer;

/* A communicator, as the selector sees it. */
typedef struct {
  const hs_scenario *sc; /* the policy, and the cluster a tuner would model */
  int ranks;             /* ranks in the whole run */
  int size;              /* members of this communicator */
  const int *members;    /* their world ranks, in communicator order; NULL where the backend has none
                            (NCCL's): then nothing placement-dependent is decided (one node assumed
                            for the protocol's costs, no tuner topology: LIBRARY picks its own) */
  hs_offer offer;
  int host_side; /* a framework's controller on the host (MPI, Gloo: hs_comm_split_host), not NCCL: the
                    scenario's sim.nccl_version does not narrow what it runs */
} hs_select_query;

/* The answer: per kind of operation, how it runs, and how it runs when the
 * chosen engine cannot take this particular operation (TIMED and an
 * operation carrying data; LIBRARY and a reduction of a type it lacks). */
typedef struct {
  unsigned char known, algo, proto;
  unsigned char unmodelled; /* hs_unmodelled: NCCL's own pick, where hearsay does not run it */
} hs_tuned;

/* A pick at one size, cached (hs_plan_tuned_at). */
enum { HS_TUNED_SLOTS = 64 };
typedef struct {
  hs_tuned t;
  int kind;
  double bytes;
} hs_tuned_entry;

typedef struct {
  hs_exec exec[HS_OP_KINDS];
  hs_exec fallback[HS_OP_KINDS];
  unsigned library_types;
  /* The tuner (sim.collectives or sim.protocol "auto"): what it may pick
   * among, what it knows of the communicator, and its picks, made on
   * first use per (operation, size), as NCCL picks per call. */
  int tuned;
  unsigned algos, protos;
  int doubling_by_messages; /* the round schedules may not be timed here (hs_select_timed) */
  hs_tuner_topo topo;
  int nccl_tuner;         /* sim.tuner "nccl": NCCL's model picks (select.c) */
  int nccl_version;       /* the NCCL whose choice that is (sim.nccl_version, as parsed): 2.3 and 2.4 chose
                             by thresholds (nccl_legacy.h), later ones by their model */
  hs_nccl_topo nccl_topo; /* the communicator as NCCL's model sees it */
  hs_proto_cost cost[HS_PROTO_FAMILIES][HS_PROTOS + 1]; /* [hs_proto_family][protocol] */
  hs_tuned_entry by_size[HS_TUNED_SLOTS];
} hs_plan;

/* Fills *plan for the communicator q describes. Every member of a
 * communicator gets the same plan (it depends on nothing rank-specific),
 * so members lower the same schedule. */
void hs_select(const hs_select_query *q, hs_plan *plan);

/* Whether collectives of a run of `ranks` ranks are timed without messages
 * when the backend offers it: sim.fidelity "fast", or "auto" above
 * HS_FIDELITY_AUTO_STEP_MAX ranks or where `hearsay run` found step too
 * costly for the run (sim.auto_fast); never for the doubling schedules when
 * ranks do not arrive together (select.c says why). */
int hs_select_timed(const hs_scenario *sc, int ranks, unsigned engines);


/* Schedules of lock-step rounds whose flows fast fidelity shares as
 * running together (the doubling exchanges, the in-switch reductions'):
 * timed without messages only when the ranks arrive together (select.c).
 * Not the double binary tree: fast replays it forwarding on arrival, each
 * position from its own start, its shares refined by the slices truly
 * beside each other (fast_tree.h), and under a 3x straggler or lognormal
 * noise it agrees with step within 0.2% (test_fidelity_fast). */
static inline int hs_coll_by_rounds(hs_coll_algo a) {
  return a == HS_COLL_HALVING_DOUBLING || a == HS_COLL_RECURSIVE_DOUBLING || a == HS_COLL_NVLS ||
         a == HS_COLL_COLLNET || a == HS_COLL_NVLS_TREE;
}

/* The protocol family kind k pays under schedule a: a's when a changes
 * how k runs, the ring's else. */
static inline hs_proto_family hs_plan_family(int k, hs_coll_algo a) {
  return (hs_tuner_algos_for((hs_op_kind)k) & (1u << a)) ? hs_proto_family_of(a) : HS_PROTO_FOR_RING;
}

/* The tuner's pick for kind k at `bytes` (the whole vector) on plan p, as
 * NCCL picks for each call's size (cached in p). */
hs_tuned hs_plan_tuned_at(hs_plan *p, hs_op_kind k, double bytes);

/* An allreduce whose result has the same bits however it is computed (an
 * integer min, max or sum): a timed engine may compute it in one place
 * instead of along its schedule (Horovod's negotiation, a run's recovery
 * checks). Floating-point sums depend on their order, so they run the
 * schedule's messages. */
static inline int hs_op_exact_anywhere(const hs_op *o) {
  return o->kind == HS_OP_ALLREDUCE && (o->send.dtype == HS_I32 || o->send.dtype == HS_I64) &&
         o->recv.dtype == o->send.dtype && o->redop != HS_AVG && o->send.data && o->recv.data &&
         o->send.count == o->recv.count;
}

/* NCCL's point-to-point protocol: LL for messages up to
 * NCCL_P2P_LL_THRESHOLD (16 KiB), Simple above (enqueue.cc, addP2pToPlan);
 * the scenario's where it forces one (sim.protocol, "none" included). */
enum { HS_P2P_LL_THRESHOLD = 16384 };
int hs_plan_p2p_proto(const hs_plan *p, double bytes);

/* What a point-to-point group of o's kind costs on plan p: its largest
 * message's protocol, with the ring's launch, hop latencies and wire bytes
 * (NCCL runs a group of sends and receives as one kernel, each message a
 * hop); no flow cap beyond the links (the per-channel maxima are the
 * collectives'). */
hs_proto_cost hs_plan_p2p_cost(const hs_plan *p, const hs_op *o, int *proto);

/* How o runs on a communicator with plan p (the tuner's pick cached in p). */
static inline hs_exec hs_plan_exec(hs_plan *p, const hs_op *o) {
  hs_exec x = p->exec[o->kind];
  if (o->kind == HS_OP_P2P) {
    x.cost = hs_plan_p2p_cost(p, o, &x.proto);
    /* a host library's sends and receives take host buffers (Gloo's
     * send of a GPU tensor's pointer would hand TCP device memory): the
     * copies there and back, paid with the group's launch */
    for (int i = 0; x.cost.stage > 0 && i < o->n_p2p; i++)
      x.cost.launch += x.cost.stage * (double)hs_buf_bytes(o->p2p[i].buf);
    return x;
  }
  if (p->tuned && o->kind != HS_OP_P2P && x.engine != HS_ENGINE_LIBRARY) {
    size_t count = o->send.count > o->recv.count ? o->send.count : o->recv.count;
    hs_tuned t = hs_plan_tuned_at(p, o->kind, (double)count * (double)hs_dtype_size(o->send.dtype));
    x.algo = (hs_coll_algo)t.algo;
    x.proto = t.proto;
    x.unmodelled = (hs_unmodelled)t.unmodelled;
    x.cost = p->cost[hs_plan_family(o->kind, x.algo)][t.proto];
    if (hs_coll_by_rounds(x.algo) && p->doubling_by_messages && x.engine == HS_ENGINE_TIMED)
      x.engine = p->fallback[o->kind].engine;
  }
  if (x.cost.stage > 0) /* a host library's copies of the GPU's buffers to the host and back, with its launch */
    x.cost.launch += x.cost.stage * ((double)o->send.count * (double)hs_dtype_size(o->send.dtype) +
                                     (double)o->recv.count * (double)hs_dtype_size(o->recv.dtype));
  int data = o->send.data || o->recv.data;
  if (data && x.engine == HS_ENGINE_TIMED && !hs_op_exact_anywhere(o)) x.engine = p->fallback[o->kind].engine;
  if (data && x.engine == HS_ENGINE_LIBRARY && hs_op_reduces(o->kind) && !(p->library_types & (1u << o->send.dtype)))
    return p->fallback[o->kind];
  return x;
}

/* "ring", "hierarchical", ..., "auto": for summaries and reports. */
const char *hs_coll_algo_name(hs_coll_algo a);

/* "messages", "timed", "library": for summaries and messages. */
const char *hs_engine_name(hs_engine e);

#endif
