/* optim.c — optimizer and averaging kernels on flattened buckets. */
#include "kernels/kernels.h"

#include <math.h>

void hs_k_axpy_f32(float *y, const float *x, float a, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] += a * x[i];
}

void hs_k_average2_f32(float *out, const float *a, const float *b, size_t n) {
  for (size_t i = 0; i < n; i++) out[i] = (a[i] + b[i]) * 0.5f;
}

void hs_k_sgd_momentum_f32(float *w, const float *grad, float *m, size_t n, float lr,
                           float momentum, float weight_decay) {
  if (momentum == 0.0f) {
    for (size_t i = 0; i < n; i++) w[i] -= lr * (grad[i] + weight_decay * w[i]);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    float g = grad[i] + weight_decay * w[i];
    m[i] = momentum * m[i] + g;
    w[i] -= lr * m[i];
  }
}

void hs_k_ema_f32(float *m, const float *g, float beta, size_t n) {
  float one_minus = 1.0f - beta;
  for (size_t i = 0; i < n; i++) m[i] = beta * m[i] + one_minus * g[i];
}

void hs_k_ema_sq_f32(float *v, const float *g, float beta, size_t n) {
  float one_minus = 1.0f - beta;
  for (size_t i = 0; i < n; i++) v[i] = beta * v[i] + one_minus * (g[i] * g[i]);
}

static inline float adam_delta(float m, float v, float step, float eps, float c2) {
  return step * m / (sqrtf(v / c2) + eps);
}

void hs_k_adam_apply_f32(float *w, const float *m, const float *v, size_t n, float lr, float eps, float c1, float c2) {
  float step = lr / c1;
  for (size_t i = 0; i < n; i++) w[i] -= adam_delta(m[i], v[i], step, eps, c2);
}

void hs_k_adam_f32(float *w, const float *grad, float *m, float *v, size_t n, float lr, float beta1, float beta2,
                   float eps, float weight_decay, float c1, float c2) {
  float a1 = 1.0f - beta1, a2 = 1.0f - beta2, step = lr / c1;
  for (size_t i = 0; i < n; i++) {
    float g = grad[i] + weight_decay * w[i];
    m[i] = beta1 * m[i] + a1 * g;
    v[i] = beta2 * v[i] + a2 * (g * g);
    w[i] -= adam_delta(m[i], v[i], step, eps, c2);
  }
}
