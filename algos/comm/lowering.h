/* lowering.h — collectives lowered onto rounds of point-to-point messages.
 *
 * Shared by the backends that move messages themselves: the SimGrid backend
 * (each message a SimGrid communication) and the MPI transport (each message
 * an MPI send/receive, optionally delayed by the link emulator). A backend
 * provides one primitive, `exchange`: post a round of sends and receives
 * inside a group, wait for all of them, deliver what arrived (copy or
 * reduce). Everything else (ring, tree, pairwise, dissemination,
 * hierarchical) is here, once, so both backends produce the same traffic
 * and the same bits. The NCCL transport does not use it: NCCL lowers its
 * own collectives. */
#ifndef HS_LOWERING_H
#define HS_LOWERING_H

#include <stddef.h>

#include "algos/comm/comm.h"
#include "algos/comm/protocol.h"
#include "scenarios/scenario.h"

typedef struct {
  int peer;         /* index in the group */
  const void *data; /* NULL: timing-only */
  size_t bytes;
} hs_lower_send;

typedef struct {
  int peer;
  void *dst; /* NULL: timing-only */
  size_t bytes;
  int reduce; /* 0: copy into dst; 1: dst = dst op payload */
  hs_dtype dtype;
  hs_redop op;
} hs_lower_recv;

typedef struct hs_lower_group hs_lower_group;

/* What every member of a communicator computes alike from its member
 * list (which members share a node, in what order): computed once by the
 * first member that needs it and kept with the communicator, where a
 * backend runs all members in one process (the simulator). Without it
 * each member computes it for itself: O(n) each, O(n^2) in all. */
typedef struct hs_lower_cache hs_lower_cache;
hs_lower_cache *hs_lower_cache_new(void);
void hs_lower_cache_free(hs_lower_cache *c);

/* Posts every send and receive of one round, waits for all, then copies or
 * reduces what arrived (hs_lower_deliver). Sends and receives between one
 * pair of members match in posting order. */
typedef void (*hs_exchange_fn)(const hs_lower_group *g, const hs_lower_send *s, int ns, hs_lower_recv *r, int nr);

/* Who talks to whom in one collective: a namespace for its messages (tag),
 * the members (world ranks) and my index. Communicators own one;
 * hierarchical lowerings derive others (a node, a rail, the leaders)
 * without any agreement protocol, since every member can compute them from
 * the placement (world rank / gpus_per_node). */
/* Optional: a backend that times whole ring phases at once (the
 * simulator's fast fidelity) is handed them instead of their messages.
 * The ring runs global steps [first, first + steps) of a ring allreduce's
 * 2(n-1): steps 0..n-2 reduce-scatter, n-1..2n-3 allgather; at global step
 * s, position j sends chunk (j - 1 - s) mod n to j + 1. bytes[i]: chunk i.
 * p: how it is pipelined (window 0: lock-step). */
typedef struct {
  int slices; /* per chunk, at every step */
  int window; /* slices in flight per connection; 0: lock-step exchanges */
} hs_ring_pipeline;
typedef void (*hs_ring_fn)(const hs_lower_group *g, int first, int steps, const size_t *bytes, hs_ring_pipeline p);

/* NCCL's double binary tree, pipelined (lowering.c): what one rank does
 * in one of the trees. A tree run reduces up to the root, broadcasts down
 * from it, or both, pipelined into each other (the allreduce). */
typedef enum { HS_TREE_UP = 1, HS_TREE_DOWN = 2, HS_TREE_BOTH = 3 } hs_tree_mode;
typedef enum { HS_TREE_SEND_UP, HS_TREE_RECV_UP, HS_TREE_RECV_DOWN, HS_TREE_SEND_DOWN } hs_tree_dir;
#define HS_TREE_MAX_DOWN 3 /* the next in the node's chain, two children nodes */
typedef struct {
  int up;                          /* group index, -1 at the root */
  int down[HS_TREE_MAX_DOWN], n_down;
  int depth, height;               /* ranks from the root: mine, the deepest's */
  size_t off, count;               /* the elements this tree carries */
} hs_tree_role;
/* An allreduce's tree runs: the double binary tree's two trees for each
 * of up to 8 heads a node (hs_lower_group.tree_heads). */
