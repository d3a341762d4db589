/* fast_ring_share.c — pipelined rings timed together, each link shared
 * among the units on it at every moment (fast_ring.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/fast_ring.h"
#include "sim/time_heap.h"

static inline double dmax(double a, double b) { return a > b ? a : b; }

double hs_fast_ring_step_bytes(const hs_fast_ring *ring, int j, int step) {
  int n = ring->n;
  return (double)ring->bytes[((j - 1 - ring->first - step) % n + n) % n];
}

/* Chunks of a vector that does not divide evenly differ by one element;
 * below a 1e-3 spread they are timed as their mean (an error of that order
 * at most, far inside fast's 2% promise), which lets fast.c's shortcuts
 * apply. */
double hs_fast_ring_unit_fraction(hs_ring_pipeline p, int g) {
  int S = p.slices, W = p.window, G = hs_lower_ring_units(p);
  return (double)(S > W ? (g + 1 < G ? W : S - g * W) : S) / S;
}

int hs_fast_ring_equal_chunks(const hs_fast_ring *ring) {
  double lo = (double)ring->bytes[0], hi = lo;
  for (int j = 0; j < ring->n; j++) {
    double b = (double)ring->bytes[j];
    lo = b < lo ? b : lo;
    hi = b > hi ? b : hi;
  }
  return hi - lo <= 1e-3 * (ring->total / ring->n);
}

/* ---- events, in time order (time_heap.h: ties in the order pushed) ----------------- */

typedef struct {
  hs_time_key at;
  int conn;          /* >= 0: that connection's next unit goes on the wire; -1: a pool's next unit is through */
  int pool;
  unsigned version; /* the pool's when pushed: later changes make it stale */
} event;

/* ---- connections and the pools they cross ------------------------------------------- */

typedef struct {
  const hs_fast_ring *ring;
  int j, pool;
  double solo;
  long next;     /* the unit it sends next */
  int state;     /* IDLE, DUE (its start is an event), ON_WIRE */
  double left, rate; /* on the wire: bytes still to go, and its share now */
  double *arrive; /* per unit: when it was through at j + 1 */
} conn;
enum { IDLE, DUE, ON_WIRE };

typedef struct {
  double cap, last;
  int *on;  /* connections on the wire through it */
  int n_on;
  unsigned version;
} pool;

typedef struct {
  const hs_fast_ring *ring;
  int G, L, equal, base;
  long units;
  double *unit_frac;
  const double *t0; /* the positions' starts (the caller's, replaced only at the end) */
} ring_view;

typedef struct {
  ring_view *rv;
  conn *c;
  pool *p;
  int *ring_of; /* connection -> its ring's view */
  int *done;    /* scratch: the connections an event finished */
  hs_time_heap h; /* of event */
} group;

static double unit_bytes(const ring_view *v, int j, long u) {
  int step = (int)(u / v->G), g = (int)(u % v->G);
  const hs_fast_ring *ring = v->ring;
  return (v->equal ? ring->total / ring->n : hs_fast_ring_step_bytes(ring, j, step)) * v->unit_frac[g];
}

/* How long a unit on the wire needs at its share now. */
static double time_left(const conn *c) { return c->left <= 0 || isinf(c->rate) ? 0 : c->left / c->rate; }

/* Its units' bytes moved since the pool last changed, at their shares then. */
static void advance(group *x, pool *p, double now) {
  for (int i = 0; i < p->n_on; i++) {
    conn *c = &x->c[p->on[i]];
    c->left = isinf(c->rate) ? 0 : dmax(c->left - c->rate * (now - p->last), 0);
  }
  p->last = now;
}

/* Max-min among the pool's units on the wire: equal shares of its
 * capacity, each at most what its connection would get alone (the rest
 * goes to the others). */
