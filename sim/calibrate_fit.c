/* calibrate_fit.c — the fit behind `hearsay calibrate` (calibrate_fit.h). */
#include "sim/calibrate_fit.h"

#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/comm/select.h"
#include "algos/comm/tuner.h"
#include "scenarios/net_transport.h"

/* Each parameter's range: wide enough for any cluster measured so far
 * (a TCP message costs tens of µs, docs/scenarios.md), narrow enough that
 * the simplex does not wander off where the model is flat. */
static const struct {
  double lo, hi;
  int intra; /* fitted from runs on one node, else from runs across nodes */
} ranges[HS_CALIB_PARAMS] = {
    [HS_CALIB_INTRA_EFFICIENCY] = {0.02, 1, 1},
    [HS_CALIB_INTRA_LATENCY] = {0, 100e-6, 1},
    [HS_CALIB_NVLS_EFFICIENCY] = {0.02, 1, 1},
    [HS_CALIB_INTER_EFFICIENCY] = {0.01, 1, 0},
    [HS_CALIB_INTER_LATENCY] = {0, 1e-3, 0},
    /* 0.1 to 25 GB/s: a slow virtual NIC's stream to a 200 Gb/s one */
    [HS_CALIB_STREAM_BANDWIDTH] = {1e8, 25e9, 0},
    [HS_CALIB_IN_NETWORK_EFFICIENCY] = {0.05, 1, 0},
    /* a host's launch, from a graph's sub-µs to a slow virtual machine's
     * tens; fitted in the first stage with a -g run (see launch_stage) */
    [HS_CALIB_LAUNCH_OVERHEAD] = {0.5e-6, 50e-6, -1},
    /* a staged connection, from a slow host's 0.2 GB/s to a Gen5 link's
     * 50; fitted from a node's runs where its GPUs have no peer access
     * (the same value then bounds its connections across nodes without
     * GPUDirect RDMA) */
    [HS_CALIB_STAGING_BANDWIDTH] = {0.2e9, 50e9, 1},
};

double *hs_calib_field(hs_scenario *sc, hs_calib_param p) {
  hs_cluster_spec *c = &sc->cluster;
  switch (p) {
  case HS_CALIB_INTRA_EFFICIENCY: return &c->intra_efficiency;
  case HS_CALIB_INTRA_LATENCY: return &c->intra.latency;
  case HS_CALIB_NVLS_EFFICIENCY: return &c->nvls_efficiency;
  case HS_CALIB_INTER_EFFICIENCY: return &c->transport.efficiency;
  case HS_CALIB_INTER_LATENCY:
    /* Both are charged as the NIC link's latency (links.c): one value fits
     * them together. On TCP it is the stack's cost per message; on RDMA the
     * fabric's latency. */
    return c->transport.kind == HS_NET_TCP ? &c->transport.message_cost : &c->inter.latency;
  case HS_CALIB_STREAM_BANDWIDTH: return &c->transport.stream_bandwidth;
  case HS_CALIB_IN_NETWORK_EFFICIENCY: return &c->in_network_efficiency;
  case HS_CALIB_LAUNCH_OVERHEAD: return &c->gpu_launch_overhead;
  case HS_CALIB_STAGING_BANDWIDTH: return &c->host_staging_bandwidth;
  default: return NULL;
  }
}

const char *hs_calib_key(const hs_scenario *sc, hs_calib_param p) {
  static const char *const keys[HS_CALIB_PARAMS] = {"cluster.intra.efficiency", "cluster.intra.latency",
                                                    "cluster.intra.nvls_efficiency", "cluster.inter.efficiency",
                                                    "cluster.inter.latency", "cluster.inter.stream_bandwidth",
                                                    "cluster.inter.in_network_efficiency",
                                                    "cluster.gpu.launch_overhead", "cluster.host.staging_bandwidth"};
  if (p == HS_CALIB_INTER_LATENCY && sc->cluster.transport.kind == HS_NET_TCP) return "cluster.inter.message_cost";
  return keys[p];
}

/* The world communicator's plan on sc, with the tuner's view of it: made
 * once per evaluation of a run, then asked for every size. */
typedef struct {
  hs_plan *plan;
  int *members;
} world;

