/* test_kernels_cuda.c — every CUDA kernel twin (kernels/kernels_cuda.h)
 * gives the C reference's bits on random inputs: reduce (every type and
 * operation), exact divide, axpy, average of two, SGD with and without
 * momentum. Both sides round each operation once (the CUDA side uses the
 * _rn intrinsics, no fused multiply-add), so equality is exact. Where no
 * GPU is visible (or the build has no CUDA) the checks are TAP skips. */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/compress.h"
#include "kernels/kernels.h"
#include "kernels/kernels_cuda.h"
#include "tests/tap.h"

#define N 1000003 /* odd, larger than one grid of blocks */
#define CHECKS 55 /* 21 reduce, 4 divide, axpy, average2, mix, 2 sgd, 4 adam, 3 x (2 minmax, 2 sign), minmax ties, 2 top-k,
                     2 gather/scatter, 4 half conversions */

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
    case HS_K_F16: ((uint16_t *)p)[i] = hs_k_f32_to_f16((float)u); break;
    case HS_K_BF16: ((uint16_t *)p)[i] = hs_k_f32_to_bf16((float)u); break;
    }
  }
}

static size_t esize(hs_k_type t) {
  static const size_t s[] = {4, 8, 4, 8, 1, 2, 2};
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

static void compare_adam(const float *w, const float *m, const float *g, size_t fb) {
  float *v = malloc(fb);
  for (size_t i = 0; i < N; i++) v[i] = fabsf(m[i]);
  float *dw = upload(w, fb), *dm = upload(m, fb), *dv = upload(v, fb), *dg = upload(g, fb);
  float *rw = malloc(fb), *rm = malloc(fb), *rv = malloc(fb);
  memcpy(rw, w, fb), memcpy(rm, m, fb), memcpy(rv, v, fb);
  int ok = hs_kc_adam_f32(dw, dg, dm, dv, N, 0.01f, 0.9f, 0.999f, 1e-8f, 1e-4f, 0.271f, 0.00299f, NULL) == 0 &&
           hs_kc_synchronize() == 0;
  hs_k_adam_f32(rw, g, rm, rv, N, 0.01f, 0.9f, 0.999f, 1e-8f, 1e-4f, 0.271f, 0.00299f);
  tap_ok(ok && same(rw, dw, fb) && same(rm, dm, fb) && same(rv, dv, fb), "adam f32: weights and moments CUDA == C");
  ok = hs_kc_ema_f32(dm, dg, 0.9f, N, NULL) == 0 && hs_kc_synchronize() == 0;
  hs_k_ema_f32(rm, g, 0.9f, N);
  tap_ok(ok && same(rm, dm, fb), "ema f32: CUDA == C");
  ok = hs_kc_ema_sq_f32(dv, dg, 0.999f, N, NULL) == 0 && hs_kc_synchronize() == 0;
  hs_k_ema_sq_f32(rv, g, 0.999f, N);
  tap_ok(ok && same(rv, dv, fb), "ema of squares f32: CUDA == C");
  ok = hs_kc_adam_apply_f32(dw, dm, dv, N, 0.01f, 1e-8f, 0.5f, 0.25f, NULL) == 0 && hs_kc_synchronize() == 0;
  hs_k_adam_apply_f32(rw, rm, rv, N, 0.01f, 1e-8f, 0.5f, 0.25f);
  tap_ok(ok && same(rw, dw, fb), "adam apply f32: CUDA == C");
  hs_kc_free(dw), hs_kc_free(dm), hs_kc_free(dv), hs_kc_free(dg), free(rw), free(rm), free(rv), free(v);
}

/* MinMaxUInt8 and sign at one chunk size: encodes on both sides and compares
 * the bytes, then decodes the same bytes. The CUDA side cuts a chunk into
 * tiles (4096 elements for min/max, HS_K_SIGN_TILE for sign), so the chunk
 * sizes cover one tile, several with a short last chunk, and one chunk of
 * many tiles. */
static void compare_chunked(const float *x, size_t fb, size_t chunk) {
  float *dx = upload(x, fb), *dy = hs_kc_malloc(fb), *ry = malloc(fb);
  size_t mb = hs_k_minmax_u8_bytes(N, chunk);
  uint8_t *rb = malloc(mb), *db = hs_kc_malloc(mb);
  int ok = hs_kc_minmax_u8_encode(dx, N, chunk, db, NULL) == 0 && hs_kc_synchronize() == 0;
  hs_k_minmax_u8_encode(x, N, chunk, rb);
  tap_ok(ok && same(rb, db, mb), "minmax-uint8 encode, chunk %zu: CUDA bytes == C bytes", chunk);
  ok = hs_kc_minmax_u8_decode(db, N, chunk, dy, NULL) == 0 && hs_kc_synchronize() == 0;
  hs_k_minmax_u8_decode(rb, N, chunk, ry);
  tap_ok(ok && same(ry, dy, fb), "minmax-uint8 decode, chunk %zu: CUDA == C", chunk);
  free(rb), hs_kc_free(db);

  size_t sb = hs_k_sign_bytes(N, chunk);
  float *err = malloc(fb);
  for (size_t i = 0; i < N; i++) err[i] = x[(i * 7) % N] * 0.01f;
  float *derr = upload(err, fb);
  rb = malloc(sb), db = hs_kc_malloc(sb);
  ok = hs_kc_sign_encode(dx, derr, N, chunk, db, NULL) == 0 && hs_kc_synchronize() == 0;
  hs_k_sign_encode(x, err, N, chunk, rb);
  tap_ok(ok && same(rb, db, sb) && same(err, derr, fb),
         "sign encode with error feedback, chunk %zu: bytes and residual CUDA == C", chunk);
  ok = hs_kc_sign_decode(db, N, chunk, dy, NULL) == 0 && hs_kc_synchronize() == 0;
  hs_k_sign_decode(rb, N, chunk, ry);
  tap_ok(ok && same(ry, dy, fb), "sign decode, chunk %zu: CUDA == C", chunk);
  free(rb), hs_kc_free(db), free(err), hs_kc_free(derr), hs_kc_free(dx), hs_kc_free(dy), free(ry);
}

/* Min and max where the order of comparisons shows: -0 and +0 tie (the C
 * loop keeps the earliest), NaNs never win unless a chunk starts with one.
 * Only the headers are compared: quantising NaN has no defined byte. */
static void compare_minmax_ties(size_t fb) {
  const size_t chunk = 5003; /* 2 tiles; chunks start on every residue mod 3 */
  float *z = malloc(fb);
  for (size_t i = 0; i < N; i++) z[i] = i % 3 == 0 ? -0.0f : i % 3 == 1 ? 0.0f : NAN;
  for (size_t i = 4; i < N; i += 977) z[i] = i % 2 ? 0.0f : -0.0f; /* ties scattered over the tiles */
  float *dz = upload(z, fb);
  size_t mb = hs_k_minmax_u8_bytes(N, chunk), hb = hs_k_chunks(N, chunk) * 2 * sizeof(float);
  uint8_t *rb = malloc(mb), *db = hs_kc_malloc(mb);
  int ok = hs_kc_minmax_u8_encode(dz, N, chunk, db, NULL) == 0 && hs_kc_synchronize() == 0;
  hs_k_minmax_u8_encode(z, N, chunk, rb);
  tap_ok(ok && same(rb, db, hb), "minmax-uint8 headers over signed zeros and NaNs: CUDA == C");
  free(z), hs_kc_free(dz), free(rb), hs_kc_free(db);
}

/* Encodes on both sides and compares the bytes, then decodes the same bytes. */
static void compare_compressors(const float *x, size_t fb) {
  const size_t k = 1000;
  compare_chunked(x, fb, 4099);
  compare_chunked(x, fb, 300007);
  compare_chunked(x, fb, N);
  compare_minmax_ties(fb);
  float *dx = upload(x, fb), *dy = hs_kc_malloc(fb), *ry = malloc(fb);
  uint8_t *rb, *db;
  int ok;

  size_t tb = hs_k_topk_bytes(k);
  rb = malloc(tb), db = hs_kc_malloc(tb);
  ok = hs_kc_topk_encode(dx, N, k, db, NULL) == 0 && hs_kc_synchronize() == 0;
  hs_k_topk_encode(x, N, k, rb);
  tap_ok(ok && same(rb, db, tb), "top-k encode: CUDA indices and values == C");
  ok = hs_kc_topk_decode(db, N, k, dy, NULL) == 0 && hs_kc_synchronize() == 0;
  hs_k_topk_decode(rb, N, k, ry);
  tap_ok(ok && same(ry, dy, fb), "top-k decode: CUDA == C");
  free(rb), hs_kc_free(db);

  uint32_t *idx = malloc(k * sizeof *idx);
  hs_k_randk_indices(5, 17, N, k, idx);
  uint32_t *didx = upload(idx, k * sizeof *idx);
  float *rv = malloc(k * sizeof(float)), *dv = hs_kc_malloc(k * sizeof(float));
  ok = hs_kc_gather_f32(dx, didx, k, dv, NULL) == 0 && hs_kc_synchronize() == 0;
  hs_k_gather_f32(x, idx, k, rv);
  tap_ok(ok && same(rv, dv, k * sizeof(float)), "gather (random-k values): CUDA == C");
  ok = hs_kc_scatter_f32(dv, didx, k, N, dy, NULL) == 0 && hs_kc_synchronize() == 0;
  hs_k_scatter_f32(rv, idx, k, N, ry);
  tap_ok(ok && same(ry, dy, fb), "scatter (random-k decode): CUDA == C");
  free(idx), hs_kc_free(didx), free(rv), hs_kc_free(dv);

  uint16_t *rh = malloc(N * 2), *dh = hs_kc_malloc(N * 2);
  ok = hs_kc_to_f16(dx, N, dh, NULL) == 0 && hs_kc_synchronize() == 0;
  hs_k_to_f16(x, N, rh);
  tap_ok(ok && same(rh, dh, N * 2), "float32 -> fp16: CUDA == C");
  ok = hs_kc_from_f16(dh, N, dy, NULL) == 0 && hs_kc_synchronize() == 0;
  hs_k_from_f16(rh, N, ry);
  tap_ok(ok && same(ry, dy, fb), "fp16 -> float32: CUDA == C");
  ok = hs_kc_to_bf16(dx, N, dh, NULL) == 0 && hs_kc_synchronize() == 0;
  hs_k_to_bf16(x, N, rh);
  tap_ok(ok && same(rh, dh, N * 2), "float32 -> bf16: CUDA == C");
  ok = hs_kc_from_bf16(dh, N, dy, NULL) == 0 && hs_kc_synchronize() == 0;
  hs_k_from_bf16(rh, N, ry);
  tap_ok(ok && same(ry, dy, fb), "bf16 -> float32: CUDA == C");
  free(rh), hs_kc_free(dh), hs_kc_free(dx), hs_kc_free(dy), free(ry);
}

int main(void) {
  if (!hs_kc_available()) {
    tap_skip(CHECKS, "no CUDA GPU visible (or built without the CUDA toolkit)");
    return tap_done(0);
  }
  rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 42);
  const char *tn[] = {"f32", "f64", "i32", "i64", "u8", "f16", "bf16"}, *on[] = {"sum", "min", "max"};
  for (hs_k_type t = HS_K_F32; t <= HS_K_BF16; t++)
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
  const hs_k_type floating[] = {HS_K_F32, HS_K_F64, HS_K_F16, HS_K_BF16};
  for (int ti = 0; ti < 4; ti++) {
    hs_k_type t = floating[ti];
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
  {
    /* Gossip mixing: self weight 1/3, two peers 1/3 each, push-sum divisor 0.75. */
    size_t db = N * sizeof(double);
    float *dx = upload(x, fb), *dy = upload(y, fb), *dw = upload(w, fb), *dout = hs_kc_malloc(fb);
    double *dacc = hs_kc_malloc(db), *acc = malloc(db);
    float *ro = malloc(fb);
    int launched = hs_kc_mix_start_f32(dacc, dx, 1.0 / 3, N, NULL) == 0 &&
                   hs_kc_mix_add_f32(dacc, dy, 1.0 / 3, N, NULL) == 0 &&
                   hs_kc_mix_add_f32(dacc, dw, 1.0 / 3, N, NULL) == 0 &&
                   hs_kc_mix_finish_f32(dout, dacc, 0.75, N, NULL) == 0 && hs_kc_synchronize() == 0;
    hs_k_mix_start_f32(acc, x, 1.0 / 3, N);
    hs_k_mix_add_f32(acc, y, 1.0 / 3, N);
    hs_k_mix_add_f32(acc, w, 1.0 / 3, N);
    hs_k_mix_finish_f32(ro, acc, 0.75, N);
    tap_ok(launched && same(ro, dout, fb), "gossip mix (start, add, add, finish) f32: CUDA == C");
    hs_kc_free(dx), hs_kc_free(dy), hs_kc_free(dw), hs_kc_free(dout), hs_kc_free(dacc), free(acc), free(ro);
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
  compare_adam(w, m, g, fb);
  compare_compressors(x, fb);
  free(x), free(y), free(w), free(m), free(g);
  gsl_rng_free(rng);
  return tap_done(0);
}
