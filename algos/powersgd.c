/* powersgd.c — PowerSGD (Vogels et al., 2019): rank-r gradient compression
 * with error feedback and warm start, tensor by tensor as PyTorch's
 * powerSGD_hook (torch/distributed/algorithms/ddp_comm_hooks) runs it.
 *
 * Each bucket's gradients plus the error carried from the previous step
 * (M = g + err, the whole bucket) are split as the model's tensors are:
 * each parameter tensor of two or more dimensions is a matrix, shape[0]
 * rows by the rest (the profile's `matrices`, docs/scenarios.md), and is
 * compressed if that pays min_compression_rate times over
 * ((rows + cols) r x rate < rows cols, the hook's _should_compress); the
 * vectors (biases, norms) and the matrices that do not pay go as they are.
 * As the hook chains them by futures: each Q orthonormalised (warm start)
 * and P = M Q; the uncompressed tensors' allreduce (avg), copied back
 * tensor by tensor; every P's allreduce together; each P orthonormalised
 * and Q = M^T P; every Q's allreduce together; P Q^T replaces each
 * matrix's gradient, and the error is M less what replaced it (the
 * uncompressed tensors' too: M less their average, as the hook's
 * error_dict holds). Up to three allreduces a bucket (none of zero
 * elements). Q starts from the same seeded draw on every rank. A layer
 * whose profile gives no shapes is viewed as one near-square matrix
 * (floor(sqrt(p)) rows, what is left over a vector): shipped profiles
 * give their shapes. Vogels et al.'s own reducer differs in details (it
 * compresses every tensor of two or more dimensions, allreduces P first,
 * keeps no error for the vectors, skips orthonormalising Q); the hook is
 * what users run. Its first start_powerSGD_iter steps (PyTorch's default
 * 1 000; at least 2 with error feedback or warm start, since DDP rebuilds
 * its buckets after the first) are plain allreduce (default._allreduce_fut:
 * the bucket divided by the world, then allreduced, nothing waited for):
 * warmup_steps here, 0 by default, so that a run measures the compression
 * phase from its first step.
 * Bytes per worker per step and bucket, ring: 2 (n-1)/n x e (u + r sum rows
 * + r sum cols), u the uncompressed elements, e the element's bytes.
 *
 * batched = true is the hook's other form, batched_powerSGD_hook: the
 * whole bucket of n elements viewed as one square of side ceil(sqrt(n)),
 * zero-padded (resize_ and fill_), always compressed whatever it saves,
 * its error kept over the padded length; P's and Q's allreduces only
 * (2 (n-1)/n x e x 2 side r a bucket). Faster, and "usually ... a much
 * lower accuracy, unless matrix_approximation_rank is 1" (its docstring).
 *
 * Costs, as the hook launches them: the error's add and clone and the
 * uncompressed tensors' gathering over the bucket; per compressed matrix
 * two orthonormalisations (Q before P, P after its allreduce: Gram-Schmidt,
 * 2r + 4(r - 1) launches each, a norm and a division a column and a
 * product, a sum, a product and a subtraction for the columns after it;
 * the hook calls torch.linalg.qr for r > 2, assumed to launch as many) and
 * three matmuls (P, Q, P Q^T); the divisions by the world and a copy back
 * per uncompressed tensor; the error's subtraction.
 *
 * The chain runs on a communication stream (algos/comm_stream.h), one
 * bucket after the other, but backward waits for it: the hook runs on the
 * thread that launches backward and ends each bucket with
 * torch.cuda.synchronize (sync_each_bucket; false lets the chain run
 * beside backward); the step waits for the stream before the optimizer.
 * Waited for so, the hook's host is on the path too (measured on an
 * H200: docs/validation.md, "DDP and its hooks on one GPU"): each of its
 * operations costs the host cluster.host.op_overhead to issue from
 * Python, each collective with its future host.collective_overhead, and
 * after each synchronize the GPU idles host.sync_overhead until backward
 * is issued again.
 * DDP's reducer copies each gradient into its bucket before the hook and
 * back out after it, unless gradient_as_bucket_view (ddp_buckets.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "algos/comm_stream.h"
#include "algos/ddp_buckets.h"
#include "algos/train/gpu_kernel.h"
#include "algos/train/sgd.h"
#include "kernels/lowrank.h"

/* A compressed matrix of a bucket: its cells from `offset` (elements from
 * the bucket's start, row-major), its P and Q in the bucket's P and Q. */