static world world_of(const hs_scenario *sc) {
  int n = hs_scenario_gpus(sc);
  world w = {malloc(sizeof *w.plan), malloc((size_t)n * sizeof *w.members)};
  for (int r = 0; r < n; r++) w.members[r] = r;
  hs_select_query q = {sc, n, n, w.members, {1u << HS_ENGINE_MESSAGES, 0, 1}, 0};
  hs_select(&q, w.plan);
  if (!w.plan->tuned) hs_tuner_topo_of(sc, w.members, n, &w.plan->topo);
  return w;
}

static void world_free(world *w) {
  free(w->plan);
  free(w->members);
}

/* The plan's pick for k at `bytes`, timed by the tuner. */
static double world_predict(world *w, hs_op_kind k, double bytes) {
  hs_plan *p = w->plan;
  hs_coll_algo algo = p->exec[k].algo;
  int proto = p->exec[k].proto;
  if (k == HS_OP_P2P) proto = hs_plan_p2p_proto(p, bytes); /* NCCL's by size */
  else if (p->tuned) {
    hs_tuned t = hs_plan_tuned_at(p, k, bytes);
    algo = (hs_coll_algo)t.algo, proto = t.proto;
  }
  /* a schedule that does not change k runs it as the ring does */
  if (!(hs_tuner_algos_for(k) & (1u << algo))) algo = HS_COLL_RING;
  return hs_tuner_predict(&p->topo, k, algo, proto, bytes);
}

double hs_calib_predict(const hs_scenario *sc, hs_op_kind k, double bytes) {
  world w = world_of(sc);
  double t = world_predict(&w, k, bytes);
  world_free(&w);
  return t;
}

double hs_calib_penalty(double e) {
  /* soft-L1 on ln(predicted / measured), scale HS_CALIB_SCALE: quadratic
   * within it, linear beyond */
  double z = e / HS_CALIB_SCALE;
  return 2 * HS_CALIB_SCALE * HS_CALIB_SCALE * (sqrt(1 + z * z) - 1);
}

/* A case takes part in a stage when it runs on one node (intra) or across
 * nodes (inter). */
static int in_stage(const hs_calib_case *c, int intra) { return (c->run->nodes == 1) == intra; }

static double case_loss(const hs_calib_case *c) {
  const hs_nccltests_run *r = c->run;
  double s = 0;
  world w = world_of(c->sc);
  for (int i = 0; i < r->n_rows; i++) {
    double t = world_predict(&w, r->kind, r->rows[i].bytes) * (c->correction ? c->correction[i] : 1);
    /* as nccl-tests times it: its host's launches included */
    t = hs_nccltests_iteration(t, hs_nccltests_launching_gpus(r), c->sc->cluster.gpu_launch_overhead);
    double e = t > 0 ? log(t / (r->rows[i].time_us * 1e-6)) : 50; /* a schedule that cannot run: far off */
    s += hs_calib_penalty(e);
  }
  world_free(&w);
  return r->n_rows ? s / r->n_rows : 0;
}

static double stage_loss(const hs_calib_case *cases, int n, int intra) {
  double sum = 0;
  int used = 0;
  for (int c = 0; c < n; c++)
    if (in_stage(&cases[c], intra)) sum += case_loss(&cases[c]), used++;
  return used ? sum / used : 0;
}

double hs_calib_loss(const hs_calib_case *cases, int n) {
  double sum = 0;
  for (int c = 0; c < n; c++) sum += case_loss(&cases[c]);
  return n ? sum / n : 0;
}

static void set_all(hs_calib_case *cases, int n, hs_calib_param p, double v) {
  for (int c = 0; c < n; c++) *hs_calib_field(cases[c].sc, p) = v;
}

/* Bounded parameters as unbounded coordinates: v = lo + (hi - lo) sin^2 u,
 * smooth, and every u a valid v. */
static double to_value(hs_calib_param p, double u) {
  double s = sin(u);
  return ranges[p].lo + (ranges[p].hi - ranges[p].lo) * s * s;
}
static double to_coordinate(hs_calib_param p, double v) {
  double x = (v - ranges[p].lo) / (ranges[p].hi - ranges[p].lo);
  x = x < 0 ? 0 : x > 1 ? 1 : x;
  return asin(sqrt(x));
}

typedef struct {
  hs_calib_case *cases;
  int n, intra, dim;
  hs_calib_param params[HS_CALIB_PARAMS];
} stage;

