// half.cu — CUDA twins of half.c: float32 <-> binary16 / bfloat16, nearest even.
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/cuda_launch.h"
#include "kernels/kernels_cuda.h"

#define GRID_STRIDE(i, n) \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)gridDim.x * blockDim.x)

__global__ void to_f16_kernel(const float *x, size_t n, uint16_t *out) {
  GRID_STRIDE(i, n) out[i] = __half_as_ushort(__float2half_rn(x[i]));
}
__global__ void from_f16_kernel(const uint16_t *in, size_t n, float *x) {
  GRID_STRIDE(i, n) x[i] = __half2float(__ushort_as_half(in[i]));
}
__global__ void to_bf16_kernel(const float *x, size_t n, uint16_t *out) {
  GRID_STRIDE(i, n) out[i] = __bfloat16_as_ushort(__float2bfloat16_rn(x[i]));
}
__global__ void from_bf16_kernel(const uint16_t *in, size_t n, float *x) {
  GRID_STRIDE(i, n) x[i] = __bfloat162float(__ushort_as_bfloat16(in[i]));
}

#define LAUNCH(kernel, a, n, b)                                                            \
  do {                                                                                     \
    if ((n) == 0) return 0;                                                                \
    kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>((a), (n), (b)); \
    return hs_kc_launched();                                                               \
  } while (0)

extern "C" int hs_kc_to_f16(const float *x, size_t n, uint16_t *out, void *stream) { LAUNCH(to_f16_kernel, x, n, out); }
extern "C" int hs_kc_from_f16(const uint16_t *in, size_t n, float *x, void *stream) { LAUNCH(from_f16_kernel, in, n, x); }
extern "C" int hs_kc_to_bf16(const float *x, size_t n, uint16_t *out, void *stream) { LAUNCH(to_bf16_kernel, x, n, out); }
extern "C" int hs_kc_from_bf16(const uint16_t *in, size_t n, float *x, void *stream) {
  LAUNCH(from_bf16_kernel, in, n, x);
}