static void shares(group *x, pool *p) {
  int n = p->n_on;
  for (int a = 1; a < n; a++) /* by solo rate, ascending: few at a time (the GPUs of a node) */
    for (int b = a; b > 0 && x->c[p->on[b]].solo < x->c[p->on[b - 1]].solo; b--) {
      int tmp = p->on[b];
      p->on[b] = p->on[b - 1];
      p->on[b - 1] = tmp;
    }
  double cap = p->cap;
  for (int i = 0; i < n; i++) {
    conn *c = &x->c[p->on[i]];
    double fair = cap / (n - i);
    c->rate = c->solo < fair ? c->solo : fair;
    cap -= c->rate;
  }
}

static void next_through(group *x, int id, double now) {
  pool *p = &x->p[id];
  p->version++;
  if (p->n_on == 0) return;
  double soonest = INFINITY;
  for (int i = 0; i < p->n_on; i++) soonest = fmin(soonest, time_left(&x->c[p->on[i]]));
  hs_time_heap_push(&x->h, &(event){{now + soonest, 0}, -1, id, p->version});
}

/* Puts connection k's next unit on the schedule if what it needs is known:
 * its data at the sender (the previous step's unit arrived from j - 1, or
 * the rank's start), the receiver's credit, and its previous unit off. */
static void try_start(group *x, int k) {
  conn *c = &x->c[k];
  const ring_view *v = &x->rv[x->ring_of[k]];
  if (c->state != IDLE || c->next >= v->units) return;
  long u = c->next;
  int n = c->ring->n, j = c->j, succ = j + 1 < n ? j + 1 : 0;
  double ready;
  if (u < v->G) {
    ready = v->t0[j];
  } else {
    const conn *pred = &x->c[v->base + (j ? j - 1 : n - 1)];
    if (pred->next <= u - v->G) return; /* not arrived yet: pred starts it when it does */
    ready = pred->arrive[u - v->G];
  }
  double credit = u < v->L ? v->t0[succ] : c->arrive[u - v->L];
  double begin = dmax(ready + c->ring->hop[j], credit) + c->ring->lat[j];
  if (u > 0) begin = dmax(begin, c->arrive[u - 1]);
  c->state = DUE;
  hs_time_heap_push(&x->h, &(event){{begin, 0}, k, c->pool, 0});
}

static void on_wire(group *x, int k, double now) {
  conn *c = &x->c[k];
  pool *p = &x->p[c->pool];
  advance(x, p, now);
  c->state = ON_WIRE;
  c->left = unit_bytes(&x->rv[x->ring_of[k]], c->j, c->next);
  p->on[p->n_on++] = k;
  shares(x, p);
  next_through(x, c->pool, now);
}

static void through(group *x, int id, double now) {
  pool *p = &x->p[id];
  advance(x, p, now);
  /* Done: what has no bytes left, or so few that they would take under a
   * picosecond (rounding), and always the one this event was for. */
  int first_done = -1;
  double least = INFINITY;
  for (int i = 0; i < p->n_on; i++) {
    double dt = time_left(&x->c[p->on[i]]);
    if (dt < least) least = dt, first_done = i;
  }
  int *done = x->done, n_done = 0, kept = 0;
  for (int i = 0; i < p->n_on; i++) {
    conn *c = &x->c[p->on[i]];
    if (i == first_done || time_left(c) <= 1e-12) {
      c->arrive[c->next++] = now;
      c->state = IDLE;
      done[n_done++] = p->on[i];
    } else {
      p->on[kept++] = p->on[i];
    }
  }
  p->n_on = kept;
  shares(x, p);
  next_through(x, id, now);
  for (int i = 0; i < n_done; i++) {
    int k = done[i];
    const ring_view *v = &x->rv[x->ring_of[k]];
    int n = x->c[k].ring->n, j = x->c[k].j;
    try_start(x, k);
    try_start(x, v->base + (j + 1 < n ? j + 1 : 0)); /* its successor may have waited for this unit */
  }
}

long hs_fast_rings_shared_units(hs_fast_ring *const *rings, int nr) {
  long units = 0;
  for (int r = 0; r < nr; r++) units += (long)rings[r]->n * rings[r]->steps * hs_lower_ring_units(rings[r]->pipe);
  return units;
}

