/* lowering.c — collectives lowered onto point-to-point messages, step by step.
 *
 * How a message-moving backend turns a collective into traffic, once for
 * every such backend; which schedule (ring or hierarchical) is the
 * selector's choice (select.h), passed in as algo.
 * In simulation every step is a real SimGrid message, so contention,
 * heterogeneous links and late arrivals shape the result without any
 * formula; over MPI every step is an MPI message (delayed by the link
 * emulator when it is on), so both backends move the same bytes between
 * the same ranks in the same order and reduce in the same order:
 *   ring allreduce      = ring reduce-scatter + ring allgather, 2(n-1) steps
 *   reduce-scatter,
 *   allgather           = n-1 ring steps
 *   broadcast, reduce   = NCCL's pipelined chain from the root, n - 1 hops
 *                         and the vector once over every link (binomial
 *                         trees, ceil(log2 n) rounds, in the hierarchical form
 *                         and under recursive_doubling: whole vectors, as
 *                         MPICH's and gloo's broadcast)
 *   alltoall            = one round of n-1 sends and receives (NCCL's grouped form)
 *   barrier             = dissemination, ceil(log2 n) rounds of empty messages
 *   hierarchical        = node reduce-scatter, allreduce across nodes on one
 *                         chunk per GPU (rails), node allgather; leaders
 *                         (reduce, allreduce, broadcast) when nodes differ.
 * Numeric results: a chunk is reduced once, by its owner, in ring order, and
 * then copied, so every rank ends with the same bits. AVG is a SUM followed
 * by one exact division by the group size. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "algos/comm/lowering.h"
#include "algos/comm/dtree.h"
#include "algos/comm/tree_pipe.h"

typedef struct {
  size_t off, cnt;
} chunk;

static size_t esz(hs_buf b) { return hs_dtype_size(b.dtype); }
static void *at(hs_buf b, size_t off) { return b.data ? (char *)b.data + off * esz(b) : NULL; }
static int mod(int a, int n) { return ((a % n) + n) % n; }

static void split_even(size_t count, int n, chunk *ch) {
  size_t off = 0;
  for (int i = 0; i < n; i++) {
    ch[i].off = off;
    ch[i].cnt = count / n + ((size_t)i < count % n);
    off += ch[i].cnt;
  }
}

static void split_blocks(size_t block, int n, chunk *ch) {
  for (int i = 0; i < n; i++) {
    ch[i].off = (size_t)i * block;
    ch[i].cnt = block;
  }
}

static void send_recv(hs_lower_group *g, int to, hs_buf b, chunk sc, int from, chunk rc, int reduce, hs_redop op) {
  hs_lower_send s = {to, at(b, sc.off), sc.cnt * esz(b)};
  hs_lower_recv r = {from, at(b, rc.off), rc.cnt * esz(b), reduce, b.dtype, op};
  g->exchange(g, &s, 1, &r, 1);
}

static void send_to(hs_lower_group *g, int to, hs_buf b) {
  hs_lower_send s = {to, b.data, hs_buf_bytes(b)};
  g->exchange(g, &s, 1, NULL, 0);
}

static void recv_from(hs_lower_group *g, int from, hs_buf b, int reduce, hs_redop op) {
  hs_lower_recv r = {from, b.data, hs_buf_bytes(b), reduce, b.dtype, op};
  g->exchange(g, NULL, 0, &r, 1);
}

static void copy_buf(hs_buf dst, hs_buf src) {
  if (dst.data && src.data && dst.data != src.data) memcpy(dst.data, src.data, hs_buf_bytes(src));
}

static void divide(hs_buf b, size_t off, size_t cnt, int n) {
  if (b.data) hs_k_divide((hs_k_type)b.dtype, at(b, off), cnt, n);
}

/* A scratch buffer shaped like b (virtual if b is). */
static hs_buf scratch(hs_buf like, size_t count) {
  hs_buf s = like;
  s.count = count;
  s.data = like.data ? malloc(count * esz(like) + 1) : NULL;
  return s;
}

/* ---- the ring ------------------------------------------------------------------------
 * A ring allreduce is 2(n-1) global steps: at step s, position r sends
 * chunk (r - 1 - s) mod n to r + 1 and receives chunk (r - 2 - s) from
 * r - 1, reducing it into its own for s < n - 1 (reduce-scatter) and
 * copying it after (allgather). Reduce-scatter and allgather alone run
 * half of those steps.
 *
 * Pipelined (g->window > 0 and the backend can post and complete
 * separately), as NCCL runs it: every chunk is cut into S slices; a rank
 * forwards a slice as soon as it has arrived (and been reduced), and a
 * receiver holds `window` receives posted ahead: the credits a connection
 * has, NCCL's NCCL_STEPS buffers. Nothing waits for the slowest hop of a
 * step, so a slice pays the latency of the hops it crosses, not that of
 * the slowest hop at every step. Otherwise (window 0, or the MPI
 * transport, which runs rounds) each step is one lock-step exchange, as an
 * MPI library's Sendrecv ring. Either way each element is reduced in the
 * same ring order: the bits do not depend on the slicing. */

static int ring_chunk(int r, int s, int n) { return mod(r - 1 - s, n); }

void hs_lower_use_protocol(hs_lower_group *g, const hs_proto_cost *c, double slice) {
  g->wire = c->wire;
  g->switch_wire = c->switch_wire;
  g->hop_intra = c->hop_intra;
  g->hop_net = c->hop_net;
  g->rate = c->rate;
  g->net_rate = 0;
  g->tree_bus = c->tree_bus;
  g->tree_shrink = c->tree_shrink && !(slice > 0); /* a slice the scenario sets is kept */
  g->slice = (size_t)(slice > 0 ? slice : c->slice);
  g->own_flows = c->host;
  if (c->window > 0) { /* a host library's one connection a pair, its own depth */
    g->window = c->window;
    g->channels = 1;
  }
}

double hs_lower_hop(const hs_lower_group *g, int from, int to) {
  int gpn = g->gpus_per_node > 0 ? g->gpus_per_node : 1;
  return g->members[from] / gpn == g->members[to] / gpn ? g->hop_intra : g->hop_net;
}

hs_ring_pipeline hs_lower_ring_pipeline(size_t max_bytes, size_t min_count, size_t slice, int window) {
  hs_ring_pipeline p = {1, window > 0 ? window : 0};
  if (p.window == 0 || slice == 0) return p;
  size_t w = (size_t)p.window, slices = (max_bytes + slice - 1) / slice;
  if (slices > w) slices = (slices + w - 1) / w * w;
  if (slices > min_count) slices = min_count;
  if (slices > (1u << 24)) slices = 1u << 24;
  p.slices = slices ? (int)slices : 1;
  return p;
}

int hs_lower_ring_units(hs_ring_pipeline p) {
  return p.window > 0 && p.slices > p.window ? (p.slices + p.window - 1) / p.window : 1;
}

int hs_lower_ring_credit_lag(hs_ring_pipeline p) {
  return p.window <= 0 || p.slices >= p.window ? 1 : (p.window + p.slices - 1) / p.slices;
}

static hs_ring_pipeline ring_pipeline(const hs_lower_group *g, const chunk *ch, size_t esize) {
  size_t hi = 0, lo = SIZE_MAX;
  for (int i = 0; i < g->size; i++) {
    hi = ch[i].cnt > hi ? ch[i].cnt : hi;
    lo = ch[i].cnt < lo ? ch[i].cnt : lo;
  }
  return hs_lower_ring_pipeline(hi * esize, lo, g->slice, hs_lower_ring_window(g->window, g->channels));
}

/* Piece k of S of chunk c. */
void hs_lower_part(size_t count, size_t k, size_t parts, size_t *off, size_t *cnt) {
  size_t a = count / parts * k + count % parts * k / parts;
  size_t b = count / parts * (k + 1) + count % parts * (k + 1) / parts;
  *off = a;
  *cnt = b - a;
}

static chunk piece(chunk c, int k, int S) {
  size_t off, cnt;
  hs_lower_part(c.cnt, (size_t)k, (size_t)S, &off, &cnt);
  return (chunk){c.off + off, cnt};
}

typedef struct {
  hs_lower_group *g;
  hs_buf work;
  const chunk *ch;
  int first;
  hs_ring_pipeline p;
  int G; /* units per step */
  hs_redop op;
} ring_run;

/* Unit u of a step's chunk c: the slices [u W, (u + 1) W) of its S, or
 * all S when they fit the window (hs_lower_ring_units). */
static chunk unit_piece(const ring_run *x, chunk c, int u) {
  int S = x->p.slices, W = x->p.window;
  int lo = x->G > 1 ? u * W : 0, hi = x->G > 1 && (u + 1) * W < S ? (u + 1) * W : S;
  size_t a, b, cnt;
  hs_lower_part(c.cnt, (size_t)lo, (size_t)S, &a, &cnt);
  hs_lower_part(c.cnt, (size_t)hi - 1, (size_t)S, &b, &cnt);
  return (chunk){c.off + a, b + cnt - a};
}

