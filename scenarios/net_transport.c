/* net_transport.c — each transport's published costs (net_transport.h). */
#include "scenarios/net_transport.h"

#include "scenarios/links.h"

#include <math.h>

const char *hs_net_kind_name(hs_net_kind k) { return k == HS_NET_TCP ? "tcp" : "rdma"; }

hs_net_transport hs_net_transport_default(hs_net_kind k) {
  if (k == HS_NET_TCP)
    return (hs_net_transport){
        .kind = HS_NET_TCP,
        /* 1448 bytes of payload per 1538 on the wire with a 1500-byte
         * MTU: Ethernet's preamble and start 8, header 14, FCS 4 and gap
         * 12 (IEEE 802.3), IPv4's header 20 (RFC 791), TCP's 20 and its
         * timestamp option 12 (RFC 793, RFC 7323). */
        .efficiency = 1448.0 / 1538.0,
        /* What one thread moves through NCCL's sockets: a CPU core
         * copying through the kernel's stack, in NCCL's chunked
         * protocol. NVIDIA/nccl#209 (nccl-tests allreduce between two
         * nodes on a 32 Gb/s network, 2019): 2.06 GB/s on one ring with
         * NCCL 2.3.7, whose every ring connection had a proxy thread of
         * its own (src/transport.cu at b56650c7), rising to 3.75 GB/s
         * with 8 rings; 1.85-1.95 GB/s on 1 or 2 rings with NCCL 2.4.2,
         * whose one proxy thread a GPU moved them all. Within ESnet's
         * 15-35 Gb/s for one iperf stream on a 100 GbE host
         * (fasterdata.es.net, "Performance Expectations for a 100G
         * Host"), at its low end: NCCL's stream also stages through host
         * memory and waits on its chunks. */
        .stream_bandwidth = 2.06e9,
        /* NCCL_SOCKET_NTHREADS on a generic NIC: 0 since NCCL 2.5.6,
         * "By default, we only use the main thread and do not spawn
         * extra threads" (src/transport/net_socket.cc, autoNt = 0): the
         * GPU's proxy thread moves every connection of the GPU over one
         * socket each. (2.4.8 spawned one helper thread a connection;
         * AWS's ENA gets 2 threads, GCP's gVNIC 4.) */
        .socket_threads = 0,
        /* The kernel's stack and the host staging on every message:
         * NVIDIA/nccl-tests#82, broadcast of 8 B between two nodes over
         * NCCL's sockets on 25 GbE (NCCL_IB_DISABLE=1): 45.8 us, where
         * one network hop of one GPU a node costs NCCL's model 6.6 + 5.0
         * us (its tree's network latency: "with ppn=1 latencies are
         * fully exposed", tuning.cc) and RDMA's links nothing more: 34 us.
         * #150, allreduce of 8 B over two HDR InfiniBand nodes, 19.9 us
         * for two hops where NCCL's model says 16.6: InfiniBand itself
         * is within a few us of the model. 34 us a message more than RDMA
         * (aws-samples/aws-do-eks: sockets 101.4 us against EFA 70.5 us
         * for an 8 B allreduce of two GPUs, 15-18 us a message more than
         * EFA, itself slower than InfiniBand). NCCL's own model adds
         * nothing for sockets (props->latency = 0, net_socket.cc). */
        .message_cost = 34e-6,
    };
  /* GPUDirect RDMA: 12 GB/s of a 100 Gb/s NIC's 12.5 ("12.2 GB/s (for a
   * 100Gbps card) is as good as you can get", NVIDIA/nccl-tests#29; "24GB/s
   * is the peak performance per 200G NIC (12 GB/s for 100G NICs)", #119;
   * "CX-7 NICs at NDR rate (400Gbps) should achieve up to 48-49GB/s per
   * NIC", #267), which is NCCL's own NET_BW 12.0 for "100Gbit"
   * (src/graph/topo.h). Its latency is NCCL's hwLat for the network,
   * which the protocol charges (protocol.h): nothing more per message. */
  return (hs_net_transport){.kind = HS_NET_RDMA, .efficiency = 0.96, .stream_bandwidth = 0, .socket_threads = 0,
                            .message_cost = 0};
}

