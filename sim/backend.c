/* backend.c — the comm-op table of the SimGrid backend: communicators,
 * time, compute, threads. Operations go to the communicator's stream
 * (stream.c), which runs them and completes their requests. */
#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mutex.h>
#include <simgrid/semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/report/trace.h"
#include "scenarios/net_transport.h"
#include "scenarios/units.h"
#include "sim/sim.h"
#include "sim/sim_internal.h"

static int sim_waitall(hs_request **q, int n) {
  int rc = HS_OK;
  for (int i = 0; i < n; i++)
    if (hs_sim_wait(&q[i]) == HS_EPEER) rc = HS_EPEER;
  return rc;
}

/* ---- communicators ----------------------------------------------------------- */

/* Every member of the parent registers (color, key); the last to arrive
 * sorts the complete table into groups (group_ranks) and lets all through a
 * SimGrid barrier, then each takes its own group. Costs no simulated time. */
struct sim_rendezvous {
  int ctx, seq;
  int size, left;
  int arrived, revoked; /* revoked: the parent was, when its last member arrived */
  int *color, *key;
  int *by_color; /* parent ranks sorted by (color, rank): each color's run together */
  int *first;    /* per parent rank: its color's first rank, where the group's run and members are kept */
  int *group;    /* per first rank: its color's index among the colors in order of first appearance */
  int *run_at;   /* per first rank: where its run starts in by_color */
  int *run_len;  /* per first rank: the run's length */
  int ctx_base;
  sim_members **groups; /* one per parent rank, shared per color */
  sg_bar_t barrier;
  struct sim_rendezvous *next;
};

static sim_rendezvous *rendezvous_get(sim_world *w, hs_comm *c) {
  for (sim_rendezvous *r = w->rendezvous; r; r = r->next)
    if (r->ctx == c->ctx && r->seq == c->split_seq) return r;
  sim_rendezvous *r = calloc(1, sizeof *r);
  r->ctx = c->ctx;
  r->seq = c->split_seq;
  r->size = r->left = c->g.size;
  r->color = malloc(r->size * sizeof(int));
  r->key = malloc(r->size * sizeof(int));
  r->by_color = malloc(r->size * sizeof(int));
  r->first = malloc(r->size * sizeof(int));
  r->group = malloc(r->size * sizeof(int));
  r->run_at = malloc(r->size * sizeof(int));
  r->run_len = malloc(r->size * sizeof(int));
  r->groups = calloc(r->size, sizeof *r->groups);
  r->ctx_base = w->next_ctx;
  w->next_ctx += r->size;
  r->barrier = sg_barrier_init(r->size);
  r->next = w->rendezvous;
  w->rendezvous = r;
  return r;
}

static void rendezvous_done(sim_world *w, sim_rendezvous *r) {
  if (--r->left > 0) return;
  sim_rendezvous **p = &w->rendezvous;
  while (*p != r) p = &(*p)->next;
  *p = r->next;
  for (int i = 0; i < r->size; i++)
    if (r->groups[i] && --r->groups[i]->refs == 0) hs_sim_members_free(r->groups[i]);
  sg_barrier_destroy(r->barrier);
  free(r->color);
  free(r->key);
  free(r->by_color), free(r->first), free(r->group), free(r->run_at), free(r->run_len);
  free(r->groups);
  free(r);
}

void hs_sim_members_free(sim_members *m) {
  free(m->plan);
  hs_lower_cache_free(m->cache);
  free(m);
}

