/* hierarchy.h — the two communicators of a hierarchical scheme, for any
 * algorithm: the GPUs of one node, and one leader (the node's first GPU
 * alive) per node.
 * Full precision and NVLink inside the node, the algorithm's own pattern
 * (compressed, decentralized, ...) among the leaders. */
#ifndef HS_HIERARCHY_H
#define HS_HIERARCHY_H

#include "algos/comm/comm.h"

typedef struct {
  int enabled;
  hs_comm *node;    /* this node's GPUs, ordered by local rank */
  hs_comm *leaders; /* local rank 0 of every node, ordered by node; NULL elsewhere */
} hs_hierarchy;

/* Collective over world when enabled. *pattern gets the communicator the
 * algorithm runs its own exchange on: world when not enabled, else the
 * leaders (NULL on the other GPUs of a node, which then take no part).
 * Returns 0 or a negative error. */
int hs_hierarchy_init(hs_worker *w, int enabled, hs_hierarchy *h, hs_comm **pattern);
void hs_hierarchy_free(hs_worker *w, hs_hierarchy *h);
/* Blocking helpers on a buffer, no-ops when not enabled: average inside
 * the node onto the leader, and the leader's result back to the node. */
int hs_hierarchy_reduce(hs_worker *w, hs_hierarchy *h, hs_buf b);
int hs_hierarchy_broadcast(hs_worker *w, hs_hierarchy *h, hs_buf b);

#endif
