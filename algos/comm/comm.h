/* comm.h — the comm-op interface: the only thing an algorithm sees of a backend.
 *
 * An algorithm is written once against this header and runs unchanged on the
 * SimGrid backend (sim/), the MPI transport and the NCCL transport (real/).
 * Each backend fills one hs_backend table of function pointers; algorithms
 * call the hs_* inline wrappers below and never a backend directly. Every
 * operation reaches a backend as one hs_op record through one entry, post.
 *
 * Contracts that hold on every backend:
 *
 *  - Buffers may carry no data. An hs_buf with data == NULL is timing-only:
 *    its count and dtype say how many bytes travel, nothing is read, written
 *    or reduced. Either every buffer of one call has data or none has.
 *  - Everything is non-blocking. Each operation returns 0 and a request in
 *    *req, or a negative error code (and *req == NULL). A request is
 *    completed and released by hs_wait / hs_waitall, or by hs_test once it
 *    reports completion; after that the request pointer is set to NULL.
 *    Buffers must stay valid and untouched until the request completes.
 *  - Ordering (NCCL stream semantics): operations posted by one rank on one
 *    communicator execute one after the other, in posting order. Operations
 *    on different communicators may run concurrently. Every member of a
 *    communicator must post its collectives in the same order.
 *  - Counts follow NCCL: reduce_scatter's count is what each rank receives
 *    (send holds size*count); allgather's count is what each rank contributes
 *    (recv holds size*count); alltoall's count is the whole buffer (both
 *    hold size blocks of count/size, block p going to / coming from rank p;
 *    count must divide by size). In-place is allowed where send.data == recv.data for
 *    allreduce, broadcast and reduce.
 *  - HS_AVG is exactly sum / size (a division, not a multiplication by a
 *    rounded reciprocal) and is defined for floating-point types only. Every
 *    rank receives bit-identical results from allreduce and allgather.
 *  - Ranks of a sub-communicator from hs_comm_split are ordered by (key,
 *    parent rank); a rank passing color < 0 gets no communicator (NULL).
 */
#ifndef HS_COMM_H
#define HS_COMM_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
  HS_F32,
  HS_F64,
  HS_I32,
  HS_I64,
  HS_U8,
  HS_F16,  /* 2-byte types travel in timing-only runs; no C reductions yet */
  HS_BF16,
  HS_DTYPE_COUNT
} hs_dtype;

typedef enum { HS_SUM, HS_AVG, HS_MIN, HS_MAX } hs_redop;

/* Where a buffer lives; a backend that cannot reach a kind fails with
 * HS_EINVAL. Host memory is always reachable. */
typedef enum { HS_MEM_HOST, HS_MEM_DEVICE } hs_mem;

typedef struct {
  void *data; /* NULL: timing-only, nothing is touched */
  size_t count;
  hs_dtype dtype;
  hs_mem where;
} hs_buf;

/* Worker computes gradients; server holds shards (parameter server). */
typedef enum { HS_ROLE_WORKER, HS_ROLE_SERVER } hs_role;

/* HS_EPEER: a failure (a GPU, node or link of the scenario's failures { })
 * struck during the operation; its results are not to be used. */
enum { HS_OK = 0, HS_EINVAL = -1, HS_ENOMEM = -2, HS_EBACKEND = -3, HS_EPEER = -4 };

typedef struct hs_comm hs_comm;       /* a communicator (backend-owned) */
typedef struct hs_request hs_request; /* one posted operation */
typedef struct hs_thread hs_thread;   /* a second thread of control */
typedef struct hs_mutex hs_mutex;
typedef struct hs_sem hs_sem;
typedef struct hs_worker hs_worker;
typedef struct hs_trace hs_trace;

/* One half of a point-to-point exchange inside a group (hs_group_p2p). */
typedef enum { HS_P2P_SEND, HS_P2P_RECV } hs_p2p_kind;
typedef struct {
  hs_p2p_kind kind;
  int peer; /* rank in the communicator */
  hs_buf buf;
} hs_p2p;

/* One posted operation: what every collective and point-to-point group
 * becomes before it reaches a backend (as libfabric's collectives map onto
 * one primitive). The hs_* calls below build it; backends receive it
 * through hs_backend.post, already checked against the contracts above. */
typedef enum {
  HS_OP_ALLREDUCE,
  HS_OP_REDUCE_SCATTER,
  HS_OP_ALLGATHER,
  HS_OP_BROADCAST,
  HS_OP_REDUCE,
  HS_OP_ALLTOALL,
  HS_OP_BARRIER,
  HS_OP_P2P,
  HS_OP_KINDS
} hs_op_kind;

