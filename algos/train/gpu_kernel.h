/* gpu_kernel.h — what a memory-bound GPU kernel costs: every byte it
 * touches (reads and writes) at the GPU's memory bandwidth, plus a launch
 * each (cluster.gpu.memory_bandwidth, cluster.gpu.launch_overhead;
 * published defaults in scenarios/gpu_defaults.c). Compression and
 * decompression, optimizer steps, averaging, copies and error feedback
 * take time on a real GPU; an algorithm charges them here whether or not
 * its run carries numbers (timing-only runs have no data but the same
 * kernels to run). The time passes on the calling thread of control, as
 * a kernel on that thread's stream. */
#ifndef HS_GPU_KERNEL_H
#define HS_GPU_KERNEL_H

#include "algos/algorithm.h"

/* Seconds of a kernel (or `launches` of them) touching `bytes` in all. */
static inline double hs_gpu_kernel_seconds(const hs_cluster_spec *c, double bytes, int launches) {
  return bytes / c->gpu_memory_bandwidth + launches * c->gpu_launch_overhead;
}

static inline void hs_gpu_kernel(hs_algo_ctx *ctx, double bytes, int launches) {
  hs_gpu_busy(ctx->w, hs_gpu_kernel_seconds(&ctx->sc->cluster, bytes, launches));
}

#endif
