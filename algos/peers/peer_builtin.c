/* peer_builtin.c — the built-in peer-selection schemes, in C.
 *
 * Each has a twin written in Lua in scenarios/peers/NAME.lua, the template
 * users copy; tests/test_peer_schemes.c checks that every twin trains bit
 * for bit like the scheme here. Weights left at -1 mean uniform
 * (1/(degree + 1)), which on a regular graph is also the Metropolis-Hastings
 * weight 1/(max(d_i, d_j) + 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/peers/peer_scheme.h"
#include "algos/peers/peers.h"

typedef int (*list_fn)(hs_peer_scheme *s, int rank, int n, long step, int *peers, double *w, char *err, size_t len);

typedef struct {
  const char *name;
  list_fn fn;
  bool directed, allreduce, hierarchical;
  const char *summary;
} builtin;

/* Per-scheme scratch: the random schemes build a whole step once and answer
 * every rank from it. */
typedef struct {
  const builtin *b;
  long step; /* the step `table` holds, -1: none */
  int n;
  int *table; /* random_matching: partner per rank; random_regular: DEGREE per rank */
  int *perm;
  int *peers;
  double *w;
  int cap;
} scheme_state;

#define RANDOM_REGULAR_DEGREE 4

static long mod(long a, long m) { return ((a % m) + m) % m; }

static int all_fn(hs_peer_scheme *s, int r, int n, long t, int *p, double *w, char *e, size_t l) {
  (void)s, (void)t, (void)e, (void)l;
  int k = 0;
  for (int j = 0; j < n; j++)
    if (j != r) p[k] = j, w[k++] = 1.0 / n;
  return k;
}

static int ring_fn(hs_peer_scheme *s, int r, int n, long t, int *p, double *w, char *e, size_t l) {
  (void)s, (void)t, (void)w, (void)e, (void)l;
  if (n == 1) return 0;
  p[0] = hs_peer_left(r, n);
  if (n == 2) return 1;
  p[1] = hs_peer_right(r, n);
  return 2;
}

/* One-sided rings are directed: ring_left takes from the left neighbour,
 * that is, every rank sends to its right. */
static int ring_left_fn(hs_peer_scheme *s, int r, int n, long t, int *p, double *w, char *e, size_t l) {
  (void)s, (void)t, (void)w, (void)e, (void)l;
  if (n == 1) return 0;
  p[0] = hs_peer_right(r, n);
  return 1;
}

static int ring_right_fn(hs_peer_scheme *s, int r, int n, long t, int *p, double *w, char *e, size_t l) {
  (void)s, (void)t, (void)w, (void)e, (void)l;
  if (n == 1) return 0;
  p[0] = hs_peer_left(r, n);
  return 1;
}

static int shift_one_fn(hs_peer_scheme *s, int r, int n, long t, int *p, double *w, char *e, size_t l) {
  (void)s, (void)w;
  if (n % 2) {
    snprintf(e, l, "shift_one pairs every rank, so it needs an even number of ranks (got %d); \"ring\" or "
             "\"exp2\" gossip over any number", n);
    return -1;
  }
  p[0] = hs_peer_shift_one(r, n, t);
  return 1;
}

/* BlueFog's static exponential-2 graph: send to r + 2^k for 2^k < n. */
static int exp2_fn(hs_peer_scheme *s, int r, int n, long t, int *p, double *w, char *e, size_t l) {
  (void)s, (void)t, (void)w, (void)e, (void)l;
  int k = 0;
  for (long d = 1; d < n; d *= 2) p[k++] = (int)((r + d) % n);
  return k;
}

/* BlueFog's dynamic one-peer exponential-2 graph: at step t send to
 * r + 2^(t mod (floor(log2(n-1)) + 1)), keep half. */
static int exp2_one_peer_fn(hs_peer_scheme *s, int r, int n, long t, int *p, double *w, char *e, size_t l) {
  (void)s, (void)w, (void)e, (void)l;
  if (n == 1) return 0;
  int exps = hs_peer_log2(n - 1) + 1;
  p[0] = (int)((r + (1L << (t % exps))) % n);
  return 1;
}

/* SGP's DynamicDirectedExponentialGraph: the phone book r+1, r-1, r+2,
 * r-2, ..., r+2^K, r-2^K (K = floor(log2(n-1)), repeats dropped), one
 * entry per step, the same entry index on every rank. */