/* Unit i of the run (step first + i / G, unit i % G), as a send or a receive. */
static void *post_unit(const ring_run *x, long i, int recv) {
  int n = x->g->size, r = x->g->me, s = x->first + (int)(i / x->G), u = (int)(i % x->G);
  if (!recv) {
    chunk c = unit_piece(x, x->ch[ring_chunk(r, s, n)], u);
    hs_lower_send snd = {mod(r + 1, n), at(x->work, c.off), c.cnt * esz(x->work)};
    return x->g->post(x->g, &snd, NULL);
  }
  chunk c = unit_piece(x, x->ch[ring_chunk(r - 1, s, n)], u);
  hs_lower_recv rcv = {mod(r - 1, n), at(x->work, c.off), c.cnt * esz(x->work), s < n - 1, x->work.dtype, x->op};
  return x->g->post(x->g, NULL, &rcv);
}

/* One message per unit, not per slice: the slices of a unit travel side
 * by side and arrive together, so a unit is what a connection carries at
 * once, and a link shared by several connections is shared between them,
 * one message each, whatever their slicing (real NICs arbitrate between
 * connections, queue pairs, not between the slices they carry). The
 * receiver holds the units covering `window` slices posted ahead: one
 * when a step fills the window, else the credit lag's worth of steps. */
static void ring_pipelined(const ring_run *x, int steps, int avg_over) {
  hs_lower_group *g = x->g;
  int n = g->size, G = x->G, ahead = hs_lower_ring_credit_lag(x->p);
  long total = (long)steps * G;
  void **recv = malloc((size_t)total * sizeof *recv), **send = malloc((size_t)total * sizeof *send);
  for (long i = 0; i < total && i < ahead; i++) recv[i] = post_unit(x, i, 1);
  for (long i = 0; i < total && i < G; i++) send[i] = post_unit(x, i, 0); /* the first step's data is here */
  for (long i = 0; i < total; i++) {
    g->complete(g, recv[i]);
    int s = x->first + (int)(i / G);
    if (avg_over > 0 && s == n - 2) { /* the unit just completed is my own chunk's, reduced over all */
      chunk c = unit_piece(x, x->ch[g->me], (int)(i % G));
      divide(x->work, c.off, c.cnt, avg_over);
    }
    if (i + ahead < total) recv[i + ahead] = post_unit(x, i + ahead, 1);
    if (i + G < total) send[i + G] = post_unit(x, i + G, 0); /* forwards what just arrived */
  }
  for (long i = 0; i < total; i++) g->complete(g, send[i]);
  free(recv);
  free(send);
}

/* Global steps [first, first + steps) of the ring over work cut into ch,
 * pipelined as p; bytes: each chunk's size, when known (else computed);
 * divides my own chunk by avg_over (when > 0) once it is fully reduced. */
static void ring_steps_as(hs_lower_group *g, hs_buf work, const chunk *ch, const size_t *bytes, hs_ring_pipeline p,
                          int first, int steps, hs_redop op, int avg_over) {
  int n = g->size, r = g->me;
  if (g->ring) { /* timed at once; timing-only, so nothing to divide */
    size_t *own = NULL;
    if (!bytes) {
      bytes = own = malloc((size_t)n * sizeof *own);
      for (int i = 0; i < n; i++) own[i] = ch[i].cnt * esz(work);
    }
    g->ring(g, first, steps, bytes, p);
    free(own);
    return;
  }
  if (p.window > 0 && g->post && g->complete) {
    ring_run x = {g, work, ch, first, p, hs_lower_ring_units(p), op};
    ring_pipelined(&x, steps, avg_over);
    return;
  }
  for (int s = first; s < first + steps; s++) {
    send_recv(g, mod(r + 1, n), work, ch[ring_chunk(r, s, n)], mod(r - 1, n), ch[ring_chunk(r - 1, s, n)], s < n - 1,
              op);
    if (avg_over > 0 && s == n - 2) divide(work, ch[r].off, ch[r].cnt, avg_over);
  }
}

static void ring_steps(hs_lower_group *g, hs_buf work, const chunk *ch, int first, int steps, hs_redop op,
                       int avg_over) {
  ring_steps_as(g, work, ch, NULL, ring_pipeline(g, ch, esz(work)), first, steps, op, avg_over);
}

/* After it, rank r holds chunk r reduced over the whole group. */
static void ring_rs_phase(hs_lower_group *g, hs_buf work, const chunk *ch, hs_redop op) {
  ring_steps(g, work, ch, 0, g->size - 1, op, 0);
}

/* Starting from chunk r on rank r, every rank ends with every chunk. */
static void ring_ag_phase(hs_lower_group *g, hs_buf work, const chunk *ch) {
  ring_steps(g, work, ch, g->size - 1, g->size - 1, HS_SUM, 0);
}

/* The even split of a ring allreduce over the communicator, its chunks'
 * sizes and pipeline: the same for every member, so computed once and
 * kept in the communicator's cache (O(n) each per member, O(n^2) in all,
 * was most of fast fidelity's cost at 16 384 GPUs). */
typedef struct {
  size_t count, esize, slice;
  int n, window;
  chunk *ch;
  size_t *bytes;
  hs_ring_pipeline pipe;
} ring_shape;
static const ring_shape *shared_ring_shape(const hs_lower_group *g, size_t count, size_t esize);

/* In-place ring allreduce of buf with SUM/MIN/MAX; divides by `avg_over`
 * (when > 0) on the owned chunk before the allgather. */
static void ring_allreduce_inplace(hs_lower_group *g, hs_buf buf, hs_redop op, int avg_over) {
  int n = g->size;
  if (n == 1) {
    if (avg_over > 0) divide(buf, 0, buf.count, avg_over);
    return;
  }
  /* one pipeline: allgather slices follow on arrival */
  /* Shared only with a backend that times the ring at once (g->ring),
   * which is done with it before any other member runs: a member moving
   * messages would still be reading it while another, already at its
   * next collective, replaced it. */
  const ring_shape *sh = g->cache && g->ring ? shared_ring_shape(g, buf.count, esz(buf)) : NULL;
  if (sh) {
    ring_steps_as(g, buf, sh->ch, sh->bytes, sh->pipe, 0, 2 * (n - 1), op, avg_over);
    return;
  }
  chunk *ch = malloc(n * sizeof *ch);
  split_even(buf.count, n, ch);
  ring_steps(g, buf, ch, 0, 2 * (n - 1), op, avg_over);
  free(ch);
}

/* Binomial tree broadcast of buf from root (group index). */
static void tree_broadcast(hs_lower_group *g, hs_buf buf, int root) {
  int n = g->size, vr = mod(g->me - root, n);
  for (int mask = 1; mask < n; mask <<= 1) {
    if (vr < mask) {
      if (vr + mask < n) send_to(g, mod(vr + mask + root, n), buf);
    } else if (vr < 2 * mask) {
      recv_from(g, mod(vr - mask + root, n), buf, 0, HS_SUM);
    }
  }
}

/* Binomial tree reduction into acc at root; acc is clobbered elsewhere. */
static void tree_reduce(hs_lower_group *g, hs_buf acc, hs_redop op, int root) {
  int n = g->size, vr = mod(g->me - root, n);
  for (int mask = 1; mask < n; mask <<= 1) {
    if (vr & mask) {
      send_to(g, mod(vr - mask + root, n), acc);
      break;
    }
    if (vr + mask < n) recv_from(g, mod(vr + mask + root, n), acc, 1, op);
  }
}

/* ---- recursive halving and doubling ---------------------------------------------
 * On p = 2^k members: recursive halving (reduce-scatter: k exchanges of
 * halving windows, partner v ^ d for d = p/2 .. 1) then recursive doubling
 * (allgather: the windows grow back, d = 1 .. p/2), Rabenseifner's
 * allreduce; or k exchanges of the whole vector (recursive doubling).
 * Other sizes fold first, as MPICH does: with r = n - p, each even member
 * below 2r hands its vector to the odd one after it and waits; the p that
 * remain run the core; the odd ones hand the result back. */

typedef struct {
  int p, r;  /* the power of two, the members folded in */
  int v;     /* my index among the p, or -1 while folded out */
} fold;

static int fold_real(const fold *f, int v) { return v < f->r ? 2 * v + 1 : v + f->r; }

static fold fold_in(hs_lower_group *g, hs_buf buf, hs_redop op) {
  fold f = {1, 0, -1};
  while (2 * f.p <= g->size) f.p *= 2;
  f.r = g->size - f.p;
  int me = g->me;
  if (me < 2 * f.r) {
    if (me % 2 == 0) send_to(g, me + 1, buf);
    else recv_from(g, me - 1, buf, 1, op);
    f.v = me % 2 ? me / 2 : -1;
  } else {
    f.v = me - f.r;
    /* An empty round where the others fold: every member of the core then
     * runs its k-th exchange as its (k+1)-th round, which the simulator's
     * fast fidelity relies on to tell which flows run together. */
    if (f.r > 0) g->exchange(g, NULL, 0, NULL, 0);
  }
  return f;
}

