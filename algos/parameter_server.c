/* parameter_server.c — sharded parameter server, synchronous or asynchronous.
 *
 * Servers are the world's last ranks (role HS_ROLE_SERVER), placed as
 * `placement` says (hs_server_layout):
 *   "gpus":      the last `servers` GPUs, which then do not train;
 *   "colocated": a CPU process on every GPU node (BytePS's summation
 *                service beside the workers; its bytes cross the node's
 *                PCIe to CPU memory, cluster.host.bandwidth);
 *   "machines":  `servers` CPU-only machines, each on a GPU node's NICs.
 * A CPU server's sums and updates run at the host's memory bandwidth
 * (cluster.host.memory_bandwidth), a GPU server's at the GPU's.
 *
 * Server j owns the j-th slice of every unit the workers exchange: the
 * whole model after backward, or (overlap = true, sync) each bucket as
 * soon as backward produced it, on the communication stream
 * (comm_stream.h), as BytePS pushes and pulls each partition while
 * backward goes on. The workers push each gradient slice to its server and
 * pull the slice's new weights back; pushes and pulls run on two copies
 * of the world, so the push of one unit and the pull of the one before
 * share the NICs, one each way (BytePS's stages, unit_start). With aggregate = true (sync) a node's
 * workers first sum their gradients onto the node's first worker (a reduce
 * over NVLink), which alone pushes and pulls, and broadcast the weights
 * back: BytePS's and MXNet's intra-node aggregation, which cuts the bytes
 * through the NIC by the node's GPU count. With update = "workers" (sync)
 * a server only averages and returns the average gradient, and every
 * worker takes the SGD step itself after the pull: BytePS's summation
 * service, which leaves the optimizer to the GPUs.
 *
 * With pcie_switch_size = k > 0 (aggregate, sync) the node's sum takes
 * BytePS's host path (byteps/common/operations.cc, GetPushQueueList;
 * BYTEPS_PCIE_SWITCH_SIZE): the workers reduce with NCCL inside groups of
 * k consecutive GPUs (a PCIe switch's), each group's first copies its sum
 * to host memory (COPYD2H: a transfer to the node's host aggregator, a CPU
 * process on the node), which adds the groups' copies at the host's
 * memory bandwidth (PCIE_REDUCE, when there are several), pushes and
 * pulls from host memory, and copies the answer back to each group's first
 * (COPYH2D), which broadcasts it in its group. A node of one group (k at
 * least its GPUs: BytePS's default 8 on an 8-GPU node) still pays the two
 * copies. With servers = 0 on the host path the aggregator returns the
 * node's average itself (BytePS on one machine across PCIe switches,
 * "non-distributed mode").
 *
 *   mode = "sync":  a server waits for every worker's shard, averages them
 *                   (in worker order), takes one SGD step and sends the
 *                   weights to all: bulk-synchronous SGD through servers.
 *   mode = "async": a server serves each worker on its own (one thread of
 *                   control per worker, a lock around the shard), applying
 *                   each push at once with lr / workers, so a slow worker
 *                   delays nobody. The run ends when the servers have
 *                   applied run.iterations x workers pushes; `staleness` > 0
 *                   bounds how many iterations a worker may lead the slowest
 *                   (stale-synchronous parallel).
 *
 * Bytes per pusher (a worker, or a node's first worker with aggregate) per
 * step: one model size up and, from the servers, one down (4 control bytes
 * per server and direction in async mode). The busiest link is the
 * servers': pushers x model / servers each way per step.
 *
 * This file is the workers' side, the roles and the options; the servers'
 * loops are in ps_server.c, the host aggregators' in ps_host.c, the state
 * they share in ps_state.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/ps_state.h"
#include "algos/train/sgd.h"

enum { PLACE_GPUS, PLACE_COLOCATED, PLACE_MACHINES };
static const char *const placements[] = {"gpus", "colocated", "machines", NULL};

static int placement(const hs_options *o) {
  const char *p = hs_opt_str(o, "placement");
  for (int i = 0; placements[i]; i++)
    if (strcmp(p, placements[i]) == 0) return i;
  return PLACE_GPUS;
}

/* BytePS's host path: a sync, aggregated run with groups of PCIe switches. */
static int host_path(const hs_options *o) {
  return strcmp(hs_opt_str(o, "mode"), "sync") == 0 && hs_opt_bool(o, "aggregate") &&
         hs_opt_int(o, "pcie_switch_size") > 0;
}