/* Where a stage fits both the NIC's efficiency e and SHARP's share s,
 * the bytes through the fabric move at e s and the ring's at e: a long,
 * narrow valley along e s = constant, in which the simplex stalls (a
 * sweep split between CollNet and the ring came back as 0.9994 and 0.414
 * for 0.7 and 0.6). So there the share's coordinate stands for the
 * product e s, and s = product / e: the ring's sizes tell e, CollNet's the
 * product, one coordinate each. */
static int joint_index(const stage *s) {
  int e = -1, x = -1;
  for (int i = 0; i < s->dim; i++) {
    if (s->params[i] == HS_CALIB_INTER_EFFICIENCY) e = i;
    if (s->params[i] == HS_CALIB_IN_NETWORK_EFFICIENCY) x = i;
  }
  return e >= 0 ? x : -1;
}

static void apply(stage *s, const gsl_vector *u) {
  int x = joint_index(s);
  double e = *hs_calib_field(s->cases[0].sc, HS_CALIB_INTER_EFFICIENCY);
  for (int i = 0; i < s->dim; i++) {
    double v = to_value(s->params[i], gsl_vector_get(u, i));
    set_all(s->cases, s->n, s->params[i], v);
    if (s->params[i] == HS_CALIB_INTER_EFFICIENCY) e = v;
  }
  if (x >= 0) {
    const double lo = ranges[HS_CALIB_IN_NETWORK_EFFICIENCY].lo, hi = ranges[HS_CALIB_IN_NETWORK_EFFICIENCY].hi;
    double share = to_value(HS_CALIB_IN_NETWORK_EFFICIENCY, gsl_vector_get(u, x)) / e;
    set_all(s->cases, s->n, HS_CALIB_IN_NETWORK_EFFICIENCY, share < lo ? lo : share > hi ? hi : share);
  }
}

static double objective(const gsl_vector *u, void *arg) {
  stage *s = arg;
  apply(s, u);
  return stage_loss(s->cases, s->n, s->intra);
}

/* Rounded as the system file writes it (system_file.c). */
static double rounded(hs_calib_param p, double v) {
  if (p == HS_CALIB_INTRA_LATENCY || p == HS_CALIB_INTER_LATENCY || p == HS_CALIB_LAUNCH_OVERHEAD)
    return round(v * 1e8) / 1e8;
  if (v <= 0) return v;
  double scale = pow(10, 3 - floor(log10(v)));
  return round(v * scale) / scale;
}

/* Nelder-Mead from the current values; restarted once from where it
 * stopped, as a simplex can collapse early on a flat stretch. */
static void minimise(stage *s) {
  gsl_vector *u = gsl_vector_alloc((size_t)s->dim), *step = gsl_vector_alloc((size_t)s->dim);
  int x = joint_index(s);
  for (int i = 0; i < s->dim; i++) {
    double v = *hs_calib_field(s->cases[0].sc, s->params[i]);
    if (i == x) v *= *hs_calib_field(s->cases[0].sc, HS_CALIB_INTER_EFFICIENCY); /* the product (above) */
    gsl_vector_set(u, i, to_coordinate(s->params[i], v));
  }
  gsl_multimin_function f = {objective, (size_t)s->dim, s};
  gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, (size_t)s->dim);
  for (int round_ = 0; round_ < 2; round_++) {
    gsl_vector_set_all(step, 0.25);
    gsl_multimin_fminimizer_set(m, &f, u, step);
    for (int it = 0; it < 1000; it++) {
      if (gsl_multimin_fminimizer_iterate(m)) break;
      if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), 1e-7) == GSL_SUCCESS) break;
    }
    gsl_vector_memcpy(u, gsl_multimin_fminimizer_x(m));
  }
  apply(s, u);
  gsl_multimin_fminimizer_free(m);
  gsl_vector_free(u);
  gsl_vector_free(step);
}

/* An efficiency whose times stop changing above some value (a protocol's
 * or a tree's cap per channel binds before the link does: a two-node tree
 * on LL128 moves the same above 0.85 of a 400 Gb/s node's NICs) leaves a
 * simplex started from a system's default near 1 on a plateau, where it
 * collapses without moving. So the fit is tried again with every
 * efficiency started from the middle of its range, the other parameters
 * where the first fit left them, and kept where it is better by more
 * than 1%; only where the first fit leaves sizes off. */
static int is_efficiency(hs_calib_param p) {
  return p == HS_CALIB_INTRA_EFFICIENCY || p == HS_CALIB_NVLS_EFFICIENCY || p == HS_CALIB_INTER_EFFICIENCY ||
         p == HS_CALIB_IN_NETWORK_EFFICIENCY;
}

