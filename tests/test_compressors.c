/* test_compressors.c — each compressor keeps the promise compress.h makes.
 *
 *  - MinMaxUInt8: |x - x^| <= (max - min)/255/2 + eps per element, eps being
 *    the float32 rounding of the encode/decode arithmetic (2^-20 of the
 *    chunk's largest magnitude, a bound with margin: x*scale and the decode
 *    each round once, relative 2^-24);
 *  - sign with error feedback: over T steps, what was sent plus the final
 *    residual equals the sum of the inputs (telescoping: each step's residual
 *    is buf - x^ exactly, so only the float additions round; bound stated
 *    below);
 *  - top-k keeps exactly the k largest magnitudes; random-k draws k
 *    distinct indices that depend only on (seed, step);
 *  - fp16 / bf16: exact on representable values, nearest-even on ties,
 *    relative error <= 2^-11 / 2^-8 elsewhere;
 *  - byte counts exactly as the documented formulas;
 *  - Adam: one step by hand, and the fused step equals the split one bit for bit. */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/compress.h"
#include "kernels/kernels.h"
#include "kernels/lowrank.h"
#include "tests/tap.h"

static gsl_rng *rng;

static void fill(float *x, size_t n, double lo, double hi) {
  for (size_t i = 0; i < n; i++) x[i] = (float)(lo + (hi - lo) * gsl_rng_uniform(rng));
}

static void test_minmax(void) {
  const size_t n = 10007, chunk = 1000;
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  fill(x, n, -3, 5);
  x[4000] = x[4001] = 7.25f; /* a chunk with a repeated extreme */
  for (size_t i = 5000; i < 6000; i++) x[i] = 1.5f; /* a constant chunk */
  size_t bytes = hs_k_minmax_u8_bytes(n, chunk);
  tap_ok(bytes == 11 * 8 + n, "minmax-uint8 of %zu floats in chunks of %zu: %zu bytes = 8 per chunk + 1 per element",
         n, chunk, bytes);
  uint8_t *buf = malloc(bytes);
  hs_k_minmax_u8_encode(x, n, chunk, buf);
  hs_k_minmax_u8_decode(buf, n, chunk, y);
  int within = 1;
  double worst = 0;
  for (size_t c = 0; c < hs_k_chunks(n, chunk); c++) {
    size_t a = c * chunk, b = a + chunk < n ? a + chunk : n;
    float lo = x[a], hi = x[a];
    for (size_t i = a; i < b; i++) lo = fminf(lo, x[i]), hi = fmaxf(hi, x[i]);
    double bound = (hi - lo + HS_K_MINMAX_EPS) / 255.0 / 2 + ldexp(fmax(fabs(lo), fabs(hi)), -20);
    for (size_t i = a; i < b; i++) {
      double e = fabs((double)x[i] - y[i]);
      worst = fmax(worst, e / bound);
      if (e > bound) within = 0;
    }
  }
  tap_ok(within, "minmax-uint8 round trip within (max-min)/255/2 + eps everywhere (worst %.3f of the bound)", worst);
  tap_ok(fabsf(y[5500] - 1.5f) <= 1e-6f, "a constant chunk decodes to its value (%.9g)", y[5500]);
  free(buf), free(x), free(y);
}

static void test_sign(void) {
  const size_t n = 4099, chunk = 1024;
  const int T = 50;
  size_t bytes = hs_k_sign_bytes(n, chunk);
  tap_ok(bytes == 5 * 4 + (n + 7) / 8, "sign of %zu floats in chunks of %zu: %zu bytes = 4 per chunk + 1 bit per element",
         n, chunk, bytes);
  float *x = malloc(n * sizeof *x), *err = calloc(n, sizeof *err), *dec = malloc(n * sizeof *dec);
  double *sent = calloc(n, sizeof *sent), *input = calloc(n, sizeof *input);
  uint8_t *buf = malloc(bytes);
  double scale_sum = 0;
  for (int t = 0; t < T; t++) {
    fill(x, n, -1, 1.5);
    for (size_t i = 0; i < n; i++) input[i] += x[i];
    hs_k_sign_encode(x, err, n, chunk, buf);
    hs_k_sign_decode(buf, n, chunk, dec);
    for (size_t i = 0; i < n; i++) sent[i] += dec[i], scale_sum += fabs(dec[i]);
  }
  /* Each step rounds err + x and buf - x^ once in float32: at most 2 ulp of
   * values below 4 per step, so 2 * T * 2^-22 is a safe bound. */
  double worst = 0;
  for (size_t i = 0; i < n; i++) worst = fmax(worst, fabs(sent[i] + err[i] - input[i]));
  tap_ok(worst <= 2.0 * T * ldexp(1, -22), "sign with error feedback: sent + residual == sum of inputs over %d steps "
         "(max diff %.3g)", T, worst);
  /* Without error feedback the decoded magnitude is the chunk's RMS. */
  float v[8] = {3, -4, 0, 0, 1, 1, -1, -1};
  uint8_t b8[4 * 2 + 1];
  hs_k_sign_encode(v, NULL, 8, 4, b8);
  hs_k_sign_decode(b8, 8, 4, dec);
  tap_ok(dec[0] == 2.5f && dec[1] == -2.5f && dec[2] == 2.5f && dec[4] == 1.0f && dec[7] == -1.0f,
         "sign scale is the chunk RMS (sqrt(25/4) = 2.5), zero counts as positive");
  free(x), free(err), free(dec), free(sent), free(input), free(buf);
}

