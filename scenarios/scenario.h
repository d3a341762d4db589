/* scenario.h — a scenario once loaded, validated and converted to base units.
 *
 * Plain C data, no Lua: the loader (scenarios/loader.c) fills it from a Lua
 * file; the backends and the training loop read it. Units everywhere:
 * bytes, seconds, bytes per second, flop per second. docs/scenarios.md is
 * the user-facing reference of every field. */
#ifndef HS_SCENARIO_H
#define HS_SCENARIO_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "algos/options.h"
#include "algos/peers/peer_scheme.h"

#define HS_NAME_MAX 64

/* Ranges every backend can honour (docs/scenarios.md, "Ranges"). Counts fit
 * the ints that hold them with room for their products (ranks, links);
 * memory beyond these is the loader's estimate's business (budget.c). */
#define HS_NODES_MAX 65536
#define HS_GPUS_PER_NODE_MAX 1024
#define HS_RANKS_MAX (1 << 20)
/* Bandwidths: 1 bit/s to 8 Pbit/s, in bytes/s. SimGrid refuses subnormal
 * numbers; these are far inside what its doubles hold. */
#define HS_BW_MIN 0.125
#define HS_BW_MAX 1e15
/* Latencies: 0, or 2 ns (a link's latency is split over its two halves and
 * SimGrid resolves 1 ns) to one hour. */
#define HS_LATENCY_MIN 2e-9
#define HS_LATENCY_MAX 3600.0
/* Any other time: up to about 31 years. */
#define HS_TIME_MAX 1e9
#define HS_PATH_MAX 4096

typedef struct {
  double bandwidth; /* bytes/s */
  double latency;   /* s */
} hs_link_spec;

typedef enum { HS_TOPO_FLAT, HS_TOPO_FAT_TREE } hs_topology;

/* How NCCL moves bytes between nodes (cluster.inter.transport; defaults and
 * their sources in scenarios/transport.c). */
typedef enum { HS_NET_RDMA, HS_NET_TCP } hs_net_kind;
typedef struct {
  hs_net_kind kind;
  double efficiency;       /* fraction of the NIC's line rate its payload gets */
  double stream_bandwidth; /* B/s one thread moves through its sockets at most; 0: no limit */
  int socket_threads;      /* NCCL_SOCKET_NTHREADS: helper threads a connection; 0: the GPU's proxy thread
                              moves all of its connections */
  double message_cost;     /* s each message across nodes pays beyond the links' latency */
} hs_net_transport;

/* One `cluster.overrides` entry: changes the links of one node or of every
 * node of one rack. Zero means "leave as is". */
typedef struct {
  int node; /* -1 when the entry names a rack */
  int rack; /* -1 when the entry names a node */
  hs_link_spec inter; /* the node's NIC */
  hs_link_spec intra; /* the node's GPU links */
  int has_transport;  /* transport = "...": the node's (or rack's) NICs use it */
  hs_net_transport transport;
  int line;
} hs_net_override;

/* One `cluster.gpu_speed` entry: a speed factor for one GPU or one node. */
typedef struct {
  int gpu;  /* -1 when the entry names a node */
  int node; /* -1 when the entry names a GPU */
  double factor;
  int line;
} hs_speed_override;

/* GPU generation: what NCCL's model keys its constants on (nccl_model.h;
 * Pascal uses Volta's, as NCCL does for every compute capability below 8). */
typedef enum { HS_GPU_PASCAL, HS_GPU_VOLTA, HS_GPU_AMPERE, HS_GPU_HOPPER, HS_GPU_BLACKWELL } hs_gpu_arch;
static inline const char *hs_gpu_arch_name(hs_gpu_arch a) {
  static const char *const names[] = {"pascal", "volta", "ampere", "hopper", "blackwell"};
  return a <= HS_GPU_BLACKWELL ? names[a] : "?";
}
/* What joins a node's GPUs: NVLink (through NVSwitch or a mesh) or PCIe. */
typedef enum { HS_INTRA_NVLINK, HS_INTRA_PCIE } hs_intra_link;
typedef enum { HS_CPU_INTEL, HS_CPU_AMD } hs_cpu_vendor;
/* How two GPUs of a PCIe node reach each other, NCCL's path types: under
 * one switch, through their socket's root, across the socket link. */
typedef enum { HS_PCIE_PXB = 1, HS_PCIE_PHB, HS_PCIE_SYS } hs_pcie_path;

