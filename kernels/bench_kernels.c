/* bench_kernels.c — what the kernels every algorithm runs cost on this
 * machine: the CUDA twins on the GPU (where one is visible) beside the C
 * reference on one core, measured in one run.
 *
 * usage: hs_bench_kernels [--max-mib 256] [--reps-ms 20]
 *
 * For each kernel and each size from 4 KiB to --max-mib (x4) of float32
 * input it prints the time per call and the bytes it touches over that
 * time (the bytes each element must be read and written, not what the
 * cache hierarchy moves). Then, per kernel, a least-squares line through
 * (bytes, time): its intercept is the fixed cost per call (a launch on the
 * GPU, a call on the CPU) and its slope's inverse the bandwidth. This is
 * the form "cost = launch overhead + bytes touched / memory bandwidth"
 * that the system model charges (issue 19), measured rather than assumed.
 *
 * GPU times are per call of a stream of back-to-back launches (one
 * synchronisation at the end), as an optimizer or a compressor runs them;
 * the last table compares one fused Adam step over a flat buffer with one
 * launch per tensor (ResNet-50's 161 parameter tensors, 25.6 M floats). */
#include <gsl/gsl_fit.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/compress.h"
#include "kernels/kernels.h"
#include "kernels/kernels_cuda.h"

#define MAX_SIZES 32
#define RESNET_TENSORS 161
#define RESNET_FLOATS 25557032

typedef struct {
  float *x, *y, *m, *v; /* n floats each */
  uint8_t *bytes;       /* n bytes (compressed outputs) */
  uint16_t *half;       /* n halves */
} bufs;

typedef struct {
  const char *name;
  double bytes_per_elem; /* read + written per float32 of input */
  int (*gpu)(bufs *b, size_t n);
  void (*cpu)(bufs *b, size_t n);
} kernel;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* dst += src: reads two arrays, writes one. */
static int g_reduce(bufs *b, size_t n) { return hs_kc_reduce(HS_K_F32, HS_K_SUM, b->y, b->x, n, NULL); }
static void c_reduce(bufs *b, size_t n) { hs_k_reduce(HS_K_F32, HS_K_SUM, b->y, b->x, n); }
/* weights, gradient, momentum read; weights and momentum written. */
static int g_sgd(bufs *b, size_t n) { return hs_kc_sgd_momentum_f32(b->y, b->x, b->m, n, 1e-6f, 0.9f, 0, NULL); }
static void c_sgd(bufs *b, size_t n) { hs_k_sgd_momentum_f32(b->y, b->x, b->m, n, 1e-6f, 0.9f, 0); }
/* weights, gradient, two moments read; weights and moments written. */
static int g_adam(bufs *b, size_t n) {
  return hs_kc_adam_f32(b->y, b->x, b->m, b->v, n, 1e-6f, 0.9f, 0.999f, 1e-8f, 0, 0.1f, 0.001f, NULL);
}
static void c_adam(bufs *b, size_t n) {
  hs_k_adam_f32(b->y, b->x, b->m, b->v, n, 1e-6f, 0.9f, 0.999f, 1e-8f, 0, 0.1f, 0.001f);
}
/* gradient and residual read, residual and one bit per element written. */
static int g_sign(bufs *b, size_t n) { return hs_kc_sign_encode(b->x, b->m, n, n, b->bytes, NULL); }
static void c_sign(bufs *b, size_t n) { hs_k_sign_encode(b->x, b->m, n, n, b->bytes); }
/* gradient read, one byte per element written (plus a min and max per chunk). */
static int g_minmax(bufs *b, size_t n) { return hs_kc_minmax_u8_encode(b->x, n, n, b->bytes, NULL); }
static void c_minmax(bufs *b, size_t n) { hs_k_minmax_u8_encode(b->x, n, n, b->bytes); }
/* float32 read, fp16 written. */
static int g_half(bufs *b, size_t n) { return hs_kc_to_f16(b->x, n, b->half, NULL); }
static void c_half(bufs *b, size_t n) { hs_k_to_f16(b->x, n, b->half); }

