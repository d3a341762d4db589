/* tree_pipe.c — NCCL's tree run forwarding on arrival (tree_pipe.h). */
#include "algos/comm/tree_pipe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"

int hs_tree_pipe_send_room(int window) { return 2 * (window > 0 ? window : 1); }

enum { IO_UP, IO_DOWN, IO_SEND };

/* What one posted message is: a receive from child j (up) or from the
 * parent (down) of slice k, or a send on out edge j (0: to the parent,
 * 1 + c: to child c). */
typedef struct {
  int kind, w, j, k;
} tree_io;

typedef struct {
  const hs_tree_role *t;
  int recv_up, recv_down;       /* receives from the children, from the parent */
  int send_up, send_down;       /* sends to the parent, to the children */
  int forwards_down;            /* the root of an allreduce: its sums go down as made */
  int up_done, down_done;       /* slices processed each way */
  int up_next[HS_TREE_MAX_DOWN]; /* the next slice to receive from child j */
  int down_next;                 /* the next slice to receive from the parent */
  unsigned char *got_up[HS_TREE_MAX_DOWN], *got_down; /* [k % window]: arrived */
  int sent[1 + HS_TREE_MAX_DOWN], acked[1 + HS_TREE_MAX_DOWN];
  char *slot[HS_TREE_MAX_DOWN]; /* window slices from child j (data runs) */
} tree_side;

/* NCCL's tree maximum as this rank's budget (an allreduce's: lowering.h,
 * hs_lower_tree_flow_rate): `base` a flow in the steady state, where all
 * `total` of its bounded sends move at once; a send shares base x total
 * with the bounded sends of the same tick (the lock-step tick its slice
 * belongs to, as sim/fast_tree.c counts them), so the pipeline's fill,
 * with few of them on the wire, is not held to the steady state's share. */
typedef struct {
  int on, net; /* net: the bound holds the flows between nodes (net_rate), else every flow (rate) */
  double base;
  int total;
  unsigned char bounded[HS_TREE_RUNS_MAX][1 + HS_TREE_MAX_DOWN]; /* [w][edge]: 0 the parent, 1 + c child c */
} tree_budget;

typedef struct {
  hs_lower_group *g;
  hs_lower_group tree[HS_TREE_RUNS_MAX]; /* g under a tag per tree: each tree's edges are connections of their own */
  tree_budget budget;
  hs_buf buf;
  hs_redop op;
  int avg_over;
  const hs_tree_run *run;
  int S, W, room;
  size_t most; /* elements of the largest slice */
  tree_side side[HS_TREE_RUNS_MAX];
  void **h; /* posted, and what each is */
  tree_io *io;
  int n, cap;
} tree_pipe;

static void slice_of(const tree_pipe *p, int w, int k, size_t *off, size_t *cnt) {
  const hs_tree_role *t = &p->run->role[w];
  hs_lower_part(t->count, (size_t)k, (size_t)p->S, off, cnt);
  *off += t->off;
}

static void *at(const tree_pipe *p, size_t off) { return p->buf.data ? (char *)p->buf.data + off * p->run->esize : NULL; }

static void track(tree_pipe *p, void *h, tree_io io) {
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 32;
    p->h = realloc(p->h, (size_t)p->cap * sizeof *p->h);
    p->io = realloc(p->io, (size_t)p->cap * sizeof *p->io);
  }
  p->h[p->n] = h;
  p->io[p->n++] = io;
}

static void post_recv(tree_pipe *p, int w, int kind, int j, int k) {
  tree_side *s = &p->side[w];
  size_t off, cnt;
  slice_of(p, w, k, &off, &cnt);
  int from = kind == IO_UP ? s->t->down[j] : s->t->up;
  void *dst = kind == IO_DOWN ? at(p, off) : s->slot[j] ? s->slot[j] + (size_t)(k % p->W) * p->most * p->run->esize : NULL;
  hs_lower_recv r = {from, dst, cnt * p->run->esize, 0, p->buf.dtype, p->op};
  track(p, p->g->post(&p->tree[w], NULL, &r), (tree_io){kind, w, j, k});
}

/* Bounded sends of this rank in tick x, every tree and way. */
static int budget_active(const tree_pipe *p, int x) {
  int n = 0;
  for (int w = 0; w < p->run->trees; w++) {
    const hs_tree_role *t = &p->run->role[w];
    int up = hs_lower_tree_first_tick(p->run, w, HS_TREE_SEND_UP), down = hs_lower_tree_first_tick(p->run, w, HS_TREE_SEND_DOWN);
    if (up >= 0 && x - up >= 0 && x - up < p->S) n += p->budget.bounded[w][0];
    if (down >= 0 && x - down >= 0 && x - down < p->S)
      for (int j = 0; j < t->n_down; j++) n += p->budget.bounded[w][1 + j];
  }
  return n;
}