typedef struct {
  char system[HS_NAME_MAX]; /* cluster.system: the system file its keys came from, "" if none */
  int nodes, gpus_per_node;
  hs_gpu_arch gpu_arch;
  hs_cpu_vendor cpu;
  bool nvls;                /* the node's switch reduces in the fabric (NVLink SHARP) */
  bool in_network_reduction; /* the inter-node fabric reduces (SHARP / CollNet) */
  double in_network_efficiency; /* fraction of the NICs' rate the fabric's reductions reach (SHARP's streams) */
  double gpu_flops;      /* peak flop/s */
  double gpu_efficiency; /* fraction of peak reached by training kernels */
  double gpu_memory_bandwidth; /* B/s: what memory-bound kernels move (algos/train/gpu_kernel.h) */
  double gpu_launch_overhead;  /* s a kernel launch adds */
  double gpu_variability;      /* spread of speed among the cluster's GPUs, a fraction of a typical one's (gpu_spread.h) */
  double gpu_pcie_bandwidth;   /* B/s of a GPU's own PCIe link, which its traffic to the network crosses (GPUDirect RDMA) */
  int gpu_sms;                 /* streaming multiprocessors; a collective's channels hold one each (sim/sm_hold.c); 0: none held */
  int collective_sms;          /* SMs a running collective holds: its channels (sim.channels, else 2 per NIC), set by the loader */
  hs_link_spec intra;    /* GPU <-> NVSwitch, per GPU link: line rate */
  hs_intra_link intra_link; /* NVLink or PCIe: NCCL's per-hop latencies and protocols */
  double intra_efficiency; /* fraction of it NCCL's transfers reach */
  double nvls_efficiency;  /* fraction of that the switch's multimem reductions reach (cluster.nvls) */
  /* A PCIe node's tree (links.h): its GPUs in equal groups of consecutive
   * GPUs under pcie_switches switches, the switches in equal groups on
   * `sockets` CPU sockets, the NIC on socket 0's root or, nic_switch >= 0,
   * under that switch beside its GPUs (-1: the root), or with
   * nic_per_switch the node's NICs spread over all its switches. */
  int pcie_switches, sockets, nic_switch, nic_per_switch;
  double socket_bandwidth; /* B/s GPU traffic between two sockets reaches, each way (NCCL's QPI figure) */
  /* Whether a node's GPUs reach each other's memory (PCIe peer-to-peer;
   * 0: GeForce cards, NCCL_P2P_DISABLE, every hop through a buffer in host
   * memory, NCCL's SHM transport) and whether its NICs reach the GPUs'
   * (GPUDirect RDMA; 0: every connection across nodes staged in host
   * memory). Staged connections move at most host_staging_bandwidth. */
  int intra_p2p, gpudirect;
  /* How far apart on a PCIe tree NCCL still connects two GPUs peer to
   * peer (NCCL_P2P_LEVEL): the key intra.p2p_level as written (0: NCCL's
   * default) and the path it comes to for this node, CPU and sim.nccl
   * (hs_pcie_path; resolved by the loader); further apart a hop is
   * staged as without peer access. */
  int p2p_level, p2p_path;
  hs_link_spec inter;    /* one NIC <-> first switch: line rate */
  hs_net_transport transport; /* what moves bytes across nodes, and what it reaches of inter */
  int nics_per_node;     /* NICs of a node, modelled as one aggregated link */
  hs_topology topology;
  int rack_size;           /* nodes under one leaf switch (fat_tree) */
  double oversubscription; /* leaf downlink capacity / uplink capacity */
  double uplink_latency;   /* leaf <-> spine link latency */
  hs_net_override *overrides;
  int n_overrides;
  hs_speed_override *speed;
  int n_speed;
  /* The node's CPU side, where a CPU parameter server runs (cluster.host;
   * defaults in scenarios/gpu_defaults.c): */
  double host_memory_bandwidth; /* B/s of the CPUs' memory: a server's sums and updates */
  double host_bandwidth;        /* B/s between the node's switch (GPUs, NICs) and CPU memory: PCIe */
  /* What one host thread moves through the kernel's TCP stack, and what
   * each message costs there: a host library's (Gloo's) transport */
  double host_tcp_stream_bandwidth; /* B/s */
  /* What one of NCCL's connections staged through host memory moves each
   * way while the GPU's traffic flows both ways (intra_p2p, gpudirect) */
  double host_staging_bandwidth; /* B/s */
  double host_tcp_message_cost;     /* s */
  /* What the host's framework spends where the GPU waits for it (a
   * communication hook that synchronises after each bucket): */
  double host_op_overhead;         /* s to issue one tensor operation from Python (eager PyTorch) */
  double host_collective_overhead; /* s to issue one collective with its future (torch.distributed) */
  double host_sync_overhead;       /* s the GPU idles after a synchronisation, until the host refills it */
  /* Ranks beyond the GPUs, as the algorithm places its servers
   * (hs_algorithm_layout; the loader fills these): a CPU process on every
   * GPU node, and CPU-only server machines of one process each. Ranks are
   * numbered GPUs first, then the nodes' CPU processes (node by node),
   * then the machines'; server machine k counts as node `nodes + k`. */
  int cpu_ranks_per_node;
  int server_machines;
} hs_cluster_spec;

