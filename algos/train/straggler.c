/* straggler.c — evaluates stragglers { } for one rank (straggler.h). */
#include "algos/train/straggler.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct {
  const hs_straggler_entry *e;
  gsl_rng *rng; /* NOISE only: this rank's (or node's) stream */
  int key;      /* rank, or node when drawn per node */
  double fixed; /* NOISE drawn once: the stream's first draw, kept */
} active_entry;

struct hs_straggler {
  const hs_scenario *sc;
  int rank;
  active_entry *active;
  int n;
  hs_slowdown_fn *fn;
};

static double draw(const hs_straggler_entry *e, gsl_rng *r) {
  switch (e->noise) {
  case HS_NOISE_LOGNORMAL: return gsl_ran_lognormal(r, e->p1, e->p2);
  case HS_NOISE_EXPONENTIAL: return 1 + gsl_ran_exponential(r, e->p1);
  case HS_NOISE_PARETO: return gsl_ran_pareto(r, e->p1, e->p2);
  case HS_NOISE_UNIFORM: return gsl_ran_flat(r, e->p1, e->p2);
  }
  return 1;
}

static uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* One seed per (run seed, entry, rank or node, salt): streams that do not
 * depend on one another, so adding an entry leaves the others' draws alone. */
static uint64_t stream_seed(const hs_scenario *sc, int entry, int key, uint64_t salt) {
  return splitmix(splitmix(splitmix((uint64_t)sc->run.seed) ^ (uint64_t)(entry + 1) * 0x100000001b3ULL) ^
                  ((uint64_t)(key + 1) << 20) ^ salt);
}

static int applies(const hs_scenario *sc, const hs_straggler_entry *e, int rank) {
  int node = rank / sc->cluster.gpus_per_node;
  if (e->gpu >= 0) return e->gpu == rank;
  if (e->node >= 0) return e->node == node;
  if (e->rack >= 0) return e->rack == node / sc->cluster.rack_size;
  return 1;
}

hs_straggler *hs_straggler_create(const hs_scenario *sc, int rank) {
  const hs_straggler_spec *sp = &sc->stragglers;
  int n = 0;
  for (int i = 0; i < sp->n; i++) n += applies(sc, &sp->entries[i], rank);
  if (n == 0 && !sp->fn) return NULL;
  hs_straggler *s = calloc(1, sizeof *s);
  s->sc = sc;
  s->rank = rank;
  s->fn = sp->fn;
  s->active = calloc(n > 0 ? n : 1, sizeof *s->active);
  for (int i = 0; i < sp->n; i++) {
    const hs_straggler_entry *e = &sp->entries[i];
    if (!applies(sc, e, rank)) continue;
    active_entry *a = &s->active[s->n++];
    a->e = e;
    a->key = e->per_node ? rank / sc->cluster.gpus_per_node : rank;
    if (e->kind == HS_STRAGGLE_NOISE) {
      /* taus2: 24 bytes of state per stream, fine at thousands of ranks. */
      a->rng = gsl_rng_alloc(gsl_rng_taus2);
      gsl_rng_set(a->rng, (unsigned long)stream_seed(sc, e->index, a->key, 0));
      if (e->once) a->fixed = draw(e, a->rng);
    }
  }
  return s;
}

void hs_straggler_free(hs_straggler *s) {
  if (!s) return;
  for (int i = 0; i < s->n; i++) gsl_rng_free(s->active[i].rng);
  free(s->active);
  free(s);
}

double hs_straggler_factor(hs_straggler *s, int iteration, double t, char *err, size_t len) {
  if (!s) return 1;
  double f = 1;
  for (int i = 0; i < s->n; i++) {
    const hs_straggler_entry *e = s->active[i].e;
    int in_window = t >= e->from && t < e->to;
    if (e->kind == HS_STRAGGLE_SLOWDOWN && in_window) f *= e->factor;
    /* Drawn every iteration, used or not, so iteration i's draw is the
     * same whatever the window. */
    if (e->kind == HS_STRAGGLE_NOISE) {
      double x = e->once ? s->active[i].fixed : draw(e, s->active[i].rng);
      if (in_window) f *= x;
    }
  }
  if (s->fn) {
    double x = s->fn->call(s->fn, s->rank, iteration, t, err, len);
    if (x < 0) return -1;
    f *= x;
  }
  return f;
}

/* The k-th pause of a hiccup entry for key: [start, start + pause). */
static void pause_k(const hs_scenario *sc, const hs_straggler_entry *e, int key, long k, double *b, double *end) {
  double u = 0;
  if (e->jitter > 0) u = (double)(stream_seed(sc, e->index, key, (uint64_t)k + 1) >> 11) * 0x1.0p-53;
  *b = e->start + (double)k * e->every + e->jitter * u;
  *end = *b + e->pause;
}

/* The first pause of e that ends after t and starts in its window; 0 if none. */
static int next_pause(const hs_scenario *sc, const active_entry *a, double t, double *b, double *end) {
  const hs_straggler_entry *e = a->e;
  long k = (long)floor((t - e->start - e->pause - e->jitter) / e->every);
  if (k < 0) k = 0;
  for (;; k++) {
    pause_k(sc, e, a->key, k, b, end);
    if (*b >= e->to) return 0;
    if (*end > t && *b >= e->from) return 1;
  }
}

double hs_straggler_stall(const hs_straggler *s, double t0, double busy) {
  if (!s || busy <= 0) return 0;
  double t = t0, left = busy;
  for (;;) {
    /* The earliest pause, over every hiccup entry, that ends after t. */
    double b = INFINITY, end = INFINITY;
    for (int i = 0; i < s->n; i++) {
      double pb, pe;
      if (s->active[i].e->kind == HS_STRAGGLE_HICCUP && next_pause(s->sc, &s->active[i], t, &pb, &pe) && pb < b)
        b = pb, end = pe;
    }
    if (b >= t + left) return t + left - t0 - busy;
    if (b > t) left -= b - t;
    t = end;
  }
}
