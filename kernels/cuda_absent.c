/* cuda_absent.c — kernels_cuda.h in a build without the CUDA toolkit:
 * nothing is available, every call fails, callers fall back or skip. */
#include "kernels/kernels_cuda.h"

int hs_kc_available(void) { return 0; }
int hs_kc_reduce(hs_k_type t, hs_k_op op, void *dst, const void *src, size_t n, void *stream) {
  (void)t, (void)op, (void)dst, (void)src, (void)n, (void)stream;
  return -1;
}
int hs_kc_divide(hs_k_type t, void *dst, size_t n, double divisor, void *stream) {
  (void)t, (void)dst, (void)n, (void)divisor, (void)stream;
  return -1;
}
int hs_kc_axpy_f32(float *y, const float *x, float a, size_t n, void *stream) {
  (void)y, (void)x, (void)a, (void)n, (void)stream;
  return -1;
}
int hs_kc_average2_f32(float *out, const float *a, const float *b, size_t n, void *stream) {
  (void)out, (void)a, (void)b, (void)n, (void)stream;
  return -1;
}
int hs_kc_mix_start_f32(double *acc, const float *x, double w, size_t n, void *stream) {
  (void)acc, (void)x, (void)w, (void)n, (void)stream;
  return -1;
}
int hs_kc_mix_add_f32(double *acc, const float *x, double w, size_t n, void *stream) {
  (void)acc, (void)x, (void)w, (void)n, (void)stream;
  return -1;
}
int hs_kc_mix_finish_f32(float *out, const double *acc, double divisor, size_t n, void *stream) {
  (void)out, (void)acc, (void)divisor, (void)n, (void)stream;
  return -1;
}
int hs_kc_sgd_momentum_f32(float *w, const float *grad, float *m, size_t n, float lr, float momentum,
                           float weight_decay, void *stream) {
  (void)w, (void)grad, (void)m, (void)n, (void)lr, (void)momentum, (void)weight_decay, (void)stream;
  return -1;
}
int hs_kc_adam_f32(float *w, const float *grad, float *m, float *v, size_t n, float lr, float beta1, float beta2, float eps, float weight_decay, float c1, float c2, void *stream) {
  (void)w, (void)grad, (void)m, (void)v, (void)n, (void)lr, (void)beta1, (void)beta2, (void)eps, (void)weight_decay, (void)c1, (void)c2, (void)stream;
  return -1;
}
int hs_kc_ema_f32(float *m, const float *g, float beta, size_t n, void *stream) {
  (void)m, (void)g, (void)beta, (void)n, (void)stream;
  return -1;
}
int hs_kc_ema_sq_f32(float *v, const float *g, float beta, size_t n, void *stream) {
  (void)v, (void)g, (void)beta, (void)n, (void)stream;
  return -1;
}
int hs_kc_adam_apply_f32(float *w, const float *m, const float *v, size_t n, float lr, float eps, float c1, float c2, void *stream) {
  (void)w, (void)m, (void)v, (void)n, (void)lr, (void)eps, (void)c1, (void)c2, (void)stream;
  return -1;
}
int hs_kc_minmax_u8_encode(const float *x, size_t n, size_t chunk, uint8_t *out, void *stream) {
  (void)x, (void)n, (void)chunk, (void)out, (void)stream;
  return -1;
}
int hs_kc_minmax_u8_decode(const uint8_t *in, size_t n, size_t chunk, float *x, void *stream) {
  (void)in, (void)n, (void)chunk, (void)x, (void)stream;
  return -1;
}
int hs_kc_sign_encode(const float *x, float *err, size_t n, size_t chunk, uint8_t *out, void *stream) {
  (void)x, (void)err, (void)n, (void)chunk, (void)out, (void)stream;
  return -1;
}
int hs_kc_sign_decode(const uint8_t *in, size_t n, size_t chunk, float *x, void *stream) {
  (void)in, (void)n, (void)chunk, (void)x, (void)stream;
  return -1;
}
int hs_kc_topk_encode(const float *x, size_t n, size_t k, uint8_t *out, void *stream) {
  (void)x, (void)n, (void)k, (void)out, (void)stream;
  return -1;
}
int hs_kc_topk_decode(const uint8_t *in, size_t n, size_t k, float *x, void *stream) {
  (void)in, (void)n, (void)k, (void)x, (void)stream;
  return -1;
}
int hs_kc_gather_f32(const float *x, const uint32_t *idx, size_t k, float *out, void *stream) {
  (void)x, (void)idx, (void)k, (void)out, (void)stream;
  return -1;
}
int hs_kc_scatter_f32(const float *v, const uint32_t *idx, size_t k, size_t n, float *x, void *stream) {
  (void)v, (void)idx, (void)k, (void)n, (void)x, (void)stream;
  return -1;
}
int hs_kc_to_f16(const float *x, size_t n, uint16_t *out, void *stream) {
  (void)x, (void)n, (void)out, (void)stream;
  return -1;
}
int hs_kc_from_f16(const uint16_t *in, size_t n, float *x, void *stream) {
  (void)in, (void)n, (void)x, (void)stream;
  return -1;
}
int hs_kc_to_bf16(const float *x, size_t n, uint16_t *out, void *stream) {
  (void)x, (void)n, (void)out, (void)stream;
  return -1;
}
int hs_kc_from_bf16(const uint16_t *in, size_t n, float *x, void *stream) {
  (void)in, (void)n, (void)x, (void)stream;
  return -1;
}
void *hs_kc_malloc(size_t bytes) {
  (void)bytes;
  return NULL;
}
void hs_kc_free(void *p) { (void)p; }
int hs_kc_to_device(void *dst, const void *src, size_t bytes) {
  (void)dst, (void)src, (void)bytes;
  return -1;
}
int hs_kc_to_host(void *dst, const void *src, size_t bytes) {
  (void)dst, (void)src, (void)bytes;
  return -1;
}
int hs_kc_synchronize(void) { return -1; }
