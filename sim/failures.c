/* failures.c — failures { } in the simulator: who dies when, and how the
 * survivors get unstuck and go on.
 *
 * One daemon actor plays the failures in time order. When one strikes:
 *  - the ranks it takes (a GPU; a node's GPUs; the GPUs a link isolates)
 *    are marked dead and their actors daemonized; each stops for good at
 *    its next call into the backend (messages already on the wire land);
 *  - every communicator that exists is revoked, as MPI's ULFM does: each
 *    exchange under way is completed with a poison token in place of the
 *    message it waits for (or a sink for the message it sends), and every
 *    later one on a revoked communicator fails at once. Operations then
 *    complete with HS_EPEER, so nobody waits on the dead;
 *  - the training loop sees failures() change: under run.on_failure =
 *    "abort" it stops, under "shrink" the survivors meet in shrink(), agree
 *    on where to resume and get a world communicator of their own.
 * Failure times come from the scenario (at) or from an exponential draw of
 * mean mtbf per target (GSL, seeded by the run's seed). */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

char hs_sim_poison;
static void *sink;

typedef struct {
  double at;
  int first, count; /* the world ranks it takes: [first, first + count) */
  char what[48];
} failure_event;

struct sim_recovery {
  int arrived;
  int *rank_arrived; /* per world rank */
  int resume;
  int epoch; /* the world's failures when it closed */
  sg_sem_t go;
  int leaving;
  /* set on release */
  int released;
  sim_members *members;
  int ctx;
};

/* ---- bookkeeping --------------------------------------------------------------- */

void hs_sim_track_actor(sim_rank *r, sg_actor_t a) {
  r->world->actors++;
  /* A rank struck before it started its helpers (a failure at time 0,
   * played before the rank's own actor ran) gets them daemonized as
   * strike() did the others: one left waiting on its queue would keep the
   * simulation from ever ending. */
  if (r->dead) sg_actor_daemonize(a);
  if (r->n_actors == r->cap_actors) {
    r->cap_actors = r->cap_actors ? 2 * r->cap_actors : 4;
    r->actors = realloc(r->actors, (size_t)r->cap_actors * sizeof *r->actors);
  }
  r->actors[r->n_actors++] = a;
}

void hs_sim_untrack_actor(sim_rank *r, sg_actor_t a) {
  for (int i = 0; i < r->n_actors; i++)
    if (r->actors[i] == a) {
      r->actors[i] = r->actors[--r->n_actors];
      return;
    }
}

void hs_sim_start_helper(hs_comm *c, const char *kind, void (*code)(int, char **), void *data) {
  char name[64];
  snprintf(name, sizeof name, "%s-%d-c%d", kind, c->self->w.rank, c->ctx);
  sg_actor_t a = sg_actor_init(name, c->self->host);
  sg_actor_set_data(a, data);
  sg_actor_start_(a, code, 0, NULL);
  hs_sim_track_actor(c->self, a);
}

void hs_sim_freeze_if_dead(sim_rank *r) {
  if (r->dead) sg_sem_acquire(r->world->never); /* never released */
}

void hs_sim_pending_add(sim_world *w, sim_pending *p) {
  p->prev = NULL;
  p->next = w->pending;
  if (w->pending) w->pending->prev = p;
  w->pending = p;
}

void hs_sim_pending_remove(sim_world *w, sim_pending *p) {
  if (p->prev) p->prev->next = p->next;
  else w->pending = p->next;
  if (p->next) p->next->prev = p->prev;
}

int hs_sim_failures(hs_worker *w) { return ((sim_rank *)w->impl)->world->epoch; }

/* ---- the shrink agreement ----------------------------------------------------------- */

/* Releases the survivors once every living rank has arrived, but for those
 * whose training loop has already returned (they never will): the new
 * world is the living ranks that arrived. */
static void recovery_check(sim_world *w) {
  sim_recovery *rc = w->recovery;
  if (!rc || rc->released) return;
  for (int r = 0; r < w->n; r++)
    if (!w->ranks[r].dead && !w->ranks[r].finished && !rc->rank_arrived[r]) return;
  sim_members *m = malloc(sizeof *m + (size_t)w->alive * sizeof(int));
  m->plan = NULL;
  m->host_side = 0;
  m->cache = NULL;
  m->refs = 0;
  m->n = 0;
  for (int r = 0; r < w->n; r++)
    if (!w->ranks[r].dead && rc->rank_arrived[r]) m->ranks[m->n++] = r;
  rc->members = m;
  rc->epoch = w->epoch;
  rc->ctx = w->next_ctx++;
  rc->released = 1;
  w->recovery = NULL;
  for (int i = 0; i < rc->arrived; i++) sg_sem_release(rc->go);
}

