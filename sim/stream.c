/* stream.c — how an operation posted on a communicator runs and completes.
 *
 * Each (rank, communicator) pair has a stream: operations posted on it run
 * one after the other, as NCCL calls on a CUDA stream do, while the rank
 * goes on computing (that is where overlap comes from). The general way is
 * a daemon actor per stream that runs the lowering. At 1024 ranks its
 * hand-offs (wake the actor, let it block, wake the rank) cost more than
 * the work, so two common cases run without it when the stream is idle
 * and no failure can strike (failures.c needs every exchange registered):
 *  - a collective timed by fast fidelity: its start is known from the
 *    post time and the end of the stream's previous calls, so the post
 *    joins the call at once (fast.c) and waiting is sleeping until the
 *    finish it computed. Consecutive calls chain: each one's start is its
 *    predecessor's finish once that is known;
 *  - a point-to-point group (gossip): the rank posts the SimGrid comms
 *    itself and whoever waits first completes them.
 * Both give the same simulated times as the actor: the comms are the same,
 * posted at the same time from the same host. An operation posted while
 * the stream is not idle goes to the actor, which first lets the direct
 * ones end. Iterations being traced keep the actor for point-to-point, so
 * the trace shows when the comms ended.
 *
 * While a collective runs, its NCCL channels hold SMs of the rank's GPU
 * (sm_hold.c) from its start on the stream (its arrival) to its end, late
 * peers' wait included, as NCCL's kernel spins on them: a direct fast
 * call from the arrival it is given (at its post, or at its predecessor's
 * finish) to the finish it is timed at, a call run by the actor from its
 * launch to its end, both alike.
 * Point-to-point groups hold none (their end is known only to whoever
 * completes them; docs/fidelity.md). */
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/report/trace.h"
#include "kernels/kernels.h"
#include "scenarios/units.h"
#include "sim/sim_internal.h"

typedef enum { REQ_STREAM, REQ_FAST, REQ_P2P } req_kind;

/* An actor blocked until a request is done, on a semaphore of its own. */
typedef struct waiter {
  sg_sem_t sem;
  int retry; /* woken before the request was done: look again */
  struct waiter *next;
} waiter;

struct hs_request {
  req_kind kind;
  int done;   /* the stream ran it; fast: it was timed; p2p: its comms ended */
  int failed; /* a failure struck during the operation */
  hs_worker *owner; /* who posted it, for tracing waits */
  sim_stream *st;
  waiter *waiters;
  int traced;
  hs_op op; /* fast: what the trace shows (its p2p is not kept) */
  /* fast */
  fast_call *call;
  int me;
  double posted, finish;
  struct hs_request *succ; /* the stream's next fast call, waiting for this one's finish */
  /* p2p */
  int claimed; /* someone is completing its comms */
  double cost; /* its protocol's launch and slowest hop: it ends that long after its last comm */
  sim_posted io;
};

typedef struct sim_op {
  hs_op op;    /* owns its p2p array */
  hs_exec how; /* what the plan said when it was posted */
  hs_request *req;
  struct sim_op *next;
} sim_op;

struct sim_stream {
  hs_comm *comm;
  sim_op *head, *tail;
  sg_sem_t items;
  int failed;             /* the operation under way was hit by a failure */
  int queued;             /* operations given to the actor, not finished */
  hs_request *fast_last;  /* the last direct fast call, while it is not timed */
  hs_request *p2p_open;   /* the direct point-to-point group, while its comms fly */
  double free_at;         /* when the direct fast calls timed so far end */
};

void hs_sim_stream_failed(sim_stream *st) { st->failed = 1; }

static inline double dmax(double a, double b) { return a > b ? a : b; }

/* ---- blocking ------------------------------------------------------------------------ */

static sg_sem_t sem_take(sim_world *w) { return w->n_spare_sems ? w->spare_sems[--w->n_spare_sems] : sg_sem_init(0); }

static void sem_give(sim_world *w, sg_sem_t s) {
  if (w->n_spare_sems == w->cap_spare_sems) {
    w->cap_spare_sems = w->cap_spare_sems ? 2 * w->cap_spare_sems : 16;
    w->spare_sems = realloc(w->spare_sems, (size_t)w->cap_spare_sems * sizeof *w->spare_sems);
  }
  w->spare_sems[w->n_spare_sems++] = s;
}

