/* half_allreduce.c — fp16 / bf16 gradient compression (PyTorch DDP's
 * fp16_compress_hook and bf16_compress_hook): the cheap baselines.
 *
 * Each bucket's gradients are divided by n, cast to 16 bits, allreduced
 * (sum, reduced in float32 and rounded once per addition, as NCCL does),
 * and cast back, overlapped with backward like gradient_allreduce. Bytes
 * per step: half of gradient_allreduce's, 2(n-1)/n x 2 bytes per parameter.
 * The hook runs on DDP's buckets, cut at tensors as DDP's reducer cuts
 * them (hs_ddp_cut_at_tensors), so DDP's reducer copies each gradient
 * into its bucket before the hook and back out after it, unless
 * gradient_as_bucket_view (ddp_buckets.h). */
#include <stdint.h>
#include <stdlib.h>

#include "algos/train/gpu_kernel.h"
#include "algos/algorithm.h"
#include "algos/ddp_buckets.h"
#include "algos/train/sgd.h"
#include "kernels/compress.h"

typedef struct {
  hs_dtype type;
  hs_request **pending;
  int bucket_view;     /* no DDP copies (gradient_as_bucket_view) */
  int *bucket_tensors; /* parameter tensors per bucket: the copies' launches */
  uint16_t *half; /* the whole model in 16 bits (numeric runs) */
  float *momentum;
} half_state;

static int half_init(hs_algo_ctx *ctx, hs_dtype type) {
  half_state *s = calloc(1, sizeof *s);
  ctx->state = s;
  s->type = type;
  s->pending = calloc(ctx->model->n_buckets, sizeof *s->pending);
  s->bucket_view = hs_opt_bool(ctx->opt, "gradient_as_bucket_view");
  s->bucket_tensors = hs_ddp_bucket_tensors(ctx->model);
  if (!s->pending || !s->bucket_tensors) return HS_ENOMEM;
  s->momentum = hs_sgd_momentum_alloc(ctx);
  if (ctx->model->params) s->half = malloc(ctx->model->n_params * sizeof *s->half);
  return 0;
}
static int fp16_init(hs_algo_ctx *ctx) { return half_init(ctx, HS_F16); }
static int bf16_init(hs_algo_ctx *ctx) { return half_init(ctx, HS_BF16); }

/* The reducer's copy into the bucket, then the hook's divide (read and
 * write 4 bytes) and convert (read 4, write 2), on the compute stream. */
static double half_bucket_kernels(hs_algo_ctx *ctx, int b) {
  half_state *s = ctx->state;
  double copy = s->bucket_view ? 0 : hs_ddp_copy_in_seconds(ctx, s->bucket_tensors, b);
  return copy + hs_gpu_kernel_seconds(&ctx->sc->cluster, 14.0 * (double)ctx->model->buckets[b].count, 2);
}

static void half_bucket_ready(hs_algo_ctx *ctx, int b) {
  half_state *s = ctx->state;
  hs_model *m = ctx->model;
  const hs_bucket *bk = &m->buckets[b];
  hs_buf h = hs_buf_virtual(bk->count, s->type);
  if (s->half) {
    float *g = m->grads + bk->offset;
    /* Divided first, so the 16-bit sum of n gradients cannot overflow. */
    hs_k_divide(HS_K_F32, g, bk->count, ctx->w->size);
    if (s->type == HS_F16) hs_k_to_f16(g, bk->count, s->half + bk->offset);
    else hs_k_to_bf16(g, bk->count, s->half + bk->offset);
    h.data = s->half + bk->offset;
  }
  hs_allreduce(ctx->w, ctx->w->world, h, h, HS_SUM, &s->pending[b]);
}

static void half_step(hs_algo_ctx *ctx) {
  half_state *s = ctx->state;
  hs_model *m = ctx->model;
  hs_waitall(ctx->w, s->pending, m->n_buckets);
  /* back to 32 bits (read 2, write 4), the reducer's copies out after the
   * hook's futures, then the step, back to back on the stream */
  double kernels = hs_gpu_kernel_seconds(&ctx->sc->cluster, 6.0 * (double)m->n_params, 1);
  if (s->half) {
    if (s->type == HS_F16) hs_k_from_f16(s->half, m->n_params, m->grads);
    else hs_k_from_bf16(s->half, m->n_params, m->grads);
  }
  if (!s->bucket_view) kernels += hs_ddp_copy_out_seconds(ctx);
  hs_sgd_step_after(ctx, kernels, m->grads, s->momentum);
}

static void half_finish(hs_algo_ctx *ctx) {
  half_state *s = ctx->state;
  free(s->pending), free(s->half), free(s->momentum), free(s->bucket_tensors);
  free(s);
}

static const hs_option_spec half_options[] = {
    {"bucket_size", HS_OPT_BYTES, "25MiB", 1, NULL, "gradients are grouped into buckets of about this size"},
    HS_DDP_BUCKET_OPTIONS,
    HS_DDP_BUCKET_VIEW_OPTION,
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_fp16 = {
    .name = "fp16_compress",
    .summary = "gradient allreduce in IEEE half precision (2 bytes per parameter)",
    .options = half_options,
    .bucket_option = "bucket_size",
    HS_DDP_BUCKET_LAYOUT,
    .bucket_layout = hs_ddp_cut_at_tensors,
    .init = fp16_init,
    .bucket_ready = half_bucket_ready,
    .bucket_kernels = half_bucket_kernels,
    .step = half_step,
    .finish = half_finish,
};

const hs_algorithm_desc hs_algo_bf16 = {
    .name = "bf16_compress",
    .summary = "gradient allreduce in bfloat16 (2 bytes per parameter)",
    .options = half_options,
    .bucket_option = "bucket_size",
    HS_DDP_BUCKET_LAYOUT,
    .bucket_layout = hs_ddp_cut_at_tensors,
    .init = bf16_init,
    .bucket_ready = half_bucket_ready,
    .bucket_kernels = half_bucket_kernels,
    .step = half_step,
    .finish = half_finish,
};
