/* sparse.c — top-k and random-k sparsifiers, gather and scatter (compress.h). */
#include <stdlib.h>
#include <string.h>

#include "kernels/compress.h"

typedef struct {
  float mag;
  uint32_t idx;
} ranked;

/* Largest magnitude first; equal magnitudes by index, so the choice is total. */
static int by_magnitude(const void *pa, const void *pb) {
  const ranked *a = pa, *b = pb;
  if (a->mag != b->mag) return a->mag > b->mag ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int by_index(const void *pa, const void *pb) {
  uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
  return a < b ? -1 : a > b;
}

void hs_k_topk_encode(const float *x, size_t n, size_t k, uint8_t *out) {
  ranked *r = malloc(n * sizeof *r);
  for (size_t i = 0; i < n; i++) r[i] = (ranked){x[i] < 0 ? -x[i] : x[i], (uint32_t)i};
  qsort(r, n, sizeof *r, by_magnitude);
  uint32_t *idx = malloc(k * sizeof *idx);
  for (size_t j = 0; j < k; j++) idx[j] = r[j].idx;
  qsort(idx, k, sizeof *idx, by_index);
  memcpy(out, idx, k * sizeof *idx);
  float *v = malloc(k * sizeof *v);
  hs_k_gather_f32(x, idx, k, v);
  memcpy(out + k * sizeof *idx, v, k * sizeof *v);
  free(v);
  free(idx);
  free(r);
}

void hs_k_topk_decode(const uint8_t *in, size_t n, size_t k, float *x) {
  uint32_t *idx = malloc(k * sizeof *idx);
  float *v = malloc(k * sizeof *v);
  memcpy(idx, in, k * sizeof *idx);
  memcpy(v, in + k * sizeof *idx, k * sizeof *v);
  hs_k_scatter_f32(v, idx, k, n, x);
  free(v);
  free(idx);
}

/* splitmix64: a counter-based generator, so (seed, step) alone fixes the draw. */
static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void hs_k_randk_indices(uint64_t seed, uint64_t step, size_t n, size_t k, uint32_t *idx) {
  /* Floyd's algorithm: k distinct draws with k random numbers, a bitmap
   * remembering what is taken. */
  uint64_t s = seed * 0x9e3779b97f4a7c15ull ^ (step + 1) * 0xd1b54a32d192ed03ull;
  uint8_t *taken = calloc((n + 7) / 8, 1);
  size_t m = 0;
  for (size_t j = n - k; j < n; j++) {
    size_t t = (size_t)(splitmix(&s) % (uint64_t)(j + 1));
    if (taken[t / 8] & (1u << (t % 8))) t = j;
    taken[t / 8] |= (uint8_t)(1u << (t % 8));
    idx[m++] = (uint32_t)t;
  }
  free(taken);
  qsort(idx, k, sizeof *idx, by_index);
}

void hs_k_gather_f32(const float *x, const uint32_t *idx, size_t k, float *out) {
  for (size_t j = 0; j < k; j++) out[j] = x[idx[j]];
}

void hs_k_scatter_f32(const float *v, const uint32_t *idx, size_t k, size_t n, float *x) {
  memset(x, 0, n * sizeof *x);
  for (size_t j = 0; j < k; j++) x[idx[j]] = v[j];
}
