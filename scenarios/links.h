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
 * A message from GPU a to GPU b crosses a's up link; if the nodes differ,
 * a's NIC up, (across racks of a fat tree: a's leaf up, b's leaf down),
 * b's NIC down; then b's down link. Latency adds up along the way; the
 * narrowest link sets the bandwidth. */
#ifndef HS_LINKS_H
#define HS_LINKS_H

#include "scenarios/scenario.h"

#define HS_ROUTE_MAX 6

typedef struct {
  int id;
  double bandwidth; /* bytes/s */
  double latency;   /* s */
} hs_hop;

/* Node n's GPU and NIC links after per-rack and per-node overrides (the NIC
 * bandwidth already multiplied by nics_per_node and the transport's
 * efficiency, and at most the node's GPUs' PCIe links together). */
void hs_links_of_node(const hs_cluster_spec *c, int node, hs_link_spec *intra, hs_link_spec *inter);

/* Rack k's leaf uplink (fat tree): the sum of its nodes' NICs divided by
 * the oversubscription, at uplink_latency. */
hs_link_spec hs_links_uplink(const hs_cluster_spec *c, int rack);

/* Speed factor of GPU r: its place in the spread of the cluster's GPUs
 * (cluster.gpu.variability, gpu_spread.h) times every gpu_speed entry. */
double hs_links_speed_factor(const hs_cluster_spec *c, int gpu);

/* Number of directed link ids (the size of a per-link table). */
int hs_links_count(const hs_cluster_spec *c);

/* Writes the hops from GPU a to GPU b into out (HS_ROUTE_MAX entries) and
 * returns how many; 0 when a == b. */
int hs_links_route(const hs_cluster_spec *c, int a, int b, hs_hop *out);

#endif