hs_comm *hs_sim_comm_new(sim_rank *self, int ctx, sim_members *m, int me) {
  hs_comm *c = calloc(1, sizeof *c);
  c->ctx = ctx;
  c->members = m;
  m->refs++;
  snprintf(c->g.tag, sizeof c->g.tag, "c%d", ctx);
  c->g.size = m->n;
  c->g.me = me;
  c->g.members = m->ranks;
  c->self = self;
  c->g.ctx = c; /* the exchange finds its rank, stream and revocation from it */
  c->g.exchange = hs_sim_exchange;
  /* Forwarding on arrival, except in runs with failures: a failure in the
   * middle of a pipelined ring hangs the run today (a posted message the
   * revocation does not reach); those rings run lock-step (fidelity.md). */
  int failures = self->world->sc->failures.n > 0;
  c->g.post = failures ? NULL : hs_sim_post_one;
  c->g.complete = failures ? NULL : hs_sim_complete_one;
  c->g.complete_any = failures ? NULL : hs_sim_complete_any;
  /* The group carries no protocol: a point-to-point group takes its own
   * (stream.c, select.h: hs_plan_p2p_cost), each collective's group
   * takes its own (hs_sim_group_for). */
  hs_proto_cost none = hs_proto_cost_of(HS_PROTO_NONE, HS_PROTO_FOR_RING, NULL);
  hs_lower_use_protocol(&c->g, &none, self->world->sc->sim.slice);
  c->g.window = self->world->sc->sim.slices_in_flight;
  c->g.channels = self->world->channels;
  c->g.switch_slices = self->world->sc->sim.switch_slices;
  c->g.gpus_per_node = self->world->gpus_per_node;
  /* NCCL's tree channels start a node's chain at the GPU next to their NIC */
  c->g.tree_heads = self->world->sc->cluster.nics_per_node;
  c->g.net_latency = hs_net_message_latency(&self->world->sc->cluster);
  c->g.rail_bandwidth = hs_net_rail_bandwidth(&self->world->sc->cluster);
  c->g.node_members = c->g.spread = hs_lower_node_members(m->ranks, m->n, me, c->g.gpus_per_node);
  hs_sim_switch_of(self->world, &c->g);
  /* the members run in this one process: what each would compute alike from
   * the member list is computed once (lowering.h) */
  if (!m->cache) m->cache = hs_lower_cache_new();
  c->g.cache = m->cache;
  c->lane = self->comms++;
  /* How each kind of operation runs on it: asked once per member list,
   * looked up per post. */
  if (!m->plan) {
    hs_select_query q = {self->world->sc, self->world->n, m->n, m->ranks, self->world->offer, m->host_side};
    m->plan = malloc(sizeof *m->plan);
    hs_select(&q, m->plan);
  }
  c->plan = m->plan;
  return c;
}

hs_comm *hs_sim_comm_world(sim_rank *self, sim_members *all) { return hs_sim_comm_new(self, 0, all, self->w.rank); }

static void sim_comm_free(hs_comm *c);

/* Splits c; host_side: the new communicators are a host-side controller's
 * (comm_split_host), their plans made without sim.nccl_version's narrowing. */
/* qsort's comparators for group_ranks and split (their table: qsort has
 * no argument for it, and the simulation runs one actor at a time). */
