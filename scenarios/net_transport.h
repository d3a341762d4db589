/* net_transport.h — what moving bytes costs beyond a link's line rate.
 *
 * A link's bandwidth in a scenario is its line rate; what a transfer gets
 * of it is less (nothing is free that costs time on a real machine):
 *  - inside a node, NCCL's copies over NVLink reach a fraction of the line
 *    rate (intra.efficiency, by GPU generation);
 *  - across nodes, the transport (inter.transport) decides: RDMA (GPUDirect
 *    over InfiniBand or RoCE) reaches nearly the line rate with nothing
 *    else to pay; NCCL's socket transport over TCP loses the framing, moves
 *    its bytes through threads that a CPU core each drives at a bounded
 *    rate (by default the GPU's one proxy thread for all its connections),
 *    and pays the kernel's stack on every message.
 * Every default below is a public measurement or specification, cited.
 * The platform (links.c) charges the efficiencies and the per-message
 * cost on the links themselves, so the simulator, the link emulator and
 * NCCL's model see them alike; the per-connection bound is each flow's
 * (hs_net_flow_cap), applied by step, fast and the emulator. */
#ifndef HS_NET_TRANSPORT_H
#define HS_NET_TRANSPORT_H

#include "scenarios/scenario.h"

/* "rdma", "tcp". */
const char *hs_net_kind_name(hs_net_kind k);

/* A transport's parameters as published for it. */
hs_net_transport hs_net_transport_default(hs_net_kind k);

/* What NCCL's transfers reach of an NVLink's line rate on a generation. */
double hs_intra_efficiency_default(hs_gpu_arch arch, hs_intra_link link);

/* What NVLink SHARP's transfers (cluster.nvls) reach of the NVLink rate
 * the other algorithms reach, on a node of `gpus` GPUs: NCCL's model of
 * NVLS bandwidth (net_transport.c says where it comes from). */
double hs_nvls_efficiency_default(hs_gpu_arch arch, int gpus);

/* The transport of node n's NICs: the cluster's, or an override's (a
 * node's wins over its rack's, later over earlier, as links.c does). */
hs_net_transport hs_net_transport_of_node(const hs_cluster_spec *c, int node);

/* Bytes per second one flow between a GPU of node a and a GPU of node b
 * moves at most, in the units of the links (the transport's payload),
 * when it carries `channels` of NCCL's channels, each its own connection,
 * and stands for the traffic of `gpus` GPUs of its node (NCCL's ring or
 * tree over a group with that many members on the node: its channels
 * cross at the GPUs next to the NICs; 1 for one GPU's flow, a rail of a
 * hierarchical schedule, halving-doubling, a point-to-point exchange):
 * with socket_threads = 0 the proxy threads of the GPUs the channels
 * cross at, min(channels, nics_per_node, gpus_per_node, gpus), at
 * stream_bandwidth each, else channels x socket_threads of them; and
 * the NICs those GPUs reach of the network (hs_net_reach) where that
 * is less than the node's NIC link; INFINITY when only the links bound it
 * (one node, or RDMA at both ends through every NIC). The
 * bound is per flow: where one GPU has several flows across nodes at once
 * (a tree's parent and children), each gets it where a proxy thread would
 * share it, but for a GPU's own flows (hs_net_flow_cap_concurrent). */
double hs_net_flow_cap(const hs_cluster_spec *c, int node_a, int node_b, int channels, int gpus);

/* Whether NCCL connects GPUs gpu_a and gpu_b of one node peer to peer:
 * intra.p2p, and on a PCIe node their path within NCCL's P2P level
 * (cluster.p2p_path: NCCL_P2P_LEVEL, by default the release's); else its
 * SHM transport stages each hop in host memory. */
int hs_net_p2p(const hs_cluster_spec *c, int gpu_a, int gpu_b);
/* Whether some two GPUs of a node meet in host memory: no peer access,
 * or a PCIe tree whose farthest pair (its first and last GPU) NCCL's P2P
 * level leaves out. */
int hs_net_node_staged(const hs_cluster_spec *c);

/* Whether NCCL moves the node's bytes between GPU memory and the NICs
 * directly (GPUDirect RDMA): inter.gpudirect, and the NIC under a PCIe
 * switch where the node is a PCIe tree (links.h); else each connection
 * across nodes is staged in host memory at host.staging_bandwidth. */