static void post_send(tree_pipe *p, int w, int edge, int k) {
  tree_side *s = &p->side[w];
  size_t off, cnt;
  slice_of(p, w, k, &off, &cnt);
  hs_lower_send snd = {edge == 0 ? s->t->up : s->t->down[edge - 1], at(p, off), cnt * p->run->esize};
  s->sent[edge]++;
  hs_lower_group *conn = &p->tree[w];
  double kept = p->budget.net ? conn->net_rate : conn->rate;
  if (p->budget.on && p->budget.bounded[w][edge]) {
    int x = hs_lower_tree_first_tick(p->run, w, edge == 0 ? HS_TREE_SEND_UP : HS_TREE_SEND_DOWN) + k;
    int active = budget_active(p, x);
    double share = p->budget.base * p->budget.total / (active > 0 ? active : 1);
    if (p->budget.net) conn->net_rate = share;
    else conn->rate = share;
  }
  track(p, p->g->post(conn, &snd, NULL), (tree_io){IO_SEND, w, edge, k});
  if (p->budget.net) conn->net_rate = kept;
  else conn->rate = kept;
}

/* The budget of an allreduce's trees (tree_budget), from its group's
 * bound: net_rate between nodes, or rate on one node. */
static void budget_init(tree_pipe *p) {
  const hs_lower_group *g = p->g;
  const hs_tree_run *t = p->run;
  tree_budget *b = &p->budget;
  b->net = g->net_rate > 0;
  b->base = b->net ? g->net_rate : g->rate;
  b->on = t->mode == HS_TREE_BOTH && b->base > 0;
  for (int w = 0; b->on && w < t->trees; w++) {
    const hs_tree_role *r = &t->role[w];
    const tree_side *s = &p->side[w];
    if (s->send_up) b->bounded[w][0] = hs_lower_tree_bounded(g, r->up);
    for (int j = 0; (s->send_down || s->forwards_down) && j < r->n_down; j++)
      b->bounded[w][1 + j] = hs_lower_tree_bounded(g, r->down[j]);
    for (int j = 0; j <= r->n_down; j++) b->total += b->bounded[w][j];
  }
}

static int has_room(const tree_pipe *p, const tree_side *s, int edge) { return s->sent[edge] - s->acked[edge] < p->room; }

static int children_room(const tree_pipe *p, const tree_side *s) {
  for (int j = 0; j < s->t->n_down; j++)
    if (!has_room(p, s, 1 + j)) return 0;
  return 1;
}

/* Slice up_done upward: every child's is here and the parent's
 * connection (or, at an allreduce's root, every child's) has room. */
static int try_up(tree_pipe *p, int w) {
  tree_side *s = &p->side[w];
  int k = s->up_done;
  if (k >= p->S || !(p->run->mode & HS_TREE_UP)) return 0;
  for (int j = 0; s->recv_up && j < s->t->n_down; j++)
    if (!s->got_up[j][k % p->W]) return 0;
  if (s->send_up && !has_room(p, s, 0)) return 0;
  if (s->forwards_down && !children_room(p, s)) return 0;
  size_t off, cnt;
  slice_of(p, w, k, &off, &cnt);
  for (int j = 0; s->recv_up && j < s->t->n_down; j++) { /* the children's partial sums, in a fixed order */
    if (p->buf.data) {
      hs_lower_recv r = {0, at(p, off), cnt * p->run->esize, 1, p->buf.dtype, p->op};
      hs_lower_deliver(&r, s->slot[j] + (size_t)(k % p->W) * p->most * p->run->esize);
    }
    s->got_up[j][k % p->W] = 0;
  }
  if (s->t->up < 0 && p->avg_over > 0 && p->buf.data) /* the root holds the whole sum */
    hs_k_divide((hs_k_type)p->buf.dtype, at(p, off), cnt, p->avg_over);
  if (s->send_up) post_send(p, w, 0, k);
  if (s->forwards_down) {
    for (int j = 0; j < s->t->n_down; j++) post_send(p, w, 1 + j, k);
    s->down_done = k + 1;
  }
  s->up_done = k + 1;
  for (int j = 0; s->recv_up && j < s->t->n_down; j++)
    if (k + p->W < p->S) post_recv(p, w, IO_UP, j, s->up_next[j]++);
  return 1;
}

/* Slice down_done downward: the parent's is here (the root of a
 * broadcast has it) and every child's connection has room. */
