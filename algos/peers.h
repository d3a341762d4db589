/* peers.h — who a decentralized rank talks to at a step.
 *
 * The formulas are the published ones (REFERENCE.md), written once here so
 * that the algorithms, the tests and the peer-selection tooling agree. */
#ifndef HS_PEERS_H
#define HS_PEERS_H

/* Bagua's shift_one: pairs that change every step; n must be even.
 *   r <  n/2: peer = ((step + r) mod floor((n+1)/2)) + n/2
 *   r >= n/2: peer = (r - n/2 - step) mod (n/2)
 * Symmetric: peer(peer(r)) == r at every step. */
int hs_peer_shift_one(int rank, int n, long step);
/* Ring neighbours. */
static inline int hs_peer_left(int rank, int n) { return (rank + n - 1) % n; }
static inline int hs_peer_right(int rank, int n) { return (rank + 1) % n; }

#endif