typedef struct {
  size_t offset, rows, cols, p_at, q_at;
} psgd_matrix;

/* A run of uncompressed elements of a bucket. */
typedef struct {
  size_t offset, count;
} psgd_run;

typedef struct {
  psgd_matrix *mats;
  int n_mats;
  psgd_run *runs;
  int n_runs;
  size_t p_len, q_len, n_unc; /* elements of P, of Q, uncompressed */
  int unc_tensors;            /* uncompressed tensors: the hook copies each back */
  size_t len;                 /* elements the hook works over: the bucket's, or batched its padded square's */
  double cells;               /* compressed matrices' cells together */
  double p_gs_flops, q_gs_flops; /* orthonormalising every P, every Q: 2 rows r^2, 2 cols r^2 each */
  float *q, *p, *mat, *err, *unc; /* numeric runs */
} psgd_bucket;

typedef struct {
  hs_algo_ctx *ctx;
  int rank;
  psgd_bucket *b;
  float *momentum;
  hs_comm *own;           /* the stream posts on a copy of world, not the training thread's */
  hs_comm_stream *stream; /* the buckets' chains, in order */
  int bucket_view;        /* no DDP copies (gradient_as_bucket_view) */
  int sync_each_bucket;   /* the hook's torch.cuda.synchronize after each bucket */
  int batched;            /* batched_powerSGD_hook: the bucket as one padded square */
  int warmup, start;      /* plain allreduce for the first `warmup` steps since init (at `start`) */
  hs_request **pending;   /* those steps' allreduces, one a bucket */
  int *bucket_tensors;    /* parameter tensors per bucket: the copies' launches */
  float *approx;          /* numeric runs: one matrix's P Q^T (the stream runs one chain at a time) */
} psgd_state;

/* Same uniform draw on every rank: Q is shared without being sent. */
static void seeded_fill(float *x, size_t n, uint64_t seed) {
  uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
  for (size_t i = 0; i < n; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    x[i] = (float)((double)(s >> 11) / 9007199254740992.0 - 0.5);
  }
}

static int add_run(psgd_bucket *b, size_t offset, size_t count) {
  if (!count) return 0;
  if (b->n_runs && b->runs[b->n_runs - 1].offset + b->runs[b->n_runs - 1].count == offset) {
    b->runs[b->n_runs - 1].count += count;
  } else {
    psgd_run *r = realloc(b->runs, (size_t)(b->n_runs + 1) * sizeof *r);
    if (!r) return HS_ENOMEM;
    b->runs = r;
    b->runs[b->n_runs++] = (psgd_run){offset, count};
  }
  b->n_unc += count;
  return 0;
}

/* A matrix of the layer at `at` (elements from the bucket's start):
 * compressed where it pays, else left to the uncompressed runs. */
static int add_matrix(psgd_bucket *b, size_t at, size_t rows, size_t cols, size_t r, double rate) {
  if (rate > 0 && !((double)(rows + cols) * (double)r * rate < (double)rows * (double)cols))
    return add_run(b, at, rows * cols);
  psgd_matrix *m = realloc(b->mats, (size_t)(b->n_mats + 1) * sizeof *m);
  if (!m) return HS_ENOMEM;
  b->mats = m;
  b->mats[b->n_mats++] = (psgd_matrix){at, rows, cols, b->p_len, b->q_len};
  b->p_len += rows * r, b->q_len += cols * r;
  b->cells += (double)rows * (double)cols;
  b->p_gs_flops += 2.0 * (double)rows * (double)(r * r);
  b->q_gs_flops += 2.0 * (double)cols * (double)(r * r);
  return 0;
}