static const kernel kernels[] = {
    {"reduce sum f32", 12, g_reduce, c_reduce},
    {"sgd momentum", 20, g_sgd, c_sgd},
    {"adam", 28, g_adam, c_adam},
    {"sign encode + ef", 12.125, g_sign, c_sign},
    {"minmax u8 encode", 5, g_minmax, c_minmax},
    {"to fp16", 6, g_half, c_half},
};
#define N_KERNELS (sizeof kernels / sizeof kernels[0])

/* Seconds per call: enough back-to-back calls to fill reps_s, one
 * synchronisation at the end (GPU). */
static double time_calls(const kernel *k, bufs *b, size_t n, int gpu, double reps_s) {
  int reps = 1;
  if (gpu ? k->gpu(b, n) || hs_kc_synchronize() : (k->cpu(b, n), 0)) return -1; /* first touch, warm caches */
  for (;;) {
    double t0 = now();
    for (int i = 0; i < reps; i++) {
      if (gpu) {
        if (k->gpu(b, n)) return -1;
      } else k->cpu(b, n);
    }
    if (gpu && hs_kc_synchronize()) return -1;
    double t = now() - t0;
    if (t >= reps_s || reps >= 1 << 20) return t / reps;
    reps = t > 0 ? (int)(reps * (reps_s / t) * 1.2) + 1 : reps * 16;
  }
}

static int alloc_bufs(bufs *b, size_t n, int gpu) {
  size_t f = n * sizeof(float);
  if (gpu) {
    b->x = hs_kc_malloc(f), b->y = hs_kc_malloc(f), b->m = hs_kc_malloc(f), b->v = hs_kc_malloc(f);
    b->bytes = hs_kc_malloc(n + 64), b->half = hs_kc_malloc(2 * n);
  } else {
    b->x = calloc(n, 4), b->y = calloc(n, 4), b->m = calloc(n, 4), b->v = calloc(n, 4);
    b->bytes = calloc(n + 64, 1), b->half = calloc(n, 2);
  }
  if (!b->x || !b->y || !b->m || !b->v || !b->bytes || !b->half) return -1;
  if (gpu) {
    float *h = malloc(f);
    if (!h) return -1;
    for (size_t i = 0; i < n; i++) h[i] = (float)((i * 2654435761u) % 1000) * 1e-3f - 0.5f;
    int rc = hs_kc_to_device(b->x, h, f) | hs_kc_to_device(b->y, h, f) | hs_kc_to_device(b->m, h, f) |
             hs_kc_to_device(b->v, h, f);
    free(h);
    return rc ? -1 : 0;
  }
  for (size_t i = 0; i < n; i++) b->x[i] = b->y[i] = (float)((i * 2654435761u) % 1000) * 1e-3f - 0.5f;
  return 0;
}

static void free_bufs(bufs *b, int gpu) {
  void *all[] = {b->x, b->y, b->m, b->v, b->bytes, b->half};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) gpu ? hs_kc_free(all[i]) : free(all[i]);
}

