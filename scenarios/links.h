/* links.h — the links a message crosses between two GPUs of a cluster.
 *
 * One description of the cluster's network, shared by the SimGrid platform
 * (sim/platform.c writes these very links) and the link emulator of the MPI
 * transport (real/emulator.c delays each message over them), so simulated
 * and emulated runs see the same latencies and bandwidths.
 *
 * Every link is split-duplex: each direction is its own resource with its
 * own id. (One exception in SimGrid's platform alone: where every byte a
 * GPU moves goes through host memory, its link is one budget for both
 * ways, hs_net_gpu_link_staged, which sim/platform.c writes shared: here
 * both ways take id 2r, at the budget's rate.) Ids, for G GPUs, N nodes
 * and R racks:
 *   GPU r's link to its node switch      up 2r,          down 2r+1
 *   node n's NIC(s) to the fabric        up 2G+2n,       down 2G+2n+1
 *   rack k's leaf uplink to the spine    up 2G+2N+2k,    down 2G+2N+2k+1
 *   node n's PCIe side to its NIC(s)     up 2G+2N+2R+2n, down 2G+2N+2R+2n+1
 *     (NVLink nodes only: hs_links_nic_apart)
 *   with a PCIe tree (cluster.intra.pcie_switches > 1; T the first id past
 *   the above, S switches and K sockets a node):
 *   switch s of node n to its socket     up T+2(nS+s),   down T+2(nS+s)+1
 *   node n's socket 1 to socket 0        up T+2NS+2n,    down T+2NS+2n+1
 *     (K = 2 only)
 * A message between two GPUs of a node crosses a's up link and b's down
 * link. Between nodes it crosses a's NIC up, (across racks of a fat tree:
 * a's leaf up, b's leaf down), b's NIC down, and at either end the GPU's
 * link, or on NVLink nodes the node's PCIe side in its place: a GPU's
 * traffic to the network leaves through PCIe, not its NVLink, so it takes
 * nothing from what the GPU moves inside the node at the same time (an
 * NVLS tree's switch traffic beside its rails). The PCIe side constrains
 * nothing (infinite bandwidth): one flow across nodes stands for several
 * GPUs' rails, and its own bound carries what their PCIe links reach
 * (hs_net_reach). It has the GPU link's latency, so a route's latency is
 * the same either way. Latency adds up along the way; the narrowest link
 * sets the bandwidth.
 *
 * A PCIe node with several switches (an 8-GPU PCIe server: 4 GPUs under
 * each of two switches, one switch a socket) is a tree: GPUs under one
 * switch reach each other through it, on their own links alone; others
 * climb to the CPU through their switch's x16 uplink (the GPU link's
 * rate, 5/6 of it on Intel: hs_links_switch_uplink; shared by the
 * switch's GPUs) and, between sockets, cross the
 * socket link at what GPU traffic gets of it (socket_bandwidth, NCCL's
 * rating of QPI/UPI or AMD's link). The NIC hangs off socket 0's root, so
 * a GPU's traffic to the network climbs the same way, through socket 0:
 * no GPUDirect RDMA, which needs the NIC under the GPU's own switch (NCCL
 * disables it further apart: NCCL_NET_GDR_LEVEL's default PXB), so each
 * connection is also staged in host memory (hs_net_gpudirect). With
 * cluster.intra.nic_switch = s the NIC sits under switch s instead: s's
 * GPUs reach it through the switch alone (GPUDirect RDMA), the others
 * climb to s's socket and come down s's uplink, which their bytes to and
 * from the network share with s's GPUs' traffic to the CPU. With
 * cluster.intra.nic_per_switch the node's NICs sit under all its switches
 * in equal groups, and every GPU reaches the network through its own
 * switch; the NICs stay one aggregated link a node, so the GPUs of all
 * switches share the node's total. The
 * uplinks and the socket link add no latency: the GPU links hold it. */
#ifndef HS_LINKS_H
#define HS_LINKS_H

#include "scenarios/scenario.h"

#define HS_ROUTE_MAX 12

