// compress.cu — CUDA twins of minmax_u8.c and sign.c, same bytes out.
#include <cstdint>

#include "kernels/compress.h"
#include "kernels/cuda_launch.h"
#include "kernels/kernels_cuda.h"
#include "kernels/sign_lanes.h"

#define GRID_STRIDE(i, n) \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)gridDim.x * blockDim.x)

__device__ inline void minmax_grid(float lo, float hi, float *scale, float *lower, float *upper) {
  *scale = __fdiv_rn(255.0f, __fadd_rn(__fsub_rn(hi, lo), HS_K_MINMAX_EPS));
  *upper = rintf(__fmul_rn(hi, *scale));
  *lower = __fsub_rn(*upper, 255.0f);
}

// MinMax encode in three passes, so a chunk spreads over the whole GPU
// instead of one block (one block per chunk ran at 2-4 GB/s on an H100):
// 1. one block per tile of MINMAX_TILE elements, each thread a contiguous
//    run, partial (lo, hi) combined left to right;
// 2. one thread per chunk combines its tiles in order and writes the header;
// 3. one thread per element quantises.
// The result is minmax_u8.c's to the bit: lo and hi are the earliest of the
// chunk's smallest and largest values (strict < and >, as its loop keeps
// them, which decides between -0 and +0), NaNs never win unless the chunk
// starts with one (then lo = hi = NaN, as the loop leaves them).
#define MINMAX_RUN 16
#define MINMAX_TILE (HS_KC_THREADS * MINMAX_RUN)

struct minmax_part {
  float lo, hi;
  int have; // 0: no number seen (all NaN)
};

__device__ inline minmax_part minmax_join(minmax_part a, minmax_part b) { // a's elements precede b's
  if (!b.have) return a;
  if (!a.have) return b;
  a.lo = b.lo < a.lo ? b.lo : a.lo;
  a.hi = b.hi > a.hi ? b.hi : a.hi;
  return a;
}

__global__ void minmax_tiles_kernel(const float *x, size_t n, size_t chunk, size_t tiles_per_chunk, size_t tiles,
                                    minmax_part *parts) {
  __shared__ minmax_part lane[HS_KC_THREADS];
  for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    size_t c = t / tiles_per_chunk, a = c * chunk, b = a + chunk < n ? a + chunk : n;
    size_t i0 = a + (t % tiles_per_chunk) * MINMAX_TILE + threadIdx.x * (size_t)MINMAX_RUN;
    minmax_part p = {0, 0, 0};
    for (size_t i = i0; i < i0 + MINMAX_RUN && i < b; i++) {
      float v = x[i];
      if (isnan(v)) continue;
      if (!p.have) p.lo = p.hi = v, p.have = 1;
      p.lo = v < p.lo ? v : p.lo;
      p.hi = v > p.hi ? v : p.hi;
    }
    lane[threadIdx.x] = p;
    __syncthreads();
    for (unsigned s = 1; s < HS_KC_THREADS; s *= 2) { // neighbours, so order is kept
      if (threadIdx.x % (2 * s) == 0) lane[threadIdx.x] = minmax_join(lane[threadIdx.x], lane[threadIdx.x + s]);
      __syncthreads();
    }
    if (threadIdx.x == 0) parts[t] = lane[0];
    __syncthreads();
  }
}

__global__ void minmax_head_kernel(const float *x, size_t chunk, size_t nc, size_t tiles_per_chunk,
                                   const minmax_part *parts, float *head) {
  GRID_STRIDE(c, nc) {
    minmax_part p = parts[c * tiles_per_chunk];
    for (size_t t = 1; t < tiles_per_chunk; t++) p = minmax_join(p, parts[c * tiles_per_chunk + t]);
    float first = x[c * chunk];
    if (isnan(first)) p.lo = p.hi = first;
    head[2 * c] = p.lo, head[2 * c + 1] = p.hi;
  }
}