#define HS_TREE_RUNS_MAX 16
typedef struct {
  int trees;    /* 1 (rooted: broadcast, reduce), or 2 x heads (allreduce: a part of the vector each;
                   run 2k + w is tree w of head k) */
  hs_tree_mode mode;
  int slices;   /* S per tree; slice k of a tree is hs_lower_part(count, k, S) */
  int ticks;    /* lock-step ticks of the run */
  int window;   /* slices in flight per connection (forwarding on arrival); 0: lock-step ticks */
  size_t esize; /* bytes per element */
  hs_tree_role role[HS_TREE_RUNS_MAX];
} hs_tree_run;

/* The tick at which a rank moves slice 0 of tree w in direction d (slice
 * k moves k ticks later), or -1 if it never moves that way. */
int hs_lower_tree_first_tick(const hs_tree_run *t, int w, hs_tree_dir d);

/* Optional, like hs_ring_fn: a backend that times whole tree runs at once
 * is handed each rank's part instead of its ticks' exchanges. */
typedef void (*hs_tree_fn)(const hs_lower_group *g, const hs_tree_run *t);

/* Optional: post one send (r NULL) or one receive (s NULL) now and
 * complete it later, in any order; the completion delivers a receive
 * (copy or reduce). Schedules that forward on arrival (the pipelined ring)
 * need them; without them those run as lock-step exchanges. After a
 * failure a backend may post nothing and complete at once: the lowering
 * then runs to its end without effect, and the backend reports it. */
typedef void *(*hs_post_fn)(const hs_lower_group *g, const hs_lower_send *s, const hs_lower_recv *r);
typedef void (*hs_complete_fn)(const hs_lower_group *g, void *posted);
/* Optional, with post: waits until one of posted[0, n) is done, completes
 * it as hs_complete_fn does and returns its index (the earliest done; a
 * NULL entry, posted after a failure, at once). Schedules with several
 * independent streams into one rank (the pipelined tree: slices up from
 * children, down from the parent) forward whichever arrives first, as
 * NCCL's threads do; without it they run in lock-step ticks. */
typedef int (*hs_complete_any_fn)(const hs_lower_group *g, void *const *posted, int n);

/* In-switch reduction (inswitch.c): what the switch's part of one
 * collective does, and the backend's way to run it beside the members:
 * `sw` is the group with the switch as its last member (sw->me); the
 * backend runs hs_lower_switch_serve(sw, job) on the switch's host,
 * concurrently with the members (a SimGrid actor; a recorded participant
 * in fast fidelity). */
typedef enum {
  HS_SWITCH_ALLREDUCE,      /* every member gets the whole reduced vector */
  HS_SWITCH_REDUCE_SCATTER, /* member i gets block i of it */
  HS_SWITCH_ALLGATHER,      /* every member gets every member's block */
  HS_SWITCH_NVLS_TREE,      /* a node's switch in the NVLS tree (nvls_tree.c): the scatter of each unit
                               up, then, `lag` ticks later, the gather of its sum across nodes down */
  HS_SWITCH_COLLNET_CHAIN   /* the fabric for one rail in CollNet's chain (collnet_chain.c): each unit
                               from every node's head, its sum back the tick after */
} hs_switch_kind;
typedef struct {
  hs_switch_kind kind;
  size_t count; /* the whole vector's elements (n blocks for the scatter and the gather) */
  hs_dtype dtype;
  hs_redop op; /* SUM, MIN or MAX */
  size_t units;
  int timing_only;
  int lag; /* HS_SWITCH_NVLS_TREE: ticks from a unit's scatter to its gather going up;
              HS_SWITCH_COLLNET_CHAIN: the chains' height, members a node - 1 */
} hs_switch_job;
typedef void (*hs_switch_fn)(const hs_lower_group *sw, const hs_switch_job *job);

