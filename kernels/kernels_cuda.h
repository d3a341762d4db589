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

#include <stdint.h>

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
int hs_kc_mix_start_f32(double *acc, const float *x, double w, size_t n, void *stream);
int hs_kc_mix_add_f32(double *acc, const float *x, double w, size_t n, void *stream);
int hs_kc_mix_finish_f32(float *out, const double *acc, double divisor, size_t n, void *stream);
int hs_kc_sgd_momentum_f32(float *w, const float *grad, float *m, size_t n, float lr, float momentum,
                           float weight_decay, void *stream);
int hs_kc_adam_f32(float *w, const float *grad, float *m, float *v, size_t n, float lr, float beta1, float beta2,
                   float eps, float weight_decay, float c1, float c2, void *stream);
int hs_kc_ema_f32(float *m, const float *g, float beta, size_t n, void *stream);
int hs_kc_ema_sq_f32(float *v, const float *g, float beta, size_t n, void *stream);
int hs_kc_adam_apply_f32(float *w, const float *m, const float *v, size_t n, float lr, float eps, float c1, float c2,
                         void *stream);

/* Compressors (compress.h). Outputs are device buffers of the *_bytes size.
 * The encoders take their tiles' partial results from the stream-ordered
 * pool (cudaMallocAsync) and give them back on the same stream. */
int hs_kc_minmax_u8_encode(const float *x, size_t n, size_t chunk, uint8_t *out, void *stream);
int hs_kc_minmax_u8_decode(const uint8_t *in, size_t n, size_t chunk, float *x, void *stream);
int hs_kc_sign_encode(const float *x, float *err, size_t n, size_t chunk, uint8_t *out, void *stream);
int hs_kc_sign_decode(const uint8_t *in, size_t n, size_t chunk, float *x, void *stream);
/* Synchronises the stream before returning (it sorts in temporary memory). */
int hs_kc_topk_encode(const float *x, size_t n, size_t k, uint8_t *out, void *stream);
int hs_kc_topk_decode(const uint8_t *in, size_t n, size_t k, float *x, void *stream);
int hs_kc_gather_f32(const float *x, const uint32_t *idx, size_t k, float *out, void *stream);
int hs_kc_scatter_f32(const float *v, const uint32_t *idx, size_t k, size_t n, float *x, void *stream);
int hs_kc_to_f16(const float *x, size_t n, uint16_t *out, void *stream);
int hs_kc_from_f16(const uint16_t *in, size_t n, float *x, void *stream);
int hs_kc_to_bf16(const float *x, size_t n, uint16_t *out, void *stream);
int hs_kc_from_bf16(const uint16_t *in, size_t n, float *x, void *stream);

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
