/* nccl_backend.c — the comm-op table of the NCCL transport (device memory).
 *
 * Each communicator is an NCCL communicator with its own CUDA stream, so
 * NCCL's own ordering is the interface's: operations posted on one
 * communicator run in order, different communicators overlap. A request is
 * a CUDA event recorded after the operation; wait synchronises on it.
 *
 * Buffers:
 *  - device buffers go to NCCL as they are;
 *  - host buffers (the numeric workloads keep their model on the host) are
 *    staged: copied into stream-ordered device memory before the operation
 *    and back when the request is waited for, so every algorithm runs
 *    unchanged, at the price of two copies;
 *  - timing-only buffers use device scratch of their size: the bytes
 *    really cross the GPUs' links.
 * HS_AVG is NCCL's sum followed by the exact-division kernel (kernels/),
 * because ncclAvg may multiply by a rounded reciprocal.
 * Any NCCL error is printed with ncclGetErrorString and the communicator is
 * aborted, so the peers fail instead of hanging. */
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/comm/lowering.h"
#include "algos/comm/select.h"
#include "kernels/kernels_cuda.h"
#include "real/clock.h"
#include "real/nccl_backend.h"
#include "real/host_threads.h"

typedef struct {
  hs_worker w;
  const hs_scenario *sc;
  double compute_speed, t0;
  int device;
} nccl_rank;

struct hs_comm {
  ncclComm_t nccl;
  cudaStream_t stream;
  int rank, size;
  nccl_rank *self;
  hs_plan plan; /* the selector's answer: NCCL runs everything */
  int aborted; /* 0, or what every later call returns: HS_EPEER (a peer failed) or HS_EBACKEND */
};

/* A host buffer waiting to be copied back when its request completes. */
typedef struct {
  void *host;
  void *device;
  size_t bytes;
} staged;

struct hs_request {
  hs_comm *comm;
  cudaEvent_t done;
  cudaStream_t stream;
  staged *back; /* at most one per buffer of the operation */
  int n_back;
  void **to_free; /* stream-ordered device memory of this operation */
  int n_free;
};