static int try_down(tree_pipe *p, int w) {
  tree_side *s = &p->side[w];
  int k = s->down_done;
  if (k >= p->S || !(p->run->mode & HS_TREE_DOWN) || s->forwards_down) return 0;
  if (s->recv_down && !s->got_down[k % p->W]) return 0;
  if (s->send_down && !children_room(p, s)) return 0;
  for (int j = 0; s->send_down && j < s->t->n_down; j++) post_send(p, w, 1 + j, k);
  if (s->recv_down) {
    s->got_down[k % p->W] = 0;
    if (k + p->W < p->S) post_recv(p, w, IO_DOWN, 0, s->down_next++);
  }
  s->down_done = k + 1;
  return 1;
}

/* Every slice moved every way (checked when nothing is left posted). */
static int finished(const tree_pipe *p) {
  for (int w = 0; w < p->run->trees; w++) {
    const tree_side *s = &p->side[w];
    if ((p->run->mode & HS_TREE_UP) && s->up_done < p->S) return 0;
    if ((p->run->mode & HS_TREE_DOWN) && s->down_done < p->S) return 0;
  }
  return 1;
}

void hs_tree_pipe_run(hs_lower_group *g, hs_buf buf, hs_redop op, int avg_over, const hs_tree_run *t) {
  tree_pipe p = {.g = g, .buf = buf, .op = op, .avg_over = avg_over, .run = t, .S = t->slices, .W = t->window};
  p.room = hs_tree_pipe_send_room(p.W);
  p.most = (t->role[0].count + (size_t)p.S - 1) / (size_t)p.S;
  for (int w = 0; w < t->trees; w++) {
    tree_side *s = &p.side[w];
    s->t = &t->role[w];
    p.tree[w] = *g;
    if ((size_t)snprintf(p.tree[w].tag, sizeof p.tree[w].tag, "%s/t%d", g->tag, w) >= sizeof p.tree[w].tag) abort();
    int up = (t->mode & HS_TREE_UP) != 0, down = (t->mode & HS_TREE_DOWN) != 0;
    s->recv_up = up && s->t->n_down > 0;
    s->send_up = up && s->t->up >= 0;
    s->recv_down = down && s->t->up >= 0;
    s->send_down = down && s->t->n_down > 0;
    s->forwards_down = up && down && s->t->up < 0;
    if (!s->recv_up && !s->send_up && !s->recv_down && !s->send_down) { /* alone in the tree */
      if (s->t->up < 0 && avg_over > 0 && up && buf.data) hs_k_divide((hs_k_type)buf.dtype, at(&p, s->t->off), s->t->count, avg_over);
      s->up_done = s->down_done = p.S;
      continue;
    }
    for (int j = 0; s->recv_up && j < s->t->n_down; j++) {
      s->got_up[j] = calloc((size_t)p.W, 1);
      s->slot[j] = buf.data ? malloc((size_t)p.W * p.most * t->esize + 1) : NULL;
      while (s->up_next[j] < p.S && s->up_next[j] < p.W) post_recv(&p, w, IO_UP, j, s->up_next[j]++);
    }
    if (s->recv_down) {
      s->got_down = calloc((size_t)p.W, 1);
      while (s->down_next < p.S && s->down_next < p.W) post_recv(&p, w, IO_DOWN, 0, s->down_next++);
    }
  }
  budget_init(&p);
  for (;;) {
    for (int moved = 1; moved;) {
      moved = 0;
      for (int w = 0; w < t->trees; w++) {
        while (try_up(&p, w)) moved = 1;
        while (try_down(&p, w)) moved = 1;
      }
    }
    if (p.n == 0) break; /* nothing left posted: every slice has moved (finished) */
    int i = g->complete_any(g, p.h, p.n);
    tree_io io = p.io[i];
    p.h[i] = p.h[--p.n];
    p.io[i] = p.io[p.n];
    tree_side *s = &p.side[io.w];
    if (io.kind == IO_UP) s->got_up[io.j][io.k % p.W] = 1;
    else if (io.kind == IO_DOWN) s->got_down[io.k % p.W] = 1;
    else s->acked[io.j]++;
  }
  if (!finished(&p)) { /* cannot happen: a slice waits only on something posted */
    fprintf(stderr, "hearsay: internal error: a pipelined tree stopped with slices left\n");
    abort();
  }
  for (int w = 0; w < t->trees; w++) {
    tree_side *s = &p.side[w];
    for (int j = 0; j < HS_TREE_MAX_DOWN; j++) free(s->got_up[j]), free(s->slot[j]);
    free(s->got_down);
  }
  free(p.h);
  free(p.io);
}
