/* fast_tree.h — fast fidelity's timing of a whole pipelined tree run.
 *
 * The double binary tree (lowering.c) forwards slices on arrival
 * (tree_pipe.h; run.window > 0) or runs in lock-step ticks: at tick x
 * every rank moves the slices its place in the trees gives it, and the
 * flows of one tick share the links. Forwarding on arrival, each slice
 * of an edge takes the share it has in the tick it would move in
 * lock-step (fast_tree.c). Recorded tick by tick, a tree
 * allreduce over 16 384 ranks is 1.6 million records; handed whole (the
 * lowering's tree hook), it is each rank's place in the trees, from which
 * this file replays the same ticks in arithmetic:
 *  - an edge of the trees (a child sending up, a parent sending down)
 *    moves slice k at tick off + k, so the edges active at tick x are
 *    those with x - S < off <= x: sorted by off, a contiguous range, and
 *    the same range for every tick of the steady state. Bandwidth is
 *    shared once per distinct range, not once per tick;
 *  - a tick ends for a rank when its sends and receives of that tick have:
 *    a flow starts when its sender (plus the protocol's hop) and its
 *    receiver have started the tick, and costs latency + wire bytes /
 *    share, as the exchange records it replaces do (fast.c). */
#ifndef HS_FAST_TREE_H
#define HS_FAST_TREE_H

#include "algos/comm/lowering.h"

typedef struct {
  int src, dst; /* positions (group indices) */
  int off;      /* the tick at which slice 0 crosses it */
  int w;        /* which tree */
  double lat, hop;
  double cap;   /* its bound beside its share (the tree's cap, or net_cap between nodes); 0: none */
} hs_fast_tree_edge;

typedef struct {
  char tag[48];
  int seq;          /* the k-th tree run its members ran: tells apart the runs of one group */
  hs_tree_run run;  /* slices, ticks, trees, mode, sizes: the same for every member */
  int n, got;       /* positions, and how many recorded their part */
  int *member;      /* position -> participant of the schedule (fast.c) */
  int *rec;         /* position -> index of this run among that participant's records */
  hs_tree_role *role; /* [pos * run.trees + w]: each position's part in tree w */
  /* compiled */
  int n_edges;
  hs_fast_tree_edge *edge; /* by off */
  int n_pat;
  int *tick_pat;       /* tick -> pattern */
  int *pat_lo, *pat_hi; /* pattern -> its edges [lo, hi) */
  double **pat_rate;   /* pattern -> the share of each of its edges */
  double **pat_cap;    /* pattern -> the bound of each of its edges there (edge cap, an allreduce's shared as a
                          budget of its sender's: fast_tree.c); 0: none */
  double *slice_bytes; /* [w * S + k]: bytes of slice k of tree w */
  double cap, net_cap; /* bytes on the wire a second each of its flows, and each between two nodes, moves at most
                          beside its links' share (an allreduce's share of NCCL's tree maximum,
                          hs_lower_tree_flow_rate); 0: none. Applied after the shares (and their refinement),
                          which are the links' */
  /* What forwarding on arrival needs to see which flows really run
   * together (fast_tree.c, time_pipelined): the shared links the edges
   * cross, densely numbered, both ways (CSR); each edge's least fair
   * share of a link among the flows of a pattern; each edge's rate alone. */
  int refine; /* whether it is refined (small enough; else the rest stay empty) */
  int n_links;
  double *link_bw;
  int *edge_link_at, *edge_link; /* edge e crosses edge_link[edge_link_at[e] .. edge_link_at[e + 1]) */
  int *link_edge_at, *link_edge; /* link l carries link_edge[link_edge_at[l] .. link_edge_at[l + 1]) */
  double **pat_local;            /* pattern -> per edge: min over its links of bandwidth / flows on it */
  double *solo;                  /* edge -> its share alone */
} hs_fast_tree;

/* A run lives as long as its schedule: fast.c keeps schedules for the
 * whole run. */
hs_fast_tree *hs_fast_tree_new(const char *tag, int seq, int n, const hs_tree_run *run);

/* Position pos (participant `member`, whose record `rec` this run is)
 * recorded its roles. */
void hs_fast_tree_add(hs_fast_tree *t, int pos, int member, int rec, const hs_tree_run *run);

/* Bytes the rank at pos sends over the whole run. */
double hs_fast_tree_sent(const hs_fast_tree *t, int pos);

/* The latency and bandwidth share of each of the edges [lo, hi) of t
 * (t->edge, in their compiled order) running together; hop: the
 * protocol's latency on one. Edges, not positions: the platform side
 * keeps what it looked up per edge, since a run shares the same edges in
 * one pattern after another. */
typedef struct {
  void (*share)(void *ctx, int lo, int hi, double *lat, double *rate);
  double (*hop)(void *ctx, int src, int dst);
  int (*across)(void *ctx, int src, int dst); /* whether the two positions are on different nodes */
  /* The links that flows from src to dst share with others (ids in any
   * numbering the platform keeps, at most max written); returns how many,
   * and each one's bandwidth. */
  int (*links)(void *ctx, int src, int dst, int *ids, double *bw, int max);
  void *ctx;
} hs_fast_tree_env;

/* Builds the edges and shares their bandwidth, once per run. */
void hs_fast_tree_compile(hs_fast_tree *t, const hs_fast_tree_env *env);

/* t[pos]: when position pos starts the run, replaced by when it ends;
 * wire: bytes on the links per payload byte (protocol.h). */
void hs_fast_tree_time(const hs_fast_tree *t, double wire, double *times);


#endif