int hs_net_gpudirect(const hs_cluster_spec *c);

/* Whether every byte a GPU of node n moves goes through host memory: a
 * PCIe node without peer access (intra.p2p = false), whose connections
 * across nodes are staged too (no GPUDirect RDMA, or NCCL's socket
 * transport, which stages anyway) or which has none (one node, no server
 * machines), and whose copies to a CPU process are host memory by
 * definition. Then what the GPU's link moves both ways
 * comes out of one budget (hs_net_gpu_link_budget), which sim/platform.c
 * writes as the GPU's link, shared by its two directions. */
int hs_net_gpu_link_staged(const hs_cluster_spec *c, int node);
/* That budget, both ways together: twice host.staging_bandwidth, what
 * each way of two GPUs' allreduce through host memory moved while both
 * flowed (NVIDIA/nccl#384: "some CPUs do not handle bidirectional traffic
 * well"), and at most the link's own rate link_bw (B/s). */
double hs_net_gpu_link_budget(const hs_cluster_spec *c, double link_bw);

/* What a flow between world ranks a and b, of nodes node_a and node_b,
 * moves at most: across nodes hs_net_flow_cap_concurrent; inside a node
 * INFINITY where NCCL joins the two GPUs peer to peer (hs_net_p2p), else
 * host.staging_bandwidth (scenario.h's ranks: GPUs first, then CPU
 * processes; a hop of anything that is no rank, as intra.p2p says). A
 * CPU process's bytes are in host memory already: a copy between it and
 * a GPU of its node is the GPU's copy engine over PCIe (cudaMemcpy, the
 * links bound it: INFINITY), and between two CPU processes of two nodes
 * nothing stages them (hs_net_host_flow_cap). What every engine asks of
 * a hop. */
double hs_net_hop_cap(const hs_cluster_spec *c, int a, int b, int node_a, int node_b, int channels, int gpus,
                      int concurrent);

/* What a flow between CPU processes of nodes node_a and node_b moves at
 * most, one of `concurrent` that its sender sends across nodes at once:
 * a host library's connection (ps-lite's) needs no staging and no GPU's
 * PCIe link, but over sockets its I/O threads, each a core through the
 * kernel's stack as NCCL's are, move all of them: stream_bandwidth x
 * min(concurrent, 4) / concurrent (ps-lite's 4 ZeroMQ I/O threads; the
 * lower of the two nodes' transports); INFINITY over RDMA. */
double hs_net_host_flow_cap(const hs_cluster_spec *c, int node_a, int node_b, int concurrent);

/* hs_net_flow_cap for one of `concurrent` flows that a GPU of node_a
 * sends across nodes at once on its own (gpus = 1: an alltoall's blocks,
 * a gossip's or a push's peers). Where node_a's transport gives its
 * connections no threads of their own (socket_threads = 0), the GPU's one
 * proxy thread moves all of them (NCCL's net_socket.cc: "we only use the
 * main thread"), so each gets stream_bandwidth / concurrent. Set at the
 * sender, as a host library's thread is (hs_lower_group.own_flows): a
 * receiver of more flows than its senders send (an incast) is not held
 * to its thread's share. */
double hs_net_flow_cap_concurrent(const hs_cluster_spec *c, int node_a, int node_b, int channels, int gpus,
                                  int concurrent);

/* Bytes per second the traffic of `gpus` GPUs of node `node`, on
 * `channels` channels, reaches of the network, in the links' units: the
 * NICs next to those GPUs (each GPU's own; consecutive GPUs share one
 * where the node has fewer NICs than GPUs; one a channel at most) and the
 * GPUs' own PCIe links (cluster.gpu.pcie_bandwidth) the bytes cross. Never
 * more than the node's NIC link; less for fewer GPUs than NICs. */
double hs_net_reach(const hs_cluster_spec *c, int node, int channels, int gpus);

/* What a message between nodes pays in latency on the links (the NIC's
 * latency and the transport's message cost), and what one GPU's share of
 * its node's NICs moves at the transport's efficiency (bytes a second):
 * what the lowering is told to cut lock-step units by (lowering.h,
 * net_latency and rail_bandwidth). */
double hs_net_message_latency(const hs_cluster_spec *c);
double hs_net_rail_bandwidth(const hs_cluster_spec *c);

#endif
