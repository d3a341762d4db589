/* comm.c — backend-independent helpers of the comm-op interface. */
#include "algos/comm.h"

size_t hs_dtype_size(hs_dtype t) {
  static const size_t sizes[HS_DTYPE_COUNT] = {4, 8, 4, 8, 1, 2, 2};
  return t < HS_DTYPE_COUNT ? sizes[t] : 0;
}

const char *hs_dtype_name(hs_dtype t) {
  static const char *const names[HS_DTYPE_COUNT] = {"f32", "f64", "i32", "i64", "u8", "f16", "bf16"};
  return t < HS_DTYPE_COUNT ? names[t] : "?";
}

hs_buf hs_buf_slice(hs_buf b, size_t offset, size_t count) {
  hs_buf s = b;
  s.count = count;
  if (b.data) s.data = (char *)b.data + offset * hs_dtype_size(b.dtype);
  return s;
}
