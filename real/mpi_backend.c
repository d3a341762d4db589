/* mpi_backend.c — the comm-op table of the MPI transport (host memory).
 *
 * Each communicator has a stream: a thread that takes the operations posted
 * on that communicator and runs them one after the other through the shared
 * lowering (algos/comm/lowering.h), whose messages hs_mpi_exchange sends. Posting
 * returns at once, so the caller keeps computing while the stream
 * communicates, as with NCCL on a CUDA stream; operations on different
 * communicators run concurrently. MPI is initialised with
 * MPI_THREAD_MULTIPLE, which streams, splits and the algorithms' second
 * thread of control need. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "real/mpi_backend.h"
#include "real/mpi_internal.h"
#include "real/host_threads.h"

/* ---- requests and streams ------------------------------------------------------- */

struct hs_request {
  int done;
  mpi_rank *owner;
};

struct mpi_op {
  hs_op op;    /* owns its p2p array */
  hs_exec how; /* what the plan said when it was posted */
  hs_request *req;
  int stop; /* the last item of a stream being freed */
  mpi_op *next;
};

static void *stream_main(void *arg) {
  hs_comm *c = arg;
  mpi_rank *self = c->self;
  for (;;) {
    pthread_mutex_lock(&c->qlock);
    while (!c->head) pthread_cond_wait(&c->qcv, &c->qlock);
    mpi_op *o = c->head;
    c->head = o->next;
    if (!c->head) c->tail = NULL;
    pthread_mutex_unlock(&c->qlock);
    if (o->stop) {
      free(o);
      return NULL;
    }
    if (o->how.engine == HS_ENGINE_LIBRARY) {
      hs_mpi_native_run(c, &o->op);
    } else if (self->emu) {
      /* Emulated, the collective or point-to-point group pays its
       * protocol as the simulator's does (protocol.h, select.h): the
       * launch here, each message's hop and wire bytes in the emulator
       * (mpi_exchange.c). */
      hs_lower_group g = c->g;
      hs_lower_use_protocol(&g, &o->how.cost, self->sc->sim.slice);
      if (g.size > 1 && o->how.cost.launch > 0)
        hs_clock_sleep_until(hs_clock_now() + o->how.cost.launch);
      hs_lower_run(&g, &o->op, o->how.algo);
    } else {
      hs_lower_run(&c->g, &o->op, o->how.algo);
    }
    pthread_mutex_lock(&self->lock);
    o->req->done = 1;
    pthread_cond_broadcast(&self->done);
    pthread_mutex_unlock(&self->lock);
    hs_op_release(&o->op);
    free(o);
  }
}

static void enqueue(hs_comm *c, mpi_op *o) {
  pthread_mutex_lock(&c->qlock);
  if (c->tail) c->tail->next = o;
  else c->head = o;
  c->tail = o;
  pthread_cond_signal(&c->qcv);
  pthread_mutex_unlock(&c->qlock);
}

/* This transport reaches host memory only. */
static int on_host(hs_buf b) { return !b.data || b.where == HS_MEM_HOST; }

static int mpi_post(hs_comm *c, const hs_op *op, hs_request **req) {
  if (!on_host(op->send) || !on_host(op->recv)) return HS_EINVAL;
  for (int i = 0; i < op->n_p2p; i++)
    if (!on_host(op->p2p[i].buf)) return HS_EINVAL;
  mpi_op *o = calloc(1, sizeof *o);
  hs_request *r = calloc(1, sizeof *r);
  if (!o || !r || hs_op_keep(&o->op, op)) {
    free(o), free(r);
    return HS_ENOMEM;
  }
  r->owner = c->self;
  o->how = hs_plan_exec(&c->plan, op);
  o->req = r;
  enqueue(c, o);
  *req = r;
  return HS_OK;
}

