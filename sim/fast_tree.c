/* fast_tree.c — a whole pipelined tree run timed in arithmetic (fast_tree.h). */
#include "sim/fast_tree.h"

#include "algos/comm/tree_pipe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How fast refines a run forwarding on arrival (time_pipelined, below). */
enum {
  REFINE_PASSES = 3,
  /* Slices (edges x slices per edge) up to which the run is refined: a
   * refinement costs ~0.1 us a slice (two 1024-GPU trees of 100 slices:
   * 0.04 s, against 0.015 s for the first timing), and a training run
   * times its collectives at every call. Above it the ticks' shares stand
   * (docs/fidelity.md says where that errs). */
  REFINE_BUDGET = 1 << 16
};

static inline double dmax(double a, double b) { return a > b ? a : b; }
static inline double dmin(double a, double b) { return a < b ? a : b; }
static inline int imax(int a, int b) { return a > b ? a : b; }

/* Position pos's part in tree w. */
static hs_tree_role *role_at(const hs_fast_tree *t, int pos, int w) { return &t->role[pos * t->run.trees + w]; }

hs_fast_tree *hs_fast_tree_new(const char *tag, int seq, int n, const hs_tree_run *run) {
  hs_fast_tree *t = calloc(1, sizeof *t);
  snprintf(t->tag, sizeof t->tag, "%s", tag);
  t->seq = seq;
  t->run = *run;
  t->n = n;
  t->member = malloc((size_t)n * sizeof(int));
  t->rec = malloc((size_t)n * sizeof(int));
  t->role = calloc((size_t)n * (size_t)(run->trees > 0 ? run->trees : 1), sizeof *t->role);
  return t;
}

void hs_fast_tree_add(hs_fast_tree *t, int pos, int member, int rec, const hs_tree_run *run) {
  t->member[pos] = member;
  t->rec[pos] = rec;
  for (int w = 0; w < run->trees; w++) *role_at(t, pos, w) = run->role[w];
  t->got++;
}