__global__ void minmax_quantise_kernel(const float *x, size_t n, size_t chunk, const float *head, uint8_t *q) {
  GRID_STRIDE(i, n) {
    size_t c = i / chunk;
    float scale, lower, upper;
    minmax_grid(head[2 * c], head[2 * c + 1], &scale, &lower, &upper);
    float v = rintf(__fmul_rn(x[i], scale));
    v = v > upper ? upper : v < lower ? lower : v;
    q[i] = (uint8_t)__fsub_rn(v, lower);
  }
}

__global__ void minmax_decode_kernel(const uint8_t *in, size_t n, size_t chunk, size_t nc, float *x) {
  const float *head = (const float *)in;
  const uint8_t *q = in + nc * 2 * sizeof(float);
  GRID_STRIDE(i, n) {
    size_t c = i / chunk;
    float scale, lower, upper;
    minmax_grid(head[2 * c], head[2 * c + 1], &scale, &lower, &upper);
    x[i] = __fdiv_rn(__fadd_rn((float)q[i], lower), scale);
  }
}

// Tiles a chunk of `chunk` elements is cut into (the last chunk may use fewer).
static size_t tiles_of(size_t n, size_t chunk, size_t tile) {
  size_t len = chunk < n ? chunk : n;
  return (len + tile - 1) / tile;
}

static unsigned grid_of(size_t items) { return (unsigned)(items < 65535 ? items : 65535); }

extern "C" int hs_kc_minmax_u8_encode(const float *x, size_t n, size_t chunk, uint8_t *out, void *stream) {
  if (n == 0) return 0;
  cudaStream_t s = (cudaStream_t)stream;
  size_t nc = hs_k_chunks(n, chunk), per = tiles_of(n, chunk, MINMAX_TILE), tiles = nc * per;
  float *head = (float *)out;
  minmax_part *parts = nullptr;
  if (cudaMallocAsync((void **)&parts, tiles * sizeof *parts, s) != cudaSuccess) return -1;
  minmax_tiles_kernel<<<grid_of(tiles), HS_KC_THREADS, 0, s>>>(x, n, chunk, per, tiles, parts);
  minmax_head_kernel<<<hs_kc_blocks(nc), HS_KC_THREADS, 0, s>>>(x, chunk, nc, per, parts, head);
  minmax_quantise_kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, s>>>(x, n, chunk, head, out + nc * 2 * sizeof(float));
  cudaFreeAsync(parts, s);
  return hs_kc_launched();
}

extern "C" int hs_kc_minmax_u8_decode(const uint8_t *in, size_t n, size_t chunk, float *x, void *stream) {
  if (n == 0) return 0;
  minmax_decode_kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(in, n, chunk,
                                                                                     hs_k_chunks(n, chunk), x);
  return hs_kc_launched();
}

// Pass 1a, one block of HS_K_SIGN_LANES threads per tile of HS_K_SIGN_TILE
// elements (so a chunk spreads over the GPU): buf = x + err (into err under
// error feedback) and the tile's sum of squares, in sign.c's order.
__global__ void sign_tiles_kernel(const float *x, float *err, size_t n, size_t chunk, size_t tiles_per_chunk,
                                  size_t tiles, double *sums) {
  __shared__ double lane[HS_K_SIGN_LANES];
  for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    size_t c = t / tiles_per_chunk, a = c * chunk, b = a + chunk < n ? a + chunk : n;
    size_t t0 = a + (t % tiles_per_chunk) * HS_K_SIGN_TILE, t1 = t0 + HS_K_SIGN_TILE < b ? t0 + HS_K_SIGN_TILE : b;
    double s = 0;
    for (size_t i = t0 + threadIdx.x; i < t1; i += HS_K_SIGN_LANES) {
      float v = x[i];
      if (err) v = err[i] = __fadd_rn(err[i], v);
      s = __dadd_rn(s, __dmul_rn((double)v, (double)v));
    }
    lane[threadIdx.x] = s;
    __syncthreads();
    for (unsigned stride = HS_K_SIGN_LANES / 2; stride > 0; stride /= 2) {
      if (threadIdx.x < stride) lane[threadIdx.x] = __dadd_rn(lane[threadIdx.x], lane[threadIdx.x + stride]);
      __syncthreads();
    }
    if (threadIdx.x == 0) sums[t] = lane[0];
    __syncthreads();
  }
}

