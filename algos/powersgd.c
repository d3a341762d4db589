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
 * The two allreduces run after backward (the second needs the first). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "algos/ddp_buckets.h"
#include "algos/train/gpu_kernel.h"
#include "algos/train/sgd.h"
#include "kernels/lowrank.h"

typedef struct {
  size_t rows, cols;
  int compressed;
  float *q, *p, *mat, *err; /* numeric runs */
  hs_request *req;
} psgd_bucket;

typedef struct {
  int rank;
  psgd_bucket *b;
  float *momentum;
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
  ctx->state = s;
  hs_model *m = ctx->model;
  s->rank = (int)hs_opt_int(ctx->opt, "rank");
  s->momentum = hs_sgd_momentum_alloc(ctx);
  s->b = calloc(m->n_buckets, sizeof *s->b);
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
    seeded_fill(b->q, b->cols * r, (uint64_t)ctx->sc->run.seed + (uint64_t)i);
  }
  return 0;
}

static hs_buf fbuf(float *data, size_t count) { return data ? hs_buf_host(data, count, HS_F32) : hs_buf_virtual(count, HS_F32); }

static void psgd_step(hs_algo_ctx *ctx) {
  psgd_state *s = ctx->state;
  hs_model *m = ctx->model;
  hs_worker *w = ctx->w;
  size_t r = (size_t)s->rank;
  /* Round 1: P = M Q for every bucket (or the whole bucket when uncompressed). */
  for (int i = 0; i < m->n_buckets; i++) {
    psgd_bucket *b = &s->b[i];
    if (!b->compressed) {
      hs_buf g = hs_model_bucket_buf(m, m->grads, i);
      hs_allreduce(w, w->world, g, g, HS_AVG, &b->req);
      continue;
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
    hs_allreduce(w, w->world, p, p, HS_AVG, &b->req);
  }
  /* Round 2: orthonormalise P, Q = M^T P, averaged. */
  for (int i = 0; i < m->n_buckets; i++) {
    psgd_bucket *b = &s->b[i];
    hs_wait(w, &b->req);
    if (!b->compressed) continue;
    /* Gram-Schmidt on P (2 rows r^2 flops), Q = M^T P (2 rows cols r, reading M) */
    hs_gpu_kernel(ctx, 4.0 * (double)b->rows * (double)b->cols, 2);
    hs_compute(w, 2.0 * (double)b->rows * (double)(r * r) + 2.0 * (double)b->rows * (double)b->cols * (double)r);
    if (b->mat) {
      hs_k_orthonormalize_f32(b->p, b->rows, r);
      hs_k_mtm_f32(b->mat, b->p, b->q, b->cols, b->rows, r);
    }
    hs_buf q = fbuf(b->q, b->cols * r);
    hs_allreduce(w, w->world, q, q, HS_AVG, &b->req);
  }
  /* The approximation replaces the gradient; what it missed is carried over. */
  for (int i = 0; i < m->n_buckets; i++) {
    psgd_bucket *b = &s->b[i];
    if (!b->compressed) continue;
    hs_wait(w, &b->req);
    /* P Q^T (2 rows cols r flops, writing it), err = M - approx and g =
     * approx (read M and approx, write err and g) */
    hs_gpu_kernel(ctx, 4.0 * 5 * (double)b->rows * (double)b->cols, 2);
    hs_compute(w, 2.0 * (double)b->rows * (double)b->cols * (double)r);
    if (!b->mat) continue;
    size_t n = m->buckets[i].count;
    float *g = m->grads + m->buckets[i].offset, *approx = malloc(b->rows * b->cols * sizeof(float));
    hs_k_mmt_f32(b->p, b->q, approx, b->rows, r, b->cols);
    for (size_t j = 0; j < n; j++) {
      b->err[j] = b->mat[j] - approx[j];
      g[j] = approx[j];
    }
    free(approx);
  }
  hs_sgd_step(ctx, m->grads, s->momentum);
}

static void psgd_finish(hs_algo_ctx *ctx) {
  psgd_state *s = ctx->state;
  for (int i = 0; i < ctx->model->n_buckets; i++) {
    psgd_bucket *b = &s->b[i];
    free(b->q), free(b->p), free(b->mat), free(b->err);
  }
  free(s->b), free(s->momentum);
  free(s);
}

static const hs_option_spec psgd_options[] = {
    {"rank", HS_OPT_INT, "4", 1, NULL, "rank r of the approximation"},
    {"bucket_size", HS_OPT_BYTES, "25MiB", 1, NULL, "gradients are compressed per bucket of about this size"},
    HS_DDP_BUCKET_OPTIONS,
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_powersgd = {
    .name = "powersgd",
    .summary = "PowerSGD: rank-r gradient compression with error feedback and warm start",
    .options = psgd_options,
    .bucket_option = "bucket_size",
    HS_DDP_BUCKET_LAYOUT,
    .init = psgd_init,
    .step = psgd_step,
    .finish = psgd_finish,
};
