/* fast_tree.c — a whole pipelined tree run timed in arithmetic (fast_tree.h). */
#include "sim/fast_tree.h"

#include "algos/comm/tree_pipe.h"

#include <math.h>
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

/* ---- forwarding on arrival (tree_pipe.h), in arithmetic ----------------------------
 * The same run as algos/comm/tree_pipe.c's, time by time. Edge e (a
 * connection) moves its slices one after another: slice k goes on the
 * wire at max(when its sender posted it plus the protocol's hop, when
 * slice k - 1 left the wire, when the receiver posted its receive), moves
 * its bytes at its share, and is done for both ends one route latency
 * later. A rank processes slice k of a direction at max(its start, its
 * inputs' done, its out connections' slice k - room done at the sender),
 * and then posts the receives for slice k + window. The share of edge e
 * for slice k is its share in the lock-step tick off + k: the flows that
 * run beside it there are those that run beside it pipelined, up to the
 * way the pipeline drifts from the ticks (test_fidelity_fast). */

static int by_depth_desc(const void *a, const void *b) {
  const int *x = a, *y = b;
  return x[1] != y[1] ? (x[1] > y[1] ? -1 : 1) : (x[0] > y[0]) - (x[0] < y[0]);
}

static void time_pipelined(const hs_fast_tree *t, double wire, double *times) {
  int n = t->n, S = t->run.slices, W = t->run.window, L = hs_tree_pipe_send_room(W), E = t->n_edges, T = t->run.trees;
  int up = (t->run.mode & HS_TREE_UP) != 0, down = (t->run.mode & HS_TREE_DOWN) != 0;
  /* edges by (tree, position): the one up, the ones down in role order */
  int *up_e = malloc((size_t)(T * n) * sizeof(int)), *down_e = malloc((size_t)(T * n * HS_TREE_MAX_DOWN) * sizeof(int));
  for (int i = 0; i < T * n; i++) up_e[i] = -1;
  for (int i = 0; i < T * n * HS_TREE_MAX_DOWN; i++) down_e[i] = -1;
  for (int e = 0; e < E; e++) {
    const hs_fast_tree_edge *ed = &t->edge[e];
    const hs_tree_role *r = &t->role[ed->src][ed->w];
    if (r->up == ed->dst) up_e[ed->w * n + ed->src] = e;
    for (int j = 0; j < r->n_down; j++)
      if (r->down[j] == ed->dst && up_e[ed->w * n + ed->src] != e) down_e[(ed->w * n + ed->src) * HS_TREE_MAX_DOWN + j] = e;
  }
  /* positions deepest first, per tree */
  int *order = malloc((size_t)(T * n) * 2 * sizeof(int));
  for (int w = 0; w < T; w++) {
    int *o = order + (size_t)w * n * 2;
    for (int pos = 0; pos < n; pos++) o[2 * pos] = pos, o[2 * pos + 1] = t->role[pos][w].depth;
    qsort(o, (size_t)n, 2 * sizeof(int), by_depth_desc);
  }
  /* per edge: its last slice's end on the wire, its slices' done at the
   * sender (the last L), the receives' posting (the next W) */
  double *ended = malloc((size_t)E * sizeof(double) + 1), *done = malloc((size_t)E * (size_t)L * sizeof(double) + 1);
  double *rpost = malloc((size_t)E * (size_t)W * sizeof(double) + 1);
  double *end = malloc((size_t)n * sizeof(double));
  for (int e = 0; e < E; e++) {
    ended[e] = -INFINITY;
    for (int i = 0; i < W; i++) rpost[(size_t)e * W + i] = times[t->edge[e].dst];
  }
  memcpy(end, times, (size_t)n * sizeof(double));
#define ROOM(e, k) ((k) >= L ? done[(size_t)(e) * L + (size_t)((k) % L)] : -INFINITY)
  for (int k = 0; k < S; k++) {
    for (int w = 0; w < T; w++) {
      const int *o = order + (size_t)w * n * 2;
      /* one edge's slice k, posted at `at` */
      #define MOVE(e, at) do { \
          int e_ = (e); const hs_fast_tree_edge *ed_ = &t->edge[e_]; \
          int x_ = ed_->off + k, p_ = t->tick_pat[x_]; \
          double rate_ = t->pat_rate[p_][e_ - t->pat_lo[p_]]; \
          double go_ = dmax(dmax((at) + ed_->hop, ended[e_]), rpost[(size_t)e_ * W + (size_t)(k % W)]); \
          ended[e_] = go_ + t->slice_bytes[w * S + k] * wire / rate_; \
          done[(size_t)e_ * L + (size_t)(k % L)] = ended[e_] + ed_->lat; \
          end[ed_->src] = dmax(end[ed_->src], ended[e_] + ed_->lat); \
          end[ed_->dst] = dmax(end[ed_->dst], ended[e_] + ed_->lat); \
        } while (0)
      for (int i = 0; up && i < n; i++) { /* upward, children before parents */
        int pos = o[2 * i];
        const hs_tree_role *r = &t->role[pos][w];
        int ue = up_e[w * n + pos], root_fwd = down && r->up < 0;
        const int *de = down_e + (size_t)(w * n + pos) * HS_TREE_MAX_DOWN;
        if (ue < 0 && r->n_down == 0) continue; /* alone */
        double at = times[pos];
        for (int j = 0; j < r->n_down; j++) { /* the children's slice k, done */
          int ce = up_e[w * n + r->down[j]];
          at = dmax(at, done[(size_t)ce * L + (size_t)(k % L)]);
        }
        if (ue >= 0) at = dmax(at, ROOM(ue, k));
        for (int j = 0; root_fwd && j < r->n_down; j++) at = dmax(at, ROOM(de[j], k));
        if (ue >= 0) MOVE(ue, at);
        for (int j = 0; root_fwd && j < r->n_down; j++) MOVE(de[j], at);
        for (int j = 0; j < r->n_down && k + W < S; j++) rpost[(size_t)up_e[w * n + r->down[j]] * W + (size_t)(k % W)] = at;
      }
      for (int i = n - 1; down && i >= 0; i--) { /* downward, parents before children */
        int pos = o[2 * i];
        const hs_tree_role *r = &t->role[pos][w];
        const int *de = down_e + (size_t)(w * n + pos) * HS_TREE_MAX_DOWN;
        if ((up && r->up < 0) || (r->up < 0 && r->n_down == 0)) continue; /* the allreduce's root went down with its sums */
        double at = times[pos];
        int pe = -1;
        if (r->up >= 0) {
          const hs_tree_role *pr = &t->role[r->up][w];
          for (int j = 0; j < pr->n_down; j++)
            if (pr->down[j] == pos) pe = down_e[(size_t)(w * n + r->up) * HS_TREE_MAX_DOWN + j];
          at = dmax(at, done[(size_t)pe * L + (size_t)(k % L)]);
        }
        for (int j = 0; j < r->n_down; j++) at = dmax(at, ROOM(de[j], k));
        for (int j = 0; j < r->n_down; j++) MOVE(de[j], at);
        if (pe >= 0 && k + W < S) rpost[(size_t)pe * W + (size_t)(k % W)] = at;
      }
      #undef MOVE
    }
  }
#undef ROOM
  memcpy(times, end, (size_t)n * sizeof(double));
  free(up_e);
  free(down_e);
  free(order);
  free(ended);
  free(done);
  free(rpost);
  free(end);
}

void hs_fast_tree_time(const hs_fast_tree *t, double wire, double *times) {
  if (t->run.window > 0) {
    time_pipelined(t, wire, times);
    return;
  }
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
