/* rails.h — a group's members as nodes of equal member counts, member i of
 * every node on rail i (the GPU next to the node's i-th NIC). The
 * schedules that run a node's members against the same-ranked members of
 * other nodes (the NVLS tree, CollNet's chain) share it. */
#ifndef HS_RAILS_H
#define HS_RAILS_H

#include "algos/comm/lowering.h"

typedef struct {
  int nodes, k;   /* nodes, members a node (every node the same) */
  int *member_of; /* [a * k + i]: group index of node a's i-th member, by GPU */
  int *node_id;   /* [a]: the node's number, member / gpus_per_node */
} hs_rails;

/* The first n members of g by node, nodes in order of first appearance;
 * returns 0 (and holds nothing) where they are not k members on each of
 * at least 2 nodes. O(n). */
int hs_rails_build(const hs_lower_group *g, int n, hs_rails *L);
void hs_rails_free(hs_rails *L);

/* Unit x of `units` of block b of k near-equal blocks of count elements:
 * elements [*off, *off + *cnt) of the vector. */
void hs_rails_part(size_t count, int k, size_t units, int b, size_t x, size_t *off, size_t *cnt);

#endif
