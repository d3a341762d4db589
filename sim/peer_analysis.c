/* peer_analysis.c — mixing matrices, spectrum and measured decay of a
 * peer-selection scheme (peer_analysis.h). */
#include "sim/peer_analysis.h"

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows and columns summing to 1 within this count as stochastic: sums of a
 * few weights such as 1/3 are off by a few ulps. */
#define STOCHASTIC_TOL 1e-9
/* Steps kept to find a period (a period longer than half of it is missed). */
#define PERIOD_WINDOW 128
/* Edges kept for the period search, all steps together (a dense scheme at
 * n = 1024 has a million edges per step). */
#define PERIOD_EDGES_MAX (8L << 20)
/* Matrices multiplied for the rate of a scheme that never repeats. */
#define APERIODIC_PRODUCT 16
/* Vectors gossiped at once for the measured decay. */
#define VECTORS 4
/* Below this the relative error is at double precision's floor: the fit
 * stops there, and below 1e-12 consensus counts as exact. */
#define FIT_FLOOR 1e-10
#define EXACT 1e-12

typedef struct {
  int *off;
  hs_peer_edge *in;
  double *self;
} kept_step;

static void keep(kept_step *k, const hs_peer_step *st) {
  int n = st->n, e = st->in_off[n];
  k->off = malloc((n + 1) * sizeof(int));
  k->in = malloc((e ? e : 1) * sizeof *k->in);
  k->self = malloc(n * sizeof(double));
  memcpy(k->off, st->in_off, (n + 1) * sizeof(int));
  memcpy(k->in, st->in, e * sizeof *k->in);
  memcpy(k->self, st->self, n * sizeof(double));
}

/* Field by field: hs_peer_edge has padding that memcmp would compare. */
static int same_step(const kept_step *a, const kept_step *b, int n) {
  if (memcmp(a->off, b->off, (n + 1) * sizeof(int)) != 0) return 0;
  for (int e = 0; e < a->off[n]; e++)
    if (a->in[e].peer != b->in[e].peer || a->in[e].weight != b->in[e].weight) return 0;
  for (int i = 0; i < n; i++)
    if (a->self[i] != b->self[i]) return 0;
  return 1;
}

/* y = W x for k columns (row-major n x k). */
static void apply(const hs_peer_step *st, const double *x, double *y, int k) {
  for (int i = 0; i < st->n; i++) {
    for (int c = 0; c < k; c++) y[i * k + c] = st->self[i] * x[i * k + c];
    for (int e = st->in_off[i]; e < st->in_off[i + 1]; e++)
      for (int c = 0; c < k; c++) y[i * k + c] += st->in[e].weight * x[st->in[e].peer * k + c];
  }
}

/* Largest and second-largest eigenvalue moduli of M (destroyed). */
static void top_moduli(double *M, int n, double *first, double *second) {
  gsl_matrix_view m = gsl_matrix_view_array(M, n, n);
  gsl_vector_complex *ev = gsl_vector_complex_alloc(n);
  gsl_eigen_nonsymm_workspace *ws = gsl_eigen_nonsymm_alloc(n);
  gsl_eigen_nonsymm(&m.matrix, ev, ws);
  *first = *second = 0;
  for (int i = 0; i < n; i++) {
    gsl_complex z = gsl_vector_complex_get(ev, i);
    double a = hypot(GSL_REAL(z), GSL_IMAG(z));
    if (a > *first) *second = *first, *first = a;
    else if (a > *second) *second = a;
  }
  gsl_eigen_nonsymm_free(ws), gsl_vector_complex_free(ev);
}

/* sigma_max(P - J) for a doubly stochastic P, else |lambda_2(P)|; P is
 * destroyed. */
static double rho_of(double *P, int n, bool doubly) {
  gsl_matrix_view m = gsl_matrix_view_array(P, n, n);
  if (doubly) {
    for (int i = 0; i < n * n; i++) P[i] -= 1.0 / n;
    gsl_matrix *v = gsl_matrix_alloc(n, n);
    gsl_vector *s = gsl_vector_alloc(n), *work = gsl_vector_alloc(n);
    gsl_linalg_SV_decomp(&m.matrix, v, s, work);
    double r = gsl_vector_get(s, 0); /* GSL sorts singular values decreasing */
    gsl_matrix_free(v), gsl_vector_free(s), gsl_vector_free(work);
    return r;
  }
  double first, second;
  top_moduli(P, n, &first, &second);
  return second;
}

