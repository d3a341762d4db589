/* kernels.h — numeric kernels on flat buffers, the C reference.
 *
 * Algorithms call these on whole buckets (flattened, contiguous). Each has
 * one contract that a CUDA twin (issue 3) must honour bit for bit where the
 * arithmetic allows: same element order, float32 accumulation unless said. */
#ifndef HS_KERNELS_H
#define HS_KERNELS_H

#include <stddef.h>

/* Element types, matching hs_dtype in algos/comm.h value for value. */
typedef enum { HS_K_F32, HS_K_F64, HS_K_I32, HS_K_I64, HS_K_U8 } hs_k_type;
typedef enum { HS_K_SUM, HS_K_MIN, HS_K_MAX } hs_k_op;

/* dst[i] = dst[i] op src[i] for i < n. */
void hs_k_reduce(hs_k_type t, hs_k_op op, void *dst, const void *src, size_t n);
/* dst[i] = dst[i] / divisor (floating types only; exact division). */
void hs_k_divide(hs_k_type t, void *dst, size_t n, double divisor);

/* y += a * x */
void hs_k_axpy_f32(float *y, const float *x, float a, size_t n);
/* out = (a + b) / 2, element-wise */
void hs_k_average2_f32(float *out, const float *a, const float *b, size_t n);
/* SGD with momentum and decoupled weight decay folded into the gradient,
 * PyTorch's convention:
 *   g = grad + weight_decay * w;  m = momentum * m + g;  w -= lr * m
 * With momentum == 0 the buffer m is not touched (may be NULL). */
void hs_k_sgd_momentum_f32(float *w, const float *grad, float *m, size_t n, float lr,
                           float momentum, float weight_decay);

#endif
