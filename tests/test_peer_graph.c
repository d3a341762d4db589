/* test_peer_graph.c — a peer scheme's step as a fixed two-sided graph
 * (algos/peers/peer_graph.h), what adpsgd runs on.
 *
 * For built-in schemes of known shape: the edge count, that the sides
 * alternate along every edge (side 0 for rank 0), that the colouring is
 * proper (no two edges of a rank share a colour, every colour a rank has
 * found by hs_peer_graph_edge_of) and how many colours the greedy order
 * takes; the ring of an odd count as a path when asked, refused when not;
 * directed, all-to-all and odd-cycle schemes refused with a message; the
 * graph kept with the scheme returned again for the same count. Exact
 * counts: the graphs are small and fixed. */
#include <stdio.h>
#include <string.h>

#include "algos/peers/peer_graph.h"
#include "tests/tap.h"

/* The checks every built graph passes: sides, a proper colouring. */
static void check_shape(const char *what, const hs_peer_graph *g, int edges, int colours) {
  int sides_alternate = 1, proper = 1, found = 1;
  for (int e = 0; e < g->n_edges; e++) {
    int u = g->edge[e][0], v = g->edge[e][1];
    sides_alternate &= u < v && g->side[u] != g->side[v];
    found &= hs_peer_graph_edge_of(g, u, g->colour[e]) == e && hs_peer_graph_edge_of(g, v, g->colour[e]) == e;
    for (int f = 0; f < e; f++)
      if (g->colour[f] == g->colour[e] && (g->edge[f][0] == u || g->edge[f][1] == u || g->edge[f][0] == v ||
                                           g->edge[f][1] == v))
        proper = 0;
  }
  tap_ok(g->n_edges == edges, "%s: %d edges (%d)", what, g->n_edges, edges);
  tap_ok(g->n == 0 || g->side[0] == 0, "%s: rank 0 on the initiating side", what);
  tap_ok(sides_alternate, "%s: every edge joins the two sides", what);
  tap_ok(proper && found, "%s: no two edges of a rank share a colour, each found by its colour", what);
  tap_ok(g->colours == colours, "%s: %d colours (%d)", what, g->colours, colours);
}

static void built(const char *name, int n, int drop, int edges, int colours) {
  hs_peer_scheme *s = hs_peer_builtin(name);
  hs_peer_graph g;
  char err[HS_PEER_ERR_MAX] = "";
  char what[96];
  snprintf(what, sizeof what, "%s over %d%s", name, n, drop && !strcmp(name, "ring") && n % 2 ? ", as a path" : "");
  int rc = hs_peer_graph_build(s, n, drop, &g, err, sizeof err);
  tap_ok(rc == 0, "%s builds%s%s", what, rc ? ": " : "", err);
  if (!rc) check_shape(what, &g, edges, colours), hs_peer_graph_free(&g);
  hs_peer_scheme_free(s);
}

static void refused(const char *name, int n, int drop, const char *why) {
  hs_peer_scheme *s = hs_peer_builtin(name);
  hs_peer_graph g;
  char err[HS_PEER_ERR_MAX] = "";
  int rc = hs_peer_graph_build(s, n, drop, &g, err, sizeof err);
  tap_ok(rc == -1 && strstr(err, why) && strstr(err, name), "%s over %d refused: %s", name, n, err);
  hs_peer_scheme_free(s);
}

/* The graph kept with the scheme: built once for a count, rebuilt for
 * another, and what it holds is what a fresh build gives. */
static void kept(void) {
  hs_peer_scheme *s = hs_peer_builtin("torus2d");
  char err[HS_PEER_ERR_MAX] = "";
  const hs_peer_graph *a = hs_peer_scheme_graph(s, 16, 1, err, sizeof err);
  if (a) a->side[0] = 7; /* a mark a rebuilt graph would not carry (sides are 0 or 1) */
  const hs_peer_graph *b = hs_peer_scheme_graph(s, 16, 1, err, sizeof err);
  tap_ok(a && b && b->side[0] == 7, "torus2d over 16: the kept graph is returned again, not rebuilt");
  const hs_peer_graph *c = hs_peer_scheme_graph(s, 64, 1, err, sizeof err);
  tap_ok(c && c->n == 64 && c->n_edges == 128, "over 64: rebuilt for the new count (%d ranks, %d edges, 128)",
         c ? c->n : 0, c ? c->n_edges : 0);
  tap_ok(!hs_peer_scheme_graph(s, 9, 1, err, sizeof err) && strstr(err, "not bipartite"),
         "over 9: refused, nothing kept: %s", err);
  hs_peer_scheme_free(s);
}

int main(void) {
  kept();
  built("ring", 16, 1, 16, 2);          /* the pairs (2k, 2k + 1), then the others with (15, 0) */
  built("ring", 9, 1, 8, 2);            /* the closing edge (8, 0) dropped: a path */
  built("ring", 2, 1, 1, 1);            /* both neighbours are the other rank: one edge */
  built("ring", 1, 1, 0, 0);            /* alone */
  built("torus2d", 16, 1, 32, 4);       /* 4 x 4, four neighbours each, even sides */
  built("shift_one", 8, 1, 4, 1);       /* step 0 is a perfect matching */
  built("random_matching", 10, 1, 5, 1);
  refused("ring", 9, 0, "not bipartite");
  refused("torus2d", 9, 1, "not bipartite"); /* 3 x 3: odd cycles along rows */
  refused("exp2", 8, 1, "directed");
  refused("sgp_exp", 8, 1, "directed");
  refused("all", 8, 1, "all-to-all");
  return tap_done(0);
}