/* The CPU processes on a node: its server (colocated) first, then its
 * host aggregator (host path), the last of the node's. */
static void ps_layout(const hs_scenario *sc, hs_server_layout *out) {
  const hs_options *o = &sc->algorithm.options;
  int k = (int)hs_opt_int(o, "servers");
  switch (placement(o)) {
  case PLACE_GPUS: out->gpu_servers = k; break;
  case PLACE_COLOCATED: out->cpu_per_node = 1; break;
  case PLACE_MACHINES: out->server_machines = k; break;
  }
  if (host_path(o)) out->cpu_per_node++;
}

static const char *ps_validate(const hs_scenario *sc, char *msg, size_t len) {
  const hs_options *o = &sc->algorithm.options;
  int servers = (int)hs_opt_int(o, "servers"), n = hs_scenario_gpus(sc), where = placement(o);
  int sync = strcmp(hs_opt_str(o, "mode"), "sync") == 0;
  if (where == PLACE_GPUS && servers >= n) {
    snprintf(msg, len, "%d servers leave no worker among the scenario's %d GPUs", servers, n);
    return "servers";
  }
  if (hs_opt_int(o, "pcie_switch_size") > 0 && !hs_opt_bool(o, "aggregate")) {
    snprintf(msg, len, "the host's sum of a node's PCIe switches is a step of the node's aggregation: it needs "
             "aggregate = true");
    return "pcie_switch_size";
  }
  if (servers == 0 && !host_path(o)) {
    snprintf(msg, len, "no server to push to: servers = 0 is BytePS on one machine, its host summing the node's "
             "PCIe switches, which needs aggregate = true and pcie_switch_size > 0");
    return "servers";
  }
  if (servers == 0 && strcmp(hs_opt_str(o, "update"), "workers") != 0) {
    snprintf(msg, len, "with no server the host returns the average gradient and every worker steps: servers = 0 "
             "needs update = \"workers\"");
    return "update";
  }
  if (servers == 0 && sc->cluster.nodes > 1) {
    snprintf(msg, len, "with no server each of the %d nodes would average only its own GPUs: servers = 0 needs one "
             "node", sc->cluster.nodes);
    return "servers";
  }
  if (servers == 0 && where == PLACE_COLOCATED) {
    snprintf(msg, len, "placement = \"colocated\" puts one server on every node: servers = 0 needs placement = "
             "\"machines\" or \"gpus\"");
    return "servers";
  }
  if (where == PLACE_COLOCATED && servers != 1) {
    snprintf(msg, len, "placement = \"colocated\" puts one server on every node's CPU (%d); servers counts the GPUs "
             "or machines of the other placements: leave it out", sc->cluster.nodes);
    return "servers";
  }
  if (where == PLACE_MACHINES && servers > HS_NODES_MAX) {
    snprintf(msg, len, "%d server machines: at most %d", servers, HS_NODES_MAX);
    return "servers";
  }
  if (!sync && hs_opt_bool(o, "aggregate")) {
    snprintf(msg, len, "a node's first worker pushes for the node only when every worker steps together: "
             "aggregate needs mode = \"sync\"");
    return "aggregate";
  }
  if (!sync && strcmp(hs_opt_str(o, "update"), "workers") == 0) {
    snprintf(msg, len, "an asynchronous server applies each push as it comes: update = \"workers\" needs mode = "
             "\"sync\"");
    return "update";
  }
  if (hs_opt_bool(o, "pipeline") && (!sync || hs_opt_bool(o, "overlap"))) {
    snprintf(msg, len, "pipeline sends a synchronous step's buckets after backward; %s",
             sync ? "overlap already sends them as backward produces them: set one of the two"
                  : "it needs mode = \"sync\"");
    return "pipeline";
  }
  if (!sync && hs_opt_bool(o, "overlap")) {
    snprintf(msg, len, "an asynchronous worker exchanges its whole model after backward: overlap needs mode = "
             "\"sync\"");
    return "overlap";
  }
  return NULL;
}