struct hs_lower_group {
  char tag[48];
  int size, me;
  const int *members;
  int gpus_per_node;
  int tree_heads; /* GPUs of a node where the allreduce's tree channels start (NCCL builds a tree per
                     channel, its chain in a node starting at the GPU next to the channel's NIC:
                     connect.cc, treeIntra): the node's NICs, at most its GPUs and 8; 0 counts as 1 */
  hs_exchange_fn exchange;
  hs_ring_fn ring; /* NULL: every ring step goes through exchange */
  hs_tree_fn tree; /* NULL: every tree tick goes through exchange */
  hs_post_fn post; /* NULL: no forwarding on arrival (see hs_post_fn) */
  hs_complete_fn complete;
  hs_complete_any_fn complete_any; /* NULL: no tree forwarding on arrival */
  size_t slice;    /* ring pipelining: bytes per slice (sim.slice, else the protocol's step) */
  int window;      /* slices in flight per channel (sim.slices_in_flight); 0: lock-step */
  int channels;    /* NCCL channels one connection carries (0 counts as 1): the ring keeps `window`
                      slots for each, NCCL_STEPS per channel */
  int node_members; /* members of the group on my node (hs_lower_node_members) */
  int spread;       /* GPUs of a node whose traffic one flow of the running schedule across nodes
                       stands for: node_members for NCCL's ring and tree (the node's channels cross at
                       the GPUs next to its NICs), 1 for one GPU's (halving-doubling, alltoall,
                       point-to-point); what a transport's bound per GPU multiplies (net_transport.h).
                       Set by hs_lower_run; 0 counts as 1 */
  int switch_slices; /* slices an in-switch tick moves (sim.switch_slices); 0 counts as 1 */
  /* The protocol's costs (protocol.h), paid by backends that time
   * messages: each message occupies `wire` times its bytes on the links
   * and leaves hop_intra (same node) or hop_net (across nodes) seconds
   * after it is posted; each message's flow moves at most `rate` bytes on
   * the wire per second (NCCL's channels' maxima). 0: none. */
  double wire, hop_intra, hop_net, rate;
  double switch_wire; /* wire bytes per byte of a message to or from a switch that reduces (a node's, or the
                         fabric's for CollNet); 0: wire's */
  /* What a message between nodes pays in latency on the links, and what
   * one GPU's share of its node's NICs moves (bytes a second): how a
   * lock-step schedule cuts its units (the NVLS tree's). 0: unknown. */
  double net_latency, rail_bandwidth;
  double net_rate; /* what each flow between two nodes moves at most beside `rate`, bytes on the wire a second
                      (an allreduce tree's share of NCCL's tree maximum across nodes); 0: none */
  double tree_bus; /* what an allreduce's trees move at most all together (protocol.h); 0: no limit */
  int tree_shrink; /* the protocol's (protocol.h): an allreduce tree's slices shrink as NCCL's LL128 chunks do */
  int own_flows;   /* a host library's (protocol.h, `host`): every flow across nodes is one process's (spread 1) */
  int shares_proxy; /* one GPU's own exchange (point-to-point, alltoall): its flows across nodes at once
                       share its proxy thread over TCP (hs_net_flow_cap_concurrent); a collective's
                       schedule (a tree's parent and children) does not. Set by hs_lower_run */
  /* Switches that reduce for this group (inswitch.c), by their ids among
   * world ranks and switches (>= the run's ranks), and how the backend
   * runs a switch's part. run_switch NULL: none (the ids are then
   * meaningless). switch_id: the node's switch, when every member shares
   * one node whose switch reduces (NVLS), else -1; fabric_switch_id: the
   * fabric's, when members span nodes and the fabric reduces (SHARP),
   * else -1. The fabric serves rail k (the members of local index k, one
   * per node) as participant fabric_switch_id + k: one reduction tree per
   * rail, as SHARP runs one per communicator. */
  int switch_id, fabric_switch_id;
  /* node_switch_base: where members span nodes whose switches reduce
   * (NVLS across nodes: the NVLS tree), the id of node 0's switch (node
   * m's is node_switch_base + m, m = member / gpus_per_node); 0: none. */
  int node_switch_base;
  hs_switch_fn run_switch;
  hs_lower_cache *cache; /* NULL: none (see hs_lower_cache) */
  void *ctx; /* the backend's per-rank state */
};