static void test_sparse(void) {
  const size_t n = 1000, k = 37;
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  fill(x, n, -1, 1);
  x[10] = 5, x[20] = -5; /* a tie in magnitude */
  uint8_t *buf = malloc(hs_k_topk_bytes(k));
  tap_ok(hs_k_topk_bytes(k) == 8 * k && hs_k_randk_bytes(k) == 4 * k, "top-k sends 8 bytes per kept element, random-k 4");
  hs_k_topk_encode(x, n, k, buf);
  hs_k_topk_decode(buf, n, k, y);
  /* Every kept magnitude >= every dropped one, and kept values are exact. */
  float min_kept = INFINITY, max_dropped = 0;
  size_t kept = 0;
  int exact = 1;
  for (size_t i = 0; i < n; i++) {
    if (y[i] != 0) {
      kept++;
      min_kept = fminf(min_kept, fabsf(x[i]));
      exact &= y[i] == x[i];
    } else {
      max_dropped = fmaxf(max_dropped, fabsf(x[i]));
    }
  }
  tap_ok(kept == k && exact && min_kept >= max_dropped && y[10] == 5 && y[20] == -5,
         "top-%zu keeps exactly the %zu largest magnitudes (smallest kept %.4f >= largest dropped %.4f)", k, k,
         min_kept, max_dropped);
  uint32_t a[37], b[37], c[37];
  hs_k_randk_indices(9, 3, n, k, a);
  hs_k_randk_indices(9, 3, n, k, b);
  hs_k_randk_indices(9, 4, n, k, c);
  int sorted = 1, distinct_from_c = memcmp(a, c, sizeof a) != 0;
  for (size_t j = 1; j < k; j++) sorted &= a[j - 1] < a[j];
  tap_ok(memcmp(a, b, sizeof a) == 0 && sorted && a[k - 1] < n && distinct_from_c,
         "random-k: the same (seed, step) gives the same %zu distinct ascending indices, another step others", k);
  uint32_t all[10];
  hs_k_randk_indices(1, 0, 10, 10, all);
  int full = 1;
  for (uint32_t j = 0; j < 10; j++) full &= all[j] == j;
  tap_ok(full, "random-k with k = n takes every index once");
  free(x), free(y), free(buf);
}

static void test_half(void) {
  int ok = 1;
  const float exact[] = {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 0x1p-14f, 0x1p-24f, 3 * 0x1p-24f, 1023.5f};
  for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
    ok &= hs_k_f16_to_f32(hs_k_f32_to_f16(exact[i])) == exact[i];
  tap_ok(ok, "fp16: representable values (normal, subnormal, signed zero, max) survive a round trip");
  tap_ok(hs_k_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00 && hs_k_f32_to_f16(1.0f + 3 * 0x1p-11f) == 0x3c02 &&
             hs_k_f32_to_f16(65520.0f) == 0x7c00 && hs_k_f32_to_f16(0x1p-25f) == 0 &&
             hs_k_f32_to_f16(0x1p-25f * 3) == 0x0002 && hs_k_f32_to_f16(INFINITY) == 0x7c00,
         "fp16: ties go to even (1+2^-11 -> 1, 1+3*2^-11 -> 1+2^-9), 65520 overflows, 2^-25 -> 0, 3*2^-25 -> 2^-23");
  tap_ok(hs_k_f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80 && hs_k_f32_to_bf16(1.0f + 3 * 0x1p-8f) == 0x3f82 &&
             hs_k_bf16_to_f32(hs_k_f32_to_bf16(-3.5f)) == -3.5f,
         "bf16: ties go to even, representable values exact");
  double w16 = 0, wb = 0;
  for (int i = 0; i < 100000; i++) {
    float v = (float)((gsl_rng_uniform(rng) - 0.5) * pow(2, gsl_rng_uniform_int(rng, 30) - 14.0));
    if (fabsf(v) < 0x1p-14f) continue; /* fp16 subnormals have absolute, not relative, precision; the range
                                        * stays below 2^16, where fp16 overflows */
    w16 = fmax(w16, fabs(hs_k_f16_to_f32(hs_k_f32_to_f16(v)) - v) / fabs(v));
    wb = fmax(wb, fabs(hs_k_bf16_to_f32(hs_k_f32_to_bf16(v)) - v) / fabs(v));
  }
  tap_ok(w16 <= 0x1p-11 && wb <= 0x1p-8, "relative round-trip error fp16 %.3g <= 2^-11, bf16 %.3g <= 2^-8", w16, wb);
  uint16_t h[2] = {hs_k_f32_to_f16(1.5f), hs_k_f32_to_f16(-4.0f)}, g[2] = {hs_k_f32_to_f16(2.25f), hs_k_f32_to_f16(1.0f)};
  hs_k_reduce(HS_K_F16, HS_K_SUM, h, g, 2);
  hs_k_divide(HS_K_F16, h, 2, 2);
  tap_ok(hs_k_f16_to_f32(h[0]) == 1.875f && hs_k_f16_to_f32(h[1]) == -1.5f, "fp16 sum and exact divide");
}

