/* tree_pipe.h — NCCL's tree run forwarding on arrival (lowering.c's tree,
 * when the backend can post, complete and wait for any of several
 * messages: the simulator's step fidelity).
 *
 * Every edge of the trees is a connection carrying the slices one by one,
 * first in, first out. A rank processes slice k of a direction once its
 * inputs are there (the children's slice k going up, the parent's coming
 * down) and every connection it forwards on has room; processing reduces
 * the children's slices into its own (a fixed order: mine, then children
 * in order), posts the sends and frees the receive buffers, which the rank
 * then posts again for slice k + window: the receiver's credits, NCCL's
 * NCCL_STEPS buffers per connection. A connection has room for slice k
 * when its slice k - 2 window is done at the sender (a bound on what one
 * rank keeps posted; the receiver's credits are what pace the flow). The
 * root's sum goes down as it is made (the allreduce), and each direction
 * of each tree runs on its own, as NCCL's threads do. sim/fast_tree.c
 * computes the same run in arithmetic (docs/fidelity.md). */
#ifndef HS_TREE_PIPE_H
#define HS_TREE_PIPE_H

#include "algos/comm/lowering.h"

/* How many slices a connection may have posted and not done at the
 * sender: twice the receiver's credits. */
int hs_tree_pipe_send_room(int window);

/* Runs t (t->window > 0) over buf with g's post and complete_any;
 * reductions with op; the root divides by avg_over (> 0) what it has
 * fully reduced. */
void hs_tree_pipe_run(hs_lower_group *g, hs_buf buf, hs_redop op, int avg_over, const hs_tree_run *t);

#endif
