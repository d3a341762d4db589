/* select.c — the policy that turns a scenario and a backend's offer into a
 * communicator's plan (select.h). */
#include "algos/comm/select.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/comm/gloo.h"
#include "algos/comm/nccl_legacy.h"
#include "scenarios/nccl_versions.h"

static unsigned bit(hs_engine e) { return 1u << e; }

const char *hs_engine_name(hs_engine e) {
  static const char *const names[HS_ENGINES] = {"messages", "timed", "library"};
  return e < HS_ENGINES ? names[e] : "?";
}

const char *hs_coll_algo_name(hs_coll_algo a) {
  static const char *const names[HS_COLL_ALGOS + 1] = {"ring", "hierarchical", "halving_doubling",
                                                       "recursive_doubling", "tree", "nvls", "collnet",
                                                       "nvls_tree", "auto"};
  return a <= HS_COLL_AUTO ? names[a] : "?";
}

/* The fast engine tells which flows run together by their round in the
 * schedule. Rings are timed by their own recurrence, whatever the
 * arrivals, and trees by their replay forwarding on arrival
 * (hs_coll_by_rounds); the doubling schedules' rounds run together only
 * when the ranks arrive together: with stragglers or uneven GPU speeds,
 * step desynchronises their cross-node exchanges, which then share NICs
 * less than fast assumes (7-8% slower in fast on 16 x 8 with one 3x
 * straggler). There they run message by message. */
static int stragglers_free(const hs_scenario *sc) {
  return sc->stragglers.n == 0 && !sc->stragglers.fn && sc->cluster.n_speed == 0;
}

static int rounds_stay_together(const hs_scenario *sc) {
  return !hs_coll_by_rounds(sc->sim.collectives) || stragglers_free(sc);
}

int hs_select_timed(const hs_scenario *sc, int ranks, unsigned engines) {
  if (!(engines & bit(HS_ENGINE_TIMED))) return 0;
  if (!rounds_stay_together(sc)) return 0;
  return sc->sim.fidelity == HS_FIDELITY_FAST ||
         (sc->sim.fidelity == HS_FIDELITY_AUTO && (ranks > HS_FIDELITY_AUTO_STEP_MAX || sc->sim.auto_fast));
}

/* The nodes members[0, size) span, and whether they are GPUs only, as
 * many on each of those nodes: what the NVLS tree runs on (nvls_tree.c).
 * O(size + nodes). */
static int span_of(const hs_cluster_spec *c, const int *members, int size, int *uniform) {
  int top = 0, nodes = 0, k = -1;
  *uniform = members != NULL;
  for (int i = 0; members && i < size; i++) {
    int node = hs_cluster_rank_node(c, members[i]);
    top = node > top ? node : top;
  }
  int *count = calloc((size_t)top + 1, sizeof *count);
  for (int i = 0; members && i < size; i++) {
    if (hs_cluster_rank_is_cpu(c, members[i])) *uniform = 0;
    if (count[hs_cluster_rank_node(c, members[i])]++ == 0) nodes++;
  }
  for (int x = 0; x <= top; x++)
    if (count[x] && k < 0) k = count[x];
    else if (count[x] && count[x] != k) *uniform = 0;
  free(count);
  return nodes > 0 ? nodes : 1;
}

/* Every operation of plan p as Gloo runs it (gloo.h): its ring, its
 * binomial broadcast, no tuner, no NCCL protocol, Gloo's costs on every
 * family (point-to-point's too). */
static void use_gloo(const hs_scenario *sc, hs_plan *p) {
  hs_proto_cost g = hs_gloo_cost(sc);
  for (int f = 0; f < HS_PROTO_FAMILIES; f++)
    for (int x = 0; x <= HS_PROTOS; x++) p->cost[f][x] = g;
  p->tuned = p->nccl_tuner = 0;
  p->algos = 1u << HS_COLL_RING;
  p->protos = 1u << HS_PROTO_NONE;
  /* gloo/broadcast.cc: a binomial tree of whole vectors, the root
   * sending to its ceil(log2 n) children one after the other */
  p->algos |= 1u << HS_COLL_RECURSIVE_DOUBLING;
  for (int k = 0; k < HS_OP_KINDS; k++) {
    hs_exec *e[2] = {&p->exec[k], &p->fallback[k]};
    for (int i = 0; i < 2; i++) {
      e[i]->algo = k == HS_OP_BROADCAST ? HS_COLL_RECURSIVE_DOUBLING : HS_COLL_RING;
      e[i]->proto = HS_PROTO_NONE;
      e[i]->cost = g;
      e[i]->unmodelled = HS_UNMODELLED_NONE;
    }
  }
  /* the fast engine's rounds of a tree run together only when the ranks
   * arrive together (stragglers_free, above): else message by message */
  if (p->doubling_by_messages && p->exec[HS_OP_BROADCAST].engine == HS_ENGINE_TIMED)
    p->exec[HS_OP_BROADCAST].engine = p->fallback[HS_OP_BROADCAST].engine;
}