/* Blocks the calling actor until r is done, or until wake(r, 1): returns
 * 1 for the latter. Once r is done its owner may free it as soon as it
 * is: only the owner may read r after this returns 0. */
static int block_on(sim_world *w, hs_request *r) {
  waiter me = {sem_take(w), 0, r->waiters};
  r->waiters = &me;
  sg_sem_acquire(me.sem);
  sem_give(w, me.sem);
  return me.retry;
}

/* Releases whoever blocked on r, telling them to look at r again (retry)
 * or that it is done: then the last thing done with r, since a woken
 * owner frees it. */
static void wake(hs_request *r, int retry) {
  waiter *l = r->waiters;
  r->waiters = NULL;
  while (l) {
    waiter *next = l->next; /* l lives on a woken actor's stack */
    l->retry = retry;
    sg_sem_release(l->sem);
    l = next;
  }
}
static void wake_all(hs_request *r) { wake(r, 0); }

static void trace_op(hs_comm *c, const hs_op *o, double t0, double t1) {
  char what[40], size[16];
  hs_format_bytes((double)hs_buf_bytes(o->kind == HS_OP_ALLGATHER ? o->recv : o->send), size, sizeof size);
  snprintf(what, sizeof what, "%s %s", hs_op_name(o->kind), o->kind >= HS_OP_BARRIER ? "" : size);
  hs_worker *w = &c->self->w;
  hs_trace_span(w->trace, w->rank, HS_LANE_COMM + c->lane, what, t0, t1);
}

/* ---- the SMs a running collective holds ----------------------------------------------- */

/* The channels NCCL launches for a collective of `bytes`: it drops
 * channels while nBytes < nc x nt x threadThreshold (NCCL 2.30.7
 * src/enqueue.cc, "Ring/Tree channel tuning"), LL's 512 threads at 8 bytes
 * each (src/graph/tuning.cc) giving a channel for every 4 KiB at least. A
 * negotiation's or an agreement's few bytes run on one. */
static int nccl_channels(const hs_op *op, int channels) {
  double send = (double)hs_buf_bytes(op->send), recv = (double)hs_buf_bytes(op->recv);
  double nc = floor((send > recv ? send : recv) / 4096);
  return nc < 1 ? 1 : nc > channels ? channels : (int)nc;
}

/* Whether op, posted on c, launches kernels that hold SMs: a collective
 * among at least two GPUs. A rank's speed levels count collectives of the
 * scenario's channels each (sm_hold.c), so a collective NCCL gives fewer
 * channels holds a level when it has more than half of them, else none:
 * the SMs charged are off by at most half a collective's. A negotiation's
 * or an agreement's few bytes hold none (on a DGX-2's 16 channels they
 * held 16 of 80 SMs for as long as they waited for the last rank, which
 * cost Horovod's BERT-Large 10% there; on a one-NIC node's 2, NCCL's one
 * SM is not charged). */
static int holds_sms(const hs_comm *c, const hs_op *op) {
  if (c->self->sm_levels <= 0 || c->g.size <= 1 || op->kind == HS_OP_P2P) return 0;
  if (c->plan && c->plan->exec[op->kind].cost.host) return 0; /* a host library's (Gloo's): on the CPUs */
  int channels = c->self->world->channels;
  return 2 * nccl_channels(op, channels) > channels;
}

/* op, on c, starts holding them at `at` (delta +1) or stops (-1). */
static void sms_at(hs_comm *c, const hs_op *op, double at, int delta) {
  if (holds_sms(c, op)) hs_sim_sms_change(c->self, at, delta);
}

/* ---- direct fast calls ----------------------------------------------------------------- */

