/* protocol.h — what a collective's protocol costs on a real machine.
 *
 * NCCL moves a collective's data with one of three protocols (sim.protocol;
 * NCCL 2.30.7, src/include/device.h and src/graph/tuning.cc):
 *  - LL: 8-byte stores of 4 data bytes and a 4-byte flag, polled by the
 *    receiver: no fence, the lowest latency per hop, half the bandwidth;
 *  - LL128: 128-byte lines of 120 data bytes and an 8-byte flag (NVLink);
 *  - Simple: bulk copies, then a memory fence and a flag per step: full
 *    bandwidth, the highest latency per hop.
 * hearsay charges each as what it physically is:
 *  - wire: link time per payload byte, in bytes at the link's rate: 1 /
 *    NCCL's bandwidth factor for the protocol and the algorithm (the
 *    flags, and what NCCL's kernels reach beyond them: LL 2 on rings,
 *    LL128 1/.92, trees 1/.92 and more, protocol.c); every message's size
 *    on the links is multiplied by it;
 *  - hop: the protocol's latency per hop (NCCL's hwLat for the kind of
 *    link), added to every message of the collective on top of the link's
 *    own latency (the scenario's link latency is what the network adds
 *    beyond NCCL's estimate, which NCCL's own model never sees: its IB
 *    and socket plugins report no latencyInter, nccl_model.c);
 *  - launch: NCCL's base latency, once per collective (kernel launch and
 *    set-up);
 *  - slice: the payload of one NCCL step (its buffer / NCCL_STEPS), what
 *    the pipelined ring moves per message;
 *  - rate: what one message's flow moves at most, in bytes on the wire
 *    per second, whatever its links could give it: NCCL's channels (one
 *    CUDA block each) copy at a measured maximum per GPU generation
 *    (nccl_model.h, hs_nccl_bus_cap), and a connection carries all of a
 *    collective's channels between its two GPUs. 0: its links alone;
 *  - tree_bus: the same maximum for an allreduce's double binary tree,
 *    which bounds all of its flows together: the lowering shares it as
 *    each GPU's budget (lowering.h, hs_lower_tree_flow_rate).
 * HS_PROTO_NONE costs nothing: the links alone. */
#ifndef HS_PROTOCOL_H
#define HS_PROTOCOL_H

#include "scenarios/scenario.h"

typedef struct {
  double wire;      /* >= 1 */
  double switch_wire; /* >= 1 on a message to or from a switch that reduces (a node's, the fabric's); 0: wire's */
  double hop_intra; /* s, per message between GPUs of one node */
  double hop_net;   /* s, per message across nodes */
  double launch;    /* s, per collective */
  double slice;     /* bytes of payload per step */
  double rate;      /* bytes on the wire per second one flow reaches at most; 0: no limit */
  double tree_bus;  /* trees: bytes on the wire per second an allreduce's trees move at most all together, as
                       NCCL's bus bandwidth counts them (its per-channel tree maxima); the lowering shares it
                       among the trees' flows (hs_lower_tree_flow_rate). 0: no limit */
  int tree_shrink;  /* a tree on LL128: NCCL halves its chunk to keep the pipeline deep (hs_lower_tree_chunk) */
  /* A host library's (Gloo's, gloo.h; all 0 for NCCL's protocols): */
  int host;         /* its collectives run on the CPUs: every flow is one process's own connection, and they
                       hold none of the GPU's SMs */
  int window;       /* > 0: the slices a connection keeps in flight, on one connection a pair of ranks, in place
                       of the scenario's sim.slices_in_flight and channels */
  double stage;     /* s per byte copied between a GPU and its host, each way, before and after the collective
                       (hs_plan_exec charges it with the launch) */
} hs_proto_cost;

