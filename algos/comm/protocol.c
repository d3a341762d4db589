/* protocol.c — the protocols' costs (protocol.h), from NCCL's constants. */
#include "algos/comm/protocol.h"

#include "algos/comm/nccl_model.h"

/* Payload bytes per step (NCCL 2.30.7, src/init.cc and src/include/device.h):
 *  LL:     NCCL_LL_LINES_PER_THREAD 8 x NCCL_LL_MAX_NTHREADS 512 x 16-byte
 *          lines = 64 KiB per step, half of it data;
 *  LL128:  NCCL_LL128_ELEMS_PER_THREAD 120 x NCCL_LL128_MAX_NTHREADS 640 x
 *          8 bytes = 600 KiB per step, 15 of every 16 words data;
 *  Simple: DEFAULT_BUFFSIZE 4 MiB / NCCL_STEPS 8 = 512 KiB. */
static const double step_payload[HS_PROTOS] = {8.0 * 512 * 16 / 2, 120.0 * 640 * 8 * 15 / 16, 4194304.0 / 8};
/* The share of a link's rate a protocol's payload gets, as NCCL's model
 * charges it (NCCL 2.30.7, src/graph/tuning.cc, ncclTopoTuneModel, "Various
 * model refinements", lines 327-335 at commit 5067397):
 *  - rings: LL .5 (a 4-byte flag per 4 data bytes), LL128 .92 (NCCL's
 *    measured figure, where the flags alone would give 120/128), Simple 1;
 *  - trees: .92 for every protocol (the tree allreduce's), then LL 1/3.8
 *    of that in place of LL's half, LL128 120/128 of it across nodes and
 *    7/9 on one node.
 * These are what NCCL's kernels reach per protocol and algorithm on any
 * GPU. NCCL's caps in GB/s (llMaxBw, the per-channel LL128 and tree
 * maxima) depend on the GPU generation, the host CPU and the channels:
 * each flow's rate (hs_proto_cost_of). */
static double bandwidth_factor(int p, hs_proto_family f, int multi_node) {
  if (f == HS_PROTO_FOR_RING) return p == HS_PROTO_LL ? .5 : p == HS_PROTO_LL128 ? .92 : 1.0;
  const double tree = .92;
  if (p == HS_PROTO_LL) return tree / 3.8;
  if (p == HS_PROTO_LL128) return tree * (multi_node ? 120.0 / 128.0 : 7.0 / 9.0);
  return tree;
}

/* NVLS moves its data in chunks of NCCL_NVLS_CHUNKSIZE, 128 KiB by
 * default (NCCL 2.30.7, src/transport/nvls.cc), on NCCL_NVLS_NCHANNELS
 * channels at once, 16 by default (src/transport/nvls.cc): 2 MiB a round,
 * what the in-switch schedule moves per unit (inswitch.c). */
static const double nvls_chunk = 128.0 * 1024 * 16;

int hs_channels_of(const hs_scenario *sc) {
  int nics = sc->cluster.nics_per_node > 0 ? sc->cluster.nics_per_node : 1;
  return sc->sim.channels > 0 ? sc->sim.channels : 2 * nics;
}

int hs_graph_channels(int channels, int nodes) {
  if (nodes <= 1) return channels > 1 ? channels : 1;
  return channels > 1 ? channels / 2 : 1;
}

/* Channels are always charged: the scenario's sim.channels, else as
 * NCCL's search would open them (two per NIC). */
hs_proto_site hs_proto_site_of(const hs_scenario *sc, int nodes, int one_per_node) {
  return (hs_proto_site){nodes, nodes > 1 && one_per_node, sc->cluster.cpu == HS_CPU_AMD, sc->cluster.gpu_arch,
                         sc->cluster.intra_link == HS_INTRA_PCIE, hs_channels_of(sc), sc->cluster.nvls_efficiency,
                         sc->cluster.in_network_efficiency};
}

