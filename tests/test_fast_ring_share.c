/* test_fast_ring_share.c — pipelined rings timed together through links
 * they share (sim/fast_ring.h), against closed forms.
 *
 * Two rings A and B of two members each run an allreduce (two steps of one
 * chunk of b bytes, one unit a step, no latency, no hop). Connection j of
 * A and of B cross one link of capacity C (pool j); alone, a connection
 * gets `solo` of it.
 *  1. Both start at 0: they share every link half and half all along, the
 *     fixed shares' answer: every member ends at 4b/C.
 *  2. B starts tau after A (tau < b/C): A has the links alone until tau,
 *     then they share; A's first unit is through at 2b/C - tau, B's at
 *     2b/C + tau, A ends at 4b/C - tau and B, alone again for its last
 *     tau, at 4b/C: the links never idle while a unit waits (4b of work
 *     on each at C). Fixed shares would end A at 4b/C and B at 4b/C + tau.
 *  3. The same with the rings given in the other order: the same times.
 *  4. B starts after A has ended, each alone at solo = 0.75 C: A ends at
 *     2b/solo, B at tau' + 2b/solo (a unit never gets more than it
 *     would alone).
 *  5. Rings of 2 to 6 members, uneven chunks, 1 to 8 slices and windows,
 *     latencies, hops and starts drawn at random, each connection alone on
 *     its link (no pool): the same finishes as the pipelined ring's
 *     recurrence (fast.c's ring_pipelined, written again below from its
 *     rules without its shortcuts), three rings a call.
 * Tolerance 1e-12 relative: rounding of a few additions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/fast_ring.h"
#include "tests/tap.h"

enum { N = 2, MAX_N = 6 };

/* A ring and the arrays it points at. */
typedef struct {
  hs_fast_ring ring;
  int members[MAX_N], rec[MAX_N], pool[MAX_N];
  size_t bytes[MAX_N];
  double lat[MAX_N], rate[MAX_N], hop[MAX_N], solo[MAX_N], t[MAX_N], want[MAX_N];
} ring_store;

static void attach(ring_store *x, int n, int first, int steps, hs_ring_pipeline pipe) {
  memset(x, 0, sizeof *x);
  hs_fast_ring *r = &x->ring;
  r->n = n, r->first = first, r->steps = steps, r->pipe = pipe, r->group = 0;
  r->members = x->members, r->rec = x->rec, r->bytes = x->bytes, r->lat = x->lat, r->rate = x->rate;
  r->hop = x->hop, r->pool = x->pool, r->solo = x->solo;
}

static void make(ring_store *x, const char *tag, int first_member, double b, double c, double solo) {
  attach(x, N, 0, 2 * (N - 1), (hs_ring_pipeline){1, 1});
  snprintf(x->ring.tag, sizeof x->ring.tag, "%s", tag);
  for (int j = 0; j < N; j++) {
    x->members[j] = first_member + j;
    x->pool[j] = j;
    x->bytes[j] = (size_t)b;
    x->ring.total += b;
    x->rate[j] = c / 2; /* the fixed share: both rings on every link */
    x->solo[j] = solo;
  }
}

static int near(double got, double want) { return fabs(got - want) <= 1e-12 * fabs(want); }

/* Times A (starting at ta) and B (at tb), in that order or reversed;
 * returns each ring's members' finishes (both members of a ring end alike here). */
static void timed(double b, double c, double solo, double ta, double tb, int reversed, double *end_a, double *end_b) {
  ring_store a, bb;
  make(&a, "A", 0, b, c, solo);
  make(&bb, "B", N, b, c, solo);
  double pool_cap[N] = {c, c};
  double ta_v[N] = {ta, ta}, tb_v[N] = {tb, tb};
  hs_fast_ring *rings[2] = {reversed ? &bb.ring : &a.ring, reversed ? &a.ring : &bb.ring};
  double *t[2] = {reversed ? tb_v : ta_v, reversed ? ta_v : tb_v};
  hs_fast_rings_shared(rings, 2, t, pool_cap);
  end_a[0] = ta_v[0], end_a[1] = ta_v[1];
  end_b[0] = tb_v[0], end_b[1] = tb_v[1];
}

/* The pipelined ring alone at fixed rates: a unit leaves position j when
 * its data is there (the previous step's unit from j - 1, or the start)
 * plus the hop, j + 1 holds a credit for it (the unit L earlier arrived
 * there, or its start) plus the latency, and j's previous unit is off;
 * it arrives after its bytes at the connection's rate. A position ends
 * with its last receive and its last send. */
