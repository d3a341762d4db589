/* peers.c — peer-selection formulas (peers.h). */
#include "algos/peers/peers.h"

static long mod(long a, long m) { return ((a % m) + m) % m; }

int hs_peer_shift_one(int rank, int n, long step) {
  int half = n / 2;
  if (rank < half) return (int)(mod(step + rank, (n + 1) / 2) + half);
  return (int)mod(rank - half - step, half);
}

int hs_peer_log2(long x) {
  int k = 0;
  while (x > 1) x >>= 1, k++;
  return k;
}

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void hs_peer_permutation(int n, uint64_t seed, long round, int *perm) {
  uint64_t s = seed * 0x9e3779b97f4a7c15ull ^ ((uint64_t)round + 0x632be59bd9b4e019ull);
  splitmix64(&s);
  for (int i = 0; i < n; i++) perm[i] = i;
  for (int i = n - 1; i > 0; i--) {
    /* Lemire's multiply-shift: uniform enough for i < 2^32 and exact to reproduce. */
    int j = (int)(((splitmix64(&s) >> 32) * (uint64_t)(i + 1)) >> 32);
    int t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
}
