/* adpsgd.c — asynchronous decentralized SGD (AD-PSGD; Lian, Zhang, Zhang
 * and Liu, "Asynchronous Decentralized Parallel Stochastic Gradient
 * Descent", ICML 2018, Algorithm 1).
 *
 * Every worker repeats: compute a gradient g at its weights; average its
 * weights with one neighbour picked at random, both taking the average
 * (x_i, x_j <- (x_i + x_j) / 2, atomically); x_i <- x_i - lr * g. Nobody
 * waits for anyone's computation: a slow worker slows only the averagings
 * it takes part in, and only by their transfer.
 *
 * As the paper runs it (its section 5), the communication graph is
 * bipartite and only the "active" side initiates, so that two averagings
 * never wait for each other. The graph is the `peers` scheme's at step 0
 * (algos/peers; its weights unused: an averaging is always half and half),
 * undirected and bipartite; the side of the lowest rank of each connected
 * part is active. By default a ring, even ranks active, odd passive (an odd
 * count drops the ring's closing edge, a path; two workers share one
 * edge). An active worker posts its averaging
 * before forward, with a neighbour drawn from (run.seed, rank, iteration),
 * and its step waits for it: it sends its weights (they do not change
 * before its step) and a control word, and gets the neighbour's back. A
 * passive worker serves each active neighbour on a thread of its own (its
 * communication thread, the paper's): it answers with its weights as they
 * are then, and keeps the correction (x_i - x_j) / 2 aside until its own
 * step applies it, so forward and backward never read weights being
 * written and the averaging loses none of the progress made meanwhile.
 * Each averaging moves one model each way; the active's control word adds
 * 4 bytes.
 *
 * When to stop is hearsay's (run.iterations is the budget of the mean
 * worker, algorithm.h), not the paper's: a background thread on every
 * worker agrees with the others, by an allreduce of (iterations done,
 * workers finished), whether the budget is spent, every `check_interval`
 * (by default one of the worker's own iterations, so the slowest worker
 * sets the pace of the agreement and the others overshoot the budget by
 * about one of its iterations). Its 16 bytes a round are on the wire too.
 *
 * Kernels (gpu_kernel.h): the active's average, reading both models and
 * writing one (12 bytes a parameter), before its SGD step; the passive's
 * answer, its weights plus the correction kept aside (12), the correction
 * added to when the active's weights arrive (16), and applied at its step
 * (16), on the serving thread or the step. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "algos/peers/peer_graph.h"
#include "algos/train/gpu_kernel.h"
#include "algos/train/sgd.h"

enum { CTL_AVERAGE = 0, CTL_BYE = 1 };

typedef struct ad_state ad_state;

typedef struct { /* a passive worker's side of one edge */
  ad_state *s;
  hs_comm *edge;
  hs_thread *thread;
  float *in, *answer; /* the active's weights; the answer sent (numeric runs) */
} ad_link;

struct ad_state {
  hs_algo_ctx *ctx;
  int active;         /* initiates the averagings of its edges */
  hs_comm **edges;    /* pair communicators with its neighbours, by the edges' colours */
  int n_edges;
  float *momentum;
  /* active */
  hs_request *req;    /* this iteration's averaging */
  int ctl;
  float *peer;        /* the neighbour's weights (numeric runs) */
  /* passive */
  hs_mutex *lock;     /* the weights and the correction */
  hs_mutex *averaging; /* one averaging at a time, as Algorithm 1's are atomic */
  float *pending;     /* corrections not yet applied (numeric runs) */
  ad_link *links;     /* one an edge */
  int serving;        /* threads started */
  /* the agreement on the budget */
  hs_comm *bg;
  hs_thread *agree;
  hs_sem *wake;       /* released when the worker's loop is over */
  double interval;    /* check_interval; 0: the worker's last iteration */
  double began, last; /* this iteration's start; the last one's length */
  _Atomic int done, finished, stop;
};