/* Every rank's node: the scenario's at the start, and after a shrink
 * re-numbered the world, what each survivor says (one allgather). */
static int rank_nodes(ps_state *s, hs_worker *w, int *node) {
  if (s->ctx->restarts == 0) { /* the world as the scenario numbers it */
    for (int v = 0; v < w->size; v++) node[v] = hs_cluster_rank_node(&s->ctx->sc->cluster, v);
    return 0;
  }
  int mine = w->node;
  hs_request *q = NULL;
  int rc = hs_allgather(w, w->world, hs_buf_host(&mine, 1, HS_I32), hs_buf_host(node, (size_t)w->size, HS_I32), &q);
  return rc ? rc : hs_wait(w, &q);
}

/* The host aggregator of node n: the last of the node's CPU processes. */
static int aggregator_rank(const ps_state *s, int n) { return s->first_cpu + n * s->cpn + s->cpn - 1; }

/* Who is who. Failures take GPUs only, so the CPU processes stay the
 * world's last ranks in the scenario's order (scenario.h): each node's
 * (its colocated server, then its host aggregator), then the server
 * machines'. The GPU servers are the last GPUs. */
static void find_roles(ps_state *s, hs_worker *w, const hs_server_layout *lay) {
  const hs_cluster_spec *c = &s->ctx->sc->cluster;
  int cpn = lay->cpu_per_node, first_cpu = w->size - (c->nodes * cpn + lay->server_machines);
  s->cpn = cpn, s->first_cpu = first_cpu;
  s->servers = lay->gpu_servers + (placement(s->ctx->opt) == PLACE_COLOCATED ? c->nodes : 0) + lay->server_machines;
  s->workers = first_cpu - lay->gpu_servers;
  s->server_rank = calloc((size_t)s->servers + 1, sizeof *s->server_rank);
  for (int j = 0; j < s->servers; j++)
    s->server_rank[j] = lay->gpu_servers ? s->workers + j
                        : lay->server_machines ? first_cpu + c->nodes * cpn + j
                                               : first_cpu + j * cpn;
  s->cpu = w->rank >= first_cpu;
  s->aggregator = s->host && s->cpu && w->rank < first_cpu + c->nodes * cpn &&
                  w->rank == aggregator_rank(s, (w->rank - first_cpu) / cpn);
}

/* The world ranks that push (sync): every worker, with aggregate each
 * node's first, on the host path the aggregator of each node that has
 * workers (left). On the host path also this worker's group (its node's
 * workers cut in runs of pcie_switch_size, in *group) and whether it leads
 * it, and an aggregator's count of its node's groups. */
static int find_pushers(ps_state *s, hs_worker *w, int aggregate, int *node, int *group) {
  const hs_cluster_spec *c = &s->ctx->sc->cluster;
  int rc = rank_nodes(s, w, node), k = (int)hs_opt_int(s->ctx->opt, "pcie_switch_size");
  s->pushers = malloc((size_t)w->size * sizeof *s->pushers);
  *group = 0;
  for (int v = 0, local = 0; !rc && v < s->workers; v++) {
    local = v == 0 || node[v] != node[v - 1] ? 0 : local + 1;
    if (!s->host) {
      if (!aggregate || local == 0) s->pushers[s->n_pushers++] = v;
      continue;
    }
    if (v == w->rank) *group = local / k, s->group_root = local % k == 0;
    if (local % k == 0 && s->aggregator && node[v] == node[w->rank]) s->n_roots++;
  }
  for (int n = 0; !rc && s->host && n < c->nodes; n++) {
    int has_workers = 0;
    for (int v = 0; v < s->workers; v++) has_workers |= node[v] == n;
    if (has_workers) s->pushers[s->n_pushers++] = aggregator_rank(s, n);
  }
  for (int i = 0; i < s->n_pushers; i++) s->pusher |= s->pushers[i] == w->rank;
  return rc;
}

static void stream_unit(void *arg, int u);

