/* watchdog.c — stops a simulation whose simulated time runs past its
 * bound, and says which key made it so slow.
 *
 * A bandwidth of 42 B/s or a latency of a day is representable, and a run
 * on such a cluster is valid, but its three iterations last simulated
 * centuries: the user meant 42 Gbps. Without a bound it runs on silently
 * (each SimGrid event is cheap, there are just very many, or the clock
 * jumps to a meaningless date). The bound is run.max_simulated_time, by
 * default a day of simulated time per iteration (docs/scenarios.md). */
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algos/algorithm.h"
#include "scenarios/gpu_spread.h"
#include "scenarios/links.h"
#include "scenarios/loader.h"
#include "scenarios/units.h"
#include "sim/guard.h"
#include "sim/sim_internal.h"

/* A day per iteration: no training step of any real system takes longer. */
#define HS_DEFAULT_SECONDS_PER_ITERATION 86400.0

double hs_sim_time_bound(const hs_scenario *sc) {
  if (sc->run.max_simulated_time > 0) return sc->run.max_simulated_time;
  return (double)hs_algorithm_max_iterations(sc) * HS_DEFAULT_SECONDS_PER_ITERATION;
}

/* The slowest of what one iteration must do at least, with the key that
 * sets it: compute at the GPU's speed, the model's bytes over the slowest
 * link (across nodes: a NIC, the GPUs' links of a node of several, a
 * GPU's PCIe link, a socket thread), the latencies of a ring over the
 * slowest link. */
/* hs_format_time stops at seconds; a bound is often days. */
static void format_long_time(double s, char *buf, size_t len) {
  if (s >= 2 * 86400.0) snprintf(buf, len, "%.3g days", s / 86400.0);
  else hs_format_time(s, buf, len);
}

/* The lowest of the GPUs' speed factors (hs_links_speed_factor's: the
 * spread times the gpu_speed entries), in O(GPUs + entries x GPUs a node). */
static double slowest_gpu_factor(const hs_cluster_spec *c) {
  int n = c->nodes * c->gpus_per_node;
  double *f = malloc((size_t)(n > 0 ? n : 1) * sizeof *f), slowest = 1;
  if (!f) return hs_gpu_spread_slowest(c); /* out of memory: the spread alone */
  hs_links_speed_products(c, f);
  for (int g = 0; g < n; g++) {
    double v = f[g] * hs_gpu_spread_factor(c, g);
    slowest = g == 0 || v < slowest ? v : slowest;
  }
  free(f);
  return slowest;
}

static const char *explain(const hs_scenario *sc, char *buf, size_t len, double *per_iteration) {
  const hs_cluster_spec *c = &sc->cluster;
  const hs_workload_spec *w = &sc->workload;
  double flops = 0, bytes = 0;
  for (int l = 0; l < w->n_layers; l++) {
    flops += (w->layers[l].fwd_flops + w->layers[l].bwd_flops) * w->batch * w->accumulation_steps;
    bytes += w->layers[l].params * w->dtype_bytes;
  }
  /* the slowest GPU paces a step: its spread times every gpu_speed entry
   * naming it or its node, which multiply (scripts/fuzz, seed 4444, case
   * 2362: a thousand entries of 0.5 on one GPU, estimated at 0.5) */
  double slowest_factor = slowest_gpu_factor(c);
  double compute = flops / (c->gpu_flops * c->gpu_efficiency * slowest_factor);
  int n = hs_scenario_gpus(sc);
  int inter = c->nodes > 1;
  const hs_link_spec *link = inter ? &c->inter : &c->intra;
  double bw = link->bandwidth, lat = link->latency;
  const char *bw_key = inter ? "cluster.inter.bandwidth" : "cluster.intra.bandwidth";
  const char *lat_key = inter ? "cluster.inter.latency" : "cluster.intra.latency";
  /* a ring over several nodes of several GPUs crosses the GPUs' links as
   * well as the NICs: the slower of the two binds (scripts/fuzz: 42 B/s
   * GPU links on 16 nodes, called stuck by an estimate of the NICs alone) */
  if (inter && c->gpus_per_node > 1) {
    if (c->intra.bandwidth > 0 && c->intra.bandwidth < bw) bw = c->intra.bandwidth, bw_key = "cluster.intra.bandwidth";
    if (c->intra.latency > lat) lat = c->intra.latency, lat_key = "cluster.intra.latency";
  }
  for (int i = 0; i < c->n_overrides; i++) {
    const hs_net_override *o = &c->overrides[i];
    if (o->inter.bandwidth > 0 && inter && o->inter.bandwidth < bw) bw = o->inter.bandwidth, bw_key = "cluster.overrides";
    if (o->inter.latency > lat && inter) lat = o->inter.latency, lat_key = "cluster.overrides";
    if (c->gpus_per_node > 1 && o->intra.bandwidth > 0 && o->intra.bandwidth < bw)
      bw = o->intra.bandwidth, bw_key = "cluster.overrides";
    if (c->gpus_per_node > 1 && o->intra.latency > lat) lat = o->intra.latency, lat_key = "cluster.overrides";
  }
  /* what else every flow across nodes goes through (net_transport.h) */
  if (inter && c->gpu_pcie_bandwidth > 0 && c->gpu_pcie_bandwidth < bw)
    bw = c->gpu_pcie_bandwidth, bw_key = "cluster.gpu.pcie_bandwidth";
  if (inter && c->transport.stream_bandwidth > 0 && c->transport.stream_bandwidth < bw)
    bw = c->transport.stream_bandwidth, bw_key = "cluster.inter.stream_bandwidth";
  /* a PCIe tree's socket link, which a ring over the node's GPUs crosses */
  if (c->sockets > 1 && c->socket_bandwidth < bw) bw = c->socket_bandwidth, bw_key = "cluster.intra.socket_bandwidth";
  double transfer = n > 1 ? 2 * bytes / bw : 0;
  double latency = n > 1 ? 2.0 * (n - 1) * lat : 0;
  *per_iteration = compute > transfer ? (compute > latency ? compute : latency) : (transfer > latency ? transfer : latency);
  char t[32], v[32];
  const char *key;
  if (compute >= transfer && compute >= latency && slowest_factor < hs_gpu_spread_slowest(c)) {
    /* the gpu_speed entries, not the GPU's FLOPs, make the slowest GPU */
    format_long_time(compute, t, sizeof t);
    snprintf(buf, len, "cluster.gpu_speed: its factors leave the slowest GPU %.3g of its speed, and one iteration "
             "computes for %s", slowest_factor, t);
    key = "cluster.gpu_speed";
  } else if (compute >= transfer && compute >= latency) {
    format_long_time(compute, t, sizeof t);
    snprintf(buf, len, "cluster.gpu.flops = %.3g flop/s (efficiency %g): one iteration computes for %s", c->gpu_flops,
             c->gpu_efficiency, t);
    key = "cluster.gpu.flops";
  } else if (transfer >= latency) {
    format_long_time(transfer, t, sizeof t);
    hs_format_bandwidth(bw, v, sizeof v);
    snprintf(buf, len, "%s = %s: moving the model's gradients across it takes %s per iteration", bw_key, v, t);
    key = bw_key;
  } else {
    format_long_time(lat, v, sizeof v);
    format_long_time(latency, t, sizeof t);
    snprintf(buf, len, "%s = %s: a ring over %d GPUs pays it %d times, %s per iteration", lat_key, v, n,
             2 * (n - 1), t);
    key = lat_key;
  }
  if (sc->stragglers.n > 0 || sc->stragglers.fn)
    snprintf(buf + strlen(buf), len - strlen(buf), "; or the stragglers { } slowdowns");
  /* A bound the scenario set is the first thing to name. */
  return sc->run.max_simulated_time > 0 ? "run.max_simulated_time" : key;
}

