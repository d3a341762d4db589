/* softmax.c — loss, gradient and held-out evaluation of softmax regression. */
#include "algos/workloads/softmax.h"

#include <math.h>
#include <stdlib.h>

/* Class probabilities of one sample into p (length C); returns log-sum-exp. */
static double forward(const float *params, int C, int F, const float *x, double *p) {
  const float *W = params, *b = params + (size_t)C * F;
  double mx = -INFINITY;
  for (int c = 0; c < C; c++) {
    double z = b[c];
    for (int f = 0; f < F; f++) z += (double)W[c * F + f] * x[f];
    p[c] = z;
    if (z > mx) mx = z;
  }
  double s = 0;
  for (int c = 0; c < C; c++) s += exp(p[c] - mx);
  double lse = mx + log(s);
  for (int c = 0; c < C; c++) p[c] = exp(p[c] - lse);
  return lse;
}

double hs_softmax_grad(const float *params, const hs_dataset *d, const long *idx, int n, float *grad) {
  int C = d->classes, F = d->features;
  size_t P = (size_t)C * F + C;
  double *acc = calloc(P, sizeof *acc), *p = malloc(C * sizeof *p);
  double loss = 0;
  for (int i = 0; i < n; i++) {
    const float *x = d->x_train + idx[i] * F;
    int y = d->y_train[idx[i]];
    double lse = forward(params, C, F, x, p);
    const float *W = params, *b = params + (size_t)C * F;
    double zy = b[y];
    for (int f = 0; f < F; f++) zy += (double)W[y * F + f] * x[f];
    loss += lse - zy;
    for (int c = 0; c < C; c++) {
      double g = p[c] - (c == y);
      for (int f = 0; f < F; f++) acc[c * F + f] += g * x[f];
      acc[(size_t)C * F + c] += g;
    }
  }
  for (size_t k = 0; k < P; k++) grad[k] = (float)(acc[k] / n);
  free(acc);
  free(p);
  return loss / n;
}

void hs_softmax_eval(const float *params, const hs_dataset *d, double *loss, double *accuracy) {
  int C = d->classes, F = d->features;
  double *p = malloc(C * sizeof *p);
  double l = 0;
  long correct = 0;
  for (long i = 0; i < d->n_test; i++) {
    forward(params, C, F, d->x_test + i * F, p);
    int best = 0;
    for (int c = 1; c < C; c++)
      if (p[c] > p[best]) best = c;
    correct += best == d->y_test[i];
    l -= log(p[d->y_test[i]] > 1e-300 ? p[d->y_test[i]] : 1e-300);
  }
  free(p);
  *loss = l / d->n_test;
  *accuracy = (double)correct / d->n_test;
}