double hs_intra_efficiency_default(hs_gpu_arch arch, hs_intra_link link) {
  /* PCIe: NCCL's PCI_BW 12.0 GB/s for "PCI Gen3 x16" (topo.h) against
   * its line rate, 8 GT/s x 16 lanes x 128/130 = 15.754 GB/s each way;
   * what is lost is the packets' headers and flow control. */
  if (link == HS_INTRA_PCIE) return 12.0 / 15.754;
  /* NCCL 2.30.7 src/graph/topo.h, what its copies reach per NVLink link
   * against the link's 25 GB/s each way (50 on Blackwell): SM80_NVLINK_BW
   * 20.0 (SM70's is the same; Volta's measured figure is below),
   * SM90_NVLINK_BW 20.6, SM100_NVLINK_BW 40.1.
   * On H100 "450GB/s is the line rate. With the protocol overhead (~20%)
   * NCCL can get an effective NVLink bandwidth of 370GB/s"
   * (NVIDIA/nccl-tests#212). Pascal's NVLink 1.0 links run at 20 GB/s
   * each way; NCCL's SM60_NVLINK_BW is 18.0. */
  switch (arch) {
  case HS_GPU_PASCAL: return 18.0 / 20.0;
  /* Volta: measured, as Hopper's is, not NCCL's 20.0 (the rating its
   * search plans rings with): 8 V100 SXM2 on the hybrid cube-mesh, six
   * links of 25 GB/s a GPU (150 GB/s), reach 135.50 GB/s busbw at 1 GiB
   * with NCCL 2.21.5 (Oracle BM.GPU3.8, oracle-japan/ocitutorials at
   * d534970): 0.903 of the line rate. Checked on another machine of the
   * same cube-mesh: 129.14 GB/s at 128 MiB in a 2019 run
   * (konnase/konnase.github.io at 17cd9df; hearsay 130.8). At NCCL's
   * 20/25, 119.9 and 116.7. */
  case HS_GPU_VOLTA: return 0.90;
  case HS_GPU_AMPERE: return 20.0 / 25.0;
  case HS_GPU_HOPPER: return 20.6 / 25.0;
  case HS_GPU_BLACKWELL: return 40.1 / 50.0;
  }
  return 1;
}

double hs_nvls_efficiency_default(hs_gpu_arch arch, int gpus) {
  /* NCCL 2.30.7 src/graph/tuning.cc charges NVLS's bandwidth as the
   * NVLink figure (topo.h's, what intra.efficiency already holds) times
   * nvlsEfficiency, 0.85 on Hopper and 0.74 on Blackwell, times
   * (nChannels - 1) / nChannels, where the NVLS graph has one channel per
   * GPU pulling from the switch (search.cc: "NVLS channels correspond to
   * GPUs pulling from NVLS"). The source gives no reason for the second
   * factor; it is charged as NCCL's model charges it. Volta and Ampere
   * have no NVLS (NCCL's table holds 0): a node that claims one is given
   * Hopper's, the first generation that has it. On 8 H100s: 0.744, and
   * 370 GB/s of NVLink x 0.744 = 275, the algbw NVIDIA measures
   * (NVIDIA/nccl-tests#212). */
  double per_generation = arch == HS_GPU_BLACKWELL ? 0.74 : 0.85;
  return gpus > 1 ? per_generation * (gpus - 1) / gpus : per_generation;
}

hs_net_transport hs_net_transport_of_node(const hs_cluster_spec *c, int node) {
  hs_net_transport t = c->transport;
  const hs_net_override *o;
  for (int k = 0; (o = hs_links_next_override(c, node, &k));)
    if (o->has_transport) t = o->transport;
  return t;
}

/* The GPUs a node's channels cross at: one a NIC (NCCL runs a ring per
 * NIC, each entering and leaving the node at GPUs next to its NIC, and
 * duplicates it for its second channel: search.cc, ncclTopoDupChannels),
 * at most one a channel, and no more than the node has or the flow stands
 * for. */
static int crossing_gpus(const hs_cluster_spec *c, int channels, int gpus) {
  int k = channels;
  if (k > c->nics_per_node) k = c->nics_per_node;
  if (k > c->gpus_per_node) k = c->gpus_per_node;
  if (k > gpus) k = gpus;
  return k < 1 ? 1 : k;
}

