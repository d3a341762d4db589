/* reduce.c — element-wise reductions used by every collective. */
#include "kernels/kernels.h"

#include <stdint.h>

#include "kernels/compress.h"

#define HS_REDUCE_LOOP(T)                                                \
  do {                                                                   \
    T *d = dst;                                                          \
    const T *s = src;                                                    \
    switch (op) {                                                        \
    case HS_K_SUM: for (size_t i = 0; i < n; i++) d[i] += s[i]; break;   \
    case HS_K_MIN: for (size_t i = 0; i < n; i++) if (s[i] < d[i]) d[i] = s[i]; break; \
    case HS_K_MAX: for (size_t i = 0; i < n; i++) if (s[i] > d[i]) d[i] = s[i]; break; \
    }                                                                    \
  } while (0)

/* 16-bit floats: widen, reduce in float32, round once back. */
static void reduce_half(uint16_t *d, const uint16_t *s, size_t n, hs_k_op op, float (*widen)(uint16_t),
                        uint16_t (*narrow)(float)) {
  for (size_t i = 0; i < n; i++) {
    float a = widen(d[i]), b = widen(s[i]);
    float r = op == HS_K_SUM ? a + b : op == HS_K_MIN ? (b < a ? b : a) : (b > a ? b : a);
    d[i] = narrow(r);
  }
}

void hs_k_reduce(hs_k_type t, hs_k_op op, void *dst, const void *src, size_t n) {
  switch (t) {
  case HS_K_F16: reduce_half(dst, src, n, op, hs_k_f16_to_f32, hs_k_f32_to_f16); break;
  case HS_K_BF16: reduce_half(dst, src, n, op, hs_k_bf16_to_f32, hs_k_f32_to_bf16); break;
  case HS_K_F32: HS_REDUCE_LOOP(float); break;
  case HS_K_F64: HS_REDUCE_LOOP(double); break;
  case HS_K_I32: HS_REDUCE_LOOP(int32_t); break;
  case HS_K_I64: HS_REDUCE_LOOP(int64_t); break;
  case HS_K_U8: HS_REDUCE_LOOP(uint8_t); break;
  }
}

void hs_k_divide(hs_k_type t, void *dst, size_t n, double divisor) {
  if (t == HS_K_F32) {
    float *d = dst;
    float q = (float)divisor;
    for (size_t i = 0; i < n; i++) d[i] /= q;
  } else if (t == HS_K_F64) {
    double *d = dst;
    for (size_t i = 0; i < n; i++) d[i] /= divisor;
  } else if (t == HS_K_F16 || t == HS_K_BF16) {
    uint16_t *d = dst;
    float q = (float)divisor;
    for (size_t i = 0; i < n; i++)
      d[i] = t == HS_K_F16 ? hs_k_f32_to_f16(hs_k_f16_to_f32(d[i]) / q) : hs_k_f32_to_bf16(hs_k_bf16_to_f32(d[i]) / q);
  }
}
