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
#include "algos/compressor.h"
#include "algos/ring.h"
#include "algos/sgd.h"

typedef struct {
  hs_compressor cz;
  size_t wire;                  /* compressed bytes of the model */
  float *mine, *left, *right;   /* x^, x_L, x_R */
  float *d, *tmp;
  uint8_t *out, *in_l, *in_r;
  float *momentum;
} lpd_state;

static hs_buf bytes_buf(uint8_t *data, size_t n) { return data ? hs_buf_host(data, n, HS_U8) : hs_buf_virtual(n, HS_U8); }

static int lpd_init(hs_algo_ctx *ctx) {
  lpd_state *s = calloc(1, sizeof *s);
  ctx->state = s;
  hs_model *m = ctx->model;
  s->cz = (hs_compressor){.kind = HS_CZ_MINMAX_U8, .chunk = (size_t)hs_opt_int(ctx->opt, "chunk")};
  s->wire = hs_cz_bytes(&s->cz, m->n_params);
  s->momentum = hs_sgd_momentum_alloc(ctx);
  size_t fb = m->n_params * sizeof(float);
  if (m->params) {
    s->mine = malloc(fb), s->left = malloc(fb), s->right = malloc(fb), s->d = malloc(fb), s->tmp = malloc(fb);
    s->out = malloc(s->wire), s->in_l = malloc(s->wire), s->in_r = malloc(s->wire);
    memcpy(s->mine, m->params, fb);
  }
  /* The neighbours' starting weights, once, in full precision. */
  hs_request *r = NULL;
  int rc = hs_ring_exchange(ctx->w, ctx->w->world, hs_model_buf(m, m->params), hs_model_buf(m, s->left),
                            hs_model_buf(m, s->right), &r);
  return rc ? rc : hs_wait(ctx->w, &r);
}

static void lpd_step(hs_algo_ctx *ctx) {
  lpd_state *s = ctx->state;
  hs_model *m = ctx->model;
  size_t n = m->n_params;
  uint64_t step = (uint64_t)ctx->iteration;
  hs_sgd_step(ctx, m->grads, s->momentum);
  if (m->params) {
    for (size_t i = 0; i < n; i++)
      s->d[i] = m->params[i] + (s->left[i] + s->right[i]) / 3.0f - (5.0f / 3.0f) * s->mine[i];
    hs_cz_encode(&s->cz, s->d, NULL, n, step, s->out);
  }
  hs_request *r = NULL;
  hs_ring_exchange(ctx->w, ctx->w->world, bytes_buf(s->out, s->wire), bytes_buf(s->in_l, s->wire),
                   bytes_buf(s->in_r, s->wire), &r);
  hs_wait(ctx->w, &r);
  if (!m->params) return;
  hs_cz_decode(&s->cz, s->out, n, step, s->tmp);
  hs_k_axpy_f32(s->mine, s->tmp, 1.0f, n);
  hs_cz_decode(&s->cz, s->in_l, n, step, s->tmp);
  hs_k_axpy_f32(s->left, s->tmp, 1.0f, n);
  hs_cz_decode(&s->cz, s->in_r, n, step, s->tmp);
  hs_k_axpy_f32(s->right, s->tmp, 1.0f, n);
  memcpy(m->params, s->mine, n * sizeof(float));
}

static void lpd_finish(hs_algo_ctx *ctx) {
  lpd_state *s = ctx->state;
  free(s->mine), free(s->left), free(s->right), free(s->d), free(s->tmp);
  free(s->out), free(s->in_l), free(s->in_r), free(s->momentum);
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