void hs_sim_rank_finished(sim_rank *r) {
  r->finished = 1;
  recovery_check(r->world);
}

int hs_sim_shrink(hs_worker *wk, int iteration, int *resume) {
  sim_rank *self = wk->impl;
  sim_world *w = self->world;
  hs_sim_freeze_if_dead(self);
  if (w->aborting) return HS_EPEER;
  if (!w->recovery) {
    sim_recovery *rc = calloc(1, sizeof *rc);
    rc->rank_arrived = calloc(w->n, sizeof(int));
    rc->resume = -1;
    rc->go = sg_sem_init(0);
    w->recovery = rc;
  }
  sim_recovery *rc = w->recovery;
  rc->arrived++;
  rc->rank_arrived[self - w->ranks] = 1;
  if (iteration > rc->resume) rc->resume = iteration;
  recovery_check(w);
  sg_sem_acquire(rc->go);
  *resume = rc->resume;
  wk->failures_agreed = rc->epoch;
  sim_members *m = rc->members;
  int ctx = rc->ctx;
  if (++rc->leaving == rc->arrived) {
    sg_sem_destroy(rc->go);
    free(rc->rank_arrived);
    free(rc);
  }
  hs_sim_freeze_if_dead(self); /* died while waiting: not one of them */
  int me = 0, world_rank = (int)(self - w->ranks);
  while (m->ranks[me] != world_rank) me++;
  /* The old world stays allocated: streams of revoked communicators may
   * still hold it until the simulation ends. */
  wk->world = hs_sim_comm_new(self, ctx, m, me);
  wk->rank = me;
  wk->size = m->n;
  return HS_OK;
}

/* ---- striking ------------------------------------------------------------------- */

static void revoke_comm(sg_mailbox_t mailbox, int is_recv) {
  if (is_recv) sg_comm_detach(sg_mailbox_put_init(mailbox, &hs_sim_poison, 0), NULL);
  else sg_mailbox_get_async(mailbox, &sink); /* absorbs the send; never waited */
}

void hs_sim_pending_revoke(const sim_pending *p) {
  /* p is the caller's own exchange: it stays put while this yields. */
  for (int i = 0; i < p->n; i++) revoke_comm(p->mailbox[i], p->is_recv[i]);
}

static void revoke_all(sim_world *w) {
  w->revoke_floor = w->next_ctx;
  /* Starting a comm is a simcall: other actors run in between, and an
   * exchange completed by an earlier poison unregisters itself and frees
   * its arrays. So the list is copied before anything is posted. */
  int n = 0;
  for (sim_pending *p = w->pending; p; p = p->next) n += p->n;
  sg_mailbox_t *mailbox = malloc((size_t)(n + 1) * sizeof *mailbox);
  char *is_recv = malloc((size_t)n + 1);
  int k = 0;
  for (sim_pending *p = w->pending; p; p = p->next)
    for (int i = 0; i < p->n; i++, k++) mailbox[k] = p->mailbox[i], is_recv[k] = p->is_recv[i];
  for (k = 0; k < n; k++) revoke_comm(mailbox[k], is_recv[k]);
  free(mailbox);
  free(is_recv);
}