static int ps_init(hs_algo_ctx *ctx) {
  ps_state *s = calloc(1, sizeof *s);
  ctx->state = s;
  s->ctx = ctx;
  hs_worker *w = ctx->w;
  hs_model *m = ctx->model;
  hs_server_layout lay;
  hs_algorithm_layout(ctx->sc, &lay);
  s->host = host_path(ctx->opt);
  find_roles(s, w, &lay);
  s->async = strcmp(hs_opt_str(ctx->opt, "mode"), "async") == 0;
  s->staleness = (int)hs_opt_int(ctx->opt, "staleness");
  s->overlap = hs_opt_bool(ctx->opt, "overlap");
  s->by_bucket = s->overlap || hs_opt_bool(ctx->opt, "pipeline");
  s->worker_update = !s->async && strcmp(hs_opt_str(ctx->opt, "update"), "workers") == 0;
  s->units = s->by_bucket ? m->n_buckets : 1;
  /* Everyone starts from the same weights: the servers' truth. After a
   * shrink they are the ones the survivors agreed on (algorithm.h), which
   * the servers' shards take over. */
  if (ctx->restarts == 0) hs_model_init_params(m, &ctx->sc->workload, ctx->sc->run.seed, 0);
  if (w->role == HS_ROLE_SERVER && !s->aggregator && !s->worker_update && m->params &&
      ctx->sc->workload.momentum > 0)
    s->momentum = calloc(m->n_params, sizeof(float)); /* its slices' entries are the ones used */
  if (w->role == HS_ROLE_WORKER && s->worker_update) s->momentum = hs_sgd_momentum_alloc(ctx);
  s->stopped_by = calloc((size_t)s->servers, sizeof *s->stopped_by);
  if (!s->async) {
    int *node = malloc((size_t)w->size * sizeof *node), group;
    int aggregate = hs_opt_bool(ctx->opt, "aggregate"), rc = find_pushers(s, w, aggregate, node, &group);
    /* a node's workers, or on the host path a group of them (colors apart
     * by node: a node has fewer groups than the world has ranks) */
    int mine = w->role == HS_ROLE_WORKER ? node[w->rank] * w->size + group : -1;
    if (!rc && aggregate) rc = hs_comm_split(w, w->world, mine, w->rank, &s->node);
    if (!rc && aggregate) rc = hs_comm_split(w, w->world, mine, w->rank, &s->node_bc);
    /* the host path's copies: a node's aggregator first, then its groups' firsts */
    int copies = s->aggregator || s->group_root ? node[w->rank] : -1, key = s->aggregator ? -1 : w->rank;
    if (!rc && s->host) rc = hs_comm_split(w, w->world, copies, key, &s->d2h_c);
    if (!rc && s->host) rc = hs_comm_split(w, w->world, copies, key, &s->h2d_c);
    free(node);
    if (!rc) rc = hs_comm_split(w, w->world, 0, w->rank, &s->push_c);
    if (!rc) rc = hs_comm_split(w, w->world, 0, w->rank, &s->pull_c);
    s->pushed = calloc((size_t)s->units, sizeof *s->pushed);
    s->pulled = calloc((size_t)s->units, sizeof *s->pulled);
    s->bcast = calloc((size_t)s->units, sizeof *s->bcast);
    if (!rc && s->by_bucket && w->role == HS_ROLE_WORKER &&
        !(s->stream = hs_comm_stream_start(w, m->n_buckets + 1))) /* the buckets and the drain */
      rc = HS_ENOMEM;
    s->ready = !rc;
    return rc;
  }
  s->pair = calloc((size_t)s->workers, sizeof *s->pair);
  for (int v = 0; v < s->workers; v++) {
    int member = w->rank == v || w->role == HS_ROLE_SERVER;
    int rc = hs_comm_split(w, w->world, member ? 0 : -1, w->rank, &s->pair[v]);
    if (rc) return rc;
  }
  s->ready = 1;
  return 0;
}

/* ---- worker side ----------------------------------------------------------- */

static int ps_keep_going(hs_algo_ctx *ctx) {
  ps_state *s = ctx->state;
  return s->async ? !s->stop : ctx->iteration < ctx->sc->run.iterations;
}

