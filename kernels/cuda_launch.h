// cuda_launch.h — launch geometry and error check shared by the .cu twins.
#ifndef HS_KERNELS_CUDA_LAUNCH_H
#define HS_KERNELS_CUDA_LAUNCH_H

#include <cuda_runtime.h>
#include <stddef.h>

#define HS_KC_THREADS 256

// Grid-stride loops: enough blocks to fill a large GPU, never more than needed.
static inline unsigned hs_kc_blocks(size_t n) {
  size_t b = (n + HS_KC_THREADS - 1) / HS_KC_THREADS;
  return (unsigned)(b < 65535 ? b : 65535);
}

static inline int hs_kc_launched(void) { return cudaGetLastError() == cudaSuccess ? 0 : -1; }

#endif