/* Members of a group on the node of its member `me`: the run of members
 * around it on the same node (members is in rank order, a node's GPUs
 * together), so O(GPUs a node). */
int hs_lower_node_members(const int *members, int size, int me, int gpus_per_node);

/* Sets g's protocol costs (wire, hops) and its slice: `slice` bytes when
 * positive (sim.slice), else the protocol's step. */
void hs_lower_use_protocol(hs_lower_group *g, const hs_proto_cost *c, double slice);

/* Seconds the protocol adds to a message of g from member `from` to
 * member `to` (hop_intra or hop_net by their nodes). */
double hs_lower_hop(const hs_lower_group *g, int from, int to);

/* How a ring pipelines chunks of at most max_bytes (and at least
 * min_count elements): S slices of at most `slice` bytes each, a multiple
 * of `window` above it (so a window's worth never straddles two steps),
 * never more than min_count; window 0: lock-step, one slice. */
hs_ring_pipeline hs_lower_ring_pipeline(size_t max_bytes, size_t min_count, size_t slice, int window);

/* A ring's slices in flight on one connection: `window` slots for each of
 * the `channels` it carries (NCCL_STEPS per channel); 0 stays lock-step. */
static inline int hs_lower_ring_window(int window, int channels) { return window * (channels > 1 ? channels : 1); }

/* Units a ring step moves one after another on a connection: ceil(S /
 * window) when S exceeds the window, else 1 (all S side by side). Each
 * pays the hop's latency (docs/fidelity.md, the pipelined ring). */
int hs_lower_ring_units(hs_ring_pipeline p);

/* How many units back the credit for a unit was freed: 1 when a step
 * fills the window, else ceil(window / S) (several steps in flight). */
int hs_lower_ring_credit_lag(hs_ring_pipeline p);

/* Slices of a tree run carrying `bytes` per tree in slices of `slice`
 * bytes (0: one) over `members` members: ceil(bytes / slice), at most
 * 2^20 / members. */
size_t hs_lower_tree_slices(double bytes, size_t slice, int members);
/* NCCL's chunk for a tree allreduce on LL128 (enqueue.cc, NCCL 2.30.7):
 * halved while each channel's part of the `bytes` holds fewer than
 * nsteps x 64 / ppn chunks (down to 128 KiB), then fewer than nsteps x 16
 * / ppn (down to 32 KiB), nsteps = 1 + log2(nodes) + ppn / 10: small
 * collectives keep a pipeline as deep as the trees. `runs` stands for
 * NCCL's channels (an allreduce's tree runs, hs_tree_run). */
size_t hs_lower_tree_chunk(size_t chunk, double bytes, int runs, int nodes, int members);

/* How many heads an allreduce's trees start from in each node (NCCL's tree
 * channels, each from the GPU next to its NIC): `wanted` (the node's
 * NICs), at most the shortest node's `shortest` members and
 * HS_TREE_RUNS_MAX / 2; one where the group is on one node. */
