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
 * nothing: gradient_as_bucket_view = true.
 *
 * DDP also broadcasts the module's buffers (batch-norms' running
 * statistics) from rank 0 at the start of every forward
 * (broadcast_buffers=True by default: "Buffers (e.g. BatchNorm stats) are
 * broadcast from the module in process of rank 0, to all other replicas
 * in the system in every iteration", DistributedDataParallel's
 * docstring). c10d's broadcast_coalesced groups them by dtype
 * (compute_bucket_assignment_by_size): each group is flattened into one
 * tensor and broadcast, up to two in flight, then each buffer is copied
 * back out of its group's: a kernel over each group's bytes, a broadcast
 * per group (the fp32 statistics, and the int64 num_batches_tracked
 * counters: NCCL runs them one after the other on its stream), a kernel
 * per buffer, before forward. Horovod and Bagua do not:
 * broadcast_buffers = false.
 *
 * Horovod posts nothing from backward's hooks: a ready gradient waits for
 * the next cycle of its background loop, which wakes every
 * HOROVOD_CYCLE_TIME (horovod/common/operations.cc, RunLoopOnce: it sleeps
 * until the last cycle's start + the cycle time), negotiates, and
 * enqueues the fused allreduces of what is ready on its NCCL stream
 * without waiting for them. cycle_time > 0 runs that loop on a
 * communication stream (comm_stream.h): each bucket is posted at the
 * first cycle at or after it was ready, and a last job waits for them
 * all before the step. */
#include <math.h>
#include <stdlib.h>
#include <stdlib.h>

#include "algos/algorithm.h"
#include "algos/ddp_buckets.h"
#include "algos/comm_stream.h"
#include "algos/train/gpu_kernel.h"
#include "algos/train/sgd.h"

typedef struct {
  hs_request **pending; /* one per bucket */
  float *momentum;      /* numeric runs only */
  int overlap;
  int bucket_view;      /* gradients live in their buckets: no copies */
  int broadcast_buffers; /* DDP's buffer broadcast before every forward */
  int *bucket_tensors;  /* parameter tensors per bucket: the copies' launches */
  double cycle;         /* s between the cycles of Horovod's loop; 0: posted from backward's hooks */
  double epoch;         /* when the loop started: its cycles are epoch + k x cycle */
  hs_comm_stream *loop; /* Horovod's background loop, when cycle > 0 */
  hs_algo_ctx *ctx;
} gar_state;

static int gar_init(hs_algo_ctx *ctx) {
  gar_state *s = calloc(1, sizeof *s);
  if (!s) return HS_ENOMEM;
  ctx->state = s;
  s->pending = calloc(ctx->model->n_buckets, sizeof *s->pending);
  s->overlap = hs_opt_bool(ctx->opt, "overlap");
  s->bucket_view = hs_opt_bool(ctx->opt, "gradient_as_bucket_view");
  s->broadcast_buffers = hs_opt_bool(ctx->opt, "broadcast_buffers");
  s->bucket_tensors = calloc(ctx->model->n_buckets, sizeof *s->bucket_tensors);
  if (!s->pending || !s->bucket_tensors) return HS_ENOMEM;
  for (int l = 0; l < ctx->model->n_layers; l++)
    s->bucket_tensors[ctx->model->layers[l].bucket] += ctx->model->layers[l].tensors;
  s->ctx = ctx;
  s->cycle = hs_opt_num(ctx->opt, "cycle_time");
  if (s->cycle > 0) {
    s->epoch = hs_now(ctx->w);
    if (!(s->loop = hs_comm_stream_start(ctx->w, ctx->model->n_buckets + 1))) return HS_ENOMEM; /* buckets, drain */
  }
  if (ctx->model->params && ctx->sc->workload.momentum > 0)
    s->momentum = calloc(ctx->model->n_params, sizeof(float));
  return 0;
}

static void start_bucket(hs_algo_ctx *ctx, gar_state *s, int b) {
  hs_buf g = hs_model_bucket_buf(ctx->model, ctx->model->grads, b);
  hs_allreduce(ctx->w, ctx->w->world, g, g, HS_AVG, &s->pending[b]);
}

/* On Horovod's loop: bucket b waits for the next cycle, then is posted. */
static void at_next_cycle(void *arg, int b) {
  gar_state *s = arg;
  hs_worker *w = s->ctx->w;
  double since = hs_now(w) - s->epoch;
  /* a bucket ready at a cycle's very start goes in that cycle (1 ns: the
   * clock's rounding) */
  double next = s->epoch + ceil(since / s->cycle - 1e-9 / s->cycle) * s->cycle;
  if (next > hs_now(w)) hs_sleep(w, next - hs_now(w));
  start_bucket(s->ctx, s, b);
}

/* The loop's last job of an iteration: every bucket's allreduce done. */
static void drain_cycles(void *arg, int unused) {
  (void)unused;
  gar_state *s = arg;
  hs_waitall(s->ctx->w, s->pending, s->ctx->model->n_buckets);
}

static void post_bucket(hs_algo_ctx *ctx, gar_state *s, int b) {
  if (s->loop) hs_comm_stream_enqueue(s->loop, at_next_cycle, s, b);
  else start_bucket(ctx, s, b);
}

/* DDP's _sync_buffers, before forward: per dtype, flatten (each buffer
 * read, the flat one written) and broadcast from rank 0; copy each buffer
 * back. c10d posts the second broadcast before waiting for the first, and
 * NCCL runs them one after the other on its stream; here each is waited
 * for before the next group's flatten, which moves that small kernel
 * after the first broadcast instead of beside it. (Two chains posted
 * together come out 0.35% apart between the simulator's direct path and
 * its stream actors under stragglers, test_direct_streams: not examined
 * yet.) */
static void gar_begin(hs_algo_ctx *ctx) {
  gar_state *s = ctx->state;
  const hs_model *m = ctx->model;
  if (!s->broadcast_buffers || m->n_buffers == 0) return;
  double int64_bytes = 8.0 * m->n_int64_buffers;
  const double group_bytes[2] = {m->buffer_bytes - int64_bytes, int64_bytes};
  const int group_tensors[2] = {m->n_buffers - m->n_int64_buffers, m->n_int64_buffers};
  for (int k = 0; k < 2; k++) {
    if (group_tensors[k] == 0) continue;
    hs_gpu_kernel(ctx, 2 * group_bytes[k], 1);
    hs_buf flat = hs_buf_virtual((size_t)group_bytes[k], HS_U8);
    hs_request *r = NULL;
    hs_broadcast(ctx->w, ctx->w->world, flat, flat, 0, &r);
    hs_wait(ctx->w, &r);
  }
  hs_gpu_kernel(ctx, 2 * m->buffer_bytes, m->n_buffers);
}

static void gar_bucket_ready(hs_algo_ctx *ctx, int b) {
  gar_state *s = ctx->state;
  /* the copy (and division) into the bucket runs in backward's hooks,
   * on the compute stream, overlapped or not */
  if (!s->bucket_view) hs_gpu_kernel(ctx, 8.0 * (double)ctx->model->buckets[b].count, s->bucket_tensors[b]);
  if (s->overlap) post_bucket(ctx, s, b);
}

static void gar_step(hs_algo_ctx *ctx) {
  gar_state *s = ctx->state;
  hs_model *m = ctx->model;
  if (!s->overlap)
    for (int b = 0; b < m->n_buckets; b++) post_bucket(ctx, s, b);
  if (s->loop) {
    hs_comm_stream_enqueue(s->loop, drain_cycles, s, 0);
    hs_comm_stream_sync(s->loop);
  } else {
    hs_waitall(ctx->w, s->pending, m->n_buckets);
  }
  if (!s->bucket_view) hs_gpu_kernel(ctx, 8.0 * (double)m->n_params, m->n_tensors); /* copies back out */
  hs_sgd_step(ctx, m->grads, s->momentum);
}

static void gar_finish(hs_algo_ctx *ctx) {
  gar_state *s = ctx->state;
  hs_comm_stream_stop(s->loop);
  free(s->pending);
  free(s->bucket_tensors);
  free(s->momentum);
  free(s);
}

static const hs_option_spec gar_options[] = {
    {"bucket_size", HS_OPT_BYTES, "25MiB", 1, NULL,
     "gradients are grouped into buckets of about this size, filled in reverse layer order"},
    HS_DDP_BUCKET_OPTIONS,
    {"overlap", HS_OPT_BOOL, "true", 0, NULL,
     "start each bucket's allreduce as soon as backward produced it (false: after backward)"},
    {"gradient_as_bucket_view", HS_OPT_BOOL, "false", 0, NULL,
     "gradients live in their buckets (Bagua, DDP's gradient_as_bucket_view=True); false: DDP's default, each gradient "
     "copied into its bucket and back, 8 bytes a parameter and a launch per tensor each way"},
    {"broadcast_buffers", HS_OPT_BOOL, "true", 0, NULL,
     "DDP's default: before every forward, the model's buffers (batch-norm statistics, the profile's buffers) are "
     "flattened, broadcast from rank 0 and copied back, a launch per buffer; false: Horovod, Bagua"},
    {"cycle_time", HS_OPT_TIME, "0", 0, NULL,
     "Horovod's background loop: a ready bucket's allreduce starts at the loop's next cycle, one every cycle_time "
     "(HOROVOD_CYCLE_TIME: 5 ms before Horovod 0.21, 1 ms since); 0: posted from backward's hooks (DDP, Bagua)"},
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_gradient_allreduce = {
    .name = "gradient_allreduce",
    .summary = "data-parallel SGD with momentum: bucketed allreduce(avg) of gradients overlapped with backward",
    .options = gar_options,
    .bucket_option = "bucket_size",
    HS_DDP_BUCKET_LAYOUT,
    .init = gar_init,
    .begin_iteration = gar_begin,
    .bucket_ready = gar_bucket_ready,
    .step = gar_step,
    .finish = gar_finish,
};
