/* powersgd.c — PowerSGD (Vogels et al., 2019): rank-r gradient compression
 * with error feedback and warm start.
 *
 * Each bucket of b gradients is viewed as a rows x cols matrix M (rows =
 * ceil(sqrt(b)), zero-padded), the error of the previous step added:
 *   P = M Q; allreduce(avg) P; orthonormalise P; Q = M^T P; allreduce(avg) Q;
 *   M~ = P Q^T is the averaged gradient; error = M - M~; Q is kept (warm start).
 * Q starts from the same seeded draw on every rank. A bucket too small for
 * compression to pay (r (rows + cols) >= b) is allreduced as is.
 * Bytes per worker per step and bucket: 2 (n-1)/n x 4 r (rows + cols) (ring).
 *
 * As PyTorch's powerSGD_hook runs it (a DDP communication hook: called for
 * each bucket as soon as the bucket is ready, its two allreduces chained
 * by futures), a bucket's whole chain (M and P, the allreduce of P,
 * orthonormalising and Q, the allreduce of Q, the approximation and the
 * error) runs on a communication stream (algos/comm_stream.h) while
 * backward goes on, one bucket after the other; the step waits for the
 * stream before the optimizer. Vogels et al.'s own code compressed after
 * backward; the hook is what users run. DDP's reducer copies each
 * gradient into its bucket before the hook and back out after it, unless
 * gradient_as_bucket_view (ddp_buckets.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "algos/comm_stream.h"
#include "algos/ddp_buckets.h"
#include "algos/train/gpu_kernel.h"
#include "algos/train/sgd.h"
#include "kernels/lowrank.h"

typedef struct {
  size_t rows, cols;
  int compressed;
  float *q, *p, *mat, *err; /* numeric runs */
} psgd_bucket;

typedef struct {
  hs_algo_ctx *ctx;
  int rank;
  psgd_bucket *b;
  float *momentum;
  hs_comm *own;           /* the stream posts on a copy of world, not the training thread's */
  hs_comm_stream *stream; /* the buckets' chains, in order */
  int bucket_view;        /* no DDP copies (gradient_as_bucket_view) */
  int *bucket_tensors;    /* parameter tensors per bucket: the copies' launches */
  float *approx;          /* numeric runs: P Q^T of the bucket the stream is on (it runs one at a time) */
} psgd_state;

/* Same uniform draw on every rank: Q is shared without being sent. */
static void seeded_fill(float *x, size_t n, uint64_t seed) {
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
  for (size_t i = 0; i < n; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    x[i] = (float)((double)(s >> 11) / 9007199254740992.0 - 0.5);
  }
}

static int psgd_init(hs_algo_ctx *ctx) {
  psgd_state *s = calloc(1, sizeof *s);
  if (!s) return HS_ENOMEM;
  ctx->state = s;
  s->ctx = ctx;
  hs_model *m = ctx->model;
  int rc = hs_comm_split(ctx->w, ctx->w->world, 0, ctx->w->rank, &s->own);
  if (rc) return rc;
  if (!(s->stream = hs_comm_stream_start(ctx->w, m->n_buckets))) return HS_ENOMEM;
  s->rank = (int)hs_opt_int(ctx->opt, "rank");
  s->bucket_view = hs_opt_bool(ctx->opt, "gradient_as_bucket_view");
  if (!(s->bucket_tensors = hs_ddp_bucket_tensors(m))) return HS_ENOMEM;
  s->momentum = hs_sgd_momentum_alloc(ctx);
  s->b = calloc(m->n_buckets, sizeof *s->b);
  if (!s->b) return HS_ENOMEM;
  size_t most = 0; /* the largest compressed bucket's matrix */
  for (int i = 0; i < m->n_buckets; i++) {
    psgd_bucket *b = &s->b[i];
    size_t n = m->buckets[i].count, r = (size_t)s->rank;
    b->rows = (size_t)ceil(sqrt((double)n));
    b->cols = (n + b->rows - 1) / b->rows;
    b->compressed = r * (b->rows + b->cols) < n;
    if (!m->params || !b->compressed) continue;
    b->q = malloc(b->cols * r * sizeof(float));
    b->p = malloc(b->rows * r * sizeof(float));
    b->mat = calloc(b->rows * b->cols, sizeof(float));
    b->err = calloc(b->rows * b->cols, sizeof(float));
    if (!b->q || !b->p || !b->mat || !b->err) return HS_ENOMEM;
    seeded_fill(b->q, b->cols * r, (uint64_t)ctx->sc->run.seed + (uint64_t)i);
    if (b->rows * b->cols > most) most = b->rows * b->cols;
  }
  if (most && !(s->approx = malloc(most * sizeof(float)))) return HS_ENOMEM;
  return 0;
}

static hs_buf fbuf(float *data, size_t count) { return data ? hs_buf_host(data, count, HS_F32) : hs_buf_virtual(count, HS_F32); }