static void recurrence(const hs_fast_ring *ring, double *t) {
  int n = ring->n, S = ring->pipe.slices, W = ring->pipe.window;
  int G = hs_lower_ring_units(ring->pipe), L = hs_lower_ring_credit_lag(ring->pipe);
  long units = (long)ring->steps * G;
  int equal = hs_fast_ring_equal_chunks(ring);
  double *a = malloc((size_t)units * (size_t)n * sizeof *a), *t0 = malloc((size_t)n * sizeof *t0);
  double *off = malloc((size_t)n * sizeof *off);
  memcpy(t0, t, (size_t)n * sizeof *t);
  for (int j = 0; j < n; j++) off[j] = -INFINITY;
  for (long u = 0; u < units; u++) {
    int step = (int)(u / G), g = (int)(u % G);
    double frac = (double)(S > W ? (g + 1 < G ? W : S - g * W) : S) / S;
    for (int j = 0; j < n; j++) {
      int succ = (j + 1) % n;
      double ready = step == 0 ? t0[j] : a[(u - G) * n + j];
      double credit = u < L ? t0[succ] : a[(u - L) * n + succ];
      double bytes = (equal ? ring->total / n : hs_fast_ring_step_bytes(ring, j, step)) * frac;
      double begin = fmax(fmax(ready + ring->hop[j], credit) + ring->lat[j], off[j]);
      off[j] = begin + bytes / ring->rate[j];
    }
    for (int j = 0; j < n; j++) a[u * n + (j + 1) % n] = off[j];
  }
  for (int j = 0; j < n; j++) t[j] = fmax(a[(units - 1) * n + j], a[(units - 1) * n + (j + 1) % n]);
  free(a), free(t0), free(off);
}

static unsigned long long lcg = 88172645463325252ull;
static double uniform(double lo, double hi) {
  lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (hi - lo) * (double)(lcg >> 11) / 9007199254740992.0;
}

static void draw(ring_store *x) {
  int n = 2 + (int)uniform(0, MAX_N - 1);
  int steps = 1 + (int)uniform(0, 2 * (n - 1)), first = (int)uniform(0, 2 * (n - 1) - steps + 1);
  attach(x, n, first, steps, (hs_ring_pipeline){1 + (int)uniform(0, 8), 1 + (int)uniform(0, 8)});
  hs_fast_ring *r = &x->ring;
  for (int j = 0; j < n; j++) {
    x->members[j] = j;
    x->bytes[j] = (size_t)uniform(1e3, 1e6);
    r->total += (double)x->bytes[j];
    x->lat[j] = uniform(0, 5e-6);
    x->hop[j] = uniform(0, 1e-5);
    x->rate[j] = x->solo[j] = uniform(1e9, 1e11);
    x->pool[j] = -1;
    x->t[j] = x->want[j] = uniform(0, 1e-3);
  }
  recurrence(r, x->want);
}

int main(void) {
  const double b = 1e6, c = 1e9, tau = 2e-4; /* b / C = 1 ms */
  double ea[N], eb[N];

  timed(b, c, c, 0, 0, 0, ea, eb);
  tap_ok(near(ea[0], 4 * b / c) && near(ea[1], 4 * b / c) && near(eb[0], 4 * b / c) && near(eb[1], 4 * b / c),
         "together: every member ends at 4b/C = %.9g s (A %.9g %.9g, B %.9g %.9g)", 4 * b / c, ea[0], ea[1], eb[0],
         eb[1]);

  timed(b, c, c, 0, tau, 0, ea, eb);
  tap_ok(near(ea[0], 4 * b / c - tau) && near(ea[1], 4 * b / c - tau) && near(eb[0], 4 * b / c) &&
             near(eb[1], 4 * b / c),
         "B tau late: A ends at 4b/C - tau = %.9g s (%.9g), B at 4b/C = %.9g s (%.9g); fixed shares: %.9g and %.9g",
         4 * b / c - tau, ea[0], 4 * b / c, eb[0], 4 * b / c, 4 * b / c + tau);

  double ra[N], rb[N];
  timed(b, c, c, 0, tau, 1, ra, rb);
  tap_ok(ra[0] == ea[0] && ra[1] == ea[1] && rb[0] == eb[0] && rb[1] == eb[1],
         "the rings in the other order: the same times (A %.9g, B %.9g)", ra[0], rb[0]);

  const double solo = 0.75 * c, late = 10 * b / c;
  timed(b, c, solo, 0, late, 0, ea, eb);
  tap_ok(near(ea[0], 2 * b / solo) && near(eb[0], late + 2 * b / solo) && near(ea[1], ea[0]) && near(eb[1], eb[0]),
         "apart, each alone at its solo rate 0.75 C: A ends at 2b/solo = %.9g s (%.9g), B at %.9g s (%.9g)",
         2 * b / solo, ea[0], late + 2 * b / solo, eb[0]);

  double worst = 0;
  int calls = 200, ok = 1;
  for (int call = 0; call < calls; call++) {
    ring_store x[3];
    hs_fast_ring *rings[3];
    double *t[3];
    for (int i = 0; i < 3; i++) draw(&x[i]), rings[i] = &x[i].ring, t[i] = x[i].t;
    hs_fast_rings_shared(rings, 3, t, NULL);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < x[i].ring.n; j++) {
        double err = fabs(x[i].t[j] - x[i].want[j]) / x[i].want[j];
        worst = err > worst ? err : worst;
        ok &= err <= 1e-12;
      }
  }
  tap_ok(ok, "%d calls of three random rings, each connection alone on its link: the ring's recurrence, "
             "largest difference %.2g (<= 1e-12)", calls, worst);
  return tap_done(0);
}
