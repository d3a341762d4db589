/* links.h — the links a message crosses between two GPUs of a cluster.
 *
 * One description of the cluster's network, shared by the SimGrid platform
 * (sim/platform.c writes these very links) and the link emulator of the MPI
 * transport (real/emulator.c delays each message over them), so simulated
 * and emulated runs see the same latencies and bandwidths.
 *
 * Every link is split-duplex: each direction is its own resource with its
 * own id. Ids, for G GPUs, N nodes and R racks:
 *   GPU r's link to its node switch      up 2r,          down 2r+1
 *   node n's NIC(s) to the fabric        up 2G+2n,       down 2G+2n+1
 *   rack k's leaf uplink to the spine    up 2G+2N+2k,    down 2G+2N+2k+1
 *   node n's PCIe side to its NIC(s)     up 2G+2N+2R+2n, down 2G+2N+2R+2n+1
 *     (NVLink nodes only: hs_links_nic_apart)
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
 * sets the bandwidth. */
#ifndef HS_LINKS_H
#define HS_LINKS_H

#include "scenarios/scenario.h"

#define HS_ROUTE_MAX 6

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

/* Speed factor of GPU r: its place in the spread of the cluster's GPUs
 * (cluster.gpu.variability, gpu_spread.h) times every gpu_speed entry. */
double hs_links_speed_factor(const hs_cluster_spec *c, int gpu);

/* 1 where a GPU's traffic to the network leaves through the node's PCIe
 * side rather than its link to the node's switch: NVLink nodes. On PCIe
 * nodes the two are one link. */
int hs_links_nic_apart(const hs_cluster_spec *c);

/* Number of directed link ids (the size of a per-link table). */
int hs_links_count(const hs_cluster_spec *c);

/* Writes the hops from GPU a to GPU b into out (HS_ROUTE_MAX entries) and
 * returns how many; 0 when a == b. */
int hs_links_route(const hs_cluster_spec *c, int a, int b, hs_hop *out);

#endif
