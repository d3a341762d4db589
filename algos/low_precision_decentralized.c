/* low_precision_decentralized.c — Bagua's low-precision decentralized SGD:
 * ring gossip (weights 1/3) of compressed weight differences.
 *
 * Each rank keeps x^ (its own weights as its neighbours know them) and
 * copies of its left and right neighbours' weights. After the local SGD step:
 *   d = x + (x_L + x_R)/3 - (5/3) x^,  compressed with MinMaxUInt8,
 *   sent to both neighbours; x^ += Q(d), x_L += Q(d_L), x_R += Q(d_R); x = x^.
 * Without compression error this is x <- (x^ + x_L + x_R)/3 - lr g, D-PSGD on
 * the ring. Bytes per worker per step: 2 x (8 per chunk + 1 per parameter).
 *
 * hierarchical = true (Bagua's LowPrecisionDecentralizedAlgorithm default,
 * bagua/torch_api/algorithms/decentralized.py; the op's hierarchical
 * communicator in bagua-core's decentralized_low_precision_synchronous.rs):
 * after the step the GPUs of a node average their weights onto the node's
 * leader (full precision, NVLink), the leaders alone keep the copies and
 * run the ring above among nodes, and each leader broadcasts its result to
 * its node. A node's NICs then carry one compressed model each way a
 * neighbour instead of one a GPU. Like Bagua's post-optimizer-step op, the
 * exchange blocks before the next forward. */
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "algos/comm/hierarchy.h"
#include "algos/peers/ring.h"
#include "algos/ring_copies.h"
#include "algos/train/gpu_kernel.h"
#include "algos/train/sgd.h"

typedef struct {
  hs_ring_copies ring; /* on the ranks that gossip: all, or the node leaders */
  float *momentum;
  hs_hierarchy h;
  hs_comm *gossip; /* world, or the leaders when hierarchical (NULL on the other GPUs) */
} lpd_state;

static int lpd_init(hs_algo_ctx *ctx) {
  lpd_state *s = calloc(1, sizeof *s);
  ctx->state = s;
  hs_model *m = ctx->model;
  s->momentum = hs_sgd_momentum_alloc(ctx);
  int rc = hs_hierarchy_init(ctx->w, hs_opt_bool(ctx->opt, "hierarchical"), &s->h, &s->gossip);
  if (rc || !s->gossip) return rc;
  hs_compressor cz = {.kind = HS_CZ_MINMAX_U8, .chunk = (size_t)hs_opt_int(ctx->opt, "chunk")};
  hs_ring_copies_init(&s->ring, &cz, &ctx->sc->cluster, m->n_params, m->params != NULL);
  if (m->params) memcpy(s->ring.mine, m->params, m->n_params * sizeof(float));
  /* The neighbours' starting weights, once, in full precision. */
  hs_request *r = NULL;
  rc = hs_ring_exchange(ctx->w, s->gossip, hs_model_buf(m, m->params), hs_model_buf(m, s->ring.left),
                        hs_model_buf(m, s->ring.right), &r);
  return rc ? rc : hs_wait(ctx->w, &r);
}

static void lpd_step(hs_algo_ctx *ctx) {
  lpd_state *s = ctx->state;
  hs_ring_copies *r = &s->ring;
  hs_model *m = ctx->model;
  hs_sgd_step(ctx, m->grads, s->momentum);
  hs_hierarchy_reduce(ctx->w, &s->h, hs_model_buf(m, m->params)); /* the node's average onto its leader */
  if (s->gossip) {
    double np = (double)m->n_params;
    hs_gpu_kernel(ctx, 20 * np, 1); /* the difference: reads x and three copies, writes d */
    if (m->params)
      for (size_t i = 0; i < r->n; i++)
        r->diff[i] = m->params[i] + (r->left[i] + r->right[i]) / 3.0f - (5.0f / 3.0f) * r->mine[i];
    hs_ring_copies_round(r, ctx->w, s->gossip, (uint64_t)ctx->iteration);
    hs_gpu_kernel(ctx, 8 * np, 1); /* x = x^: a copy */
    if (m->params) memcpy(m->params, r->mine, r->n * sizeof(float));
  }
  hs_hierarchy_broadcast(ctx->w, &s->h, hs_model_buf(m, m->params)); /* the leader's result to its node */
}

static void lpd_finish(hs_algo_ctx *ctx) {
  lpd_state *s = ctx->state;
  if (s->gossip) hs_ring_copies_free(&s->ring);
  hs_hierarchy_free(ctx->w, &s->h);
  free(s->momentum);
  free(s);
}

static const hs_option_spec lpd_options[] = {
    {"chunk", HS_OPT_INT, "16384", 1, NULL, "parameters per MinMaxUInt8 scale (8 header bytes each)"},
    {"hierarchical", HS_OPT_BOOL, "false", 0, NULL,
     "average inside each node first, ring gossip among node leaders only (Bagua's default: true)"},
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_low_precision_decentralized = {
    .name = "low_precision_decentralized",
    .summary = "ring gossip (weights 1/3) of 8-bit compressed weight differences (Bagua)",
    .options = lpd_options,
    .init = lpd_init,
    .step = lpd_step,
    .finish = lpd_finish,
};
