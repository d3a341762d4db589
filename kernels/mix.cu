// mix.cu — CUDA twins of mix.c (gossip mixing in double). Explicitly rounded
// double intrinsics keep the multiply and the add apart, as in C.
#include "kernels/cuda_launch.h"
#include "kernels/kernels_cuda.h"

#define GRID_STRIDE(i, n) \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)gridDim.x * blockDim.x)

__global__ void mix_start_kernel(double *acc, const float *x, double w, size_t n) {
  GRID_STRIDE(i, n) acc[i] = __dmul_rn(w, (double)x[i]);
}

__global__ void mix_add_kernel(double *acc, const float *x, double w, size_t n) {
  GRID_STRIDE(i, n) acc[i] = __dadd_rn(acc[i], __dmul_rn(w, (double)x[i]));
}

__global__ void mix_finish_kernel(float *out, const double *acc, double divisor, size_t n) {
  GRID_STRIDE(i, n) out[i] = __double2float_rn(__ddiv_rn(acc[i], divisor));
}

extern "C" int hs_kc_mix_start_f32(double *acc, const float *x, double w, size_t n, void *stream) {
  if (n == 0) return 0;
  mix_start_kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(acc, x, w, n);
  return hs_kc_launched();
}

extern "C" int hs_kc_mix_add_f32(double *acc, const float *x, double w, size_t n, void *stream) {
  if (n == 0) return 0;
  mix_add_kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(acc, x, w, n);
  return hs_kc_launched();
}

extern "C" int hs_kc_mix_finish_f32(float *out, const double *acc, double divisor, size_t n, void *stream) {
  if (n == 0) return 0;
  mix_finish_kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(out, acc, divisor, n);
  return hs_kc_launched();
}
