/* fast_chain.h — fast fidelity's release of a pipelined chain's members,
 * each as soon as its own part is known.
 *
 * fast.c times a collective when its last member has arrived, and holds
 * whoever waits on it until then (a member's finish may depend on every
 * arrival). In NCCL's pipelined chain (lowering.c's broadcast: each member
 * forwards the slices it gets to the next), a member's part needs only
 * the members before it, which feed it, and the one after it, which must
 * have posted its receive before a slice goes (the step fidelity's
 * rendezvous), as long as every slice fits the connection's window and
 * send room: nothing pushes back from further down. Held until the tail
 * arrives, the head of a chain would wait for hops it does not take:
 * DDP's two buffer broadcasts before forward, the second posted by each
 * rank when its first ends, held the whole chain's length (1.4 ms on 128
 * ranks) on every rank, a straggler included (docs/fidelity.md).
 *
 * This times the chain position by position as arrivals come, with the
 * same recurrence as fast_tree.c's timing pass (a slice leaves when its
 * sender has it plus the protocol's hop, its connection is free and its
 * receiver has posted; it costs the link's latency and its bytes at the
 * share of its tick) but without the refinement's rescaling by the
 * slices truly beside it, which a chain's one slice an edge leaves close
 * to 1. A chain that does not qualify is timed whole, as before. */
#ifndef HS_FAST_CHAIN_H
#define HS_FAST_CHAIN_H

#include "sim/fast_tree.h"

typedef struct hs_fast_chain hs_fast_chain;

/* A chain timing for one call of compiled run t, or NULL unless t is a
 * downward chain fast can release member by member: one tree, each
 * position with at most one child, forwarding on arrival, every slice
 * within the window and the send room. wire: as hs_fast_tree_time's. */
hs_fast_chain *hs_fast_chain_new(const hs_fast_tree *t, double wire);

/* Position pos starts at `start` (its arrival, plus the protocol's launch).
 * Returns how many positions, from the chain's head on, have their finish
 * known now. */
int hs_fast_chain_start(hs_fast_chain *c, int pos, double start);

/* The position at place `depth` of the chain, and its finish (depth below
 * what hs_fast_chain_start returned). */
int hs_fast_chain_position(const hs_fast_chain *c, int depth);
double hs_fast_chain_finish(const hs_fast_chain *c, int depth);

void hs_fast_chain_free(hs_fast_chain *c);

#endif
