/* fast_ring.h — a ring phase as fast fidelity records and times it
 * (sim/fast.c), and the timing of pipelined rings that share links.
 *
 * fast.c finds each flow's bandwidth once per schedule, by max-min sharing
 * among the flows at the same record of every member (all of them on the
 * wire at once), and times a ring with that rate on every unit. Where
 * several rings run beside each other through one link (the hierarchical
 * allreduce's rails: one ring per GPU of a node, all through the node's
 * NIC) and their units do not move in step (the GPUs left the node's
 * reduce-scatter at their own times, or a straggler held one rail), the
 * step fidelity's sharing gives a rail the whole NIC while the others
 * wait, and the fixed share does not: fast was 21% slower than step on a
 * bucket of ResNet-50 at 4 × 8 GPUs with one GPU 3% slow (docs/fidelity.md,
 * "Rails that share a NIC").
 *
 * hs_fast_rings_shared times such a group together, unit by unit in time
 * order, each link shared as it goes: a connection's units cross the link
 * that bounded it in the schedule-wide sharing (its pool: the capacity all
 * the group's flows fixed there took together), shared among the pool's
 * connections on the wire at that moment by max-min (each also bounded by
 * what it would get alone), so a link is never idle while a unit waits
 * for it. The recurrence and its inputs are ring_pipelined's (fast.c):
 * a unit starts when its data is at the sender (plus the protocol's hop),
 * the receiver holds a credit for it, and the connection's previous unit
 * is off; it arrives when its bytes are through. Where the group's rings
 * are alike and arrive alike (every pool's connections in step), the
 * fixed share is exact and fast.c keeps it. A unit alone on its pool
 * gets what its connection would alone on its route, which ignores the
 * links it crosses without being bound there (a fat tree's uplink beside
 * the NIC, whose fixed share it keeps): a little optimistic where such a
 * link is nearly full. */
#ifndef HS_FAST_RING_H
#define HS_FAST_RING_H

#include <stddef.h>

#include "algos/comm/lowering.h"

typedef struct hs_fast_ring {
  char tag[48];
  int seq;          /* k-th ring phase its members ran: tells apart the phases of one group */
  int first, steps; /* global steps of the ring (lowering.h) */
  hs_ring_pipeline pipe;
  int n;
  int *members; /* communicator indices, in ring order */
  int *rec;     /* per ring position: the index of this phase among that member's records */
  size_t *bytes;
  double total;             /* of bytes */
  double *lat, *rate, *hop; /* of the flow from position j to j+1 (hop: as fast_flow's) */
  int spread;               /* the recording group's (lowering.h) */
  /* Sharing with the rings beside it (compiled when it has some, else
   * NULL and -1): per position, the pool (the link that bounded the flow,
   * among the schedule's pools; -1: its own bound did) and the rate the
   * flow would get alone on its route; its group of rings timed together. */
  int *pool;
  double *solo;
  int group;
} hs_fast_ring;

/* Bytes position j sends at a step of the ring (0-based within the
 * phase): its chunk then. */
double hs_fast_ring_step_bytes(const hs_fast_ring *ring, int j, int step);

/* The share of a step's chunk that unit g of it carries: `window`
 * slices of the chunk's `slices` (the last unit what is left), or all of
 * them when they fit the window (hs_lower_ring_units). */
double hs_fast_ring_unit_fraction(hs_ring_pipeline p, int g);

/* The chunks are equal but for rounding (a 1e-3 spread): timed as their mean. */
int hs_fast_ring_equal_chunks(const hs_fast_ring *ring);

/* Units (per connection, per step) a group's timing moves, and the most
 * one call times unit by unit: an event each way per unit, about 0.2 us
 * each on this project's machines (1024 GPUs' rails, some 260 000 units:
 * 0.05 s a call). Above it (ResNet-50's 25 MiB buckets over 4096 GPUs
 * and more) the rings keep their fixed shares, said once on stderr: cost
 * and memory grow as rails x nodes^2, 100 s and a GiB a call at 16 384. */
#define HS_FAST_RINGS_SHARED_MAX_UNITS 2000000L
long hs_fast_rings_shared_units(hs_fast_ring *const *rings, int nr);

/* Times the pipelined rings rings[0..nr) together from their positions'
 * start times t[r][j], which it replaces with each position's finish;
 * pool_cap[p]: the capacity the group's flows share at pool p, in the
 * rings' rate units. */
void hs_fast_rings_shared(hs_fast_ring *const *rings, int nr, double *const *t, const double *pool_cap);

#endif
