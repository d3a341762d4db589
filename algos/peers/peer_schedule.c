/* peer_schedule.c — a scheme's steps, built for every rank at once and
 * validated (peer_scheme.h).
 *
 * A step is built whole, the first time any rank asks for it: the scheme is
 * called once per rank, the lists are checked (range, self, duplicates,
 * weights, symmetry for undirected schemes) and turned into in- and
 * out-edges. Building whole steps is what lets a receiver of a directed
 * scheme know who sends to it, and lets a violation name both ranks.
 * Ranks of one simulation share the cache; they are at most a few steps
 * apart, so a small window of steps is kept and an evicted step is simply
 * rebuilt (schemes are pure functions of rank, n and step). */
#include "algos/peers/peer_scheme.h"

#include "algos/peers/peer_graph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WINDOW 8
/* Rounding slack when checking that a rank's weights sum to at most 1:
 * weights such as 1/3 + 1/3 + 1/3 land a few ulps above 1. */
#define WEIGHT_SLACK 1e-12

typedef struct {
  hs_peer_step st;
  size_t cap_edges;
} slot;

struct hs_peer_schedule {
  hs_peer_scheme *scheme;
  int n;
  slot slots[WINDOW];
  hs_peer_edge *buf; /* one rank's answer */
  int buf_cap;
  int *counts; /* per rank, while building */
  hs_peer_edge *lists; /* every rank's answer, CSR by counts */
  size_t lists_cap;
};

hs_peer_schedule *hs_peer_schedule_create(hs_peer_scheme *scheme, int n) {
  hs_peer_schedule *ps = calloc(1, sizeof *ps);
  ps->scheme = scheme;
  ps->n = n;
  for (int i = 0; i < WINDOW; i++) {
    hs_peer_step *st = &ps->slots[i].st;
    st->step = -1;
    st->n = n;
    st->out_off = calloc(n + 1, sizeof(int));
    st->in_off = calloc(n + 1, sizeof(int));
    st->self = calloc(n, sizeof(double));
  }
  ps->counts = calloc(n + 1, sizeof(int));
  ps->buf_cap = 16;
  ps->buf = malloc(ps->buf_cap * sizeof *ps->buf);
  ps->lists_cap = 16; /* never NULL: memcpy and qsort of an empty list still need a valid pointer */
  ps->lists = malloc(ps->lists_cap * sizeof *ps->lists);
  return ps;
}

void hs_peer_schedule_free(hs_peer_schedule *ps) {
  if (!ps) return;
  for (int i = 0; i < WINDOW; i++) {
    hs_peer_step *st = &ps->slots[i].st;
    free(st->out_off), free(st->in_off), free(st->out), free(st->in), free(st->self);
  }
  free(ps->counts), free(ps->buf), free(ps->lists);
  free(ps);
}

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Asks the scheme for one rank's list into ps->buf; the count, or -1. */
static int ask(hs_peer_schedule *ps, int rank, long step, char *err, size_t len) {
  hs_peer_scheme *s = ps->scheme;
  for (;;) {
    double t0 = wall();
    int k = s->ops->select(s, rank, ps->n, step, ps->buf, ps->buf_cap, err, len);
    s->select_seconds += wall() - t0;
    s->select_calls++;
    if (k <= ps->buf_cap) return k;
    ps->buf_cap = k;
    ps->buf = realloc(ps->buf, ps->buf_cap * sizeof *ps->buf);
  }
}

static int by_peer(const void *a, const void *b) {
  int x = ((const hs_peer_edge *)a)->peer, y = ((const hs_peer_edge *)b)->peer;
  return (x > y) - (x < y);
}

/* Is `peer` in rank's sorted list? Its weight, or NAN. */
static double find(const hs_peer_schedule *ps, int rank, int peer) {
  const hs_peer_edge *l = ps->lists + ps->counts[rank];
  int lo = 0, hi = ps->counts[rank + 1] - ps->counts[rank] - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (l[mid].peer == peer) return l[mid].weight;
    if (l[mid].peer < peer) lo = mid + 1;
    else hi = mid - 1;
  }
  return NAN;
}

