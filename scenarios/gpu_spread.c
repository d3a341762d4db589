/* gpu_spread.c — identical GPUs do not run at the same speed (gpu_spread.h). */
#include "scenarios/gpu_spread.h"

static long gcd(long a, long b) {
  while (b) {
    long t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* GPU r's place in the spread: r x p mod n, p the first number from 0.618
 * n up that is prime to n (a bijection on 0..n-1 that puts neighbours far
 * apart, so that a node's GPUs get speeds from across the spread). */
static long place(long r, long n) {
  long p = (long)(0.6180339887498949 * (double)n);
  if (p < 1) p = 1;
  while (gcd(p, n) != 1) p++;
  return (r % n) * p % n;
}

static long gpus(const hs_cluster_spec *c) { return (long)c->nodes * c->gpus_per_node; }

double hs_gpu_spread_factor(const hs_cluster_spec *c, int gpu) {
  long n = gpus(c);
  double v = c->gpu_variability;
  if (n <= 1 || v <= 0 || gpu < 0 || gpu >= n) return 1;
  return 1 + v * (((double)place(gpu, n) + 0.5) / (double)n - 0.5);
}

double hs_gpu_spread_slowest(const hs_cluster_spec *c) {
  long n = gpus(c);
  double v = c->gpu_variability;
  if (n <= 1 || v <= 0) return 1;
  return 1 - v / 2 + v / (2.0 * (double)n);
}
