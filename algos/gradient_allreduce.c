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
 * until the last cycle's start + the cycle time), negotiates which tensors
 * are ready on every rank (a small collective among the ranks each cycle:
 * the coordinator's gather and broadcast, later an allreduce of the
 * response cache's bits), and fuses those into allreduces of at most
 * HOROVOD_FUSION_THRESHOLD bytes (a tensor larger than that goes alone),
 * enqueued on its NCCL stream without waiting for them. So what one
 * allreduce carries is what became ready within one cycle, not a bucket
 * cut in advance. cycle_time > 0 runs that loop on a communication stream
 * (comm_stream.h), from the iteration's first ready gradient to its last:
 * the model is cut a bucket a tensor, each cycle the ranks agree on how
 * many are ready everywhere (an allreduce(min) of one integer on a
 * communicator of its own, standing for Horovod's controller on MPI or
 * Gloo), and the newly ready run of layers goes out in allreduces of up to
 * bucket_size bytes, run in order on a second stream, Horovod's CUDA
 * stream, with the fusion buffer's copies; the step waits for both. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "algos/algorithm.h"
#include "algos/ddp_buckets.h"
#include "algos/comm_stream.h"
#include "algos/train/gpu_kernel.h"
#include "algos/train/sgd.h"

typedef struct {
  hs_request **pending; /* DDP: each bucket's allreduce (NULL under Horovod's loop) */
  float *momentum;      /* numeric runs only */
  int overlap;
  int bucket_view;      /* gradients live in their buckets: no copies */
  int broadcast_buffers; /* DDP's buffer broadcast before every forward */
  int *bucket_tensors;  /* parameter tensors per bucket: the copies' launches */
  double cycle;         /* s between the cycles of Horovod's loop; 0: posted from backward's hooks */
  double epoch;         /* when the loop started: its cycles are epoch + k x cycle */
  hs_comm_stream *loop; /* Horovod's background loop, when cycle > 0 */
  hs_comm_stream *cuda; /* Horovod's CUDA stream: each fused allreduce with its copies, in order */
  int *group_end;       /* Horovod: the fused allreduce starting at layer a ends before group_end[a] */
  double fusion;        /* Horovod: bytes one fused allreduce may carry (bucket_size) */
  hs_comm *control;     /* Horovod: the ranks' negotiation, apart from the gradients' stream */
  atomic_int ready;     /* Horovod: layers backward has readied this iteration (written by the
                           training thread, read by the loop's) */
  hs_algo_ctx *ctx;
} gar_state;

static int gar_init(hs_algo_ctx *ctx) {
  gar_state *s = calloc(1, sizeof *s);
  if (!s) return HS_ENOMEM;
  ctx->state = s;
  s->overlap = hs_opt_bool(ctx->opt, "overlap");
  s->bucket_view = hs_opt_bool(ctx->opt, "gradient_as_bucket_view");
  s->broadcast_buffers = hs_opt_bool(ctx->opt, "broadcast_buffers");
  s->bucket_tensors = hs_ddp_bucket_tensors(ctx->model);
  if (!s->bucket_tensors) return HS_ENOMEM;
  s->ctx = ctx;
  s->cycle = hs_opt_num(ctx->opt, "cycle_time");
  if (s->cycle <= 0) { /* DDP: a request a bucket (Horovod's loop waits on its own streams) */
    if (!(s->pending = calloc(ctx->model->n_buckets, sizeof *s->pending))) return HS_ENOMEM;
  } else {
    s->epoch = hs_now(ctx->w);
    s->fusion = hs_opt_num(ctx->opt, "bucket_size");
    atomic_init(&s->ready, 0);
    /* Horovod's controller negotiates on the host (MPI or Gloo), not NCCL */
    int rc = hs_comm_split_host(ctx->w, ctx->w->world, 0, ctx->w->rank, &s->control);
    if (rc) return rc;
    s->group_end = calloc(ctx->model->n_buckets, sizeof *s->group_end);
    if (!s->group_end) return HS_ENOMEM;
    if (!(s->loop = hs_comm_stream_start(ctx->w, 1))) return HS_ENOMEM; /* an iteration's cycles */
    if (!(s->cuda = hs_comm_stream_start(ctx->w, ctx->model->n_buckets))) return HS_ENOMEM; /* its fused allreduces */
  }
  if (ctx->model->params && ctx->sc->workload.momentum > 0)
    s->momentum = calloc(ctx->model->n_params, sizeof(float));
  return 0;
}

static void start_bucket(hs_algo_ctx *ctx, gar_state *s, int b) {
  hs_buf g = hs_model_bucket_buf(ctx->model, ctx->model->grads, b);
  hs_allreduce(ctx->w, ctx->w->world, g, g, HS_AVG, &s->pending[b]);
}

/* One fused allreduce on Horovod's CUDA stream: of layers a .. group_end[a]
 * - 1. A response of more than one tensor goes through the fusion buffer:
 * each tensor copied in before the allreduce and out after it (horovod
 * docs, "Tensor Fusion", steps 3 and 5: a read and a write of 4 bytes a
 * parameter each way, a copy per tensor), on the same stream; one tensor
 * alone is reduced where it is. */
static void fused_allreduce(void *arg, int a) {
  gar_state *s = arg;
  hs_algo_ctx *ctx = s->ctx;
  const hs_model *m = ctx->model;
  int b = s->group_end[a], tensors = 0;
  for (int l = a; l < b; l++) tensors += s->bucket_tensors[l];
  size_t count = m->buckets[b - 1].offset + m->buckets[b - 1].count - m->buckets[a].offset;
  double copy = tensors > 1 ? 8.0 * (double)count : 0;
  if (copy > 0) hs_gpu_kernel(ctx, copy, tensors);
  hs_buf g = hs_buf_slice(hs_model_buf(m, m->grads), m->buckets[a].offset, count);
  hs_request *q = NULL;
  hs_allreduce(ctx->w, ctx->w->world, g, g, HS_AVG, &q);
  hs_wait(ctx->w, &q);
  if (copy > 0) hs_gpu_kernel(ctx, copy, tensors);
}

/* Horovod's loop over one iteration: at each cycle, the ranks agree on
 * how many layers are ready everywhere, and the newly ready ones go to
 * the CUDA stream fused, in allreduces of at most s->fusion bytes (one
 * layer larger than that alone), until every layer has. The loop does
 * not wait for them. */
static void fuse_cycles(void *arg, int unused) {
  (void)unused;
  gar_state *s = arg;
  hs_worker *w = s->ctx->w;
  const hs_model *m = s->ctx->model;
  double elem = (double)hs_dtype_size(m->dtype);
  /* the loop has cycled idle since its start: its next cycle is on the
   * grid (a layer ready at a cycle's very start goes in that cycle: 1 ns,
   * the clock's rounding) */
  double since = hs_now(w) - s->epoch;
  double cycle_start = s->epoch + ceil(since / s->cycle - 1e-9 / s->cycle) * s->cycle;
  int sent = 0;
  while (sent < m->n_buckets) {
    if (cycle_start > hs_now(w)) hs_sleep(w, cycle_start - hs_now(w));
    cycle_start = hs_now(w);
    int everywhere = atomic_load(&s->ready);
    hs_request *q = NULL;
    hs_buf count = hs_buf_host(&everywhere, 1, HS_I32);
    hs_allreduce(w, s->control, count, count, HS_MIN, &q);
    if (hs_wait(w, &q) != HS_OK) return; /* a rank died: the run recovers or ends */
    if (everywhere > m->n_buckets) everywhere = m->n_buckets; /* every rank's count is at most that */
    for (int a = sent; a < everywhere;) {
      double bytes = (double)m->buckets[a].count * elem;
      int b = a + 1;
      while (b < everywhere && bytes + (double)m->buckets[b].count * elem <= s->fusion)
        bytes += (double)m->buckets[b++].count * elem;
      s->group_end[a] = b;
      hs_comm_stream_enqueue(s->cuda, fused_allreduce, s, a);
      a = b;
    }
    if (everywhere > sent) sent = everywhere;
    /* RunLoopOnce: the next cycle starts a cycle after this one did, or
     * as soon as this one's work is done if that took longer */
    cycle_start += s->cycle;
  }
}

static void post_bucket(hs_algo_ctx *ctx, gar_state *s, int b) {
  if (!s->loop) {
    start_bucket(ctx, s, b);
    return;
  }
  atomic_store(&s->ready, b + 1);
  if (b == 0) hs_comm_stream_enqueue(s->loop, fuse_cycles, s, 0); /* the loop's iteration begins */
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

/* DDP: the copy (and division) into the bucket runs in backward's hooks,
 * on the compute stream, overlapped or not. Horovod copies into its fusion
 * buffer on its own stream (fused_allreduce). */
static double gar_bucket_kernels(hs_algo_ctx *ctx, int b) {
  gar_state *s = ctx->state;
  return !s->bucket_view && !s->loop ? hs_ddp_copy_in_seconds(ctx, s->bucket_tensors, b) : 0;
}

static void gar_bucket_ready(hs_algo_ctx *ctx, int b) {
  gar_state *s = ctx->state;
  if (s->overlap) post_bucket(ctx, s, b);
}

static void gar_step(hs_algo_ctx *ctx) {
  gar_state *s = ctx->state;
  hs_model *m = ctx->model;
  if (!s->overlap)
    for (int b = 0; b < m->n_buckets; b++) post_bucket(ctx, s, b);
  if (s->loop) { /* the loop has handed every layer over, then its stream has run them */
    hs_comm_stream_sync(s->loop);
    hs_comm_stream_sync(s->cuda);
    atomic_store(&s->ready, 0);
  } else {
    hs_waitall(ctx->w, s->pending, m->n_buckets);
  }
  /* DDP's copies back out of the buckets, then the step */
  hs_sgd_step_after(ctx, s->bucket_view || s->loop ? 0 : hs_ddp_copy_out_seconds(ctx), m->grads, s->momentum);
}

static void gar_finish(hs_algo_ctx *ctx) {
  gar_state *s = ctx->state;
  hs_comm_stream_stop(s->loop);
  hs_comm_stream_stop(s->cuda);
  if (s->control) hs_comm_free(ctx->w, s->control);
  free(s->group_end);
  free(s->pending);
  free(s->bucket_tensors);
  free(s->momentum);
  free(s);
}

static const hs_option_spec gar_options[] = {
    {"bucket_size", HS_OPT_BYTES, "25MiB", 1, NULL,
     "gradients are grouped into buckets of at least this size, filled in reverse layer order; with cycle_time, "
     "Horovod's fusion threshold: the most one fused allreduce carries (HOROVOD_FUSION_THRESHOLD, 64 MiB)"},
    HS_DDP_BUCKET_OPTIONS,
    {"overlap", HS_OPT_BOOL, "true", 0, NULL,
     "start each bucket's allreduce as soon as backward produced it (false: after backward)"},
    HS_DDP_BUCKET_VIEW_OPTION,
    {"broadcast_buffers", HS_OPT_BOOL, "true", 0, NULL,
     "DDP's default: before every forward, the model's buffers (batch-norm statistics, the profile's buffers) are "
     "flattened, broadcast from rank 0 and copied back, a launch per buffer; false: Horovod, Bagua"},
    {"cycle_time", HS_OPT_TIME, "0", 0, NULL,
     "Horovod's background loop: every cycle_time (HOROVOD_CYCLE_TIME: 5 ms before Horovod 0.21, 1 ms since) the "
     "ranks agree on the gradients ready everywhere and allreduce them fused, up to bucket_size; 0: buckets cut in "
     "advance, posted from backward's hooks (DDP, Bagua)"},
    {NULL, 0, NULL, 0, NULL, NULL},
};

/* DDP and Horovod both take the gradients a tensor at a time (PyTorch's
 * compute_bucket_assignment_by_size, Horovod's fusion), so the buckets
 * are cut at tensors: with bucket_size below a tensor's bytes each tensor
 * is an allreduce of its own (Horovod with HOROVOD_FUSION_THRESHOLD=0).
 * Under Horovod's loop the model is cut a bucket a tensor: the loop fuses
 * them by what is ready at each cycle. */
static void gar_layout(const hs_options *opt, hs_bucket_layout *layout) {
  if (hs_opt_num(opt, "cycle_time") > 0) *layout = (hs_bucket_layout){.bytes = 1};
  hs_ddp_cut_at_tensors(opt, layout);
}

const hs_algorithm_desc hs_algo_gradient_allreduce = {
    .name = "gradient_allreduce",
    .summary = "data-parallel SGD with momentum: bucketed allreduce(avg) of gradients overlapped with backward",
    .options = gar_options,
    .bucket_option = "bucket_size",
    HS_DDP_BUCKET_LAYOUT,
    .bucket_layout = gar_layout,
    .init = gar_init,
    .begin_iteration = gar_begin,
    .bucket_ready = gar_bucket_ready,
    .bucket_kernels = gar_bucket_kernels,
    .step = gar_step,
    .finish = gar_finish,
};