static void table(const char *side, int gpu, size_t max_n, double reps_s) {
  bufs b;
  if (alloc_bufs(&b, max_n, gpu)) {
    printf("# %s: could not allocate %zu floats x 4\n", side, max_n);
    return;
  }
  printf("\n## %s\n%-18s %12s %12s %12s %10s\n", side, "kernel", "floats", "bytes", "us/call", "GB/s");
  for (size_t k = 0; k < N_KERNELS; k++) {
    double xs[MAX_SIZES], ys[MAX_SIZES];
    int m = 0;
    for (size_t n = 1024; n <= max_n && m < MAX_SIZES; n *= 4) {
      double t = time_calls(&kernels[k], &b, n, gpu, reps_s);
      if (t < 0) {
        printf("%-18s launch failed\n", kernels[k].name);
        break;
      }
      double bytes = kernels[k].bytes_per_elem * (double)n;
      printf("%-18s %12zu %12.0f %12.2f %10.1f\n", kernels[k].name, n, bytes, t * 1e6, bytes / t * 1e-9);
      xs[m] = bytes, ys[m] = t, m++;
    }
    if (m >= 3) {
      double c0, c1, cov00, cov01, cov11, sumsq;
      /* weights 1/t^2: each size counts by its relative error, so the
       * small sizes set the intercept and the large ones the slope */
      double ws[MAX_SIZES];
      for (int i = 0; i < m; i++) ws[i] = 1 / (ys[i] * ys[i]);
      gsl_fit_wlinear(xs, 1, ws, 1, ys, 1, (size_t)m, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
      printf("%-18s fit: %.2f us per call + bytes / %.0f GB/s\n", kernels[k].name, c0 * 1e6, 1e-9 / c1);
    }
  }
  free_bufs(&b, gpu);
}

/* One fused Adam step over RESNET_FLOATS against one launch per tensor. */
static void fused_vs_per_tensor(int gpu, double reps_s) {
  bufs b;
  size_t n = RESNET_FLOATS;
  if (alloc_bufs(&b, n, gpu)) return;
  const kernel *adam = &kernels[2];
  double fused = time_calls(adam, &b, n, gpu, reps_s);
  size_t per = n / RESNET_TENSORS;
  int reps = gpu ? 20 : 3;
  double t0 = now();
  for (int r = 0; r < reps; r++)
    for (int i = 0; i < RESNET_TENSORS; i++) {
      bufs s = {b.x + i * per, b.y + i * per, b.m + i * per, b.v + i * per, b.bytes, b.half};
      if (!gpu) adam->cpu(&s, per);
      else if (adam->gpu(&s, per)) fused = -1;
    }
  if (fused < 0 || (gpu && hs_kc_synchronize())) {
    printf("adam over %d floats (GPU): launch failed\n", RESNET_FLOATS);
    free_bufs(&b, gpu);
    return;
  }
  double split = (now() - t0) / reps;
  printf("adam over %d floats (%s): fused %.3f ms, %d launches %.3f ms, ratio %.2f\n", RESNET_FLOATS,
         gpu ? "GPU" : "CPU", fused * 1e3, RESNET_TENSORS, split * 1e3, split / fused);
  free_bufs(&b, gpu);
}

int main(int argc, char **argv) {
  size_t max_mib = 256;
  double reps_ms = 20;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--max-mib") && i + 1 < argc) max_mib = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--reps-ms") && i + 1 < argc) reps_ms = strtod(argv[++i], NULL);
    else {
      fprintf(stderr, "usage: %s [--max-mib 256] [--reps-ms 20]\n", argv[0]);
      return 2;
    }
  }
  if (max_mib < 1 || reps_ms <= 0) {
    fprintf(stderr, "%s: --max-mib must be >= 1 and --reps-ms > 0\n", argv[0]);
    return 2;
  }
  size_t max_n = max_mib * 1024 * 1024 / sizeof(float);
  int gpu = hs_kc_available();
  printf("# kernels: CUDA twins %s; bytes = what each element must read and write\n",
         gpu ? "on the visible GPU" : "not available (no GPU visible, or built without CUDA)");
  if (gpu) table("GPU (CUDA twins), stream of back-to-back launches", 1, max_n, reps_ms * 1e-3);
  /* One core moves 1-30 GB/s: 64 MiB of input is enough to leave the caches, and keeps the run short. */
  table("CPU (C reference), one core", 0, max_n < 16u << 20 ? max_n : 16u << 20, reps_ms * 1e-3);
  printf("\n## fused against per-tensor optimizer step\n");
  if (gpu) fused_vs_per_tensor(1, reps_ms * 1e-3);
  fused_vs_per_tensor(0, reps_ms * 1e-3);
  return 0;
}