void hs_sim_fast_timed(void *token, double arrival, double finish) {
  hs_request *r = token;
  r->finish = finish;
  r->done = 1;
  sim_stream *st = r->st;
  if (st) { /* posted directly (the actor's own parts have no stream) */
    if (r->traced) trace_op(st->comm, &r->op, arrival, finish);
    if (st->fast_last == r) st->fast_last = NULL;
    st->free_at = dmax(st->free_at, finish);
    sms_at(st->comm, &r->op, finish, -1);
    hs_request *next = r->succ;
    r->succ = NULL;
    if (next) {
      double at = dmax(next->posted, finish);
      sms_at(st->comm, &next->op, at, +1);
      hs_sim_fast_arrive(st->comm->self->world, next->call, next->me, at);
    }
  }
  wake_all(r);
}

/* Every member's contribution combined, in member order (the result is
 * the same in any: select.h, hs_op_exact_anywhere) by the kernel the
 * lowering reduces with, then handed to each. */
void hs_sim_fast_reduce(void *const *tokens, int n) {
  if (n < 1) return;
  const hs_request *first = tokens[0];
  if (!first->op.send.data) return;
  size_t count = first->op.send.count, bytes = hs_buf_bytes(first->op.send);
  hs_redop redop = first->op.redop;
  hs_k_op op = redop == HS_MIN ? HS_K_MIN : redop == HS_MAX ? HS_K_MAX : HS_K_SUM;
  void *acc = malloc(bytes ? bytes : 1);
  if (!acc) {
    fprintf(stderr, "hearsay: out of memory reducing a collective's %zu bytes\n", bytes);
    abort();
  }
  memcpy(acc, first->op.send.data, bytes);
  for (int i = 1; i < n; i++)
    hs_k_reduce((hs_k_type)first->op.send.dtype, op, acc, ((const hs_request *)tokens[i])->op.send.data, count);
  for (int i = 0; i < n; i++) memcpy(((const hs_request *)tokens[i])->op.recv.data, acc, bytes);
  free(acc);
}

hs_lower_group hs_sim_group_for(const hs_comm *c, const hs_exec *how) {
  hs_lower_group g = c->g;
  hs_lower_use_protocol(&g, &how->cost, c->self->world->sc->sim.slice);
  return g;
}

static void post_fast(sim_stream *st, hs_comm *c, const hs_op *op, const hs_exec *how, hs_request *r) {
  r->kind = REQ_FAST;
  r->st = st;
  r->op = *op;
  r->me = c->g.me;
  r->posted = simgrid_get_clock();
  double arrival = NAN;
  if (st->fast_last) st->fast_last->succ = r; /* starts when that one ends */
  else {
    arrival = dmax(r->posted, st->free_at);
    sms_at(c, op, arrival, +1);
  }
  st->fast_last = r;
  r->call = hs_sim_fast_join(c, op, how, r, arrival);
}

/* ---- direct point-to-point --------------------------------------------------------------- */

/* The lowering's exchange, posting into the request instead of waiting. */
typedef struct {
  hs_comm *comm;
  hs_request *req;
} posting;

static void post_exchange(const hs_lower_group *g, const hs_lower_send *s, int ns, hs_lower_recv *r, int nr) {
  posting *p = g->ctx;
  hs_sim_post(p->comm, g, s, ns, r, nr, &p->req->io);
}

/* A point-to-point group on c's group: its protocol's wire bytes in *g,
 * and what the protocol charges beyond its flows (one launch, the slowest
 * of its messages' hops) returned. The group's flows start when it is
 * posted and the cost is paid after they end, whether the rank's own actor
 * posted it (which must not wait) or the stream's: the same sum for one
 * exchange on its own, and the same times on either path. */
static double p2p_group(hs_comm *c, const hs_op *op, const hs_exec *how, hs_lower_group *g) {
  *g = c->g;
  hs_lower_use_protocol(g, &how->cost, c->self->world->sc->sim.slice);
  double hop = 0;
  for (int i = 0; i < op->n_p2p; i++)
    if (op->p2p[i].peer != g->me) hop = dmax(hop, hs_lower_hop(g, g->me, op->p2p[i].peer));
  g->hop_intra = g->hop_net = 0;
  return g->size > 1 ? how->cost.launch + hop : 0; /* a group of one moves nothing */
}