/* Bucket i's matrices and uncompressed runs, from its layers' shapes. */
static int split_bucket(const hs_algo_ctx *ctx, int i, size_t r, double rate, psgd_bucket *b) {
  const hs_model *m = ctx->model;
  const hs_layer_spec *spec = ctx->sc->workload.layers;
  int rc = 0;
  b->len = m->buckets[i].count;
  if (hs_opt_bool(ctx->opt, "batched")) { /* one padded square, compressed whatever it saves (rate 0) */
    size_t side = (size_t)ceil(sqrt((double)b->len));
    while (side * side < b->len) side++; /* sqrt's rounding */
    b->len = side * side;
    return b->len ? add_matrix(b, 0, side, side, r, 0) : 0;
  }
  for (int l = 0; l < m->n_layers && !rc; l++) {
    const hs_layer *L = &m->layers[l];
    if (L->bucket != i || !L->count) continue;
    size_t at = L->offset - m->buckets[i].offset, used = 0;
    int before = b->n_mats;
    if (spec[l].matrices_given) {
      for (int k = 0; k < spec[l].n_matrices && !rc; k++) {
        size_t rows = (size_t)spec[l].matrices[k][0], cols = (size_t)spec[l].matrices[k][1];
        rc = add_matrix(b, at + used, rows, cols, r, rate);
        used += rows * cols;
      }
    } else {
      /* no shapes given: one near-square matrix, the rest a vector */
      size_t rows = (size_t)floor(sqrt((double)L->count)), cols = rows ? L->count / rows : 0;
      if (rows) rc = add_matrix(b, at, rows, cols, r, rate);
      used = rows * cols;
    }
    if (!rc) rc = add_run(b, at + used, L->count - used);
    b->unc_tensors += L->tensors - (b->n_mats - before);
  }
  return rc;
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
  s->sync_each_bucket = hs_opt_bool(ctx->opt, "sync_each_bucket");
  s->batched = hs_opt_bool(ctx->opt, "batched");
  s->warmup = (int)hs_opt_int(ctx->opt, "warmup_steps");
  s->start = ctx->iteration; /* after a shrink the hook's state starts again, as a new DDP's would */
  if (!(s->pending = calloc(m->n_buckets > 0 ? (size_t)m->n_buckets : 1, sizeof *s->pending))) return HS_ENOMEM;
  if (!(s->bucket_tensors = hs_ddp_bucket_tensors(m))) return HS_ENOMEM;
  s->momentum = hs_sgd_momentum_alloc(ctx);
  s->b = calloc(m->n_buckets, sizeof *s->b);
  if (!s->b) return HS_ENOMEM;
  size_t r = (size_t)s->rank, most = 0; /* the largest compressed matrix */
  double rate = hs_opt_num(ctx->opt, "min_compression_rate");
  for (int i = 0; i < m->n_buckets; i++) {
    psgd_bucket *b = &s->b[i];
    if ((rc = split_bucket(ctx, i, r, rate, b))) return rc;
    for (int k = 0; k < b->n_mats; k++)
      if (b->mats[k].rows * b->mats[k].cols > most) most = b->mats[k].rows * b->mats[k].cols;
    if (!m->params) continue;
    size_t n = b->len; /* the hook's M and error: the padded square's, batched */
    b->q = malloc((b->q_len ? b->q_len : 1) * sizeof(float));
    b->p = malloc((b->p_len ? b->p_len : 1) * sizeof(float));
    b->mat = malloc((n ? n : 1) * sizeof(float));
    b->err = calloc(n ? n : 1, sizeof(float));
    b->unc = malloc((b->n_unc ? b->n_unc : 1) * sizeof(float));
    if (!b->q || !b->p || !b->mat || !b->err || !b->unc) return HS_ENOMEM;
    seeded_fill(b->q, b->q_len, (uint64_t)ctx->sc->run.seed + (uint64_t)i);
  }
  if (m->params && most && !(s->approx = malloc(most * sizeof(float)))) return HS_ENOMEM;
  return 0;
}

/* Numeric runs send their floats; timing-only ones the bucket's element
 * type, as the hook's P, Q and torch.cat keep the gradients' dtype. */
static hs_buf fbuf(const hs_model *m, float *data, size_t count) {
  return data ? hs_buf_host(data, count, HS_F32) : hs_buf_virtual(count, m->dtype);
}