// Pass 1b, one thread per chunk: its tiles' sums in order, then the RMS. A
// short last chunk's tiles past its end hold 0 (pass 1a summed nothing):
// s + 0 is s, so the sum is still sign.c's.
__global__ void sign_scale_kernel(size_t n, size_t chunk, size_t nc, size_t tiles_per_chunk, const double *sums,
                                  float *scales) {
  GRID_STRIDE(c, nc) {
    size_t a = c * chunk, len = (a + chunk < n ? a + chunk : n) - a;
    double s = 0;
    for (size_t t = 0; t < tiles_per_chunk; t++) s = __dadd_rn(s, sums[c * tiles_per_chunk + t]);
    scales[c] = __double2float_rn(__ddiv_rn(__dsqrt_rn(s), __dsqrt_rn((double)len)));
  }
}

// Pass 2, one thread per output byte: eight sign bits, and the new error.
__global__ void sign_bits_kernel(const float *x, float *err, size_t n, size_t chunk, const float *scales,
                                 uint8_t *bits) {
  GRID_STRIDE(byte, (n + 7) / 8) {
    unsigned packed = 0;
    for (size_t i = byte * 8; i < byte * 8 + 8 && i < n; i++) {
      float v = err ? err[i] : x[i], scale = scales[i / chunk];
      int positive = v >= 0;
      if (positive) packed |= 1u << (i % 8);
      if (err) err[i] = __fsub_rn(v, positive ? scale : -scale);
    }
    bits[byte] = (uint8_t)packed;
  }
}

__global__ void sign_decode_kernel(const uint8_t *in, size_t n, size_t chunk, size_t nc, float *x) {
  const float *scales = (const float *)in;
  const uint8_t *bits = in + nc * sizeof(float);
  GRID_STRIDE(i, n) {
    float scale = scales[i / chunk];
    x[i] = (bits[i / 8] >> (i % 8)) & 1 ? scale : -scale;
  }
}

extern "C" int hs_kc_sign_encode(const float *x, float *err, size_t n, size_t chunk, uint8_t *out, void *stream) {
  if (n == 0) return 0;
  cudaStream_t s = (cudaStream_t)stream;
  size_t nc = hs_k_chunks(n, chunk), per = tiles_of(n, chunk, HS_K_SIGN_TILE), tiles = nc * per;
  float *scales = (float *)out;
  double *sums = nullptr;
  if (cudaMallocAsync((void **)&sums, tiles * sizeof *sums, s) != cudaSuccess) return -1;
  sign_tiles_kernel<<<grid_of(tiles), HS_K_SIGN_LANES, 0, s>>>(x, err, n, chunk, per, tiles, sums);
  sign_scale_kernel<<<hs_kc_blocks(nc), HS_KC_THREADS, 0, s>>>(n, chunk, nc, per, sums, scales);
  sign_bits_kernel<<<hs_kc_blocks((n + 7) / 8), HS_KC_THREADS, 0, s>>>(x, err, n, chunk, scales,
                                                                        out + nc * sizeof(float));
  cudaFreeAsync(sums, s);
  return hs_kc_launched();
}

extern "C" int hs_kc_sign_decode(const uint8_t *in, size_t n, size_t chunk, float *x, void *stream) {
  if (n == 0) return 0;
  sign_decode_kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(in, n, chunk,
                                                                                   hs_k_chunks(n, chunk), x);
  return hs_kc_launched();
}