int hs_lower_tree_heads(int wanted, int shortest, int nodes);
/* What one flow of an allreduce run on `runs` trees (both trees from each
 * head, each run on its part of the vector) moves at most, bytes on the
 * wire per second: the protocol's own per-flow bound `rate` and the
 * trees' share of `tree_bus` (0: none of either). NCCL's tree bus
 * bandwidth B is twice the vector over the time (tuning.cc: algorithm
 * bandwidth = B / 2), and in the pipeline's steady state every flow of a
 * run carries the run's part at once, so each moves at B / (2 runs).
 * Across nodes the bound is the network's part of a channel (NCCL's
 * maxima fall from one node to several: Blackwell 70, 42.8, 24 GB/s) and
 * holds the flows between nodes (net_rate), which set the pipeline's
 * pace; on one node it holds every flow (rate). */
double hs_lower_tree_flow_rate(double rate, double tree_bus, int runs);
/* Whether the send from g's member `me` to member `peer` is one that an
 * allreduce tree's bound holds: between nodes where the bound is
 * net_rate, every send where it is rate (one node). */
int hs_lower_tree_bounded(const hs_lower_group *g, int peer);

/* Part k of `parts` near-equal parts of count elements (the first
 * count % parts get one more): elements [*off, *off + *cnt). The slices of
 * the ring and the tree and the units of the in-switch schedule. */
void hs_lower_part(size_t count, size_t k, size_t parts, size_t *off, size_t *cnt);

/* Whether g's node switch reduces for it; whether the fabric does. */
int hs_lower_has_switch(const hs_lower_group *g);
int hs_lower_has_fabric_switch(const hs_lower_group *g);

/* Units of an in-switch collective moving `bytes` in units of `unit`
 * bytes, never more than count or 2^20 / (members + 1). */
size_t hs_lower_switch_units(double bytes, size_t unit, size_t count, int members);

/* Units of a lock-step pipeline whose U units take U + fill ticks, for
 * `bytes` (count elements in its smallest block) over `participants`
 * (members and switches): the fewest seconds of ticks that each pay
 * `latency` and move a unit at `rate` (a member's, bytes a second), or
 * where either is unknown (0) units of `unit` bytes, at least 4 fills. */
size_t hs_lower_pipeline_units(double bytes, size_t unit, size_t count, int participants, double fill, double rate,
                               double latency);

/* The in-switch allreduce on g (needs hs_lower_has_switch), and the
 * switch's part of it (what run_switch runs). */
void hs_lower_switch_allreduce(hs_lower_group *g, hs_buf buf, hs_redop op, int avg_over);
/* The in-switch reduce-scatter of `whole` (n blocks of r.count) into r,
 * and allgather of r's n blocks (each member's own already in place). */
void hs_lower_switch_reduce_scatter(hs_lower_group *g, hs_buf whole, hs_buf r, hs_redop op);
void hs_lower_switch_allgather(hs_lower_group *g, hs_buf r);
void hs_lower_switch_serve(const hs_lower_group *sw, const hs_switch_job *job);

/* NCCL's NVLS tree allreduce (nvls_tree.c) on g, whose members span
 * several nodes of equal member counts whose switches reduce
 * (node_switch_base); returns 0 (nothing run) where g is not such a
 * group. And a node switch's part of it. */
int hs_lower_nvls_tree_allreduce(hs_lower_group *g, hs_buf buf, hs_redop op, int avg_over);
/* Its units for `bytes` (count elements in the smallest block) over
 * `participants` (members and switches) on `nodes` nodes: the fewest
 * seconds of lock-step ticks that each pay `latency` and move a unit at
 * `rate` (a member's, bytes a second), or where either is unknown (0)
 * units of `unit` bytes, at least 4 fills of the pipeline; and the
 * taller of its two trees. */
/* The unit where latency and rate are unknown: `slice` (a round of NVLS
 * chunks) times switch_slices, times the slots a connection holds in flight
 * (window), times the channels a NIC carries (channels / nics). */