/* Collects and checks every rank's list: ps->lists in CSR by ps->counts
 * (sorted by peer, weights resolved). 0 or -1 with err. */
static int collect(hs_peer_schedule *ps, long step, char *err, size_t len) {
  int n = ps->n;
  const char *what = ps->scheme->directed ? "sends to" : "lists";
  size_t total = 0;
  ps->counts[0] = 0;
  for (int r = 0; r < n; r++) {
    char why[HS_PEER_ERR_MAX] = "";
    int k = ask(ps, r, step, why, sizeof why);
    if (k < 0) {
      snprintf(err, len, "step %ld, rank %d of %d: %s", step, r, n, why);
      return -1;
    }
    if (total + k > ps->lists_cap) {
      ps->lists_cap = (total + k) * 2;
      ps->lists = realloc(ps->lists, ps->lists_cap * sizeof *ps->lists);
    }
    hs_peer_edge *l = ps->lists ? ps->lists + total : NULL; /* no list yet: every rank so far returned none */
    if (k > 0) memcpy(l, ps->buf, k * sizeof *l);
    double sum = 0;
    for (int i = 0; i < k; i++) {
      if (l[i].peer < 0 || l[i].peer >= n) {
        snprintf(err, len, "step %ld: rank %d %s peer %d, outside 0..%d", step, r, what, l[i].peer, n - 1);
        return -1;
      }
      if (l[i].peer == r) {
        snprintf(err, len, "step %ld: rank %d %s itself (its own weight is what the others leave)", step, r, what);
        return -1;
      }
      if (l[i].weight < 0) l[i].weight = 1.0 / (k + 1);
      if (!(l[i].weight > 0) || !isfinite(l[i].weight)) {
        snprintf(err, len, "step %ld: rank %d gives peer %d weight %g; weights must be in (0, 1]", step, r,
                 l[i].peer, l[i].weight);
        return -1;
      }
      sum += l[i].weight;
    }
    if (sum > 1 + WEIGHT_SLACK) {
      snprintf(err, len, "step %ld: the weights of rank %d sum to %.12g > 1, so its own weight would be negative "
               "(%s of W)", step, r, sum, ps->scheme->directed ? "column" : "row");
      return -1;
    }
    qsort(l, k, sizeof *l, by_peer);
    for (int i = 1; i < k; i++)
      if (l[i].peer == l[i - 1].peer) {
        snprintf(err, len, "step %ld: rank %d %s peer %d twice", step, r, what, l[i].peer);
        return -1;
      }
    total += k;
    ps->counts[r + 1] = (int)total;
  }
  if (!ps->scheme->directed)
    for (int r = 0; r < n; r++)
      for (int e = ps->counts[r]; e < ps->counts[r + 1]; e++) {
        int p = ps->lists[e].peer;
        if (isnan(find(ps, p, r))) {
          snprintf(err, len, "step %ld: rank %d pairs with rank %d, but rank %d does not pair with rank %d "
                   "(an undirected scheme must be symmetric; a scheme of send-to lists declares directed = true)",
                   step, r, p, p, r);
          return -1;
        }
      }
  return 0;
}