/* The hook is Python, and where backward waits for its chain (the
 * synchronize) the GPU waits for the host too: each of its tensor
 * operations costs the host cluster.host.op_overhead to issue, so a group
 * of them takes the longer of that and what its kernels take on the GPU
 * (the GPU runs each as soon as it is issued). Beside backward
 * (sync_each_bucket = false) the host's lead over the GPU is taken to
 * hide it, and only the kernels are charged. */
static void psgd_kernels(const psgd_state *s, double bytes, int launches) {
  hs_algo_ctx *ctx = s->ctx;
  const hs_cluster_spec *c = &ctx->sc->cluster;
  double gpu = hs_gpu_kernel_seconds(c, bytes, launches);
  double host = s->sync_each_bucket ? launches * c->host_op_overhead : 0;
  hs_gpu_busy(ctx->w, host > gpu ? host : gpu);
}

/* A collective the hook posts through torch.distributed, its future and
 * callback: the host's cluster.host.collective_overhead first, where the
 * GPU waits for it. */
static void psgd_allreduce(const psgd_state *s, hs_buf x, hs_request **q) {
  hs_algo_ctx *ctx = s->ctx;
  if (s->sync_each_bucket) hs_gpu_busy(ctx->w, ctx->sc->cluster.host_collective_overhead);
  hs_allreduce(ctx->w, s->own, x, x, HS_AVG, q);
}

/* The uncompressed runs of `bucket` gathered into `packed` (torch.cat),
 * or scattered back from it. */
static void pack_runs(const psgd_bucket *b, float *bucket, float *packed, int back) {
  size_t k = 0;
  for (int j = 0; j < b->n_runs; j++) {
    float *x = bucket + b->runs[j].offset;
    if (back) memcpy(x, packed + k, b->runs[j].count * sizeof(float));
    else memcpy(packed + k, x, b->runs[j].count * sizeof(float));
    k += b->runs[j].count;
  }
}

/* On the communication stream: bucket i's chain, as the hook chains it
 * by futures: P computed, the uncompressed tensors' allreduce, then P's,
 * then Q's. */
