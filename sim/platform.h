/* platform.h — the SimGrid platform (XML 4.1) built from a scenario's cluster.
 *
 * Shape (docs/scenarios.md has the picture):
 *  - each GPU is a host with a private split-duplex link (intra.bandwidth,
 *    intra.latency/2) to its node's NVSwitch (a router), which is
 *    non-blocking; where every byte the GPU moves goes through host
 *    memory (no peer access and staged connections across nodes), a
 *    shared link instead, one budget for both ways
 *    (hs_net_gpu_link_staged, scenarios/net_transport.h);
 *  - zones: one node alone is a "Cluster" zone; several nodes are grouped
 *    into pods of up to 16 nodes (never across a rack), each a
 *    "DijkstraCache" zone whose gateway reaches the leaf switch (or the
 *    flat fabric) through a trunk that constrains nothing (FATPIPE, 0 s);
 *    where a rack is one pod, the pod's gateway is the rack's leaf switch
 *    itself. SimGrid 3.32 walks every zone to check each new name, and
 *    every host to seal each zone, so fewer zones load and start faster
 *    (docs/performance.md);
 *  - a node's NICs are one split-duplex link (inter.bandwidth *
 *    nics_per_node, inter.latency/2) from the node's switch to the fabric;
 *    on NVLink nodes each GPU also reaches it on its own, through the
 *    node's PCIe side ("node<n>_pcie", split-duplex, constrains nothing,
 *    intra.latency/2),
 *    so its traffic to other nodes takes nothing from its NVLink link
 *    (scenarios/links.h);
 *  - fabric "flat": one non-blocking switch; "fat_tree": leaf switches of
 *    rack_size nodes, each with one aggregated uplink of
 *    rack_size*inter.bandwidth/oversubscription (uplink_latency) to a
 *    non-blocking spine.
 * So a message inside a node sees intra.latency, between nodes
 * intra.latency + inter.latency (+ 2*uplink_latency across racks), at the
 * bandwidth of the narrowest link on the way. Host of GPU r is "gpu<r>".
 *
 * CPU ranks (a parameter server's, scenario.h) are hosts "cpu<r>": on a
 * GPU node, on a link of cluster.host.bandwidth (PCIe) to the node's
 * switch; a server machine's, in zone "servers" with a GPU node's NICs
 * (nics_per_node x inter.bandwidth x the transport's efficiency, latency
 * (inter.latency + message_cost)/2) straight to the top switch (the flat
 * fabric or the spine). One node with server machines is laid out as
 * several nodes are, so that there is a fabric to reach them.
 * The links themselves (overrides, uplinks, routes) come from
 * scenarios/links.h, which the MPI link emulator shares. */
#ifndef HS_SIM_PLATFORM_H
#define HS_SIM_PLATFORM_H

#include <stdio.h>

#include "scenarios/scenario.h"

/* The speed levels of a GPU's host beyond its own (SimGrid pstates 1..n):
 * pstate j is its speed less j running collectives' SMs
 * (cluster.collective_sms of cluster.gpu_sms each), up to
 * HS_SM_LEVELS_MAX or until no SM is left; 0 when collectives hold none. */
enum { HS_SM_LEVELS_MAX = 8 };
#define HS_SM_SPEED_FLOOR 0.01 /* what a level keeps when collectives hold every SM */
int hs_platform_sm_levels(const hs_cluster_spec *c);

/* Writes the platform; returns 0, or -1 if the stream failed. With net,
 * the links its events touch get SimGrid profiles, written as files under
 * profile_dir (the folder the platform file is written to), and nodes with background traffic get a
 * host "node<n>_background" for it. */
int hs_platform_write(const hs_cluster_spec *c, const hs_network_spec *net, const char *profile_dir, FILE *out);
/* Writes it to a temporary file for commands that keep no outputs
 * (`hearsay collective`, `hearsay peers`' rounds), unlinked at once and
 * read through its open descriptor: path[HS_PLATFORM_TEMP_LEN] gets
 * "/proc/self/fd/N", which children forked after it read too, and a
 * process killed at any point leaves nothing in /tmp. The caller releases
 * it (hs_platform_temp_release). 0, or -1 with a message naming `who`. */
#define HS_PLATFORM_TEMP_LEN 32
int hs_platform_write_temp(const hs_cluster_spec *c, const char *who, char *path);
void hs_platform_temp_release(const char *path);

#endif
