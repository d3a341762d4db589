/* peer_graph.h — a peer scheme's step as a fixed, two-sided graph.
 *
 * Asynchronous gossip in the manner of AD-PSGD (Lian et al., ICML 2018,
 * section 5) runs on a fixed undirected graph that is bipartite: one side
 * initiates every averaging, the other answers, so no two averagings wait
 * for each other. This builds such a graph from a scheme's step 0 and
 * gives what a backend needs to run it: each rank's side and a proper
 * colouring of the edges (no two edges of a rank share a colour), so that
 * one communicator split a colour gives every rank a pair communicator
 * per edge. Every rank builds the same graph from the same scheme, so they
 * agree without a message. */
#ifndef HS_PEER_GRAPH_H
#define HS_PEER_GRAPH_H

#include <stddef.h>

#include "algos/peers/peer_scheme.h"

typedef struct hs_peer_graph {
  int n, n_edges, colours;
  int dropped_closing; /* built with drop_odd_ring and the closing edge dropped */
  int (*edge)[2]; /* u < v, sorted, each once */
  int *colour;    /* an edge's, in [0, colours) */
  int *side;      /* a rank's: 0 for the side of its connected part's lowest rank, else 1 */
  int *off, *inc; /* rank r's incident edges: inc[off[r] .. off[r + 1]) */
} hs_peer_graph;

/* The scheme's step 0 over n ranks: 0, or -1 with err filled (a broken,
 * directed, all-to-all or machine-level scheme, or a graph with an odd
 * cycle, naming two neighbours on one side). With drop_odd_ring, the
 * built-in ring over an odd count loses its closing edge (n - 1, 0) and
 * is a path. Colours: greedy in the edges' order, at most 2 * degree - 1
 * (two on a ring: the pairs (2k, 2k + 1), then the others). */
int hs_peer_graph_build(hs_peer_scheme *scheme, int n, int drop_odd_ring, hs_peer_graph *g, char *err, size_t len);
void hs_peer_graph_free(hs_peer_graph *g);

/* The same, built once for every rank of the process and kept with the
 * scheme (freed with it), as the scheme's schedule is: each rank asks for
 * the graph over the same n, and building it costs O(n log n) (0.8 ms at
 * 16 384 ranks, which every simulated rank would otherwise pay). A graph
 * that cannot be built is not kept; NULL with err filled. */
const hs_peer_graph *hs_peer_scheme_graph(hs_peer_scheme *scheme, int n, int drop_odd_ring, char *err, size_t len);

/* Rank r's edge of colour c (an index into edge[]), or -1. */
int hs_peer_graph_edge_of(const hs_peer_graph *g, int r, int c);

#endif