static void bucket_chain(void *arg, int i) {
  psgd_state *s = arg;
  hs_algo_ctx *ctx = s->ctx;
  hs_model *m = ctx->model;
  hs_worker *w = ctx->w;
  psgd_bucket *b = &s->b[i];
  size_t r = (size_t)s->rank, n = m->buckets[i].count, len = b->len;
  double e = (double)hs_dtype_size(m->dtype); /* bytes an element */
  int gs = (int)(2 * r + 4 * (r - 1));        /* Gram-Schmidt's launches a matrix */
  hs_request *q = NULL;
  float *g = b->mat ? m->grads + m->buckets[i].offset : NULL;
  /* batched: the bucket grown to its square (resize_ moves it to a larger
   * block: read n, write n) and the padding zeroed (fill_) */
  if (s->batched) psgd_kernels(s, e * (double)(n + len), 2);
  /* M = g + err over the bucket (the hook's add_ and clone: read two,
   * write two), the uncompressed tensors gathered (torch.cat: read and
   * write them; the batched hook has none), each Q orthonormalised (the
   * warm start's) and each P = M Q (a matmul, 2 rows cols r flops,
   * reading M) */
  psgd_kernels(s, e * (4.0 * (double)len + 2.0 * (double)b->n_unc + b->cells),
               (s->batched ? 2 : 3) + b->n_mats * (gs + 1));
  hs_compute(w, b->q_gs_flops + 2 * b->cells * (double)r);
  if (b->mat) {
    for (size_t j = 0; j < len; j++) b->mat[j] = (j < n ? g[j] : 0.0f) + b->err[j];
    pack_runs(b, b->mat, b->unc, 0);
    for (int k = 0; k < b->n_mats; k++) {
      const psgd_matrix *x = &b->mats[k];
      hs_k_orthonormalize_f32(b->q + x->q_at, x->cols, r);
      hs_k_mm_f32(b->mat + x->offset, b->q + x->q_at, b->p + x->p_at, x->rows, x->cols, r);
    }
  }
  /* the uncompressed tensors' allreduce; then its division by the world
   * and a copy back into each of them (read and write them) */
  if (b->n_unc) {
    hs_buf u = fbuf(m, b->unc, b->n_unc);
    psgd_allreduce(s, u, &q);
    hs_wait(w, &q);
    psgd_kernels(s, e * 4.0 * (double)b->n_unc, 1 + b->unc_tensors);
    if (g) pack_runs(b, g, b->unc, 1);
  }
  if (b->n_mats) {
    hs_buf p = fbuf(m, b->p, b->p_len);
    psgd_allreduce(s, p, &q);
    hs_wait(w, &q);
    /* each P orthonormalised, each Q = M^T P (2 rows cols r flops,
     * reading M) */
    psgd_kernels(s, e * b->cells, b->n_mats * (gs + 1));
    hs_compute(w, b->p_gs_flops + 2.0 * b->cells * (double)r);
    for (int k = 0; b->mat && k < b->n_mats; k++) {
      const psgd_matrix *x = &b->mats[k];
      hs_k_orthonormalize_f32(b->p + x->p_at, x->rows, r);
      hs_k_mtm_f32(b->mat + x->offset, b->p + x->p_at, b->q + x->q_at, x->cols, x->rows, r);
    }
    hs_buf qb = fbuf(m, b->q, b->q_len);
    psgd_allreduce(s, qb, &q);
    hs_wait(w, &q);
  }
  /* Q divided by the world, each P Q^T written over its matrix's
   * gradient (2 rows cols r flops), the error M less what replaced it
   * (read two, write one over the bucket) */
  psgd_kernels(s, e * (b->cells + 3.0 * (double)len), (b->n_mats > 0) + b->n_mats + 1);
  hs_compute(w, 2.0 * b->cells * (double)r);
  if (!b->mat) return;
  if (s->batched) { /* one square: its first n cells are the gradient, the error is kept over all */
    if (!b->n_mats) return;
    hs_k_mmt_f32(b->p, b->q, s->approx, b->mats[0].rows, r, b->mats[0].cols);
    memcpy(g, s->approx, n * sizeof(float));
    for (size_t j = 0; j < len; j++) b->err[j] = b->mat[j] - s->approx[j];
    return;
  }
  for (int k = 0; k < b->n_mats; k++) {
    const psgd_matrix *x = &b->mats[k];
    hs_k_mmt_f32(b->p + x->p_at, b->q + x->q_at, s->approx, x->rows, r, x->cols);
    memcpy(g + x->offset, s->approx, x->rows * x->cols * sizeof(float));
  }
  for (size_t j = 0; j < n; j++) b->err[j] = b->mat[j] - g[j];
}

/* The reducer's copy into the bucket, before the hook. */
static double psgd_bucket_kernels(hs_algo_ctx *ctx, int i) {
  psgd_state *s = ctx->state;
  return s->bucket_view ? 0 : hs_ddp_copy_in_seconds(ctx, s->bucket_tensors, i);
}

/* The hook runs on the thread that runs backward (DDP's reducer calls it
 * as the bucket is ready, and NCCL's futures run their callbacks as the
 * collectives are enqueued), and its decompress ends with
 * torch.cuda.synchronize(device) ("Removing this seemingly unnecessary sync
 * somehow may cause failures", pytorch/pytorch#54838): backward launches
 * nothing more until the bucket's whole chain is done on the GPU. */
static void psgd_bucket_ready(hs_algo_ctx *ctx, int i) {
  psgd_state *s = ctx->state;
  if (ctx->iteration - s->start < s->warmup) {
    /* the hook's first steps: the bucket divided by the world (read and
     * write it), then its allreduce, nothing waited for until the step */
    hs_model *m = ctx->model;
    hs_gpu_kernel(ctx, 2.0 * (double)hs_dtype_size(m->dtype) * (double)m->buckets[i].count, 1);
    hs_buf g = hs_model_bucket_buf(m, m->grads, i);
    hs_allreduce(ctx->w, ctx->w->world, g, g, HS_AVG, &s->pending[i]);
    return;
  }
  hs_comm_stream_enqueue(s->stream, bucket_chain, s, i);
  if (s->sync_each_bucket) {
    hs_comm_stream_sync(s->stream);
    /* the synchronize emptied the GPU's queue: it idles until the host
     * has issued backward's next kernels (cluster.host.sync_overhead) */
    hs_gpu_busy(ctx->w, ctx->sc->cluster.host_sync_overhead);
  }
}