static void build(hs_peer_schedule *ps, slot *sl, long step) {
  int n = ps->n;
  hs_peer_step *st = &sl->st;
  size_t total = (size_t)ps->counts[n];
  if (total > sl->cap_edges || !st->out) {
    sl->cap_edges = total ? total : 1; /* never NULL, even for a step without edges: memcpy needs a pointer */
    st->out = realloc(st->out, sl->cap_edges * sizeof *st->out);
    st->in = realloc(st->in, sl->cap_edges * sizeof *st->in);
  }
  st->step = step;
  for (int r = 0; r < n; r++) {
    double sum = 0;
    for (int e = ps->counts[r]; e < ps->counts[r + 1]; e++) sum += ps->lists[e].weight;
    st->self[r] = sum >= 1 ? 0 : 1 - sum;
  }
  if (!ps->scheme->directed) {
    /* In = the rank's own list with its weights; out = the same peers, each
     * carrying the weight that peer gives this rank. */
    memcpy(st->in_off, ps->counts, (n + 1) * sizeof(int));
    memcpy(st->out_off, ps->counts, (n + 1) * sizeof(int));
    memcpy(st->in, ps->lists, total * sizeof *st->in);
    for (size_t e = 0; e < total; e++) st->out[e] = ps->lists[e];
    for (int r = 0; r < n; r++)
      for (int e = ps->counts[r]; e < ps->counts[r + 1]; e++) st->out[e].weight = find(ps, st->out[e].peer, r);
    return;
  }
  /* Directed: out = the lists; in = their transpose, sorted by sender
   * because senders are visited in order. */
  memcpy(st->out_off, ps->counts, (n + 1) * sizeof(int));
  memcpy(st->out, ps->lists, total * sizeof *st->out);
  memset(st->in_off, 0, (n + 1) * sizeof(int));
  for (size_t e = 0; e < total; e++) st->in_off[ps->lists[e].peer + 1]++;
  for (int r = 0; r < n; r++) st->in_off[r + 1] += st->in_off[r];
  int *fill = ps->counts; /* reused as cursors: the lists are copied already */
  for (int r = 0; r < n; r++) fill[r] = st->in_off[r];
  for (int r = 0; r < n; r++)
    for (int e = st->out_off[r]; e < st->out_off[r + 1]; e++)
      st->in[fill[st->out[e].peer]++] = (hs_peer_edge){r, st->out[e].weight};
}

const hs_peer_step *hs_peer_schedule_get(hs_peer_schedule *ps, long step, char *err, size_t len) {
  slot *sl = &ps->slots[step % WINDOW];
  if (sl->st.step == step) return &sl->st;
  if (collect(ps, step, err, len)) return NULL;
  build(ps, sl, step);
  return &sl->st;
}

const hs_peer_step *hs_peer_schedule_get_or_exit(hs_peer_schedule *ps, long step) {
  char err[HS_PEER_ERR_MAX];
  const hs_peer_step *st = hs_peer_schedule_get(ps, step, err, sizeof err);
  if (st) return st;
  fprintf(stderr, "hearsay: peer scheme %s is broken: %s\n", ps->scheme->name, err);
  /* _exit: this may run inside a simulated actor, whose engine must not run
   * its exit handlers half-way through a simulation; nothing is half
   * written because outputs are written after the run. */
  fflush(NULL);
  _exit(2);
}

int hs_peer_scheme_check(hs_peer_scheme *scheme, int n, long steps, char *err, size_t len) {
  hs_peer_schedule *ps = hs_peer_schedule_create(scheme, n);
  int rc = 0;
  for (long t = 0; t < steps && !rc; t++)
    if (!hs_peer_schedule_get(ps, t, err, len)) rc = -1;
  hs_peer_schedule_free(ps);
  return rc;
}

hs_peer_schedule *hs_peer_scheme_schedule(hs_peer_scheme *s, int n) {
  if (s->shared && s->shared->n != n) hs_peer_schedule_free(s->shared), s->shared = NULL;
  if (!s->shared) s->shared = hs_peer_schedule_create(s, n);
  return s->shared;
}

void hs_peer_scheme_free(hs_peer_scheme *s) {
  if (!s) return;
  hs_peer_schedule_free(s->shared);
  s->shared = NULL;
  if (s->graph) hs_peer_graph_free(s->graph), free(s->graph), s->graph = NULL;
  if (s->ops->destroy) s->ops->destroy(s);
}
