/* parameter_server.c — sharded parameter server, synchronous or asynchronous.
 *
 * The last `servers` ranks are servers (role HS_ROLE_SERVER); server j owns
 * the j-th contiguous shard of the weights and its momentum. The other
 * ranks are workers: after backward a worker pushes each gradient shard to
 * its server and pulls the shard's new weights back.
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
 * Bytes per worker per step: one model size up and, from the servers, one
 * down (4 control bytes per server and direction in async mode). The busiest
 * link is the servers': workers x model / servers each way per step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "algos/train/gpu_kernel.h"
#include "algos/train/sgd.h"

#define STALENESS_POLL 50e-6 /* s between two checks of the staleness bound */

enum { CTL_UPDATE = 0, CTL_BYE = 1 };

typedef struct ps_state ps_state;

typedef struct { /* one worker as seen by an asynchronous server */
  ps_state *s;
  int worker;
  hs_thread *thread;
  float *grad, *out; /* shard-sized buffers */
} ps_link;

struct ps_state {
  hs_algo_ctx *ctx;
  int servers, workers, async, staleness;
  size_t *off;        /* servers + 1 shard boundaries */
  hs_comm **pair;     /* async: per worker, {worker, servers}; a worker keeps its own */
  float *momentum;    /* servers: their shard's; workers: unused */
  /* worker side */
  int *stopped_by;    /* async: which servers said stop */
  int stop;
  /* server side */
  hs_mutex *lock;
  long applied;
  long *clock;        /* async: pushes applied per worker */
  ps_link *links;
  float *gsum;        /* sync: workers x shard */
};

static size_t shard(const ps_state *s, int j) { return s->off[j + 1] - s->off[j]; }
static int my_server(const ps_state *s, const hs_worker *w) { return w->rank - s->workers; }
static hs_buf fbuf(float *base, size_t offset, size_t count) {
  return base ? hs_buf_host(base + offset, count, HS_F32) : hs_buf_virtual(count, HS_F32);
}

static const char *ps_validate(const hs_scenario *sc, char *msg, size_t len) {
  int servers = (int)hs_opt_int(&sc->algorithm.options, "servers"), n = hs_scenario_gpus(sc);
  if (servers >= n) {
    snprintf(msg, len, "%d servers leave no worker among the scenario's %d GPUs", servers, n);
    return "servers";
  }
  return NULL;
}

static int ps_init(hs_algo_ctx *ctx) {
  ps_state *s = calloc(1, sizeof *s);
  ctx->state = s;
  s->ctx = ctx;
  hs_worker *w = ctx->w;
  hs_model *m = ctx->model;
  s->servers = (int)hs_opt_int(ctx->opt, "servers");
  s->workers = w->size - s->servers;
  s->async = strcmp(hs_opt_str(ctx->opt, "mode"), "async") == 0;
  s->staleness = (int)hs_opt_int(ctx->opt, "staleness");
  s->off = malloc((size_t)(s->servers + 1) * sizeof *s->off);
  for (int j = 0; j <= s->servers; j++) s->off[j] = m->n_params * (size_t)j / (size_t)s->servers;
  /* Everyone starts from the same weights: the servers' truth. After a
   * shrink they are the ones the survivors agreed on (algorithm.h), which
   * the servers' shards take over. */
  if (ctx->restarts == 0) hs_model_init_params(m, &ctx->sc->workload, ctx->sc->run.seed, 0);
  if (w->role == HS_ROLE_SERVER && m->params && ctx->sc->workload.momentum > 0)
    s->momentum = calloc(shard(s, my_server(s, w)), sizeof(float));
  s->stopped_by = calloc((size_t)s->servers, sizeof *s->stopped_by);
  if (!s->async) return 0;
  s->pair = calloc((size_t)s->workers, sizeof *s->pair);
  for (int v = 0; v < s->workers; v++) {
    int member = w->rank == v || w->role == HS_ROLE_SERVER;
    int rc = hs_comm_split(w, w->world, member ? 0 : -1, w->rank, &s->pair[v]);
    if (rc) return rc;
  }
  return 0;
}

/* ---- worker side ----------------------------------------------------------- */

static int ps_keep_going(hs_algo_ctx *ctx) {
  ps_state *s = ctx->state;
  return s->async ? !s->stop : ctx->iteration < ctx->sc->run.iterations;
}

/* Posts ops[0..n) on c and waits; HS_EPEER when a failure struck (the
 * training loop then re-forms the job over the survivors). */
static int exchange(hs_worker *w, hs_comm *c, const hs_p2p *ops, int n) {
  hs_request *r = NULL;
  int rc = hs_group_p2p(w, c, ops, n, &r);
  int wrc = hs_wait(w, &r);
  return rc ? rc : wrc;
}

