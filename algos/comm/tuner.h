/* tuner.h — picks a schedule and a protocol per operation and size.
 *
 * As NCCL's tuner does (src/graph/tuning.cc, ncclTopoGetAlgoTime), it
 * predicts the time of every (schedule, protocol) hearsay can run for an
 * operation of a given size on one communicator, and the selector
 * (select.c) runs the fastest. The predictions are closed forms of
 * hearsay's own schedules (docs/fidelity.md) on the communicator's actual
 * placement and links: the ring through its real hops (the narrowest, the
 * slowest and the mean), the hierarchical and doubling schedules through
 * one intra-node and one inter-node hop, with a node's NICs shared by the
 * members that cross at once, and each protocol's costs (protocol.h). They
 * ignore contention with other traffic and heterogeneity beyond the
 * narrowest node: what a tuner can know before the run. */
#ifndef HS_TUNER_H
#define HS_TUNER_H

#include "algos/comm/comm.h"
#include "algos/comm/protocol.h"
#include "scenarios/scenario.h"

/* What the tuner knows of a communicator. */
typedef struct {
  int n, nodes, per_node; /* members, nodes they span, members on the fullest */
  int regular;            /* every node holds per_node members, consecutive in the communicator */
  int cpu_amd;
  /* the ring in communicator order: its hops' link latencies, by kind */
  int ring_intra, ring_inter;             /* hops inside a node, across nodes */
  double ring_lat_intra, ring_lat_inter;  /* the largest of each kind, s */
  double ring_sum_intra, ring_sum_inter;  /* their sums, s */
  double ring_bw;                         /* the narrowest hop, bytes/s */
  /* one hop inside a node and one across (the slowest), and the narrowest
   * node's NICs together */
  double lat_intra, bw_intra, lat_inter, bw_inter, nic;
  double nic_line; /* the slowest of its nodes' NICs, one NIC's line rate (hs_links_nic_line_rate) */
  /* across nodes: what one GPU's flow moves at most (a doubling round's,
   * a rail's: the slowest hop across, its NIC and PCIe link, its proxy
   * thread), and what the
   * group's GPUs of the narrowest node reach of the network (hs_net_reach,
   * NCCL's model's); INFINITY on one node */
  double gpu_inter, reach;
  int nic_apart; /* a GPU's flows across nodes leave through PCIe, not its link inside the node (links.h) */
  int heads; /* GPUs a node's tree channels start at (lowering.h, tree_heads): its NICs */
  /* the pipelined ring (sim.slices_in_flight, sim.slice) */
  int window;
  double slice;
  int switch_slices; /* the in-switch schedules' slices per tick (sim.switch_slices) */
  /* the node's switch reduces (cluster.nvls) and every member is on that
   * node; the nodes' switches reduce and members span nodes (the NVLS
   * tree); the fabric reduces (in_network_reduction) and members span nodes */
  int nvls, nvls_nodes, collnet;
  double net_latency, rail_bandwidth; /* what the lowering is told of them (lowering.h) */
  hs_proto_site site; /* what its protocols cost (protocol.h): nodes, host, GPU, channels */
} hs_tuner_topo;

/* The communicator of `size` members (world ranks) of scenario sc. O(size). */
void hs_tuner_topo_of(const hs_scenario *sc, const int *members, int size, hs_tuner_topo *t);

/* Predicted seconds of an operation of kind k moving `bytes` (the whole
 * vector) under schedule a and protocol p (hs_proto or HS_PROTO_NONE);
 * negative when a does not apply (hierarchical on one node). */
double hs_tuner_predict(const hs_tuner_topo *t, hs_op_kind k, hs_coll_algo a, int p, double bytes);

/* The fastest (schedule, protocol) for k at `bytes`, among the schedules
 * whose bit is set in algos (1u << hs_coll_algo) and the protocols in
 * protos (1u << p); ties go to the first in enum order. Returns its time. */
double hs_tuner_pick(const hs_tuner_topo *t, hs_op_kind k, double bytes, unsigned algos, unsigned protos,
                     hs_coll_algo *a, int *p);

/* The schedules that change operation k (the others run it as the ring
 * family does): every bit for allreduce, ring, hierarchical and tree for
 * broadcast and reduce, ring alone for the rest. */
unsigned hs_tuner_algos_for(hs_op_kind k);

#endif