#define HS_LAYER_MATRICES_MAX 16

typedef struct {
  char name[HS_NAME_MAX];
  double params;    /* parameter count */
  double fwd_flops; /* per sample */
  double bwd_flops; /* per sample */
  int tensors;      /* parameter tensors (weight, bias, norm's scale and shift): one kernel each where a framework works per tensor */
  int fwd_kernels, bwd_kernels; /* kernels its forward and backward launch: each costs cluster.gpu.launch_overhead */
  int buffers;         /* state tensors that are not parameters (a batch-norm's running statistics) */
  double buffer_bytes; /* their bytes */
  int int64_buffers;   /* of them, 8-byte integers (a batch-norm's num_batches_tracked): PyTorch coalesces
                          tensors of one dtype at a time */
  /* Its parameter tensors of two or more dimensions as matrices, shape[0]
   * rows by the rest (as PyTorch's PowerSGD hook views them), first in the
   * layer's parameters and in this order; the others are vectors. Unless
   * matrices_given, the profile does not say (algorithms then view the
   * layer's parameters as one near-square matrix). */
  bool matrices_given;
  int n_matrices;
  double matrices[HS_LAYER_MATRICES_MAX][2]; /* rows, cols */
} hs_layer_spec;

typedef enum { HS_PARTITION_IID, HS_PARTITION_DIRICHLET } hs_partition;

/* One of workload.model_options: a value the profile reads (a
 * transformer's sequence length), as the profile resolved it. */
#define HS_MODEL_OPTIONS_MAX 16
typedef struct {
  char name[32];
  bool is_string;
  double number;
  char string[HS_NAME_MAX];
} hs_model_option;

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
  /* the profile's options (its `options` table: defaults, then
   * workload.model_options over them), for the record */
  hs_model_option model_options[HS_MODEL_OPTIONS_MAX];
  int n_model_options;
  int precision;   /* index in "fp32|fp16|bf16", as written */
  int dtype_bytes; /* bytes per parameter on the wire, from precision */
  /* training */
  int batch; /* per worker and micro-batch */
  int accumulation_steps; /* micro-batches per optimizer step, gradients accumulated between them */
  double lr, momentum, weight_decay;
  bool fused_optimizer; /* the optimizer step: one kernel per bucket (flattened), or one per parameter tensor */
  double init_noise; /* std. dev. of each replica's own initial weights (0: all zero) */
} hs_workload_spec;

typedef struct {
  char name[HS_NAME_MAX];
  hs_options options;
  /* The scheme of the algorithm's HS_OPT_PEERS option, or NULL. Owned by the
   * scenario (a Lua scheme keeps the scenario's Lua state alive). */
  hs_peer_scheme *peers;
} hs_algorithm_spec;

/* What a run does when a GPU, node or link fails (run.on_failure). */
typedef enum { HS_ON_FAILURE_ABORT, HS_ON_FAILURE_SHRINK } hs_on_failure;

typedef struct {
  int iterations;
  /* The first iterations, run but not measured: the summary's per-iteration
   * figures and throughput start after them, as a benchmark discards its
   * warm-up batches (and with them the algorithm's set-up before them). */
  int warmup_iterations;
  long seed;
  int eval_every;
  int trace; /* iterations recorded in trace.json (0: no trace) */
  hs_on_failure on_failure;
  double max_simulated_time; /* s; the simulator stops past it (0: a day per iteration) */
} hs_run_spec;

/* ---- stragglers { ... } ----------------------------------------------------------
 * Each entry targets one GPU, one node, one rack, or (none named) every GPU,
 * and does one thing; entries combine by multiplying their factors (and
 * hiccup pauses add up). algos/train/straggler.h evaluates them. */