/* The run as the rank at pos sees it: its roles in the shared frame. */
static hs_tree_run run_at(const hs_fast_tree *t, int pos) {
  hs_tree_run r = t->run;
  for (int w = 0; w < r.trees; w++) r.role[w] = *role_at(t, pos, w);
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

static int by_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The shared links of every edge, densely numbered, both ways; and each
 * edge's share alone. */
static void compile_links(hs_fast_tree *t, const hs_fast_tree_env *env) {
  enum { MAX_ROUTE = 64 };
  int E = t->n_edges, ids[MAX_ROUTE], cap = 0, n_refs = 0;
  double bw[MAX_ROUTE];
  int *glob = NULL;          /* every (edge, link) in edge order: the platform's ids */
  double *glob_bw = NULL;
  t->edge_link_at = malloc(((size_t)E + 1) * sizeof(int));
  t->solo = malloc((size_t)E * sizeof(double) + 1);
  for (int e = 0; e < E; e++) {
    t->edge_link_at[e] = n_refs;
    int n = env->links(env->ctx, t->edge[e].src, t->edge[e].dst, ids, bw, MAX_ROUTE);
    if (n_refs + n > cap) {
      cap = 2 * cap + n + 64;
      glob = realloc(glob, (size_t)cap * sizeof(int));
      glob_bw = realloc(glob_bw, (size_t)cap * sizeof(double));
    }
    for (int i = 0; i < n; i++) glob[n_refs + i] = ids[i], glob_bw[n_refs + i] = bw[i];
    n_refs += n;
    double lat;
    env->share(env->ctx, e, e + 1, &lat, &t->solo[e]);
  }
  t->edge_link_at[E] = n_refs;
  /* dense ids: the platform's, sorted and unique */
  int *uniq = malloc((size_t)n_refs * sizeof(int) + 1), nl = 0;
  memcpy(uniq, glob, (size_t)n_refs * sizeof(int));
  qsort(uniq, (size_t)n_refs, sizeof(int), by_int);
  for (int i = 0; i < n_refs; i++)
    if (nl == 0 || uniq[nl - 1] != uniq[i]) uniq[nl++] = uniq[i];
  t->n_links = nl;
  t->link_bw = malloc((size_t)nl * sizeof(double) + 1);
  t->edge_link = malloc((size_t)n_refs * sizeof(int) + 1);
  t->link_edge_at = calloc((size_t)nl + 2, sizeof(int));
  for (int i = 0; i < n_refs; i++) {
    int l = (int)((int *)bsearch(&glob[i], uniq, (size_t)nl, sizeof(int), by_int) - uniq);
    t->edge_link[i] = l;
    t->link_bw[l] = glob_bw[i];
    t->link_edge_at[l + 2]++;
  }
  for (int l = 0; l < nl; l++) t->link_edge_at[l + 2] += t->link_edge_at[l + 1];
  t->link_edge = malloc((size_t)n_refs * sizeof(int) + 1);
  for (int e = 0; e < E; e++)
    for (int i = t->edge_link_at[e]; i < t->edge_link_at[e + 1]; i++) t->link_edge[t->link_edge_at[t->edge_link[i] + 1]++] = e;
  free(glob), free(glob_bw), free(uniq);
}

/* Each edge of [lo, hi) (a pattern): the least of bandwidth / flows over
 * the shared links it crosses, those flows being the pattern's; count: a
 * zeroed scratch per link, left zeroed. */
static double *local_shares(const hs_fast_tree *t, int lo, int hi, int *count) {
  double *local = malloc((size_t)(hi - lo) * sizeof(double) + 1);
  for (int e = lo; e < hi; e++)
    for (int i = t->edge_link_at[e]; i < t->edge_link_at[e + 1]; i++) count[t->edge_link[i]]++;
  for (int e = lo; e < hi; e++) {
    double least = INFINITY;
    for (int i = t->edge_link_at[e]; i < t->edge_link_at[e + 1]; i++)
      least = dmin(least, t->link_bw[t->edge_link[i]] / count[t->edge_link[i]]);
    local[e - lo] = least;
  }
  for (int e = lo; e < hi; e++)
    for (int i = t->edge_link_at[e]; i < t->edge_link_at[e + 1]; i++) count[t->edge_link[i]] = 0;
  return local;
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
      if (up >= 0) t->edge[t->n_edges++] = (hs_fast_tree_edge){pos, r.role[w].up, up, w, 0, 0, 0};
      for (int j = 0; down >= 0 && j < r.role[w].n_down; j++)
        t->edge[t->n_edges++] = (hs_fast_tree_edge){pos, r.role[w].down[j], down, w, 0, 0, 0};
    }
  }
  qsort(t->edge, (size_t)t->n_edges, sizeof *t->edge, by_off);
  for (int e = 0; e < t->n_edges; e++) {
    hs_fast_tree_edge *ed = &t->edge[e];
    ed->hop = env->hop(env->ctx, ed->src, ed->dst);
    ed->cap = t->cap;
    if (t->net_cap > 0 && (ed->cap <= 0 || t->net_cap < ed->cap) && env->across(env->ctx, ed->src, ed->dst))
      ed->cap = t->net_cap;
  }
  /* what the refinement needs, where it will run */
  t->refine = t->run.window > 0 && (size_t)t->n_edges * (size_t)S <= REFINE_BUDGET;
  if (t->refine) compile_links(t, env);
  /* Patterns: the edges active at tick x are [first with off > x - S,
   * first with off > x); both ends only grow with x, so equal ranges are
   * consecutive ticks. */
  t->tick_pat = malloc(((size_t)t->run.ticks + 1) * sizeof(int));
  t->pat_lo = malloc(((size_t)t->run.ticks + 1) * sizeof(int));
  t->pat_hi = malloc(((size_t)t->run.ticks + 1) * sizeof(int));
  t->pat_rate = calloc((size_t)t->run.ticks + 1, sizeof(double *));
  t->pat_cap = calloc((size_t)t->run.ticks + 1, sizeof(double *));
  t->pat_local = t->refine ? calloc((size_t)t->run.ticks + 1, sizeof(double *)) : NULL;
  /* An allreduce's bound is each position's budget (algos/comm/tree_pipe.c,
   * tree_budget): the bound a flow has in the steady state times its
   * bounded edges, shared by those of them in the tick. */
  int pooled = t->run.mode == HS_TREE_BOTH;
  int *bounded = calloc((size_t)t->n + 1, sizeof(int)), *active = calloc((size_t)t->n + 1, sizeof(int));
  for (int e = 0; pooled && e < t->n_edges; e++) bounded[t->edge[e].src] += t->edge[e].cap > 0;
  int *count = calloc((size_t)t->n_links + 1, sizeof(int));
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
    t->pat_cap[p] = malloc((size_t)(hi - lo) * sizeof(double) + 1);
    for (int e = lo; pooled && e < hi; e++) active[t->edge[e].src] += t->edge[e].cap > 0;
    for (int e = lo; e < hi; e++) {
      const hs_fast_tree_edge *ed = &t->edge[e];
      t->pat_cap[p][e - lo] = pooled && ed->cap > 0 ? ed->cap * bounded[ed->src] / active[ed->src] : ed->cap;
    }
    for (int e = lo; pooled && e < hi; e++) active[t->edge[e].src] = 0;
    if (hi > lo) env->share(env->ctx, lo, hi, lat, t->pat_rate[p]);
    if (t->refine) t->pat_local[p] = local_shares(t, lo, hi, count);
    for (int e = lo; e < hi; e++) t->edge[e].lat = lat[e - lo]; /* a route's latency: the same in every pattern */
  }
  free(lat);
  free(count);
  free(bounded);
  free(active);
  /* slice k of tree w: hs_lower_part's cut of the tree's elements */
  t->slice_bytes = malloc((size_t)t->run.trees * (size_t)S * sizeof(double));
  for (int w = 0; w < t->run.trees; w++)
    for (int k = 0; k < S; k++) {
      size_t off, cnt;
      hs_lower_part(role_at(t, 0, w)->count, (size_t)k, (size_t)S, &off, &cnt);
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
 * and then posts the receives for slice k + window.
 *
 * The share of slice k on edge e: first, its max-min share in the
 * lock-step tick off + k (the compiled patterns), which counts every flow
 * of that tick as running beside it. Pipelined, a connection idles while
 * it waits for credits or inputs, and a flow of the tick may not be on the
 * wire yet, or no more, while flows of other ticks are: on 2 one-GPU
 * nodes, LL, 1 MiB, the slices of one tree going up and of the other
 * coming down share a NIC in every tick and never run at once (fast was
 * 8.5% slow there, 16% on 4 nodes). So the run is timed again
 * (REFINE_PASSES times), each slice's tick share scaled by how much more
 * (or less) of its tightest link it got in the previous pass among the
 * slices really on the wire beside it than among its tick's flows
 * (rescale), and never above its rate alone. Where every connection
 * streams beside the same others, the two agree and the ticks' shares
 * stand. The scaling is a fluid estimate, not SimGrid's re-solving at
 * every message's end: within 0.3% of step on the reference set but the
 * 2:1 fat tree (1.5% at 64 MiB, 2.6% at LL 1 MiB; test_fidelity_fast). */

static int by_depth_desc(const void *a, const void *b) {
  const int *x = a, *y = b;
  return x[1] != y[1] ? (x[1] > y[1] ? -1 : 1) : (x[0] > y[0]) - (x[0] < y[0]);
}

/* One timing of the run: its fixed parts, and per slice of each edge
 * (e * S + k) the scale of its tick share, when it went on the wire and
 * when it left it. */
typedef struct {
  const hs_fast_tree *t;
  double wire;
  int n, S, W, L, E, T;
  const double *start;          /* when each position starts the run */
  int *up_e, *down_e, *order;   /* edges by (tree, position); positions deepest first per tree */
  double *scale, *go, *left;    /* per slice of each edge */
  double *ended, *done, *rpost; /* per edge: the last slice's end on the wire, done at the sender (last L), credits (next W) */
  double *end;                  /* per position: when its part ends */
} pipe_timing;

/* Slice k of edge e, its sender ready at `at`. */
static void move(pipe_timing *p, int e, int k, double at) {
  const hs_fast_tree *t = p->t;
  const hs_fast_tree_edge *ed = &t->edge[e];
  int x = ed->off + k, pat = t->tick_pat[x], S = p->S;
  double rate = t->pat_rate[pat][e - t->pat_lo[pat]] * (p->scale ? p->scale[(size_t)e * S + k] : 1);
  double cap = t->pat_cap[pat][e - t->pat_lo[pat]];
  if (cap > 0 && rate > cap) rate = cap;
  double go = dmax(dmax(at + ed->hop, p->ended[e]), p->rpost[(size_t)e * p->W + (size_t)(k % p->W)]);
  p->ended[e] = go + t->slice_bytes[ed->w * S + k] * p->wire / rate;
  if (p->go) {
    p->go[(size_t)e * S + k] = go;
    p->left[(size_t)e * S + k] = p->ended[e];
  }
  p->done[(size_t)e * p->L + (size_t)(k % p->L)] = p->ended[e] + ed->lat;
  p->end[ed->src] = dmax(p->end[ed->src], p->ended[e] + ed->lat);
  p->end[ed->dst] = dmax(p->end[ed->dst], p->ended[e] + ed->lat);
}

/* When edge e has room for slice k at its sender. */
static double room(const pipe_timing *p, int e, int k) {
  return k >= p->L ? p->done[(size_t)e * p->L + (size_t)(k % p->L)] : -INFINITY;
}

static void time_pass(pipe_timing *p) {
  const hs_fast_tree *t = p->t;
  int n = p->n, S = p->S, W = p->W, L = p->L, E = p->E, T = p->T;
  int up = (t->run.mode & HS_TREE_UP) != 0, down = (t->run.mode & HS_TREE_DOWN) != 0;
  for (int e = 0; e < E; e++) {
    p->ended[e] = -INFINITY;
    for (int i = 0; i < W; i++) p->rpost[(size_t)e * W + i] = p->start[t->edge[e].dst];
    for (int i = 0; i < L; i++) p->done[(size_t)e * L + i] = -INFINITY;
  }
  memcpy(p->end, p->start, (size_t)n * sizeof(double));
  for (int k = 0; k < S; k++) {
    for (int w = 0; w < T; w++) {
      const int *o = p->order + (size_t)w * n * 2;
      for (int i = 0; up && i < n; i++) { /* upward, children before parents */
        int pos = o[2 * i];
        const hs_tree_role *r = role_at(t, pos, w);
        int ue = p->up_e[w * n + pos], root_fwd = down && r->up < 0;
        const int *de = p->down_e + (size_t)(w * n + pos) * HS_TREE_MAX_DOWN;
        if (ue < 0 && r->n_down == 0) continue; /* alone */
        double at = p->start[pos];
        for (int j = 0; j < r->n_down; j++) { /* the children's slice k, done */
          int ce = p->up_e[w * n + r->down[j]];
          at = dmax(at, p->done[(size_t)ce * L + (size_t)(k % L)]);
        }
        if (ue >= 0) at = dmax(at, room(p, ue, k));
        for (int j = 0; root_fwd && j < r->n_down; j++) at = dmax(at, room(p, de[j], k));
        if (ue >= 0) move(p, ue, k, at);
        for (int j = 0; root_fwd && j < r->n_down; j++) move(p, de[j], k, at);
        for (int j = 0; j < r->n_down && k + W < S; j++)
          p->rpost[(size_t)p->up_e[w * n + r->down[j]] * W + (size_t)(k % W)] = at;
      }
      for (int i = n - 1; down && i >= 0; i--) { /* downward, parents before children */
        int pos = o[2 * i];
        const hs_tree_role *r = role_at(t, pos, w);
        const int *de = p->down_e + (size_t)(w * n + pos) * HS_TREE_MAX_DOWN;
        if ((up && r->up < 0) || (r->up < 0 && r->n_down == 0)) continue; /* the allreduce's root went down with its sums */
        double at = p->start[pos];
        int pe = -1;
        if (r->up >= 0) {
          const hs_tree_role *pr = role_at(t, r->up, w);
          for (int j = 0; j < pr->n_down; j++)
            if (pr->down[j] == pos) pe = p->down_e[(size_t)(w * n + r->up) * HS_TREE_MAX_DOWN + j];
          at = dmax(at, p->done[(size_t)pe * L + (size_t)(k % L)]);
        }
        for (int j = 0; j < r->n_down; j++) at = dmax(at, room(p, de[j], k));
        for (int j = 0; j < r->n_down; j++) move(p, de[j], k, at);
        if (pe >= 0 && k + W < S) p->rpost[(size_t)pe * W + (size_t)(k % W)] = at;
      }
    }
  }
}

/* A link's slices in time order: a heap of its edges, each at its next
 * end of a slice on the wire (a connection's slices follow one another,
 * so each edge's ends are already in order). cur[i]: edge i's next end,
 * 2 k for slice k going on the wire, 2 k + 1 for it leaving. */
typedef struct {
  const pipe_timing *p;
  const int *edges; /* the link's */
  int *cur, *heap, n;
} link_sweep;

static double sweep_time(const link_sweep *s, int i) {
  size_t sl = (size_t)s->edges[i] * s->p->S + (size_t)(s->cur[i] / 2);
  return s->cur[i] % 2 ? s->p->left[sl] : s->p->go[sl];
}

static void sweep_sift(link_sweep *s, int at) {
  for (;;) {
    int least = at, l = 2 * at + 1, r = l + 1;
    if (l < s->n && sweep_time(s, s->heap[l]) < sweep_time(s, s->heap[least])) least = l;
    if (r < s->n && sweep_time(s, s->heap[r]) < sweep_time(s, s->heap[least])) least = r;
    if (least == at) return;
    int x = s->heap[at];
    s->heap[at] = s->heap[least], s->heap[least] = x;
    at = least;
  }
}

/* The scales for the next pass, from this pass's times on the wire: per
 * slice, (its least share of a link over its time on the wire, among the
 * slices on the wire beside it) / (the same among its tick's flows), never
 * above its rate alone. Its share of a link is the link's bandwidth times
 * the mean over its interval of 1 / (slices on the link then), what a
 * fluid flow gets as the others come and go: the integral of 1 / count,
 * swept over the link's slice ends in time order. */
static void rescale(pipe_timing *p) {
  const hs_fast_tree *t = p->t;
  int S = p->S, E = p->E;
  size_t slices = (size_t)E * S;
  double *beside = malloc(slices * sizeof(double) + 1), *at_go = malloc(slices * sizeof(double) + 1);
  for (size_t i = 0; i < slices; i++) beside[i] = INFINITY;
  int most = 0;
  for (int l = 0; l < t->n_links; l++) most = imax(most, t->link_edge_at[l + 1] - t->link_edge_at[l]);
  link_sweep s = {.p = p, .cur = malloc((size_t)most * sizeof(int) + 1), .heap = malloc((size_t)most * sizeof(int) + 1)};
  for (int l = 0; l < t->n_links; l++) {
    int lo = t->link_edge_at[l], d = t->link_edge_at[l + 1] - lo;
    double bw = t->link_bw[l];
    if (d == 1) { /* alone on it: the whole link */
      for (int k = 0; k < S; k++) beside[(size_t)t->link_edge[lo] * S + k] = dmin(beside[(size_t)t->link_edge[lo] * S + k], bw);
      continue;
    }
    s.edges = t->link_edge + lo;
    s.n = d;
    for (int i = 0; i < d; i++) s.cur[i] = 0, s.heap[i] = i;
    for (int i = d / 2 - 1; i >= 0; i--) sweep_sift(&s, i);
    double area = 0, prev = sweep_time(&s, s.heap[0]);
    int on = 0;
    while (s.n > 0) {
      int i = s.heap[0];
      double now = sweep_time(&s, i);
      if (on > 0) area += (now - prev) / on;
      prev = now;
      size_t sl = (size_t)s.edges[i] * S + (size_t)(s.cur[i] / 2);
      if (p->left[sl] > p->go[sl]) { /* a slice with no bytes is never on the wire */
        if (s.cur[i] % 2 == 0) {
          at_go[sl] = area;
          on++;
        } else {
          beside[sl] = dmin(beside[sl], bw * (area - at_go[sl]) / (p->left[sl] - p->go[sl]));
          on--;
        }
      }
      if (++s.cur[i] == 2 * S) s.heap[0] = s.heap[--s.n];
      sweep_sift(&s, 0);
    }
  }
  for (int e = 0; e < E; e++)
    for (int k = 0; k < S; k++) {
      int pat = t->tick_pat[t->edge[e].off + k], i = e - t->pat_lo[pat];
      double tick = t->pat_local[pat][i], rate = t->pat_rate[pat][i], sc = 1;
      if (isfinite(beside[(size_t)e * S + k]) && isfinite(tick)) sc = beside[(size_t)e * S + k] / tick;
      p->scale[(size_t)e * S + k] = dmin(sc, t->solo[e] / rate);
    }
  free(beside), free(at_go), free(s.cur), free(s.heap);
}

static void time_pipelined(const hs_fast_tree *t, double wire, double *times) {
  pipe_timing p = {.t = t, .wire = wire, .n = t->n, .S = t->run.slices, .W = t->run.window,
                   .L = hs_tree_pipe_send_room(t->run.window), .E = t->n_edges, .T = t->run.trees, .start = times};
  int n = p.n, E = p.E, T = p.T, S = p.S;
  p.up_e = malloc((size_t)(T * n) * sizeof(int));
  p.down_e = malloc((size_t)(T * n * HS_TREE_MAX_DOWN) * sizeof(int));
  for (int i = 0; i < T * n; i++) p.up_e[i] = -1;
  for (int i = 0; i < T * n * HS_TREE_MAX_DOWN; i++) p.down_e[i] = -1;
  for (int e = 0; e < E; e++) {
    const hs_fast_tree_edge *ed = &t->edge[e];
    const hs_tree_role *r = role_at(t, ed->src, ed->w);
    if (r->up == ed->dst) p.up_e[ed->w * n + ed->src] = e;
    for (int j = 0; j < r->n_down; j++)
      if (r->down[j] == ed->dst && p.up_e[ed->w * n + ed->src] != e) p.down_e[(ed->w * n + ed->src) * HS_TREE_MAX_DOWN + j] = e;
  }
  p.order = malloc((size_t)(T * n) * 2 * sizeof(int));
  for (int w = 0; w < T; w++) {
    int *o = p.order + (size_t)w * n * 2;
    for (int pos = 0; pos < n; pos++) o[2 * pos] = pos, o[2 * pos + 1] = role_at(t, pos, w)->depth;
    qsort(o, (size_t)n, 2 * sizeof(int), by_depth_desc);
  }
  size_t slices = (size_t)E * (size_t)S;
  if (t->refine) { /* per slice: what the passes need */
    p.scale = malloc(slices * sizeof(double) + 1);
    p.go = malloc(slices * sizeof(double) + 1);
    p.left = malloc(slices * sizeof(double) + 1);
    for (size_t i = 0; i < slices; i++) p.scale[i] = 1;
  }
  p.ended = malloc((size_t)E * sizeof(double) + 1);
  p.done = malloc((size_t)E * (size_t)p.L * sizeof(double) + 1);
  p.rpost = malloc((size_t)E * (size_t)p.W * sizeof(double) + 1);
  p.end = malloc((size_t)n * sizeof(double));
  time_pass(&p);
  for (int i = 0; t->refine && i < REFINE_PASSES; i++) {
    rescale(&p);
    time_pass(&p);
  }
  memcpy(times, p.end, (size_t)n * sizeof(double));
  free(p.up_e), free(p.down_e), free(p.order), free(p.scale), free(p.go), free(p.left);
  free(p.ended), free(p.done), free(p.rpost), free(p.end);
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
      double cap = t->pat_cap[p][e - lo], r = cap > 0 && rate[e - lo] > cap ? cap : rate[e - lo];
      double cost = ed->lat + bytes * wire / r;
      double end = dmax(times[ed->src] + ed->hop, times[ed->dst]) + cost;
      next[ed->src] = dmax(next[ed->src], end);
      next[ed->dst] = dmax(next[ed->dst], end);
    }
    memcpy(times, next, (size_t)n * sizeof *next);
  }
  free(next);
}

