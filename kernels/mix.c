/* mix.c — gossip mixing with a double accumulator (kernels.h). */
#include "kernels/kernels.h"

void hs_k_mix_start_f32(double *acc, const float *x, double w, size_t n) {
  for (size_t i = 0; i < n; i++) acc[i] = w * (double)x[i];
}

void hs_k_mix_add_f32(double *acc, const float *x, double w, size_t n) {
  for (size_t i = 0; i < n; i++) acc[i] += w * (double)x[i];
}

void hs_k_mix_finish_f32(float *out, const double *acc, double divisor, size_t n) {
  for (size_t i = 0; i < n; i++) out[i] = (float)(acc[i] / divisor);
}
