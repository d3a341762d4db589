// compress.cu — CUDA twins of minmax_u8.c and sign.c, same bytes out.
#include <cstdint>

#include "kernels/compress.h"
#include "kernels/cuda_launch.h"
#include "kernels/kernels_cuda.h"
#include "kernels/sign_lanes.h"

#define GRID_STRIDE(i, n) \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)gridDim.x * blockDim.x)
// One block per chunk; blocks stride over chunks when there are many.
#define CHUNK_STRIDE(c, nc) for (size_t c = blockIdx.x; c < (nc); c += gridDim.x)

static unsigned chunk_blocks(size_t nc) { return (unsigned)(nc < 65535 ? nc : 65535); }

__device__ inline void minmax_grid(float lo, float hi, float *scale, float *lower, float *upper) {
  *scale = __fdiv_rn(255.0f, __fadd_rn(__fsub_rn(hi, lo), HS_K_MINMAX_EPS));
  *upper = rintf(__fmul_rn(hi, *scale));
  *lower = __fsub_rn(*upper, 255.0f);
}

__global__ void minmax_encode_kernel(const float *x, size_t n, size_t chunk, size_t nc, uint8_t *out) {
  __shared__ float lo_s[HS_KC_THREADS], hi_s[HS_KC_THREADS];
  float *head = (float *)out;
  uint8_t *q = out + nc * 2 * sizeof(float);
  CHUNK_STRIDE(c, nc) {
    size_t a = c * chunk, b = a + chunk < n ? a + chunk : n;
    float lo = x[a], hi = x[a];
    for (size_t i = a + threadIdx.x; i < b; i += blockDim.x) {
      lo = x[i] < lo ? x[i] : lo;
      hi = x[i] > hi ? x[i] : hi;
    }
    lo_s[threadIdx.x] = lo, hi_s[threadIdx.x] = hi;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
      if (threadIdx.x < s) {
        lo_s[threadIdx.x] = fminf(lo_s[threadIdx.x], lo_s[threadIdx.x + s]);
        hi_s[threadIdx.x] = fmaxf(hi_s[threadIdx.x], hi_s[threadIdx.x + s]);
      }
      __syncthreads();
    }
    lo = lo_s[0], hi = hi_s[0];
    if (threadIdx.x == 0) head[2 * c] = lo, head[2 * c + 1] = hi;
    float scale, lower, upper;
    minmax_grid(lo, hi, &scale, &lower, &upper);
    for (size_t i = a + threadIdx.x; i < b; i += blockDim.x) {
      float v = rintf(__fmul_rn(x[i], scale));
      v = v > upper ? upper : v < lower ? lower : v;
      q[i] = (uint8_t)__fsub_rn(v, lower);
    }
    __syncthreads();
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

extern "C" int hs_kc_minmax_u8_encode(const float *x, size_t n, size_t chunk, uint8_t *out, void *stream) {
  if (n == 0) return 0;
  size_t nc = hs_k_chunks(n, chunk);
  minmax_encode_kernel<<<chunk_blocks(nc), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(x, n, chunk, nc, out);
  return hs_kc_launched();
}

extern "C" int hs_kc_minmax_u8_decode(const uint8_t *in, size_t n, size_t chunk, float *x, void *stream) {
  if (n == 0) return 0;
  minmax_decode_kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(in, n, chunk,
                                                                                     hs_k_chunks(n, chunk), x);
  return hs_kc_launched();
}

// Pass 1, one block of HS_K_SIGN_LANES threads per chunk: buf = x + err (into
// err under error feedback) and the chunk's RMS, summed in sign.c's order.
__global__ void sign_scale_kernel(const float *x, float *err, size_t n, size_t chunk, size_t nc, float *scales) {
  __shared__ double lane[HS_K_SIGN_LANES];
  CHUNK_STRIDE(c, nc) {
    size_t a = c * chunk, len = (a + chunk < n ? a + chunk : n) - a;
    double s = 0;
    for (size_t i = threadIdx.x; i < len; i += HS_K_SIGN_LANES) {
      float v = x[a + i];
      if (err) v = err[a + i] = __fadd_rn(err[a + i], v);
      s = __dadd_rn(s, __dmul_rn((double)v, (double)v));
    }
    lane[threadIdx.x] = s;
    __syncthreads();
    for (unsigned stride = HS_K_SIGN_LANES / 2; stride > 0; stride /= 2) {
      if (threadIdx.x < stride) lane[threadIdx.x] = __dadd_rn(lane[threadIdx.x], lane[threadIdx.x + stride]);
      __syncthreads();
    }
    if (threadIdx.x == 0) scales[c] = __double2float_rn(__ddiv_rn(__dsqrt_rn(lane[0]), __dsqrt_rn((double)len)));
    __syncthreads();
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
  size_t nc = hs_k_chunks(n, chunk);
  cudaStream_t s = (cudaStream_t)stream;
  float *scales = (float *)out;
  sign_scale_kernel<<<chunk_blocks(nc), HS_K_SIGN_LANES, 0, s>>>(x, err, n, chunk, nc, scales);
  sign_bits_kernel<<<hs_kc_blocks((n + 7) / 8), HS_KC_THREADS, 0, s>>>(x, err, n, chunk, scales,
                                                                        out + nc * sizeof(float));
  return hs_kc_launched();
}

extern "C" int hs_kc_sign_decode(const uint8_t *in, size_t n, size_t chunk, float *x, void *stream) {
  if (n == 0) return 0;
  sign_decode_kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(in, n, chunk,
                                                                                   hs_k_chunks(n, chunk), x);
  return hs_kc_launched();
}
