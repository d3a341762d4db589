/* sim_internal.h — state shared by the files of the SimGrid backend. */
#ifndef HS_SIM_INTERNAL_H
#define HS_SIM_INTERNAL_H

#include <simgrid/forward.h>
#include <stddef.h>

#include "algos/comm/comm.h"
#include "algos/comm/lowering.h"
#include "algos/comm/select.h"
#include "scenarios/scenario.h"
#include "sim/sim.h"

typedef struct sim_world sim_world;

typedef struct {
  hs_worker w;
  sg_host_t host;
  sim_world *world;
  int comms; /* communicators this rank has joined: their trace lanes */
  int dead;  /* struck by a failure: its actors stop at their next call */
  int finished; /* its training loop has returned: it takes no part in a shrink */
  int sm_levels;  /* its host's speed levels below its own (hs_platform_sm_levels); 0: collectives hold no SMs */
  int sm_holding; /* its collectives running now (sm_hold.c) */
  int sm_level;   /* its host's pstate: sm_holding, up to sm_levels */
  int sm_touched; /* sm_hold.c: its count changed in the changes being applied */
  sg_actor_t *actors; /* main, streams, threads: daemonized when it dies */
  int n_actors, cap_actors;
} sim_rank;

/* A member list shared by every member of a communicator. */
typedef struct {
  int refs;
  int n;
  hs_plan *plan; /* the selector's plan, the same for every member: made by the first (O(n) when tuned) */
  int host_side; /* a controller's, on the host (hs_comm_split_host): not narrowed by sim.nccl_version */
  hs_lower_cache *cache; /* what the lowering computes alike for every member (lowering.h) */
  int ranks[];   /* world ranks, in communicator order */
} sim_members;

/* backend.c: frees a member list and its plan. */
void hs_sim_members_free(sim_members *m);


typedef struct sim_stream sim_stream;
typedef struct sim_rendezvous sim_rendezvous;
typedef struct sim_mailbox_cache sim_mailbox_cache;
typedef struct sim_async_set sim_async_set;

struct hs_comm {
  hs_lower_group g; /* ctx: this communicator */
  sim_rank *self;
  sim_members *members;
  int ctx;
  int split_seq; /* splits this rank has done on this communicator */
  int lane;      /* trace lane of its stream, per rank */
  sim_stream *stream;
  int fast_seq; /* collectives posted on it (fast.c pairs the members' calls) */
  sim_mailbox_cache *mailboxes; /* transport.c: the mailboxes it used */
  sim_async_set *async;         /* transport.c: its messages posted one by one, not yet complete */
  hs_plan *plan; /* how each kind of operation runs on it (select.h): its members' */
};

/* An exchange whose comms are posted and not yet complete: what a failure
 * must unblock (failures.c). */
typedef struct sim_pending {
  sg_mailbox_t *mailbox;
  const char *is_recv;
  int n;
  struct sim_pending *prev, *next;
} sim_pending;

typedef struct sim_recovery sim_recovery;
typedef struct sim_fast sim_fast;

struct sim_world {
  const hs_scenario *sc;
  int n;
  double nic_sent[HS_SIM_NIC_TRACKED]; /* hs_sim_stats.nic_sent, counted by transport.c */
  sim_rank *ranks;
  int gpus_per_node;
  int next_ctx;
  sim_rendezvous *rendezvous; /* open comm_split agreements */
  long messages;
  /* failures (failures.c) */
  int epoch;        /* failure events so far */
  int revoke_floor; /* communicators with a smaller ctx are revoked */
  int aborting;
  int alive;
  sim_pending *pending;
  sim_recovery *recovery; /* the open shrink agreement, if any */
  sg_sem_t never;         /* what dead actors wait on */
  hs_sim_stats *stats;
  hs_offer offer;          /* what this run's communicators can run (engine.c) */
  int channels;            /* NCCL channels a connection between two GPUs carries (hs_channels_of) */
  sim_fast *fast;          /* timed collectives (fast.c), from the first one on */
  long collectives[HS_COLL_ALGOS]; /* collectives run, by schedule (counted once, at member 0) */
  long protocols[HS_PROTOS + 1];   /* and by protocol (hs_proto, HS_PROTO_NONE) */
  long unmodelled[HS_UNMODELLED_KINDS]; /* of them, where NCCL's model picks what hearsay does not run */
  long library_collectives;
  long fast_collectives;   /* calls it timed */
  long by_messages;        /* collectives that ran as messages (counted once, by member 0) */
  long actors;             /* actors started (hs_sim_track_actor) */
  int direct;              /* operations may run without their stream actor (stream.c) */
  sg_sem_t *spare_sems;    /* stream.c: semaphores of past waits, for the next ones */
  int n_spare_sems, cap_spare_sems;
  sim_rank *switches;      /* switch.c: the nodes' reducing switches (cluster.nvls), ids n + node,
                              then the fabric's per rail (SHARP), ids n + nodes + rail */
  int n_switches;
  int fifo_connections;   /* a pipelined ring's connections serve their units first in, first out,
                             latency after the bytes (transport.c, sg_latency.h) */
  double latency_factor;  /* the network model's, which such a unit's latency is multiplied by */
  struct sim_holds *holds; /* sm_hold.c: pending changes of the ranks' running collectives, and the actor that applies them */
};

