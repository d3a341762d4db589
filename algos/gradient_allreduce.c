/* gradient_allreduce.c — data-parallel SGD with momentum (PyTorch DDP, Bagua's
 * gradient_allreduce).
 *
 * Each bucket's gradients are averaged with allreduce(avg) as soon as backward
 * has produced them (overlap = true), or all after backward (overlap =
 * false). The step waits for every bucket, then applies SGD with momentum on
 * the flat buffers (hs_sgd_step, which charges its kernel's time). Bytes on the wire per step: the
 * allreduce of the whole model, 2(n-1)/n of its size per rank with a ring. */
#include <stdlib.h>

#include "algos/algorithm.h"
#include "algos/train/sgd.h"

typedef struct {
  hs_request **pending; /* one per bucket */
  float *momentum;      /* numeric runs only */
  int overlap;
} gar_state;

static int gar_init(hs_algo_ctx *ctx) {
  gar_state *s = calloc(1, sizeof *s);
  if (!s) return HS_ENOMEM;
  s->pending = calloc(ctx->model->n_buckets, sizeof *s->pending);
  s->overlap = hs_opt_bool(ctx->opt, "overlap");
  if (ctx->model->params && ctx->sc->workload.momentum > 0)
    s->momentum = calloc(ctx->model->n_params, sizeof(float));
  ctx->state = s;
  return s->pending ? 0 : HS_ENOMEM;
}

static void start_bucket(hs_algo_ctx *ctx, gar_state *s, int b) {
  hs_buf g = hs_model_bucket_buf(ctx->model, ctx->model->grads, b);
  hs_allreduce(ctx->w, ctx->w->world, g, g, HS_AVG, &s->pending[b]);
}

static void gar_bucket_ready(hs_algo_ctx *ctx, int b) {
  gar_state *s = ctx->state;
  if (s->overlap) start_bucket(ctx, s, b);
}

static void gar_step(hs_algo_ctx *ctx) {
  gar_state *s = ctx->state;
  hs_model *m = ctx->model;
  if (!s->overlap)
    for (int b = 0; b < m->n_buckets; b++) start_bucket(ctx, s, b);
  hs_waitall(ctx->w, s->pending, m->n_buckets);
  hs_sgd_step(ctx, m->grads, s->momentum);
}

static void gar_finish(hs_algo_ctx *ctx) {
  gar_state *s = ctx->state;
  free(s->pending);
  free(s->momentum);
  free(s);
}

static const hs_option_spec gar_options[] = {
    {"bucket_size", HS_OPT_BYTES, "25MiB", 1, NULL,
     "gradients are grouped into buckets of about this size, filled in reverse layer order"},
    {"overlap", HS_OPT_BOOL, "true", 0, NULL,
     "start each bucket's allreduce as soon as backward produced it (false: after backward)"},
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_gradient_allreduce = {
    .name = "gradient_allreduce",
    .summary = "data-parallel SGD with momentum: bucketed allreduce(avg) of gradients overlapped with backward",
    .options = gar_options,
    .bucket_option = "bucket_size",
    .init = gar_init,
    .bucket_ready = gar_bucket_ready,
    .step = gar_step,
    .finish = gar_finish,
};