static void fold_out(hs_lower_group *g, hs_buf buf, const fold *f) {
  int me = g->me;
  if (me >= 2 * f->r) {
    if (f->r > 0) g->exchange(g, NULL, 0, NULL, 0); /* the fold's round, as above */
    return;
  }
  if (me % 2) send_to(g, me - 1, buf);
  else recv_from(g, me + 1, buf, 0, HS_SUM);
}

/* Where chunk i of count elements split evenly into p starts (split_even's
 * chunks, in O(1): a member needs only its windows, not all p chunks). */
static size_t even_off(size_t count, int p, int i) {
  size_t q = count / (size_t)p, rem = count % (size_t)p;
  return (size_t)i * q + ((size_t)i < rem ? (size_t)i : rem);
}

/* Elements of chunks [lo, hi) of that split. */
static chunk even_span(size_t count, int p, int lo, int hi) {
  size_t a = even_off(count, p, lo);
  return (chunk){a, even_off(count, p, hi) - a};
}

static void halving_doubling_allreduce(hs_lower_group *g, hs_buf buf, hs_redop op, int avg_over) {
  fold f = fold_in(g, buf, op);
  size_t count = buf.count;
  if (f.v >= 0 && f.p > 1) {
    int lo = 0, hi = f.p;
    for (int d = f.p / 2; d >= 1; d /= 2) { /* reduce-scatter: keep my half, reduce the partner's share of it */
      int partner = fold_real(&f, f.v ^ d), mid = lo + (hi - lo) / 2;
      int lower = (f.v & d) == 0;
      chunk keep = lower ? even_span(count, f.p, lo, mid) : even_span(count, f.p, mid, hi);
      chunk give = lower ? even_span(count, f.p, mid, hi) : even_span(count, f.p, lo, mid);
      send_recv(g, partner, buf, give, partner, keep, 1, op);
      if (lower) hi = mid;
      else lo = mid;
    }
    chunk mine = even_span(count, f.p, f.v, f.v + 1);
    if (avg_over > 0) divide(buf, mine.off, mine.cnt, avg_over);
    for (int d = 1; d < f.p; d *= 2) { /* allgather: the windows grow back */
      int partner = fold_real(&f, f.v ^ d), size = hi - lo;
      int lower = (f.v & d) == 0;
      int plo = lower ? lo + size : lo - size;
      send_recv(g, partner, buf, even_span(count, f.p, lo, hi), partner, even_span(count, f.p, plo, plo + size), 0,
                HS_SUM);
      if (!lower) lo = plo;
      hi = lo + 2 * size;
    }
  } else if (f.v >= 0 && avg_over > 0) {
    divide(buf, 0, buf.count, avg_over);
  }
  fold_out(g, buf, &f);
}

static void recursive_doubling_allreduce(hs_lower_group *g, hs_buf buf, hs_redop op, int avg_over) {
  fold f = fold_in(g, buf, op);
  if (f.v >= 0) {
    chunk all = {0, buf.count};
    for (int d = 1; d < f.p; d *= 2) {
      int partner = fold_real(&f, f.v ^ d);
      /* mine op theirs on both sides: the same two partial sums, and
       * + / min / max commute exactly, so both hold the same bits */
      send_recv(g, partner, buf, all, partner, all, 1, op);
    }
    if (avg_over > 0) divide(buf, 0, buf.count, avg_over);
  }
  fold_out(g, buf, &f);
}

/* Reduce-scatter by recursive halving and allgather by recursive doubling
 * (MPICH's for commutative operations and power-of-two sizes, folded the
 * same way otherwise): the allreduce's two halves on the n blocks of the
 * result. The p members of the core hold parts of the vector: one block
 * each, but those a folded member joined hold two, its own and the folded
 * one's, so every window is a run of whole blocks. */

/* The first block of part v (part p: the end). */
static size_t part_block(const fold *f, int v) { return v < f->r ? 2 * (size_t)v : (size_t)v + (size_t)f->r; }

/* Elements of parts [lo, hi). */
static chunk part_span(const fold *f, size_t block, int lo, int hi) {
  size_t a = part_block(f, lo) * block;
  return (chunk){a, part_block(f, hi) * block - a};
}

/* work: the n blocks of `block` elements; ends with block me reduced. */
static void halving_reduce_scatter(hs_lower_group *g, hs_buf work, size_t block, hs_redop op) {
  fold f = fold_in(g, work, op);
  int me = g->me;
  if (f.v >= 0) {
    int lo = 0, hi = f.p;
    for (int d = f.p / 2; d >= 1; d /= 2) { /* keep my half of the window, reduce the partner's share of it */
      int partner = fold_real(&f, f.v ^ d), mid = lo + (hi - lo) / 2;
      int lower = (f.v & d) == 0;
      chunk keep = lower ? part_span(&f, block, lo, mid) : part_span(&f, block, mid, hi);
      chunk give = lower ? part_span(&f, block, mid, hi) : part_span(&f, block, lo, mid);
      send_recv(g, partner, work, give, partner, keep, 1, op);
      if (lower) hi = mid;
      else lo = mid;
    }
  }
  /* the folded members' blocks back from the member they joined (an empty
   * round for the others, as the fold's) */
  if (me < 2 * f.r) {
    chunk c = {(size_t)(me % 2 ? me - 1 : me) * block, block};
    hs_buf b = hs_buf_slice(work, c.off, c.cnt);
    if (me % 2) send_to(g, me - 1, b);
    else recv_from(g, me + 1, b, 0, HS_SUM);
  } else if (f.r > 0) {
    g->exchange(g, NULL, 0, NULL, 0);
  }
}

/* r: the n blocks of `block` elements, block me already mine; ends with
 * every block. */
static void doubling_allgather(hs_lower_group *g, hs_buf r, size_t block) {
  fold f = {1, 0, -1};
  while (2 * f.p <= g->size) f.p *= 2;
  f.r = g->size - f.p;
  int me = g->me;
  if (me < 2 * f.r) { /* the folded member's block to the member it joins */
    hs_buf b = hs_buf_slice(r, (size_t)(me % 2 ? me - 1 : me) * block, block);
    if (me % 2 == 0) send_to(g, me + 1, b);
    else recv_from(g, me - 1, b, 0, HS_SUM);
    f.v = me % 2 ? me / 2 : -1;
  } else {
    f.v = me - f.r;
    if (f.r > 0) g->exchange(g, NULL, 0, NULL, 0); /* the fold's round, as fold_in's */
  }
  if (f.v >= 0) {
    int lo = f.v, hi = f.v + 1;
    for (int d = 1; d < f.p; d *= 2) { /* the windows grow */
      int partner = fold_real(&f, f.v ^ d), size = hi - lo;
      int lower = (f.v & d) == 0;
      int plo = lower ? lo + size : lo - size;
      send_recv(g, partner, r, part_span(&f, block, lo, hi), partner, part_span(&f, block, plo, plo + size), 0,
                HS_SUM);
      if (!lower) lo = plo;
      hi = lo + 2 * size;
    }
  }
  fold_out(g, r, &f);
}

/* ---- hierarchy: which members share a node ----------------------------------- */

typedef struct {
  hs_lower_group node;    /* members on my node */
  hs_lower_group rail;    /* members with my local index, one per node (uniform only) */
  hs_lower_group leaders; /* one member per node */
  int n_nodes;
  int uniform; /* every node holds the same number of members */
  int *buf;
} hierarchy;

static int node_of(const hs_lower_group *g, int idx) { return g->members[idx] / g->gpus_per_node; }

/* Where each node of g starts in node order (first appearance), as an
 * index into `order`, which lists the group's members node after node in
 * communicator order. Returns the number of nodes; *my_node gets mine. */
static int node_order(const hs_lower_group *g, int *order, int *node_start, int *my_node) {
  int n = g->size, max_node = 0;
  for (int i = 0; i < n; i++) max_node = node_of(g, i) > max_node ? node_of(g, i) : max_node;
  int *index = malloc(((size_t)max_node + 1) * sizeof(int)), *count = calloc((size_t)n + 1, sizeof(int));
  for (int i = 0; i <= max_node; i++) index[i] = -1;
  int nodes = 0;
  for (int i = 0; i < n; i++) {
    int *x = &index[node_of(g, i)];
    if (*x < 0) *x = nodes++;
    count[*x]++;
  }
  node_start[0] = 0;
  for (int k = 0; k < nodes; k++) node_start[k + 1] = node_start[k] + count[k];
  memset(count, 0, (size_t)nodes * sizeof(int));
  for (int i = 0; i < n; i++) {
    int k = index[node_of(g, i)];
    order[node_start[k] + count[k]++] = i;
  }
  *my_node = index[node_of(g, g->me)];
  free(index);
  free(count);
  return nodes;
}