/* sm_hold.c: from simulated time `at` (now if not later), r's running
 * collectives change by delta (+1 a collective starts on a stream, -1 it
 * ends); while k run, r's GPU computes at (sms - k x collective_sms)/sms
 * of its speed, k capped at HS_SM_LEVELS_MAX and the speed floored at
 * HS_SM_SPEED_FLOOR (platform.h). A change in the future is applied then
 * by the world's sm-changer actor. */
void hs_sim_sms_change(sim_rank *r, double at, int delta);

/* switch.c: the switches of w (when its offer has them), from the hosts of
 * the nodes' switches and the fabric's (NULL where none); the host of a
 * rank or switch id; g's switch, when every member shares one node that
 * has one (else g->run_switch NULL); the step fidelity's run_switch. */
void hs_sim_switches_init(sim_world *w, const sg_host_t *nvswitch, sg_host_t fabric);
sg_host_t hs_sim_host_of(const sim_world *w, int id);
/* The node of a world id: a rank's (a GPU's, or a CPU process's:
 * scenario.h), or the one a switch serves. */
static inline int hs_sim_node_of(const sim_world *w, int id) {
  return id >= w->n ? id - w->n : hs_cluster_rank_node(&w->sc->cluster, id);
}
void hs_sim_switch_of(const sim_world *w, hs_lower_group *g);
/* Whether world id `id` is a switch that reduces: a node's or the fabric's. */
int hs_sim_is_switch(const sim_world *w, int id);
void hs_sim_run_switch(const hs_lower_group *sw, const hs_switch_job *job);

/* backend.c: rank `self`'s world communicator over `all` members. */
hs_comm *hs_sim_comm_world(sim_rank *self, sim_members *all);

/* transport.c: the lowering's exchange primitive over SimGrid mailboxes
 * (g->ctx is the communicator it runs on). */
void hs_sim_exchange(const hs_lower_group *g, const hs_lower_send *s, int ns, hs_lower_recv *r, int nr);

/* transport.c: an exchange's comms, posted and not yet complete. Small
 * exchanges keep their arrays inline: do not move one once posted. */
enum { SIM_POSTED_INLINE = 4 };
typedef struct sim_posted {
  int n, ns, nr;
  double ended; /* when the last of its comms that ended did (simulated s) */
  sg_comm_t *comms; /* sends, then receives; NULL once a test saw it end */
  sg_mailbox_t *mailbox;
  char *is_recv;
  void **got;
  hs_lower_recv *recv;
  sg_comm_t comms_in[SIM_POSTED_INLINE];
  sg_mailbox_t mailbox_in[SIM_POSTED_INLINE];
  char is_recv_in[SIM_POSTED_INLINE];
  void *got_in[SIM_POSTED_INLINE];
  hs_lower_recv recv_in[SIM_POSTED_INLINE];
} sim_posted;
/* Posts the sends (payloads copied) and receives of one exchange of
 * group g (a lowering's group or sub-group) on communicator c. */
void hs_sim_post(hs_comm *c, const hs_lower_group *g, const hs_lower_send *s, int ns, const hs_lower_recv *r, int nr,
                 sim_posted *p);
/* Blocks until every comm of p ended. */
void hs_sim_wait_posted(sim_posted *p); /* and p->ended */
/* Whether every comm of p ended, without blocking. */
int hs_sim_test_posted(sim_posted *p);
/* After the wait: delivers what arrived unless failed, frees p's arrays;
 * returns whether a failure's poison came instead of a message. */
int hs_sim_finish_posted(sim_posted *p, int failed);
void hs_sim_mailbox_cache_free(sim_mailbox_cache *mc);
/* transport.c: the lowering's post and complete (lowering.h) over SimGrid
 * mailboxes, registered with the world while posted so that a failure can
 * complete them; after a revocation they post nothing. */