static int mpi_wait(hs_request **q) {
  if (!*q) return HS_OK;
  mpi_rank *self = (*q)->owner;
  pthread_mutex_lock(&self->lock);
  while (!(*q)->done) pthread_cond_wait(&self->done, &self->lock);
  pthread_mutex_unlock(&self->lock);
  free(*q);
  *q = NULL;
  return HS_OK;
}

static int mpi_test(hs_request **q) {
  if (!*q) return 1;
  mpi_rank *self = (*q)->owner;
  pthread_mutex_lock(&self->lock);
  int done = (*q)->done;
  pthread_mutex_unlock(&self->lock);
  if (!done) return 0;
  free(*q);
  *q = NULL;
  return 1;
}

static int mpi_waitall(hs_request **q, int n) {
  for (int i = 0; i < n; i++) mpi_wait(&q[i]);
  return HS_OK;
}

/* ---- communicators ------------------------------------------------------------------ */

/* Wraps the MPI communicator `data` (and a twin for control) as an hs_comm
 * with its own stream thread; members are translated to world ranks. */
static hs_comm *comm_wrap(mpi_rank *self, MPI_Comm data) {
  hs_comm *c = calloc(1, sizeof *c);
  c->self = self;
  c->data = data;
  MPI_Comm_dup(data, &c->ctl);
  int n, me, world_n = self->w.size;
  MPI_Comm_size(data, &n);
  MPI_Comm_rank(data, &me);
  c->members = malloc((size_t)n * sizeof(int));
  c->local_of_world = malloc((size_t)world_n * sizeof(int));
  MPI_Group world_group, group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Comm_group(data, &group);
  int *idx = malloc((size_t)n * sizeof(int));
  for (int i = 0; i < n; i++) idx[i] = i;
  MPI_Group_translate_ranks(group, n, idx, world_group, c->members);
  free(idx);
  MPI_Group_free(&group);
  MPI_Group_free(&world_group);
  for (int i = 0; i < world_n; i++) c->local_of_world[i] = -1;
  for (int i = 0; i < n; i++) c->local_of_world[c->members[i]] = i;

  snprintf(c->g.tag, sizeof c->g.tag, "mpi");
  c->g.size = n;
  c->g.me = me;
  c->g.members = c->members;
  c->g.gpus_per_node = self->w.gpus_per_node;
  /* the trees as the simulator runs them (one a NIC), so the sums agree to the bit */
  c->g.tree_heads = self->sc->cluster.nics_per_node;
  c->g.exchange = hs_mpi_exchange;
  c->g.ctx = c;
  /* How each kind of operation runs on it: asked once, looked up per post. */
  hs_select_query q = {self->sc, world_n, n, c->members, self->offer, 0};
  hs_select(&q, &c->plan);
  pthread_mutex_init(&c->qlock, NULL);
  pthread_cond_init(&c->qcv, NULL);
  pthread_create(&c->thread, NULL, stream_main, c);
  return c;
}

static int mpi_comm_split(hs_comm *c, int color, int key, hs_comm **out) {
  *out = NULL;
  if (!c) return HS_EINVAL;
  MPI_Comm sub;
  if (MPI_Comm_split(c->ctl, color < 0 ? MPI_UNDEFINED : color, key, &sub) != MPI_SUCCESS) return HS_EBACKEND;
  if (sub != MPI_COMM_NULL) *out = comm_wrap(c->self, sub);
  return HS_OK;
}

static void mpi_comm_free(hs_comm *c) {
  if (!c) return;
  mpi_op *stop = calloc(1, sizeof *stop);
  stop->stop = 1;
  enqueue(c, stop); /* after everything already posted */
  pthread_join(c->thread, NULL);
  pthread_mutex_destroy(&c->qlock);
  pthread_cond_destroy(&c->qcv);
  MPI_Comm_free(&c->ctl);
  MPI_Comm_free(&c->data);
  free(c->members);
  free(c->local_of_world);
  free(c->scratch);
  free(c);
}

static int mpi_comm_rank(const hs_comm *c) { return c ? c->g.me : -1; }
static int mpi_comm_size(const hs_comm *c) { return c ? c->g.size : 0; }