void hs_fast_rings_shared(hs_fast_ring *const *rings, int nr, double *const *t, const double *pool_cap) {
  group x = {0};
  x.rv = calloc((size_t)nr, sizeof *x.rv);
  int n_conn = 0, max_pool = -1;
  for (int r = 0; r < nr; r++) {
    const hs_fast_ring *ring = rings[r];
    ring_view *v = &x.rv[r];
    v->ring = ring;
    v->G = hs_lower_ring_units(ring->pipe);
    v->L = hs_lower_ring_credit_lag(ring->pipe);
    v->equal = hs_fast_ring_equal_chunks(ring);
    v->units = (long)ring->steps * v->G;
    v->base = n_conn;
    v->unit_frac = malloc((size_t)v->G * sizeof *v->unit_frac);
    for (int g = 0; g < v->G; g++) v->unit_frac[g] = hs_fast_ring_unit_fraction(ring->pipe, g);
    v->t0 = t[r];
    n_conn += ring->n;
    for (int j = 0; j < ring->n; j++) max_pool = ring->pool[j] > max_pool ? ring->pool[j] : max_pool;
  }
  /* The schedule's pools this group crosses, numbered densely, then one of
   * its own for each connection its own bound held (nobody shares it). */
  int *local = malloc(((size_t)max_pool + 1) * sizeof *local + 1), n_pools = 0;
  for (int q = 0; q <= max_pool; q++) local[q] = -1;
  x.c = calloc((size_t)n_conn, sizeof *x.c);
  x.ring_of = malloc((size_t)n_conn * sizeof *x.ring_of);
  x.done = malloc((size_t)n_conn * sizeof *x.done);
  x.p = calloc((size_t)n_conn, sizeof *x.p);
  for (int r = 0; r < nr; r++) {
    const hs_fast_ring *ring = rings[r];
    for (int j = 0; j < ring->n; j++) {
      int k = x.rv[r].base + j, q = ring->pool[j], id;
      if (q >= 0 && local[q] >= 0) {
        id = local[q];
      } else {
        id = n_pools++;
        x.p[id].cap = q >= 0 ? pool_cap[q] : ring->rate[j];
        if (q >= 0) local[q] = id;
      }
      x.c[k] = (conn){ring, j, id, q >= 0 ? ring->solo[j] : ring->rate[j], 0, IDLE, 0, 0, NULL};
      x.c[k].arrive = malloc((size_t)x.rv[r].units * sizeof(double) + 1);
      x.ring_of[k] = r;
    }
  }
  int *members = calloc((size_t)n_pools + 1, sizeof *members);
  for (int k = 0; k < n_conn; k++) members[x.c[k].pool]++;
  for (int q = 0; q < n_pools; q++) x.p[q].on = malloc((size_t)members[q] * sizeof *x.p[q].on);
  free(members);
  hs_time_heap_init(&x.h, sizeof(event));
  for (int k = 0; k < n_conn; k++) try_start(&x, k);
  while (x.h.n > 0) {
    event ev;
    hs_time_heap_pop(&x.h, &ev);
    if (ev.conn >= 0) on_wire(&x, ev.conn, ev.at.time);
    else if (ev.version == x.p[ev.pool].version) through(&x, ev.pool, ev.at.time);
  }
  for (int r = 0; r < nr; r++) {
    const ring_view *v = &x.rv[r];
    int n = rings[r]->n;
    for (int j = 0; j < n; j++) {
      const conn *c = &x.c[v->base + j], *pred = &x.c[v->base + (j ? j - 1 : n - 1)];
      if (c->next != v->units || pred->next != v->units) {
        fprintf(stderr, "hearsay: fast fidelity: rings sharing links did not finish (a bug)\n");
        abort();
      }
      t[r][j] = dmax(pred->arrive[v->units - 1], c->arrive[v->units - 1]);
    }
  }
  for (int k = 0; k < n_conn; k++) free(x.c[k].arrive);
  for (int q = 0; q < n_pools; q++) free(x.p[q].on);
  for (int r = 0; r < nr; r++) free(x.rv[r].unit_frac);
  free(x.rv), free(x.c), free(x.p), free(x.ring_of), free(x.done), free(local);
  hs_time_heap_free(&x.h);
}