static int sgp_exp_fn(hs_peer_scheme *s, int r, int n, long t, int *p, double *w, char *e, size_t l) {
  (void)s, (void)w, (void)e, (void)l;
  if (n == 1) return 0;
  int book[128], len = 0, K = hs_peer_log2(n - 1);
  for (int i = 0; i <= K; i++) {
    int cand[2] = {(int)((r + (1L << i)) % n), (int)mod(r - (1L << i), n)};
    for (int c = 0; c < 2; c++) {
      int seen = 0;
      for (int j = 0; j < len; j++) seen |= book[j] == cand[c];
      if (!seen) book[len++] = cand[c];
    }
  }
  p[0] = book[t % len];
  return 1;
}

static int torus2d_fn(hs_peer_scheme *s, int r, int n, long t, int *p, double *w, char *e, size_t l) {
  (void)s, (void)t, (void)w, (void)e, (void)l;
  int a = 1;
  for (int d = 1; (long)d * d <= n; d++)
    if (n % d == 0) a = d;
  int b = n / a, i = r / b, j = r % b, k = 0;
  int cand[4] = {(int)mod(i - 1, a) * b + j, (int)mod(i + 1, a) * b + j, i * b + (int)mod(j - 1, b),
                 i * b + (int)mod(j + 1, b)};
  for (int c = 0; c < 4; c++) {
    int seen = cand[c] == r;
    for (int x = 0; x < k; x++) seen |= p[x] == cand[c];
    if (!seen) p[k++] = cand[c];
  }
  return k;
}

static scheme_state *state_for(hs_peer_scheme *s, int n, int per_rank) {
  scheme_state *st = s->impl;
  if (st->n != n) {
    st->n = n;
    st->step = -1;
    st->table = realloc(st->table, (size_t)n * per_rank * sizeof(int));
    st->perm = realloc(st->perm, (size_t)n * sizeof(int));
  }
  return st;
}

/* A random perfect matching per step: consecutive entries of a permutation
 * drawn from (seed, step) pair up; with n odd the last one sits out. */
static int random_matching_fn(hs_peer_scheme *s, int r, int n, long t, int *p, double *w, char *e, size_t l) {
  (void)w, (void)e, (void)l;
  scheme_state *st = state_for(s, n, 1);
  if (st->step != t) {
    hs_peer_permutation(n, s->seed, t, st->perm);
    for (int i = 0; i < n; i++) st->table[i] = -1;
    for (int i = 0; i + 1 < n; i += 2) st->table[st->perm[i]] = st->perm[i + 1], st->table[st->perm[i + 1]] = st->perm[i];
    st->step = t;
  }
  if (st->table[r] < 0) return 0;
  p[0] = st->table[r];
  return 1;
}

/* A random 4-regular graph per step: the union of two Hamiltonian cycles,
 * cycle c of attempt a following the permutation of round (1000 t + a) 2 + c;
 * an attempt whose cycles share an edge is redrawn. Random regular graphs are
 * expanders with high probability, unlike a relabelled ring. */
static int regular_has(const int *table, int d, int a, int b, int filled) {
  for (int x = 0; x < filled; x++)
    if (table[a * d + x] == b) return 1;
  return 0;
}

static int random_regular_fn(hs_peer_scheme *s, int r, int n, long t, int *p, double *w, char *e, size_t l) {
  (void)w;
  const int d = RANDOM_REGULAR_DEGREE;
  if (n <= d) {
    snprintf(e, l, "random_regular draws %d-regular graphs, so it needs more than %d ranks (got %d)", d, d, n);
    return -1;
  }
  scheme_state *st = state_for(s, n, d);
  for (long attempt = 0; st->step != t; attempt++) {
    if (attempt == 1000) {
      snprintf(e, l, "random_regular found no simple %d-regular graph in 1000 draws at n = %d", d, n);
      return -1;
    }
    int ok = 1;
    int *fill = calloc(n, sizeof(int));
    for (int c = 0; c < d / 2 && ok; c++) {
      hs_peer_permutation(n, s->seed, (t * 1000 + attempt) * 2 + c, st->perm);
      for (int i = 0; i < n && ok; i++) {
        int a = st->perm[i], b = st->perm[(i + 1) % n];
        if (regular_has(st->table, d, a, b, fill[a])) ok = 0;
        else st->table[a * d + fill[a]++] = b, st->table[b * d + fill[b]++] = a;
      }
    }
    free(fill);
    if (ok) st->step = t;
  }
  for (int x = 0; x < d; x++) p[x] = st->table[r * d + x];
  return d;
}

