/* fast_tree.c — a whole pipelined tree run timed in arithmetic (fast_tree.h). */
#include "sim/fast_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline double dmax(double a, double b) { return a > b ? a : b; }

hs_fast_tree *hs_fast_tree_new(const char *tag, int seq, int n, const hs_tree_run *run) {
  hs_fast_tree *t = calloc(1, sizeof *t);
  snprintf(t->tag, sizeof t->tag, "%s", tag);
  t->seq = seq;
  t->run = *run;
  t->n = n;
  t->member = malloc((size_t)n * sizeof(int));
  t->rec = malloc((size_t)n * sizeof(int));
  t->role = calloc((size_t)n, sizeof *t->role);
  return t;
}

void hs_fast_tree_add(hs_fast_tree *t, int pos, int member, int rec, const hs_tree_run *run) {
  t->member[pos] = member;
  t->rec[pos] = rec;
  for (int w = 0; w < run->trees; w++) t->role[pos][w] = run->role[w];
  t->got++;
}

/* The run as the rank at pos sees it: its roles in the shared frame. */
static hs_tree_run run_at(const hs_fast_tree *t, int pos) {
  hs_tree_run r = t->run;
  for (int w = 0; w < r.trees; w++) r.role[w] = t->role[pos][w];
  return r;
}

double hs_fast_tree_sent(const hs_fast_tree *t, int pos) {
  hs_tree_run r = run_at(t, pos);
  double sent = 0;
  for (int w = 0; w < r.trees; w++) {
    double part = (double)(r.role[w].count * r.esize);
    if (hs_lower_tree_first_tick(&r, w, HS_TREE_SEND_UP) >= 0) sent += part;
    if (hs_lower_tree_first_tick(&r, w, HS_TREE_SEND_DOWN) >= 0) sent += part * r.role[w].n_down;
  }
  return sent;
}

static int by_off(const void *a, const void *b) {
  const hs_fast_tree_edge *x = a, *y = b;
  if (x->off != y->off) return x->off < y->off ? -1 : 1;
  if (x->src != y->src) return x->src < y->src ? -1 : 1;
  if (x->w != y->w) return x->w < y->w ? -1 : 1;
  return (x->dst > y->dst) - (x->dst < y->dst);
}

/* First edge (in off order) with off > x. */
static int edges_upto(const hs_fast_tree *t, int x) {
  int lo = 0, hi = t->n_edges;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (t->edge[mid].off <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void hs_fast_tree_compile(hs_fast_tree *t, const hs_fast_tree_env *env) {
  int S = t->run.slices, cap = 0;
  /* every sending edge, each once, from its sender's roles */
  for (int pos = 0; pos < t->n; pos++) {
    hs_tree_run r = run_at(t, pos);
    for (int w = 0; w < r.trees; w++) {
      int up = hs_lower_tree_first_tick(&r, w, HS_TREE_SEND_UP), down = hs_lower_tree_first_tick(&r, w, HS_TREE_SEND_DOWN);
      int need = (up >= 0) + (down >= 0 ? r.role[w].n_down : 0);
      if (t->n_edges + need > cap) {
        cap = 2 * cap + need + 64;
        t->edge = realloc(t->edge, (size_t)cap * sizeof *t->edge);
      }
      if (up >= 0) t->edge[t->n_edges++] = (hs_fast_tree_edge){pos, r.role[w].up, up, w, 0, 0};
      for (int j = 0; down >= 0 && j < r.role[w].n_down; j++)
        t->edge[t->n_edges++] = (hs_fast_tree_edge){pos, r.role[w].down[j], down, w, 0, 0};
    }
  }
  qsort(t->edge, (size_t)t->n_edges, sizeof *t->edge, by_off);
  for (int e = 0; e < t->n_edges; e++) t->edge[e].hop = env->hop(env->ctx, t->edge[e].src, t->edge[e].dst);
  /* Patterns: the edges active at tick x are [first with off > x - S,
   * first with off > x); both ends only grow with x, so equal ranges are
   * consecutive ticks. */
  t->tick_pat = malloc(((size_t)t->run.ticks + 1) * sizeof(int));
  t->pat_lo = malloc(((size_t)t->run.ticks + 1) * sizeof(int));
  t->pat_hi = malloc(((size_t)t->run.ticks + 1) * sizeof(int));
  t->pat_rate = calloc((size_t)t->run.ticks + 1, sizeof(double *));
  int *src = malloc((size_t)t->n_edges * sizeof(int) + 1), *dst = malloc((size_t)t->n_edges * sizeof(int) + 1);
  double *lat = malloc((size_t)t->n_edges * sizeof(double) + 1);
  for (int x = 0; x < t->run.ticks; x++) {
    int lo = edges_upto(t, x - S), hi = edges_upto(t, x);
    if (t->n_pat > 0 && t->pat_lo[t->n_pat - 1] == lo && t->pat_hi[t->n_pat - 1] == hi) {
      t->tick_pat[x] = t->n_pat - 1;
      continue;
    }
    int p = t->n_pat++;
    t->tick_pat[x] = p;
    t->pat_lo[p] = lo;
    t->pat_hi[p] = hi;
    t->pat_rate[p] = malloc((size_t)(hi - lo) * sizeof(double) + 1);
    for (int e = lo; e < hi; e++) src[e - lo] = t->edge[e].src, dst[e - lo] = t->edge[e].dst;
    if (hi > lo) env->share(env->ctx, src, dst, hi - lo, lat, t->pat_rate[p]);
    for (int e = lo; e < hi; e++) t->edge[e].lat = lat[e - lo]; /* a route's latency: the same in every pattern */
  }
  free(src);
  free(dst);
  free(lat);
  /* slice k of tree w: hs_lower_part's cut of the tree's elements */
  t->slice_bytes = malloc((size_t)t->run.trees * (size_t)S * sizeof(double));
  for (int w = 0; w < t->run.trees; w++)
    for (int k = 0; k < S; k++) {
      size_t off, cnt;
      hs_lower_part(t->role[0][w].count, (size_t)k, (size_t)S, &off, &cnt);
      t->slice_bytes[w * S + k] = (double)(cnt * t->run.esize);
    }
}

void hs_fast_tree_time(const hs_fast_tree *t, double wire, double *times) {
  int n = t->n, S = t->run.slices;
  double *next = malloc((size_t)n * sizeof *next);
  for (int x = 0; x < t->run.ticks; x++) {
    int p = t->tick_pat[x], lo = t->pat_lo[p], hi = t->pat_hi[p];
    const double *rate = t->pat_rate[p];
    memcpy(next, times, (size_t)n * sizeof *next);
    for (int e = lo; e < hi; e++) {
      const hs_fast_tree_edge *ed = &t->edge[e];
      double bytes = t->slice_bytes[ed->w * S + (x - ed->off)];
      double cost = ed->lat + bytes * wire / rate[e - lo];
      double end = dmax(times[ed->src] + ed->hop, times[ed->dst]) + cost;
      next[ed->src] = dmax(next[ed->src], end);
      next[ed->dst] = dmax(next[ed->dst], end);
    }
    memcpy(times, next, (size_t)n * sizeof *next);
  }
  free(next);
}
