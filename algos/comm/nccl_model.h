/* nccl_model.h — NCCL's own cost model, as a reference predictor.
 *
 * A port of the model NCCL uses to pick an algorithm and a protocol for
 * each collective (NCCL 2.30.7, src/graph/tuning.cc: ncclTopoTuneModel and
 * ncclTopoGetAlgoTime; its constants are NCCL's, cited line by line in
 * nccl_model.c). For a collective of n bytes NCCL predicts
 *
 *     time = latency[coll][algo][proto] + n / bandwidth[coll][algo][proto]
 *
 * with latencies summed over the hops an algorithm crosses (intra-node and
 * network hops, each with a per-protocol cost) and a bus bandwidth of
 * channels x per-channel bandwidth, scaled by each protocol's efficiency
 * and converted to algorithm bandwidth. hearsay prints it beside its own
 * simulated time (`hearsay collective --model nccl`) and tests its own
 * collectives against it where both model the same thing
 * (docs/fidelity.md says where they differ on purpose).
 *
 * NCCL derives the per-channel bandwidths and the channel count from its
 * topology search; here they come from the cluster (hs_nccl_topo_of). */
#ifndef HS_NCCL_MODEL_H
#define HS_NCCL_MODEL_H

#include "algos/comm/comm.h"
#include "algos/comm/protocol.h"
#include "algos/comm/tuner.h"
#include "scenarios/scenario.h"

/* NCCL's algorithms and protocols, in NCCL's order. */
typedef enum {
  HS_NCCL_TREE,
  HS_NCCL_RING,
  HS_NCCL_COLLNET_DIRECT,
  HS_NCCL_COLLNET_CHAIN,
  HS_NCCL_NVLS,
  HS_NCCL_NVLS_TREE,
  HS_NCCL_PAT,
  HS_NCCL_ALGOS
} hs_nccl_algo;


/* What NCCL's model knows of a communicator. */
typedef struct {
  int ranks, nodes;
  int channels;            /* ring/tree channels the kernels run on (comm->nChannels); NCCL's per-channel
                              maxima count its search graph's, half of them (hs_graph_channels) */
  double bw_intra_gbs;     /* per channel, GB/s: the node's rate over `channels` (their product is what the
                              tuning multiplies, graph nChannels x bwIntra) */
  double bw_inter_gbs;     /* per channel, GB/s (the same across nodes) */
  double bw_tree_intra_gbs; /* per channel, GB/s: the tree graph's bwIntra. Across nodes NCCL's search
                               raises a tree's intra speed after the network's is found, up to twice
                               it, while the GPUs' links carry it (search.cc, pass 2, "increase bwIntra
                               for trees (2 nodes or collnet)", since NCCL 2.6.4); the tuning uses it
                               on two nodes. On one node it is bw_intra_gbs; 0 (a topology
                               written without it): the ring's, bw_intra_gbs */
  double latency_inter_us; /* graph latencyInter: what the network reports beyond NCCL's constants */
  int nvlink;              /* GPUs of a node talk over NVLink (else PCI) */
  hs_gpu_arch arch;
  int cpu_amd;             /* the hosts' CPUs are AMD (NCCL's LL caps and net overhead differ) */
  int nvls_channels;       /* > 0: NVLink SHARP available (NVLS), with this many channels */
  double nvls_bw_intra_gbs, nvls_bw_inter_gbs; /* per channel, GB/s: the NVLS graph's bwIntra and bwInter
                                                  (hs_nccl_nvls_graph); 0 (a topology written without
                                                  them): the ring's, shared among the NVLS channels */
  int collnet;             /* in-network reduction across nodes (CollNet/SHARP) */
} hs_nccl_topo;

typedef struct {
  hs_nccl_topo topo;
  double lat_us[HS_OP_KINDS][HS_NCCL_ALGOS][HS_PROTOS];
  double bw_gbs[HS_OP_KINDS][HS_NCCL_ALGOS][HS_PROTOS]; /* algorithm bandwidth; 0: not available */
  /* 1 where one of NCCL's bandwidth caps in GB/s (llMaxBw, the per-channel
   * LL128 and tree maxima: per GPU generation and host CPU) is below the
   * protocol's share of the links and sets the bandwidth */
  unsigned char capped[HS_OP_KINDS][HS_NCCL_ALGOS][HS_PROTOS];
} hs_nccl_model;

/* NCCL's tables for t (ncclTopoTuneModel). */
void hs_nccl_model_init(hs_nccl_model *m, const hs_nccl_topo *t);