/* On the communication stream: bucket i's chain, P's allreduce, then Q's. */
static void bucket_chain(void *arg, int i) {
  psgd_state *s = arg;
  hs_algo_ctx *ctx = s->ctx;
  hs_model *m = ctx->model;
  hs_worker *w = ctx->w;
  psgd_bucket *b = &s->b[i];
  size_t r = (size_t)s->rank;
  hs_request *q = NULL;
  if (!b->compressed) {
    hs_buf g = hs_model_bucket_buf(m, m->grads, i);
    hs_allreduce(w, s->own, g, g, HS_AVG, &q);
    hs_wait(w, &q);
    return;
  }
  /* M = g + err (read both, write M), P = M Q: a matmul of 2 rows cols r
   * flops at the GPU's speed, reading M */
  double cells = (double)b->rows * (double)b->cols;
  hs_gpu_kernel(ctx, 4 * 4 * cells, 2);
  hs_compute(w, 2 * cells * (double)r);
  if (b->mat) {
    size_t n = m->buckets[i].count;
    float *g = m->grads + m->buckets[i].offset;
    for (size_t j = 0; j < n; j++) b->mat[j] = g[j] + b->err[j];
    hs_k_mm_f32(b->mat, b->q, b->p, b->rows, b->cols, r);
  }
  hs_buf p = fbuf(b->p, b->rows * r);
  hs_allreduce(w, s->own, p, p, HS_AVG, &q);
  hs_wait(w, &q);
  /* Gram-Schmidt on P (2 rows r^2 flops), Q = M^T P (2 rows cols r, reading M) */
  hs_gpu_kernel(ctx, 4.0 * cells, 2);
  hs_compute(w, 2.0 * (double)b->rows * (double)(r * r) + 2.0 * cells * (double)r);
  if (b->mat) {
    hs_k_orthonormalize_f32(b->p, b->rows, r);
    hs_k_mtm_f32(b->mat, b->p, b->q, b->cols, b->rows, r);
  }
  hs_buf qb = fbuf(b->q, b->cols * r);
  hs_allreduce(w, s->own, qb, qb, HS_AVG, &q);
  hs_wait(w, &q);
  /* The approximation replaces the gradient; what it missed is carried
   * over: P Q^T (2 rows cols r flops, writing it), err = M - approx and g =
   * approx (read M and approx, write err and g) */
  hs_gpu_kernel(ctx, 4.0 * 5 * cells, 2);
  hs_compute(w, 2.0 * cells * (double)r);
  if (!b->mat) return;
  size_t n = m->buckets[i].count;
  float *g = m->grads + m->buckets[i].offset, *approx = s->approx;
  hs_k_mmt_f32(b->p, b->q, approx, b->rows, r, b->cols);
  for (size_t j = 0; j < n; j++) {
    b->err[j] = b->mat[j] - approx[j];
    g[j] = approx[j];
  }
}

/* The reducer's copy into the bucket, before the hook. */
static double psgd_bucket_kernels(hs_algo_ctx *ctx, int i) {
  psgd_state *s = ctx->state;
  return s->bucket_view ? 0 : hs_ddp_copy_in_seconds(ctx, s->bucket_tensors, i);
}

static void psgd_bucket_ready(hs_algo_ctx *ctx, int i) {
  psgd_state *s = ctx->state;
  hs_comm_stream_enqueue(s->stream, bucket_chain, s, i);
}

static void psgd_step(hs_algo_ctx *ctx) {
  psgd_state *s = ctx->state;
  hs_comm_stream_sync(s->stream);
  /* the reducer's copies out after the hook's futures, then the step */
  hs_sgd_step_after(ctx, s->bucket_view ? 0 : hs_ddp_copy_out_seconds(ctx), ctx->model->grads, s->momentum);
}

static void psgd_finish(hs_algo_ctx *ctx) {
  psgd_state *s = ctx->state;
  hs_comm_stream_stop(s->stream);
  if (s->own) hs_comm_free(ctx->w, s->own);
  for (int i = 0; s->b && i < ctx->model->n_buckets; i++) { /* none if init ran out of memory first */
    psgd_bucket *b = &s->b[i];
    free(b->q), free(b->p), free(b->mat), free(b->err);
  }
  free(s->b), free(s->momentum), free(s->bucket_tensors), free(s->approx);
  free(s);
}

static const hs_option_spec psgd_options[] = {
    {"rank", HS_OPT_INT, "4", 1, NULL, "rank r of the approximation"},
    {"bucket_size", HS_OPT_BYTES, "25MiB", 1, NULL, "gradients are compressed per bucket of about this size"},
    HS_DDP_BUCKET_OPTIONS,
    HS_DDP_BUCKET_VIEW_OPTION,
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_powersgd = {
    .name = "powersgd",
    .summary = "PowerSGD: rank-r gradient compression with error feedback and warm start",
    .options = psgd_options,
    .bucket_option = "bucket_size",
    HS_DDP_BUCKET_LAYOUT,
    .init = psgd_init,
    .bucket_ready = psgd_bucket_ready,
    .bucket_kernels = psgd_bucket_kernels,
    .step = psgd_step,
    .finish = psgd_finish,
};