int hs_lower_node_members(const int *members, int size, int me, int gpus_per_node) {
  int gpn = gpus_per_node > 0 ? gpus_per_node : 1, node = members[me] / gpn, n = 1;
  for (int i = me - 1; i >= 0 && members[i] / gpn == node; i--) n++;
  for (int i = me + 1; i < size && members[i] / gpn == node; i++) n++;
  return n;
}

static void derive(hs_lower_group *out, const hs_lower_group *parent, const char *kind, int id, int *members, int size, int me) {
  /* Tags nest one level ("c3/n5"); a longer one would be a bug here. */
  if ((size_t)snprintf(out->tag, sizeof out->tag, "%s/%s%d", parent->tag, kind, id) >= sizeof out->tag) abort();
  out->members = members;
  out->size = size;
  out->me = me;
  out->gpus_per_node = parent->gpus_per_node;
  out->tree_heads = parent->tree_heads;
  out->exchange = parent->exchange;
  out->ring = parent->ring;
  out->tree = parent->tree;
  out->post = parent->post;
  out->complete = parent->complete;
  out->complete_any = parent->complete_any;
  out->slice = parent->slice;
  out->window = parent->window;
  out->channels = parent->channels;
  out->node_members = hs_lower_node_members(members, size, me, parent->gpus_per_node);
  out->spread = out->node_members;
  out->switch_slices = parent->switch_slices;
  out->wire = parent->wire;
  out->switch_wire = parent->switch_wire;
  out->net_latency = parent->net_latency;
  out->rail_bandwidth = parent->rail_bandwidth;
  out->hop_intra = parent->hop_intra;
  out->hop_net = parent->hop_net;
  out->rate = parent->rate;
  out->net_rate = parent->net_rate;
  out->tree_bus = parent->tree_bus;
  out->tree_shrink = parent->tree_shrink;
  out->run_switch = NULL; /* a part of the group: the switch serves the whole (inswitch.c) */
  out->switch_id = out->fabric_switch_id = -1;
  out->node_switch_base = 0;
  out->cache = NULL;      /* its members are not the communicator's */
  out->ctx = parent->ctx;
}

/* The depth of every node in one of the double binary trees of `nodes`
 * nodes (logical numbering, root node 0) and, with the root on node rn,
 * the deepest rank's depth: O(nodes), so once per communicator and tree
 * where a cache keeps it, not once per member. */
typedef struct {
  int n, nodes, rn;
  int *depth;
  int height;
} tree_shape;

struct hs_lower_cache {
  int n, nodes;
  int *order, *node_start, *node_index; /* node_order's, and each member's node in that order */
  ring_shape ring;                      /* the last ring allreduce's (shared_ring_shape) */
  tree_shape tree[2];                   /* the last tree run's (tree_shape_of) */
};

hs_lower_cache *hs_lower_cache_new(void) { return calloc(1, sizeof(hs_lower_cache)); }

void hs_lower_cache_free(hs_lower_cache *c) {
  if (!c) return;
  free(c->order);
  free(c->node_start);
  free(c->node_index);
  free(c->ring.ch);
  free(c->ring.bytes);
  free(c->tree[0].depth);
  free(c->tree[1].depth);
  free(c);
}

static const ring_shape *shared_ring_shape(const hs_lower_group *g, size_t count, size_t esize) {
  ring_shape *r = &g->cache->ring;
  int n = g->size;
  if (!r->ch || r->n != n || r->count != count || r->esize != esize || r->slice != g->slice ||
      r->window != g->window) {
    free(r->ch), free(r->bytes);
    *r = (ring_shape){count, esize, g->slice, n, g->window, malloc((size_t)n * sizeof(chunk)),
                      malloc((size_t)n * sizeof(size_t)), {1, 0}};
    split_even(count, n, r->ch);
    for (int i = 0; i < n; i++) r->bytes[i] = r->ch[i].cnt * esize;
    r->pipe = ring_pipeline(g, r->ch, esize);
  }
  return r;
}

/* The group's members node after node (node_order): read from the
 * communicator's cache when it has one, else computed for this call. */
typedef struct {
  int nodes, my_node;
  const int *order, *node_start, *node_index; /* node_index: NULL unless cached */
  int *owned;
} node_layout;

static void layout_of(const hs_lower_group *g, node_layout *L) {
  hs_lower_cache *c = g->cache;
  int n = g->size;
  if (!c) {
    L->owned = malloc((2 * (size_t)n + 1) * sizeof(int));
    L->nodes = node_order(g, L->owned, L->owned + n, &L->my_node);
    L->order = L->owned;
    L->node_start = L->owned + n;
    L->node_index = NULL;
    return;
  }
  if (!c->order || c->n != n) {
    free(c->order), free(c->node_start), free(c->node_index);
    c->n = n;
    c->order = malloc((size_t)n * sizeof(int));
    c->node_start = malloc(((size_t)n + 1) * sizeof(int));
    c->node_index = malloc((size_t)n * sizeof(int));
    int mine;
    c->nodes = node_order(g, c->order, c->node_start, &mine);
    for (int k = 0; k < c->nodes; k++)
      for (int p = c->node_start[k]; p < c->node_start[k + 1]; p++) c->node_index[c->order[p]] = k;
  }
  L->owned = NULL;
  L->nodes = c->nodes;
  L->order = c->order;
  L->node_start = c->node_start;
  L->node_index = c->node_index;
  L->my_node = c->node_index[g->me];
}

static void layout_done(node_layout *L) { free(L->owned); }

/* Leader of a node: `prefer` (a group index) if it is on that node, else
 * the node's first member. O(n) (node_order), as every member builds it
 * for itself. */
static void hierarchy_build(hierarchy *h, const hs_lower_group *g, int prefer) {
  int n = g->size;
  node_layout L;
  layout_of(g, &L);
  const int *order = L.order, *node_start = L.node_start;
  int n_nodes = L.nodes, my_node = L.my_node;
  int k = node_start[my_node + 1] - node_start[my_node], local = 0;
  /* O(nodes) per member: a member's node, its rail and the leaders */
  h->buf = malloc(((size_t)k + 2 * (size_t)n_nodes) * sizeof(int));
  int *node_m = h->buf, *rail_m = h->buf + k, *lead_m = h->buf + k + n_nodes;
  for (int j = 0; j < k; j++) {
    int i = order[node_start[my_node] + j];
    if (i == g->me) local = j;
    node_m[j] = g->members[i];
  }
  int prefer_node = -1; /* the node (in node order) holding `prefer` */
  for (int x = 0; x < n_nodes && prefer_node < 0 && prefer >= 0 && prefer < n; x++)
    if (node_of(g, order[node_start[x]]) == node_of(g, prefer)) prefer_node = x;
  int uniform = 1, rail_n = 0, rail_me = 0, lead_me = -1;
  for (int x = 0; x < n_nodes; x++) {
    int cnt = node_start[x + 1] - node_start[x];
    int pick = x == prefer_node ? prefer : order[node_start[x]];
    if (cnt != k) uniform = 0;
    if (pick == g->me) lead_me = x;
    lead_m[x] = g->members[pick];
    if (local < cnt) {
      int rail_pick = order[node_start[x] + local];
      if (rail_pick == g->me) rail_me = rail_n;
      rail_m[rail_n++] = g->members[rail_pick];
    }
  }
  layout_done(&L);
  h->n_nodes = n_nodes;
  h->uniform = uniform;
  derive(&h->node, g, "n", node_of(g, g->me), node_m, k, local);
  derive(&h->rail, g, "r", local, rail_m, rail_n, rail_me);
  derive(&h->leaders, g, "L", 0, lead_m, n_nodes, lead_me);
}

/* Index, in my node group, of my node's leader. */
static int node_leader_index(const hierarchy *h) {
  for (int j = 0; j < h->node.size; j++)
    for (int l = 0; l < h->leaders.size; l++)
      if (h->node.members[j] == h->leaders.members[l]) return j;
  return 0;
}

static int worth_hierarchy(const hierarchy *h, int n) { return h->n_nodes > 1 && h->n_nodes < n; }

