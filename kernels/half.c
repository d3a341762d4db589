/* half.c — float32 <-> IEEE binary16 and bfloat16, round to nearest even.
 *
 * Written on the bit patterns so the result does not depend on the host
 * compiler's _Float16 support and matches CUDA's __float2half_rn and
 * __float2bfloat16_rn bit for bit (NaN becomes 0x7fff, as there). */
#include <string.h>

#include "kernels/compress.h"

static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float float_of(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* value >> shift, rounded to nearest, ties to even */
static uint32_t shift_rne(uint32_t value, unsigned shift) {
  uint32_t q = value >> shift, rem = value & ((1u << shift) - 1), half = 1u << (shift - 1);
  return q + (rem > half || (rem == half && (q & 1)));
}

uint16_t hs_k_f32_to_f16(float f) {
  uint32_t x = bits_of(f), sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return 0x7fff;                   /* NaN */
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 rounds to infinity */
  if (a >= 0x38800000u)                                   /* normal half: >= 2^-14 */
    return (uint16_t)(sign | shift_rne(a - (112u << 23), 13));
  if (a < 0x33000000u) return (uint16_t)sign; /* below 2^-25: rounds to zero */
  /* subnormal half: value / 2^-24 = m * 2^(e-126) */
  uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
  return (uint16_t)(sign | shift_rne(m, 126 - e));
}

float hs_k_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0x1f) return float_of(sign | 0x7f800000u | (m << 13));
  if (e != 0) return float_of(sign | ((e + 112) << 23) | (m << 13));
  if (m == 0) return float_of(sign);
  /* subnormal: m * 2^-24, exact in float */
  float v = (float)m * 0x1p-24f;
  return sign ? -v : v;
}

uint16_t hs_k_f32_to_bf16(float f) {
  uint32_t x = bits_of(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fff;
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

float hs_k_bf16_to_f32(uint16_t h) { return float_of((uint32_t)h << 16); }

void hs_k_to_f16(const float *x, size_t n, uint16_t *out) {
  for (size_t i = 0; i < n; i++) out[i] = hs_k_f32_to_f16(x[i]);
}
void hs_k_from_f16(const uint16_t *in, size_t n, float *x) {
  for (size_t i = 0; i < n; i++) x[i] = hs_k_f16_to_f32(in[i]);
}
void hs_k_to_bf16(const float *x, size_t n, uint16_t *out) {
  for (size_t i = 0; i < n; i++) out[i] = hs_k_f32_to_bf16(x[i]);
}
void hs_k_from_bf16(const uint16_t *in, size_t n, float *x) {
  for (size_t i = 0; i < n; i++) x[i] = hs_k_bf16_to_f32(in[i]);
}