static const int *sort_by;
static int by_value_then_rank(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  if (sort_by[x] != sort_by[y]) return sort_by[x] < sort_by[y] ? -1 : 1;
  return (x > y) - (x < y);
}
static int by_rank(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The groups of a complete table, once for all its members: sorted by
 * (color, rank), each color's run gives its first rank and its members,
 * and the runs' first ranks in order give the colors' indices. O(n log n)
 * for the split; each member searching the table for its own group made
 * it O(n^3), most of the time of a hierarchical algorithm's start at
 * 4096 GPUs (docs/performance.md). */
static void group_ranks(sim_rendezvous *r) {
  int n = r->size, runs = 0;
  for (int i = 0; i < n; i++) r->by_color[i] = i;
  sort_by = r->color;
  qsort(r->by_color, (size_t)n, sizeof(int), by_value_then_rank);
  int *firsts = malloc((size_t)n * sizeof(int));
  for (int k = 0; k < n;) {
    int head = r->by_color[k], len = 1;
    while (k + len < n && r->color[r->by_color[k + len]] == r->color[head]) len++;
    for (int j = k; j < k + len; j++) r->first[r->by_color[j]] = head;
    r->run_at[head] = k, r->run_len[head] = len;
    if (r->color[head] >= 0) firsts[runs++] = head;
    k += len;
  }
  qsort(firsts, (size_t)runs, sizeof(int), by_rank);
  for (int g = 0; g < runs; g++) r->group[firsts[g]] = g;
  free(firsts);
}

static int split(hs_comm *c, int color, int key, hs_comm **out, int host_side) {
  sim_world *w = c->self->world;
  sim_rendezvous *r = rendezvous_get(w, c);
  c->split_seq++;
  r->color[c->g.me] = color;
  r->key[c->g.me] = key;
  /* Whether the parent is revoked is decided once, by its last member to
   * arrive, for all: decided by each as it leaves, a failure striking
   * between two of them sent one on to its next split while the other
   * returned, and the first waited there for ever. */
  if (++r->arrived == r->size) {
    r->revoked = c->ctx < w->revoke_floor;
    group_ranks(r);
  }
  sg_barrier_wait(r->barrier);
  int revoked = r->revoked;
  *out = NULL;
  if (color >= 0) {
    /* Group index: order of first appearance of the color among parent ranks. */
    int first = r->first[c->g.me], group_idx = r->group[first];
    if (!r->groups[first]) {
      int n = r->run_len[first];
      const int *run = r->by_color + r->run_at[first];
      sim_members *m = malloc(sizeof *m + n * sizeof(int));
      m->plan = NULL;
      m->host_side = host_side;
      m->cache = NULL;
      /* The rendezvous holds a reference until every member of the parent
       * has left it: a member that takes the group, uses and frees it at
       * once must not free it under one that has not read it yet. */
      m->refs = 1;
      m->n = 0;
      /* Members sorted by (key, parent rank). */
      int *order = malloc(n * sizeof(int));
      memcpy(order, run, (size_t)n * sizeof(int));
      sort_by = r->key;
      qsort(order, (size_t)n, sizeof(int), by_value_then_rank);
      m->n = n;
      for (int k = 0; k < n; k++) m->ranks[k] = c->g.members[order[k]];
      free(order);
      r->groups[first] = m;
    }
    sim_members *m = r->groups[first];
    int me = 0;
    while (m->ranks[me] != c->g.members[c->g.me]) me++;
    *out = hs_sim_comm_new(c->self, r->ctx_base + group_idx, m, me);
  }
  rendezvous_done(w, r);
  /* A split of a communicator a failure has revoked is an operation on it,
   * and fails as every later one does: its groups may hold the dead, and
   * the new communicators, made after the failure, would not be revoked
   * (one of them held an asynchronous parameter server's worker waiting
   * for ever on a server that had gone to recover). */
  if (revoked) {
    if (*out) sim_comm_free(*out);
    *out = NULL;
    return HS_EPEER;
  }
  return HS_OK;
}

static int sim_comm_split(hs_comm *c, int color, int key, hs_comm **out) { return split(c, color, key, out, 0); }
static int sim_comm_split_host(hs_comm *c, int color, int key, hs_comm **out) { return split(c, color, key, out, 1); }

static void sim_comm_free(hs_comm *c) {
  if (!c) return;
  /* The stream actor is a daemon blocked on its queue; it ends with the
   * simulation. Its state stays allocated until then. */
  if (--c->members->refs == 0 && c->ctx != 0) hs_sim_members_free(c->members);
  if (hs_sim_stream_free(c)) {
    hs_sim_mailbox_cache_free(c->mailboxes);
    hs_sim_async_free(c->async);
    free(c);
  }
}

static int sim_comm_rank(const hs_comm *c) { return c ? c->g.me : -1; }
static int sim_comm_size(const hs_comm *c) { return c ? c->g.size : 0; }

/* ---- time, compute, threads ---------------------------------------------------- */

static double sim_now(hs_worker *w) {
  (void)w;
  return simgrid_get_clock();
}

static void sim_compute(hs_worker *w, double flops) {
  hs_sim_freeze_if_dead(w->impl);
  if (flops > 0) sg_actor_execute(flops);
}

static void sim_sleep(hs_worker *w, double seconds) {
  hs_sim_freeze_if_dead(w->impl);
  if (seconds > 0) sg_actor_sleep_for(seconds);
}

/* A kernel's time on the GPU: the actor waits it out. Not an execution on
 * the host's speed, which the compute thread's backward would share. */
static void sim_gpu_busy(hs_worker *w, double seconds) {
  hs_sim_freeze_if_dead(w->impl);
  if (seconds > 0) sg_actor_sleep_for(seconds);
}

/* FLOPs and then a kernel's fixed time (its launches, algos/train/train.c)
 * as one execution: the seconds become what the GPU computes in them at
 * its full speed (pstate 0: not the speed of the moment, which depends on
 * whether a collective's SM hold was applied yet, sm_hold.c). Collectives
 * holding SMs stretch them as they stretch the FLOPs (by channels / sms,
 * about 2%, of a few microseconds); one execution instead of an execution
 * and a sleep saves a context switch per pass per rank, 18% of
 * bench-scale's B. */
static void sim_compute_busy(hs_worker *w, double flops, double seconds) {
  hs_sim_freeze_if_dead(w->impl);
  double work = flops + (seconds > 0 ? seconds * sg_host_get_pstate_speed(sg_host_self(), 0) : 0);
  if (work > 0) sg_actor_execute(work);
}

struct hs_thread {
  sg_actor_t actor;
  sim_rank *rank; /* whose helper it is (hs_sim_track_actor) */
  void (*fn)(void *);
  void *arg;
};

static void thread_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  hs_thread *t = sg_actor_self_get_data();
  t->fn(t->arg);
  /* Ended: no longer one of the rank's actors that a failure would
   * daemonize (a daemon that has ended, its handle freed by the join,
   * crashed the engine at its end). */
  hs_sim_untrack_actor(t->rank, t->actor);
}

