/* ring.h — one exchange with both ring neighbours: the same buffer sent to
 * the left and the right rank, one buffer received from each. Used by the
 * ring gossip of decentralized, low_precision_decentralized and choco. */
#ifndef HS_RING_H
#define HS_RING_H

#include "algos/comm/comm.h"
#include "algos/peers/peers.h"

/* Posts the exchange on c; with two ranks, left and right are the same
 * peer and the two messages match in posting order. */
static inline int hs_ring_exchange(hs_worker *w, hs_comm *c, hs_buf send, hs_buf from_left, hs_buf from_right,
                                   hs_request **req) {
  int me = hs_comm_rank(w, c), n = hs_comm_size(w, c);
  int lp = hs_peer_left(me, n), rp = hs_peer_right(me, n);
  hs_p2p ops[4] = {{HS_P2P_SEND, lp, send}, {HS_P2P_SEND, rp, send}, {HS_P2P_RECV, rp, from_right},
                   {HS_P2P_RECV, lp, from_left}};
  return hs_group_p2p(w, c, ops, 4, req);
}

#endif