/* hs_net_reach, and the node's whole NIC link in *link. */
static double reach_of(const hs_cluster_spec *c, int node, int channels, int gpus, double *link) {
  int nics = c->nics_per_node > 0 ? c->nics_per_node : 1, gpn = c->gpus_per_node > 0 ? c->gpus_per_node : 1;
  if (channels < 1) channels = 1;
  int g = gpus < 1 ? 1 : gpus > gpn ? gpn : gpus;
  /* Each GPU sends through the NIC under its own PCIe switch, consecutive
   * GPUs sharing one where the node has fewer NICs than GPUs (a DGX-1's
   * GPUs 0 and 1 sit under mlx5_0's switch); one a channel at most. The
   * flow's GPUs are taken as consecutive from a NIC's first: GPUs 1 and 2
   * of a DGX-1, which sit under two NICs, are counted as reaching one. */
  int reached = (g * nics + gpn - 1) / gpn;
  if (reached > channels) reached = channels;
  if (reached > nics) reached = nics;
  hs_link_spec intra, inter;
  hs_links_of_node(c, node, &intra, &inter);
  *link = inter.bandwidth;
  double reach = reached < nics ? inter.bandwidth * reached / nics : inter.bandwidth; /* exact when all */
  /* and a GPU's bytes to the network cross its own PCIe link (GPUDirect
   * RDMA: the NIC reads and writes GPU memory through the switch they
   * share), which NCCL's topology rates as the link's generation and width
   * (topo.cc). One H100 with four NDR NICs in NCCL_IB_HCA measured about
   * 50 GB/s, one Gen5 x16 link's 48 (NVIDIA/nccl-tests#232). */
  if (c->gpu_pcie_bandwidth > 0) reach = fmin(reach, crossing_gpus(c, channels, g) * c->gpu_pcie_bandwidth);
  return reach;
}

double hs_net_reach(const hs_cluster_spec *c, int node, int channels, int gpus) {
  double link;
  return reach_of(c, node, channels, gpus, &link);
}

int hs_net_p2p(const hs_cluster_spec *c, int gpu_a, int gpu_b) {
  if (!c->intra_p2p) return 0;
  return c->intra_link != HS_INTRA_PCIE || hs_links_pcie_path(c, gpu_a, gpu_b) <= c->p2p_path;
}

int hs_net_node_staged(const hs_cluster_spec *c) {
  return c->gpus_per_node > 1 ? !hs_net_p2p(c, 0, c->gpus_per_node - 1) : !c->intra_p2p;
}

int hs_net_gpudirect(const hs_cluster_spec *c) {
  return c->gpudirect && !(hs_links_pcie_tree(c) && c->nic_switch < 0 && !c->nic_per_switch);
}

int hs_net_gpu_link_staged(const hs_cluster_spec *c, int node) {
  if (c->intra_link != HS_INTRA_PCIE || c->intra_p2p) return 0;
  if (c->nodes == 1 && c->server_machines == 0) return 1; /* no connection across nodes at all */
  return !hs_net_gpudirect(c) || hs_net_transport_of_node(c, node).kind == HS_NET_TCP;
}

double hs_net_gpu_link_budget(const hs_cluster_spec *c, double link_bw) {
  double budget = 2 * c->host_staging_bandwidth;
  return budget < link_bw ? budget : link_bw;
}

double hs_net_flow_cap(const hs_cluster_spec *c, int node_a, int node_b, int channels, int gpus) {
  /* A hop between GPUs without peer access is NCCL's SHM connection: the
   * sender's kernel stores into host memory, the receiver's loads from it
   * across PCIe, with the GPU's traffic flowing both ways through the CPU
   * (a ring's, a tree's): "some CPUs do not handle bidirectional traffic
   * well" (NVIDIA/nccl#384, where two GPUs' allreduce reached 3.9 GB/s and
   * their one-way broadcast 10.3). */
  if (node_a == node_b) return c->intra_p2p ? INFINITY : c->host_staging_bandwidth; /* hs_net_hop_cap knows the GPUs */
  if (channels < 1) channels = 1;
  double cap = INFINITY;
  const int ends[2] = {node_a, node_b};
  /* What the GPUs it stands for reach of each node's NICs, where that is
   * less than the node's NIC link: a flow of fewer GPUs than the node has
   * NICs (one GPU's point-to-point, a hierarchical schedule's rail, a
   * communicator of one GPU a node). */
  for (int i = 0; i < 2; i++) {
    double link, reach = reach_of(c, ends[i], channels, gpus, &link);
    if (reach < link) cap = fmin(cap, reach);
  }
  /* Threads are what bound a socket transport, each a core through the
   * kernel's stack. With none of their own, each GPU's proxy thread moves
   * all of its connections, at the GPUs the channels cross at, the flow
   * hearsay's ring carries them on as many threads. Else each connection
   * (a channel) has socket_threads of them. */
  int proxies = crossing_gpus(c, channels, gpus);
  /* Without GPUDirect RDMA each connection is staged in host memory at
   * the GPUs it crosses at, as an SHM connection is (above): where the
   * NICs cannot reach the GPUs' memory (inter.gpudirect), and where NCCL
   * will not let them, a NIC on the CPU's root below a PCIe tree's
   * switches ("GPU Direct RDMA is needed ... when the NIC and GPU are on
   * the same PCI switch", NVIDIA/nccl#465; NCCL_NET_GDR_LEVEL's default,
   * PXB, stops at the switch: links.h) */
  if (!hs_net_gpudirect(c)) cap = fmin(cap, proxies * c->host_staging_bandwidth);
  for (int i = 0; i < 2; i++) {
    hs_net_transport t = hs_net_transport_of_node(c, ends[i]);
    if (t.stream_bandwidth <= 0) continue;
    double threads = t.socket_threads > 0 ? (double)channels * t.socket_threads : (double)proxies;
    cap = fmin(cap, threads * t.stream_bandwidth);
  }
  return cap;
}

