/* dtree.c — NCCL's double binary tree (dtree.h), rewritten from its
 * description in NCCL 2.30.7, src/graph/trees.cc. */
#include "algos/comm/dtree.h"

/* The binary tree rooted at 0 whose inner nodes have their lowest set bit
 * above bit 0: r's parent clears its lowest set bit and sets the next
 * (or only clears it if that is out of range); its children are r minus
 * and plus half its lowest bit (the latter brought back in range). */
static void btree(int n, int r, int *up, int *down0, int *down1) {
  int bit = 1;
  while (bit < n && !(bit & r)) bit <<= 1;
  if (r == 0) {
    *up = *down0 = -1;
    *down1 = n > 1 ? bit >> 1 : -1;
    return;
  }
  int u = (r ^ bit) | (bit << 1);
  if (u >= n) u = r ^ bit;
  *up = u;
  int low = bit >> 1;
  *down0 = low == 0 ? -1 : r - low;
  int d1 = low == 0 ? -1 : r + low;
  while (d1 >= n) {
    low >>= 1;
    d1 = low == 0 ? -1 : r + low;
  }
  *down1 = d1;
}

static int map_back(int x, int n) { return x < 0 ? -1 : n % 2 ? (x + 1) % n : n - 1 - x; }

void hs_dtree(int n, int r, int which, int *up, int *down0, int *down1) {
  if (which == 0) {
    btree(n, r, up, down0, down1);
    return;
  }
  /* odd: shift by one; even: mirror */
  int u, d0, d1;
  btree(n, n % 2 ? (r - 1 + n) % n : n - 1 - r, &u, &d0, &d1);
  *up = map_back(u, n);
  *down0 = map_back(d0, n);
  *down1 = map_back(d1, n);
}

int hs_dtree_depth(int n, int r, int which) {
  int d = 0, up, d0, d1;
  for (hs_dtree(n, r, which, &up, &d0, &d1); up >= 0; hs_dtree(n, up, which, &up, &d0, &d1)) d++;
  return d;
}

void hs_dtree_depths(int n, int which, int *depth) {
  for (int r = 0; r < n; r++) depth[r] = -1;
  for (int r = 0; r < n; r++) {
    /* walk up to a node whose depth is known (or the root), then back down */
    int x = r, steps = 0, up, d0, d1;
    while (depth[x] < 0) {
      hs_dtree(n, x, which, &up, &d0, &d1);
      if (up < 0) {
        depth[x] = 0;
        break;
      }
      x = up;
      steps++;
    }
    int base = depth[x] + steps;
    for (x = r; depth[x] < 0; x = up, base--) {
      depth[x] = base;
      hs_dtree(n, x, which, &up, &d0, &d1);
    }
  }
}
