/* choco.c — Choco-SGD (Koloskova et al., 2019): decentralized SGD on the
 * ring (weights 1/3) with compressed gossip and a pluggable compressor.
 *
 * Each rank keeps public copies x^ of itself and of its two neighbours
 * (all starting at zero; after a shrink, at the agreed weights). After the
 * local SGD step:
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
#include "algos/ring_copies.h"
#include "algos/train/gpu_kernel.h"
#include "algos/train/sgd.h"

typedef struct {
  hs_ring_copies ring;
  float gamma;
  float *momentum;
} choco_state;

static int choco_init(hs_algo_ctx *ctx) {
  choco_state *s = calloc(1, sizeof *s);
  ctx->state = s;
  hs_compressor cz = {.kind = (hs_cz_kind)hs_cz_parse(hs_opt_str(ctx->opt, "compressor")),
                      .chunk = (size_t)hs_opt_int(ctx->opt, "chunk"),
                      .fraction = hs_opt_num(ctx->opt, "fraction"),
                      .seed = (uint64_t)ctx->sc->run.seed};
  hs_ring_copies_init(&s->ring, &cz, &ctx->sc->cluster, ctx->model->n_params, ctx->model->params != NULL);
  /* After a shrink every survivor holds the same agreed weights
   * (algorithm.h), so every public copy is known without a message: start
   * them there rather than at zero, which would make the first rounds pull
   * the equal replicas apart while the copies catch up. */
  hs_model *m = ctx->model;
  if (ctx->restarts > 0 && m->params) {
    memcpy(s->ring.mine, m->params, m->n_params * sizeof(float));
    memcpy(s->ring.left, m->params, m->n_params * sizeof(float));
    memcpy(s->ring.right, m->params, m->n_params * sizeof(float));
  }
  s->gamma = (float)hs_opt_num(ctx->opt, "gamma");
  s->momentum = hs_sgd_momentum_alloc(ctx);
  return 0;
}

static void choco_step(hs_algo_ctx *ctx) {
  choco_state *s = ctx->state;
  hs_ring_copies *r = &s->ring;
  hs_model *m = ctx->model;
  hs_sgd_step(ctx, m->grads, s->momentum);
  double np = (double)m->n_params;
  hs_gpu_kernel(ctx, 12 * np, 1); /* the difference: reads x and x^, writes d */
  if (m->params)
    for (size_t i = 0; i < r->n; i++) r->diff[i] = m->params[i] - r->mine[i];
  hs_ring_copies_round(r, ctx->w, ctx->w->world, (uint64_t)ctx->iteration);
  hs_gpu_kernel(ctx, 20 * np, 1); /* the mixing: reads x and three copies, writes x */
  if (m->params)
    for (size_t i = 0; i < r->n; i++)
      m->params[i] += s->gamma * ((r->left[i] + r->right[i]) / 3.0f - (2.0f / 3.0f) * r->mine[i]);
}

static void choco_finish(hs_algo_ctx *ctx) {
  choco_state *s = ctx->state;
  hs_ring_copies_free(&s->ring);
  free(s->momentum);
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
