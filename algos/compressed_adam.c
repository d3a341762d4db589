/* compressed_adam.c — the shared engine of qadam and onebit_adam (compressed_adam.h).
 *
 * Past the warm-up, as Bagua runs QAdam: the momentum's update runs in
 * backward's hook (the compute stream), and the bucket's whole exchange
 * (intra-node reduce when hierarchical, compressed scatter-gather,
 * broadcast back) on the communication stream (algos/comm_stream.h),
 * so backward waits for none of it; the step waits for the stream. */
#include "algos/compressed_adam.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/comm_stream.h"
#include "algos/comm/hierarchy.h"
#include "algos/scatter_gather.h"
#include "algos/train/gpu_kernel.h"
#include "kernels/kernels.h"

typedef struct {
  hs_algo_ctx *ctx;
  hs_comm_stream *stream;
  hs_comm *own; /* the stream's copy of world when not hierarchical */
  int warmup;
  int start; /* the iteration init ran before: Adam's step count starts there (algorithm.h: state restarts after a shrink) */
  float lr, beta1, beta2, eps, wd;
  float *m, *v;
  float *prev;          /* no warm-up: the averaged momentum of the previous step */
  hs_request **pending; /* warm-up allreduces, one per bucket */
  hs_sg **sg;           /* compressed momentum exchange, one per bucket */
  hs_hierarchy h;
  hs_comm *comm; /* world, or the node leaders (NULL on the other GPUs) */
} cadam_state;

int hs_cadam_init(hs_algo_ctx *ctx, const hs_compressor *cz, int error_feedback) {
  cadam_state *s = calloc(1, sizeof *s);
  ctx->state = s;
  s->ctx = ctx;
  hs_model *m = ctx->model;
  const hs_workload_spec *wl = &ctx->sc->workload;
  s->warmup = (int)hs_opt_int(ctx->opt, "warmup_steps");
  s->start = ctx->iteration;
  double lr = hs_opt_num(ctx->opt, "lr");
  s->lr = (float)(lr > 0 ? lr : wl->lr);
  s->beta1 = (float)hs_opt_num(ctx->opt, "beta1");
  s->beta2 = (float)hs_opt_num(ctx->opt, "beta2");
  s->eps = (float)hs_opt_num(ctx->opt, "eps");
  s->wd = (float)wl->weight_decay;
  if (m->params) {
    s->m = calloc(m->n_params, sizeof(float));
    s->v = calloc(m->n_params, sizeof(float));
    if (s->warmup == 0) s->prev = calloc(m->n_params, sizeof(float));
  }
  s->pending = calloc(m->n_buckets, sizeof *s->pending);
  s->sg = calloc(m->n_buckets, sizeof *s->sg);
  int rc = hs_hierarchy_init(ctx->w, hs_opt_bool(ctx->opt, "hierarchical"), &s->h, &s->comm);
  if (rc) return rc;
  if (!s->h.enabled) {
    if ((rc = hs_comm_split(ctx->w, ctx->w->world, 0, ctx->w->rank, &s->own))) return rc;
    s->comm = s->own;
  }
  if (!(s->stream = hs_comm_stream_start(ctx->w, m->n_buckets))) return HS_ENOMEM;
  if (s->comm)
    for (int b = 0; b < m->n_buckets; b++)
      s->sg[b] = hs_sg_create(&ctx->sc->cluster, cz, m->buckets[b].count, hs_comm_size(ctx->w, s->comm), m->params != NULL,
                              error_feedback);
  return 0;
}

/* On the communication stream: bucket b's momentum averaged, in place. */
static void momentum_chain(void *arg, int b) {
  cadam_state *s = arg;
  hs_model *m = s->ctx->model;
  hs_sg_run(s->sg[b], s->ctx->w, &s->h, s->comm, hs_model_bucket_buf(m, s->m, b), (uint64_t)s->ctx->iteration);
}