static void serve(void *arg) {
  ad_link *l = arg;
  ad_state *s = l->s;
  hs_algo_ctx *ctx = s->ctx;
  hs_worker *w = ctx->w;
  hs_model *m = ctx->model;
  double np = (double)m->n_params;
  int active = 1 - hs_comm_rank(w, l->edge); /* the pair's other member */
  for (;;) {
    int ctl = CTL_BYE;
    hs_p2p op = {HS_P2P_RECV, active, hs_buf_host(&ctl, 1, HS_I32)};
    if (hs_group_p2p_wait(w, l->edge, &op, 1) || ctl == CTL_BYE) return; /* a failure, or the active is done */
    /* Atomic as the paper's: another active neighbour's averaging waits
     * for this one's end (their transfers would share the NIC anyway);
     * the worker's own step does not. */
    hs_mutex_lock(w, s->averaging);
    hs_mutex_lock(w, s->lock);
    hs_gpu_kernel(ctx, 12 * np, 1); /* the answer: the weights with the correction not yet applied */
    if (m->params)
      for (size_t i = 0; i < m->n_params; i++) l->answer[i] = m->params[i] + s->pending[i];
    hs_mutex_unlock(w, s->lock);
    hs_p2p ops[2] = {{HS_P2P_RECV, active, hs_model_buf(m, l->in)},
                     {HS_P2P_SEND, active, hs_model_buf(m, l->answer)}};
    if (hs_group_p2p_wait(w, l->edge, ops, 2)) {
      hs_mutex_unlock(w, s->averaging);
      return;
    }
    /* Both now hold (x_active + answer) / 2: the active computes it, this
     * side adds the difference from what it answered, keeping whatever its
     * own step did meanwhile. */
    hs_mutex_lock(w, s->lock);
    hs_gpu_kernel(ctx, 16 * np, 1);
    if (m->params)
      for (size_t i = 0; i < m->n_params; i++) s->pending[i] += 0.5f * (l->in[i] - l->answer[i]);
    hs_mutex_unlock(w, s->lock);
    hs_mutex_unlock(w, s->averaging);
  }
}

static void agree_loop(void *arg) {
  ad_state *s = arg;
  hs_worker *w = s->ctx->w;
  double budget = (double)s->ctx->sc->run.iterations * w->size;
  for (;;) {
    double wait = s->interval > 0 ? s->interval : s->last > 0 ? s->last : 1e-3;
    hs_sem_acquire(w, s->wake, wait);
    double flags[2] = {s->done, s->finished};
    hs_request *r = NULL;
    hs_allreduce(w, s->bg, hs_buf_host(flags, 2, HS_F64), hs_buf_host(flags, 2, HS_F64), HS_SUM, &r);
    if (hs_wait(w, &r) || flags[0] >= budget || flags[1] > 0) {
      s->stop = 1;
      return;
    }
  }
}

