/* kernels_cuda.h — the CUDA twins of kernels.h, same contracts, same bits.
 *
 * Each hs_kc_X does what hs_k_X does, on device memory, asynchronously on
 * a CUDA stream (passed as void* so that callers need no CUDA header; NULL
 * is the default stream). Floating-point arithmetic uses the explicitly
 * rounded intrinsics (__fadd_rn, __fmul_rn, __fdiv_rn, ...), so no
 * multiply-add is fused and every element rounds exactly as the C
 * reference's does: tests/test_kernels_cuda.c compares them bit for bit.
 *
 * Functions return 0, or -1 if the launch failed. In a build without the
 * CUDA toolkit (kernels/cuda_absent.c) hs_kc_available() is 0 and every
 * other call returns -1. */
#ifndef HS_KERNELS_CUDA_H
#define HS_KERNELS_CUDA_H

#include <stddef.h>

#include "kernels/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if the twins are built and a CUDA device is visible. */
int hs_kc_available(void);

int hs_kc_reduce(hs_k_type t, hs_k_op op, void *dst, const void *src, size_t n, void *stream);
int hs_kc_divide(hs_k_type t, void *dst, size_t n, double divisor, void *stream);
int hs_kc_axpy_f32(float *y, const float *x, float a, size_t n, void *stream);
int hs_kc_average2_f32(float *out, const float *a, const float *b, size_t n, void *stream);
int hs_kc_sgd_momentum_f32(float *w, const float *grad, float *m, size_t n, float lr, float momentum,
                           float weight_decay, void *stream);

/* Device memory helpers for callers without CUDA headers (tests, tools). */
void *hs_kc_malloc(size_t bytes);
void hs_kc_free(void *p);
int hs_kc_to_device(void *dst, const void *src, size_t bytes);
int hs_kc_to_host(void *dst, const void *src, size_t bytes);
int hs_kc_synchronize(void);

#ifdef __cplusplus
}
#endif

#endif
