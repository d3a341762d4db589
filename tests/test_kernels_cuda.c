/* test_kernels_cuda.c — every CUDA kernel twin (kernels/kernels_cuda.h)
 * gives the C reference's bits on random inputs: reduce (every type and
 * operation), exact divide, axpy, average of two, SGD with and without
 * momentum. Both sides round each operation once (the CUDA side uses the
 * _rn intrinsics, no fused multiply-add), so equality is exact. Where no
 * GPU is visible (or the build has no CUDA) the checks are TAP skips. */
#include <gsl/gsl_rng.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernels/kernels_cuda.h"
#include "tests/tap.h"

#define N 1000003 /* odd, larger than one grid of blocks */
#define CHECKS 21 /* 15 reduce, 2 divide, axpy, average2, 2 sgd */

static gsl_rng *rng;

static void fill(void *p, hs_k_type t, size_t n) {
  for (size_t i = 0; i < n; i++) {
    double u = gsl_rng_uniform(rng) * 200 - 100;
    switch (t) {
    case HS_K_F32: ((float *)p)[i] = (float)u; break;
    case HS_K_F64: ((double *)p)[i] = u; break;
    case HS_K_I32: ((int32_t *)p)[i] = (int32_t)u; break;
    case HS_K_I64: ((int64_t *)p)[i] = (int64_t)(u * 1e6); break;
    case HS_K_U8: ((uint8_t *)p)[i] = (uint8_t)gsl_rng_uniform_int(rng, 256); break;
    }
  }
}

static size_t esize(hs_k_type t) {
  static const size_t s[] = {4, 8, 4, 8, 1};
  return s[t];
}

/* Runs the twin on device copies of the inputs and compares every byte. */
static int same(const void *want, const void *dev, size_t bytes) {
  void *got = malloc(bytes);
  int ok = hs_kc_to_host(got, dev, bytes) == 0 && memcmp(want, got, bytes) == 0;
  free(got);
  return ok;
}

static void *upload(const void *host, size_t bytes) {
  void *d = hs_kc_malloc(bytes);
  if (d) hs_kc_to_device(d, host, bytes);
  return d;
}

int main(void) {
  if (!hs_kc_available()) {
    tap_skip(CHECKS, "no CUDA GPU visible (or built without the CUDA toolkit)");
    return tap_done(0);
  }
  rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 42);
  const char *tn[] = {"f32", "f64", "i32", "i64", "u8"}, *on[] = {"sum", "min", "max"};
  for (hs_k_type t = HS_K_F32; t <= HS_K_U8; t++)
    for (hs_k_op op = HS_K_SUM; op <= HS_K_MAX; op++) {
      size_t bytes = N * esize(t);
      void *a = malloc(bytes), *b = malloc(bytes);
      fill(a, t, N), fill(b, t, N);
      void *da = upload(a, bytes), *db = upload(b, bytes);
      int launched = hs_kc_reduce(t, op, da, db, N, NULL) == 0 && hs_kc_synchronize() == 0;
      hs_k_reduce(t, op, a, b, N);
      tap_ok(launched && same(a, da, bytes), "reduce %s %s: CUDA == C, bit for bit", on[op], tn[t]);
      hs_kc_free(da), hs_kc_free(db), free(a), free(b);
    }
  for (hs_k_type t = HS_K_F32; t <= HS_K_F64; t++) {
    size_t bytes = N * esize(t);
    void *a = malloc(bytes);
    fill(a, t, N);
    void *da = upload(a, bytes);
    int launched = hs_kc_divide(t, da, N, 7, NULL) == 0 && hs_kc_synchronize() == 0;
    hs_k_divide(t, a, N, 7);
    tap_ok(launched && same(a, da, bytes), "divide %s by 7: CUDA == C", tn[t]);
    hs_kc_free(da), free(a);
  }
  size_t fb = N * sizeof(float);
  float *x = malloc(fb), *y = malloc(fb), *w = malloc(fb), *m = malloc(fb), *g = malloc(fb);
  fill(x, HS_K_F32, N), fill(y, HS_K_F32, N), fill(w, HS_K_F32, N), fill(m, HS_K_F32, N), fill(g, HS_K_F32, N);
  {
    float *dx = upload(x, fb), *dy = upload(y, fb);
    int launched = hs_kc_axpy_f32(dy, dx, 0.37f, N, NULL) == 0 && hs_kc_synchronize() == 0;
    float *ry = malloc(fb);
    memcpy(ry, y, fb);
    hs_k_axpy_f32(ry, x, 0.37f, N);
    tap_ok(launched && same(ry, dy, fb), "axpy f32: CUDA == C");
    float *dout = hs_kc_malloc(fb);
    launched = hs_kc_average2_f32(dout, dx, dy, N, NULL) == 0 && hs_kc_synchronize() == 0;
    float *dy_now = malloc(fb), *ro = malloc(fb);
    hs_kc_to_host(dy_now, dy, fb);
    hs_k_average2_f32(ro, x, dy_now, N);
    tap_ok(launched && same(ro, dout, fb), "average2 f32: CUDA == C");
    hs_kc_free(dx), hs_kc_free(dy), hs_kc_free(dout), free(ry), free(dy_now), free(ro);
  }
  for (int with_momentum = 0; with_momentum < 2; with_momentum++) {
    float mom = with_momentum ? 0.9f : 0.0f;
    float *dw = upload(w, fb), *dg = upload(g, fb), *dm = upload(m, fb);
    float *rw = malloc(fb), *rm = malloc(fb);
    memcpy(rw, w, fb), memcpy(rm, m, fb);
    int launched = hs_kc_sgd_momentum_f32(dw, dg, dm, N, 0.01f, mom, 1e-4f, NULL) == 0 && hs_kc_synchronize() == 0;
    hs_k_sgd_momentum_f32(rw, g, rm, N, 0.01f, mom, 1e-4f);
    tap_ok(launched && same(rw, dw, fb) && same(rm, dm, fb), "sgd momentum=%.1f f32: weights and momentum CUDA == C",
           mom);
    hs_kc_free(dw), hs_kc_free(dg), hs_kc_free(dm), free(rw), free(rm);
  }
  free(x), free(y), free(w), free(m), free(g);
  gsl_rng_free(rng);
  return tap_done(0);
}
