/* fast_chain.c — a pipelined chain timed member by member (fast_chain.h). */
#include "sim/fast_chain.h"

#include <math.h>
#include <stdlib.h>

#include "algos/comm/tree_pipe.h"

struct hs_fast_chain {
  const hs_fast_tree *t;
  double wire;
  int n, S;
  int *order;      /* depth -> position */
  int *out_edge;   /* position -> its edge to the next position (-1: the tail) */
  double *start;   /* position -> its start (NAN: not arrived yet) */
  double *finish;  /* depth -> finish, for depth < next */
  double *in_done; /* per slice: when it is done at the position at depth `next` */
  int next;        /* positions timed: depths 0 .. next - 1 */
};

static inline double dmax(double a, double b) { return a > b ? a : b; }

hs_fast_chain *hs_fast_chain_new(const hs_fast_tree *t, double wire) {
  const hs_tree_run *run = &t->run;
  int n = t->n, S = run->slices;
  if (run->trees != 1 || run->mode != HS_TREE_DOWN || run->window <= 0 || n < 2 || S < 1 || S > run->window ||
      S > hs_tree_pipe_send_room(run->window))
    return NULL;
  hs_fast_chain *c = calloc(1, sizeof *c);
  c->t = t;
  c->wire = wire;
  c->n = n;
  c->S = S;
  c->order = malloc((size_t)n * sizeof(int));
  c->out_edge = malloc((size_t)n * sizeof(int));
  c->start = malloc((size_t)n * sizeof(double));
  c->finish = malloc((size_t)n * sizeof(double));
  c->in_done = malloc((size_t)S * sizeof(double));
  int ok = 1;
  for (int d = 0; d < n; d++) c->order[d] = -1;
  for (int pos = 0; pos < n; pos++) {
    const hs_tree_role *r = &t->role[pos];
    c->out_edge[pos] = -1;
    c->start[pos] = NAN;
    if (r->n_down > 1 || r->depth < 0 || r->depth >= n || c->order[r->depth] >= 0) ok = 0;
    else c->order[r->depth] = pos;
  }
  for (int e = 0; ok && e < t->n_edges; e++) {
    const hs_fast_tree_edge *ed = &t->edge[e];
    if (c->out_edge[ed->src] >= 0 || t->role[ed->dst].up != ed->src) ok = 0;
    else c->out_edge[ed->src] = e;
  }
  /* a chain: each place's position hands to the next place's */
  for (int d = 0; ok && d < n; d++) {
    int e = c->out_edge[c->order[d]];
    ok = d == n - 1 ? e < 0 : e >= 0 && t->edge[e].dst == c->order[d + 1];
  }
  if (!ok) {
    hs_fast_chain_free(c);
    return NULL;
  }
  return c;
}

/* Times the position at depth `next`: its slices arrive (in_done), it
 * forwards each one to the next position, which has posted (its start). */
static void time_next(hs_fast_chain *c) {
  const hs_fast_tree *t = c->t;
  int d = c->next, pos = c->order[d], S = c->S;
  double start = c->start[pos], end = start;
  for (int k = 0; d > 0 && k < S; k++) end = dmax(end, c->in_done[k]);
  int e = c->out_edge[pos];
  if (e >= 0) {
    const hs_fast_tree_edge *ed = &t->edge[e];
    double posted = c->start[ed->dst], ended = -INFINITY;
    for (int k = 0; k < S; k++) {
      double at = d > 0 ? dmax(start, c->in_done[k]) : start;
      int pat = t->tick_pat[ed->off + k];
      double rate = t->pat_rate[pat][e - t->pat_lo[pat]];
      if (ed->cap > 0 && rate > ed->cap) rate = ed->cap; /* as fast_tree.c's move() */
      double go = dmax(dmax(at + ed->hop, ended), posted);
      ended = go + t->slice_bytes[ed->w * S + k] * c->wire / rate;
      c->in_done[k] = ended + ed->lat; /* for the next position */
      end = dmax(end, c->in_done[k]);
    }
  }
  c->finish[d] = end;
  c->next++;
}

int hs_fast_chain_start(hs_fast_chain *c, int pos, double start) {
  c->start[pos] = start;
  /* the position at `next` is timed once it and the one it sends to have started */
  while (c->next < c->n && !isnan(c->start[c->order[c->next]]) &&
         (c->next == c->n - 1 || !isnan(c->start[c->order[c->next + 1]])))
    time_next(c);
  return c->next;
}

int hs_fast_chain_position(const hs_fast_chain *c, int depth) { return c->order[depth]; }

double hs_fast_chain_finish(const hs_fast_chain *c, int depth) { return c->finish[depth]; }

void hs_fast_chain_free(hs_fast_chain *c) {
  if (!c) return;
  free(c->order);
  free(c->out_edge);
  free(c->start);
  free(c->finish);
  free(c->in_done);
  free(c);
}