static int sim_thread_spawn(hs_worker *w, void (*fn)(void *), void *arg, hs_thread **out) {
  sim_rank *self = w->impl;
  static int serial = 0;
  hs_thread *t = calloc(1, sizeof *t);
  t->fn = fn;
  t->arg = arg;
  t->rank = self;
  char name[64];
  snprintf(name, sizeof name, "thread-%d-%d", w->rank, serial++);
  t->actor = sg_actor_init(name, self->host);
  sg_actor_ref(t->actor);
  sg_actor_set_data(t->actor, t);
  sg_actor_start_(t->actor, thread_main, 0, NULL);
  hs_sim_track_actor(self, t->actor);
  *out = t;
  return HS_OK;
}

static void sim_thread_join(hs_thread *t) {
  sg_actor_join(t->actor, -1);
  sg_actor_unref(t->actor);
  free(t);
}

struct hs_mutex {
  sg_mutex_t m;
};

static hs_mutex *sim_mutex_create(hs_worker *w) {
  (void)w;
  hs_mutex *m = malloc(sizeof *m);
  m->m = sg_mutex_init();
  return m;
}
static void sim_mutex_lock(hs_mutex *m) { sg_mutex_lock(m->m); }
static void sim_mutex_unlock(hs_mutex *m) { sg_mutex_unlock(m->m); }
static void sim_mutex_destroy(hs_mutex *m) {
  sg_mutex_destroy(m->m);
  free(m);
}

struct hs_sem {
  sg_sem_t s;
};

static hs_sem *sim_sem_create(hs_worker *w, int initial) {
  (void)w;
  hs_sem *s = malloc(sizeof *s);
  s->s = sg_sem_init(initial);
  return s;
}
static int sim_sem_acquire(hs_sem *s, double seconds) {
  if (seconds < 0 || (seconds == 0 && !sg_sem_would_block(s->s))) {
    sg_sem_acquire(s->s);
    return 1;
  }
  /* A time-out of 0 did not return here before a release (SimGrid 3.x):
   * poll instead */
  if (seconds == 0) return 0;
  return sg_sem_acquire_timeout(s->s, seconds) == 0; /* SimGrid: 1 on time-out */
}
static void sim_sem_release(hs_sem *s) { sg_sem_release(s->s); }
static void sim_sem_destroy(hs_sem *s) {
  sg_sem_destroy(s->s);
  free(s);
}

const hs_backend hs_sim_backend = {
    .name = "sim",
    .post = hs_sim_post_op,
    .wait = hs_sim_wait,
    .test = hs_sim_test,
    .waitall = sim_waitall,
    .comm_split = sim_comm_split,
    .comm_split_host = sim_comm_split_host,
    .comm_free = sim_comm_free,
    .comm_rank = sim_comm_rank,
    .comm_size = sim_comm_size,
    .now = sim_now,
    .compute = sim_compute,
    .sleep = sim_sleep,
    .gpu_busy = sim_gpu_busy,
    .compute_busy = sim_compute_busy,
    .thread_spawn = sim_thread_spawn,
    .thread_join = sim_thread_join,
    .mutex_create = sim_mutex_create,
    .mutex_lock = sim_mutex_lock,
    .mutex_unlock = sim_mutex_unlock,
    .mutex_destroy = sim_mutex_destroy,
    .sem_create = sim_sem_create,
    .sem_acquire = sim_sem_acquire,
    .sem_release = sim_sem_release,
    .sem_destroy = sim_sem_destroy,
    .failures = hs_sim_failures,
    .shrink = hs_sim_shrink,
};