static const builtin builtins[] = {
    {"all", all_fn, false, true, false, "every rank averages with every rank (run as one allreduce)"},
    {"ring", ring_fn, false, false, false, "both ring neighbours, weights 1/3"},
    {"ring_left", ring_left_fn, true, false, false, "average with the left neighbour (send to the right), 1/2"},
    {"ring_right", ring_right_fn, true, false, false, "average with the right neighbour (send to the left), 1/2"},
    {"shift_one", shift_one_fn, false, false, false, "Bagua's shift_one: one peer per step, pairs change each step"},
    {"exp2", exp2_fn, true, false, false, "BlueFog's static exponential-2 graph, uniform weights"},
    {"exp2_one_peer", exp2_one_peer_fn, true, false, false,
     "BlueFog's dynamic one-peer exponential-2 graph: exact average after log2(n) steps (n a power of 2)"},
    {"machine_exp2", exp2_fn, true, false, true,
     "exponential-2 graph among machines, after an average inside each machine"},
    {"sgp_exp", sgp_exp_fn, true, false, false, "SGP's directed exponential graph, one peer per step, push-sum"},
    {"random_matching", random_matching_fn, false, false, false, "a random perfect matching per step (seeded)"},
    {"torus2d", torus2d_fn, false, false, false, "2-D torus (rows x columns as square as n allows), weights 1/5"},
    {"random_regular", random_regular_fn, false, false, false,
     "a random 4-regular graph per step (two random Hamiltonian cycles), weights 1/5"},
    {NULL, NULL, false, false, false, NULL},
};

static int builtin_select(hs_peer_scheme *s, int rank, int n, long step, hs_peer_edge *out, int max, char *err,
                          size_t len) {
  scheme_state *st = s->impl;
  if (st->cap < n) {
    st->cap = n;
    st->peers = realloc(st->peers, n * sizeof(int));
    st->w = realloc(st->w, n * sizeof(double));
    for (int i = 0; i < n; i++) st->w[i] = -1;
  }
  /* w[i] stays -1 (no weight given) unless the scheme sets it; only the k
   * entries a call can have set are reset after it, so a call costs its
   * degree, not n (at 2^19 ranks, n per call made checking a step O(n^2)). */
  int k = st->b->fn(s, rank, n, step, st->peers, st->w, err, len);
  for (int i = 0; i < k && i < max; i++) out[i] = (hs_peer_edge){st->peers[i], st->w[i]};
  for (int i = 0; i < k && i < n; i++) st->w[i] = -1;
  return k;
}

static void builtin_destroy(hs_peer_scheme *s) {
  scheme_state *st = s->impl;
  free(st->table), free(st->perm), free(st->peers), free(st->w);
  free(st);
  free(s);
}

static const hs_peer_scheme_ops builtin_ops = {builtin_select, builtin_destroy};

hs_peer_scheme *hs_peer_builtin(const char *name) {
  for (const builtin *b = builtins; b->name; b++) {
    if (strcmp(b->name, name) != 0) continue;
    hs_peer_scheme *s = calloc(1, sizeof *s);
    scheme_state *st = calloc(1, sizeof *st);
    st->b = b;
    st->step = -1;
    s->ops = &builtin_ops;
    s->impl = st;
    snprintf(s->name, sizeof s->name, "%s", b->name);
    s->directed = b->directed;
    s->allreduce = b->allreduce;
    s->hierarchical = b->hierarchical;
    return s;
  }
  return NULL;
}

const char *hs_peer_builtin_names(void) {
  static char names[512];
  if (!names[0])
    for (const builtin *b = builtins; b->name; b++) {
      strncat(names, b->name, sizeof names - strlen(names) - 1);
      if (b[1].name) strncat(names, ", ", sizeof names - strlen(names) - 1);
    }
  return names;
}

const char *hs_peer_builtin_summary(const char *name) {
  for (const builtin *b = builtins; b->name; b++)
    if (strcmp(b->name, name) == 0) return b->summary;
  return NULL;
}
