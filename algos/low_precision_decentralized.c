/* low_precision_decentralized.c — Bagua's low-precision decentralized SGD:
 * ring gossip (weights 1/3) of compressed weight differences.
 *
 * Each rank keeps x^ (its own weights as its neighbours know them) and
 * copies of its left and right neighbours' weights. After the local SGD step:
 *   d = x + (x_L + x_R)/3 - (5/3) x^,  compressed with MinMaxUInt8,
 *   sent to both neighbours; x^ += Q(d), x_L += Q(d_L), x_R += Q(d_R); x = x^.
 * Without compression error this is x <- (x^ + x_L + x_R)/3 - lr g, D-PSGD on
 * the ring. Bytes per worker per step: 2 x (8 per chunk + 1 per parameter). */
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "algos/peers/ring.h"
#include "algos/ring_copies.h"
#include "algos/train/gpu_kernel.h"
#include "algos/train/sgd.h"

typedef struct {
  hs_ring_copies ring;
  float *momentum;
} lpd_state;

static int lpd_init(hs_algo_ctx *ctx) {
  lpd_state *s = calloc(1, sizeof *s);
  ctx->state = s;
  hs_model *m = ctx->model;
  hs_compressor cz = {.kind = HS_CZ_MINMAX_U8, .chunk = (size_t)hs_opt_int(ctx->opt, "chunk")};
  hs_ring_copies_init(&s->ring, &cz, &ctx->sc->cluster, m->n_params, m->params != NULL);
  s->momentum = hs_sgd_momentum_alloc(ctx);
  if (m->params) memcpy(s->ring.mine, m->params, m->n_params * sizeof(float));
  /* The neighbours' starting weights, once, in full precision. */
  hs_request *r = NULL;
  int rc = hs_ring_exchange(ctx->w, ctx->w->world, hs_model_buf(m, m->params), hs_model_buf(m, s->ring.left),
                            hs_model_buf(m, s->ring.right), &r);
  return rc ? rc : hs_wait(ctx->w, &r);
}

static void lpd_step(hs_algo_ctx *ctx) {
  lpd_state *s = ctx->state;
  hs_ring_copies *r = &s->ring;
  hs_model *m = ctx->model;
  hs_sgd_step(ctx, m->grads, s->momentum);
  double np = (double)m->n_params;
  hs_gpu_kernel(ctx, 20 * np, 1); /* the difference: reads x and three copies, writes d */
  if (m->params)
    for (size_t i = 0; i < r->n; i++)
      r->diff[i] = m->params[i] + (r->left[i] + r->right[i]) / 3.0f - (5.0f / 3.0f) * r->mine[i];
  hs_ring_copies_round(r, ctx->w, ctx->w->world, (uint64_t)ctx->iteration);
  hs_gpu_kernel(ctx, 8 * np, 1); /* x = x^: a copy */
  if (m->params) memcpy(m->params, r->mine, r->n * sizeof(float));
}

static void lpd_finish(hs_algo_ctx *ctx) {
  lpd_state *s = ctx->state;
  hs_ring_copies_free(&s->ring);
  free(s->momentum);
  free(s);
}

static const hs_option_spec lpd_options[] = {
    {"chunk", HS_OPT_INT, "16384", 1, NULL, "parameters per MinMaxUInt8 scale (8 header bytes each)"},
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