void *hs_sim_post_one(const hs_lower_group *g, const hs_lower_send *s, const hs_lower_recv *r);
void hs_sim_complete_one(const hs_lower_group *g, void *posted);
int hs_sim_complete_any(const hs_lower_group *g, void *const *posted, int n);
void hs_sim_async_free(sim_async_set *set);

/* stream.c: the backend's post: queues o on c (or runs it directly when it
 * can), returns its request; waits and tests requests. */
int hs_sim_post_op(hs_comm *c, const hs_op *o, hs_request **req);
int hs_sim_wait(hs_request **q);
int hs_sim_test(hs_request **q);
/* Frees c's stream, unless its actor started: a daemon blocked on its
 * queue, it ends with the simulation and keeps the stream (and c) until
 * then. Returns whether c may be freed. */
int hs_sim_stream_free(hs_comm *c);

/* failures.c */
void hs_sim_start_failures(sim_world *w);
void hs_sim_track_actor(sim_rank *r, sg_actor_t a);
/* An actor of r's that has ended: a later failure of r leaves it alone. */
void hs_sim_untrack_actor(sim_rank *r, sg_actor_t a);
/* Starts one of communicator c's helper actors on its rank's host (a send
 * communication stream), named "KIND-RANK-cCTX", with `data` as
 * its actor data, and tracks it. */
void hs_sim_start_helper(hs_comm *c, const char *kind, void (*code)(int, char **), void *data);
/* Blocks a dead rank's actor for good (it is a daemon by then). */
void hs_sim_freeze_if_dead(sim_rank *r);
void hs_sim_pending_add(sim_world *w, sim_pending *p);
void hs_sim_pending_remove(sim_world *w, sim_pending *p);
/* Completes a registered exchange's comms with a poison token or a sink. */
void hs_sim_pending_revoke(const sim_pending *p);
int hs_sim_failures(hs_worker *w);
int hs_sim_shrink(hs_worker *w, int iteration, int *resume);
/* Its training loop returned: an open shrink agreement no longer waits for
 * it (an asynchronous worker may be done before a failure strikes). */
void hs_sim_rank_finished(sim_rank *r);
/* The token a failure sends in place of a message that will never come. */
extern char hs_sim_poison;
/* backend.c: marks the operation the stream runs as hit by a failure. */
void hs_sim_stream_failed(sim_stream *st);
/* backend.c: a communicator over members (shared, ref-counted). */
hs_comm *hs_sim_comm_new(sim_rank *self, int ctx, sim_members *m, int me);

/* stream.c: c's group as a collective run as `how` lowers on it: its
 * protocol's costs and slice (protocol.h). */
hs_lower_group hs_sim_group_for(const hs_comm *c, const hs_exec *how);

/* fast.c: joins member c->g.me's part of the next fast call on c (run as how), with token
 * standing for it and its arrival time (NAN: not known yet, give it with
 * hs_sim_fast_arrive). Once every member's arrival is known the call is
 * timed: hs_sim_fast_timed(token, arrival, finish) for each member, from
 * whichever actor gave the last arrival, maybe later than that (an actor
 * already timing calls may yield while it tells members): a member learns
 * it is timed from the callback only. Returns the call when arrival is
 * NAN (for hs_sim_fast_arrive), else NULL. */
typedef struct fast_call fast_call;
fast_call *hs_sim_fast_join(hs_comm *c, const hs_op *o, const hs_exec *how, void *token, double arrival);
void hs_sim_fast_arrive(sim_world *w, fast_call *k, int me, double arrival);
/* stream.c: what a member's part of a timed fast call does. */
void hs_sim_fast_timed(void *token, double arrival, double finish);
/* A timed call carrying data (hs_op_exact_anywhere): its result, computed
 * from every member's send buffer into every member's receive buffer,
 * once all have arrived and before any is told it is done. */
void hs_sim_fast_reduce(void *const *tokens, int n);

/* background.c: starts network { } background traffic (daemon actors). */
void hs_sim_start_background(const hs_scenario *sc);
/* watchdog.c: a daemon that stops the run (exit 2, with the likely cause)
 * once the simulated time passes hs_sim_time_bound. */
void hs_sim_start_watchdog(sim_world *w);
double hs_sim_time_bound(const hs_scenario *sc);
/* Whether the bound passing cannot be the cluster's doing: what it makes
 * an iteration take at least, times the iterations, is 10^4 times under
 * the bound, and nothing it leaves out (stragglers, network events, a
 * bound the scenario set) is there. The watchdog then reports a stuck
 * simulation, a bug, rather than a slow scenario. */
int hs_sim_watchdog_stuck(const hs_scenario *sc);

#endif