void hs_select(const hs_select_query *q, hs_plan *p) {
  const hs_scenario *sc = q->sc;
  unsigned offered = q->offer.engines;
  int messages = (offered & bit(HS_ENGINE_MESSAGES)) != 0, library = (offered & bit(HS_ENGINE_LIBRARY)) != 0;
  /* The scenario's schedule and protocol for every kind, unless the tuner
   * picks them per kind and size (hs_plan_tuned_at). */
  hs_coll_algo algo = sc->sim.collectives == HS_COLL_AUTO ? HS_COLL_RING : sc->sim.collectives;
  int proto = sc->sim.protocol == HS_PROTO_AUTO ? HS_PROTO_SIMPLE : sc->sim.protocol;
  /* the nodes the members span, as far as the protocols' costs tell them
   * apart: one, two or more */
  int gpn = sc->cluster.gpus_per_node > 0 ? sc->cluster.gpus_per_node : 1, nodes = 1, second = -1;
  for (int i = 1; q->members && i < q->size && nodes < 3; i++) {
    int node = q->members[i] / gpn;
    if (node == q->members[0] / gpn || node == second) continue;
    if (second < 0) second = node, nodes = 2;
    else nodes = 3;
  }
  int multi_node = nodes > 1, even;
  int span = span_of(&sc->cluster, q->members, q->size, &even);
  hs_proto_site site = hs_proto_site_of(sc, nodes, q->size > 1 && span == q->size);
  for (int f = 0; f < HS_PROTO_FAMILIES; f++)
    for (int x = 0; x <= HS_PROTOS; x++) p->cost[f][x] = hs_proto_cost_of(x, (hs_proto_family)f, &site);
  /* The NVLS tree's latency grows with the levels of its tree over every
   * node it spans, not the one-two-more the other costs tell apart. */
  hs_proto_site spanned = site;
  spanned.nodes = span;
  for (int x = 0; x <= HS_PROTOS; x++)
    p->cost[HS_PROTO_FOR_NVLS_TREE][x] = hs_proto_cost_of(x, HS_PROTO_FOR_NVLS_TREE, &spanned);
  /* The in-switch reduction needs the node's switch to reduce, the
   * backend to run its part, and every member on that one node; the NVLS
   * tree, the nodes' switches and GPUs as many on each of several. Each
   * runs the ring, at the ring's costs, where it cannot run. */
  int switch_here = sc->cluster.nvls && q->offer.switches && !multi_node && q->size > 1;
  int switches_here = sc->cluster.nvls && q->offer.switches && spanned.nodes > 1 && even;
  if (algo == HS_COLL_NVLS && !switch_here) algo = HS_COLL_RING;
  if (algo == HS_COLL_NVLS_TREE && !switches_here) algo = HS_COLL_RING;
  /* The fabric's reduction, likewise, needs members on several nodes. */
  int fabric_here = sc->cluster.in_network_reduction && q->offer.switches && multi_node;
  if (algo == HS_COLL_COLLNET && !fabric_here) algo = HS_COLL_RING;
  hs_proto_cost cost = p->cost[hs_proto_family_of(algo)][proto];
  /* The tuner, when either choice is left to it: it picks among every
   * schedule (or the one forced) and every protocol (or the one forced). */
  p->tuned = sc->sim.collectives == HS_COLL_AUTO || sc->sim.protocol == HS_PROTO_AUTO;
  p->algos = sc->sim.collectives == HS_COLL_AUTO ? (1u << HS_COLL_ALGOS) - 1 : 1u << sc->sim.collectives;
  if (!switch_here) p->algos &= ~(1u << HS_COLL_NVLS);
  if (!switches_here) p->algos &= ~(1u << HS_COLL_NVLS_TREE);
  if (!fabric_here) p->algos &= ~(1u << HS_COLL_COLLNET);
  /* The NCCL a study ran (sim.nccl_version) picks among what it had
   * (nccl_versions.h): rings and Simple alone before 2.3, no tree before
   * 2.4, ... A schedule or protocol the scenario forces runs whatever
   * the version; a host-side controller's communicator is not NCCL's. */
  int v = q->host_side || sc->sim.nccl <= 0 ? HS_NCCL_LATEST : sc->sim.nccl; /* 0: a scenario not loaded */
  if (sc->sim.collectives == HS_COLL_AUTO) {
    if (!hs_nccl_has_tree(v)) p->algos &= ~(1u << HS_COLL_TREE);
    if (!hs_nccl_has_collnet(v)) p->algos &= ~(1u << HS_COLL_COLLNET);
    if (!hs_nccl_has_nvls(v)) p->algos &= ~(1u << HS_COLL_NVLS);
    if (!hs_nccl_has_nvls_tree(v)) p->algos &= ~(1u << HS_COLL_NVLS_TREE);
  }
  if (!p->algos) p->algos = 1u << HS_COLL_RING;
  p->protos = sc->sim.protocol == HS_PROTO_AUTO ? (1u << HS_PROTOS) - 1 : 1u << sc->sim.protocol;
  if (sc->sim.protocol == HS_PROTO_AUTO && !hs_nccl_has_ll(v)) p->protos &= ~(1u << HS_PROTO_LL);
  if (sc->sim.protocol == HS_PROTO_AUTO && !hs_nccl_has_ll128(v)) p->protos &= ~(1u << HS_PROTO_LL128);
  /* NCCL enables LL128 over NVLink only (nccl_model.c): on PCIe nodes its
   * own choice never runs it, so hearsay's does not either. */
  if (sc->sim.protocol == HS_PROTO_AUTO && sc->cluster.intra_link == HS_INTRA_PCIE)
    p->protos &= ~(1u << HS_PROTO_LL128);
  p->doubling_by_messages = !stragglers_free(sc);
  memset(p->by_size, 0, sizeof p->by_size);
  if (p->tuned && q->members) hs_tuner_topo_of(sc, q->members, q->size, &p->topo);
  p->nccl_tuner = p->tuned && q->members && sc->sim.tuner == HS_TUNER_NCCL;
  p->nccl_version = v;
  if (p->nccl_tuner) hs_nccl_topo_of_group(sc, &p->topo, &p->nccl_topo);
  hs_exec by_messages = {HS_ENGINE_MESSAGES, algo, proto, cost, HS_UNMODELLED_NONE},
          timed = {HS_ENGINE_TIMED, algo, proto, cost, HS_UNMODELLED_NONE},
          by_library = {HS_ENGINE_LIBRARY, algo, proto, cost, HS_UNMODELLED_NONE};
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
    /* a kind the schedule does not change (a reduce-scatter under "tree")
     * runs the ring and pays the ring family's costs */
    p->exec[k].cost = p->fallback[k].cost = p->cost[hs_plan_family(k, algo)][proto];
  }
  p->library_types = q->offer.library_types;
  /* Gloo (sim.library): its ring at its costs for every operation of the
   * run's communicators, whatever NCCL would pick; a framework's own
   * controller is left as it is. */
  if (sc->sim.library == HS_LIBRARY_GLOO && !q->host_side) use_gloo(sc, p);
}