/* Push every gradient shard, pull every weight shard. Asynchronously, a
 * control word (update) goes before the payload and one (stop?) comes back
 * after it, in calls of their own: a timing-only payload carries no data. */
static void ps_step(hs_algo_ctx *ctx) {
  ps_state *s = ctx->state;
  hs_worker *w = ctx->w;
  hs_model *m = ctx->model;
  int S = s->servers;
  hs_comm *c = s->async ? s->pair[w->rank] : w->world;
  hs_p2p *payload = calloc((size_t)2 * S, sizeof *payload), *ctl = calloc((size_t)S, sizeof *ctl);
  float *words = calloc((size_t)2 * S, sizeof *words); /* S requests out (0: update), S replies in */
  for (int j = 0; j < S; j++) {
    int peer = s->async ? 1 + j : s->workers + j; /* in a pair communicator the worker is rank 0 */
    payload[2 * j] = (hs_p2p){HS_P2P_SEND, peer, fbuf(m->grads, s->off[j], shard(s, j))};
    payload[2 * j + 1] = (hs_p2p){HS_P2P_RECV, peer, fbuf(m->params, s->off[j], shard(s, j))};
    ctl[j] = (hs_p2p){HS_P2P_SEND, peer, hs_buf_host(&words[j], 1, HS_F32)};
  }
  int failed = s->async && exchange(w, c, ctl, S);
  failed = failed || exchange(w, c, payload, 2 * S);
  if (s->async && !failed) {
    for (int j = 0; j < S; j++) ctl[j] = (hs_p2p){HS_P2P_RECV, 1 + j, hs_buf_host(&words[S + j], 1, HS_F32)};
    exchange(w, c, ctl, S);
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
    exchange(w, s->pair[w->rank], &op, 1);
  }
}

/* ---- server side ----------------------------------------------------------- */

static void apply(ps_state *s, hs_worker *w, const float *grad, float lr) {
  hs_model *m = s->ctx->model;
  const hs_workload_spec *wl = &s->ctx->sc->workload;
  /* the optimizer on the server's shard: 12 or 20 bytes a parameter (sgd.h) */
  hs_gpu_busy(w, hs_gpu_kernel_seconds(&s->ctx->sc->cluster,
                                       (double)shard(s, my_server(s, w)) * (wl->momentum > 0 ? 20 : 12), 1));
  if (!m->params) return;
  size_t o = s->off[my_server(s, w)];
  hs_k_sgd_momentum_f32(m->params + o, grad, s->momentum, shard(s, my_server(s, w)), lr, (float)wl->momentum,
                        (float)wl->weight_decay);
}

static void serve_sync(ps_state *s, hs_worker *w) {
  hs_model *m = s->ctx->model;
  int me = my_server(s, w), W = s->workers;
  size_t len = shard(s, me), o = s->off[me];
  hs_p2p *ops = calloc((size_t)W, sizeof *ops);
  if (m->params) s->gsum = malloc((size_t)W * len * sizeof(float));
  float *avg = m->params ? malloc(len * sizeof(float)) : NULL;
  /* After a failure the survivors resume at ctx->iteration. */
  for (int it = s->ctx->iteration; it < s->ctx->sc->run.iterations; it++) {
    for (int v = 0; v < W; v++) ops[v] = (hs_p2p){HS_P2P_RECV, v, fbuf(s->gsum, (size_t)v * len, len)};
    if (exchange(w, w->world, ops, W)) break;
    /* the average of the W pushes: read each, write the average */
    hs_gpu_busy(w, hs_gpu_kernel_seconds(&s->ctx->sc->cluster, 4.0 * (W + 1) * (double)len, 2));
    if (avg) {
      memcpy(avg, s->gsum, len * sizeof(float));
      for (int v = 1; v < W; v++) hs_k_axpy_f32(avg, s->gsum + (size_t)v * len, 1.0f, len);
      hs_k_divide(HS_K_F32, avg, len, W);
    }
    apply(s, w, avg, (float)s->ctx->sc->workload.lr);
    for (int v = 0; v < W; v++) ops[v] = (hs_p2p){HS_P2P_SEND, v, fbuf(m->params, o, len)};
    exchange(w, w->world, ops, W);
  }
  free(ops);
  free(avg);
}

static long slowest_clock(ps_state *s) {
  long min = -1;
  for (int v = 0; v < s->workers; v++)
    if (s->clock[v] >= 0 && (min < 0 || s->clock[v] < min)) min = s->clock[v];
  return min;
}

