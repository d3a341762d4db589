/* decentralized.c — decentralized SGD (D-PSGD), Bagua's `decentralized`.
 *
 * Every `communication_interval` steps each worker averages its weights
 * with its peers, then applies its own gradient (computed at its weights
 * before averaging): x <- W x - lr * g(x). The exchange carries the weights
 * the iteration started with, so it is posted before forward and overlaps
 * all of the compute.
 *
 * Who averages with whom is a peer-selection scheme (algos/peers/peer_scheme.h):
 * a built-in (algos/peers/peer_builtin.c) or a Lua function in the scenario.
 *   undirected schemes: x_i <- W_ii x_i + sum_j W_ij x_j over the peers;
 *   directed schemes (send-to lists): push-sum, every message carries the
 *     sender's weight ps and receivers de-bias with x / ps (SGP);
 *   peers = "all": one allreduce(avg) of the weights.
 * Sums are taken in double, self first and peers in rank order, so a scheme
 * written in Lua trains bit for bit like the same scheme built in.
 *
 * hierarchical = true: the GPUs of a node first average onto their leader
 * (full precision, NVLink), the leaders run the scheme among themselves,
 * and broadcast the result back inside the node.
 *
 * As Bagua runs it, the exchange starts before forward and writes the
 * mixed weights to a buffer of their own; it reads the weights, which
 * forward and backward do not change; after backward the step waits for it
 * and copies them back (Bagua's copy_back_peer_weight), then applies the
 * gradient. Hierarchical, its blocking chain (the intra-node reduce, the
 * leaders' gossip and mixing, the broadcast back) runs on the
 * communication stream (algos/comm_stream.h), so none of it blocks forward
 * or backward. Flat, the gossip is one non-blocking post and needs no
 * stream (one would cost the simulator a hand-off per rank per iteration
 * for no overlap): the step waits for it and mixes, on the compute
 * stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/train/gpu_kernel.h"
#include "algos/algorithm.h"
#include "algos/comm_stream.h"
#include "algos/comm/hierarchy.h"
#include "algos/peers/peer_scheme.h"
#include "kernels/kernels.h"
#include "algos/train/sgd.h"

typedef struct {
  hs_algo_ctx *ctx;
  hs_comm_stream *stream;
  float *node_avg; /* hierarchical: the node's average (numeric runs) */
  float *mixed;    /* W x, until the step copies it back (numeric runs) */
  hs_peer_scheme *scheme;
  bool push_sum; /* directed scheme: weights travel with a push-sum weight */
  int interval;
  hs_hierarchy h;
  hs_comm *gossip; /* world, or the leaders when hierarchical (NULL on non-leaders) */
  float *momentum;
  /* this rank's part of the current step, copied out of the shared schedule */
  hs_peer_edge *in;
  int n_in, cap_in;
  double self;
  hs_p2p *ops;
  int cap_ops;
  float *send;   /* push-sum: the numerator ps * x and ps (numeric runs) */
  float **recv;  /* one buffer per in-edge (numeric runs) */
  double *acc;
  double ps;     /* push-sum weight, 1 at the start */
  hs_request *req;
  int exchanging;
} dec_state;

/* Push-sum messages carry the sender's weight as a double after the model. */
#define PS_TRAILER_BYTES 8

static int uses_hierarchy(const hs_scenario *sc) {
  return hs_opt_bool(&sc->algorithm.options, "hierarchical") || sc->algorithm.peers->hierarchical;
}

/* Steps checked when the scenario is loaded, so a broken scheme is reported
 * before anything runs; later steps are checked as they are built. */
#define STEPS_CHECKED_AT_LOAD 16