typedef struct {
  hs_op_kind kind;
  hs_buf send, recv;
  hs_redop redop;
  int root;
  const hs_p2p *p2p; /* HS_OP_P2P: the caller's array, valid during post only */
  int n_p2p;
} hs_op;

typedef struct hs_backend {
  const char *name; /* "sim", "mpi", "nccl" */

  /* Every operation: queue o on c (a backend that keeps o past the call
   * copies its p2p array, hs_op_keep) and return its request. o has been
   * checked by hs_post: arguments are valid for c's size. How o runs on c
   * (lowered messages, timed, the library's own) was decided by the
   * selector when c was created (algos/comm/select.h).
   *
   * Point to point, grouped: all n halves of a HS_OP_P2P are posted
   * together and the request completes when all have, so a pairwise
   * exchange (each side a send and a recv) cannot deadlock whatever the
   * order of the entries. A send and a recv between the same pair match in
   * posting order. */
  int (*post)(hs_comm *c, const hs_op *o, hs_request **req);

  /* Requests. wait returns HS_OK or HS_EPEER (a failure struck the
   * operation). test returns 0 while the operation runs; once it completed
   * it releases the request and returns 1, or HS_EPEER if a failure struck
   * it: a failed peer is reported by test exactly as by wait. */
  int (*wait)(hs_request **req);
  int (*test)(hs_request **req);
  int (*waitall)(hs_request **reqs, int n);

  /* Sub-communicators; collective over c. */
  int (*comm_split)(hs_comm *c, int color, int key, hs_comm **out);
  /* The same, for a framework's controller on the host (Horovod's
   * negotiation over MPI or Gloo, an agreement among asynchronous
   * workers): its few bytes are not carried by NCCL, so what NCCL ran in
   * a study (sim.nccl_version) does not narrow how they run. NULL: as
   * comm_split (a backend whose communicators are all alike). */
  int (*comm_split_host)(hs_comm *c, int color, int key, hs_comm **out);
  void (*comm_free)(hs_comm *c);
  int (*comm_rank)(const hs_comm *c);
  int (*comm_size)(const hs_comm *c);

  /* Time and compute: now() is simulated time in SimGrid, wall time in real
   * runs. compute() costs flops at this GPU's modelled speed in simulation
   * and is a no-op in real runs, where the caller really computes. */
  double (*now)(hs_worker *w);
  void (*compute)(hs_worker *w, double flops);
  /* Lets time pass on this thread of control: simulated time in SimGrid,
   * wall time in real runs (periodic background work). */
  void (*sleep)(hs_worker *w, double seconds);
  /* A GPU kernel that takes `seconds` on this thread's stream
   * (hs_gpu_kernel): simulated time in SimGrid, wall time where compute is
   * emulated, nothing in real runs, where the kernel really runs. */
  void (*gpu_busy)(hs_worker *w, double seconds);
  /* compute(flops) then gpu_busy(seconds) as one piece of work, where a
   * backend can do it in one step (the simulator: one execution, where two
   * cost two context switches a pass of every rank); NULL: the two. */
  void (*compute_busy)(hs_worker *w, double flops, double seconds);

  /* A second thread of control on the same GPU (a SimGrid actor on the
   * same host, a thread in real runs), and a mutex shared between them. */
  int (*thread_spawn)(hs_worker *w, void (*fn)(void *), void *arg, hs_thread **out);
  void (*thread_join)(hs_thread *t);
  hs_mutex *(*mutex_create)(hs_worker *w);
  void (*mutex_lock)(hs_mutex *m);
  void (*mutex_unlock)(hs_mutex *m);
  void (*mutex_destroy)(hs_mutex *m);
  /* A counting semaphore between the threads of control of one GPU: how a
   * training thread hands work to a communication stream and waits for it
   * (release: one more; acquire: take one, waiting for it). acquire waits
   * at most `seconds` (< 0: for as long as it takes; simulated time in
   * SimGrid, wall time in real runs) and returns 1 if it took one, 0 if
   * the time ran out first. */
  hs_sem *(*sem_create)(hs_worker *w, int initial);
  int (*sem_acquire)(hs_sem *s, double seconds);
  void (*sem_release)(hs_sem *s);
  void (*sem_destroy)(hs_sem *s);

  /* Failures, as in MPI's fault-tolerance proposal (ULFM). A backend that
   * models none leaves both NULL. failures() counts the failure events so
   * far; once it changes, every communicator that existed is revoked (its
   * pending and later operations complete at once with HS_EPEER), so no
   * survivor blocks on a dead rank. shrink() is collective over the
   * survivors: it agrees on the iteration to resume from (the largest any
   * survivor reached, given in `iteration`) and replaces w->world, w->rank
   * and w->size by a world of the survivors. HS_EPEER if this rank is not
   * to go on (the run aborts). */
  int (*failures)(hs_worker *w);
  int (*shrink)(hs_worker *w, int iteration, int *resume);
} hs_backend;

