/* test_dtree.c — NCCL's double binary tree (algos/comm/dtree.h) against
 * the trees NCCL 2.30.7 draws in src/graph/trees.cc: the 14-node binary
 * tree, its mirror on 12 nodes and its shift on 13; on every n from 2 to
 * 300 both trees span all nodes without a cycle; and the property the
 * mirror exists for: on an even n no node is inner (has a child) in both,
 * so a node's NIC carries one tree's inner traffic (the shift, on odd n,
 * does not promise it). */
#include <stdio.h>
#include <string.h>

#include "algos/comm/dtree.h"
#include "tests/tap.h"

static int parent(int n, int r, int w) {
  int u, d0, d1;
  hs_dtree(n, r, w, &u, &d0, &d1);
  return u;
}

static int inner(int n, int r, int w) {
  int u, d0, d1;
  hs_dtree(n, r, w, &u, &d0, &d1);
  return d0 >= 0 || d1 >= 0;
}

/* Parents of 0..n-1 in tree w, as one string: "-1 0 4 ...". */
static void parents(int n, int w, char *out, size_t len) {
  size_t k = 0;
  for (int r = 0; r < n && k < len; r++) k += (size_t)snprintf(out + k, len - k, "%s%d", r ? " " : "", parent(n, r, w));
}

int main(void) {
  char got[512];
  /* trees.cc: 0-8; 8-4,12; 4-2,6; 12-10,13; 2-1,3; 6-5,7; 10-9,11 */
  parents(14, 0, got, sizeof got);
  tap_ok(!strcmp(got, "-1 2 4 2 8 6 4 6 0 10 12 10 8 12"), "14 nodes, tree 0: parents %s", got);
  /* the mirror on 12: 11-3; 3-1,7; 1-0,2; 7-5,9; 5-4,6; 9-8,10 */
  parents(12, 1, got, sizeof got);
  tap_ok(!strcmp(got, "1 3 1 11 5 7 5 3 9 7 9 -1"), "12 nodes, tree 1 (mirror): parents %s", got);
  /* the shift on 13: 1-9; 9-5,0; 5-3,7; 0-11; 3-2,4; 7-6,8; 11-10,12 */
  parents(13, 1, got, sizeof got);
  tap_ok(!strcmp(got, "9 -1 3 5 3 9 7 5 7 1 11 0 11"), "13 nodes, tree 1 (shift): parents %s", got);
  int bad = 0, first_bad = -1;
  for (int n = 2; n <= 300 && !bad; n++)
    for (int w = 0; w < 2; w++) {
      int roots = 0, depth[300];
      hs_dtree_depths(n, w, depth);
      for (int r = 0; r < n; r++) {
        roots += parent(n, r, w) < 0;
        if (hs_dtree_depth(n, r, w) >= n) bad = 1; /* a cycle would never reach a root */
        if (depth[r] != hs_dtree_depth(n, r, w)) bad = 1; /* the O(n) pass agrees with the walk */
        if (n % 2 == 0 && w == 0 && inner(n, r, 0) && inner(n, r, 1)) bad = 1;
      }
      if (roots != 1) bad = 1;
      if (bad && first_bad < 0) first_bad = n;
    }
  tap_ok(!bad, "2..300 nodes: one root per tree, no cycle, hs_dtree_depths = the walk up; n even: no node inner in both trees (first failure: %d)", first_bad);
  return tap_done(0);
}
