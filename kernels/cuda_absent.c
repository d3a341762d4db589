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
int hs_kc_sgd_momentum_f32(float *w, const float *grad, float *m, size_t n, float lr, float momentum,
                           float weight_decay, void *stream) {
  (void)w, (void)grad, (void)m, (void)n, (void)lr, (void)momentum, (void)weight_decay, (void)stream;
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