/* ---- NCCL's double binary tree, pipelined -------------------------------------------
 * Two rank-level trees (dtree.h): inside a node a chain from its head
 * through the node's other members; across nodes the node trees of
 * hs_dtree, head to head. An allreduce runs both trees once from each of
 * a node's heads (tree_heads_of: a head a NIC, as NCCL's tree channels
 * start at the GPU next to their NIC), each run on its part of the
 * vector, cut into S slices of at most g->slice bytes. Each rank reduces a slice from its children into its
 * own and sends it up; the root then sends it down and each rank
 * forwards it to its children, while later slices still go up: NCCL's
 * tree allreduce (ncclPatternTreeUpDown).
 *
 * Where the backend can post, complete and wait for any of several
 * messages (window > 0: the simulator's step fidelity), each slice is
 * forwarded on arrival (tree_pipe.h); a backend that times trees whole
 * (g->tree: fast fidelity) is handed the run and computes the same. Else
 * (the MPI transport, runs with failures, window 0) it runs in lock-step
 * ticks, every rank making one exchange per tick (empty ones included:
 * flows that run together share a tick). With H the depth of the deepest rank and d a
 * rank's own, slice k goes up from depth d at tick k + H - d, reaches the
 * root at k + H - 1 and goes down from depth d at k + H + d: a rank
 * forwards each slice the tick after it arrived, and the collective takes
 * S + 2H - 1 ticks. Partial sums from children land in scratch and are
 * reduced in a fixed order (mine, then children in order), and everyone
 * ends with the root's bits. */

/* The depths of tree `which`'s nodes and its height with the root's node
 * at rn, from the communicator's cache where it has one (into *mine
 * otherwise: the caller frees mine->depth). */
static const tree_shape *tree_shape_of(const hs_lower_group *g, const node_layout *L, int which, int rn,
                                       tree_shape *mine) {
  int nodes = L->nodes;
  tree_shape *t = g->cache ? &g->cache->tree[which] : mine;
  if (g->cache && t->depth && t->n == g->size && t->nodes == nodes && t->rn == rn) return t;
  if (g->cache) free(t->depth);
  t->n = g->size, t->nodes = nodes, t->rn = rn;
  t->depth = malloc((size_t)nodes * sizeof(int));
  hs_dtree_depths(nodes, which, t->depth);
  t->height = 0;
  for (int k = 0; k < nodes; k++) {
    int h = t->depth[(k - rn + nodes) % nodes] + L->node_start[k + 1] - L->node_start[k] - 1;
    t->height = h > t->height ? h : t->height;
  }
  return t;
}

/* My place in tree `which` (0 or 1) of head `head` of `heads`, rooted at
 * group member `root` (-1: the first member, as the allreduce's trees
 * are). A rooted tree renumbers the nodes so that root's node is node 0
 * (the node trees' root) and rotates that node's chain so that root is
 * its head. Head k of h rotates every node's chain by k/h of its length:
 * NCCL's tree channels each start a node's chain at the GPU next to their
 * NIC (connect.cc, treeIntra), so a node's traffic across nodes leaves
 * from h of its GPUs. O(members of a node) with a cache, else O(n). */
static void tree_role_of(const hs_lower_group *g, const node_layout *L, int which, int head, int heads, int root,
                         hs_tree_role *t) {
  const int *order = L->order, *node_start = L->node_start;
  int nodes = L->nodes, my_node = L->my_node;
  int rn = 0, rp = 0; /* root's node and place in its chain */
  if (root >= 0) {
    if (L->node_index) rn = L->node_index[root];
    else
      for (int k = 0; k < nodes; k++)
        for (int p = node_start[k]; p < node_start[k + 1]; p++)
          if (order[p] == root) rn = k;
    while (order[node_start[rn] + rp] != root) rp++;
  }
#define LOGICAL(k) (((k) - rn + nodes) % nodes)
#define PHYSICAL(l) (((l) + rn) % nodes)
#define LEN(k) (node_start[(k) + 1] - node_start[(k)])
#define MEMBER(k, q) order[node_start[(k)] + ((q) + ((k) == rn ? rp : 0) + head * LEN(k) / heads) % LEN(k)]
  int len = LEN(my_node), pos = 0;
  while (MEMBER(my_node, pos) != g->me) pos++;
  int up, d0, d1;
  hs_dtree(nodes, LOGICAL(my_node), which, &up, &d0, &d1);
  t->n_down = 0;
  if (pos > 0) t->up = MEMBER(my_node, pos - 1);
  else t->up = up >= 0 ? MEMBER(PHYSICAL(up), 0) : -1;
  if (pos + 1 < len) t->down[t->n_down++] = MEMBER(my_node, pos + 1);
  if (pos == 0) {
    if (d0 >= 0) t->down[t->n_down++] = MEMBER(PHYSICAL(d0), 0);
    if (d1 >= 0) t->down[t->n_down++] = MEMBER(PHYSICAL(d1), 0);
  }
  tree_shape own = {0};
  const tree_shape *shape = tree_shape_of(g, L, which, rn, &own);
  t->depth = shape->depth[LOGICAL(my_node)] + pos;
  t->height = shape->height;
  free(own.depth);
#undef LOGICAL
#undef PHYSICAL
#undef LEN
#undef MEMBER
}

/* At most 2^20 slices over all members (bigger slices beyond): every slice
 * is a message per member in step fidelity and a record per member in
 * fast, and 8 GiB in LL's 32 KiB slices over 1024 GPUs would be 10^8 of
 * them. The ticks saved each pay a hop's latency that NCCL, with 8 slices
 * in flight, mostly hides (docs/fidelity.md). */
size_t hs_lower_tree_slices(double bytes, size_t slice, int members) {
  double S = slice ? ceil(bytes / (double)slice) : 1, most = ldexp(1, 20) / (members > 1 ? members : 1);
  S = S > most ? floor(most) : S;
  return S < 1 ? 1 : (size_t)S;
}

size_t hs_lower_tree_chunk(size_t chunk, double bytes, int runs, int nodes, int members) {
  if (nodes < 1 || runs < 1 || members < 1) return chunk;
  double ppn = (double)members / nodes, lg = 0;
  for (int n = nodes; n > 1; n /= 2) lg++; /* NCCL's log2i: the floor */
  double nsteps = 1 + lg + 0.1 * ppn, per = bytes / runs;
  while (floor(per / (double)chunk) < nsteps * 64 / ppn && chunk > 131072) chunk /= 2;
  while (floor(per / (double)chunk) < nsteps * 16 / ppn && chunk > 32768) chunk /= 2;
  return chunk;
}

/* Up, slice k leaves depth d at tick k + H - d; down, at tick k + D + d,
 * D = H when it follows the way up, else 0. */
int hs_lower_tree_first_tick(const hs_tree_run *run, int w, hs_tree_dir dir) {
  const hs_tree_role *t = &run->role[w];
  int H = t->height, d = t->depth, D = run->mode == HS_TREE_BOTH ? H : 0;
  int up = (run->mode & HS_TREE_UP) != 0, down = (run->mode & HS_TREE_DOWN) != 0;
  switch (dir) {
  case HS_TREE_SEND_UP: return up && t->up >= 0 ? H - d : -1;
  case HS_TREE_RECV_UP: return up && t->n_down > 0 && d < H ? H - d - 1 : -1;
  case HS_TREE_RECV_DOWN: return down && t->up >= 0 ? D + d - 1 : -1;
  default: return down && t->n_down > 0 ? D + d : -1;
  }
}

/* The slice of tree w that this rank moves in direction dir at tick x;
 * -1 for none. */
static int tree_slice(const hs_tree_run *run, int w, hs_tree_dir dir, int x) {
  int first = hs_lower_tree_first_tick(run, w, dir), k = x - first;
  return first >= 0 && k >= 0 && k < run->slices ? k : -1;
}

static chunk tree_piece(const hs_tree_role *t, int k, int S) { return piece((chunk){t->off, t->count}, k, S); }

/* Runs `mode` over buf: on both trees from each head, a part of the
 * vector each, rooted at the first member (root < 0, the allreduce); else
 * on tree 0 rooted at root, the whole vector (broadcast, reduce).
 * Reductions land in buf; the root divides by avg_over (> 0) what it has
 * fully reduced. */
static void tree_exec(hs_lower_group *g, hs_buf buf, hs_redop op, int avg_over, hs_tree_run run);

/* Slices and ticks of a run whose roles are set (its trees' parts of the
 * vector near-equal, the first ones taking the remainder; on LL128 the
 * slices shrink as NCCL's chunks do, hs_lower_tree_chunk), then runs it. */
static void tree_slice_and_exec(hs_lower_group *g, hs_buf buf, hs_redop op, int avg_over, hs_tree_run run, int nodes) {
  hs_tree_role *tr = run.role;
  size_t T = (size_t)run.trees;
  for (size_t w = 0, off = 0; w < T; off += tr[w].count, w++) /* the first parts take the remainder */
    tr[w].off = off, tr[w].count = buf.count / T + (w < buf.count % T);
  size_t lo = tr[run.trees - 1].count, slice = g->slice;
  if (g->tree_shrink && run.trees >= 2)
    slice = hs_lower_tree_chunk(slice, (double)(buf.count * esz(buf)), run.trees, nodes, g->size);
  size_t S = hs_lower_tree_slices(tr[0].count * esz(buf), slice, g->size);
  run.slices = (int)(S > lo ? lo : S);
  for (int w = 0; w < run.trees; w++) {
    int x = run.slices + (run.mode == HS_TREE_BOTH ? 2 : 1) * tr[w].height - 1;
    run.ticks = x > run.ticks ? x : run.ticks;
  }
  tree_exec(g, buf, op, avg_over, run);
}

