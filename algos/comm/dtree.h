/* dtree.h — NCCL's double binary tree over the nodes of a communicator.
 *
 * NCCL's tree allreduce (2.30.7, src/graph/trees.cc and connect.cc) runs
 * on two binary trees over the nodes at once, each carrying half of the
 * data: the first is a binary tree rooted at node 0 whose leaves and
 * inner nodes alternate (ncclGetBtree); the second mirrors it (n even) or
 * shifts it by one (n odd); mirrored, a node inner in one tree is a leaf
 * in the other, so no node's NIC carries two trees' inner traffic. Inside a
 * node the ranks form a chain from its head, which connects to the parent
 * node's head and to the children nodes' heads (NCCL's
 * NCCL_TOPO_PATTERN_TREE); an allreduce runs the trees from each of a
 * node's heads, one a NIC (lowering.c). The functions here are
 * the node-level trees; lowering.c builds the rank-level one. */
#ifndef HS_DTREE_H
#define HS_DTREE_H

/* Node r's parent and children in tree `which` (0 or 1) of n nodes; -1
 * for none. */
void hs_dtree(int n, int r, int which, int *up, int *down0, int *down1);

/* Edges from node r to the root in tree `which`. O(log n). */
int hs_dtree_depth(int n, int r, int which);

/* depth[r]: edges from node r to the root in tree `which`, for every r.
 * O(n). */
void hs_dtree_depths(int n, int which, int *depth);

#endif