typedef enum { HS_STRAGGLE_SLOWDOWN, HS_STRAGGLE_NOISE, HS_STRAGGLE_HICCUP } hs_straggle_kind;
typedef enum { HS_NOISE_LOGNORMAL, HS_NOISE_EXPONENTIAL, HS_NOISE_PARETO, HS_NOISE_UNIFORM } hs_noise_kind;

typedef struct {
  hs_straggle_kind kind;
  int gpu, node, rack; /* the target; all -1: every GPU */
  /* SLOWDOWN: compute time x factor for iterations that start in [from, to) */
  double factor, from, to;
  /* NOISE: a factor drawn every iteration; p1, p2 are the distribution's
   * parameters (lognormal: mu, sigma; exponential: mean, -; pareto: shape,
   * scale; uniform: min, max). per_node: one draw shared by a node's GPUs.
   * once: one draw for the whole run instead (GPUs that differ for good). */
  hs_noise_kind noise;
  double p1, p2;
  bool per_node, once;
  /* HICCUP: compute stops for `pause` every `every` seconds from `start`,
   * each pause shifted by a uniform draw in [0, jitter). */
  double pause, every, start, jitter;
  int index; /* position in the list, to seed its random draws */
  int line;
} hs_straggler_entry;

/* A scenario's Lua `slowdown = function(rank, iteration, time)`. */
typedef struct hs_slowdown_fn hs_slowdown_fn;
struct hs_slowdown_fn {
  /* Returns the factor, or a negative number with err filled. */
  double (*call)(hs_slowdown_fn *f, int rank, int iteration, double time, char *err, size_t len);
  void (*destroy)(hs_slowdown_fn *f);
};

typedef struct {
  hs_straggler_entry *entries;
  int n;
  hs_slowdown_fn *fn; /* owned; NULL when none */
} hs_straggler_spec;

/* ---- network { ... }: link events and background traffic ------------------------ */
typedef enum { HS_NETLINK_GPU, HS_NETLINK_NIC, HS_NETLINK_UPLINK } hs_netlink_kind;

typedef struct {
  bool traffic;          /* background traffic between two nodes, else a link event */
  hs_netlink_kind link;  /* event: which link (gpu's NVLink, node's NIC, rack's uplink) */
  int index;             /* its gpu, node or rack */
  double bandwidth;      /* event: fraction of the nominal bandwidth (0: unchanged) */
  double latency;        /* event: absolute latency in s (0: unchanged) */
  double from, to;       /* when it holds (traffic: when it flows) */
  double every;          /* > 0: repeats with this period */
  int src, dst;          /* traffic: nodes */
  int streams;           /* traffic: concurrent flows */
  double chunk;          /* traffic: bytes per flow before the next starts */
  int line;
} hs_net_event;

typedef struct {
  hs_net_event *events;
  int n;
} hs_network_spec;

/* ---- failures { ... } --------------------------------------------------------- */
typedef enum { HS_FAIL_GPU, HS_FAIL_NODE, HS_FAIL_LINK } hs_fail_kind;

typedef struct {
  hs_fail_kind kind;
  hs_netlink_kind link; /* HS_FAIL_LINK: which link */
  int index;            /* gpu, node or link index; -1 with mtbf: every one of its kind */
  double at;            /* s of simulated time; with mtbf: drawn, per target */
  double mtbf;          /* > 0: failure times drawn from an exponential of this mean */
  int line;
} hs_failure_entry;

typedef struct {
  hs_failure_entry *entries;
  int n;
} hs_failure_spec;

/* sim.collectives: the schedule family hearsay lowers collectives to
 * (algos/comm/lowering.c, docs/fidelity.md). */
typedef enum {
  HS_COLL_RING,
  HS_COLL_HIERARCHICAL,
  HS_COLL_HALVING_DOUBLING,   /* allreduce: Rabenseifner's recursive halving + doubling */
  HS_COLL_RECURSIVE_DOUBLING, /* allreduce: whole vectors, log2 n exchanges */
  HS_COLL_TREE,               /* allreduce: NCCL's double binary tree, pipelined */
  HS_COLL_NVLS,               /* allreduce: the node's switch reduces (NVLink SHARP, cluster.nvls) */
  HS_COLL_COLLNET,            /* allreduce: hierarchical, the fabric reducing across nodes (SHARP,
                                 cluster.inter.in_network_reduction; NCCL's CollNet) */
  HS_COLL_NVLS_TREE,          /* allreduce: each node's switch reduces, a double binary tree across nodes,
                                 pipelined into each other (NCCL's NVLS tree; cluster.nvls, several nodes) */
  HS_COLL_ALGOS
} hs_coll_algo;

