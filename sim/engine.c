/* engine.c — starts SimGrid for a scenario and runs one actor per GPU. */
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algos/comm/protocol.h"
#include "sim/sim.h"
#include "sim/platform.h"
#include "sim/sg_latency.h"
#include "sim/sim_internal.h"

typedef struct {
  sim_rank *rank;
  const hs_sim_config *cfg;
} rank_boot;

static void rank_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  rank_boot *b = sg_actor_self_get_data();
  b->cfg->main(&b->rank->w, b->cfg->arg);
  hs_sim_rank_finished(b->rank);
  /* After a failure, messages of dead ranks may still be on the wire. The
   * simulation ends (and kills the dead ranks' daemonized actors) when the
   * last rank returns: let those messages land first, or their receivers
   * would see the transfers cancelled. */
  sim_world *w = b->rank->world;
  while (w->epoch > 0 && w->pending) sg_actor_sleep_for(1e-6);
  /* Ended: a later failure of this rank's node must not daemonize it. */
  hs_sim_untrack_actor(b->rank, sg_actor_self());
}

/* What the simulator can run for this scenario: every operation's
 * messages, and timed collectives when its model is the one fast
 * reproduces, plain max-min sharing: CM02 with SimGrid's latency weights
 * reset (sg_latency.h). LV08 weighs flows by their latency and its weight
 * S, crosstraffic adds reverse flows, SMPI has piecewise factors:
 * those keep every message. So do links that change under a cached
 * schedule (failures, network events). Whether to time is the selector's
 * choice (algos/comm/select.c). */
static hs_offer sim_offer(const hs_scenario *sc) {
  int model = strcmp(sc->sim.network_model, "CM02") == 0 && !sc->sim.crosstraffic;
  int timed = model && sc->failures.n == 0 && sc->network.n == 0;
  hs_offer o = {.engines = 1u << HS_ENGINE_MESSAGES | (timed ? 1u << HS_ENGINE_TIMED : 0)};
  /* Reducing switches (platform.c) serve collectives as participants of
   * their own, which a failure cannot complete for them: not with failures. */
  o.switches = (sc->cluster.nvls || sc->cluster.in_network_reduction) && sc->failures.n == 0;
  return o;
}

/* The platform's hosts by what they are, in one pass over SimGrid's list:
 * SimGrid 3.32 finds a host by name by walking every zone, which over
 * 2048 nodes made the ranks' lookups alone cost seconds. gpu[r] for rank
 * r, nvswitch[k] for node k's switch (platform.c), *fabric the fabric's;
 * NULL where the platform has none. */
static void find_hosts(int n, int nodes, sg_host_t *gpu, sg_host_t *nvswitch, sg_host_t *fabric) {
  size_t count = sg_host_count();
  sg_host_t *all = sg_host_list();
  *fabric = NULL;
  for (size_t i = 0; i < count; i++) {
    const char *name = sg_host_get_name(all[i]);
    int id, end = 0;
    if ((sscanf(name, "gpu%d%n", &id, &end) == 1 || sscanf(name, "cpu%d%n", &id, &end) == 1) && name[end] == '\0' &&
        id >= 0 && id < n)
      gpu[id] = all[i]; /* a rank's host: its GPU, or its CPU process's */
    else if (sscanf(name, "node%d_nvswitch%n", &id, &end) == 1 && name[end] == '\0' && id >= 0 && id < nodes)
      nvswitch[id] = all[i];
    else if (strcmp(name, "fabric_sharp") == 0) *fabric = all[i];
  }
  free(all); /* xbt_malloc is malloc */
}

void hs_sim_route(const hs_worker *w, int a, int b, double *latency, double *bandwidth) {
  const sim_rank *self = w->impl;
  sg_host_t ha = self->world->ranks[a].host, hb = self->world->ranks[b].host;
  /* One route computation, not one per figure: the sum of its links'
   * latencies and the least of their bandwidths, as SimGrid's own
   * route_latency and route_bandwidth compute them. */
  xbt_dynar_t route = xbt_dynar_new(sizeof(sg_link_t), NULL);
  sg_host_get_route(ha, hb, route);
  *latency = 0;
  *bandwidth = INFINITY;
  for (unsigned long i = 0; i < xbt_dynar_length(route); i++) {
    sg_link_t l = xbt_dynar_get_as(route, i, sg_link_t);
    *latency += sg_link_get_latency(l);
    if (sg_link_get_bandwidth(l) < *bandwidth) *bandwidth = sg_link_get_bandwidth(l);
  }
  xbt_dynar_free(&route);
}