static void post_p2p(sim_stream *st, hs_comm *c, const hs_op *op, const hs_exec *how, hs_request *r) {
  r->kind = REQ_P2P;
  r->st = st;
  st->p2p_open = r;
  posting p = {c, r};
  hs_lower_group g;
  r->cost = p2p_group(c, op, how, &g);
  g.exchange = post_exchange;
  g.ctx = &p;
  /* one GPU's flows: what it reaches of its node's NICs, not the node's
   * (a communicator's group spreads its node's members, for its ring) */
  g.spread = hs_lower_spread(&g, HS_OP_P2P, HS_COLL_RING);
  hs_lower_group_p2p(&g, op->p2p, op->n_p2p);
}

/* Waits for r's comms, or for whoever is already waiting for them. */
static void complete_p2p(sim_world *w, hs_request *r) {
  for (;;) {
    if (r->done) return;
    if (!r->claimed) break;
    if (!block_on(w, r)) return; /* done: r may be gone */
  }
  r->claimed = 1;
  hs_sim_wait_posted(&r->io);
  if (r->io.ended + r->cost > simgrid_get_clock()) sg_actor_sleep_until(r->io.ended + r->cost);
  hs_sim_finish_posted(&r->io, 0);
  r->done = 1;
  if (r->st->p2p_open == r) r->st->p2p_open = NULL;
  wake_all(r);
}

/* ---- the stream actor ---------------------------------------------------------------------- */

/* Before the actor runs an operation: the direct ones posted before it end. */
static void drain_direct(sim_world *w, sim_stream *st) {
  if (st->p2p_open) complete_p2p(w, st->p2p_open);
  if (st->fast_last) block_on(w, st->fast_last);
  if (st->free_at > simgrid_get_clock()) sg_actor_sleep_until(st->free_at);
}

/* A fast call run by the actor: join with the actor's clock as arrival,
 * sleep until the finish it gets. */
static void run_fast(sim_world *w, hs_comm *c, const hs_op *op, const hs_exec *how) {
  hs_request part = {.kind = REQ_FAST, .op = *op}; /* its buffers, for a call with data */
  hs_sim_fast_join(c, op, how, &part, simgrid_get_clock());
  if (!part.done) block_on(w, &part);
  if (part.finish > simgrid_get_clock()) sg_actor_sleep_until(part.finish);
}

static void stream_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  sim_stream *st = sg_actor_self_get_data();
  sg_actor_daemonize(sg_actor_self());
  sim_world *w = st->comm->self->world;
  for (;;) {
    sg_sem_acquire(st->items);
    sim_op *o = st->head;
    st->head = o->next;
    if (!st->head) st->tail = NULL;
    drain_direct(w, st);
    double t0 = simgrid_get_clock();
    st->failed = 0;
    sms_at(st->comm, &o->op, t0, +1);
    if (o->how.engine == HS_ENGINE_TIMED) run_fast(w, st->comm, &o->op, &o->how);
    else if (o->op.kind == HS_OP_P2P) {
      hs_lower_group g;
      double cost = p2p_group(st->comm, &o->op, &o->how, &g);
      hs_lower_run(&g, &o->op, o->how.algo); /* returns when its flows ended */
      if (cost > 0 && !st->failed) sg_actor_sleep_for(cost); /* a failure is reported at once */
    }
    else {
      /* A collective: its protocol's launch, then its messages. */
      hs_lower_group g = hs_sim_group_for(st->comm, &o->how);
      if (g.size > 1 && o->how.cost.launch > 0) sg_actor_sleep_for(o->how.cost.launch);
      hs_lower_run(&g, &o->op, o->how.algo);
    }
    sms_at(st->comm, &o->op, simgrid_get_clock(), -1);
    hs_request *r = o->req;
    if (r->traced) trace_op(st->comm, &o->op, t0, simgrid_get_clock());
    hs_op_release(&o->op);
    free(o);
    st->queued--;
    r->failed = st->failed;
    r->done = 1;
    wake_all(r);
  }
}

static sim_stream *stream_of(hs_comm *c) {
  if (c->stream) return c->stream;
  sim_stream *st = calloc(1, sizeof *st);
  st->comm = c;
  c->stream = st;
  return st;
}

/* The actor starts with the first operation it must run: a run whose
 * operations all go direct has no stream actors. */
