/* minmax_u8.c — Bagua's MinMaxUInt8 compressor, per chunk (compress.h). */
#include <math.h>
#include <string.h>

#include "kernels/compress.h"

size_t hs_k_minmax_u8_bytes(size_t n, size_t chunk) { return hs_k_chunks(n, chunk) * 2 * sizeof(float) + n; }

/* The chunk's quantisation grid, derived from its min and max alone so the
 * decoder recomputes it from the header. */
static void grid(float lo, float hi, float *scale, float *lower, float *upper) {
  *scale = 255.0f / (hi - lo + HS_K_MINMAX_EPS);
  *upper = rintf(hi * *scale);
  *lower = *upper - 255.0f;
}

void hs_k_minmax_u8_encode(const float *x, size_t n, size_t chunk, uint8_t *out) {
  size_t nc = hs_k_chunks(n, chunk);
  float *head = (float *)(void *)out;
  uint8_t *q = out + nc * 2 * sizeof(float);
  for (size_t c = 0; c < nc; c++) {
    size_t a = c * chunk, b = a + chunk < n ? a + chunk : n;
    float lo = x[a], hi = x[a];
    for (size_t i = a + 1; i < b; i++) {
      if (x[i] < lo) lo = x[i];
      if (x[i] > hi) hi = x[i];
    }
    float scale, lower, upper;
    grid(lo, hi, &scale, &lower, &upper);
    memcpy(head + 2 * c, &lo, sizeof lo);
    memcpy(head + 2 * c + 1, &hi, sizeof hi);
    for (size_t i = a; i < b; i++) {
      /* Clamped on both sides: float rounding of x*scale may step one past
       * the grid at either end. */
      float v = rintf(x[i] * scale);
      v = v > upper ? upper : v < lower ? lower : v;
      q[i] = (uint8_t)(v - lower);
    }
  }
}

void hs_k_minmax_u8_decode(const uint8_t *in, size_t n, size_t chunk, float *x) {
  size_t nc = hs_k_chunks(n, chunk);
  const uint8_t *q = in + nc * 2 * sizeof(float);
  for (size_t c = 0; c < nc; c++) {
    size_t a = c * chunk, b = a + chunk < n ? a + chunk : n;
    float lo, hi, scale, lower, upper;
    memcpy(&lo, in + 2 * c * sizeof(float), sizeof lo);
    memcpy(&hi, in + (2 * c + 1) * sizeof(float), sizeof hi);
    grid(lo, hi, &scale, &lower, &upper);
    for (size_t i = a; i < b; i++) x[i] = ((float)q[i] + lower) / scale;
  }
}