static const char *dec_validate(const hs_scenario *sc, char *msg, size_t len) {
  hs_peer_scheme *scheme = sc->algorithm.peers;
  if (scheme->allreduce) return NULL;
  int n = uses_hierarchy(sc) ? sc->cluster.nodes : hs_scenario_gpus(sc);
  long rounds = (sc->run.iterations + hs_opt_int(&sc->algorithm.options, "communication_interval") - 1) /
                hs_opt_int(&sc->algorithm.options, "communication_interval");
  char err[HS_PEER_ERR_MAX];
  if (hs_peer_scheme_check(scheme, n, rounds < STEPS_CHECKED_AT_LOAD ? rounds : STEPS_CHECKED_AT_LOAD, err,
                           sizeof err)) {
    snprintf(msg, len, "scheme %s over %d %s: %s", scheme->name, n, uses_hierarchy(sc) ? "nodes" : "workers", err);
    return "peers";
  }
  return NULL;
}

/* After a shrink the scheme runs over fewer ranks (or nodes) than the
 * scenario was checked for, and may not run over them at all (shift_one
 * pairs every rank: an odd number of survivors). Every rank learns the
 * gossip group's size (the leaders', counted over the world, where the
 * scheme runs among nodes) and checks the round to come alike, so all of
 * them stop together, rather than the gossip stopping the process there
 * (exit 2, nothing written). */
static int scheme_fits_survivors(hs_algo_ctx *ctx, dec_state *s) {
  hs_worker *w = ctx->w;
  int n = w->size;
  if (s->h.enabled) {
    int leader = s->gossip != NULL;
    hs_request *q = NULL;
    int rc = hs_allreduce(w, w->world, hs_buf_host(&leader, 1, HS_I32), hs_buf_host(&n, 1, HS_I32), HS_SUM, &q);
    if (rc || (rc = hs_wait(w, &q))) return rc;
  }
  char err[HS_PEER_ERR_MAX];
  if (hs_peer_schedule_get(hs_peer_scheme_schedule(s->scheme, n), ctx->iteration / s->interval, err, sizeof err))
    return 0;
  if (w->rank == 0)
    fprintf(stderr, "hearsay: after the failure, peer scheme %s cannot run over the %d %s left: %s\n", s->scheme->name,
            n, s->h.enabled ? "nodes" : "ranks", err);
  return HS_EINVAL;
}

static int dec_init(hs_algo_ctx *ctx) {
  dec_state *s = calloc(1, sizeof *s);
  ctx->state = s;
  s->ctx = ctx;
  s->scheme = ctx->sc->algorithm.peers;
  s->push_sum = s->scheme->directed;
  s->ps = 1;
  s->interval = (int)hs_opt_int(ctx->opt, "communication_interval");
  s->momentum = hs_sgd_momentum_alloc(ctx);
  int rc = hs_hierarchy_init(ctx->w, uses_hierarchy(ctx->sc), &s->h, &s->gossip);
  if (rc) return rc;
  if (s->h.enabled && !(s->stream = hs_comm_stream_start(ctx->w, 1))) return HS_ENOMEM;
  if (ctx->restarts > 0 && !s->scheme->allreduce && (rc = scheme_fits_survivors(ctx, s))) return rc;
  size_t np = ctx->model->n_params;
  if (ctx->model->params) {
    s->mixed = malloc(np * sizeof(float));
    if (s->h.enabled) s->node_avg = malloc(np * sizeof(float));
    s->acc = malloc(np * sizeof(double));
    if (s->push_sum) s->send = malloc(np * sizeof(float) + PS_TRAILER_BYTES);
  }
  return 0;
}

/* The model as sent: the weights, or the push-sum numerator and weight. */
static hs_buf message_buf(const hs_model *m, float *base, bool push_sum) {
  hs_buf b = hs_model_buf(m, base);
  if (push_sum) b.count += PS_TRAILER_BYTES / hs_dtype_size(b.dtype);
  return b;
}

