/* gradient_allreduce.c — data-parallel SGD with momentum (PyTorch DDP, Bagua's
 * gradient_allreduce).
 *
 * Each bucket's gradients are averaged with allreduce(avg) as soon as backward
 * has produced them (overlap = true), or all after backward (overlap =
 * false). The step waits for every bucket, then applies SGD with momentum on
 * the flat buffers (hs_sgd_step, which charges its kernel's time). Bytes on the wire per step: the
 * allreduce of the whole model, 2(n-1)/n of its size per rank with a ring.
 *
 * PyTorch DDP's reducer, by default (gradient_as_bucket_view=False), keeps
 * each parameter's gradient apart from the bucket it is reduced in: as a
 * gradient is ready it is copied into the bucket, divided by the world size
 * on the way (Reducer::mark_variable_ready_dense, one at::mul_out per
 * tensor, on the compute stream), and after the allreduce every gradient
 * is copied back out of the bucket (copy_bucket_to_grad, one per tensor).
 * That is 8 bytes a parameter each way, a launch per tensor each way.
 * Bagua flattens the gradients into the buckets themselves and copies
 * nothing: gradient_as_bucket_view = true. */
#include <stdlib.h>

#include "algos/algorithm.h"
#include "algos/train/gpu_kernel.h"
#include "algos/train/sgd.h"

typedef struct {
  hs_request **pending; /* one per bucket */
  float *momentum;      /* numeric runs only */
  int overlap;
  int bucket_view;      /* gradients live in their buckets: no copies */
  int *bucket_tensors;  /* layers (tensors) per bucket: the copies' launches */
} gar_state;

static int gar_init(hs_algo_ctx *ctx) {
  gar_state *s = calloc(1, sizeof *s);
  if (!s) return HS_ENOMEM;
  ctx->state = s;
  s->pending = calloc(ctx->model->n_buckets, sizeof *s->pending);
  s->overlap = hs_opt_bool(ctx->opt, "overlap");
  s->bucket_view = hs_opt_bool(ctx->opt, "gradient_as_bucket_view");
  s->bucket_tensors = calloc(ctx->model->n_buckets, sizeof *s->bucket_tensors);
  if (!s->pending || !s->bucket_tensors) return HS_ENOMEM;
  for (int l = 0; l < ctx->model->n_layers; l++) s->bucket_tensors[ctx->model->layers[l].bucket]++;
  if (ctx->model->params && ctx->sc->workload.momentum > 0)
    s->momentum = calloc(ctx->model->n_params, sizeof(float));
  return 0;
}

static void start_bucket(hs_algo_ctx *ctx, gar_state *s, int b) {
  hs_buf g = hs_model_bucket_buf(ctx->model, ctx->model->grads, b);
  hs_allreduce(ctx->w, ctx->w->world, g, g, HS_AVG, &s->pending[b]);
}

static void gar_bucket_ready(hs_algo_ctx *ctx, int b) {
  gar_state *s = ctx->state;
  /* the copy (and division) into the bucket runs in backward's hooks,
   * on the compute stream, overlapped or not */
  if (!s->bucket_view) hs_gpu_kernel(ctx, 8.0 * (double)ctx->model->buckets[b].count, s->bucket_tensors[b]);
  if (s->overlap) start_bucket(ctx, s, b);
}

static void gar_step(hs_algo_ctx *ctx) {
  gar_state *s = ctx->state;
  hs_model *m = ctx->model;
  if (!s->overlap)
    for (int b = 0; b < m->n_buckets; b++) start_bucket(ctx, s, b);
  hs_waitall(ctx->w, s->pending, m->n_buckets);
  if (!s->bucket_view) hs_gpu_kernel(ctx, 8.0 * (double)m->n_params, m->n_layers); /* copies back out */
  hs_sgd_step(ctx, m->grads, s->momentum);
}

static void gar_finish(hs_algo_ctx *ctx) {
  gar_state *s = ctx->state;
  free(s->pending);
  free(s->bucket_tensors);
  free(s->momentum);
  free(s);
}

static const hs_option_spec gar_options[] = {
    {"bucket_size", HS_OPT_BYTES, "25MiB", 1, NULL,
     "gradients are grouped into buckets of about this size, filled in reverse layer order"},
    {"overlap", HS_OPT_BOOL, "true", 0, NULL,
     "start each bucket's allreduce as soon as backward produced it (false: after backward)"},
    {"gradient_as_bucket_view", HS_OPT_BOOL, "false", 0, NULL,
     "gradients live in their buckets (Bagua, DDP's gradient_as_bucket_view=True); false: DDP's default, each gradient "
     "copied into its bucket and back, 8 bytes a parameter and a launch per tensor each way"},
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