int hs_lower_tree_heads(int wanted, int shortest, int nodes) {
  int h = wanted > 1 ? wanted : 1;
  if (h > HS_TREE_RUNS_MAX / 2) h = HS_TREE_RUNS_MAX / 2;
  if (h > shortest) h = shortest > 1 ? shortest : 1;
  return nodes > 1 ? h : 1; /* on one node no tree traffic leaves it */
}

double hs_lower_tree_flow_rate(double rate, double tree_bus, int runs) {
  if (!(tree_bus > 0) || runs < 1) return rate;
  double share = tree_bus / (2.0 * runs);
  return rate > 0 && rate < share ? rate : share;
}

int hs_lower_tree_bounded(const hs_lower_group *g, int peer) {
  int gpn = g->gpus_per_node > 0 ? g->gpus_per_node : 1;
  return !(g->net_rate > 0) || g->members[peer] / gpn != g->members[g->me] / gpn;
}

/* The heads of this group's allreduce trees (hs_lower_tree_heads), one for
 * a vector too short to split among them. */
static int tree_heads_of(const hs_lower_group *g, const node_layout *L, size_t count) {
  int shortest = g->size;
  for (int k = 0; k < L->nodes; k++)
    if (L->node_start[k + 1] - L->node_start[k] < shortest) shortest = L->node_start[k + 1] - L->node_start[k];
  int h = hs_lower_tree_heads(g->tree_heads, shortest, L->nodes);
  return count >= 2 * (size_t)h ? h : 1;
}

static void tree_run(hs_lower_group *g, hs_buf buf, hs_redop op, int avg_over, hs_tree_mode mode, int root) {
  node_layout L;
  layout_of(g, &L);
  int heads = root < 0 && buf.count > 1 ? tree_heads_of(g, &L, buf.count) : 1;
  hs_tree_run run = {.trees = root < 0 && buf.count > 1 ? 2 * heads : 1, .mode = mode, .esize = esz(buf)};
  for (int r = 0; r < run.trees; r++) tree_role_of(g, &L, r % 2, r / 2, heads, root, &run.role[r]);
  int nodes = L.nodes;
  layout_done(&L);
  /* the allreduce's trees share NCCL's tree maximum: its flows between
   * nodes, or all of them on one node (a broadcast's or reduce's tree 0
   * is NCCL's ring algorithm, with the ring's bounds) */
  hs_lower_group capped = *g;
  if (root < 0 && nodes > 1) capped.net_rate = hs_lower_tree_flow_rate(0, g->tree_bus, run.trees);
  else if (root < 0) capped.rate = hs_lower_tree_flow_rate(g->rate, g->tree_bus, run.trees);
  tree_slice_and_exec(&capped, buf, op, avg_over, run, nodes);
}

/* NCCL's broadcast and reduce (its ring algorithm, ncclPatternPipelineFrom
 * and ncclPatternPipelineTo in src/enqueue.cc): one chain through every
 * member from the root, each slice forwarded as it arrives, so the whole
 * vector crosses every link once and a large one moves at the slowest
 * link's rate however many members there are (where a binomial tree moves
 * it log2 n times). The chain runs node after node as the rings do,
 * starting with the root's node rotated so that the root is its head:
 * nodes - 1 crossings. A chain is a tree whose members have one child each,
 * so the trees' machinery runs it on every backend and fidelity. */
static void chain_run(hs_lower_group *g, hs_buf buf, hs_redop op, hs_tree_mode mode, int root) {
  int n = g->size;
  node_layout L;
  layout_of(g, &L);
  const int *order = L.order, *node_start = L.node_start;
  int rn = 0, rp = 0; /* the root's node and its place there */
  for (int k = 0; k < L.nodes; k++)
    for (int p = node_start[k]; p < node_start[k + 1]; p++)
      if (order[p] == root) rn = k, rp = p - node_start[k];
  int prev = -1, pos = 0, me_pos = -1, me_prev = -1, me_next = -1;
  for (int j = 0; j < L.nodes; j++) {
    int k = (rn + j) % L.nodes, len = node_start[k + 1] - node_start[k];
    for (int q = 0; q < len; q++, pos++) {
      int m = order[node_start[k] + (k == rn ? (q + rp) % len : q)];
      if (me_pos >= 0 && me_next < 0) me_next = m;
      if (m == g->me) me_pos = pos, me_prev = prev;
      prev = m;
    }
  }
  layout_done(&L);
  hs_tree_run run = {.trees = 1, .mode = mode, .esize = esz(buf)};
  hs_tree_role *t = &run.role[0];
  t->up = me_prev;
  t->n_down = me_next >= 0;
  t->down[0] = me_next;
  t->depth = me_pos;
  t->height = n - 1;
  tree_slice_and_exec(g, buf, op, 0, run, 1);
}

static void tree_exec(hs_lower_group *g, hs_buf buf, hs_redop op, int avg_over, hs_tree_run run) {
  hs_tree_role *tr = run.role;
  if (g->tree && !buf.data) { /* timed whole by the backend, pipelined as the step fidelity runs it */
    run.window = g->window;
    g->tree(g, &run);
    return;
  }
  if (g->window > 0 && g->post && g->complete_any) { /* forwarding on arrival */
    run.window = g->window;
    hs_tree_pipe_run(g, buf, op, avg_over, &run);
    return;
  }
  hs_buf child[HS_TREE_RUNS_MAX][HS_TREE_MAX_DOWN];
  size_t most = (tr[0].count + run.slices - 1) / run.slices;
  for (int w = 0; w < run.trees; w++)
    for (int c = 0; c < HS_TREE_MAX_DOWN; c++) child[w][c] = scratch(buf, (run.mode & HS_TREE_UP) ? most : 0);
  hs_lower_send snd[HS_TREE_RUNS_MAX * (1 + HS_TREE_MAX_DOWN)];
  hs_lower_recv rcv[HS_TREE_RUNS_MAX * (1 + HS_TREE_MAX_DOWN)];
  /* An allreduce's bound is this rank's budget, shared by the bounded
   * sends of each tick (tree_pipe.c, tree_budget): the group's bound of a
   * flow between nodes (net_rate), or of every flow on one node (rate). */
  int net = g->net_rate > 0, total = 0;
  double base = net ? g->net_rate : g->rate;
  int pooled = run.mode == HS_TREE_BOTH && base > 0;
  for (int w = 0; pooled && w < run.trees; w++) {
    const hs_tree_role *t = &tr[w];
    total += t->up >= 0 && hs_lower_tree_bounded(g, t->up);
    for (int j = 0; j < t->n_down; j++) total += hs_lower_tree_bounded(g, t->down[j]);
  }
  for (int x = 0; x < run.ticks; x++) {
    int ns = 0, nr = 0;
    for (int w = 0; w < run.trees; w++) {
      const hs_tree_role *t = &tr[w];
      int k;
      if ((k = tree_slice(&run, w, HS_TREE_SEND_UP, x)) >= 0) {
        chunk c = tree_piece(t, k, run.slices);
        snd[ns++] = (hs_lower_send){t->up, at(buf, c.off), c.cnt * esz(buf)};
      }
      if ((k = tree_slice(&run, w, HS_TREE_SEND_DOWN, x)) >= 0) {
        chunk c = tree_piece(t, k, run.slices);
        for (int j = 0; j < t->n_down; j++) snd[ns++] = (hs_lower_send){t->down[j], at(buf, c.off), c.cnt * esz(buf)};
      }
      if ((k = tree_slice(&run, w, HS_TREE_RECV_UP, x)) >= 0) {
        chunk c = tree_piece(t, k, run.slices);
        for (int j = 0; j < t->n_down; j++)
          rcv[nr++] = (hs_lower_recv){t->down[j], child[w][j].data, c.cnt * esz(buf), 0, buf.dtype, op};
      }
      if ((k = tree_slice(&run, w, HS_TREE_RECV_DOWN, x)) >= 0) {
        chunk c = tree_piece(t, k, run.slices);
        rcv[nr++] = (hs_lower_recv){t->up, at(buf, c.off), c.cnt * esz(buf), 0, buf.dtype, op};
      }
    }
    if (pooled) {
      int active = 0;
      for (int i = 0; i < ns; i++) active += hs_lower_tree_bounded(g, snd[i].peer);
      double share = active > 0 ? base * total / active : base;
      if (net) g->net_rate = share;
      else g->rate = share;
    }
    g->exchange(g, snd, ns, rcv, nr);
    for (int w = 0; w < run.trees; w++) { /* the children's partial sums, in a fixed order */
      const hs_tree_role *t = &tr[w];
      int k = tree_slice(&run, w, HS_TREE_RECV_UP, x);
      if (k < 0) continue;
      chunk c = tree_piece(t, k, run.slices);
      for (int j = 0; j < t->n_down && buf.data; j++) {
        hs_lower_recv r = {0, at(buf, c.off), c.cnt * esz(buf), 1, buf.dtype, op};
        hs_lower_deliver(&r, child[w][j].data);
      }
      if (t->up < 0 && avg_over > 0) divide(buf, c.off, c.cnt, avg_over); /* the root holds the whole sum */
    }
  }
  if (net) g->net_rate = base;
  else if (pooled) g->rate = base;
  for (int w = 0; w < run.trees; w++)
    for (int c = 0; c < HS_TREE_MAX_DOWN; c++) free(child[w][c].data);
}

