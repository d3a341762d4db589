/* optim.c — optimizer and averaging kernels on flattened buckets. */
#include "kernels/kernels.h"

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