/* Predicted seconds for one collective of kind k moving `bytes` (the whole
 * vector, as NCCL counts it: reduce_scatter and allgather included), or a
 * negative value when (algo, proto) is not available for it
 * (ncclTopoGetAlgoTime, numPipeOps 1). Kinds NCCL does not tune
 * (alltoall, barrier, point to point) are never available. */
double hs_nccl_time(const hs_nccl_model *m, hs_op_kind k, hs_nccl_algo a, hs_proto p, double bytes);

/* hs_nccl_time in its two terms, seconds: the latency (with the ring's
 * plateau factor where it applies) and bytes over the bandwidth (with the
 * tree's correction factor). Returns -1 where hs_nccl_time does, else
 * which of NCCL's fitted, size-dependent corrections applied (bits below):
 * these are measured fits of NCCL's kernels, not of the links. */
enum { HS_NCCL_FIT_TREE_CORRECTION = 1, HS_NCCL_FIT_RING_PLATEAU = 2 };
int hs_nccl_time_parts(const hs_nccl_model *m, hs_op_kind k, hs_nccl_algo a, hs_proto p, double bytes,
                       double *latency, double *transfer);

/* The (algo, proto) NCCL's model picks (the fastest available), its time
 * in *seconds; -1 when none is available. */
int hs_nccl_pick(const hs_nccl_model *m, hs_op_kind k, double bytes, hs_nccl_algo *a, hs_proto *p, double *seconds);

/* NCCL's NVLS graph (search.cc, ncclTopoCompute, pattern NVLS; NCCL
 * 2.30.7) for `channels` channels (one a GPU on one node, one a head GPU
 * with a NIC across nodes), each GPU's NVLink rated link_gbs (NCCL's
 * rating: links x SM90_NVLINK_BW ...) and each NIC nic_gbs (its line rate,
 * as NCCL's topology reads it; ignored on one node). Each channel pulls
 * from the switch through every GPU's link once and its head's twice
 * (ncclTopoSearchTryNvls), so the search settles on the fastest speed of
 * the generation's speed array (intra on one node, inter across) at which
 * channels + 1 of them fit a GPU's link, and across nodes a NIC; pass 2
 * then raises bwInter through the array while it is below twice bwIntra,
 * on one node freely (nothing crosses a NIC), across nodes while a NIC
 * carries it. Hopper and Blackwell only (NVLS needs SM90); 0 elsewhere. */
void hs_nccl_nvls_graph(hs_gpu_arch arch, int nodes, int channels, double link_gbs, double nic_gbs, double *intra,
                        double *inter);

/* The model's view of the whole cluster of sc (every GPU one rank). */
void hs_nccl_topo_of(const hs_scenario *sc, hs_nccl_topo *t);

/* The same for one communicator, from what the tuner knows of it (its
 * members, nodes, narrowest GPU link and node's NICs: tuner.h). */
void hs_nccl_topo_of_group(const hs_scenario *sc, const hs_tuner_topo *g, hs_nccl_topo *t);

/* NCCL's caps on a collective's bus bandwidth, GB/s, under the protocol's
 * share of the links (tuning.cc: llMaxBws, perChMaxRingLL128Bws,
 * perChMaxTreeBws, perChMaxTreeLL128Bws, measured per GPU generation and
 * host CPU): ring LL llMaxBw; ring LL128 channels x its per-channel
 * maximum; tree (allreduce) channels x the tree's, then LL's 1/3.8 or
 * LL128's share of it, and LL's and LL128's own caps. 0: none (ring
 * Simple, other algorithms). nodes: the collective spans 1, 2 or more. */
double hs_nccl_bus_cap(hs_gpu_arch arch, int cpu_amd, int nodes, int channels, hs_nccl_algo a, hs_proto p);

/* NCCL's latency constants, in seconds: the base latency of a collective
 * (baseLat) and the latency of one hop over NVLink, PCI or the network
 * (hwLat), for algorithm a and protocol p. protocol.c charges them. */
typedef enum { HS_NCCL_HW_NVLINK, HS_NCCL_HW_PCI, HS_NCCL_HW_NET } hs_nccl_hw;
double hs_nccl_base_latency(hs_nccl_algo a, hs_proto p);
double hs_nccl_hop_latency(hs_nccl_hw hw, hs_nccl_algo a, hs_proto p);
/* NCCL's floor on an intra-node hop of a multi-node collective: the
 * proxy's overhead (tuning.cc netOverhead), seconds. */
double hs_nccl_net_overhead(hs_proto p, int cpu_amd);

const char *hs_nccl_algo_name(hs_nccl_algo a);

#endif