static void test_adam(void) {
  /* One step by hand: w=1, g=0.5, wd=0, b1=0.9, b2=0.999, t=1:
   * m = 0.05, v = 0.00025, c1 = 0.1, c2 = 0.001: m^ = 0.5, v^ = 0.25,
   * w = 1 - 0.01 * 0.5 / (0.5 + 1e-8) = 0.99 (float32 rounding). */
  float w = 1, g = 0.5f, m = 0, v = 0;
  hs_k_adam_f32(&w, &g, &m, &v, 1, 0.01f, 0.9f, 0.999f, 1e-8f, 0, 0.1f, 0.001f);
  tap_close(w, 0.99, 1e-6, "adam step 1 by hand (float32 rounding)");
  const size_t n = 1000;
  float *w1 = malloc(n * 4), *w2 = malloc(n * 4), *gr = malloc(n * 4), *m1 = calloc(n, 4), *m2 = calloc(n, 4),
        *v1 = calloc(n, 4), *v2 = calloc(n, 4);
  fill(w1, n, -1, 1);
  memcpy(w2, w1, n * 4);
  for (int t = 1; t <= 5; t++) {
    fill(gr, n, -1, 1);
    float c1 = (float)(1 - pow(0.9, t)), c2 = (float)(1 - pow(0.999, t));
    hs_k_adam_f32(w1, gr, m1, v1, n, 0.01f, 0.9f, 0.999f, 1e-8f, 0, c1, c2);
    hs_k_ema_f32(m2, gr, 0.9f, n);
    hs_k_ema_sq_f32(v2, gr, 0.999f, n);
    hs_k_adam_apply_f32(w2, m2, v2, n, 0.01f, 1e-8f, c1, c2);
  }
  tap_ok(memcmp(w1, w2, n * 4) == 0 && memcmp(m1, m2, n * 4) == 0 && memcmp(v1, v2, n * 4) == 0,
         "fused adam == ema + ema of squares + apply, bit for bit, over 5 steps");
  free(w1), free(w2), free(gr), free(m1), free(m2), free(v1), free(v2);
}

static void test_lowrank(void) {
  /* A rank-1 matrix is reproduced exactly (to float rounding) by rank-1 PowerSGD. */
  const size_t r = 6, c = 5;
  float u[6] = {1, -2, 0.5f, 3, 0, 1}, v[5] = {2, 1, -1, 0.25f, 4}, M[30], q[5] = {1, 1, 1, 1, 1}, p[6], q2[5],
        approx[30];
  for (size_t i = 0; i < r; i++)
    for (size_t j = 0; j < c; j++) M[i * c + j] = u[i] * v[j];
  hs_k_mm_f32(M, q, p, r, c, 1);
  hs_k_orthonormalize_f32(p, r, 1);
  hs_k_mtm_f32(M, p, q2, c, r, 1);
  hs_k_mmt_f32(p, q2, approx, r, 1, c);
  double worst = 0;
  for (size_t i = 0; i < r * c; i++) worst = fmax(worst, fabs(approx[i] - M[i]));
  tap_ok(worst < 1e-5, "rank-1 power iteration reproduces a rank-1 matrix (max error %.2g, float rounding)", worst);
}

int main(void) {
  rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 7);
  test_minmax();
  test_sign();
  test_sparse();
  test_half();
  test_adam();
  test_lowrank();
  gsl_rng_free(rng);
  return tap_done(0);
}
