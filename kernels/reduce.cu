// reduce.cu — CUDA twins of reduce.c (element-wise reduce, exact divide).
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/cuda_launch.h"
#include "kernels/kernels_cuda.h"

// Rounded exactly like the C reference: no contraction, IEEE round-to-nearest.
__device__ inline float add_exact(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double add_exact(double a, double b) { return __dadd_rn(a, b); }
template <typename T> __device__ inline T add_exact(T a, T b) { return a + b; }

template <typename T> __global__ void reduce_kernel(hs_k_op op, T *d, const T *s, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    T a = d[i], b = s[i];
    if (op == HS_K_SUM) d[i] = add_exact(a, b);
    else if (op == HS_K_MIN) d[i] = b < a ? b : a;
    else d[i] = b > a ? b : a;
  }
}

__global__ void divide_f32(float *d, size_t n, float q) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    d[i] = __fdiv_rn(d[i], q);
}

__global__ void divide_f64(double *d, size_t n, double q) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    d[i] = __ddiv_rn(d[i], q);
}

// 16-bit floats: widen, reduce in float32, round once back (reduce.c).
struct f16_t {
  __device__ static float widen(uint16_t h) { return __half2float(__ushort_as_half(h)); }
  __device__ static uint16_t narrow(float f) { return __half_as_ushort(__float2half_rn(f)); }
};
struct bf16_t {
  __device__ static float widen(uint16_t h) { return __bfloat162float(__ushort_as_bfloat16(h)); }
  __device__ static uint16_t narrow(float f) { return __bfloat16_as_ushort(__float2bfloat16_rn(f)); }
};

template <typename H> __global__ void reduce_half_kernel(hs_k_op op, uint16_t *d, const uint16_t *s, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float a = H::widen(d[i]), b = H::widen(s[i]);
    float r = op == HS_K_SUM ? __fadd_rn(a, b) : op == HS_K_MIN ? (b < a ? b : a) : (b > a ? b : a);
    d[i] = H::narrow(r);
  }
}

template <typename H> __global__ void divide_half_kernel(uint16_t *d, size_t n, float q) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    d[i] = H::narrow(__fdiv_rn(H::widen(d[i]), q));
}

template <typename H> static int launch_reduce_half(hs_k_op op, void *dst, const void *src, size_t n, void *stream) {
  reduce_half_kernel<H><<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(op, (uint16_t *)dst,
                                                                                    (const uint16_t *)src, n);
  return hs_kc_launched();
}

template <typename T> static int launch_reduce(hs_k_op op, void *dst, const void *src, size_t n, void *stream) {
  reduce_kernel<T><<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(op, (T *)dst, (const T *)src, n);
  return hs_kc_launched();
}

extern "C" int hs_kc_reduce(hs_k_type t, hs_k_op op, void *dst, const void *src, size_t n, void *stream) {
  if (n == 0) return 0;
  switch (t) {
  case HS_K_F32: return launch_reduce<float>(op, dst, src, n, stream);
  case HS_K_F64: return launch_reduce<double>(op, dst, src, n, stream);
  case HS_K_I32: return launch_reduce<int32_t>(op, dst, src, n, stream);
  case HS_K_I64: return launch_reduce<int64_t>(op, dst, src, n, stream);
  case HS_K_U8: return launch_reduce<uint8_t>(op, dst, src, n, stream);
  case HS_K_F16: return launch_reduce_half<f16_t>(op, dst, src, n, stream);
  case HS_K_BF16: return launch_reduce_half<bf16_t>(op, dst, src, n, stream);
  }
  return -1;
}

extern "C" int hs_kc_divide(hs_k_type t, void *dst, size_t n, double divisor, void *stream) {
  if (n == 0) return 0;
  if (t == HS_K_F32) divide_f32<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>((float *)dst, n, (float)divisor);
  else if (t == HS_K_F64) divide_f64<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>((double *)dst, n, divisor);
  else if (t == HS_K_F16)
    divide_half_kernel<f16_t><<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>((uint16_t *)dst, n, (float)divisor);
  else if (t == HS_K_BF16)
    divide_half_kernel<bf16_t><<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>((uint16_t *)dst, n, (float)divisor);
  else return 0; // the C reference leaves integer types alone
  return hs_kc_launched();
}