/* ---- the collectives ------------------------------------------------------------ */

void hs_lower_allreduce(hs_lower_group *g, hs_buf s, hs_buf r, hs_redop op, hs_coll_algo algo) {
  copy_buf(r, s);
  int avg = op == HS_AVG ? g->size : 0;
  hs_redop red = op == HS_AVG ? HS_SUM : op;
  if (algo == HS_COLL_NVLS) { /* no switch here (the MPI transport): the ring */
    if (g->size > 1 && hs_lower_has_switch(g)) hs_lower_switch_allreduce(g, r, red, avg);
    else ring_allreduce_inplace(g, r, red, avg);
    return;
  }
  if (algo == HS_COLL_NVLS_TREE) { /* not across nodes whose switches reduce: the ring */
    if (!hs_lower_nvls_tree_allreduce(g, r, red, avg)) ring_allreduce_inplace(g, r, red, avg);
    return;
  }
  if (algo == HS_COLL_HALVING_DOUBLING || algo == HS_COLL_RECURSIVE_DOUBLING || algo == HS_COLL_TREE) {
    if (g->size == 1) ring_allreduce_inplace(g, r, red, avg);
    else if (algo == HS_COLL_TREE) tree_run(g, r, red, avg, HS_TREE_BOTH, -1);
    else if (algo == HS_COLL_HALVING_DOUBLING) halving_doubling_allreduce(g, r, red, avg);
    else recursive_doubling_allreduce(g, r, red, avg);
    return;
  }
  /* collnet: the hierarchical schedule with the fabric reducing across
   * nodes, where it does (else the ring) */
  int collnet = algo == HS_COLL_COLLNET && g->size > 1 && hs_lower_has_fabric_switch(g);
  if (algo != HS_COLL_HIERARCHICAL && !collnet) {
    ring_allreduce_inplace(g, r, red, avg);
    return;
  }
  /* NCCL's CollNet chain where every node has the same members (several) */
  if (collnet && hs_lower_collnet_chain_allreduce(g, r, red, avg)) return;
  hierarchy h;
  hierarchy_build(&h, g, 0);
  if (collnet && h.n_nodes == g->size) { /* one member per node: all of them through the fabric */
    hs_lower_group all = *g;
    all.switch_id = g->fabric_switch_id;
    hs_lower_switch_allreduce(&all, r, red, avg);
  } else if (!worth_hierarchy(&h, g->size)) {
    ring_allreduce_inplace(g, r, red, avg);
  } else if (h.uniform) {
    int k = h.node.size;
    chunk *ch = malloc(k * sizeof *ch);
    split_even(r.count, k, ch);
    ring_rs_phase(&h.node, r, ch, red);
    hs_buf mine = hs_buf_slice(r, ch[h.node.me].off, ch[h.node.me].cnt);
    if (collnet) { /* rail k through the fabric's participant k */
      h.rail.switch_id = g->fabric_switch_id + h.node.me;
      h.rail.run_switch = g->run_switch;
      hs_lower_switch_allreduce(&h.rail, mine, red, avg);
    } else {
      ring_allreduce_inplace(&h.rail, mine, red, avg);
    }
    ring_ag_phase(&h.node, r, ch);
    free(ch);
  } else {
    int lead = node_leader_index(&h);
    tree_reduce(&h.node, r, red, lead);
    if (h.leaders.me >= 0 && collnet) {
      h.leaders.switch_id = g->fabric_switch_id;
      h.leaders.run_switch = g->run_switch;
      hs_lower_switch_allreduce(&h.leaders, r, red, avg);
    } else if (h.leaders.me >= 0) {
      ring_allreduce_inplace(&h.leaders, r, red, avg);
    }
    tree_broadcast(&h.node, r, lead);
  }
  free(h.buf);
}

void hs_lower_reduce_scatter(hs_lower_group *g, hs_buf s, hs_buf r, hs_redop op, hs_coll_algo algo) {
  int n = g->size;
  hs_buf tmp = scratch(s, s.count);
  copy_buf(tmp, s);
  chunk *ch = malloc(n * sizeof *ch);
  split_blocks(r.count, n, ch);
  hs_redop red = op == HS_AVG ? HS_SUM : op;
  if (n > 1 && algo == HS_COLL_NVLS && hs_lower_has_switch(g)) hs_lower_switch_reduce_scatter(g, tmp, r, red);
  else if (n > 1 && algo == HS_COLL_HALVING_DOUBLING) halving_reduce_scatter(g, tmp, r.count, red);
  else if (n > 1) ring_rs_phase(g, tmp, ch, red);
  if (r.data) memcpy(r.data, at(tmp, ch[g->me].off), hs_buf_bytes(r));
  if (op == HS_AVG) divide(r, 0, r.count, n);
  free(ch);
  free(tmp.data);
}

void hs_lower_allgather(hs_lower_group *g, hs_buf s, hs_buf r, hs_coll_algo algo) {
  int n = g->size;
  chunk *ch = malloc(n * sizeof *ch);
  split_blocks(s.count, n, ch);
  if (r.data && s.data && at(r, ch[g->me].off) != s.data) memcpy(at(r, ch[g->me].off), s.data, hs_buf_bytes(s));
  if (n > 1 && algo == HS_COLL_NVLS && hs_lower_has_switch(g)) hs_lower_switch_allgather(g, r);
  else if (n > 1 && algo == HS_COLL_HALVING_DOUBLING) doubling_allgather(g, r, s.count);
  else if (n > 1) ring_ag_phase(g, r, ch);
  free(ch);
}

void hs_lower_broadcast(hs_lower_group *g, hs_buf s, hs_buf r, int root, hs_coll_algo algo) {
  if (g->me == root) copy_buf(r, s);
  if (algo == HS_COLL_TREE && g->size > 1) {
    tree_run(g, r, HS_SUM, 0, HS_TREE_DOWN, root);
    return;
  }
  if (algo == HS_COLL_RECURSIVE_DOUBLING) { /* the whole vector, ceil(log2 n) rounds (gloo/broadcast.cc) */
    tree_broadcast(g, r, root);
    return;
  }
  if (algo != HS_COLL_HIERARCHICAL) {
    if (g->size > 1) chain_run(g, r, HS_SUM, HS_TREE_DOWN, root);
    return;
  }
  hierarchy h;
  hierarchy_build(&h, g, root);
  if (!worth_hierarchy(&h, g->size)) {
    tree_broadcast(g, r, root);
  } else {
    int root_leader = 0; /* the leader list holds root for root's node */
    for (int l = 0; l < h.leaders.size; l++)
      if (h.leaders.members[l] == g->members[root]) root_leader = l;
    if (h.leaders.me >= 0) tree_broadcast(&h.leaders, r, root_leader);
    tree_broadcast(&h.node, r, node_leader_index(&h));
  }
  free(h.buf);
}

void hs_lower_reduce(hs_lower_group *g, hs_buf s, hs_buf r, hs_redop op, int root, hs_coll_algo algo) {
  hs_redop red = op == HS_AVG ? HS_SUM : op;
  /* Accumulate in place at the root, in scratch elsewhere: a non-root's
   * receive buffer is not ours to touch. */
  hs_buf acc = g->me == root ? r : scratch(s, s.count);
  copy_buf(acc, s);
  hierarchy h = {0};
  if (algo == HS_COLL_HIERARCHICAL) hierarchy_build(&h, g, root);
  if (algo == HS_COLL_TREE && g->size > 1) {
    tree_run(g, acc, red, 0, HS_TREE_UP, root);
  } else if (algo == HS_COLL_RECURSIVE_DOUBLING) {
    tree_reduce(g, acc, red, root);
  } else if (algo != HS_COLL_HIERARCHICAL) {
    if (g->size > 1) chain_run(g, acc, red, HS_TREE_UP, root);
  } else if (!worth_hierarchy(&h, g->size)) {
    tree_reduce(g, acc, red, root);
  } else {
    int root_leader = 0;
    for (int l = 0; l < h.leaders.size; l++)
      if (h.leaders.members[l] == g->members[root]) root_leader = l;
    tree_reduce(&h.node, acc, red, node_leader_index(&h));
    if (h.leaders.me >= 0) tree_reduce(&h.leaders, acc, red, root_leader);
  }
  if (g->me == root && op == HS_AVG) divide(r, 0, r.count, g->size);
  if (g->me != root) free(acc.data);
  free(h.buf);
}

