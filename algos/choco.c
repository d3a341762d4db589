/* choco.c — Choco-SGD (Koloskova et al., 2019): decentralized SGD on the
 * ring (weights 1/3) with compressed gossip and a pluggable compressor.
 *
 * Each rank keeps public copies x^ of itself and of its two neighbours
 * (all starting at zero). After the local SGD step:
 *   q = Q(x - x^_self), sent to both neighbours;
 *   x^_self += q, x^_L += q_L, x^_R += q_R;
 *   x += gamma ((x^_L + x^_R)/3 - (2/3) x^_self).
 * compressor = topk | randomk (keep `fraction`; random-k draws the same
 * indices on every rank from the run's seed and the step, so only values
 * travel) | minmax_uint8 | sign (per `chunk`).
 * Bytes per worker per step: 2 x the compressed size (docs/algorithms.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "algos/compressor.h"
#include "algos/ring.h"
#include "algos/sgd.h"

typedef struct {
  hs_compressor cz;
  float gamma;
  size_t wire;
  float *mine, *left, *right, *diff, *tmp;
  uint8_t *out, *in_l, *in_r;
  float *momentum;
} choco_state;

static hs_buf bytes_of(uint8_t *data, size_t n) { return data ? hs_buf_host(data, n, HS_U8) : hs_buf_virtual(n, HS_U8); }

static int choco_init(hs_algo_ctx *ctx) {
  choco_state *s = calloc(1, sizeof *s);
  ctx->state = s;
  hs_model *m = ctx->model;
  s->cz = (hs_compressor){.kind = (hs_cz_kind)hs_cz_parse(hs_opt_str(ctx->opt, "compressor")),
                          .chunk = (size_t)hs_opt_int(ctx->opt, "chunk"),
                          .fraction = hs_opt_num(ctx->opt, "fraction"),
                          .seed = (uint64_t)ctx->sc->run.seed};
  s->gamma = (float)hs_opt_num(ctx->opt, "gamma");
  s->wire = hs_cz_bytes(&s->cz, m->n_params);
  s->momentum = hs_sgd_momentum_alloc(ctx);
  if (m->params) {
    size_t n = m->n_params;
    s->mine = calloc(n, sizeof(float)), s->left = calloc(n, sizeof(float)), s->right = calloc(n, sizeof(float));
    s->diff = malloc(n * sizeof(float)), s->tmp = malloc(n * sizeof(float));
    s->out = malloc(s->wire), s->in_l = malloc(s->wire), s->in_r = malloc(s->wire);
  }
  return 0;
}

static void choco_step(hs_algo_ctx *ctx) {
  choco_state *s = ctx->state;
  hs_model *m = ctx->model;
  size_t n = m->n_params;
  uint64_t step = (uint64_t)ctx->iteration;
  hs_sgd_step(ctx, m->grads, s->momentum);
  if (m->params) {
    for (size_t i = 0; i < n; i++) s->diff[i] = m->params[i] - s->mine[i];
    hs_cz_encode(&s->cz, s->diff, NULL, n, step, s->out);
  }
  hs_request *r = NULL;
  hs_ring_exchange(ctx->w, ctx->w->world, bytes_of(s->out, s->wire), bytes_of(s->in_l, s->wire),
                   bytes_of(s->in_r, s->wire), &r);
  hs_wait(ctx->w, &r);
  if (!m->params) return;
  hs_cz_decode(&s->cz, s->out, n, step, s->tmp);
  hs_k_axpy_f32(s->mine, s->tmp, 1.0f, n);
  hs_cz_decode(&s->cz, s->in_l, n, step, s->tmp);
  hs_k_axpy_f32(s->left, s->tmp, 1.0f, n);
  hs_cz_decode(&s->cz, s->in_r, n, step, s->tmp);
  hs_k_axpy_f32(s->right, s->tmp, 1.0f, n);
  for (size_t i = 0; i < n; i++)
    m->params[i] += s->gamma * ((s->left[i] + s->right[i]) / 3.0f - (2.0f / 3.0f) * s->mine[i]);
}

static void choco_finish(hs_algo_ctx *ctx) {
  choco_state *s = ctx->state;
  free(s->mine), free(s->left), free(s->right), free(s->diff), free(s->tmp);
  free(s->out), free(s->in_l), free(s->in_r), free(s->momentum);
  free(s);
}

static const hs_option_spec choco_options[] = {
    {"compressor", HS_OPT_STRING, "topk", 0, "topk|randomk|minmax_uint8|sign", "how the gossiped differences are compressed"},
    {"fraction", HS_OPT_NUMBER, "0.1", 0, NULL, "topk / randomk: share of the parameters sent each step"},
    {"chunk", HS_OPT_INT, "16384", 1, NULL, "minmax_uint8 / sign: parameters per scale"},
    {"gamma", HS_OPT_NUMBER, "0.5", 0, NULL, "consensus step size"},
    {NULL, 0, NULL, 0, NULL, NULL},
};

static const char *choco_validate(const hs_scenario *sc, char *msg, size_t len) {
  double f = hs_opt_num(&sc->algorithm.options, "fraction");
  if (f <= 0 || f > 1) {
    snprintf(msg, len, "fraction must be in (0, 1], got %g", f);
    return "fraction";
  }
  return NULL;
}

const hs_algorithm_desc hs_algo_choco = {
    .name = "choco",
    .summary = "Choco-SGD: ring gossip of compressed differences to public copies (top-k, random-k, 8-bit, sign)",
    .options = choco_options,
    .validate = choco_validate,
    .init = choco_init,
    .step = choco_step,
    .finish = choco_finish,
};