static void start_actor(sim_stream *st) {
  st->items = sg_sem_init(0);
  hs_sim_start_helper(st->comm, "stream", stream_main, st);
}

int hs_sim_stream_free(hs_comm *c) {
  if (c->stream && c->stream->items) return 0;
  free(c->stream);
  c->stream = NULL;
  return 1;
}

/* ---- posting, waiting ------------------------------------------------------------------------ */

int hs_sim_post_op(hs_comm *c, const hs_op *op, hs_request **req) {
  sim_world *w = c->self->world;
  hs_exec how = hs_plan_exec(c->plan, op);
  if (op->kind != HS_OP_P2P && c->g.me == 0) { /* what ran, for the summary */
    w->collectives[how.algo]++;
    w->protocols[how.proto]++;
    w->unmodelled[how.unmodelled]++;
    w->by_messages += how.engine == HS_ENGINE_MESSAGES;
  }
  hs_request *r = calloc(1, sizeof *r);
  if (!r) return HS_ENOMEM;
  r->owner = &c->self->w;
  r->traced = r->owner->tracing;
  sim_stream *st = stream_of(c);
  int idle = w->direct && st->queued == 0 && !st->p2p_open;
  if (idle && how.engine == HS_ENGINE_TIMED) {
    post_fast(st, c, op, &how, r);
    *req = r;
    return HS_OK;
  }
  if (idle && op->kind == HS_OP_P2P && !r->traced && !st->fast_last && st->free_at <= simgrid_get_clock()) {
    post_p2p(st, c, op, &how, r);
    *req = r;
    return HS_OK;
  }
  sim_op *o = calloc(1, sizeof *o);
  if (!o || hs_op_keep(&o->op, op)) {
    free(o), free(r);
    return HS_ENOMEM;
  }
  r->kind = REQ_STREAM;
  o->how = how;
  o->req = r;
  *req = r;
  if (st->tail) st->tail->next = o;
  else st->head = o;
  st->tail = o;
  st->queued++;
  if (!st->items) start_actor(st);
  sg_sem_release(st->items);
  return HS_OK;
}

int hs_sim_wait(hs_request **q) {
  hs_request *r = *q;
  if (!r) return HS_OK;
  hs_worker *w = r->owner;
  sim_world *world = ((sim_rank *)w->impl)->world;
  double t0 = simgrid_get_clock();
  if (r->kind == REQ_P2P) complete_p2p(world, r);
  else if (!r->done) block_on(world, r);
  if (r->kind == REQ_FAST && r->finish > simgrid_get_clock()) sg_actor_sleep_until(r->finish);
  double t1 = simgrid_get_clock();
  /* The wait lane is the training thread's (the rank's first actor): a
   * communication stream's or averaging thread's waits block nobody's
   * compute, and their operations show on the communicators' lanes. */
  sim_rank *self = w->impl;
  if (w->tracing && t1 > t0 && self->n_actors > 0 && sg_actor_self() == self->actors[0])
    hs_trace_span(w->trace, w->rank, HS_LANE_WAIT, "wait", t0, t1);
  int rc = r->failed ? HS_EPEER : HS_OK;
  free(r);
  *q = NULL;
  return rc;
}

int hs_sim_test(hs_request **q) {
  hs_request *r = *q;
  if (!r) return 1;
  switch (r->kind) {
  case REQ_STREAM: if (!r->done) return 0; break;
  case REQ_FAST: if (!r->done || r->finish > simgrid_get_clock()) return 0; break;
  case REQ_P2P:
    if (r->claimed && !r->done) return 0;
    if (!r->done) {
      /* SimGrid's test of a comm is a simcall, which lets other actors
       * run: the stream's actor, draining, must not wait on the comms
       * while this test may release them. It waits for the test, then
       * looks again (complete_p2p). */
      r->claimed = 1;
      int ended = hs_sim_test_posted(&r->io);
      r->claimed = 0;
      if (!ended || r->io.ended + r->cost > simgrid_get_clock()) {
        wake(r, 1);
        return 0;
      }
    }
    break;
  }
  int rc = hs_sim_wait(q); /* a failed peer is reported, not dropped */
  return rc ? rc : 1;
}