/* What the cluster makes an iteration take at least (explain's estimate)
 * cannot account for the bound passing: 10^4 times under it, with nothing
 * the estimate leaves out (stragglers' slowdowns, network { } events, a
 * bound the scenario set). The simulation is then stuck, not slow: every
 * such run found so far was a deadlock in hearsay (an actor left waiting
 * after a failure), which the old message blamed on the network. */
static int stuck_given(const hs_scenario *sc, double per_iteration) {
  if (sc->run.max_simulated_time > 0 || sc->network.n > 0 || sc->stragglers.n > 0 || sc->stragglers.fn) return 0;
  return per_iteration * (double)hs_algorithm_max_iterations(sc) * 1e4 < hs_sim_time_bound(sc);
}

int hs_sim_watchdog_stuck(const hs_scenario *sc) {
  char why[512];
  double per_iteration = 0;
  explain(sc, why, sizeof why, &per_iteration);
  return stuck_given(sc, per_iteration);
}

static void watch(int argc, char **argv) {
  (void)argc;
  (void)argv;
  sim_world *w = sg_actor_self_get_data();
  const hs_scenario *sc = w->sc;
  double bound = hs_sim_time_bound(sc);
  sg_actor_sleep_for(bound);
  char why[512], b[32];
  double per_iteration = 0;
  const char *cause_key = explain(sc, why, sizeof why, &per_iteration);
  format_long_time(bound, b, sizeof b);
  if (stuck_given(sc, per_iteration)) {
    char t[32];
    format_long_time(per_iteration, t, sizeof t);
    fprintf(stderr,
            "hearsay: the simulated time passed %s before the run ended, where this cluster makes an iteration take "
            "about %s: the simulation is stuck, not slow. This is a bug in hearsay, not in the scenario; please report "
            "it with the scenario and the command line (HS_SIMGRID_LOG=info lists the actors left waiting).\n",
            b, t);
    fflush(NULL);
    _exit(HS_GUARD_CRASHED);
  }
  /* Named where the key that most likely made it so was set. */
  char where[HS_PATH_MAX + 256];
  hs_scenario_where(sc, cause_key, where, sizeof where);
  fprintf(stderr,
          "%s: the simulated time passed %s (%s) before the run ended; stopped. The likely cause: %s. "
          "Check the units (42 is 42 B/s, \"42Gbps\" is 42 Gbit/s), or raise run.max_simulated_time.\n",
          where, b, sc->run.max_simulated_time > 0 ? "run.max_simulated_time" : "a day per iteration", why);
  fflush(NULL);
  /* The simulation cannot be unwound from here; the command's guard sees
   * the exit code and leaves the output folder as it was. */
  _exit(HS_SCENARIO_EBAD);
}

void hs_sim_start_watchdog(sim_world *w) {
  sg_actor_t a = sg_actor_init("watchdog", sg_host_by_name("gpu0"));
  sg_actor_set_data(a, w);
  sg_actor_start_(a, watch, 0, NULL);
  sg_actor_daemonize(a); /* the simulation ends with the ranks, not with it */
}