/* The schedule that runs NCCL's algorithm a as NCCL does, or -1: NCCL's
 * PAT is not modelled (docs/fidelity.md). */
static int schedule_of_nccl(hs_nccl_algo a) {
  switch (a) {
  case HS_NCCL_RING: return HS_COLL_RING;
  case HS_NCCL_TREE: return HS_COLL_TREE;
  case HS_NCCL_NVLS: return HS_COLL_NVLS;
  case HS_NCCL_NVLS_TREE: return HS_COLL_NVLS_TREE;
  case HS_NCCL_COLLNET_DIRECT:
  case HS_NCCL_COLLNET_CHAIN: return HS_COLL_COLLNET;
  default: return -1;
  }
}

/* What NCCL's tuner would run (ncclTopoGetAlgoTime's fastest by its own
 * model) among the schedules and protocols allowed; 0 if it would run
 * none of them (kinds NCCL does not tune, protocol "none", a schedule
 * forced that NCCL does not have): the caller falls back to hearsay's. */
static int nccl_pick(const hs_plan *p, hs_op_kind k, double bytes, unsigned algos, hs_coll_algo *a, int *proto,
                     hs_unmodelled *unmodelled) {
  hs_nccl_model m;
  hs_nccl_model_init(&m, &p->nccl_topo);
  double best = -1, beyond = -1; /* beyond: the fastest of what hearsay does not run */
  hs_unmodelled which = HS_UNMODELLED_NONE;
  for (int x = 0; x < HS_NCCL_ALGOS; x++) {
    int s = schedule_of_nccl((hs_nccl_algo)x);
    if (s >= 0 && !(algos & (1u << s))) continue;
    for (int y = 0; y < HS_PROTOS; y++) {
      if (!(p->protos & (1u << y))) continue;
      double t = hs_nccl_time(&m, k, (hs_nccl_algo)x, (hs_proto)y, bytes);
      if (t < 0) continue;
      if (s < 0) {
        if (beyond < 0 || t < beyond)
          beyond = t, which = HS_UNMODELLED_PAT;
      } else if (best < 0 || t < best) {
        best = t, *a = (hs_coll_algo)s, *proto = y;
      }
    }
  }
  /* only where NCCL chooses (every schedule allowed, whatever k can run):
   * a forced one is NCCL_ALGO, which leaves NCCL nothing else */
  int choosing = (p->algos & (1u << HS_COLL_RING)) && (p->algos & (1u << HS_COLL_TREE));
  *unmodelled = choosing && best >= 0 && beyond >= 0 && beyond < best ? which : HS_UNMODELLED_NONE;
  return best >= 0;
}

