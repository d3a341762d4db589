/* scenario.h — a scenario once loaded, validated and converted to base units.
 *
 * Plain C data, no Lua: the loader (scenarios/loader.c) fills it from a Lua
 * file; the backends and the training loop read it. Units everywhere:
 * bytes, seconds, bytes per second, flop per second. docs/scenarios.md is
 * the user-facing reference of every field. */
#ifndef HS_SCENARIO_H
#define HS_SCENARIO_H

#include <stdbool.h>

#include "algos/options.h"
#include "algos/peer_scheme.h"

#define HS_NAME_MAX 64
#define HS_PATH_MAX 4096

typedef struct {
  double bandwidth; /* bytes/s */
  double latency;   /* s */
} hs_link_spec;

typedef enum { HS_TOPO_FLAT, HS_TOPO_FAT_TREE } hs_topology;

/* One `cluster.overrides` entry: changes the links of one node or of every
 * node of one rack. Zero means "leave as is". */
typedef struct {
  int node; /* -1 when the entry names a rack */
  int rack; /* -1 when the entry names a node */
  hs_link_spec inter; /* the node's NIC */
  hs_link_spec intra; /* the node's GPU links */
  int line;
} hs_net_override;

/* One `cluster.gpu_speed` entry: a speed factor for one GPU or one node. */
typedef struct {
  int gpu;  /* -1 when the entry names a node */
  int node; /* -1 when the entry names a GPU */
  double factor;
  int line;
} hs_speed_override;

typedef struct {
  int nodes, gpus_per_node;
  double gpu_flops;      /* peak flop/s */
  double gpu_efficiency; /* fraction of peak reached by training kernels */
  hs_link_spec intra;    /* GPU <-> NVSwitch, per GPU link */
  hs_link_spec inter;    /* one NIC <-> first switch */
  int nics_per_node;     /* NICs of a node, modelled as one aggregated link */
  hs_topology topology;
  int rack_size;           /* nodes under one leaf switch (fat_tree) */
  double oversubscription; /* leaf downlink capacity / uplink capacity */
  double uplink_latency;   /* leaf <-> spine link latency */
  hs_net_override *overrides;
  int n_overrides;
  hs_speed_override *speed;
  int n_speed;
} hs_cluster_spec;

typedef struct {
  char name[HS_NAME_MAX];
  double params;    /* parameter count */
  double fwd_flops; /* per sample */
  double bwd_flops; /* per sample */
} hs_layer_spec;

typedef enum { HS_PARTITION_IID, HS_PARTITION_DIRICHLET } hs_partition;

typedef struct {
  char model[HS_NAME_MAX]; /* "softmax" (numeric) or a profile name */
  bool numeric;
  /* numeric: softmax regression on a Gaussian mixture */
  int classes, features;
  long samples;      /* training samples, all workers together */
  long test_samples; /* held-out samples */
  double separation; /* distance scale between class means */
  double noise;      /* per-feature standard deviation */
  hs_partition partition;
  double alpha; /* Dirichlet concentration (non-iid) */
  /* timing-only profile */
  hs_layer_spec *layers;
  int n_layers;
  int precision;   /* index in "fp32|fp16|bf16", as written */
  int dtype_bytes; /* bytes per parameter on the wire, from precision */
  /* training */
  int batch; /* per worker */
  double lr, momentum, weight_decay;
  double init_noise; /* std. dev. of each replica's own initial weights (0: all zero) */
} hs_workload_spec;

typedef struct {
  char name[HS_NAME_MAX];
  hs_options options;
  /* The scheme of the algorithm's HS_OPT_PEERS option, or NULL. Owned by the
   * scenario (a Lua scheme keeps the scenario's Lua state alive). */
  hs_peer_scheme *peers;
} hs_algorithm_spec;

typedef struct {
  int iterations;
  long seed;
  int eval_every;
  int trace; /* iterations recorded in trace.json (0: no trace) */
} hs_run_spec;

typedef enum { HS_COLL_RING, HS_COLL_HIERARCHICAL } hs_coll_algo;

typedef struct {
  char network_model[HS_NAME_MAX]; /* SimGrid's network/model */
  bool crosstraffic;
  double tcp_gamma; /* bytes; 0 disables SimGrid's window cap */
  double latency_factor, bandwidth_factor;
  hs_coll_algo collectives;
  double stack_size; /* bytes per actor stack */
} hs_sim_spec;

/* How hearsay-real runs the scenario (real/); the simulator ignores it. */
typedef enum { HS_TRANSPORT_AUTO, HS_TRANSPORT_MPI, HS_TRANSPORT_NCCL } hs_transport;

/* Who turns the MPI transport's collectives into messages. */
typedef enum { HS_LOWERING_AUTO, HS_LOWERING_HEARSAY, HS_LOWERING_MPI } hs_lowering;

typedef struct {
  hs_transport transport; /* auto: NCCL when built and a GPU is visible, else MPI */
  hs_lowering lowering;   /* auto: hearsay when emulating, else mpi */
  bool emulate;           /* MPI transport delays messages by the cluster's link model */
} hs_real_spec;

typedef struct {
  char path[HS_PATH_MAX];  /* the scenario file */
  char name[HS_NAME_MAX];  /* file name without directory and .lua */
  hs_cluster_spec cluster;
  hs_workload_spec workload;
  hs_algorithm_spec algorithm;
  hs_run_spec run;
  hs_sim_spec sim;
  hs_real_spec real;
} hs_scenario;

static inline int hs_scenario_gpus(const hs_scenario *s) {
  return s->cluster.nodes * s->cluster.gpus_per_node;
}

void hs_scenario_free(hs_scenario *s);

#endif