/* sim.collectives = "auto": the tuner picks per operation and size (algos/comm/tuner.h). */
#define HS_COLL_AUTO HS_COLL_ALGOS

/* NCCL algorithms hearsay does not run (docs/fidelity.md, "The tuner"),
 * which NCCL's model may still pick: a run counts those collectives. */
typedef enum { HS_UNMODELLED_NONE, HS_UNMODELLED_PAT, HS_UNMODELLED_KINDS } hs_unmodelled;
#define HS_UNMODELLED_FIRST HS_UNMODELLED_PAT
/* "pat" (NCCL's name); "" for none. */
static inline const char *hs_unmodelled_name(hs_unmodelled u) { return u == HS_UNMODELLED_PAT ? "pat" : ""; }

/* sim.protocol: how a collective's messages are carried, as NCCL's
 * protocols do (algos/comm/protocol.h): LL (8-byte lines, half of them
 * flags: lowest latency, half the bandwidth), LL128 (128-byte lines, 8
 * bytes of flag), Simple (bulk copies with a fence and a flag per step:
 * full bandwidth, the highest latency); none: the links alone, no
 * protocol cost (alpha-beta closed forms). In NCCL's order. */
typedef enum { HS_PROTO_LL, HS_PROTO_LL128, HS_PROTO_SIMPLE, HS_PROTOS } hs_proto;
#define HS_PROTO_NONE HS_PROTOS
#define HS_PROTO_AUTO (HS_PROTOS + 1) /* the tuner picks (algos/comm/tuner.h) */

/* How the simulator times collectives (docs/fidelity.md): every message a
 * SimGrid communication (step), or derived from the platform and the
 * ranks' arrival times without messages (fast); auto picks by size. */
typedef enum { HS_FIDELITY_AUTO, HS_FIDELITY_STEP, HS_FIDELITY_FAST } hs_fidelity;

/* sim.tuner: who picks a collective's schedule and protocol where
 * sim.collectives or sim.protocol is "auto" (algos/comm/select.c). nccl:
 * what NCCL would run, from NCCL's own model of the communicator
 * (nccl_model.h), among the algorithms hearsay runs as NCCL does (ring,
 * tree, NVLS, CollNet); hearsay: the fastest of every hearsay schedule by
 * hearsay's closed forms (tuner.h), doubling and hierarchical included. */
typedef enum { HS_TUNER_NCCL, HS_TUNER_HEARSAY } hs_tuner_kind;

/* The collective library a run's process group uses (torch.distributed's
 * backend): NCCL on the GPUs, or Gloo on the hosts over TCP (gloo.h). */
typedef enum { HS_LIBRARY_NCCL, HS_LIBRARY_GLOO } hs_library;

/* auto: step up to this many ranks, fast above (a 100 MiB ring allreduce
 * costs about 0.1 s of wall time in step at 128 ranks, and step grows as n²). */
#define HS_FIDELITY_AUTO_STEP_MAX 128
/* ... and up to about this many messages a run (sim/fidelity_auto.h): a
 * million take step some 25 to 55 s of wall time on a laptop core (1.65
 * and 10.8 million took 43 and 592 s on 64 GPUs, BERT-Large's ring and
 * tree allreduces, where fast took 0.4 and 10 s and came within 0.4%). */
#define HS_FIDELITY_AUTO_STEP_MESSAGES 1e6

