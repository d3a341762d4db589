/* hierarchy.c — node and leader communicators (hierarchy.h). */
#include "algos/comm/hierarchy.h"

int hs_hierarchy_init(hs_worker *w, int enabled, hs_hierarchy *h, hs_comm **pattern) {
  *h = (hs_hierarchy){.enabled = enabled};
  *pattern = w->world;
  if (!enabled) return 0;
  int rc = hs_comm_split(w, w->world, w->node, w->local_rank, &h->node);
  /* The leader is the node's first GPU among those alive (rank 0 of its
   * node's communicator, the root of hs_hierarchy_reduce): after a
   * failure took local rank 0, the node's survivors still gossip. */
  if (!rc) rc = hs_comm_split(w, w->world, hs_comm_rank(w, h->node) == 0 ? 0 : -1, w->node, &h->leaders);
  *pattern = h->leaders;
  return rc;
}

void hs_hierarchy_free(hs_worker *w, hs_hierarchy *h) {
  if (h->node) hs_comm_free(w, h->node);
  if (h->leaders) hs_comm_free(w, h->leaders);
  h->node = h->leaders = NULL;
}

int hs_hierarchy_reduce(hs_worker *w, hs_hierarchy *h, hs_buf b) {
  if (!h->enabled) return 0;
  hs_request *r = NULL;
  int rc = hs_reduce(w, h->node, b, b, HS_AVG, 0, &r);
  return rc ? rc : hs_wait(w, &r);
}

int hs_hierarchy_broadcast(hs_worker *w, hs_hierarchy *h, hs_buf b) {
  if (!h->enabled) return 0;
  hs_request *r = NULL;
  int rc = hs_broadcast(w, h->node, b, b, 0, &r);
  return rc ? rc : hs_wait(w, &r);
}
