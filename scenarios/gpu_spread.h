/* gpu_spread.h — identical GPUs do not run at the same speed.
 *
 * GPUs of one model and SKU differ in speed through manufacturing and
 * power management: Sinha et al. (SC22, arXiv 2208.11035v3) measured
 * every GPU of five clusters and report "8% (max 22%) average performance
 * variation even though the GPU architecture and vendor SKU are identical
 * within each cluster, with outliers up to 1.5X slower than the median
 * GPU". A synchronous job waits for its slowest GPU, so the more GPUs it
 * takes, the further below a typical one it runs.
 *
 * cluster.gpu.variability is that spread, v: the cluster's GPUs run at
 * speeds spread evenly over [1 - v/2, 1 + v/2] of a typical GPU's (the one
 * a single-GPU measurement calibrates, factor 1). A job of n GPUs takes
 * the n evenly spaced quantiles (k + 1/2)/n of that spread, its expected
 * GPUs, so its slowest runs at 1 - v/2 + v/(2n): 1 alone, 0.98 of a
 * typical GPU with two, 0.965 with eight, 0.96 at any scale (v = 0.08).
 * Which GPU gets which quantile is a fixed permutation of the ranks, so
 * that slow and fast GPUs are spread over the nodes and the same scenario
 * gives the same speeds (no random draw). */
#ifndef HS_GPU_SPREAD_H
#define HS_GPU_SPREAD_H

#include "scenarios/scenario.h"

/* GPU r's speed against a typical GPU of the cluster: 1 + v ((k + 1/2)/n
 * - 1/2), k its place in the spread, n the cluster's GPUs. */
double hs_gpu_spread_factor(const hs_cluster_spec *c, int gpu);

/* The slowest factor among the cluster's GPUs: 1 - v/2 + v/(2n). */
double hs_gpu_spread_slowest(const hs_cluster_spec *c);

#endif
