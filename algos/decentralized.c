/* decentralized.c — decentralized SGD (D-PSGD), Bagua's `decentralized`.
 *
 * Every `communication_interval` steps each worker averages its weights
 * with its peers, then applies its own gradient (computed at its weights
 * before averaging): x <- W x - lr * g(x). The exchange carries the weights
 * the iteration started with, so it is posted before forward and overlaps
 * all of the compute.
 *
 *   peers = "all"       allreduce(avg) of the weights: 2(n-1)/n model sizes
 *                       sent per worker per communicating step (ring)
 *   peers = "shift_one" one peer per step, Bagua's formula (algos/peers.h),
 *                       x = (x + x_peer)/2: one model size per worker
 *   peers = "ring"      both ring neighbours, weights 1/3: two model sizes
 *
 * hierarchical = true: the GPUs of a node first average onto their leader
 * (full precision, NVLink), the leaders run the scheme among themselves,
 * and broadcast the result back inside the node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "algos/hierarchy.h"
#include "algos/peers.h"
#include "algos/ring.h"
#include "algos/sgd.h"

typedef enum { PEERS_ALL, PEERS_SHIFT_ONE, PEERS_RING } peer_mode;

typedef struct {
  peer_mode mode;
  int interval;
  hs_hierarchy h;
  hs_comm *gossip; /* world, or the leaders when hierarchical (NULL on non-leaders) */
  float *momentum;
  float *left, *right; /* received weights (numeric runs) */
  hs_request *req;
  int exchanging;
} dec_state;

static peer_mode mode_of(const char *s) {
  return strcmp(s, "all") == 0 ? PEERS_ALL : strcmp(s, "shift_one") == 0 ? PEERS_SHIFT_ONE : PEERS_RING;
}

static const char *dec_validate(const hs_scenario *sc, char *msg, size_t len) {
  const hs_options *o = &sc->algorithm.options;
  int n = hs_opt_bool(o, "hierarchical") ? sc->cluster.nodes : hs_scenario_gpus(sc);
  if (mode_of(hs_opt_str(o, "peers")) == PEERS_SHIFT_ONE && n % 2) {
    snprintf(msg, len, "shift_one pairs workers, so it needs an even number of %s; this scenario has %d",
             hs_opt_bool(o, "hierarchical") ? "nodes (hierarchical = true)" : "workers", n);
    return "peers";
  }
  return NULL;
}

static int dec_init(hs_algo_ctx *ctx) {
  dec_state *s = calloc(1, sizeof *s);
  ctx->state = s;
  s->mode = mode_of(hs_opt_str(ctx->opt, "peers"));
  s->interval = (int)hs_opt_int(ctx->opt, "communication_interval");
  s->momentum = hs_sgd_momentum_alloc(ctx);
  int rc = hs_hierarchy_init(ctx->w, hs_opt_bool(ctx->opt, "hierarchical"), &s->h, &s->gossip);
  if (rc) return rc;
  if (ctx->model->params) {
    s->left = malloc(ctx->model->n_params * sizeof(float));
    s->right = malloc(ctx->model->n_params * sizeof(float));
  }
  return 0;
}

static void dec_begin(hs_algo_ctx *ctx) {
  dec_state *s = ctx->state;
  hs_worker *w = ctx->w;
  hs_model *m = ctx->model;
  s->exchanging = ctx->iteration % s->interval == 0;
  if (!s->exchanging) return;
  hs_buf x = hs_model_buf(m, m->params);
  hs_hierarchy_reduce(w, &s->h, x); /* onto the leader, when hierarchical */
  if (!s->gossip) return;
  int me = hs_comm_rank(w, s->gossip), n = hs_comm_size(w, s->gossip);
  hs_buf l = hs_model_buf(m, s->left), r = hs_model_buf(m, s->right);
  if (s->mode == PEERS_ALL) {
    hs_allreduce(w, s->gossip, x, l, HS_AVG, &s->req);
  } else if (s->mode == PEERS_SHIFT_ONE) {
    int peer = hs_peer_shift_one(me, n, ctx->iteration / s->interval);
    hs_p2p ops[2] = {{HS_P2P_SEND, peer, x}, {HS_P2P_RECV, peer, l}};
    hs_group_p2p(w, s->gossip, ops, 2, &s->req);
  } else {
    hs_ring_exchange(w, s->gossip, x, l, r, &s->req);
  }
}

static void mix(dec_state *s, hs_model *m) {
  if (!m->params) return;
  if (s->mode == PEERS_ALL) {
    memcpy(m->params, s->left, m->n_params * sizeof(float));
  } else if (s->mode == PEERS_SHIFT_ONE) {
    hs_k_average2_f32(m->params, m->params, s->left, m->n_params);
  } else {
    for (size_t i = 0; i < m->n_params; i++) m->params[i] = (m->params[i] + s->left[i] + s->right[i]) / 3.0f;
  }
}

static void dec_step(hs_algo_ctx *ctx) {
  dec_state *s = ctx->state;
  hs_model *m = ctx->model;
  if (s->exchanging) {
    if (s->gossip) {
      hs_wait(ctx->w, &s->req);
      mix(s, m);
    }
    hs_hierarchy_broadcast(ctx->w, &s->h, hs_model_buf(m, m->params));
  }
  hs_sgd_step(ctx, m->grads, s->momentum);
}

static void dec_finish(hs_algo_ctx *ctx) {
  dec_state *s = ctx->state;
  hs_hierarchy_free(ctx->w, &s->h);
  free(s->momentum), free(s->left), free(s->right);
  free(s);
}

static const hs_option_spec dec_options[] = {
    {"peers", HS_OPT_STRING, "shift_one", 0, "all|shift_one|ring",
     "who averages with whom: everyone (allreduce), one peer that changes every step, or both ring neighbours"},
    {"communication_interval", HS_OPT_INT, "1", 1, NULL, "average with peers every this many steps"},
    {"hierarchical", HS_OPT_BOOL, "false", 0, NULL,
     "average inside each node first and gossip among node leaders only"},
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_decentralized = {
    .name = "decentralized",
    .summary = "decentralized SGD: weights averaged with peers (all, shift_one, ring), overlapped with compute",
    .options = dec_options,
    .validate = dec_validate,
    .init = dec_init,
    .begin_iteration = dec_begin,
    .step = dec_step,
    .finish = dec_finish,
};
