/* lowrank.c — matrix products and Gram-Schmidt for PowerSGD (lowrank.h). */
#include "kernels/lowrank.h"

#include <math.h>

void hs_k_mm_f32(const float *a, const float *b, float *c, size_t m, size_t k, size_t n) {
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      double s = 0;
      for (size_t l = 0; l < k; l++) s += (double)a[i * k + l] * b[l * n + j];
      c[i * n + j] = (float)s;
    }
}

void hs_k_mtm_f32(const float *a, const float *b, float *c, size_t m, size_t k, size_t n) {
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      double s = 0;
      for (size_t l = 0; l < k; l++) s += (double)a[l * m + i] * b[l * n + j];
      c[i * n + j] = (float)s;
    }
}

void hs_k_mmt_f32(const float *a, const float *b, float *c, size_t m, size_t k, size_t n) {
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < n; j++) {
      double s = 0;
      for (size_t l = 0; l < k; l++) s += (double)a[i * k + l] * b[j * k + l];
      c[i * n + j] = (float)s;
    }
}

void hs_k_orthonormalize_f32(float *p, size_t rows, size_t r) {
  for (size_t j = 0; j < r; j++) {
    for (size_t q = 0; q < j; q++) {
      double dot = 0;
      for (size_t i = 0; i < rows; i++) dot += (double)p[i * r + j] * p[i * r + q];
      for (size_t i = 0; i < rows; i++) p[i * r + j] -= (float)(dot * p[i * r + q]);
    }
    double norm = 0;
    for (size_t i = 0; i < rows; i++) norm += (double)p[i * r + j] * p[i * r + j];
    norm = sqrt(norm);
    for (size_t i = 0; i < rows; i++) p[i * r + j] = norm > 1e-30 ? (float)(p[i * r + j] / norm) : 0.0f;
  }
}