static void minimise_off_plateaus(stage *s) {
  minimise(s);
  int any = 0;
  for (int i = 0; i < s->dim; i++) any |= is_efficiency(s->params[i]);
  double loss_first = stage_loss(s->cases, s->n, s->intra), first[HS_CALIB_PARAMS];
  /* a fit that already reproduces every size (about 0.1% rms, where the
   * penalty is the square) is not a plateau's: nothing to try */
  if (!any || loss_first < 1e-6) return;
  for (int i = 0; i < s->dim; i++) {
    first[i] = *hs_calib_field(s->cases[0].sc, s->params[i]);
    if (is_efficiency(s->params[i]))
      set_all(s->cases, s->n, s->params[i], (ranges[s->params[i]].lo + ranges[s->params[i]].hi) / 2);
  }
  minimise(s);
  if (stage_loss(s->cases, s->n, s->intra) > 0.99 * loss_first)
    for (int i = 0; i < s->dim; i++) set_all(s->cases, s->n, s->params[i], first[i]);
}

/* The host-bound plateau of a stage's -g runs: the launch each of their
 * smallest times allows, the least of them (nccl-tests cannot run an
 * iteration in less than G launches, so no launch is larger). 0: none. */
static double launch_plateau(const stage *s) {
  double best = 0;
  for (int c = 0; c < s->n; c++) {
    const hs_nccltests_run *r = s->cases[c].run;
    int g = hs_nccltests_launching_gpus(r);
    if (!in_stage(&s->cases[c], s->intra) || g < 2) continue;
    for (int i = 0; i < r->n_rows; i++) {
      double l = r->rows[i].time_us * 1e-6 / g;
      if (l > 0 && (best == 0 || l < best)) best = l;
    }
  }
  return best;
}

/* A host-bound plateau can be read two ways: G launches, or the links'
 * latency added to every size. Both reproduce the smallest sizes, and a
 * simplex started from the scenario's launch can settle on the latency
 * (a 4 GPUs-a-thread table of a 6 µs launch fitted 1.3 µs and 0.6 µs of
 * NVLink latency, 22% off at 128 KiB). So where the launch is fitted the
 * simplex also starts from the plateau's launch, the other parameters as
 * they were, and that fit is kept where it is better by more than 1%. */
static void minimise_launch_aware(stage *s, int launch_here) {
  double plateau = launch_here ? launch_plateau(s) : 0;
  int has_launch = 0;
  for (int i = 0; i < s->dim; i++) has_launch |= s->params[i] == HS_CALIB_LAUNCH_OVERHEAD;
  if (!has_launch || plateau <= 0) {
    minimise_off_plateaus(s);
    return;
  }
  double start[HS_CALIB_PARAMS], first[HS_CALIB_PARAMS];
  for (int i = 0; i < s->dim; i++) start[i] = *hs_calib_field(s->cases[0].sc, s->params[i]);
  minimise_off_plateaus(s);
  double loss_first = stage_loss(s->cases, s->n, s->intra);
  for (int i = 0; i < s->dim; i++) {
    first[i] = *hs_calib_field(s->cases[0].sc, s->params[i]);
    double v = s->params[i] == HS_CALIB_LAUNCH_OVERHEAD ? plateau : start[i];
    v = v < ranges[s->params[i]].lo ? ranges[s->params[i]].lo : v > ranges[s->params[i]].hi ? ranges[s->params[i]].hi : v;
    set_all(s->cases, s->n, s->params[i], v);
  }
  minimise(s);
  /* Kept only where it fits clearly better: where the launch hides under
   * the collectives' own times at every size both starts fit alike, and
   * the first, from the scenario's values, moves them least. */
  if (stage_loss(s->cases, s->n, s->intra) > 0.99 * loss_first)
    for (int i = 0; i < s->dim; i++) set_all(s->cases, s->n, s->params[i], first[i]);
}

/* The launch's cost shows only where a thread drives several GPUs (the
 * host-bound floor, hs_nccltests_iteration); with one a thread it is
 * under NCCL's base latency, and moving it would only let it stand for
 * latencies that are the links'. So it is fitted in the first stage that
 * has such a run (the node's, else the fabric's), and in no other. */
static int launch_stage(const hs_calib_case *cases, int n) {
  for (int intra = 1; intra >= 0; intra--)
    for (int c = 0; c < n; c++)
      if (in_stage(&cases[c], intra) && hs_nccltests_launching_gpus(cases[c].run) > 1) return intra;
  return -1;
}