static void serve_worker(void *arg) {
  ps_link *l = arg;
  ps_state *s = l->s;
  hs_worker *w = s->ctx->w;
  hs_model *m = s->ctx->model;
  hs_comm *c = s->pair[l->worker];
  int me = my_server(s, w);
  size_t len = shard(s, me), o = s->off[me];
  long budget = (long)(s->ctx->sc->run.iterations - s->ctx->iteration) * s->workers;
  float lr = (float)(s->ctx->sc->workload.lr / s->workers);
  for (;;) {
    float ctl = 0;
    hs_p2p op = {HS_P2P_RECV, 0, hs_buf_host(&ctl, 1, HS_F32)};
    /* A failure: this worker is dropped (the job re-forms over survivors). */
    if (exchange(w, c, &op, 1) || ctl == CTL_BYE) break;
    op = (hs_p2p){HS_P2P_RECV, 0, fbuf(l->grad, 0, len)};
    if (exchange(w, c, &op, 1)) break;
    hs_mutex_lock(w, s->lock);
    apply(s, w, l->grad, lr);
    s->clock[l->worker]++;
    float stop = ++s->applied >= budget;
    if (m->params) memcpy(l->out, m->params + o, len * sizeof(float));
    hs_mutex_unlock(w, s->lock);
    /* Stale-synchronous: hold the reply while this worker leads too far. */
    while (s->staleness > 0 && !stop) {
      hs_mutex_lock(w, s->lock);
      long lead = s->clock[l->worker] - slowest_clock(s);
      hs_mutex_unlock(w, s->lock);
      if (lead <= s->staleness) break;
      hs_sleep(w, STALENESS_POLL);
    }
    hs_p2p back[2] = {{HS_P2P_SEND, 0, fbuf(l->out, 0, len)}, {HS_P2P_SEND, 0, hs_buf_host(&stop, 1, HS_F32)}};
    if (exchange(w, c, back, 1) || exchange(w, c, back + 1, 1) || stop) break;
  }
  /* Gone: it no longer holds anyone back. */
  hs_mutex_lock(w, s->lock);
  s->clock[l->worker] = -1;
  hs_mutex_unlock(w, s->lock);
}

static void serve_async(ps_state *s, hs_worker *w) {
  hs_model *m = s->ctx->model;
  size_t len = shard(s, my_server(s, w));
  s->lock = hs_mutex_create(w);
  s->clock = calloc((size_t)s->workers, sizeof *s->clock);
  s->links = calloc((size_t)s->workers, sizeof *s->links);
  for (int v = 0; v < s->workers; v++) {
    ps_link *l = &s->links[v];
    *l = (ps_link){.s = s, .worker = v};
    if (m->params) l->grad = malloc(len * sizeof(float)), l->out = malloc(len * sizeof(float));
    hs_thread_spawn(w, serve_worker, l, &l->thread);
  }
  for (int v = 0; v < s->workers; v++) {
    hs_thread_join(w, s->links[v].thread);
    free(s->links[v].grad), free(s->links[v].out);
  }
  hs_mutex_destroy(w, s->lock);
}

static void ps_serve(hs_algo_ctx *ctx) {
  ps_state *s = ctx->state;
  if (s->async) serve_async(s, ctx->w);
  else serve_sync(s, ctx->w);
}

static void ps_finish(hs_algo_ctx *ctx) {
  ps_state *s = ctx->state;
  hs_worker *w = ctx->w;
  if (s->async && w->role == HS_ROLE_WORKER) worker_bye(s, w);
  if (s->pair)
    for (int v = 0; v < s->workers; v++)
      if (s->pair[v]) hs_comm_free(w, s->pair[v]);
  free(s->pair), free(s->off), free(s->momentum), free(s->stopped_by), free(s->clock), free(s->links), free(s->gsum);
  free(s);
}

static const hs_option_spec ps_options[] = {
    {"servers", HS_OPT_INT, "1", 1, NULL, "how many of the scenario's last ranks are servers (one shard each)"},
    {"mode", HS_OPT_STRING, "sync", 0, "sync|async", "servers wait for every worker, or serve each as it comes"},
    {"staleness", HS_OPT_INT, "0", 0, NULL, "async: most iterations a worker may lead the slowest (0: unbounded)"},
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_parameter_server = {
    .name = "parameter_server",
    .summary = "sharded parameter servers (the last ranks), synchronous or asynchronous with bounded staleness",
    .options = ps_options,
    .servers_option = "servers",
    .asynchronous = 1,
    .validate = ps_validate,
    .init = ps_init,
    .keep_going = ps_keep_going,
    .step = ps_step,
    .serve = ps_serve,
    .finish = ps_finish,
};
