/* reduce.c — element-wise reductions used by every collective. */
#include "kernels/kernels.h"

#include <stdint.h>

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

void hs_k_reduce(hs_k_type t, hs_k_op op, void *dst, const void *src, size_t n) {
  switch (t) {
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
  }
}