static int ad_init(hs_algo_ctx *ctx) {
  ad_state *s = calloc(1, sizeof *s);
  if (!s) return HS_ENOMEM;
  ctx->state = s;
  s->ctx = ctx;
  hs_worker *w = ctx->w;
  hs_model *m = ctx->model;
  char err[HS_PEER_ERR_MAX];
  const hs_peer_graph *g = hs_peer_scheme_graph(ctx->sc->algorithm.peers, w->size, 1, err, sizeof err);
  if (!g) {
    /* checked at load over every worker; only a shrink gets here */
    if (w->rank == 0)
      fprintf(stderr, "hearsay: after the failure, adpsgd cannot run over the %d workers left: %s\n", w->size, err);
    return HS_EINVAL;
  }
  s->active = g->side[w->rank] == 0;
  s->interval = hs_opt_num(ctx->opt, "check_interval");
  s->momentum = hs_sgd_momentum_alloc(ctx);
  s->lock = hs_mutex_create(w);
  s->averaging = hs_mutex_create(w);
  s->wake = hs_sem_create(w, 0);
  s->edges = calloc((size_t)(g->colours > 0 ? g->colours : 1), sizeof *s->edges);
  s->links = calloc((size_t)(g->colours > 0 ? g->colours : 1), sizeof *s->links);
  int rc = !s->lock || !s->averaging || !s->wake || !s->edges || !s->links ? HS_ENOMEM : 0;
  for (int c = 0; c < g->colours && !rc; c++) { /* every rank splits once a colour, in one order */
    hs_comm *e = NULL;
    rc = hs_comm_split(w, w->world, hs_peer_graph_edge_of(g, w->rank, c), w->rank, &e);
    if (e) s->edges[s->n_edges++] = e;
  }
  /* the budget's agreement: a few bytes among the hosts, not NCCL's */
  if (rc || (rc = hs_comm_split_host(w, w->world, 0, w->rank, &s->bg))) return rc;
  if (m->params) {
    if (s->active) {
      s->peer = malloc(m->n_params * sizeof(float));
    } else {
      s->pending = calloc(m->n_params, sizeof(float));
      for (int e = 0; e < s->n_edges; e++) {
        s->links[e].in = malloc(m->n_params * sizeof(float));
        s->links[e].answer = malloc(m->n_params * sizeof(float));
      }
    }
  }
  if (!s->active)
    for (; s->serving < s->n_edges; s->serving++) {
      s->links[s->serving].s = s;
      s->links[s->serving].edge = s->edges[s->serving];
      if (hs_thread_spawn(w, serve, &s->links[s->serving], &s->links[s->serving].thread)) return HS_ENOMEM;
    }
  return hs_thread_spawn(w, agree_loop, s, &s->agree) ? HS_ENOMEM : 0;
}

/* At load, over every worker: the scheme's graph can carry AD-PSGD. */
static const char *ad_validate(const hs_scenario *sc, char *msg, size_t len) {
  char err[HS_PEER_ERR_MAX];
  if (hs_peer_scheme_graph(sc->algorithm.peers, hs_scenario_gpus(sc), 1, err, sizeof err)) return NULL;
  snprintf(msg, len, "%s: adpsgd averages in pairs, one side initiating, over an undirected bipartite graph", err);
  return "peers";
}

static int ad_keep_going(hs_algo_ctx *ctx) { return !((ad_state *)ctx->state)->stop; }

/* A neighbour drawn from (seed, rank, iteration) alone (splitmix64): the
 * same on every backend and every run with the seed. */
static int draw(const hs_algo_ctx *ctx, int n) {
  uint64_t z = (uint64_t)ctx->sc->run.seed * 0x9e3779b97f4a7c15ull + (uint64_t)ctx->w->rank * 0xbf58476d1ce4e5b9ull +
               (uint64_t)ctx->iteration * 0x94d049bb133111ebull + 0x2545f4914f6cdd1dull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (int)(z % (uint64_t)n);
}

static void ad_begin(hs_algo_ctx *ctx) {
  ad_state *s = ctx->state;
  hs_worker *w = ctx->w;
  hs_model *m = ctx->model;
  s->began = hs_now(w);
  if (!s->active || s->n_edges == 0) return;
  hs_comm *edge = s->edges[draw(ctx, s->n_edges)];
  int peer = 1 - hs_comm_rank(w, edge);
  s->ctl = CTL_AVERAGE;
  /* its weights do not change before its step, which waits for this */
  hs_p2p ops[3] = {{HS_P2P_SEND, peer, hs_buf_host(&s->ctl, 1, HS_I32)},
                   {HS_P2P_SEND, peer, hs_model_buf(m, m->params)},
                   {HS_P2P_RECV, peer, hs_model_buf(m, s->peer)}};
  if (hs_group_p2p(w, edge, ops, 3, &s->req)) s->req = NULL;
}