double hs_net_flow_cap_concurrent(const hs_cluster_spec *c, int node_a, int node_b, int channels, int gpus,
                                  int concurrent) {
  double cap = hs_net_flow_cap(c, node_a, node_b, channels, gpus);
  if (node_a == node_b || gpus != 1 || concurrent <= 1) return cap;
  hs_net_transport t = hs_net_transport_of_node(c, node_a);
  if (t.stream_bandwidth > 0 && t.socket_threads == 0) cap = fmin(cap, t.stream_bandwidth / concurrent);
  return cap;
}

double hs_net_message_latency(const hs_cluster_spec *c) { return c->inter.latency + c->transport.message_cost; }

double hs_net_rail_bandwidth(const hs_cluster_spec *c) {
  int nics = c->nics_per_node > 0 ? c->nics_per_node : 1, gpn = c->gpus_per_node > 0 ? c->gpus_per_node : 1;
  return c->inter.bandwidth * c->transport.efficiency * nics / gpn;
}

/* The I/O threads of a host library's sockets: ps-lite's ZeroMQ van,
 * what BytePS pushes and pulls with over TCP, sets ZMQ_IO_THREADS to
 * BYTEPS_ZMQ_NTHREADS, 4 by default (bytedance/ps-lite src/zmq_van.h,
 * since a31ea9c, 2019-05-23), over which ZeroMQ spreads its connections. */
#define HOST_IO_THREADS 4

double hs_net_host_flow_cap(const hs_cluster_spec *c, int node_a, int node_b, int concurrent) {
  double cap = INFINITY;
  int n = concurrent > 1 ? concurrent : 1, threads = n < HOST_IO_THREADS ? n : HOST_IO_THREADS;
  const int ends[2] = {node_a, node_b};
  for (int i = 0; i < 2; i++) {
    hs_net_transport t = hs_net_transport_of_node(c, ends[i]);
    if (t.stream_bandwidth > 0) cap = fmin(cap, t.stream_bandwidth * threads / n);
  }
  return cap;
}

double hs_net_hop_cap(const hs_cluster_spec *c, int a, int b, int node_a, int node_b, int channels, int gpus,
                      int concurrent) {
  /* CPU processes: ranks after the GPUs (a switch that reduces has an id
   * past every rank, and is no CPU process) */
  int ranks = c->nodes * c->gpus_per_node, all = hs_cluster_ranks(c);
  int cpu_a = hs_cluster_rank_is_cpu(c, a) && a < all, cpu_b = hs_cluster_rank_is_cpu(c, b) && b < all;
  if (node_a != node_b)
    return cpu_a && cpu_b ? hs_net_host_flow_cap(c, node_a, node_b, concurrent)
                          : hs_net_flow_cap_concurrent(c, node_a, node_b, channels, gpus, concurrent);
  if (cpu_a || cpu_b) return INFINITY;
  int p2p = a >= 0 && b >= 0 && a < ranks && b < ranks ? hs_net_p2p(c, a, b) : c->intra_p2p;
  return p2p ? INFINITY : c->host_staging_bandwidth;
}
