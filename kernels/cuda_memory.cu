// cuda_memory.cu — device memory helpers behind kernels_cuda.h.
#include "kernels/cuda_launch.h"
#include "kernels/kernels_cuda.h"

extern "C" int hs_kc_available(void) {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

extern "C" void *hs_kc_malloc(size_t bytes) {
  void *p = nullptr;
  return cudaMalloc(&p, bytes ? bytes : 1) == cudaSuccess ? p : nullptr;
}

extern "C" void hs_kc_free(void *p) { cudaFree(p); }

extern "C" int hs_kc_to_device(void *dst, const void *src, size_t bytes) {
  return cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice) == cudaSuccess ? 0 : -1;
}

extern "C" int hs_kc_to_host(void *dst, const void *src, size_t bytes) {
  return cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost) == cudaSuccess ? 0 : -1;
}

extern "C" int hs_kc_synchronize(void) { return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1; }