static int spectral(hs_peer_schedule *ps, hs_peer_report *out, char *err, size_t len) {
  int n = out->n;
  double *P = calloc((size_t)n * n, sizeof(double)), *Q = malloc((size_t)n * n * sizeof(double));
  for (int i = 0; i < n; i++) P[(size_t)i * n + i] = 1;
  for (int t = 0; t < out->product_steps; t++) {
    const hs_peer_step *st = hs_peer_schedule_get(ps, t, err, len);
    if (!st) {
      free(P), free(Q);
      return -1;
    }
    apply(st, P, Q, n);
    double *tmp = P;
    P = Q, Q = tmp;
  }
  out->rho_is_sigma = out->doubly_stochastic;
  /* A product of several steps need not be normal: its one-product
   * contraction (sigma_max) bounds the decay, its spectral radius is the
   * rate the decay settles at. One step of a symmetric or circulant W has
   * both equal, so the second decomposition is skipped there. */
  double asym = NAN;
  if (out->doubly_stochastic && out->product_steps > 1) {
    double *M = malloc((size_t)n * n * sizeof(double)), second;
    for (size_t i = 0; i < (size_t)n * n; i++) M[i] = P[i] - 1.0 / n;
    top_moduli(M, n, &asym, &second);
    free(M);
  }
  out->rho_product = rho_of(P, n, out->doubly_stochastic);
  out->rho_step = pow(out->rho_product, 1.0 / out->product_steps);
  out->asymptotic_step = pow(isnan(asym) ? out->rho_product : asym, 1.0 / out->product_steps);
  out->spectral_done = true;
  free(P), free(Q);
  return 0;
}

/* Least-squares slope of ln(error) over the decaying part, as a factor. */
static void fit_rate(hs_peer_report *out) {
  long last = 0;
  for (long t = 0; t <= out->steps; t++)
    if (out->error[t] > FIT_FLOOR) last = t;
  out->fit_to = last;
  out->fit_from = last / 2; /* past the transient of the faster modes */
  out->measured_rate = NAN;
  long m = out->fit_to - out->fit_from + 1;
  if (m < 5) return;
  double st = 0, sy = 0, stt = 0, sty = 0;
  for (long t = out->fit_from; t <= out->fit_to; t++) {
    double y = log(out->error[t]);
    st += t, sy += y, stt += (double)t * t, sty += t * y;
  }
  double slope = (m * sty - st * sy) / (m * stt - st * st);
  out->measured_rate = exp(slope);
}

