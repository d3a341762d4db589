/* nccl_legacy.h — how NCCL 2.3 and 2.4 chose an algorithm and a protocol.
 *
 * Before its cost model (tuning.cc, NCCL 2.5), NCCL chose by thresholds
 * set at init:
 *  - 2.3 (2.3.5 to 2.3.7, the first open NCCL 2): rings only; LL while the
 *    bytes fit LL's threads at a per-thread threshold
 *    (src/include/common_coll.h at v2.3.7-1, ncclGetCollResource);
 *  - 2.4 (2.4.2 to 2.4.8): an allreduce runs the double binary tree up to
 *    a size set from a fixed latency and bandwidth of each (init.cc at
 *    v2.4.8-1, ncclTreeThreshold), the ring above it; LL as 2.3 did, per
 *    pattern (enqueue.cc at v2.4.8-1, getKernelInfo).
 * sim.nccl_version = "2.3" or "2.4" picks by these rules where
 * sim.tuner = "nccl" (select.c): what a study of 2018-2019 ran. What the
 * pick then costs is hearsay's simulation, as for any version. */
#ifndef HS_NCCL_LEGACY_H
#define HS_NCCL_LEGACY_H

#include "algos/comm/comm.h"
#include "algos/comm/nccl_model.h"

/* Whether NCCL `version` (major * 100 + minor) picks by thresholds. */
int hs_nccl_legacy(int version);

/* NCCL 2.4's treeThreshold in bytes for a communicator of t->ranks over
 * t->nodes with t->channels and NVLink or not: 0 (never the tree: one
 * node, or the ring's latency no worse), HS_NCCL_TREE_ALWAYS (two NVLink
 * nodes, where 2.4 rates the tree at twice 3/4 of the ring), else the size
 * at which the ring's bandwidth pays back the tree's lower latency. */
#define HS_NCCL_TREE_ALWAYS 0x7fffffffffffffffLL
long long hs_nccl24_tree_threshold(const hs_nccl_topo *t);

/* NCCL `version`'s choice for kind k of `bytes` (the whole vector, as
 * NCCL counts it) on t, among the ring (may_ring) and the tree (may_tree,
 * an allreduce's only): *tree (the allreduce runs the tree) and *ll (the
 * LL protocol, by the threshold of the pattern chosen). Where only one of
 * them may run (a schedule the scenario forces), that one, with its LL
 * threshold. Returns 0 where the version does not pick by thresholds,
 * NCCL has no such collective (alltoall, barrier, point to point), or
 * neither may run. */
int hs_nccl_legacy_pick(int version, const hs_nccl_topo *t, hs_op_kind k, double bytes, int may_ring, int may_tree,
                        int *tree, int *ll);

#endif
