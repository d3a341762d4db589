/* lowering.h — collectives lowered onto rounds of point-to-point messages.
 *
 * Shared by the backends that move messages themselves: the SimGrid backend
 * (each message a SimGrid communication) and the MPI transport (each message
 * an MPI send/receive, optionally delayed by the link emulator). A backend
 * provides one primitive, `exchange`: post a round of sends and receives
 * inside a group, wait for all of them, deliver what arrived (copy or
 * reduce). Everything else (ring, tree, pairwise, dissemination,
 * hierarchical) is here, once, so both backends produce the same traffic
 * and the same bits. The NCCL transport does not use it: NCCL lowers its
 * own collectives. */
#ifndef HS_LOWERING_H
#define HS_LOWERING_H

#include <stddef.h>

#include "algos/comm/comm.h"
#include "scenarios/scenario.h"

typedef struct {
  int peer;         /* index in the group */
  const void *data; /* NULL: timing-only */
  size_t bytes;
} hs_lower_send;

typedef struct {
  int peer;
  void *dst; /* NULL: timing-only */
  size_t bytes;
  int reduce; /* 0: copy into dst; 1: dst = dst op payload */
  hs_dtype dtype;
  hs_redop op;
} hs_lower_recv;

typedef struct hs_lower_group hs_lower_group;

/* Posts every send and receive of one round, waits for all, then copies or
 * reduces what arrived (hs_lower_deliver). Sends and receives between one
 * pair of members match in posting order. */
typedef void (*hs_exchange_fn)(const hs_lower_group *g, const hs_lower_send *s, int ns, hs_lower_recv *r, int nr);

/* Who talks to whom in one collective: a namespace for its messages (tag),
 * the members (world ranks) and my index. Communicators own one;
 * hierarchical lowerings derive others (a node, a rail, the leaders)
 * without any agreement protocol, since every member can compute them from
 * the placement (world rank / gpus_per_node). */
/* Optional: a backend that times a whole ring phase at once (the
 * simulator's fast fidelity) is handed the phase instead of its n-1
 * exchanges. gather: 0 reduce-scatter, 1 allgather; bytes[i]: chunk i. */
typedef void (*hs_ring_fn)(const hs_lower_group *g, int gather, const size_t *bytes);

struct hs_lower_group {
  char tag[48];
  int size, me;
  const int *members;
  int gpus_per_node;
  hs_exchange_fn exchange;
  hs_ring_fn ring; /* NULL: every ring step goes through exchange */
  void *ctx; /* the backend's per-rank state */
};

/* Applies one received payload to r (copy or reduce); nothing if r->dst is NULL. */
void hs_lower_deliver(const hs_lower_recv *r, const void *payload);

/* What the lowering runs for an operation of kind k under algo, e.g.
 * "ring", "binomial_tree", "pairwise": for reports. */
const char *hs_lower_schedule_name(hs_op_kind k, hs_coll_algo algo);

/* Runs o on g with the functions below. */
void hs_lower_run(hs_lower_group *g, const hs_op *o, hs_coll_algo algo);

/* Bytes one rank sends when the ring/tree lowering above runs an operation
 * of kind k on `bytes` (the whole vector) over n members: what backends
 * that do not lower themselves (MPI's or NCCL's own collectives) count in
 * bytes_sent, so their traffic summed over ranks equals the simulator's.
 * `root`: this rank is the root of a broadcast or reduce. */
double hs_lower_ring_bytes(hs_op_kind k, int n, double bytes, int root);

void hs_lower_allreduce(hs_lower_group *g, hs_buf s, hs_buf r, hs_redop op, hs_coll_algo algo);
void hs_lower_reduce_scatter(hs_lower_group *g, hs_buf s, hs_buf r, hs_redop op);
void hs_lower_allgather(hs_lower_group *g, hs_buf s, hs_buf r);
void hs_lower_broadcast(hs_lower_group *g, hs_buf s, hs_buf r, int root, hs_coll_algo algo);
void hs_lower_reduce(hs_lower_group *g, hs_buf s, hs_buf r, hs_redop op, int root, hs_coll_algo algo);
void hs_lower_alltoall(hs_lower_group *g, hs_buf s, hs_buf r);
void hs_lower_barrier(hs_lower_group *g);
void hs_lower_group_p2p(hs_lower_group *g, const hs_p2p *ops, int n);

#endif