static void ad_step(hs_algo_ctx *ctx) {
  ad_state *s = ctx->state;
  hs_worker *w = ctx->w;
  hs_model *m = ctx->model;
  double np = (double)m->n_params;
  if (s->active) {
    int averaged = s->req && hs_wait(w, &s->req) == HS_OK;
    if (averaged && m->params)
      for (size_t i = 0; i < m->n_params; i++) m->params[i] = 0.5f * (m->params[i] + s->peer[i]);
    hs_sgd_step_after(ctx, averaged ? hs_gpu_kernel_seconds(&ctx->sc->cluster, 12 * np, 1) : 0, m->grads,
                      s->momentum);
  } else {
    hs_mutex_lock(w, s->lock);
    if (m->params)
      for (size_t i = 0; i < m->n_params; i++) m->params[i] += s->pending[i], s->pending[i] = 0;
    hs_sgd_step_after(ctx, s->n_edges ? hs_gpu_kernel_seconds(&ctx->sc->cluster, 16 * np, 1) : 0, m->grads,
                      s->momentum);
    hs_mutex_unlock(w, s->lock);
  }
  s->done = ctx->iteration + 1;
  s->last = hs_now(w) - s->began;
}

static void ad_finish(hs_algo_ctx *ctx) {
  ad_state *s = ctx->state;
  hs_worker *w = ctx->w;
  hs_model *m = ctx->model;
  if (s->req) hs_wait(w, &s->req); /* a failure struck between post and step */
  if (s->active) { /* each passive neighbour's thread for this edge ends */
    int bye = CTL_BYE;
    for (int e = 0; e < s->n_edges; e++) {
      hs_p2p op = {HS_P2P_SEND, 1 - hs_comm_rank(w, s->edges[e]), hs_buf_host(&bye, 1, HS_I32)};
      hs_group_p2p_wait(w, s->edges[e], &op, 1);
    }
  }
  /* Said before waiting for the active neighbours: a passive worker whose
   * loop ended first (at its cap) keeps serving them until the agreement
   * it triggers stops them, and they say goodbye. */
  s->finished = 1;
  if (s->wake) hs_sem_release(w, s->wake); /* the agreement goes at once */
  for (int e = 0; e < s->serving; e++) hs_thread_join(w, s->links[e].thread);
  if (!s->active && s->pending && s->lock) { /* corrections that came after its last step */
    hs_mutex_lock(w, s->lock);
    for (size_t i = 0; i < m->n_params; i++) m->params[i] += s->pending[i];
    hs_mutex_unlock(w, s->lock);
  }
  if (s->agree) hs_thread_join(w, s->agree);
  for (int e = 0; e < s->n_edges; e++) hs_comm_free(w, s->edges[e]);
  if (s->bg) hs_comm_free(w, s->bg);
  if (s->lock) hs_mutex_destroy(w, s->lock);
  if (s->averaging) hs_mutex_destroy(w, s->averaging);
  if (s->wake) hs_sem_destroy(w, s->wake);
  for (int e = 0; e < s->n_edges && s->links; e++) free(s->links[e].in), free(s->links[e].answer);
  free(s->links), free(s->edges);
  free(s->momentum), free(s->peer), free(s->pending);
  free(s);
}

static const hs_option_spec ad_options[] = {
    {"peers", HS_OPT_PEERS, "ring", 0, NULL,
     "the graph of the averagings: a peer scheme's step 0 (a built-in, a .lua file or a function), undirected and "
     "bipartite, its weights unused; the side of each part's lowest rank initiates (the built-in ring over an odd "
     "count: a path)"},
    {"check_interval", HS_OPT_TIME, "0s", 0, NULL,
     "time between two agreements on whether the run's sample budget is spent (hearsay's, not the algorithm's; 0: "
     "each worker waits one of its own last iterations)"},
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_adpsgd = {
    .name = "adpsgd",
    .summary = "asynchronous decentralized SGD (AD-PSGD): each worker averages with a random neighbour of a "
               "bipartite graph (a ring by default), the active side initiating, the passive one answering from a "
               "thread, nobody waiting for anyone's compute",
    .options = ad_options,
    .validate = ad_validate,
    .asynchronous = 1,
    .init = ad_init,
    .keep_going = ad_keep_going,
    .begin_iteration = ad_begin,
    .step = ad_step,
    .finish = ad_finish,
};
