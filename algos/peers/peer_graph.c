/* peer_graph.c — a peer scheme's step as a fixed, two-sided graph
 * (peer_graph.h). */
#include "algos/peers/peer_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hs_peer_graph_free(hs_peer_graph *g) {
  free(g->edge), free(g->colour), free(g->side), free(g->off), free(g->inc);
  memset(g, 0, sizeof *g);
}

static int edge_order(const void *a, const void *b) {
  const int *x = a, *y = b;
  return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* The edges of step st, u < v, sorted and each once. */
static int collect_edges(const hs_peer_step *st, int n, int drop_closing, hs_peer_graph *g) {
  int cap = st ? st->out_off[n] : 0;
  g->edge = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *g->edge);
  if (!g->edge) return -1;
  for (int u = 0; u < n && st; u++)
    for (int k = st->out_off[u]; k < st->out_off[u + 1]; k++) {
      int v = st->out[k].peer;
      if (v <= u || (drop_closing && u == 0 && v == n - 1)) continue; /* from its lower end */
      g->edge[g->n_edges][0] = u, g->edge[g->n_edges][1] = v, g->n_edges++;
    }
  qsort(g->edge, (size_t)g->n_edges, sizeof *g->edge, edge_order);
  int kept = 0;
  for (int e = 0; e < g->n_edges; e++)
    if (!kept || edge_order(g->edge[e], g->edge[kept - 1])) memcpy(g->edge[kept++], g->edge[e], sizeof *g->edge);
  g->n_edges = kept;
  return 0;
}

/* Each rank's incident edges, in the edges' order. */
static int incidence(hs_peer_graph *g) {
  g->off = calloc((size_t)g->n + 1, sizeof *g->off);
  g->inc = malloc((size_t)(2 * g->n_edges > 0 ? 2 * g->n_edges : 1) * sizeof *g->inc);
  int *fill = calloc((size_t)g->n, sizeof *fill);
  if (!g->off || !g->inc || !fill) {
    free(fill);
    return -1;
  }
  for (int e = 0; e < g->n_edges; e++) g->off[g->edge[e][0] + 1]++, g->off[g->edge[e][1] + 1]++;
  for (int r = 0; r < g->n; r++) g->off[r + 1] += g->off[r];
  for (int e = 0; e < g->n_edges; e++)
    for (int i = 0; i < 2; i++) {
      int r = g->edge[e][i];
      g->inc[g->off[r] + fill[r]++] = e;
    }
  free(fill);
  return 0;
}

/* Breadth first from the lowest rank of each connected part, which gets
 * side 0: -1 with err on two neighbours of one side (an odd cycle). */
static int two_sides(hs_peer_graph *g, const char *name, char *err, size_t len) {
  int *queue = malloc((size_t)g->n * sizeof *queue);
  if (!queue) return -1;
  for (int r = 0; r < g->n; r++) g->side[r] = -1;
  for (int r = 0; r < g->n; r++) {
    if (g->side[r] >= 0) continue;
    int head = 0, tail = 0;
    g->side[r] = 0, queue[tail++] = r;
    while (head < tail) {
      int u = queue[head++];
      for (int k = g->off[u]; k < g->off[u + 1]; k++) {
        const int *e = g->edge[g->inc[k]];
        int v = e[0] == u ? e[1] : e[0];
        if (g->side[v] < 0) {
          g->side[v] = 1 - g->side[u], queue[tail++] = v;
        } else if (g->side[v] == g->side[u]) {
          snprintf(err, len,
                   "scheme %s over %d ranks is not bipartite (ranks %d and %d are neighbours on the same side of an "
                   "odd cycle)",
                   name, g->n, u < v ? u : v, u < v ? v : u);
          free(queue);
          return -1;
        }
      }
    }
  }
  free(queue);
  return 0;
}

/* Greedy, in the edges' order: the lowest colour that neither end has yet. */
static int colour_edges(hs_peer_graph *g) {
  int max_degree = 0;
  for (int r = 0; r < g->n; r++)
    if (g->off[r + 1] - g->off[r] > max_degree) max_degree = g->off[r + 1] - g->off[r];
  g->colour = malloc((size_t)(g->n_edges > 0 ? g->n_edges : 1) * sizeof *g->colour);
  char *used = calloc((size_t)(2 * max_degree + 1), 1);
  if (!g->colour || !used) {
    free(used);
    return -1;
  }
  for (int e = 0; e < g->n_edges; e++) g->colour[e] = -1;
  for (int e = 0; e < g->n_edges; e++) {
    for (int i = 0; i < 2; i++) {
      int r = g->edge[e][i];
      for (int k = g->off[r]; k < g->off[r + 1]; k++)
        if (g->colour[g->inc[k]] >= 0) used[g->colour[g->inc[k]]] = 1;
    }
    int c = 0;
    while (used[c]) c++;
    g->colour[e] = c;
    if (c + 1 > g->colours) g->colours = c + 1;
    memset(used, 0, (size_t)(2 * max_degree + 1));
  }
  free(used);
  return 0;
}

/* The built-in ring over an odd count, asked to be a path. */
static int drops_closing(const hs_peer_scheme *scheme, int n, int drop_odd_ring) {
  return drop_odd_ring && strcmp(scheme->name, "ring") == 0 && n % 2 == 1 && n > 2;
}

int hs_peer_graph_build(hs_peer_scheme *scheme, int n, int drop_odd_ring, hs_peer_graph *g, char *err, size_t len) {
  memset(g, 0, sizeof *g);
  g->n = n;
  if (scheme->directed || scheme->allreduce || scheme->hierarchical) {
    snprintf(err, len, "scheme %s is %s", scheme->name,
             scheme->directed ? "directed (send-to lists)" : scheme->allreduce ? "all-to-all" : "among machines");
    return -1;
  }
  const hs_peer_step *st = n > 1 ? hs_peer_schedule_get(hs_peer_scheme_schedule(scheme, n), 0, err, len) : NULL;
  if (n > 1 && !st) return -1;
  int drop = drops_closing(scheme, n, drop_odd_ring);
  g->dropped_closing = drop;
  g->side = malloc((size_t)(n > 0 ? n : 1) * sizeof *g->side);
  int rc = !g->side || collect_edges(st, n, drop, g) || incidence(g) ? -1 : 0;
  if (rc) snprintf(err, len, "out of memory");
  if (!rc) rc = two_sides(g, scheme->name, err, len);
  if (!rc && colour_edges(g)) rc = -1, snprintf(err, len, "out of memory");
  if (rc) hs_peer_graph_free(g);
  return rc;
}

const hs_peer_graph *hs_peer_scheme_graph(hs_peer_scheme *scheme, int n, int drop_odd_ring, char *err, size_t len) {
  hs_peer_graph *g = scheme->graph;
  int drop = drops_closing(scheme, n, drop_odd_ring);
  if (g && g->n == n && g->dropped_closing == drop) return g;
  if (g) hs_peer_graph_free(g), free(g), scheme->graph = NULL;
  if (!(g = malloc(sizeof *g))) {
    snprintf(err, len, "out of memory");
    return NULL;
  }
  if (hs_peer_graph_build(scheme, n, drop_odd_ring, g, err, len)) {
    free(g);
    return NULL;
  }
  return scheme->graph = g;
}

int hs_peer_graph_edge_of(const hs_peer_graph *g, int r, int c) {
  for (int k = g->off[r]; k < g->off[r + 1]; k++)
    if (g->colour[g->inc[k]] == c) return g->inc[k];
  return -1;
}
