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

__device__ inline float adam_delta(float m, float v, float step, float eps, float c2) {
  return __fdiv_rn(__fmul_rn(step, m), __fadd_rn(__fsqrt_rn(__fdiv_rn(v, c2)), eps));
}

__global__ void ema_kernel(float *m, const float *g, float beta, float one_minus, size_t n) {
  GRID_STRIDE(i, n) m[i] = __fadd_rn(__fmul_rn(beta, m[i]), __fmul_rn(one_minus, g[i]));
}

__global__ void ema_sq_kernel(float *v, const float *g, float beta, float one_minus, size_t n) {
  GRID_STRIDE(i, n) v[i] = __fadd_rn(__fmul_rn(beta, v[i]), __fmul_rn(one_minus, __fmul_rn(g[i], g[i])));
}

__global__ void adam_apply_kernel(float *w, const float *m, const float *v, size_t n, float step, float eps, float c2) {
  GRID_STRIDE(i, n) w[i] = __fsub_rn(w[i], adam_delta(m[i], v[i], step, eps, c2));
}

__global__ void adam_kernel(float *w, const float *grad, float *m, float *v, size_t n, float step, float b1, float a1,
                            float b2, float a2, float eps, float wd, float c2) {
  GRID_STRIDE(i, n) {
    float g = __fadd_rn(grad[i], __fmul_rn(wd, w[i]));
    float mi = __fadd_rn(__fmul_rn(b1, m[i]), __fmul_rn(a1, g));
    float vi = __fadd_rn(__fmul_rn(b2, v[i]), __fmul_rn(a2, __fmul_rn(g, g)));
    m[i] = mi, v[i] = vi;
    w[i] = __fsub_rn(w[i], adam_delta(mi, vi, step, eps, c2));
  }
}

extern "C" int hs_kc_ema_f32(float *m, const float *g, float beta, size_t n, void *stream) {
  if (n == 0) return 0;
  ema_kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(m, g, beta, 1.0f - beta, n);
  return hs_kc_launched();
}

extern "C" int hs_kc_ema_sq_f32(float *v, const float *g, float beta, size_t n, void *stream) {
  if (n == 0) return 0;
  ema_sq_kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(v, g, beta, 1.0f - beta, n);
  return hs_kc_launched();
}

extern "C" int hs_kc_adam_apply_f32(float *w, const float *m, const float *v, size_t n, float lr, float eps, float c1,
                                    float c2, void *stream) {
  if (n == 0) return 0;
  adam_apply_kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(w, m, v, n, lr / c1, eps, c2);
  return hs_kc_launched();
}

extern "C" int hs_kc_adam_f32(float *w, const float *grad, float *m, float *v, size_t n, float lr, float beta1,
                              float beta2, float eps, float weight_decay, float c1, float c2, void *stream) {
  if (n == 0) return 0;
  adam_kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(
      w, grad, m, v, n, lr / c1, beta1, 1.0f - beta1, beta2, 1.0f - beta2, eps, weight_decay, c2);
  return hs_kc_launched();
}