/* What an algorithm knows about the rank it runs on. The backend fills it
 * before the rank's main function starts. */
struct hs_worker {
  const hs_backend *be;
  void *impl;    /* backend-private per-rank state */
  hs_comm *world;
  int rank, size; /* in world */
  hs_role role;
  int node, local_rank, gpus_per_node; /* placement, for hierarchical schemes */
  uint64_t bytes_sent; /* bytes this rank put on the wire, counted by the backend */
  /* failures() as the last shrink() agreement closed, the same for every
   * rank it released: what the survivors have recovered from (a rank's own
   * reading after it, taken at its own moment, can differ from another's) */
  int failures_agreed;
  /* Where the loop and the backend record timeline spans (algos/report/trace.h)
   * while tracing is on; NULL or off: nothing is recorded. */
  hs_trace *trace;
  int tracing;
};

size_t hs_dtype_size(hs_dtype t);
const char *hs_dtype_name(hs_dtype t);
static inline size_t hs_buf_bytes(hs_buf b) { return b.count * hs_dtype_size(b.dtype); }
static inline hs_buf hs_buf_host(void *data, size_t count, hs_dtype t) {
  hs_buf b = {data, count, t, HS_MEM_HOST};
  return b;
}
/* A buffer that carries only a size (timing-only runs). */
static inline hs_buf hs_buf_virtual(size_t count, hs_dtype t) {
  hs_buf b = {NULL, count, t, HS_MEM_HOST};
  return b;
}
/* The slice [offset, offset+count) of b (stays virtual if b is). */
hs_buf hs_buf_slice(hs_buf b, size_t offset, size_t count);

/* ---- the calls algorithms make ------------------------------------------ */

/* Checks o against the contracts above for a communicator of `size`
 * members: HS_OK or HS_EINVAL. hs_post calls it, once, for every backend. */
int hs_op_check(const hs_op *o, int size);
/* Checks o, then posts it on c through the backend's one entry. */
int hs_post(hs_worker *w, hs_comm *c, const hs_op *o, hs_request **q);
/* A copy of o that owns its p2p array (hs_op_release frees it), for a
 * backend that queues o; HS_ENOMEM if it cannot be made. */
int hs_op_keep(hs_op *dst, const hs_op *o);
void hs_op_release(hs_op *o);
/* Reduces data (allreduce, reduce-scatter, reduce). */
static inline int hs_op_reduces(hs_op_kind k) {
  return k == HS_OP_ALLREDUCE || k == HS_OP_REDUCE_SCATTER || k == HS_OP_REDUCE;
}
/* "allreduce", ..., "send/recv": for traces and messages. */
const char *hs_op_name(hs_op_kind k);