typedef struct {
  char network_model[HS_NAME_MAX]; /* SimGrid's network/model */
  bool crosstraffic;
  double tcp_gamma; /* bytes; 0 disables SimGrid's window cap */
  double latency_factor, bandwidth_factor;
  hs_coll_algo collectives; /* or HS_COLL_AUTO */
  hs_tuner_kind tuner;      /* who picks where collectives or protocol is auto */
  hs_library library;       /* whose collectives the run's communicators run (algos/comm/gloo.h) */
  bool gloo_staging;        /* Gloo: each GPU tensor is copied to the host and back (ProcessGroupGloo's CUDA work) */
  char nccl_version[HS_NAME_MAX]; /* the NCCL whose algorithms and protocols the tuner picks among */
  int nccl;                       /* it parsed: major * 100 + minor (2.30 -> 230; 1.x -> 100) */
  int channels; /* parallel rings/trees; 0: as NCCL's search would (nccl_model.c) */
  int protocol;         /* hs_proto, HS_PROTO_NONE or HS_PROTO_AUTO */
  double slice;         /* bytes a ring moves per slice; 0: the protocol's step (protocol.h) */
  int slices_in_flight; /* per connection (NCCL_STEPS); 0: lock-step ring steps, as MPI's Sendrecv ring */
  int switch_slices;    /* slices an in-switch schedule moves per lock-step tick (nvls, collnet) */
  hs_fidelity fidelity;
  /* Not a scenario key: set by `hearsay run` under fidelity "auto" where
   * step would simulate more messages than HS_FIDELITY_AUTO_STEP_MESSAGES
   * (sim/fidelity_auto.h); auto then times the collectives as fast does,
   * at any number of ranks. */
  bool auto_fast;
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

/* Where a key was set, kept for the messages a run prints after loading
 * (a slowdown function failing at iteration 40, the simulated-time
 * watchdog): FILE:LINE: key, or the --set that set it. */
#define HS_WHERE_MAX 24
typedef struct {
  char key[48];
  int line;      /* 0: not in the file */
  char set[160]; /* the --set that gave it, or "" */
} hs_key_where;

typedef struct {
  char path[HS_PATH_MAX];  /* the scenario file */
  char name[HS_NAME_MAX];  /* file name without directory and .lua */
  hs_cluster_spec cluster;
  hs_workload_spec workload;
  hs_algorithm_spec algorithm;
  hs_run_spec run;
  hs_sim_spec sim;
  hs_real_spec real;
  hs_straggler_spec stragglers;
  hs_network_spec network;
  hs_failure_spec failures;
  /* The scenario's Lua state, kept while a Lua peer scheme or slowdown
   * function needs it; hs_scenario_free closes it. */
  void *lua;
  hs_key_where where[HS_WHERE_MAX];
  int n_where;
} hs_scenario;

/* "FILE:LINE: key", "FILE: --set k=v: key" or "FILE: key" for a key the
 * loader noted (scenarios/loader.c, noted_keys), to begin a message. */
static inline void hs_scenario_where(const hs_scenario *sc, const char *key, char *buf, size_t len) {
  for (int i = 0; i < sc->n_where; i++) {
    const hs_key_where *w = &sc->where[i];
    if (strcmp(w->key, key) != 0) continue;
    if (w->set[0]) snprintf(buf, len, "%s: --set %s: %s", sc->path, w->set, key);
    else if (w->line > 0) snprintf(buf, len, "%s:%d: %s", sc->path, w->line, key);
    else break;
    return;
  }
  snprintf(buf, len, "%s: %s", sc->path, key);
}

static inline int hs_scenario_gpus(const hs_scenario *s) {
  return s->cluster.nodes * s->cluster.gpus_per_node;
}

/* Every rank of a run: the GPUs, then the CPU processes (cluster spec above). */
static inline int hs_cluster_ranks(const hs_cluster_spec *c) {
  return c->nodes * (c->gpus_per_node + c->cpu_ranks_per_node) + c->server_machines;
}
static inline int hs_scenario_ranks(const hs_scenario *s) { return hs_cluster_ranks(&s->cluster); }
/* Whether rank r is a CPU process rather than a GPU. */
static inline bool hs_cluster_rank_is_cpu(const hs_cluster_spec *c, int r) {
  return r >= c->nodes * c->gpus_per_node;
}
/* The rank of node n's k-th CPU process; of server machine k's. */
static inline int hs_cluster_rank_of_cpu(const hs_cluster_spec *c, int n, int k) {
  return c->nodes * c->gpus_per_node + n * c->cpu_ranks_per_node + k;
}
static inline int hs_cluster_rank_of_machine(const hs_cluster_spec *c, int k) {
  return c->nodes * (c->gpus_per_node + c->cpu_ranks_per_node) + k;
}
/* The node rank r runs on; a server machine's is nodes + its index. */
static inline int hs_cluster_rank_node(const hs_cluster_spec *c, int r) {
  int gpus = c->nodes * c->gpus_per_node, node_cpus = c->nodes * c->cpu_ranks_per_node;
  if (r < gpus) return r / c->gpus_per_node;
  if (r < gpus + node_cpus) return (r - gpus) / c->cpu_ranks_per_node;
  return c->nodes + (r - gpus - node_cpus);
}

void hs_scenario_free(hs_scenario *s);

#endif
