// optim.cu — CUDA twins of optim.c (axpy, average of two, SGD with momentum).
#include "kernels/cuda_launch.h"
#include "kernels/kernels_cuda.h"

#define GRID_STRIDE(i, n) \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)gridDim.x * blockDim.x)

__global__ void axpy_kernel(float *y, const float *x, float a, size_t n) {
  GRID_STRIDE(i, n) y[i] = __fadd_rn(y[i], __fmul_rn(a, x[i]));
}

__global__ void average2_kernel(float *out, const float *a, const float *b, size_t n) {
  GRID_STRIDE(i, n) out[i] = __fmul_rn(__fadd_rn(a[i], b[i]), 0.5f);
}

__global__ void sgd_kernel(float *w, const float *grad, float *m, size_t n, float lr, float momentum, float wd) {
  GRID_STRIDE(i, n) {
    float g = __fadd_rn(grad[i], __fmul_rn(wd, w[i]));
    if (momentum == 0.0f) {
      w[i] = __fsub_rn(w[i], __fmul_rn(lr, g));
    } else {
      float v = __fadd_rn(__fmul_rn(momentum, m[i]), g);
      m[i] = v;
      w[i] = __fsub_rn(w[i], __fmul_rn(lr, v));
    }
  }
}

extern "C" int hs_kc_axpy_f32(float *y, const float *x, float a, size_t n, void *stream) {
  if (n == 0) return 0;
  axpy_kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(y, x, a, n);
  return hs_kc_launched();
}

extern "C" int hs_kc_average2_f32(float *out, const float *a, const float *b, size_t n, void *stream) {
  if (n == 0) return 0;
  average2_kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(out, a, b, n);
  return hs_kc_launched();
}

extern "C" int hs_kc_sgd_momentum_f32(float *w, const float *grad, float *m, size_t n, float lr, float momentum,
                                      float weight_decay, void *stream) {
  if (n == 0) return 0;
  sgd_kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(w, grad, m, n, lr, momentum, weight_decay);
  return hs_kc_launched();
}