static inline int hs_allreduce(hs_worker *w, hs_comm *c, hs_buf s, hs_buf r, hs_redop op, hs_request **q) {
  hs_op o = {.kind = HS_OP_ALLREDUCE, .send = s, .recv = r, .redop = op};
  return hs_post(w, c, &o, q);
}
static inline int hs_reduce_scatter(hs_worker *w, hs_comm *c, hs_buf s, hs_buf r, hs_redop op, hs_request **q) {
  hs_op o = {.kind = HS_OP_REDUCE_SCATTER, .send = s, .recv = r, .redop = op};
  return hs_post(w, c, &o, q);
}
static inline int hs_allgather(hs_worker *w, hs_comm *c, hs_buf s, hs_buf r, hs_request **q) {
  hs_op o = {.kind = HS_OP_ALLGATHER, .send = s, .recv = r};
  return hs_post(w, c, &o, q);
}
static inline int hs_broadcast(hs_worker *w, hs_comm *c, hs_buf s, hs_buf r, int root, hs_request **q) {
  hs_op o = {.kind = HS_OP_BROADCAST, .send = s, .recv = r, .root = root};
  return hs_post(w, c, &o, q);
}
static inline int hs_reduce(hs_worker *w, hs_comm *c, hs_buf s, hs_buf r, hs_redop op, int root, hs_request **q) {
  hs_op o = {.kind = HS_OP_REDUCE, .send = s, .recv = r, .redop = op, .root = root};
  return hs_post(w, c, &o, q);
}
static inline int hs_alltoall(hs_worker *w, hs_comm *c, hs_buf s, hs_buf r, hs_request **q) {
  hs_op o = {.kind = HS_OP_ALLTOALL, .send = s, .recv = r};
  return hs_post(w, c, &o, q);
}
static inline int hs_barrier(hs_worker *w, hs_comm *c, hs_request **q) {
  hs_op o = {.kind = HS_OP_BARRIER};
  return hs_post(w, c, &o, q);
}
static inline int hs_group_p2p(hs_worker *w, hs_comm *c, const hs_p2p *ops, int n, hs_request **q) {
  hs_op o = {.kind = HS_OP_P2P, .p2p = ops, .n_p2p = n};
  return hs_post(w, c, &o, q);
}
static inline int hs_wait(hs_worker *w, hs_request **q) { return w->be->wait(q); }
/* hs_group_p2p and its wait: the first error (HS_EPEER when a failure struck). */
static inline int hs_group_p2p_wait(hs_worker *w, hs_comm *c, const hs_p2p *ops, int n) {
  hs_request *r = NULL;
  int rc = hs_group_p2p(w, c, ops, n, &r);
  int wrc = hs_wait(w, &r);
  return rc ? rc : wrc;
}
static inline int hs_test(hs_worker *w, hs_request **q) { return w->be->test(q); }
static inline int hs_waitall(hs_worker *w, hs_request **q, int n) { return w->be->waitall(q, n); }
static inline int hs_comm_split(hs_worker *w, hs_comm *c, int color, int key, hs_comm **out) {
  return w->be->comm_split(c, color, key, out);
}
/* A sub-communicator for a framework's controller on the host (see the
 * backend's comm_split_host). */
static inline int hs_comm_split_host(hs_worker *w, hs_comm *c, int color, int key, hs_comm **out) {
  return w->be->comm_split_host ? w->be->comm_split_host(c, color, key, out) : w->be->comm_split(c, color, key, out);
}
static inline void hs_comm_free(hs_worker *w, hs_comm *c) { w->be->comm_free(c); }
static inline int hs_comm_rank(hs_worker *w, const hs_comm *c) { return w->be->comm_rank(c); }
static inline int hs_comm_size(hs_worker *w, const hs_comm *c) { return w->be->comm_size(c); }
static inline double hs_now(hs_worker *w) { return w->be->now(w); }
static inline void hs_compute(hs_worker *w, double flops) { w->be->compute(w, flops); }
static inline void hs_sleep(hs_worker *w, double seconds) { w->be->sleep(w, seconds); }
static inline void hs_gpu_busy(hs_worker *w, double seconds) { w->be->gpu_busy(w, seconds); }
static inline void hs_compute_busy(hs_worker *w, double flops, double seconds) {
  if (w->be->compute_busy) {
    w->be->compute_busy(w, flops, seconds);
  } else {
    hs_compute(w, flops);
    hs_gpu_busy(w, seconds);
  }
}
static inline int hs_thread_spawn(hs_worker *w, void (*fn)(void *), void *arg, hs_thread **out) {
  return w->be->thread_spawn(w, fn, arg, out);
}
static inline void hs_thread_join(hs_worker *w, hs_thread *t) { w->be->thread_join(t); }
static inline hs_mutex *hs_mutex_create(hs_worker *w) { return w->be->mutex_create(w); }
static inline void hs_mutex_lock(hs_worker *w, hs_mutex *m) { w->be->mutex_lock(m); }
static inline void hs_mutex_unlock(hs_worker *w, hs_mutex *m) { w->be->mutex_unlock(m); }
static inline void hs_mutex_destroy(hs_worker *w, hs_mutex *m) { w->be->mutex_destroy(m); }
static inline hs_sem *hs_sem_create(hs_worker *w, int initial) { return w->be->sem_create(w, initial); }
static inline int hs_sem_acquire(hs_worker *w, hs_sem *s, double seconds) { return w->be->sem_acquire(s, seconds); }
static inline void hs_sem_release(hs_worker *w, hs_sem *s) { w->be->sem_release(s); }
static inline void hs_sem_destroy(hs_worker *w, hs_sem *s) { w->be->sem_destroy(s); }
static inline int hs_failures(hs_worker *w) { return w->be->failures ? w->be->failures(w) : 0; }
static inline int hs_shrink(hs_worker *w, int iteration, int *resume) {
  return w->be->shrink ? w->be->shrink(w, iteration, resume) : HS_EPEER;
}

#endif