/* What NCCL 2.3 or 2.4 would run (nccl_legacy.h): its ring or tree, LL or
 * Simple by its thresholds, within what the scenario allows; 0 for a
 * later version, or where neither its ring nor its tree may run. */
static int legacy_pick(const hs_plan *p, hs_op_kind k, double bytes, unsigned algos, hs_coll_algo *a, int *proto) {
  int tree, ll;
  if (!hs_nccl_legacy_pick(p->nccl_version, &p->nccl_topo, k, bytes, (algos >> HS_COLL_RING) & 1,
                           (algos >> HS_COLL_TREE) & 1, &tree, &ll))
    return 0;
  *a = tree ? HS_COLL_TREE : HS_COLL_RING;
  *proto = ll && (p->protos & (1u << HS_PROTO_LL)) ? HS_PROTO_LL : HS_PROTO_SIMPLE;
  if (!(p->protos & (1u << *proto))) /* the scenario forces a protocol: that one */
    for (int x = 0; x < HS_PROTOS; x++)
      if (p->protos & (1u << x)) *proto = x;
  return 1;
}

int hs_plan_p2p_proto(const hs_plan *p, double bytes) {
  if (p->protos && !(p->protos & (p->protos - 1))) /* the scenario forces one */
    for (int x = 0; x <= HS_PROTOS; x++)
      if (p->protos == 1u << x) return x;
  return bytes <= HS_P2P_LL_THRESHOLD ? HS_PROTO_LL : HS_PROTO_SIMPLE;
}

hs_proto_cost hs_plan_p2p_cost(const hs_plan *p, const hs_op *o, int *proto) {
  double largest = 0;
  for (int i = 0; i < o->n_p2p; i++) {
    double b = (double)hs_buf_bytes(o->p2p[i].buf);
    if (b > largest) largest = b;
  }
  *proto = hs_plan_p2p_proto(p, largest);
  hs_proto_cost c = p->cost[HS_PROTO_FOR_RING][*proto];
  if (c.host) return c; /* a host library's connection: its thread's rate bounds a message too */
  c.rate = 0;
  c.tree_bus = 0;
  return c;
}

/* The pick for k at exactly `bytes`. */
static hs_tuned pick_at(const hs_plan *p, hs_op_kind k, double bytes) {
  unsigned algos = p->algos & hs_tuner_algos_for(k);
  if (!algos) algos = 1u << HS_COLL_RING; /* a forced schedule that does not change k: k runs as the ring family */
  hs_coll_algo a;
  int proto;
  hs_unmodelled unmodelled = HS_UNMODELLED_NONE;
  if (!p->nccl_tuner ||
      (!legacy_pick(p, k, bytes, algos, &a, &proto) && !nccl_pick(p, k, bytes, algos, &a, &proto, &unmodelled)))
    hs_tuner_pick(&p->topo, k, bytes, algos, p->protos, &a, &proto);
  /* the forced schedule, where k does not depend on it, still names the run */
  if (!(p->algos & hs_tuner_algos_for(k)) || (p->algos & (p->algos - 1)) == 0) a = p->exec[k].algo;
  return (hs_tuned){1, (unsigned char)a, (unsigned char)proto, (unsigned char)unmodelled};
}

hs_tuned hs_plan_tuned_at(hs_plan *p, hs_op_kind k, double bytes) {
  /* direct-mapped on (k, bytes): a run meets few sizes (its buckets), a
   * sweep each once */
  unsigned long long key = (unsigned long long)bytes * 0x9E3779B97F4A7C15ull + (unsigned long long)k * 0xBF58476D1CE4E5B9ull;
  hs_tuned_entry *e = &p->by_size[(key >> 32) % HS_TUNED_SLOTS];
  if (!e->t.known || e->kind != (int)k || e->bytes != bytes) *e = (hs_tuned_entry){pick_at(p, k, bytes), (int)k, bytes};
  return e->t;
}
