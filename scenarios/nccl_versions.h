/* nccl_versions.h — what each NCCL release could run, so that a scenario
 * of a past study (sim.nccl_version) is tuned among the algorithms and
 * protocols its NCCL had, not today's.
 *
 * The releases, from NCCL's own sources (github.com/NVIDIA/nccl tags):
 *  - before 2.3: rings and the Simple protocol. NCCL 1.x is open and has
 *    nothing else (src/ at v1.3.4-1: rings' kernels, no tree, no LL);
 *    2.0 to 2.2 were released as binaries only, and 2.3.5, the first open
 *    NCCL 2, is the first whose sources carry the low-latency protocol
 *    (src/include/core.h at v2.3.7-1: NCCL_LL_RING_THRESHOLD,
 *    NCCL_LL_BUFF_SIZE);
 *  - 2.4: double binary trees (src/misc/trees.cu at v2.4.2-1);
 *  - 2.5: LL128 (src/include/devcomm.h at v2.5.6-1: "Simple/LL/LL128");
 *  - 2.6: CollNet (devcomm.h at v2.6.4-1: "Tree/Ring/CollNet");
 *  - 2.17: NVLS (devcomm.h at v2.17.1-1: NCCL_ALGO_NVLS);
 *  - 2.18: the NVLS tree (devcomm.h at v2.18.1-1: NCCL_ALGO_NVLS_TREE).
 * The constants hearsay charges (baseLat, hwLat, the per-generation caps)
 * stay NCCL 2.30.7's: a version changes what may run, not what it costs.
 * 2.3 and 2.4 also chose differently, by thresholds (algos/comm/nccl_legacy.h). */
#ifndef HS_NCCL_VERSIONS_H
#define HS_NCCL_VERSIONS_H

/* "MAJOR.MINOR", optionally ".PATCH" and "-BUILD" (2.18.5-1), as
 * major * 100 + minor (1.x: 100); -1 if it is not one, or not 1.x to
 * 2.99 (a release after 2.30 runs what 2.30 does). */
int hs_nccl_version_parse(const char *text);
/* The newest release hearsay knows: everything runs. */
#define HS_NCCL_LATEST 230

/* Whether NCCL `version` (as parsed) runs each of these. */
int hs_nccl_has_ll(int version);
int hs_nccl_has_tree(int version);
int hs_nccl_has_ll128(int version);
int hs_nccl_has_collnet(int version);
int hs_nccl_has_nvls(int version);
int hs_nccl_has_nvls_tree(int version);

/* The furthest PCIe path (hs_pcie_path, scenario.h) over which NCCL
 * `version` connects two GPUs of a node peer to peer by default
 * (NCCL_P2P_LEVEL unset), on an AMD CPU or not, with the node's sockets
 * and GPUs; further apart its SHM transport stages the hop in host
 * memory. */
int hs_nccl_p2p_level(int version, int amd, int sockets, int gpus_per_node);

#endif