size_t hs_lower_nvls_tree_unit(double slice, int switch_slices, int window, int channels, int nics);
size_t hs_lower_nvls_tree_units(double bytes, size_t unit, size_t count, int participants, int nodes, double rate,
                                double latency);
int hs_lower_nvls_tree_height(int nodes);
/* Parts of its unit a tick moves each way through the busiest node's rail:
 * half a part for each tree edge there (its parent's and its children's
 * in both trees): 1 on 2 nodes, 1.5 on 3 (a chain), 2 where a node is
 * inner in one tree and a leaf in the other. */
double hs_lower_nvls_tree_parts(int nodes);
void hs_lower_nvls_tree_serve(const hs_lower_group *sw, const hs_switch_job *job);

/* NCCL's CollNet chain allreduce (collnet_chain.c) on g, whose members
 * span several nodes of equal member counts (at least 2 a node) and whose
 * fabric reduces (fabric_switch_id); returns 0 (nothing run) where g is
 * not such a group. Its units for `bytes` (count elements in its smallest
 * block) with k members a node over `participants` (members and the
 * fabric's rails): hs_lower_pipeline_units with the chain's fill and the
 * node's rails' rate. And the fabric's part of it for one rail. */
int hs_lower_collnet_chain_allreduce(hs_lower_group *g, hs_buf buf, hs_redop op, int avg_over);
size_t hs_lower_collnet_chain_units(double bytes, size_t count, int k, int participants, size_t unit,
                                    double rail_bandwidth, double latency);
void hs_lower_collnet_chain_serve(const hs_lower_group *sw, const hs_switch_job *job);

/* Applies one received payload to r (copy or reduce); nothing if r->dst is NULL. */
void hs_lower_deliver(const hs_lower_recv *r, const void *payload);

/* What the lowering runs for an operation of kind k under algo, e.g.
 * "ring", "pipelined_chain", "pairwise": for reports. */
const char *hs_lower_schedule_name(hs_op_kind k, hs_coll_algo algo);

/* Runs o on g with the functions below. */
void hs_lower_run(hs_lower_group *g, const hs_op *o, hs_coll_algo algo);

/* g's spread (above) for an operation of kind k under algo: what
 * hs_lower_run sets, for a backend that runs a point-to-point group
 * itself. */
int hs_lower_spread(const hs_lower_group *g, hs_op_kind k, hs_coll_algo algo);

/* Bytes one rank sends when the ring/tree lowering above runs an operation
 * of kind k on `bytes` (the whole vector) over n members: what backends
 * that do not lower themselves (MPI's or NCCL's own collectives) count in
 * bytes_sent, so their traffic summed over ranks equals the simulator's.
 * `root`: this rank is the root of a broadcast or reduce. */
double hs_lower_ring_bytes(hs_op_kind k, int n, double bytes, int root);

void hs_lower_allreduce(hs_lower_group *g, hs_buf s, hs_buf r, hs_redop op, hs_coll_algo algo);
/* algo HS_COLL_HALVING_DOUBLING: recursive halving (reduce-scatter) and
 * recursive doubling (allgather), MPICH's; any other: the ring. */
void hs_lower_reduce_scatter(hs_lower_group *g, hs_buf s, hs_buf r, hs_redop op, hs_coll_algo algo);
void hs_lower_allgather(hs_lower_group *g, hs_buf s, hs_buf r, hs_coll_algo algo);
void hs_lower_broadcast(hs_lower_group *g, hs_buf s, hs_buf r, int root, hs_coll_algo algo);
void hs_lower_reduce(hs_lower_group *g, hs_buf s, hs_buf r, hs_redop op, int root, hs_coll_algo algo);
void hs_lower_alltoall(hs_lower_group *g, hs_buf s, hs_buf r);
void hs_lower_barrier(hs_lower_group *g);
void hs_lower_group_p2p(hs_lower_group *g, const hs_p2p *ops, int n);

#endif
