/* peers.c — peer-selection formulas (peers.h). */
#include "algos/peers.h"

static long mod(long a, long m) { return ((a % m) + m) % m; }

int hs_peer_shift_one(int rank, int n, long step) {
  int half = n / 2;
  if (rank < half) return (int)(mod(step + rank, (n + 1) / 2) + half);
  return (int)mod(rank - half - step, half);
}