/* Where a collective runs, as far as its protocol's costs depend on it. */
typedef struct {
  int nodes;        /* the communicator's members span this many nodes */
  int one_per_node; /* every member on a node of its own (NCCL's ppn 1): nothing inside a node hides a ring's
                       hops across nodes, and NCCL's model charges them its tree's network latency */
  int cpu_amd;      /* hosts with AMD CPUs (NCCL's proxy overhead and LL cap) */
  hs_gpu_arch arch; /* which of NCCL's per-generation maxima apply */
  int pcie;         /* the node's GPUs talk over PCIe, not NVLink: NCCL's PCI hop latencies */
  int channels;     /* NCCL channels a collective runs on (hs_channels_of); 0: no cap charged */
  double nvls_efficiency; /* what the switch's reductions reach of the NVLink rate (cluster.intra.nvls_efficiency); 0: 1 */
  double in_network_efficiency; /* what the fabric's reductions reach of the NICs' rate
                                   (cluster.inter.in_network_efficiency); 0: 1 */
} hs_proto_site;

/* The channels a collective runs on: sim.channels, or two per NIC, as
 * NCCL's search finds one ring per NIC on rail-optimised nodes and
 * ncclTopoPostset duplicates its channels (connect.cc: "Duplication
 * should be complete now", nChannels * 2): the 16 CUDA blocks of a DGX
 * with 8 NICs (NVIDIA/nccl#689). */
int hs_channels_of(const hs_scenario *sc);

/* The channels NCCL's tuning counts for `channels` running ones on a
 * communicator spanning `nodes` nodes: its search graph's
 * (graphs[a]->nChannels in tuning.cc). Across nodes the search finds a
 * channel per NIC at the NIC's speed, which ncclTopoPostset then doubles
 * into the channels kernels run on (connect.cc: "Duplication should be
 * complete now", nChannels * 2): half of them, at least one. On 8 B200
 * nodes of 8 NDR NICs the tree allreduce measured 192-196 GB/s busbw from
 * 4 to 64 nodes and 338 on 2: 8 x perChMaxTreeBw 24 and 42.8
 * (docs/validation.md). On one node the search fills the GPU's NVLinks
 * with channels of its own speeds, not the NICs' (12 on an H100 node),
 * and NCCL's caps stay above the links: the running count stands for it
 * there (one H100 node's ring sweep, docs/validation.md). NCCL's
 * per-channel maxima (hs_nccl_bus_cap) multiply this count. */
int hs_graph_channels(int channels, int nodes);

/* The site of a communicator spanning `nodes` nodes of sc's cluster,
 * one member a node or not. */
hs_proto_site hs_proto_site_of(const hs_scenario *sc, int nodes, int one_per_node);

/* Which NCCL algorithm's constants a schedule pays: the tree's for trees,
 * NVLS's for the in-switch reduction, the ring's for everything else
 * (rings, hierarchical rings, the doubling exchanges, which run with the
 * same primitives). */
typedef enum {
  HS_PROTO_FOR_RING,
  HS_PROTO_FOR_TREE,
  HS_PROTO_FOR_SWITCH,  /* NVLS */
  HS_PROTO_FOR_COLLNET, /* the fabric's reduction (SHARP), between node rings */
  HS_PROTO_FOR_NVLS_TREE, /* the nodes' switches, a tree across them */
  HS_PROTO_FAMILIES
} hs_proto_family;

/* The family schedule a pays. */
static inline hs_proto_family hs_proto_family_of(hs_coll_algo a) {
  return a == HS_COLL_TREE      ? HS_PROTO_FOR_TREE
         : a == HS_COLL_NVLS    ? HS_PROTO_FOR_SWITCH
         : a == HS_COLL_COLLNET ? HS_PROTO_FOR_COLLNET
         : a == HS_COLL_NVLS_TREE ? HS_PROTO_FOR_NVLS_TREE
                                : HS_PROTO_FOR_RING;
}

/* The costs of protocol p (or HS_PROTO_NONE) for a collective of family
 * f at site w (on several nodes an intra-node hop costs at least NCCL's
 * proxy overhead). w NULL: one node, no limit per flow. */
hs_proto_cost hs_proto_cost_of(int p, hs_proto_family f, const hs_proto_site *w);

/* "ll", "ll128", "simple", "none", "auto". */
const char *hs_proto_name(int p);

#endif