int hs_peer_analyze(hs_peer_scheme *s, int n, int per_node, long steps, uint64_t seed, hs_peer_report *out, char *err,
                    size_t len) {
  memset(out, 0, sizeof *out);
  out->n = n;
  out->steps = steps;
  out->nonnegative = out->rows_stochastic = out->doubly_stochastic = true;
  out->row_min = out->col_min = INFINITY;
  out->row_max = out->col_max = -INFINITY;
  out->exact_step = -1;
  out->error = calloc(steps + 1, sizeof(double));
  hs_peer_schedule *ps = hs_peer_schedule_create(s, n);
  int kept_n = steps < PERIOD_WINDOW ? (int)steps : PERIOD_WINDOW;
  kept_step *kept = calloc(kept_n ? kept_n : 1, sizeof *kept);

  /* Random vectors (and push-sum weights) to gossip. */
  double *x = malloc((size_t)n * VECTORS * sizeof(double)), *y = malloc((size_t)n * VECTORS * sizeof(double));
  double *w = malloc(n * sizeof(double)), *v = malloc(n * sizeof(double)), mean[VECTORS] = {0}, e0 = 0;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, seed);
  for (int i = 0; i < n * VECTORS; i++) x[i] = gsl_ran_gaussian(rng, 1.0);
  gsl_rng_free(rng);
  for (int i = 0; i < n; i++) w[i] = 1;
  for (int i = 0; i < n * VECTORS; i++) mean[i % VECTORS] += x[i] / n;
  for (int i = 0; i < n * VECTORS; i++) e0 += (x[i] - mean[i % VECTORS]) * (x[i] - mean[i % VECTORS]);
  e0 = sqrt(e0);
  out->error[0] = 1;

  int rc = 0;
  double deg_sum = 0;
  long kept_edges = 0;
  int nodes = (n + per_node - 1) / per_node, *nic = malloc(nodes * sizeof(int));
  for (long t = 0; t < steps && !rc; t++) {
    const hs_peer_step *st = hs_peer_schedule_get(ps, t, err, len);
    if (!st) {
      rc = -1;
      break;
    }
    memset(nic, 0, nodes * sizeof(int));
    for (int i = 0; i < n; i++) {
      for (int e = st->out_off[i]; e < st->out_off[i + 1]; e++)
        if (st->out[e].peer / per_node != i / per_node && ++nic[i / per_node] > out->busiest_nic)
          out->busiest_nic = nic[i / per_node];
      double row = st->self[i], col = st->self[i];
      for (int e = st->in_off[i]; e < st->in_off[i + 1]; e++) row += st->in[e].weight;
      for (int e = st->out_off[i]; e < st->out_off[i + 1]; e++) col += st->out[e].weight;
      if (st->self[i] < 0) out->nonnegative = false;
      if (row < out->row_min) out->row_min = row;
      if (row > out->row_max) out->row_max = row;
      if (col < out->col_min) out->col_min = col;
      if (col > out->col_max) out->col_max = col;
      int dout = st->out_off[i + 1] - st->out_off[i], din = st->in_off[i + 1] - st->in_off[i];
      if (dout > out->deg_out_max) out->deg_out_max = dout;
      if (din > out->deg_in_max) out->deg_in_max = din;
      deg_sum += dout;
    }
    if (t < kept_n) {
      kept_edges += st->in_off[n];
      if (kept_edges > PERIOD_EDGES_MAX) kept_n = (int)t; /* search the steps kept so far */
      else keep(&kept[t], st);
    }
    apply(st, x, y, VECTORS);
    apply(st, w, v, 1);
    double *tmp = x;
    x = y, y = tmp;
    tmp = w, w = v, v = tmp;
    double e = 0;
    for (int i = 0; i < n * VECTORS; i++) {
      double d = x[i] / w[i / VECTORS] - mean[i % VECTORS];
      e += d * d;
    }
    out->error[t + 1] = e0 > 0 ? sqrt(e) / e0 : 0;
    if (out->exact_step < 0 && out->error[t + 1] < EXACT) out->exact_step = t + 1;
  }
  if (!rc) {
    out->rows_stochastic = fabs(out->row_min - 1) < STOCHASTIC_TOL && fabs(out->row_max - 1) < STOCHASTIC_TOL;
    out->doubly_stochastic =
        out->rows_stochastic && fabs(out->col_min - 1) < STOCHASTIC_TOL && fabs(out->col_max - 1) < STOCHASTIC_TOL;
    out->deg_out_mean = steps ? deg_sum / ((double)steps * n) : 0;
    out->period = 0;
    for (int p = 1; p <= kept_n / 2 && !out->period; p++) {
      int ok = 1;
      for (int t = 0; t + p < kept_n && ok; t++) ok = same_step(&kept[t], &kept[t + p], n);
      if (ok) out->period = p;
    }
    if (s->allreduce) out->period = 1;
    out->product_steps = out->period ? out->period : (steps < APERIODIC_PRODUCT ? (int)steps : APERIODIC_PRODUCT);
    if (out->product_steps < 1) out->product_steps = 1;
    fit_rate(out);
    if (n <= HS_PEER_SPECTRAL_MAX && steps > 0) rc = spectral(ps, out, err, len);
  }
  for (int t = 0; t < kept_n; t++) free(kept[t].off), free(kept[t].in), free(kept[t].self);
  free(kept), free(x), free(y), free(w), free(v), free(nic);
  hs_peer_schedule_free(ps);
  return rc;
}

void hs_peer_report_free(hs_peer_report *r) {
  free(r->error);
  r->error = NULL;
}
