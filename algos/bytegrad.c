/* bytegrad.c — Bagua's ByteGrad: gradients averaged by an 8-bit compressed
 * allreduce (MinMaxUInt8, one scale per rank's chunk), scatter-gather style
 * (algos/scatter_gather.h), overlapped with backward: a bucket's alltoall is
 * posted as soon as backward produced it.
 *
 * Bytes per worker per step and bucket of b parameters over n ranks:
 * 2 (n-1) (8 + ceil(b/n)), about 1/4 of gradient_allreduce's 2 (n-1)/n 4b.
 *
 * hierarchical = true: each node first averages its gradients onto its
 * leader in full precision (NVLink), only the leaders run the compressed
 * exchange, then broadcast the result inside the node.
 *
 * As Bagua runs it, a bucket's whole chain (the intra-node reduce, the
 * compression, alltoall, decode, re-compression, allgather and decode, the
 * broadcast back) runs on the communication stream (algos/comm_stream.h)
 * as soon as backward produced the bucket, one bucket after the other; backward never waits for any of it, and the step waits for
 * the stream before the optimizer. */
#include <stdlib.h>

#include "algos/algorithm.h"
#include "algos/comm_stream.h"
#include "algos/comm/hierarchy.h"
#include "algos/scatter_gather.h"
#include "algos/train/sgd.h"

typedef struct {
  hs_algo_ctx *ctx;
  hs_hierarchy h;
  hs_comm *own;  /* the stream's copy of world when not hierarchical */
  hs_comm *comm; /* world's copy, or the leaders (NULL on the other GPUs of a node) */
  hs_sg **sg;    /* one per bucket */
  float *momentum;
  hs_comm_stream *stream;
} bg_state;

static int bg_init(hs_algo_ctx *ctx) {
  bg_state *s = calloc(1, sizeof *s);
  ctx->state = s;
  s->ctx = ctx;
  hs_model *m = ctx->model;
  int rc = hs_hierarchy_init(ctx->w, hs_opt_bool(ctx->opt, "hierarchical"), &s->h, &s->comm);
  if (rc) return rc;
  /* The stream's thread, not the training thread, posts on these: a
   * communicator of its own rather than the world the loop may use. */
  if (!s->h.enabled) {
    if ((rc = hs_comm_split(ctx->w, ctx->w->world, 0, ctx->w->rank, &s->own))) return rc;
    s->comm = s->own;
  }
  if (!(s->stream = hs_comm_stream_start(ctx->w, m->n_buckets))) return HS_ENOMEM;
  s->momentum = hs_sgd_momentum_alloc(ctx);
  s->sg = calloc(m->n_buckets, sizeof *s->sg);
  hs_compressor cz = {.kind = HS_CZ_MINMAX_U8};
  if (s->comm)
    for (int b = 0; b < m->n_buckets; b++)
      s->sg[b] = hs_sg_create(&ctx->sc->cluster, &cz, m->buckets[b].count, hs_comm_size(ctx->w, s->comm), m->params != NULL, 0);
  return 0;
}

/* On the communication stream: bucket b's whole chain. The iteration is
 * the one under way: the step waits for the stream before it ends. */
static void bucket_chain(void *arg, int b) {
  bg_state *s = arg;
  hs_model *m = s->ctx->model;
  hs_sg_run(s->sg[b], s->ctx->w, &s->h, s->comm, hs_model_bucket_buf(m, m->grads, b), (uint64_t)s->ctx->iteration);
}

static void bg_bucket_ready(hs_algo_ctx *ctx, int b) {
  bg_state *s = ctx->state;
  hs_comm_stream_enqueue(s->stream, bucket_chain, s, b);
}

static void bg_step(hs_algo_ctx *ctx) {
  bg_state *s = ctx->state;
  hs_model *m = ctx->model;
  hs_comm_stream_sync(s->stream);
  hs_sgd_step(ctx, m->grads, s->momentum);
}

static void bg_finish(hs_algo_ctx *ctx) {
  bg_state *s = ctx->state;
  hs_comm_stream_stop(s->stream);
  for (int b = 0; s->sg && b < ctx->model->n_buckets; b++) hs_sg_free(s->sg[b]); /* none if init stopped early */
  hs_hierarchy_free(ctx->w, &s->h);
  if (s->own) hs_comm_free(ctx->w, s->own);
  free(s->sg), free(s->momentum);
  free(s);
}

static const hs_option_spec bg_options[] = {
    {"bucket_size", HS_OPT_BYTES, "10MiB", 1, NULL, "gradients are grouped into buckets of about this size (Bagua: 10 MiB)"},
    {"hierarchical", HS_OPT_BOOL, "false", 0, NULL,
     "full precision inside a node, compressed among node leaders only"},
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_bytegrad = {
    .name = "bytegrad",
    .summary = "8-bit (MinMaxUInt8) compressed gradient allreduce by alltoall + allgather",
    .options = bg_options,
    .bucket_option = "bucket_size",
    .init = bg_init,
    .bucket_ready = bg_bucket_ready,
    .step = bg_step,
    .finish = bg_finish,
};