/* One unit of a synchronous step, in two halves so that units pipeline as
 * BytePS's stages do (its REDUCE, PUSH, PULL and BROADCAST queues each run
 * their own loop, byteps/common/core_loops.cc): unit_start (a node's
 * workers sum their gradients onto its first,) posts the pusher's slices
 * to the servers on push_c and the receives of their answers on pull_c,
 * and returns; unit_finish waits for the answers (and the node's first
 * posts their broadcast back, on a communicator of its own so that it
 * runs beside the later units' reduces). The stream starts unit u and then finishes unit
 * u - IN_FLIGHT, so later pushes share the NIC with earlier pulls, one
 * each way, and the node's reduce of u runs while both are on the wire.
 * BytePS bounds what is in flight by its scheduling credit (and ps-lite's
 * queues); IN_FLIGHT is ours: units of unequal size (a model's layers)
 * need a few out at once for the two ways to stay busy together. */
static int unit_start(ps_state *s, hs_worker *w, int u) {
  hs_model *m = s->ctx->model;
  size_t uo, ul;
  unit(s, u, &uo, &ul);
  float *back = s->worker_update ? m->grads : m->params; /* what the servers return */
  int rc = 0;
  if (s->node) {
    hs_request *q = NULL;
    hs_buf g = fbuf(m->grads, uo, ul);
    rc = hs_reduce(w, s->node, g, g, HS_SUM, 0, &q);
    rc = rc ? rc : hs_wait(w, &q);
  }
  if (!rc && s->group_root) { /* COPYD2H of the group's sum, and COPYH2D's answer posted first */
    hs_p2p d2h = {HS_P2P_SEND, 0, fbuf(m->grads, uo, ul)}, h2d = {HS_P2P_RECV, 0, fbuf(back, uo, ul)};
    rc = hs_group_p2p(w, s->h2d_c, &h2d, 1, &s->pulled[u]);
    rc = rc ? rc : hs_group_p2p(w, s->d2h_c, &d2h, 1, &s->pushed[u]);
  }
  if (!rc && s->pusher) {
    hs_p2p *push = calloc((size_t)s->servers, sizeof *push), *pull = calloc((size_t)s->servers, sizeof *pull);
    for (int j = 0; j < s->servers; j++) {
      size_t o, len;
      slice(s, u, j, &o, &len);
      push[j] = (hs_p2p){HS_P2P_SEND, s->server_rank[j], fbuf(m->grads, o, len)};
      pull[j] = (hs_p2p){HS_P2P_RECV, s->server_rank[j], fbuf(back, o, len)};
    }
    /* the answers are posted first: they can only come after the push */
    rc = hs_group_p2p(w, s->pull_c, pull, s->servers, &s->pulled[u]);
    rc = rc ? rc : hs_group_p2p(w, s->push_c, push, s->servers, &s->pushed[u]);
    free(push), free(pull);
  }
  return rc;
}

static int unit_finish(ps_state *s, hs_worker *w, int u) {
  hs_model *m = s->ctx->model;
  int rc = 0;
  if (s->pushed[u]) rc = hs_wait(w, &s->pushed[u]);
  if (s->pulled[u]) {
    int prc = hs_wait(w, &s->pulled[u]);
    rc = rc ? rc : prc;
  }
  if (!rc && !s->failed && s->node) {
    size_t uo, ul;
    unit(s, u, &uo, &ul);
    hs_buf p = fbuf(s->worker_update ? m->grads : m->params, uo, ul);
    rc = hs_broadcast(w, s->node_bc, p, p, 0, &s->bcast[u]);
  }
  return rc;
}

/* The units' broadcasts, which run on a communicator of their own beside
 * the next units' reduces (BytePS's REDUCE and BROADCAST queues each have
 * their NCCL communicators, byteps/common/nccl_manager.cc), are waited for
 * when the step needs the weights. */
static void wait_broadcasts(ps_state *s, hs_worker *w) {
  for (int u = 0; u < s->units; u++)
    if (s->bcast[u] && hs_wait(w, &s->bcast[u])) s->failed = 1;
}

/* Finishes the units out until at most `keep` are. */
static void drain(ps_state *s, hs_worker *w, int keep) {
  for (; s->next - s->first_out > keep; s->first_out++)
    if (unit_finish(s, w, s->first_out)) s->failed = 1;
}

