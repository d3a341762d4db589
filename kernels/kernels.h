/* kernels.h — numeric kernels on flat buffers, the C reference.
 *
 * Algorithms call these on whole buckets (flattened, contiguous). Each has
 * one contract that a CUDA twin (issue 3) must honour bit for bit where the
 * arithmetic allows: same element order, float32 accumulation unless said. */
#ifndef HS_KERNELS_H
#define HS_KERNELS_H

#include <stddef.h>

/* Element types, matching hs_dtype in algos/comm/comm.h value for value. */
/* F16 and BF16 are reduced in float32 and rounded once back to 16 bits
 * (what NCCL does for half types). */
typedef enum { HS_K_F32, HS_K_F64, HS_K_I32, HS_K_I64, HS_K_U8, HS_K_F16, HS_K_BF16 } hs_k_type;
typedef enum { HS_K_SUM, HS_K_MIN, HS_K_MAX } hs_k_op;

/* dst[i] = dst[i] op src[i] for i < n. */
void hs_k_reduce(hs_k_type t, hs_k_op op, void *dst, const void *src, size_t n);
/* dst[i] = dst[i] / divisor (floating types only; exact division, in float32
 * for the 16-bit types). */
void hs_k_divide(hs_k_type t, void *dst, size_t n, double divisor);

/* y += a * x */
void hs_k_axpy_f32(float *y, const float *x, float a, size_t n);
/* out = (a + b) / 2, element-wise */
void hs_k_average2_f32(float *out, const float *a, const float *b, size_t n);
/* Gossip mixing, x_new = (sum_k w_k x_k) / divisor, accumulated in double
 * in the order the caller adds terms (so every backend rounds alike):
 *   start:  acc = w * x        add: acc += w * x
 *   finish: out = (float)(acc / divisor)   (divisor 1 for plain averaging,
 *           the push-sum weight for de-biasing) */
void hs_k_mix_start_f32(double *acc, const float *x, double w, size_t n);
void hs_k_mix_add_f32(double *acc, const float *x, double w, size_t n);
void hs_k_mix_finish_f32(float *out, const double *acc, double divisor, size_t n);
/* SGD with momentum and decoupled weight decay folded into the gradient,
 * PyTorch's convention:
 *   g = grad + weight_decay * w;  m = momentum * m + g;  w -= lr * m
 * With momentum == 0 the buffer m is not touched (may be NULL). */
void hs_k_sgd_momentum_f32(float *w, const float *grad, float *m, size_t n, float lr,
                           float momentum, float weight_decay);

/* Adam (PyTorch's, L2 weight decay folded into the gradient), one fused pass:
 *   g = grad + weight_decay * w
 *   m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g * g
 *   w -= (lr / c1) * m / (sqrt(v / c2) + eps)
 * with the bias corrections c1 = 1 - beta1^t and c2 = 1 - beta2^t passed in.
 * It rounds exactly as hs_k_ema_f32 on m and v followed by hs_k_adam_apply_f32,
 * so algorithms that split the step (QAdam, 1-bit Adam) stay comparable. */
void hs_k_adam_f32(float *w, const float *grad, float *m, float *v, size_t n, float lr, float beta1, float beta2,
                   float eps, float weight_decay, float c1, float c2);
/* m = beta * m + (1 - beta) * g */
void hs_k_ema_f32(float *m, const float *g, float beta, size_t n);
/* m = beta * m + (1 - beta) * g * g */
void hs_k_ema_sq_f32(float *v, const float *g, float beta, size_t n);
/* w -= (lr / c1) * m / (sqrt(v / c2) + eps) */
void hs_k_adam_apply_f32(float *w, const float *m, const float *v, size_t n, float lr, float eps, float c1, float c2);

#endif