hs_proto_cost hs_proto_cost_of(int p, hs_proto_family f, const hs_proto_site *w) {
  int multi_node = w && w->nodes > 1, cpu_amd = w && w->cpu_amd;
  int via_switch = f == HS_PROTO_FOR_SWITCH || f == HS_PROTO_FOR_NVLS_TREE;
  hs_proto_cost c = {.wire = 1, .slice = via_switch ? nvls_chunk : step_payload[HS_PROTO_SIMPLE]};
  if (p < 0 || p >= HS_PROTOS) return c; /* none: the links alone */
  if (f == HS_PROTO_FOR_SWITCH) {
    /* NVLS runs Simple only. NCCL's model charges its NVLink latency once
     * per collective and no base latency (tuning.cc: lat = intraLat for
     * NVLS): the launch. Its hops are the links' own. Its transfers reach
     * cluster.intra.nvls_efficiency of the links' rate (NCCL's NVLS
     * efficiency, hs_nvls_efficiency_default): each byte to or from the
     * switch costs 1 / efficiency bytes of link time. */
    c.launch = hs_nccl_hop_latency(HS_NCCL_HW_NVLINK, HS_NCCL_NVLS, HS_PROTO_SIMPLE);
    if (w && w->nvls_efficiency > 0 && w->nvls_efficiency < 1) c.wire = c.switch_wire = 1 / w->nvls_efficiency;
    return c;
  }
  if (f == HS_PROTO_FOR_NVLS_TREE) {
    /* NCCL's NVLS tree, Simple only: its model charges base latency, the
     * NVLink's once and the network's twice per tree level
     * (tuning.cc: intraLat + 2 log2(nNodes) interLat), once per
     * collective: the launch. Its hops are the links' own, as NVLS's.
     * Bytes to or from a node's switch cost 1 / efficiency of link time
     * (as NVLS's); the tree's between nodes cost their own. */
    int levels = 0;
    for (int x = w ? w->nodes : 1; x >= 2; x /= 2) levels++;
    c.launch = hs_nccl_base_latency(HS_NCCL_NVLS_TREE, HS_PROTO_SIMPLE) +
               hs_nccl_hop_latency(HS_NCCL_HW_NVLINK, HS_NCCL_NVLS_TREE, HS_PROTO_SIMPLE) +
               2.0 * levels * hs_nccl_hop_latency(HS_NCCL_HW_NET, HS_NCCL_NVLS_TREE, HS_PROTO_SIMPLE);
    if (w && w->nvls_efficiency > 0 && w->nvls_efficiency < 1) c.switch_wire = 1 / w->nvls_efficiency;
    return c;
  }
  if (f == HS_PROTO_FOR_COLLNET) {
    /* CollNet runs Simple only. NCCL's CollNet Direct model charges the
     * network's reduction its latency once (hwLat[NET][CollNet Direct],
     * 31 us, beside the links' own) and each NVLink hop inside a node
     * CollNet's 3.7 us; its base latency is 0 (tuning.cc). */
    c.launch = hs_nccl_base_latency(HS_NCCL_COLLNET_DIRECT, HS_PROTO_SIMPLE) +
               hs_nccl_hop_latency(HS_NCCL_HW_NET, HS_NCCL_COLLNET_DIRECT, HS_PROTO_SIMPLE);
    c.hop_intra = hs_nccl_hop_latency(HS_NCCL_HW_NVLINK, HS_NCCL_COLLNET_DIRECT, HS_PROTO_SIMPLE);
    /* SHARP's streams reach cluster.inter.in_network_efficiency of what
     * the NIC carries a ring: each byte to or from the fabric costs
     * 1 / efficiency bytes of NIC time */
    if (w && w->in_network_efficiency > 0 && w->in_network_efficiency < 1) c.switch_wire = 1 / w->in_network_efficiency;
    return c;
  }
  hs_nccl_algo a = f == HS_PROTO_FOR_TREE ? HS_NCCL_TREE : HS_NCCL_RING;
  c.wire = 1 / bandwidth_factor(p, f, multi_node);
  c.slice = step_payload[p];
  c.launch = hs_nccl_base_latency(a, (hs_proto)p);
  c.hop_intra = hs_nccl_hop_latency(w && w->pcie ? HS_NCCL_HW_PCI : HS_NCCL_HW_NVLINK, a, (hs_proto)p);
  /* NCCL charges the proxy's overhead on a multi-node ring's every step
   * (tuning.cc, "inter-node rings still have to launch nsteps * net
   * overhead"), not on a tree's chain hops. */
  if (multi_node && f == HS_PROTO_FOR_RING) {
    double proxy = hs_nccl_net_overhead((hs_proto)p, cpu_amd);
    if (c.hop_intra < proxy) c.hop_intra = proxy;
  }
  /* "With ppn=1 latencies are fully exposed, use the Tree network
   * latency" (tuning.cc): a ring of one GPU a node has no step inside a
   * node to hide its network hop behind */
  c.hop_net = hs_nccl_hop_latency(HS_NCCL_HW_NET, w && w->one_per_node ? HS_NCCL_TREE : a, (hs_proto)p);
  c.tree_shrink = f == HS_PROTO_FOR_TREE && p == HS_PROTO_LL128;
  /* What NCCL's kernels move at most (hs_nccl_bus_cap, per channel of
   * NCCL's search graph: hs_graph_channels), on the wire: the payload's
   * cap times the wire bytes each payload byte takes. A ring's bus
   * bandwidth is what each rank's one connection to the next moves, so
   * its cap bounds that flow (and the schedules that run with the ring's
   * primitives, one partner at a time). The tree's bounds what a channel
   * moves over all its connections at once (up and down, four flows on
   * an inner rank): the lowering shares it among the flows of the trees
   * it runs (hs_lower_tree_flow_rate). */
  if (!w || w->channels <= 0) return c;
  int graph = hs_graph_channels(w->channels, w->nodes);
  double cap = hs_nccl_bus_cap(w->arch, w->cpu_amd, w->nodes, graph, a, (hs_proto)p);
  if (cap > 0 && f == HS_PROTO_FOR_RING) c.rate = cap * 1e9 * c.wire;
  if (cap > 0 && f == HS_PROTO_FOR_TREE) c.tree_bus = cap * 1e9 * c.wire;
  return c;
}

const char *hs_proto_name(int p) {
  static const char *const names[HS_PROTOS + 2] = {"ll", "ll128", "simple", "none", "auto"};
  return p >= 0 && p <= HS_PROTO_AUTO ? names[p] : "?";
}