const char *hs_sim_fidelity(const hs_scenario *sc, int n) {
  return hs_select_timed(sc, n, sim_offer(sc).engines) ? "fast" : "step";
}

static double wall_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int hs_sim_run(const hs_sim_config *cfg, hs_sim_stats *stats) {
  const hs_scenario *sc = cfg->sc;
  if (stats) memset(stats, 0, sizeof *stats);
  const hs_sim_spec *sp = &sc->sim;
  /* The network model is the scenario's, never a hidden default. SimGrid's
   * own chatter about configuration changes is silenced. */
  char a[10][128];
  int argc = 0;
  snprintf(a[argc++], sizeof a[0], "hearsay");
  snprintf(a[argc++], sizeof a[0], "--cfg=network/model:%s", sp->network_model);
  snprintf(a[argc++], sizeof a[0], "--cfg=network/crosstraffic:%d", sp->crosstraffic ? 1 : 0);
  /* No TCP window (tcp_gamma 0) is a window too large to bind, not 0:
   * SimGrid 3.32 bounds a flow that has a rate of its own (sg_rate.h) at
   * min(rate, gamma / 2 latency), so gamma 0 would unbound it. */
  snprintf(a[argc++], sizeof a[0], "--cfg=network/TCP-gamma:%.17g", sp->tcp_gamma > 0 ? sp->tcp_gamma : 1e30);
  snprintf(a[argc++], sizeof a[0], "--cfg=contexts/stack-size:%ld", (long)(sp->stack_size / 1024));
  /* HS_SIMGRID_LOG=info brings SimGrid's voice back, e.g. the list of
   * blocked actors when it detects a deadlock. */
  const char *log = getenv("HS_SIMGRID_LOG");
  snprintf(a[argc++], sizeof a[0], "--log=root.thres:%.32s", log && *log ? log : "warning");
  /* 0 keeps the model's own factors (LV08: 13.01 and 0.97; CM02: 1 and 1).
   * Under CM02 and LV08 the latency factor goes through the callback that
   * lets a connection's messages pay their latency after their bytes
   * (sg_latency.h), which SimGrid will not mix with a configured one. */
  int latency_hook = strcmp(sp->network_model, "CM02") == 0 || strcmp(sp->network_model, "LV08") == 0;
  if (sp->latency_factor > 0 && !latency_hook)
    snprintf(a[argc++], sizeof a[0], "--cfg=network/latency-factor:%.17g", sp->latency_factor);
  if (sp->bandwidth_factor > 0)
    snprintf(a[argc++], sizeof a[0], "--cfg=network/bandwidth-factor:%.17g", sp->bandwidth_factor);
  /* HS_SIMGRID_CFG=key:value passes one more SimGrid option, for trying
   * SimGrid's knobs (docs/development.md); results then differ from the
   * scenario's own. */
  const char *extra = getenv("HS_SIMGRID_CFG");
  if (extra && *extra) snprintf(a[argc++], sizeof a[0], "--cfg=%.120s", extra);
  char *argv[11];
  for (int i = 0; i < argc; i++) argv[i] = a[i];
  argv[argc] = NULL;
  simgrid_init(&argc, argv);
  simgrid_load_platform(cfg->platform_file);
  double latency_factor = 1;
  /* Under CM02 every flow weighs the same in max-min sharing, as fast
   * shares (sg_latency.h): NVLink's, PCIe's and InfiniBand's arbiters serve
   * flows alike whatever their route's latency. */
  int fair = strcmp(sp->network_model, "CM02") == 0;
  int fifo = latency_hook && hs_sg_latency_hook_install(sp->latency_factor, fair, &latency_factor);
  /* Read: a temporary platform goes now, so no crash or kill later can
   * leave it behind in /tmp. */

  int n = cfg->n_ranks > 0 && cfg->n_ranks < hs_scenario_ranks(sc) ? cfg->n_ranks : hs_scenario_ranks(sc);
  sim_world *w = calloc(1, sizeof *w);
  w->sc = sc;
  w->n = n;
  w->gpus_per_node = sc->cluster.gpus_per_node;
  w->next_ctx = 1;
  w->offer = sim_offer(sc);
  w->channels = hs_channels_of(sc);
  w->fifo_connections = fifo;
  w->latency_factor = latency_factor;
  w->ranks = calloc(n, sizeof *w->ranks);
  int nodes = sc->cluster.nodes;
  sg_host_t *gpu = calloc((size_t)n, sizeof *gpu), *nvswitch = calloc((size_t)nodes, sizeof *nvswitch), fabric;
  find_hosts(n, nodes, gpu, nvswitch, &fabric);
  hs_sim_switches_init(w, nvswitch, fabric);
  free(nvswitch);
  sim_members *all = malloc(sizeof *all + n * sizeof(int));
  all->plan = NULL;
  all->host_side = 0;
  all->cache = NULL;
  all->refs = 0;
  all->n = n;
  for (int r = 0; r < n; r++) all->ranks[r] = r;

  rank_boot *boots = calloc(n, sizeof *boots);
  for (int r = 0; r < n; r++) {
    sim_rank *sr = &w->ranks[r];
    sr->host = gpu[r];
    sr->sm_levels = hs_cluster_rank_is_cpu(&sc->cluster, r) ? 0 : hs_platform_sm_levels(&sc->cluster);
    sr->world = w;
    sr->w.be = &hs_sim_backend;
    sr->w.impl = sr;
    sr->w.rank = r;
    sr->w.size = n;
    sr->w.role = HS_ROLE_WORKER;
    sr->w.gpus_per_node = sc->cluster.gpus_per_node;
    sr->w.node = hs_cluster_rank_node(&sc->cluster, r);
    /* a CPU process counts after its node's GPUs */
    sr->w.local_rank = hs_cluster_rank_is_cpu(&sc->cluster, r) ? sc->cluster.gpus_per_node
                                                                : r % sc->cluster.gpus_per_node;
    sr->w.trace = cfg->trace;
    sr->w.world = hs_sim_comm_world(sr, all);
    boots[r].rank = sr;
    boots[r].cfg = cfg;
    char name[32];
    snprintf(name, sizeof name, "rank%d", r);
    sg_actor_t act = sg_actor_init(name, sr->host);
    sg_actor_set_data(act, &boots[r]);
    sg_actor_start_(act, rank_main, 0, NULL);
    hs_sim_track_actor(sr, act);
  }
  free(gpu);
  w->stats = stats;
  /* Operations may skip their stream actor unless a failure could strike:
   * failures.c must find every exchange under way (stream.c).
   * HS_SIM_STREAM_ACTORS=1 sends every operation through its actor, the
   * general way, which the direct ways must match (test_direct_streams). */
  const char *actors = getenv("HS_SIM_STREAM_ACTORS");
  w->direct = sc->failures.n == 0 && !(actors && strcmp(actors, "1") == 0);
  hs_sim_start_failures(w);
  hs_sim_start_background(sc);
  hs_sim_start_watchdog(w);
  double t0 = wall_seconds();
  simgrid_run();
  if (stats) {
    /* Failure fields were filled while it ran. */
    stats->simulated_time = simgrid_get_clock();
    stats->wall_time = wall_seconds() - t0;
    stats->messages = w->messages;
    stats->fast_collectives = w->fast_collectives;
    stats->by_messages = w->by_messages;
    memcpy(stats->collectives, w->collectives, sizeof stats->collectives);
    memcpy(stats->protocols, w->protocols, sizeof stats->protocols);
    memcpy(stats->unmodelled, w->unmodelled, sizeof stats->unmodelled);
    stats->actors = w->actors;
    memcpy(stats->nic_sent, w->nic_sent, sizeof stats->nic_sent);
  }
  return 0;
}
