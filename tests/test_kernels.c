/* test_kernels.c — the C reference kernels compute what their contracts say. */
#include <stdint.h>

#include "kernels/kernels.h"
#include "tests/tap.h"

int main(void) {
  float a[5] = {1, -2, 3, 4, 5}, b[5] = {2, 2, -3, 8, 0};
  hs_k_reduce(HS_K_F32, HS_K_SUM, a, b, 5);
  tap_ok(a[0] == 3 && a[1] == 0 && a[2] == 0 && a[3] == 12 && a[4] == 5, "f32 sum");
  double c[3] = {1, 5, -1}, d[3] = {2, 4, -2};
  hs_k_reduce(HS_K_F64, HS_K_MIN, c, d, 3);
  tap_ok(c[0] == 1 && c[1] == 4 && c[2] == -2, "f64 min");
  int32_t e[3] = {1, 5, -1}, f[3] = {2, 4, -2};
  hs_k_reduce(HS_K_I32, HS_K_MAX, e, f, 3);
  tap_ok(e[0] == 2 && e[1] == 5 && e[2] == -1, "i32 max");
  float g[2] = {3, 1};
  hs_k_divide(HS_K_F32, g, 2, 3);
  tap_ok(g[0] == 1.0f && g[1] == 1.0f / 3.0f, "divide is an exact IEEE division");

  /* SGD with momentum, two steps by hand: w=1, g=0.5, lr=0.1, mu=0.9, wd=0.1
   * step 1: g' = 0.5 + 0.1*1 = 0.6; m = 0.6; w = 1 - 0.06 = 0.94
   * step 2: g' = 0.5 + 0.094 = 0.594; m = 0.54 + 0.594 = 1.134; w = 0.94 - 0.1134 */
  float w = 1, grad = 0.5f, m = 0;
  hs_k_sgd_momentum_f32(&w, &grad, &m, 1, 0.1f, 0.9f, 0.1f);
  tap_close(w, 0.94, 1e-6, "sgd step 1 weight (float32 rounding)");
  hs_k_sgd_momentum_f32(&w, &grad, &m, 1, 0.1f, 0.9f, 0.1f);
  tap_close(m, 1.134, 1e-6, "sgd step 2 momentum (float32 rounding)");
  tap_close(w, 0.8266, 1e-6, "sgd step 2 weight (float32 rounding)");
  float y[3] = {1, 2, 3}, x[3] = {1, 1, 1};
  hs_k_axpy_f32(y, x, 2, 3);
  tap_ok(y[0] == 3 && y[1] == 4 && y[2] == 5, "axpy");
  float out[2], p[2] = {1, 3}, q[2] = {3, 4};
  hs_k_average2_f32(out, p, q, 2);
  tap_ok(out[0] == 2 && out[1] == 3.5f, "average of two");
  return tap_done(0);
}
