/* sim_internal.h — state shared by the files of the SimGrid backend. */
#ifndef HS_SIM_INTERNAL_H
#define HS_SIM_INTERNAL_H

#include <simgrid/forward.h>
#include <stddef.h>

#include "algos/comm.h"
#include "algos/lowering.h"
#include "scenarios/scenario.h"

typedef struct sim_world sim_world;

typedef struct {
  hs_worker w;
  sg_host_t host;
  sim_world *world;
  int comms; /* communicators this rank has joined: their trace lanes */
} sim_rank;

/* A member list shared by every member of a communicator. */
typedef struct {
  int refs;
  int n;
  int ranks[]; /* world ranks, in communicator order */
} sim_members;


typedef struct sim_stream sim_stream;
typedef struct sim_rendezvous sim_rendezvous;

struct hs_comm {
  hs_lower_group g; /* ctx: the owning sim_rank */
  sim_rank *self;
  sim_members *members;
  int ctx;
  int split_seq; /* splits this rank has done on this communicator */
  int lane;      /* trace lane of its stream, per rank */
  sim_stream *stream;
};

struct sim_world {
  const hs_scenario *sc;
  int n;
  sim_rank *ranks;
  int gpus_per_node;
  int next_ctx;
  sim_rendezvous *rendezvous; /* open comm_split agreements */
  long messages;
};

/* backend.c: rank `self`'s world communicator over `all` members. */
hs_comm *hs_sim_comm_world(sim_rank *self, sim_members *all);

/* transport.c: the lowering's exchange primitive over SimGrid mailboxes
 * (g->ctx is the calling sim_rank). */
void hs_sim_exchange(const hs_lower_group *g, const hs_lower_send *s, int ns, hs_lower_recv *r, int nr);

/* background.c: starts network { } background traffic (daemon actors). */
void hs_sim_start_background(const hs_scenario *sc);

#endif
