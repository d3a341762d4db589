/* sm_hold.c — the SMs a rank's running collectives hold (sim_internal.h).
 *
 * NCCL runs each channel of a collective as one CUDA block, resident on one
 * SM from the kernel's start on its stream to its end, spinning while it
 * waits for late peers (NCCL 2.30.7, src/enqueue.cc), and compute kernels
 * do not share that SM: backward beside it runs on the GPU's other SMs. A
 * GPU's host has speed levels (SimGrid pstates, hs_platform_sm_levels):
 * pstate k is its speed less k collectives' SMs. A rank's pstate is the
 * number of its collectives running now; SimGrid rescales the computation
 * under way when it changes.
 *
 * A collective timed by fast fidelity starts and ends at times known in
 * advance (its arrival on the stream, its finish), and nobody of the rank
 * is awake then to change the pstate. One daemon actor per world does: it
 * sleeps until the earliest pending change, applies every change due, and
 * sleeps again; a change due before the one it sleeps for wakes it early.
 * It wakes once per distinct time, not once per rank: the ranks of a
 * collective end together. (One SimGrid execution per hold, bounded at the
 * SMs' share, was the first way: starting one per collective and rank made
 * a 1024-GPU simulation 2.3 times slower, docs/performance.md.) */
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>
#include <stdlib.h>

#include "sim/sim_internal.h"
#include "sim/time_heap.h"

typedef struct {
  hs_time_key due; /* changes due together apply in their posting order */
  sim_rank *r;
  int delta;
} sm_change;

struct sim_holds {
  hs_time_heap changes; /* of sm_change */
  sim_rank **touched; /* ranks whose count changed in this wake-up */
  int n_touched, cap_touched;
  sg_sem_t wake;
  double deadline; /* what the actor sleeps until (INFINITY: until woken) */
};

/* When the earliest pending change is due (INFINITY: none). */
static double next_due(const struct sim_holds *hs) {
  const sm_change *c = hs_time_heap_top(&hs->changes);
  return c ? c->due.time : INFINITY;
}

/* r's pstate follows its running collectives. The level last asked for is
 * kept in r->sm_level rather than read back from the host: SimGrid applies
 * an actor's sg_host_set_pstate only when the maestro handles its simcall,
 * after every actor of the scheduling round has run, in the order they
 * asked. Two actors of one rank (its own and a communication stream's
 * thread) can both settle in one round: the second, reading the host, sees
 * the level before the first's request and may skip its own, which then
 * leaves the first's stale level in place (test_direct_streams' gossip
 * case caught it: 1.5% apart). The cache is what the host will hold once
 * the round's requests are applied. */
static void settle(sim_rank *r) {
  int level = r->sm_holding < 0 ? 0 : r->sm_holding < r->sm_levels ? r->sm_holding : r->sm_levels;
  if (level != r->sm_level) {
    r->sm_level = level;
    sg_host_set_pstate(r->host, (unsigned long)level);
  }
}

/* SimGrid wakes a timed wait within its clock's rounding of the end. */
static double slack(double now) { return 1e-12 * (1 + fabs(now)); }

static void changer_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  struct sim_holds *hs = sg_actor_self_get_data();
  for (;;) {
    double now = simgrid_get_clock();
    /* every change due, then one pstate per rank: a stream's collective
     * ending as its next one starts changes nothing */
    while (next_due(hs) <= now + slack(now)) {
      sm_change c;
      hs_time_heap_pop(&hs->changes, &c);
      c.r->sm_holding += c.delta;
      if (!c.r->sm_touched) {
        if (hs->n_touched == hs->cap_touched) {
          hs->cap_touched = hs->cap_touched ? 2 * hs->cap_touched : 64;
          hs->touched = realloc(hs->touched, (size_t)hs->cap_touched * sizeof *hs->touched);
        }
        hs->touched[hs->n_touched++] = c.r;
        c.r->sm_touched = 1;
      }
    }
    for (int i = 0; i < hs->n_touched; i++) {
      hs->touched[i]->sm_touched = 0;
      settle(hs->touched[i]);
    }
    hs->n_touched = 0;
    hs->deadline = next_due(hs);
    if (hs->deadline < INFINITY) sg_sem_acquire_timeout(hs->wake, hs->deadline - now);
    else sg_sem_acquire(hs->wake);
  }
}

void hs_sim_sms_change(sim_rank *r, double at, int delta) {
  if (r->sm_levels <= 0 || delta == 0) return;
  double now = simgrid_get_clock();
  if (at <= now + slack(now)) {
    r->sm_holding += delta;
    settle(r);
    return;
  }
  sim_world *w = r->world;
  struct sim_holds *hs = w->holds;
  if (!hs) {
    hs = w->holds = calloc(1, sizeof *hs);
    hs_time_heap_init(&hs->changes, sizeof(sm_change));
    hs->wake = sg_sem_init(0);
    hs->deadline = INFINITY;
    /* the world's, not a rank's: not counted among the ranks' actors */
    sg_actor_t a = sg_actor_init("sm-changer", r->host);
    sg_actor_set_data(a, hs);
    sg_actor_start_(a, changer_main, 0, NULL);
    sg_actor_daemonize(a); /* the simulation ends with the ranks, not with it */
  }
  hs_time_heap_push(&hs->changes, &(sm_change){{at, 0}, r, delta});
  if (at < hs->deadline) { /* sooner than it sleeps for */
    hs->deadline = at;
    sg_sem_release(hs->wake);
  }
}