static void stream_unit(void *arg, int u) {
  ps_state *s = arg;
  hs_worker *w = s->ctx->w;
  if (s->failed) return;
  int rc = unit_start(s, w, u);
  s->next = u + 1; /* what it posted is waited for, whatever failed */
  if (rc) s->failed = 1;
  drain(s, w, IN_FLIGHT);
}

static void stream_drain(void *arg, int u) {
  (void)u;
  ps_state *s = arg;
  drain(s, s->ctx->w, 0);
  wait_broadcasts(s, s->ctx->w);
}

static void ps_bucket_ready(hs_algo_ctx *ctx, int b) {
  ps_state *s = ctx->state;
  if (s->stream && s->overlap) hs_comm_stream_enqueue(s->stream, stream_unit, s, b);
}

/* Push every gradient shard, pull every weight shard. Asynchronously, a
 * control word (update) goes before the payload and one (stop?) comes back
 * after it, in calls of their own: a timing-only payload carries no data. */
static void ps_step(hs_algo_ctx *ctx) {
  ps_state *s = ctx->state;
  hs_worker *w = ctx->w;
  hs_model *m = ctx->model;
  if (!s->async) {
    if (s->stream) {
      /* pipeline: the buckets go now, in backward's order, through the
       * same stages as with overlap */
      for (int u = 0; !s->overlap && u < s->units; u++) hs_comm_stream_enqueue(s->stream, stream_unit, s, u);
      hs_comm_stream_enqueue(s->stream, stream_drain, s, 0);
      hs_comm_stream_sync(s->stream);
    } else {
      if (unit_start(s, w, 0)) s->failed = 1;
      s->next = 1;
    }
    drain(s, w, 0);
    wait_broadcasts(s, w);
    s->first_out = s->next = 0;
    s->failed = 0;
    if (s->worker_update) hs_sgd_step(ctx, m->grads, s->momentum); /* on the average the servers returned */
    return;
  }
  int S = s->servers;
  hs_comm *c = s->pair[w->rank];
  hs_p2p *payload = calloc((size_t)2 * S, sizeof *payload), *ctl = calloc((size_t)S, sizeof *ctl);
  float *words = calloc((size_t)2 * S, sizeof *words); /* S requests out (0: update), S replies in */
  for (int j = 0; j < S; j++) {
    int peer = 1 + j; /* in a pair communicator the worker is rank 0 */
    size_t o, len;
    slice(s, 0, j, &o, &len);
    payload[2 * j] = (hs_p2p){HS_P2P_SEND, peer, fbuf(m->grads, o, len)};
    payload[2 * j + 1] = (hs_p2p){HS_P2P_RECV, peer, fbuf(m->params, o, len)};
    ctl[j] = (hs_p2p){HS_P2P_SEND, peer, hs_buf_host(&words[j], 1, HS_F32)};
  }
  int failed = hs_group_p2p_wait(w, c, ctl, S);
  failed = failed || hs_group_p2p_wait(w, c, payload, 2 * S);
  if (!failed) {
    for (int j = 0; j < S; j++) ctl[j] = (hs_p2p){HS_P2P_RECV, 1 + j, hs_buf_host(&words[S + j], 1, HS_F32)};
    hs_group_p2p_wait(w, c, ctl, S);
    for (int j = 0; j < S; j++)
      if (words[S + j] != 0) s->stopped_by[j] = 1, s->stop = 1;
  }
  free(payload), free(ctl), free(words);
}

/* An asynchronous worker says goodbye to every server still serving it. */
static void worker_bye(ps_state *s, hs_worker *w) {
  float bye = CTL_BYE;
  for (int j = 0; j < s->servers; j++) {
    if (s->stopped_by[j]) continue;
    hs_p2p op = {HS_P2P_SEND, 1 + j, hs_buf_host(&bye, 1, HS_F32)};
    hs_group_p2p_wait(w, s->pair[w->rank], &op, 1);
  }
}