void hs_cadam_bucket_ready(hs_algo_ctx *ctx, int b) {
  cadam_state *s = ctx->state;
  hs_model *m = ctx->model;
  if (ctx->iteration - s->start < s->warmup) {
    hs_buf g = hs_model_bucket_buf(m, m->grads, b);
    hs_allreduce(ctx->w, ctx->w->world, g, g, HS_AVG, &s->pending[b]);
    return;
  }
  /* weight decay into the gradient (read g and w, write g), the momentum's
   * EMA (read g and m, write m): two passes over the bucket */
  hs_gpu_kernel(ctx, 4.0 * 6 * (double)m->buckets[b].count, 2);
  if (m->params) {
    const hs_bucket *bk = &m->buckets[b];
    float *g = m->grads + bk->offset, *mb = s->m + bk->offset;
    hs_k_axpy_f32(g, m->params + bk->offset, s->wd, bk->count); /* weight decay folded into the gradient */
    hs_k_ema_f32(mb, g, s->beta1, bk->count);
  }
  hs_comm_stream_enqueue(s->stream, momentum_chain, s, b);
}

void hs_cadam_step(hs_algo_ctx *ctx) {
  cadam_state *s = ctx->state;
  hs_model *m = ctx->model;
  /* Steps since init: after a shrink the moments restart from zero, and so
   * do their bias corrections and the warm-up that measures the variance
   * (frozen at zero, it would divide the momentum by eps). */
  int t = ctx->iteration - s->start + 1;
  float c1 = (float)(1 - pow(s->beta1, t));
  if (t - 1 < s->warmup) {
    hs_waitall(ctx->w, s->pending, m->n_buckets);
    /* Adam: reads g, w, m, v, writes w, m, v */
    hs_gpu_kernel(ctx, 4.0 * 7 * (double)m->n_params, 1);
    if (m->params)
      hs_k_adam_f32(m->params, m->grads, s->m, s->v, m->n_params, s->lr, s->beta1, s->beta2, s->eps, s->wd, c1,
                    (float)(1 - pow(s->beta2, t)));
    return;
  }
  hs_comm_stream_sync(s->stream);
  /* the update from the averaged momentum: reads w, m, v, writes w (with a
   * warm-up); without one also rebuilds the gradient and the variance
   * (reads prev, m, v; writes prev, v) and copies m */
  hs_gpu_kernel(ctx, 4.0 * (s->warmup > 0 ? 4 : 4 + 5 + 2) * (double)m->n_params, s->warmup > 0 ? 1 : 4);
  if (!m->params) return;
  if (s->warmup > 0) {
    /* The variance stopped at the end of the warm-up, and so did its bias correction. */
    hs_k_adam_apply_f32(m->params, s->m, s->v, m->n_params, s->lr, s->eps, c1, (float)(1 - pow(s->beta2, s->warmup)));
    return;
  }
  /* No warm-up, so no variance was measured before compression began, and
   * one frozen at zero would divide the momentum by eps. Every worker holds
   * the same averaged momentum, so each rebuilds the same averaged gradient
   * from it, g^ = (m_t - beta1 m_{t-1}) / (1 - beta1) (exactly the average
   * gradient were the exchange exact), and the variance follows g^ with its
   * bias correction: Adam on g^, never frozen. ema with beta = -beta1/(1-beta1)
   * computes g^ in place: prev = beta prev + (1 - beta) m_t. */
  hs_k_ema_f32(s->prev, s->m, -s->beta1 / (1 - s->beta1), m->n_params);
  hs_k_ema_sq_f32(s->v, s->prev, s->beta2, m->n_params);
  memcpy(s->prev, s->m, m->n_params * sizeof(float));
  hs_k_adam_apply_f32(m->params, s->m, s->v, m->n_params, s->lr, s->eps, c1, (float)(1 - pow(s->beta2, t)));
}

void hs_cadam_finish(hs_algo_ctx *ctx) {
  cadam_state *s = ctx->state;
  hs_comm_stream_stop(s->stream);
  for (int b = 0; s->sg && b < ctx->model->n_buckets; b++) hs_sg_free(s->sg[b]); /* none if init stopped early */
  hs_hierarchy_free(ctx->w, &s->h);
  if (s->own) hs_comm_free(ctx->w, s->own);
  free(s->sg), free(s->pending), free(s->m), free(s->v), free(s->prev);
  free(s);
}