static void grow_recv(dec_state *s, const hs_model *m, int k) {
  if (k <= s->cap_in) return;
  s->in = realloc(s->in, k * sizeof *s->in);
  s->recv = realloc(s->recv, k * sizeof *s->recv);
  for (int i = s->cap_in; i < k; i++)
    s->recv[i] = m->params ? malloc(m->n_params * sizeof(float) + PS_TRAILER_BYTES) : NULL;
  s->cap_in = k;
}

/* Posts this round's exchange of the weights x. */
static void post_gossip(hs_algo_ctx *ctx, dec_state *s, float *x, int me, int n) {
  hs_model *m = ctx->model;
  long round = ctx->iteration / s->interval;
  const hs_peer_step *st = hs_peer_schedule_get_or_exit(hs_peer_scheme_schedule(s->scheme, n), round);
  int n_out = st->out_off[me + 1] - st->out_off[me];
  s->n_in = st->in_off[me + 1] - st->in_off[me];
  s->self = st->self[me];
  grow_recv(s, m, s->n_in);
  if (s->n_in) memcpy(s->in, st->in + st->in_off[me], s->n_in * sizeof *s->in); /* a rank may have no peers */
  if (n_out + s->n_in > s->cap_ops) {
    s->cap_ops = n_out + s->n_in;
    s->ops = realloc(s->ops, s->cap_ops * sizeof *s->ops);
  }
  float *out = x;
  if (s->push_sum && x) {
    /* numerator ps * x, then ps itself */
    hs_k_mix_start_f32(s->acc, x, s->ps, m->n_params);
    hs_k_mix_finish_f32(s->send, s->acc, 1.0, m->n_params);
    memcpy(s->send + m->n_params, &s->ps, sizeof s->ps);
    out = s->send;
  }
  int k = 0;
  for (int e = st->out_off[me]; e < st->out_off[me + 1]; e++)
    s->ops[k++] = (hs_p2p){HS_P2P_SEND, st->out[e].peer, message_buf(m, out, s->push_sum)};
  for (int i = 0; i < s->n_in; i++)
    s->ops[k++] = (hs_p2p){HS_P2P_RECV, s->in[i].peer, message_buf(m, s->recv[i], s->push_sum)};
  hs_group_p2p(ctx->w, s->gossip, s->ops, k, &s->req);
}

/* mixed <- W x (self first, then peers in rank order), de-biased by the
 * push-sum weight when the scheme is directed. */
static void mix(dec_state *s, hs_model *m, const float *x) {
  if (!m->params) return;
  size_t np = m->n_params;
  if (s->scheme->allreduce) return; /* the allreduce wrote it */
  double ps = s->self * s->ps;
  hs_k_mix_start_f32(s->acc, x, ps, np);
  for (int i = 0; i < s->n_in; i++) {
    hs_k_mix_add_f32(s->acc, s->recv[i], s->in[i].weight, np);
    if (s->push_sum) {
      double theirs;
      memcpy(&theirs, s->recv[i] + np, sizeof theirs);
      ps += s->in[i].weight * theirs;
    }
  }
  if (!s->push_sum) ps = 1;
  hs_k_mix_finish_f32(s->mixed, s->acc, ps, np);
  s->ps = ps;
}

/* Posts the gossip of x among the gossiping ranks. */
static void post_exchange(dec_state *s, float *x) {
  hs_algo_ctx *ctx = s->ctx;
  hs_worker *w = ctx->w;
  hs_model *m = ctx->model;
  if (s->scheme->allreduce) hs_allreduce(w, s->gossip, hs_model_buf(m, x), hs_model_buf(m, s->mixed), HS_AVG, &s->req);
  else post_gossip(ctx, s, x, hs_comm_rank(w, s->gossip), hs_comm_size(w, s->gossip));
}

/* Waits for the gossip, then mixed <- W x: nothing more for peers = all
 * (the allreduce wrote its average there), else a pass to start (read x,
 * write the sum), one per peer (read the sum and theirs, write the sum)
 * and one to finish (read the sum, write the result), on the calling
 * thread's stream. Returns the seconds of those kernels, for the caller
 * to charge with what follows them on the stream. */