static void strike(sim_world *w, const failure_event *e) {
  /* Counted first, before any simcall: once none but daemons is left (the
   * last GPUs lost), SimGrid ends the simulation at the simcall that
   * daemonizes the last one, this actor with it (counted after, a run
   * that lost every GPU reported one failure of two). */
  int lost = 0;
  for (int r = e->first; r < e->first + e->count && r < w->n; r++) lost += !w->ranks[r].dead;
  if (!lost) return; /* it had died already */
  hs_sim_stats *st = w->stats;
  if (st && st->n_failures < HS_SIM_FAILURES_MAX) {
    st->failure_time[st->n_failures] = e->at;
    snprintf(st->failure_what[st->n_failures], sizeof st->failure_what[0], "%s", e->what);
  }
  if (st) st->n_failures++, st->ranks_lost += lost;
  if (w->sc->run.on_failure == HS_ON_FAILURE_ABORT || w->alive == lost) {
    w->aborting = 1;
    if (st) st->aborted = 1;
  }
  /* The victims' actors (those still running: an ended one is no longer
   * tracked) become daemons, as they are marked dead. */
  for (int r = e->first; r < e->first + e->count && r < w->n; r++) {
    sim_rank *sr = &w->ranks[r];
    if (sr->dead) continue;
    sr->dead = 1;
    w->alive--;
    for (int a = 0; a < sr->n_actors; a++) sg_actor_daemonize(sr->actors[a]);
  }
  w->epoch++;
  revoke_all(w);
  recovery_check(w);
}

typedef struct {
  sim_world *w;
  failure_event *events;
  int n;
} failure_plan;

static void failures_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  failure_plan *plan = sg_actor_self_get_data();
  sg_actor_daemonize(sg_actor_self());
  for (int i = 0; i < plan->n; i++) {
    if (plan->events[i].at > simgrid_get_clock()) sg_actor_sleep_until(plan->events[i].at);
    strike(plan->w, &plan->events[i]);
  }
  /* Stay: the sinks this actor posted are its comms, and an actor that ends
   * cancels its comms (the senders would see a link failure). */
  sg_sem_acquire(plan->w->never);
}

/* The world ranks a failure of (kind, index) takes. */
static void victims(const hs_scenario *sc, hs_fail_kind kind, hs_netlink_kind link, int index, failure_event *e) {
  int g = sc->cluster.gpus_per_node;
  const char *what = "gpu";
  e->first = index;
  e->count = 1;
  if (kind == HS_FAIL_NODE || (kind == HS_FAIL_LINK && link == HS_NETLINK_NIC)) {
    e->first = index * g;
    e->count = g;
    what = kind == HS_FAIL_NODE ? "node" : "link node";
  } else if (kind == HS_FAIL_LINK && link == HS_NETLINK_UPLINK) {
    e->first = index * sc->cluster.rack_size * g;
    e->count = sc->cluster.rack_size * g;
    what = "link rack";
  } else if (kind == HS_FAIL_LINK) {
    what = "link gpu";
  }
  snprintf(e->what, sizeof e->what, "%s %d", what, index);
}

static int by_time(const void *a, const void *b) {
  double x = ((const failure_event *)a)->at, y = ((const failure_event *)b)->at;
  return x < y ? -1 : x > y;
}

void hs_sim_start_failures(sim_world *w) {
  const hs_scenario *sc = w->sc;
  w->alive = w->n;
  w->never = sg_sem_init(0);
  const hs_failure_spec *fs = &sc->failures;
  if (fs->n == 0) return;
  int cap = 0, nodes = sc->cluster.nodes, gpus = nodes * sc->cluster.gpus_per_node;
  for (int i = 0; i < fs->n; i++)
    cap += fs->entries[i].index >= 0 ? 1 : fs->entries[i].kind == HS_FAIL_NODE ? nodes : gpus;
  failure_plan *plan = calloc(1, sizeof *plan);
  plan->w = w;
  plan->events = calloc(cap, sizeof *plan->events);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
  for (int i = 0; i < fs->n; i++) {
    const hs_failure_entry *f = &fs->entries[i];
    int targets = f->index >= 0 ? 1 : f->kind == HS_FAIL_NODE ? nodes : gpus;
    gsl_rng_set(rng, (unsigned long)(sc->run.seed * 1000003L + i + 1));
    for (int t = 0; t < targets; t++) {
      failure_event *e = &plan->events[plan->n++];
      victims(sc, f->kind, f->link, f->index >= 0 ? f->index : t, e);
      e->at = f->mtbf > 0 ? gsl_ran_exponential(rng, f->mtbf) : f->at;
    }
  }
  gsl_rng_free(rng);
  qsort(plan->events, plan->n, sizeof *plan->events, by_time);
  sg_actor_t a = sg_actor_init("failures", w->ranks[0].host);
  sg_actor_set_data(a, plan);
  sg_actor_start_(a, failures_main, 0, NULL);
}