void hs_calib_fit(hs_calib_case *cases, int n, hs_calib_result out[HS_CALIB_PARAMS]) {
  for (int p = 0; p < HS_CALIB_PARAMS; p++) {
    out[p].key = hs_calib_key(cases[0].sc, (hs_calib_param)p);
    out[p].before = out[p].after = *hs_calib_field(cases[0].sc, (hs_calib_param)p);
    out[p].status = HS_CALIB_NO_DATA;
    out[p].at_bound = 0;
  }
  /* the node's links first, then the fabric with the node's held */
  int launch = launch_stage(cases, n);
  /* Runs forced through a fabric that reduces (CollNet) move every byte
   * across nodes at the NIC's rate times SHARP's share: the two scale the
   * same bytes, and only the share is theirs to fit. The NIC's own rate
   * comes from ring runs (calibrated first, their file then the
   * scenario's system). */
  const hs_scenario *sc0 = cases[0].sc;
  int through_fabric = sc0->cluster.in_network_reduction && sc0->sim.collectives == HS_COLL_COLLNET;
  for (int intra = 1; intra >= 0; intra--) {
    stage s = {cases, n, intra, 0, {0}};
    int any = 0;
    for (int c = 0; c < n; c++) any |= in_stage(&cases[c], intra);
    if (!any) continue;
    double base = stage_loss(cases, n, intra);
    for (int p = 0; p < HS_CALIB_PARAMS; p++) {
      if (p == HS_CALIB_LAUNCH_OVERHEAD ? launch != intra : ranges[p].intra != intra) continue;
      if (p == HS_CALIB_INTER_EFFICIENCY && through_fabric) {
        out[p].status = HS_CALIB_HELD;
        continue;
      }
      /* Without peer access the node's hops are staged in host memory
       * (all of them, or on a PCIe tree those NCCL's P2P level leaves
       * out, which bind a ring): what they reach is host.staging_bandwidth's,
       * not the PCIe link's share, which two parameters of one bound cannot
       * tell apart; with peer access nothing in the node is staged */
      int staged = hs_net_node_staged(&sc0->cluster);
      if ((p == HS_CALIB_INTRA_EFFICIENCY && staged) || (p == HS_CALIB_STAGING_BANDWIDTH && !staged)) {
        out[p].status = p == HS_CALIB_INTRA_EFFICIENCY ? HS_CALIB_HELD : HS_CALIB_NO_EFFECT;
        continue;
      }
      /* RDMA has no socket threads, and a TCP scenario that says 0 has
       * no bound: fitting one would add a limit the scenario does not
       * have */
      if (p == HS_CALIB_STREAM_BANDWIDTH &&
          (cases[0].sc->cluster.transport.kind != HS_NET_TCP || cases[0].sc->cluster.transport.stream_bandwidth <= 0)) {
        out[p].status = HS_CALIB_NO_EFFECT;
        continue;
      }
      /* Does any prediction depend on it? Moved a quarter of its range
       * each way, the loss must change. */
      double v = out[p].before, span = ranges[p].hi - ranges[p].lo, moved = 0;
      for (int side = -1; side <= 1; side += 2) {
        double w = v + side * 0.25 * span;
        w = w < ranges[p].lo ? ranges[p].lo : w > ranges[p].hi ? ranges[p].hi : w;
        set_all(cases, n, (hs_calib_param)p, w);
        moved = fmax(moved, fabs(stage_loss(cases, n, intra) - base));
      }
      set_all(cases, n, (hs_calib_param)p, v);
      if (moved > 1e-12 * (1 + base)) s.params[s.dim++] = (hs_calib_param)p;
      else out[p].status = HS_CALIB_NO_EFFECT;
    }
    if (s.dim) minimise_launch_aware(&s, launch == intra);
    for (int i = 0; i < s.dim; i++) {
      hs_calib_param p = s.params[i];
      double v = rounded(p, *hs_calib_field(cases[0].sc, p));
      set_all(cases, n, p, v);
      out[p].after = v;
      out[p].status = HS_CALIB_FITTED;
      double span = ranges[p].hi - ranges[p].lo;
      out[p].at_bound = v <= ranges[p].lo + 1e-3 * span || v >= ranges[p].hi - 1e-3 * span;
    }
  }
}
