/* gpu_spread.h — identical GPUs do not run at the same speed.
 *
 * GPUs of one model and SKU differ in speed through manufacturing and
 * power management: Sinha et al. (arXiv 2208.11035v3, the revision of
 * their SC22 paper) measured over 90% of the GPUs of five clusters (V100,
 * RTX 5000 and MI60 GPUs) and report "8% (max 22%) average performance
 * variation even though the GPU architecture and vendor SKU are identical
 * within each cluster, with outliers up to 1.5X slower than the median
 * GPU". A synchronous job waits for its slowest GPU, so the more GPUs it
 * takes, the further below a typical one it runs.
 *
 * cluster.gpu.variability is that spread, v: the cluster's GPUs run at
 * speeds spread uniformly over [1 - v/2, 1 + v/2] of a typical GPU's (the
 * median, which a single-GPU measurement calibrates: factor 1). The
 * uniform shape is hearsay's assumption; the paper gives the spread, not
 * its shape. A job of n GPUs takes the expected order statistics of n
 * draws, the quantiles k/(n + 1), k = 1..n, with no random draw, rounded
 * to v/16 (0.5% at the default) so that GPUs of one speed end together
 * and SimGrid settles them at once; its slowest runs at 1 - v/2 + v/(n +
 * 1) so rounded: 1 alone, 0.985 of a typical GPU with two, 0.97 with
 * eight, 0.96 at scale (v = 0.08). Which GPU gets
 * which quantile is a fixed permutation of the ranks that spreads slow and
 * fast GPUs over the nodes and keeps rank 0 at the middle, so the same
 * scenario gives the same speeds. */
#ifndef HS_GPU_SPREAD_H
#define HS_GPU_SPREAD_H

#include "scenarios/scenario.h"

/* GPU r's speed against a typical GPU of the cluster: 1 + v ((k + 1)/(n +
 * 1) - 1/2), k = 0..n-1 its place in the spread, n the cluster's GPUs, the
 * quantile rounded to 1/16. */
double hs_gpu_spread_factor(const hs_cluster_spec *c, int gpu);

/* The slowest factor among the cluster's GPUs: 1 - v/2 + v/(n + 1), its
 * quantile rounded as hs_gpu_spread_factor rounds it. */
double hs_gpu_spread_slowest(const hs_cluster_spec *c);

#endif
