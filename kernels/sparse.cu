// sparse.cu — CUDA twins of sparse.c: top-k by a stable radix sort of the
// magnitudes (Thrust, part of the CUDA toolkit), gather and scatter.
#include <cstdint>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

#include "kernels/compress.h"
#include "kernels/cuda_launch.h"
#include "kernels/kernels_cuda.h"

#define GRID_STRIDE(i, n) \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)gridDim.x * blockDim.x)

__global__ void magnitude_kernel(const float *x, size_t n, float *mag) {
  GRID_STRIDE(i, n) mag[i] = x[i] < 0 ? -x[i] : x[i];
}

__global__ void gather_kernel(const float *x, const uint32_t *idx, size_t k, float *out) {
  GRID_STRIDE(j, k) out[j] = x[idx[j]];
}

__global__ void scatter_kernel(const float *v, const uint32_t *idx, size_t k, float *x) {
  GRID_STRIDE(j, k) x[idx[j]] = v[j];
}

extern "C" int hs_kc_gather_f32(const float *x, const uint32_t *idx, size_t k, float *out, void *stream) {
  if (k == 0) return 0;
  gather_kernel<<<hs_kc_blocks(k), HS_KC_THREADS, 0, (cudaStream_t)stream>>>(x, idx, k, out);
  return hs_kc_launched();
}

extern "C" int hs_kc_scatter_f32(const float *v, const uint32_t *idx, size_t k, size_t n, float *x, void *stream) {
  cudaStream_t s = (cudaStream_t)stream;
  if (cudaMemsetAsync(x, 0, n * sizeof(float), s) != cudaSuccess) return -1;
  if (k == 0) return 0;
  scatter_kernel<<<hs_kc_blocks(k), HS_KC_THREADS, 0, s>>>(v, idx, k, x);
  return hs_kc_launched();
}

extern "C" int hs_kc_topk_encode(const float *x, size_t n, size_t k, uint8_t *out, void *stream) {
  if (k == 0) return 0;
  cudaStream_t s = (cudaStream_t)stream;
  try {
    thrust::device_vector<float> mag(n);
    thrust::device_vector<uint32_t> idx(n);
    magnitude_kernel<<<hs_kc_blocks(n), HS_KC_THREADS, 0, s>>>(x, n, thrust::raw_pointer_cast(mag.data()));
    thrust::sequence(thrust::cuda::par.on(s), idx.begin(), idx.end());
    // Stable and descending: equal magnitudes keep index order, as in sparse.c.
    thrust::stable_sort_by_key(thrust::cuda::par.on(s), mag.begin(), mag.end(), idx.begin(),
                               thrust::greater<float>());
    thrust::sort(thrust::cuda::par.on(s), idx.begin(), idx.begin() + k);
    uint32_t *sent = (uint32_t *)out;
    if (cudaMemcpyAsync(sent, thrust::raw_pointer_cast(idx.data()), k * sizeof(uint32_t),
                        cudaMemcpyDeviceToDevice, s) != cudaSuccess)
      return -1;
    gather_kernel<<<hs_kc_blocks(k), HS_KC_THREADS, 0, s>>>(x, sent, k, (float *)(out + k * sizeof(uint32_t)));
    // The temporaries are freed on return: finish using them first.
    if (cudaStreamSynchronize(s) != cudaSuccess) return -1;
  } catch (...) {
    return -1;
  }
  return hs_kc_launched();
}

extern "C" int hs_kc_topk_decode(const uint8_t *in, size_t n, size_t k, float *x, void *stream) {
  return hs_kc_scatter_f32((const float *)(in + k * sizeof(uint32_t)), (const uint32_t *)in, k, n, x, stream);
}