int hs_nccl_built(void) { return 1; }
int hs_nccl_gpus(void) {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

int hs_nccl_device(char *name, size_t name_len, char *bus, size_t bus_len) {
  int d;
  struct cudaDeviceProp p;
  if (cudaGetDevice(&d) != cudaSuccess || cudaGetDeviceProperties(&p, d) != cudaSuccess) return -1;
  snprintf(name, name_len, "%s", p.name);
  snprintf(bus, bus_len, "[%04x:%02x:%02x]", p.pciDomainID, p.pciBusID, p.pciDeviceID);
  return d;
}

static int nccl_failed(hs_comm *c, ncclResult_t r, const char *what) {
  if (r == ncclSuccess) return 0;
  fprintf(stderr, "hearsay-real: rank %d: %s: %s\n", c->self->w.rank, what, ncclGetErrorString(r));
  if (!c->aborted) ncclCommAbort(c->nccl);
  c->aborted = r == ncclRemoteError ? HS_EPEER : HS_EBACKEND;
  return 1;
}

static int cuda_failed(hs_comm *c, cudaError_t e, const char *what) {
  if (e == cudaSuccess) return 0;
  fprintf(stderr, "hearsay-real: rank %d: %s: %s\n", c->self->w.rank, what, cudaGetErrorString(e));
  return 1;
}

static ncclDataType_t nccl_type(hs_dtype t) {
  static const ncclDataType_t map[] = {ncclFloat32, ncclFloat64, ncclInt32, ncclInt64,
                                       ncclUint8,   ncclFloat16, ncclBfloat16};
  return map[t];
}

static ncclRedOp_t nccl_op(hs_redop op) { return op == HS_MIN ? ncclMin : op == HS_MAX ? ncclMax : ncclSum; }

/* The device pointer an operation uses for b: b itself, staged device
 * memory (copied in if `in`, registered for copy-back if `out`), or
 * scratch for timing-only buffers. */
static void *device_view(hs_comm *c, hs_request *q, hs_buf b, int in, int out) {
  size_t bytes = hs_buf_bytes(b);
  if (b.data && b.where == HS_MEM_DEVICE) return b.data;
  void *d = NULL;
  if (cuda_failed(c, cudaMallocAsync(&d, bytes ? bytes : 1, c->stream), "cudaMallocAsync")) return NULL;
  q->to_free[q->n_free++] = d;
  if (b.data && in && cuda_failed(c, cudaMemcpyAsync(d, b.data, bytes, cudaMemcpyHostToDevice, c->stream), "copy in"))
    return NULL;
  if (b.data && out) q->back[q->n_back++] = (staged){b.data, d, bytes};
  return d;
}

/* A request for an operation on up to `buffers` buffers. */
static hs_request *request_new(hs_comm *c, int buffers) {
  hs_request *q = calloc(1, sizeof *q);
  q->comm = c;
  q->stream = c->stream;
  q->back = calloc((size_t)buffers + 1, sizeof *q->back);
  q->to_free = calloc((size_t)buffers + 1, sizeof *q->to_free);
  return q;
}

static void request_free(hs_request *q) {
  free(q->back);
  free(q->to_free);
  free(q);
}

/* NCCL does not say what it sent; count what the ring lowering sends. */
static void count_ring_bytes(hs_comm *c, hs_op_kind k, double bytes) {
  int root = k == HS_OP_BROADCAST; /* called on the root for broadcast, off it for reduce */
  c->self->w.bytes_sent += (uint64_t)hs_lower_ring_bytes(k, c->size, bytes, root);
}

/* Records the completion event and hands the request out (or cleans up). */
static int request_post(hs_comm *c, hs_request *q, int failed, hs_request **out) {
  *out = NULL;
  if (!failed) failed = cuda_failed(c, cudaEventCreateWithFlags(&q->done, cudaEventDisableTiming), "event") ||
                        cuda_failed(c, cudaEventRecord(q->done, c->stream), "event record");
  if (failed) {
    for (int i = 0; i < q->n_free; i++) cudaFreeAsync(q->to_free[i], c->stream);
    request_free(q);
    return HS_EBACKEND;
  }
  *out = q;
  return HS_OK;
}

static int divide_for_avg(hs_comm *c, hs_buf b, void *d, hs_redop op) {
  if (op != HS_AVG || !b.data) return 0;
  return hs_kc_divide((hs_k_type)b.dtype, d, b.count, c->size, c->stream);
}

static int nccl_allreduce(hs_comm *c, hs_buf s, hs_buf r, hs_redop op, hs_request **out) {
  hs_request *q = request_new(c, 2);
  int in_place = s.data && s.data == r.data;
  void *dr = device_view(c, q, r, in_place, 1);
  void *ds = in_place ? dr : device_view(c, q, s, 1, 0);
  int bad = !dr || !ds ||
            nccl_failed(c, ncclAllReduce(ds, dr, r.count, nccl_type(r.dtype), nccl_op(op), c->nccl, c->stream),
                        "ncclAllReduce") ||
            divide_for_avg(c, r, dr, op);
  if (!bad) count_ring_bytes(c, HS_OP_ALLREDUCE, (double)hs_buf_bytes(r));
  return request_post(c, q, bad, out);
}

static int nccl_reduce_scatter(hs_comm *c, hs_buf s, hs_buf r, hs_redop op, hs_request **out) {
  hs_request *q = request_new(c, 2);
  void *ds = device_view(c, q, s, 1, 0), *dr = device_view(c, q, r, 0, 1);
  int bad = !dr || !ds ||
            nccl_failed(c, ncclReduceScatter(ds, dr, r.count, nccl_type(r.dtype), nccl_op(op), c->nccl, c->stream),
                        "ncclReduceScatter") ||
            divide_for_avg(c, r, dr, op);
  if (!bad) count_ring_bytes(c, HS_OP_REDUCE_SCATTER, (double)hs_buf_bytes(s));
  return request_post(c, q, bad, out);
}

static int nccl_allgather(hs_comm *c, hs_buf s, hs_buf r, hs_request **out) {
  hs_request *q = request_new(c, 2);
  void *ds = device_view(c, q, s, 1, 0), *dr = device_view(c, q, r, 0, 1);
  int bad = !dr || !ds ||
            nccl_failed(c, ncclAllGather(ds, dr, s.count, nccl_type(s.dtype), c->nccl, c->stream), "ncclAllGather");
  if (!bad) count_ring_bytes(c, HS_OP_ALLGATHER, (double)hs_buf_bytes(r));
  return request_post(c, q, bad, out);
}

static int nccl_broadcast(hs_comm *c, hs_buf s, hs_buf r, int root, hs_request **out) {
  hs_request *q = request_new(c, 2);
  int in_place = s.data == r.data;
  void *dr = device_view(c, q, r, in_place && c->rank == root, 1);
  void *ds = in_place ? dr : device_view(c, q, s, c->rank == root, 0);
  int bad = !dr || !ds ||
            nccl_failed(c, ncclBroadcast(ds, dr, r.count, nccl_type(r.dtype), root, c->nccl, c->stream),
                        "ncclBroadcast");
  if (!bad && c->rank == root) count_ring_bytes(c, HS_OP_BROADCAST, (double)hs_buf_bytes(r));
  return request_post(c, q, bad, out);
}

static int nccl_reduce(hs_comm *c, hs_buf s, hs_buf r, hs_redop op, int root, hs_request **out) {
  hs_request *q = request_new(c, 2);
  int mine = c->rank == root, in_place = s.data == r.data;
  void *dr = device_view(c, q, r, in_place, mine);
  void *ds = in_place ? dr : device_view(c, q, s, 1, 0);
  int bad = !dr || !ds ||
            nccl_failed(c, ncclReduce(ds, dr, s.count, nccl_type(s.dtype), nccl_op(op), root, c->nccl, c->stream),
                        "ncclReduce") ||
            (mine && divide_for_avg(c, r, dr, op));
  if (!bad && !mine) count_ring_bytes(c, HS_OP_REDUCE, (double)hs_buf_bytes(s));
  return request_post(c, q, bad, out);
}

/* Pairwise exchange of blocks, one NCCL group (portable to NCCL < 2.28). */
static int nccl_alltoall(hs_comm *c, hs_buf s, hs_buf r, hs_request **out) {
  hs_request *q = request_new(c, 2);
  void *ds = device_view(c, q, s, 1, 0), *dr = device_view(c, q, r, 0, 1);
  size_t block = s.count / (size_t)c->size, bytes = block * hs_dtype_size(s.dtype);
  int bad = !dr || !ds || nccl_failed(c, ncclGroupStart(), "ncclGroupStart");
  for (int p = 0; p < c->size && !bad; p++)
    bad = nccl_failed(c, ncclSend((char *)ds + p * bytes, block, nccl_type(s.dtype), p, c->nccl, c->stream),
                      "ncclSend") ||
          nccl_failed(c, ncclRecv((char *)dr + p * bytes, block, nccl_type(r.dtype), p, c->nccl, c->stream),
                      "ncclRecv");
  if (!dr || !ds) return request_post(c, q, 1, out);
  bad |= nccl_failed(c, ncclGroupEnd(), "ncclGroupEnd");
  if (!bad) count_ring_bytes(c, HS_OP_ALLTOALL, (double)hs_buf_bytes(s));
  return request_post(c, q, bad, out);
}

static int nccl_barrier(hs_comm *c, hs_request **out) {
  hs_request *q = request_new(c, 2);
  void *d = device_view(c, q, hs_buf_virtual(1, HS_I32), 0, 0);
  int bad = !d || nccl_failed(c, ncclAllReduce(d, d, 1, ncclInt32, ncclSum, c->nccl, c->stream), "barrier");
  return request_post(c, q, bad, out);
}

static int nccl_group_p2p(hs_comm *c, const hs_p2p *ops, int n, hs_request **out) {
  hs_request *q = request_new(c, n);
  void **d = malloc((size_t)(n + 1) * sizeof *d);
  int bad = 0;
  for (int i = 0; i < n && !bad; i++) {
    d[i] = device_view(c, q, ops[i].buf, ops[i].kind == HS_P2P_SEND, ops[i].kind == HS_P2P_RECV);
    bad = !d[i];
  }
  if (!bad) bad = nccl_failed(c, ncclGroupStart(), "ncclGroupStart");
  for (int i = 0; i < n && !bad; i++) {
    hs_buf b = ops[i].buf;
    bad = ops[i].kind == HS_P2P_SEND
              ? nccl_failed(c, ncclSend(d[i], b.count, nccl_type(b.dtype), ops[i].peer, c->nccl, c->stream), "ncclSend")
              : nccl_failed(c, ncclRecv(d[i], b.count, nccl_type(b.dtype), ops[i].peer, c->nccl, c->stream), "ncclRecv");
  }
  if (!bad) bad = nccl_failed(c, ncclGroupEnd(), "ncclGroupEnd");
  for (int i = 0; i < n && !bad; i++)
    if (ops[i].kind == HS_P2P_SEND) c->self->w.bytes_sent += hs_buf_bytes(ops[i].buf);
  free(d);
  return request_post(c, q, bad, out);
}

/* The backend's one entry: o was checked by hs_post; NCCL runs every kind
 * itself (the selector's plan for this transport is the library). */
static int nccl_post(hs_comm *c, const hs_op *o, hs_request **out) {
  *out = NULL;
  if (c->aborted) return c->aborted;
  if (hs_plan_exec(&c->plan, o).engine != HS_ENGINE_LIBRARY) return HS_EINVAL;
  switch (o->kind) {
  case HS_OP_ALLREDUCE: return nccl_allreduce(c, o->send, o->recv, o->redop, out);
  case HS_OP_REDUCE_SCATTER: return nccl_reduce_scatter(c, o->send, o->recv, o->redop, out);
  case HS_OP_ALLGATHER: return nccl_allgather(c, o->send, o->recv, out);
  case HS_OP_BROADCAST: return nccl_broadcast(c, o->send, o->recv, o->root, out);
  case HS_OP_REDUCE: return nccl_reduce(c, o->send, o->recv, o->redop, o->root, out);
  case HS_OP_ALLTOALL: return nccl_alltoall(c, o->send, o->recv, out);
  case HS_OP_BARRIER: return nccl_barrier(c, out);
  case HS_OP_P2P: return nccl_group_p2p(c, o->p2p, o->n_p2p, out);
  case HS_OP_KINDS: break;
  }
  return HS_EINVAL;
}

/* Copies staged host buffers back (unless the operation failed) and frees
 * what the operation held. */
static int finish(hs_request *q, int failed) {
  int rc = HS_OK;
  for (int i = 0; i < q->n_back && !failed; i++)
    if (cudaMemcpy(q->back[i].host, q->back[i].device, q->back[i].bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
      rc = HS_EBACKEND;
  for (int i = 0; i < q->n_free; i++) cudaFreeAsync(q->to_free[i], q->stream);
  cudaEventDestroy(q->done);
  request_free(q);
  return rc;
}

/* The communicator's asynchronous error, as NCCL asks fault-tolerant
 * callers to poll it: a peer that died gives ncclRemoteError (its kernels
 * would otherwise wait forever); the communicator is then aborted and
 * every call on it returns HS_EPEER. 0 while all is well. */
static int async_error(hs_comm *c) {
  if (c->aborted) return c->aborted;
  ncclResult_t a = ncclSuccess;
  if (ncclCommGetAsyncError(c->nccl, &a) != ncclSuccess || a == ncclSuccess || a == ncclInProgress) return 0;
  nccl_failed(c, a, "asynchronous error");
  return c->aborted;
}

/* Waits for q's event, watching for a failed peer meanwhile. */
static int event_wait(hs_request *q) {
  for (;;) {
    cudaError_t e = cudaEventQuery(q->done);
    if (e == cudaSuccess) return HS_OK;
    if (e != cudaErrorNotReady) return HS_EBACKEND;
    int rc = async_error(q->comm);
    if (rc) return rc;
    sched_yield();
  }
}

static int nccl_wait(hs_request **q) {
  if (!*q) return HS_OK;
  int rc = event_wait(*q);
  int rc2 = finish(*q, rc != HS_OK);
  *q = NULL;
  return rc ? rc : rc2;
}

/* 0 while running; once complete, the request is released and test says
 * 1, or the error that struck it (HS_EPEER for a failed peer), as wait. */
static int nccl_test(hs_request **q) {
  if (!*q) return 1;
  if (cudaEventQuery((*q)->done) == cudaErrorNotReady && !async_error((*q)->comm)) return 0;
  int rc = nccl_wait(q);
  return rc ? rc : 1;
}

static int nccl_waitall(hs_request **q, int n) {
  int rc = HS_OK;
  for (int i = 0; i < n; i++) {
    int r = nccl_wait(&q[i]);
    if (r) rc = r;
  }
  return rc;
}

static hs_comm *comm_wrap(nccl_rank *self, ncclComm_t nc) {
  hs_comm *c = calloc(1, sizeof *c);
  c->self = self;
  c->nccl = nc;
  ncclCommUserRank(nc, &c->rank);
  ncclCommCount(nc, &c->size);
  cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
  /* NCCL runs every kind of operation and reduces every type hearsay has;
   * the selector is still the one asked (select.h). Members are not needed
   * by today's policy. */
  hs_select_query q = {self->sc, self->w.size, c->size, NULL, {1u << HS_ENGINE_LIBRARY, ~0u, 0}, 0};
  hs_select(&q, &c->plan);
  return c;
}

static int nccl_comm_split(hs_comm *c, int color, int key, hs_comm **out) {
  *out = NULL;
  if (!c || c->aborted) return HS_EINVAL;
  ncclComm_t sub = NULL;
  if (nccl_failed(c, ncclCommSplit(c->nccl, color < 0 ? NCCL_SPLIT_NOCOLOR : color, key, &sub, NULL),
                  "ncclCommSplit"))
    return HS_EBACKEND;
  if (sub) *out = comm_wrap(c->self, sub);
  return HS_OK;
}

static void nccl_comm_free(hs_comm *c) {
  if (!c) return;
  cudaStreamSynchronize(c->stream);
  if (!c->aborted) ncclCommDestroy(c->nccl);
  cudaStreamDestroy(c->stream);
  free(c);
}

static int nccl_comm_rank(const hs_comm *c) { return c ? c->rank : -1; }
static int nccl_comm_size(const hs_comm *c) { return c ? c->size : 0; }

static double nccl_now(hs_worker *w) { return hs_clock_now() - ((nccl_rank *)w->impl)->t0; }

static void nccl_compute(hs_worker *w, double flops) { hs_host_compute(((nccl_rank *)w->impl)->compute_speed, flops); }
static void nccl_gpu_busy(hs_worker *w, double seconds) {
  hs_host_gpu_busy(((nccl_rank *)w->impl)->compute_speed, seconds);
}

/* The CUDA device is per thread: the second thread selects the rank's. */
static void select_device(void *ctx) { cudaSetDevice(((nccl_rank *)ctx)->device); }

static int nccl_thread_spawn(hs_worker *w, void (*fn)(void *), void *arg, hs_thread **out) {
  return hs_host_thread_spawn(fn, arg, select_device, w->impl, out);
}

static const hs_backend nccl_backend = {
    .name = "nccl",
    .post = nccl_post,
    .wait = nccl_wait,
    .test = nccl_test,
    .waitall = nccl_waitall,
    .comm_split = nccl_comm_split,
    .comm_free = nccl_comm_free,
    .comm_rank = nccl_comm_rank,
    .comm_size = nccl_comm_size,
    .now = nccl_now,
    .compute = nccl_compute,
    .sleep = hs_host_sleep,
    .gpu_busy = nccl_gpu_busy,
    .thread_spawn = nccl_thread_spawn,
    .thread_join = hs_host_thread_join,
    .mutex_create = hs_host_mutex_create,
    .mutex_lock = hs_host_mutex_lock,
    .mutex_unlock = hs_host_mutex_unlock,
    .mutex_destroy = hs_host_mutex_destroy,
    .sem_create = hs_host_sem_create,
    .sem_acquire = hs_host_sem_acquire,
    .sem_release = hs_host_sem_release,
    .sem_destroy = hs_host_sem_destroy,
};

/* Staging and scratch buffers come from the device's default stream-ordered
 * pool (cudaMallocAsync, cudaFreeAsync at each request's end). The pool's
 * release threshold is 0 by default: every synchronisation hands the freed
 * memory back to the driver and the next operation maps it again, a cost
 * no training framework pays (PyTorch's caching allocator keeps freed
 * blocks) and which would count as communication here. Keep it. */
static void keep_freed_memory(int device) {
  cudaMemPool_t pool;
  uint64_t keep = UINT64_MAX;
  if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess)
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
}

hs_worker *hs_nccl_worker_create(const hs_scenario *sc, int emulate_compute) {
  int rank, size, local, devices = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    fprintf(stderr, "hearsay-real: rank %d sees no CUDA device\n", rank);
    return NULL;
  }
  nccl_rank *self = calloc(1, sizeof *self);
  self->sc = sc;
  self->device = local % devices;
  cudaSetDevice(self->device);
  keep_freed_memory(self->device);
  self->compute_speed = hs_host_compute_speed(sc, rank, emulate_compute);

  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t world;
  ncclResult_t r = ncclCommInitRank(&world, size, id, rank);
  if (r != ncclSuccess) {
    fprintf(stderr, "hearsay-real: rank %d: ncclCommInitRank: %s\n", rank, ncclGetErrorString(r));
    free(self);
    return NULL;
  }
  hs_worker *w = &self->w;
  w->be = &nccl_backend;
  w->impl = self;
  w->rank = rank;
  w->size = size;
  w->role = HS_ROLE_WORKER;
  w->gpus_per_node = sc->cluster.gpus_per_node;
  w->node = rank / w->gpus_per_node;
  w->local_rank = rank % w->gpus_per_node;
  w->world = comm_wrap(self, world);
  self->t0 = hs_clock_now();
  return w;
}

void hs_nccl_worker_start_clock(hs_worker *w) { ((nccl_rank *)w->impl)->t0 = hs_real_common_start(); }

void hs_nccl_worker_free(hs_worker *w) {
  if (!w) return;
  nccl_comm_free(w->world);
  free(w->impl);
}
