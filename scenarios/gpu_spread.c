/* gpu_spread.c — identical GPUs do not run at the same speed (gpu_spread.h). */
#include "scenarios/gpu_spread.h"

#include <math.h>
#include <stdint.h>

/* 1/phi, the golden ratio's conjugate: multiples of it mod 1 are as evenly
 * spread as any sequence gets, so neighbouring ranks land far apart. */
#define HS_GOLDEN_CONJUGATE 0.6180339887498949

/* Speeds a spread takes (+1): its quantiles rounded to v/16 (0.5% of a
 * typical GPU at the default 8%). GPUs of one speed end their computes
 * together, so SimGrid settles them in one step: with every GPU a speed
 * of its own, a 1024-GPU training run took 3 times as long to simulate. */
#define HS_SPREAD_LEVELS 16

static int64_t gcd(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* GPU r's place in the spread, 0..n-1: (r p + n/2) mod n, p the first
 * number from n / phi up that is prime to n, a bijection. The offset puts
 * rank 0, which evaluates, roots trees and leads nodes, at the middle (a
 * typical GPU), not at the slowest. */
static int64_t place(int64_t r, int64_t n) {
  int64_t p = (int64_t)(HS_GOLDEN_CONJUGATE * (double)n);
  if (p < 1) p = 1;
  while (gcd(p, n) != 1) p++;
  return (r * p + n / 2) % n;
}

static int64_t gpus(const hs_cluster_spec *c) { return (int64_t)c->nodes * c->gpus_per_node; }

/* The speed at place k of n: its quantile (k + 1)/(n + 1) less the middle,
 * rounded to 1/HS_SPREAD_LEVELS, times the spread. */
static double speed_at(int64_t k, int64_t n, double v) {
  double q = (double)(k + 1) / (double)(n + 1) - 0.5; /* in (-1/2, 1/2) */
  return 1 + v * round(q * HS_SPREAD_LEVELS) / HS_SPREAD_LEVELS;
}

double hs_gpu_spread_factor(const hs_cluster_spec *c, int gpu) {
  int64_t n = gpus(c);
  double v = c->gpu_variability;
  if (n <= 1 || v <= 0 || gpu < 0 || gpu >= n) return 1;
  return speed_at(place(gpu, n), n, v);
}

double hs_gpu_spread_slowest(const hs_cluster_spec *c) {
  int64_t n = gpus(c);
  double v = c->gpu_variability;
  if (n <= 1 || v <= 0) return 1;
  return speed_at(0, n, v);
}