static double finish_exchange(dec_state *s, const float *x) {
  hs_algo_ctx *ctx = s->ctx;
  hs_model *m = ctx->model;
  hs_wait(ctx->w, &s->req);
  double np = (double)m->n_params;
  mix(s, m, x);
  return s->scheme->allreduce ? 0 : hs_gpu_kernel_seconds(&ctx->sc->cluster, 4 * np * (2 + 3.0 * s->n_in + 2), 2 + s->n_in);
}

/* On the communication stream, hierarchical: the whole exchange. */
static void hierarchical_chain(void *arg, int unused) {
  (void)unused;
  dec_state *s = arg;
  hs_worker *w = s->ctx->w;
  hs_model *m = s->ctx->model;
  hs_request *r = NULL;
  /* onto the leader: the node's average */
  hs_reduce(w, s->h.node, hs_model_buf(m, m->params), hs_model_buf(m, s->node_avg), HS_AVG, 0, &r);
  hs_wait(w, &r);
  if (s->gossip) {
    post_exchange(s, s->node_avg);
    hs_gpu_busy(w, finish_exchange(s, s->node_avg));
  }
  /* the leader's result to the node */
  hs_broadcast(w, s->h.node, hs_model_buf(m, s->mixed), hs_model_buf(m, s->mixed), 0, &r);
  hs_wait(w, &r);
}

static void dec_begin(hs_algo_ctx *ctx) {
  dec_state *s = ctx->state;
  s->exchanging = ctx->iteration % s->interval == 0;
  if (!s->exchanging) return;
  if (s->stream) hs_comm_stream_enqueue(s->stream, hierarchical_chain, s, 0);
  else post_exchange(s, ctx->model->params);
}

static void dec_step(hs_algo_ctx *ctx) {
  dec_state *s = ctx->state;
  hs_model *m = ctx->model;
  double kernels = 0; /* before the step, on this stream */
  if (s->exchanging) {
    if (s->stream) hs_comm_stream_sync(s->stream);
    else kernels = finish_exchange(s, m->params);
    kernels += hs_gpu_kernel_seconds(&ctx->sc->cluster, 8 * (double)m->n_params, 1); /* x <- W x: the copy back */
    if (m->params) memcpy(m->params, s->mixed, m->n_params * sizeof(float));
  }
  hs_sgd_step_after(ctx, kernels, m->grads, s->momentum);
}

static void dec_finish(hs_algo_ctx *ctx) {
  dec_state *s = ctx->state;
  hs_comm_stream_stop(s->stream);
  hs_hierarchy_free(ctx->w, &s->h);
  free(s->mixed), free(s->node_avg);
  for (int i = 0; i < s->cap_in; i++) free(s->recv[i]);
  free(s->recv), free(s->in), free(s->ops), free(s->send), free(s->acc);
  free(s->momentum);
  free(s);
}

static const hs_option_spec dec_options[] = {
    {"peers", HS_OPT_PEERS, "shift_one", 0, NULL,
     "who averages with whom at each step: a built-in scheme (hearsay peers --list), a .lua file, or a "
     "function(rank, n, step) returning peers (docs/peer-selection.md)"},
    {"communication_interval", HS_OPT_INT, "1", 1, NULL, "average with peers every this many steps"},
    {"hierarchical", HS_OPT_BOOL, "false", 0, NULL,
     "average inside each node first and gossip among node leaders only"},
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_decentralized = {
    .name = "decentralized",
    .summary = "decentralized SGD: weights averaged with peers chosen by any peer-selection scheme, overlapped "
               "with compute",
    .options = dec_options,
    .validate = dec_validate,
    .init = dec_init,
    .begin_iteration = dec_begin,
    .step = dec_step,
    .finish = dec_finish,
};