/* One round in which every rank sends its n-1 blocks at once, as NCCL's
 * alltoall (one group of sends and receives) does: the latency is paid
 * once, and the blocks share the links. */
/* A host library's flows (own_flows: Gloo's) are a process's, moved
 * through one thread each way: gloo's device loop reads every incoming
 * connection of the process (gloo/transport/tcp/loop.cc), and the caller
 * writes every send. An exchange's concurrent flows share that thread's
 * rate, as the busier direction of this rank counts them (its sends or
 * its receives). The bound is set where a flow is posted, at its sender:
 * a receiver of more flows than its senders send (a server's incast) is
 * not held to it. Returns the rate to put back after the exchange. */
static double share_host_thread(hs_lower_group *g, int ns, int nr) {
  double rate = g->rate;
  int k = ns > nr ? ns : nr;
  if (g->own_flows && rate > 0 && k > 1) g->rate = rate / k;
  return rate;
}

void hs_lower_alltoall(hs_lower_group *g, hs_buf s, hs_buf r) {
  int n = g->size, me = g->me;
  size_t block = s.count / n;
  if (r.data) memcpy(at(r, me * block), at(s, me * block), block * esz(s));
  if (n == 1) return;
  hs_lower_send *snd = malloc((size_t)(n - 1) * sizeof *snd);
  hs_lower_recv *rcv = malloc((size_t)(n - 1) * sizeof *rcv);
  for (int k = 1; k < n; k++) {
    int to = mod(me + k, n), from = mod(me - k, n);
    snd[k - 1] = (hs_lower_send){to, at(s, to * block), block * esz(s)};
    rcv[k - 1] = (hs_lower_recv){from, at(r, from * block), block * esz(r), 0, r.dtype, HS_SUM};
  }
  double rate = share_host_thread(g, n - 1, n - 1);
  int shares = g->shares_proxy;
  g->shares_proxy = 1; /* one GPU's own exchange, whoever lowers it */
  g->exchange(g, snd, n - 1, rcv, n - 1);
  g->shares_proxy = shares;
  g->rate = rate;
  free(snd);
  free(rcv);
}

void hs_lower_barrier(hs_lower_group *g) {
  int n = g->size;
  for (int k = 1; k < n; k <<= 1) {
    hs_lower_send s = {mod(g->me + k, n), NULL, 0};
    hs_lower_recv r = {mod(g->me - k, n), NULL, 0, 0, HS_U8, HS_SUM};
    g->exchange(g, &s, 1, &r, 1);
  }
}

void hs_lower_group_p2p(hs_lower_group *g, const hs_p2p *ops, int n) {
  hs_lower_send *s = malloc((n + 1) * sizeof *s);
  hs_lower_recv *r = malloc((n + 1) * sizeof *r);
  int ns = 0, nr = 0;
  for (int i = 0; i < n; i++) {
    if (ops[i].kind == HS_P2P_SEND)
      s[ns++] = (hs_lower_send){ops[i].peer, ops[i].buf.data, hs_buf_bytes(ops[i].buf)};
    else
      r[nr++] = (hs_lower_recv){ops[i].peer, ops[i].buf.data, hs_buf_bytes(ops[i].buf), 0, ops[i].buf.dtype, HS_SUM};
  }
  double rate = share_host_thread(g, ns, nr);
  int shares = g->shares_proxy;
  g->shares_proxy = 1; /* one GPU's own exchange, whoever lowers it (the simulator posts gossip directly) */
  g->exchange(g, s, ns, r, nr);
  g->shares_proxy = shares;
  g->rate = rate;
  free(s);
  free(r);
}

void hs_lower_deliver(const hs_lower_recv *r, const void *payload) {
  if (!r->dst || !payload) return;
  if (!r->reduce) {
    memcpy(r->dst, payload, r->bytes);
    return;
  }
  hs_k_op op = r->op == HS_MIN ? HS_K_MIN : r->op == HS_MAX ? HS_K_MAX : HS_K_SUM;
  hs_k_reduce((hs_k_type)r->dtype, op, r->dst, payload, r->bytes / hs_dtype_size(r->dtype));
}

/* ---- dispatch --------------------------------------------- */

int hs_lower_spread(const hs_lower_group *g, hs_op_kind k, hs_coll_algo algo) {
  /* NCCL's ring and tree spread a node's channels over the GPUs next to
   * its NICs; every other schedule's flow across nodes is one GPU's (a
   * hierarchical schedule's rails are groups of one member a node) */
  int per_gpu = k == HS_OP_P2P || k == HS_OP_ALLTOALL || k == HS_OP_BARRIER || algo == HS_COLL_HALVING_DOUBLING ||
                algo == HS_COLL_RECURSIVE_DOUBLING ||
                algo == HS_COLL_NVLS_TREE; /* each GPU's own part of its node's sum, on its rail */
  return per_gpu || g->own_flows ? 1 : g->node_members;
}

void hs_lower_run(hs_lower_group *g, const hs_op *o, hs_coll_algo algo) {
  g->spread = hs_lower_spread(g, o->kind, algo);
  g->shares_proxy = 0; /* a collective's schedule; the exchanges that share set it themselves */
  switch (o->kind) {
  case HS_OP_ALLREDUCE: hs_lower_allreduce(g, o->send, o->recv, o->redop, algo); break;
  case HS_OP_REDUCE_SCATTER: hs_lower_reduce_scatter(g, o->send, o->recv, o->redop, algo); break;
  case HS_OP_ALLGATHER: hs_lower_allgather(g, o->send, o->recv, algo); break;
  case HS_OP_BROADCAST: hs_lower_broadcast(g, o->send, o->recv, o->root, algo); break;
  case HS_OP_REDUCE: hs_lower_reduce(g, o->send, o->recv, o->redop, o->root, algo); break;
  case HS_OP_ALLTOALL: hs_lower_alltoall(g, o->send, o->recv); break;
  case HS_OP_BARRIER: hs_lower_barrier(g); break;
  case HS_OP_P2P: hs_lower_group_p2p(g, o->p2p, o->n_p2p); break;
  case HS_OP_KINDS: break; /* refused by hs_op_check */
  }
}

const char *hs_lower_schedule_name(hs_op_kind k, hs_coll_algo algo) {
  int hier = algo == HS_COLL_HIERARCHICAL;
  switch (k) {
  case HS_OP_ALLREDUCE:
    return hier ? "hierarchical" : algo == HS_COLL_TREE ? "double_binary_tree" : algo == HS_COLL_NVLS ? "in_switch"
                 : algo == HS_COLL_COLLNET ? "in_network"
                 : algo == HS_COLL_NVLS_TREE ? "nvls_tree"
                 : algo == HS_COLL_HALVING_DOUBLING ? "halving_doubling"
                                 : algo == HS_COLL_RECURSIVE_DOUBLING ? "recursive_doubling" : "ring";
  case HS_OP_REDUCE_SCATTER:
    return algo == HS_COLL_HALVING_DOUBLING ? "recursive_halving" : algo == HS_COLL_NVLS ? "in_switch" : "ring";
  case HS_OP_ALLGATHER:
    return algo == HS_COLL_HALVING_DOUBLING ? "recursive_doubling" : algo == HS_COLL_NVLS ? "in_switch" : "ring";
  case HS_OP_BROADCAST:
  case HS_OP_REDUCE:
    return hier ? "hierarchical_tree" : algo == HS_COLL_TREE ? "pipelined_tree"
                                       : algo == HS_COLL_RECURSIVE_DOUBLING ? "binomial_tree" : "pipelined_chain";
  case HS_OP_ALLTOALL: return "pairwise";
  case HS_OP_BARRIER: return "dissemination";
  default: return "direct";
  }
}

double hs_lower_ring_bytes(hs_op_kind k, int n, double bytes, int root) {
  double f = n > 1 ? (double)(n - 1) / n : 0;
  switch (k) {
  case HS_OP_ALLREDUCE: return 2 * f * bytes;
  /* Chains and trees alike: every non-root receives (broadcast) or sends
   * (reduce) the vector once. Which rank forwards what depends on its
   * place, so the broadcast's n-1 copies are all counted at the root: the
   * sum over ranks, which metrics.csv reports, is the simulator's. */
  case HS_OP_BROADCAST: return root ? (n - 1) * bytes : 0;
  case HS_OP_REDUCE: return !root && n > 1 ? bytes : 0;
  case HS_OP_REDUCE_SCATTER:
  case HS_OP_ALLGATHER:
  case HS_OP_ALLTOALL: return f * bytes;
  default: return 0;
  }
}