typedef struct {
  int id;
  double bandwidth; /* bytes/s */
  double latency;   /* s */
} hs_hop;

/* The cluster.overrides entries that apply to node n, one a call, in the
 * order they take effect: its rack's first, then its own, each in the
 * order written, so that applying them in turn leaves the more specific
 * and the later one winning. *cursor starts at 0; NULL when done. */
const hs_net_override *hs_links_next_override(const hs_cluster_spec *c, int node, int *cursor);

/* Node n's GPU and NIC links after per-rack and per-node overrides (the NIC
 * bandwidth already multiplied by nics_per_node and the transport's
 * efficiency, and at most the node's GPUs' PCIe links together). */
void hs_links_of_node(const hs_cluster_spec *c, int node, hs_link_spec *intra, hs_link_spec *inter);
/* Node n's NIC line rate, one NIC's, as its overrides set it (B/s, before
 * any efficiency): what NCCL's search reads as a NIC's speed. */
double hs_links_nic_line_rate(const hs_cluster_spec *c, int node);

/* Rack k's leaf uplink (fat tree): the sum of its nodes' NICs divided by
 * the oversubscription, at uplink_latency. */
hs_link_spec hs_links_uplink(const hs_cluster_spec *c, int rack);

/* Each GPU's product of the gpu_speed entries naming it or its node (1
 * where none) into f[0, nodes x gpus_per_node): what they make of its
 * speed, its spread aside. O(GPUs + entries x GPUs a node). */
void hs_links_speed_products(const hs_cluster_spec *c, double *f);

/* Speed factor of GPU r: its place in the spread of the cluster's GPUs
 * (cluster.gpu.variability, gpu_spread.h) times every gpu_speed entry. */
double hs_links_speed_factor(const hs_cluster_spec *c, int gpu);

/* 1 where a GPU's traffic to the network leaves through the node's PCIe
 * side rather than its link to the node's switch: NVLink nodes. On PCIe
 * nodes the two are one link. */
int hs_links_nic_apart(const hs_cluster_spec *c);

/* 1 where node's GPUs sit under several PCIe switches (the tree above);
 * then the switch (0 .. pcie_switches-1) GPU r sits under, and the socket
 * (0 .. sockets-1) switch s hangs off. */
int hs_links_pcie_tree(const hs_cluster_spec *c);
int hs_links_switch_of(const hs_cluster_spec *c, int gpu);
int hs_links_socket_of(const hs_cluster_spec *c, int sw);
/* NCCL's path type between two GPUs of one PCIe node (hs_pcie_path):
 * PXB under one switch (or on a node without a tree), PHB through their
 * socket's root, SYS across the socket link. */
int hs_links_pcie_path(const hs_cluster_spec *c, int gpu_a, int gpu_b);
/* B/s of node n's switch uplinks (each way): a GPU link's rate, less on
 * Intel, whose root complex turns GPU traffic into 64-byte packets (NCCL's
 * INTEL_P2P_OVERHEAD, 6/5, on every path a GPU starts through an Intel
 * CPU: src/graph/topo.h, search.cc followPath). */
double hs_links_switch_uplink(const hs_cluster_spec *c, int node);

/* B/s of a node's CPU process's own link to the node's switch (socket
 * 0's root), which its bytes to the GPUs and NICs cross: host.bandwidth
 * (PCIe to CPU memory) on a node without a PCIe tree; on a tree the
 * switches' uplinks and the socket link are PCIe's part, and the link
 * stands for the memory, host.memory_bandwidth. */
double hs_links_cpu_bandwidth(const hs_cluster_spec *c);

/* Number of directed link ids (the size of a per-link table). */
int hs_links_count(const hs_cluster_spec *c);

/* Writes the hops from rank a to rank b into out (HS_ROUTE_MAX entries)
 * and returns how many; 0 when a == b. Ranks are scenario.h's: the GPUs,
 * then the CPU processes (a node's on a link of their own to its switch,
 * socket 0's root; a server machine's NICs to the fabric's top), as
 * sim/platform.c lays them out. */
int hs_links_route(const hs_cluster_spec *c, int a, int b, hs_hop *out);

#endif
