/* sim_internal.h — state shared by the files of the SimGrid backend. */
#ifndef HS_SIM_INTERNAL_H
#define HS_SIM_INTERNAL_H

#include <simgrid/forward.h>
#include <stddef.h>

#include "algos/comm.h"
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

/* Who talks to whom in one collective: the mailbox namespace (tag), the
 * members (world ranks) and my index. Communicators own one; hierarchical
 * lowerings derive others (a node, a rail, the leaders) without any
 * agreement protocol since every member can compute them. */
typedef struct {
  char tag[48];
  int size, me;
  const int *members;
  sim_rank *self;
} sim_group;

typedef struct sim_stream sim_stream;
typedef struct sim_rendezvous sim_rendezvous;

struct hs_comm {
  sim_group g;
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

/* transport.c: one round of point-to-point traffic inside a group. */
typedef struct {
  int peer; /* index in the group */
  const void *data; /* NULL: timing-only */
  size_t bytes;
} sim_send;

typedef struct {
  int peer;
  void *dst; /* NULL: timing-only */
  size_t bytes;
  int reduce; /* 0: copy into dst; 1: dst = dst op payload */
  hs_dtype dtype;
  hs_redop op;
} sim_recv;

/* Posts every send and receive, waits for all, then copies or reduces what
 * arrived. Sends and receives with one peer match in order. */
void hs_sim_exchange(sim_group *g, const sim_send *s, int ns, sim_recv *r, int nr);

/* coll.c: collectives lowered onto hs_sim_exchange (step fidelity). */
void hs_simcoll_allreduce(sim_group *g, hs_buf s, hs_buf r, hs_redop op, hs_coll_algo algo);
void hs_simcoll_reduce_scatter(sim_group *g, hs_buf s, hs_buf r, hs_redop op);
void hs_simcoll_allgather(sim_group *g, hs_buf s, hs_buf r);
void hs_simcoll_broadcast(sim_group *g, hs_buf s, hs_buf r, int root, hs_coll_algo algo);
void hs_simcoll_reduce(sim_group *g, hs_buf s, hs_buf r, hs_redop op, int root, hs_coll_algo algo);
void hs_simcoll_alltoall(sim_group *g, hs_buf s, hs_buf r);
void hs_simcoll_barrier(sim_group *g);
void hs_simcoll_group_p2p(sim_group *g, const hs_p2p *ops, int n);

#endif