static void ps_serve(hs_algo_ctx *ctx) {
  ps_state *s = ctx->state;
  if (s->aggregator) hs_ps_serve_host(s, ctx->w);
  else if (s->async) hs_ps_serve_async(s, ctx->w);
  else hs_ps_serve_sync(s, ctx->w);
}

static void ps_finish(hs_algo_ctx *ctx) {
  ps_state *s = ctx->state;
  hs_worker *w = ctx->w;
  if (s->async && s->ready && w->role == HS_ROLE_WORKER) worker_bye(s, w);
  hs_comm_stream_stop(s->stream);
  if (s->node) hs_comm_free(w, s->node);
  if (s->node_bc) hs_comm_free(w, s->node_bc);
  if (s->d2h_c) hs_comm_free(w, s->d2h_c);
  if (s->h2d_c) hs_comm_free(w, s->h2d_c);
  if (s->push_c) hs_comm_free(w, s->push_c);
  if (s->pull_c) hs_comm_free(w, s->pull_c);
  free(s->pushed), free(s->pulled), free(s->bcast);
  free(s->pushers);
  if (s->pair)
    for (int v = 0; v < s->workers; v++)
      if (s->pair[v]) hs_comm_free(w, s->pair[v]);
  free(s->pair), free(s->server_rank), free(s->momentum), free(s->stopped_by), free(s->clock), free(s->links);
  free(s->gsum);
  free(s);
}

static const hs_option_spec ps_options[] = {
    {"placement", HS_OPT_STRING, "gpus", 0, "gpus|colocated|machines",
     "where servers run: the last GPUs, a CPU process on every node (BytePS), or CPU-only server machines"},
    {"servers", HS_OPT_INT, "1", 0, NULL,
     "servers (one shard each): the last GPUs, or server machines (0: none, one machine on the host path)"},
    {"aggregate", HS_OPT_BOOL, "false", 0, NULL,
     "sync: a node's workers sum onto its first, which alone pushes and pulls (BytePS, MXNet)"},
    {"update", HS_OPT_STRING, "server", 0, "server|workers",
     "sync: the servers take the SGD step and return weights, or only average and return the average gradient for "
     "every worker to step on (BytePS's summation service)"},
    {"pcie_switch_size", HS_OPT_INT, "0", 0, NULL,
     "sync, aggregate: BytePS's host path (BYTEPS_PCIE_SWITCH_SIZE): the node's GPUs reduce in groups of this many "
     "(a PCIe switch's), each group's sum is copied to host memory, summed on the CPU, pushed and pulled from there "
     "and copied back (0: the node's first GPU pushes its NCCL reduce)"},
    {"overlap", HS_OPT_BOOL, "false", 0, NULL,
     "sync: push and pull each bucket as soon as backward produced it, on the communication stream"},
    {"pipeline", HS_OPT_BOOL, "false", 0, NULL,
     "sync, without overlap: push and pull the buckets once backward is done, one after another through the "
     "same stages (BytePS's partitions when nothing overlaps backward); false: the whole model as one unit"},
    {"bucket_size", HS_OPT_BYTES, "4000KiB", 1, NULL,
     "overlap or pipeline: the buckets pushed, layers merged until one holds at least this much, each sliced over "
     "every server (the size of BytePS's BYTEPS_PARTITION_BYTES, 4096000; BytePS cuts each tensor into partitions "
     "of it and merges none: docs/algorithms.md)"},
    {"mode", HS_OPT_STRING, "sync", 0, "sync|async", "servers wait for every worker, or serve each as it comes"},
    {"staleness", HS_OPT_INT, "0", 0, NULL, "async: most iterations a worker may lead the slowest (0: unbounded)"},
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_parameter_server = {
    .name = "parameter_server",
    .summary = "sharded parameter servers on the last GPUs, every node's CPU or server machines; synchronous (per "
               "bucket, node-aggregated) or asynchronous with bounded staleness",
    .options = ps_options,
    .bucket_option = "bucket_size",
    .layout = ps_layout,
    .asynchronous = 1,
    .validate = ps_validate,
    .init = ps_init,
    .keep_going = ps_keep_going,
    .bucket_ready = ps_bucket_ready,
    .step = ps_step,
    .serve = ps_serve,
    .finish = ps_finish,
};