static void psgd_step(hs_algo_ctx *ctx) {
  psgd_state *s = ctx->state;
  hs_comm_stream_sync(s->stream);
  hs_waitall(ctx->w, s->pending, ctx->model->n_buckets); /* the plain steps' allreduces, if any */
  /* the reducer's copies out after the hook's futures, then the step */
  hs_sgd_step_after(ctx, s->bucket_view ? 0 : hs_ddp_copy_out_seconds(ctx), ctx->model->grads, s->momentum);
}

static void psgd_finish(hs_algo_ctx *ctx) {
  psgd_state *s = ctx->state;
  hs_comm_stream_stop(s->stream);
  if (s->own) hs_comm_free(ctx->w, s->own);
  for (int i = 0; s->b && i < ctx->model->n_buckets; i++) { /* none if init ran out of memory first */
    psgd_bucket *b = &s->b[i];
    free(b->q), free(b->p), free(b->mat), free(b->err), free(b->unc), free(b->mats), free(b->runs);
  }
  free(s->b), free(s->momentum), free(s->bucket_tensors), free(s->approx), free(s->pending);
  free(s);
}

/* The hook accepts any rank; P and Q grow with it (rows x r and cols x r
 * floats a matrix, batched side x r each), and a rank in the millions only
 * runs out of memory. Its docs suggest 1-4, "increased to 32" for some
 * NLP tasks: 1024 leaves room for any study. */
enum { PSGD_RANK_MAX = 1024 };

static const char *psgd_validate(const hs_scenario *sc, char *msg, size_t len) {
  long r = hs_opt_int(&sc->algorithm.options, "rank");
  if (r > PSGD_RANK_MAX) {
    snprintf(msg, len, "rank must be at most %d (P and Q grow with it; PyTorch's hook suggests 1 to 4, up to 32), got %ld",
             PSGD_RANK_MAX, r);
    return "rank";
  }
  return NULL;
}

static const hs_option_spec psgd_options[] = {
    {"rank", HS_OPT_INT, "4", 1, NULL, "rank r of the approximation (at most 1024)"},
    {"bucket_size", HS_OPT_BYTES, "25MiB", 1, NULL, "DDP's buckets, each run through the hook as soon as it is ready"},
    {"min_compression_rate", HS_OPT_NUMBER, "2", 1, NULL,
     "a matrix is compressed only where (rows + cols) r x this < rows cols (the hook's min_compression_rate; below "
     "1 the hook would also cap r at the matrix's rank, not modelled)"},
    HS_DDP_BUCKET_OPTIONS,
    HS_DDP_BUCKET_VIEW_OPTION,
    {"batched", HS_OPT_BOOL, "false", 0, NULL,
     "PyTorch's batched_powerSGD_hook: each bucket viewed as one zero-padded square of side ceil(sqrt(n)) and "
     "compressed whatever it saves (faster, usually less accurate unless rank is 1); false: powerSGD_hook, tensor by "
     "tensor"},
    {"warmup_steps", HS_OPT_INT, "0", 0, NULL,
     "plain allreduce for the first steps (the hook's start_powerSGD_iter: PyTorch's default 1000, at least 2 with "
     "error feedback or warm start); 0: compress from the first step"},
    {"sync_each_bucket", HS_OPT_BOOL, "true", 0, NULL,
     "backward waits for each bucket's whole chain, as the hook's torch.cuda.synchronize makes it (pytorch/pytorch"
     "#54838), and so for the hook's host (cluster.host.op_overhead, collective_overhead, sync_overhead); false: the "
     "chain runs beside backward, its host hidden"},
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_powersgd = {
    .name = "powersgd",
    .summary = "PowerSGD: rank-r gradient compression with error feedback and warm start",
    .options = psgd_options,
    .bucket_option = "bucket_size",
    HS_DDP_BUCKET_LAYOUT,
    .validate = psgd_validate,
    .init = psgd_init,
    .bucket_ready = psgd_bucket_ready,
    .bucket_kernels = psgd_bucket_kernels,
    .step = psgd_step,
    .finish = psgd_finish,
};
