/* peers.h — peer-selection formulas shared by the built-in schemes, the Lua
 * helpers a scenario's scheme may call, and the tests.
 *
 * The formulas are the published ones (REFERENCE.md), written once here so
 * that the algorithms, the tests and the peer-selection tooling agree. */
#ifndef HS_PEERS_H
#define HS_PEERS_H

#include <stdint.h>

/* Bagua's shift_one: pairs that change every step; n must be even.
 *   r <  n/2: peer = ((step + r) mod floor((n+1)/2)) + n/2
 *   r >= n/2: peer = (r - n/2 - step) mod (n/2)
 * Symmetric: peer(peer(r)) == r at every step. */
int hs_peer_shift_one(int rank, int n, long step);
/* Ring neighbours. */
static inline int hs_peer_left(int rank, int n) { return (rank + n - 1) % n; }
static inline int hs_peer_right(int rank, int n) { return (rank + 1) % n; }
/* floor(log2(x)) for x >= 1; 0 for x < 1. */
int hs_peer_log2(long x);
/* A permutation of 0..n-1 drawn from (seed, round) alone: every rank that
 * asks for the same round gets the same permutation, on any machine
 * (splitmix64 and Fisher-Yates, no library generator whose sequence could
 * change between versions). */
void hs_peer_permutation(int n, uint64_t seed, long round, int *perm);

#endif