/* ---- time, compute, threads --------------------------------------------------------- */

static double mpi_now(hs_worker *w) { return hs_clock_now() - ((mpi_rank *)w->impl)->t0; }

/* Numeric workloads really computed their gradients before this call; a
 * timing-only workload's FLOPs take the scenario GPU's time (compute_speed). */
static void mpi_compute(hs_worker *w, double flops) { hs_host_compute(((mpi_rank *)w->impl)->compute_speed, flops); }
static void mpi_gpu_busy(hs_worker *w, double seconds) {
  hs_host_gpu_busy(((mpi_rank *)w->impl)->compute_speed, seconds);
}

static int mpi_thread_spawn(hs_worker *w, void (*fn)(void *), void *arg, hs_thread **out) {
  (void)w;
  return hs_host_thread_spawn(fn, arg, NULL, NULL, out);
}

static const hs_backend mpi_backend = {
    .name = "mpi",
    .post = mpi_post,
    .wait = mpi_wait,
    .test = mpi_test,
    .waitall = mpi_waitall,
    .comm_split = mpi_comm_split,
    .comm_free = mpi_comm_free,
    .comm_rank = mpi_comm_rank,
    .comm_size = mpi_comm_size,
    .now = mpi_now,
    .compute = mpi_compute,
    .sleep = hs_host_sleep,
    .gpu_busy = mpi_gpu_busy,
    .thread_spawn = mpi_thread_spawn,
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

/* ---- the worker ----------------------------------------------------------------------- */

hs_worker *hs_mpi_worker_create(const hs_scenario *sc, hs_emulator *emu, int emulate_compute) {
  mpi_rank *self = calloc(1, sizeof *self);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  self->sc = sc;
  self->emu = emu;
  /* hearsay's schedules always; the MPI library's own collectives unless
   * emulating, which delays the schedules' messages. MPI has no 16-bit
   * float type: reductions of real fp16/bf16 data go through hearsay's
   * lowering, which reduces them with the kernels (float32 sums rounded
   * once, as NCCL does). */
  self->offer.engines = 1u << HS_ENGINE_MESSAGES | (emu ? 0 : 1u << HS_ENGINE_LIBRARY);
  self->offer.library_types = ~(1u << HS_F16 | 1u << HS_BF16);
  self->compute_speed = hs_host_compute_speed(sc, rank, emulate_compute);
  pthread_mutex_init(&self->lock, NULL);
  pthread_cond_init(&self->done, NULL);
  hs_worker *w = &self->w;
  w->be = &mpi_backend;
  w->impl = self;
  w->rank = rank;
  w->size = size;
  w->role = HS_ROLE_WORKER;
  w->gpus_per_node = sc->cluster.gpus_per_node;
  /* a CPU process (after the GPUs, scenario.h) on its node or server
   * machine, its local rank after the node's GPUs */
  const hs_cluster_spec *c = &sc->cluster;
  w->node = hs_cluster_rank_node(c, rank);
  if (!hs_cluster_rank_is_cpu(c, rank)) w->local_rank = rank % w->gpus_per_node;
  else if (rank < hs_cluster_rank_of_machine(c, 0))
    w->local_rank = w->gpus_per_node + rank - hs_cluster_rank_of_cpu(c, w->node, 0);
  else w->local_rank = w->gpus_per_node; /* a server machine's one process */
  MPI_Comm world;
  MPI_Comm_dup(MPI_COMM_WORLD, &world);
  w->world = comm_wrap(self, world);
  self->t0 = hs_clock_now();
  return w;
}

void hs_mpi_worker_start_clock(hs_worker *w) { ((mpi_rank *)w->impl)->t0 = hs_real_common_start(); }

void hs_mpi_worker_free(hs_worker *w) {
  if (!w) return;
  mpi_rank *self = w->impl;
  mpi_comm_free(w->world);
  pthread_mutex_destroy(&self->lock);
  pthread_cond_destroy(&self->done);
  free(self);
}
