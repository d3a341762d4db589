/* fast.c — sim.fidelity = "fast": collectives timed without messages.
 *
 * The step fidelity sends every message of a lowered collective through
 * SimGrid; at 1024 ranks a ring allreduce is two million of them. Here the
 * same lowering (algos/comm/lowering.c) runs once per member with a recording
 * exchange: what it would send to whom, step by step, and whole ring phases
 * as one record (the ring hook). That schedule is cached per
 * (communicator, operation, size) and timed again at every call from:
 *  - the platform SimGrid holds: each flow's route, its latency, and its
 *    bandwidth share, found by max-min fair sharing (step's under CM02,
 *    SimGrid's latency weights reset: sg_latency.h) among the flows that
 *    run at the same step of the schedule (pipelined rings beside each
 *    other through a link, where they do not move in step, share it as
 *    their units cross it: fast_ring.h);
 *  - each member's arrival time: a message starts when both ends have
 *    posted, as a SimGrid communication does, so a late rank delays exactly
 *    the ranks that wait on it, step after step.
 * A step costs latency + bytes / share; a ring phase is the recurrence
 *   t'[j] = max(max(t[j-1], t[j]) + c[j-1], max(t[j], t[j+1]) + c[j])
 * over its n-1 steps: O(ranks x steps) arithmetic instead of messages.
 * A member's part ends at its own finish time; nobody learns it before the
 * last member arrived (stream.c blocks whoever waits until then), except
 * in a broadcast's pipelined chain: there a member's part needs only the
 * members before it and the next one, and it is told its finish as soon as
 * those have arrived (fast_chain.h).
 * Point-to-point operations (gossip, parameter servers) stay SimGrid
 * communications, so their contention is still modelled; so do
 * collectives carrying numeric data (their results must be computed along
 * the schedule: a float sum depends on its order), but for an integer
 * allreduce (min, max, sum), which settle computes in one place, and
 * every collective of a run with failures or network events, whose links
 * change under the schedule. */
#include <float.h>
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xbt/dynar.h>

#include "scenarios/links.h"
#include "scenarios/net_transport.h"
#include "sim/fast_chain.h"
#include "sim/fast_ring.h"
#include "sim/fast_tree.h"
#include "sim/sim_internal.h"

static inline double dmax(double a, double b) { return a > b ? a : b; }
static inline double dmin(double a, double b) { return a < b ? a : b; }

/* ---- the recorded schedule --------------------------------------------------------- */

typedef struct {
  int peer;     /* member index in the collective's communicator */
  int match;    /* the peer's record holding the other end */
  int slot;     /* sends: which of that record's receives it is */
  size_t bytes;
  double cost;  /* seconds from when both ends are ready, once compiled */
  double hop;   /* the protocol's: the send leaves this long after its sender is ready */
} fast_flow;

typedef struct {
  int ring;     /* -1: an exchange; else the ring phase's index */
  int tree;     /* -1: none; else the tree run's index (fast_tree.h) */
  int spread;   /* the recording group's (lowering.h): GPUs a flow across nodes stands for */
  int shares_proxy; /* the recording group's (lowering.h): one GPU's own exchange */
  double rate, net_rate; /* an exchange: the recording group's bounds per flow, and per flow between nodes
                            (lowering.h; a tree run by ticks keeps its share of NCCL's tree maximum), bytes
                            on the wire a second; 0: none */
  int n_send, n_recv;
  fast_flow *flows; /* sends, then receives */
} fast_rec;

typedef hs_fast_ring fast_ring; /* fast_ring.h */

typedef struct fast_sched {
  /* key */
  int ctx;
  hs_op_kind kind;
  size_t send_count, recv_count;
  hs_dtype dtype;
  int root;
  hs_coll_algo algo; /* the schedule the selector chose */
  hs_exec how;       /* all it chose: the schedule, the protocol and its costs */
  /* schedule */
  int n;         /* participants: the members, then the switches that may reduce for them (switch.c) */
  int members;   /* the communicator's members */
  int *world_of; /* participant -> world id (a rank, or a switch: ranks + node) */
  int *index_of; /* world id -> participant (-1: none) */
  double *ext_arrival, *ext_finish; /* timed(): every participant's, when a switch takes part */
  fast_rec **recs;
  int *n_recs, *cap_recs, *rings_seen;
  char *has; /* member i recorded its part */
  double *sent; /* bytes each member sends */
  fast_ring **rings;
  int n_rings, cap_rings;
  int *ring_slot, ring_slots; /* rings by (tag, seq): open addressing, -1 empty */
  hs_fast_tree **trees;        /* a tree run per tree collective: few, looked up in order */
  int *tree_spread;            /* each tree run's recording group's spread (lowering.h) */
  int n_trees, *trees_seen;
  int compiled;
  double **start; /* evaluation scratch: start[i][k] of member i's record k */
  int *pos;
  /* The last evaluation, relative to its earliest arrival (timed()); never
   * freed, as the schedule itself. */
  double *memo_arrival, *memo_finish;
  /* Pipelined rings beside each other through links they share, timed
   * together (fast_ring.h): the capacity of each pool (a link that bounded
   * some of them), and the groups, by the record they are at; alike: the
   * group's rings have the same shape and costs, position by position, and
   * each pool serves one position, so rings that start alike move in step
   * and the fixed shares are exact. */
  double *pool_cap;
  int n_pools;
  int n_groups;
  int **group_ring, *group_n;
  char *group_alike;
  char *group_broken; /* evaluate(): its rings were not all ready together; each runs alone */
  int chain;      /* a chain its calls release member by member (fast_chain.h): -1 not known yet, 0, 1 */
  int *chain_pos; /* then: participant -> its position in the chain's tree run */
  struct fast_sched *next;  /* every schedule */
  struct fast_sched *hnext; /* its bucket's next (sim_fast.sched_index) */
} fast_sched;

/* One call of a collective: its members' arrivals, then their finishes. */
struct fast_call {
  int ctx, seq, n;
  int known; /* arrivals known */
  fast_sched *sched;
  const int *world_of; /* member index -> world rank */
  double *arrival, *finish;
  void **token; /* what stands for each member (stream.c) */
  struct fast_call *next; /* its bucket's next while open (sim_fast.call_index), then the ready queue's */
  /* A chain released member by member (fast_chain.h): its timing, how
   * far down the chain the finishes are known and told (the members at
   * depths below told_upto), and its place in the queue of calls with
   * members to tell. */
  hs_fast_chain *chain;
  int known_upto, told_upto, telling;
  struct fast_call *next_telling;
};

/* Routes between world ranks, looked up once: schedules meet the same
 * pairs at every round (a tree's ticks, a ring's steps), and fast runs
 * only where links do not change. Open addressing on (src, dst). */
typedef struct {
  long key;    /* src * ranks + dst + 1; 0: empty */
  int at_up, at_down; /* a template (templates): where the source's own link and the destination's sit */
  double lat;
  double cap;  /* the least bandwidth of its links that no flow shares (fatpipes); INFINITY: none */
  int n_links; /* its shared links, */
  int *links;  /* by their ids in the link table */
} route_entry;

typedef struct {
  route_entry *slot;
  long cap, n;
} route_cache;

/* Dense ids for SimGrid's link objects (open addressing on the pointer),
 * with what sharing needs of each, read from SimGrid once. */
typedef struct {
  const void **key;
  int *val;
  int cap, n;
  double *bw; /* id -> bandwidth times the bandwidth factor */
  double *lat; /* id -> latency (SimGrid's, before the latency factor) */
  char *shared;
  int cap_ids;
  int *local;              /* share(): a call's own dense numbering, by first sight, */
  unsigned *stamp, gen;    /* valid where stamp == gen */
} link_table;

struct sim_fast {
  route_cache routes;
  /* Routes between ranks, spliced (route_of): a route between two ranks
   * is the route between their nodes with each rank's own GPU link in it
   * (sim/platform.c names them gpuR_link, UP from R, DOWN to R). By node
   * pair, a route seen between two of their ranks (every link, in
   * SimGrid's order, which sums the latency: key na * nodes + nb + 1) and
   * where its source's and destination's own links sit in it; by rank, its
   * own link up and down, found by name in the platform's links at the
   * start (-1: none). Off (splice 0) unless rank r is host gpuR. */
  route_cache templates;
  int *own_up, *own_down, nodes, splice;
  int route_check; /* HS_FAST_ROUTE_CHECK=1: each spliced route checked against SimGrid's */
  link_table links;
  /* Schedules and open calls by their keys, chained hash tables: every
   * member's every collective looks its own up, and a list scanned at
   * each of them made a hierarchical start at 4096 GPUs quadratic in its
   * communicators (docs/performance.md). Sizes are powers of 2. */
  fast_sched *scheds;
  fast_sched **sched_index;
  size_t sched_cap, n_scheds;
  fast_call **call_index; /* open: some arrival unknown */
  size_t call_cap, n_calls;
  fast_call *ready;        /* every arrival known, to be timed, in order */
  fast_call **ready_tail;  /* where the next ready call goes */
  fast_call *telling; /* open chains with members whose part is known (fast_chain.h) */
  int settling;
  double lat_factor, bw_factor, tcp_gamma;
  /* HS_FAST_TREE_BY_TICKS=1: trees recorded tick by tick as exchanges,
   * the way the replay (fast_tree.c) must match (test_fidelity_fast). */
  int tree_by_ticks;
  /* HS_FAST_CHAIN_WHOLE=1: chains timed whole once every member has
   * arrived, as before fast_chain.h (test_fidelity_fast compares). */
  int chain_whole;
};

typedef struct {
  fast_sched *s;
  int me;
} recorder;

static fast_rec *rec_new(fast_sched *s, int me) {
  if (s->n_recs[me] == s->cap_recs[me]) {
    s->cap_recs[me] = s->cap_recs[me] ? 2 * s->cap_recs[me] : 4;
    s->recs[me] = realloc(s->recs[me], (size_t)s->cap_recs[me] * sizeof **s->recs);
  }
  fast_rec *r = &s->recs[me][s->n_recs[me]++];
  memset(r, 0, sizeof *r);
  r->ring = r->tree = -1;
  return r;
}

static void record_exchange(const hs_lower_group *g, const hs_lower_send *snd, int ns, hs_lower_recv *rcv, int nr) {
  recorder *rc = g->ctx;
  fast_sched *s = rc->s;
  fast_rec *r = rec_new(s, rc->me);
  r->spread = g->spread;
  r->shares_proxy = g->shares_proxy;
  r->rate = g->rate;
  r->net_rate = g->net_rate;
  r->n_send = ns;
  r->n_recv = nr;
  r->flows = calloc((size_t)(ns + nr) + 1, sizeof *r->flows);
  for (int i = 0; i < ns; i++) {
    r->flows[i].peer = s->index_of[g->members[snd[i].peer]];
    r->flows[i].bytes = snd[i].bytes;
    s->sent[rc->me] += (double)snd[i].bytes;
  }
  for (int i = 0; i < nr; i++) {
    r->flows[ns + i].peer = s->index_of[g->members[rcv[i].peer]];
    r->flows[ns + i].bytes = rcv[i].bytes;
  }
}

static uint64_t ring_hash(const char *tag, int seq) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)(uint32_t)seq; /* FNV-1a */
  for (; *tag; tag++) h = (h ^ (uint8_t)*tag) * 1099511628211ull;
  return h;
}

/* The slot of the ring phase (tag, seq) in s->ring_slot, or the empty
 * one where it goes: a hierarchical allreduce over 16 384 ranks runs 2048
 * node rings, and each member looks its own up. */
static int *ring_slot_of(const fast_sched *s, const char *tag, int seq) {
  int j = (int)(ring_hash(tag, seq) % (uint64_t)s->ring_slots);
  while (s->ring_slot[j] >= 0 &&
         (s->rings[s->ring_slot[j]]->seq != seq || strcmp(s->rings[s->ring_slot[j]]->tag, tag) != 0))
    j = (j + 1) % s->ring_slots;
  return &s->ring_slot[j];
}

static void record_ring(const hs_lower_group *g, int first, int steps, const size_t *bytes, hs_ring_pipeline pipe) {
  recorder *rc = g->ctx;
  fast_sched *s = rc->s;
  int seq = s->rings_seen[rc->me]++;
  if (2 * (s->n_rings + 1) >= s->ring_slots) { /* grow: rehash every phase */
    free(s->ring_slot);
    s->ring_slots = s->ring_slots ? 2 * s->ring_slots : 64;
    s->ring_slot = malloc((size_t)s->ring_slots * sizeof(int));
    for (int j = 0; j < s->ring_slots; j++) s->ring_slot[j] = -1;
    for (int i = 0; i < s->n_rings; i++) *ring_slot_of(s, s->rings[i]->tag, s->rings[i]->seq) = i;
  }
  int *slot = ring_slot_of(s, g->tag, seq), id = *slot;
  if (id < 0) {
    if (s->n_rings == s->cap_rings) {
      s->cap_rings = s->cap_rings ? 2 * s->cap_rings : 8;
      s->rings = realloc(s->rings, (size_t)s->cap_rings * sizeof *s->rings);
    }
    fast_ring *ring = calloc(1, sizeof *ring);
    snprintf(ring->tag, sizeof ring->tag, "%s", g->tag);
    ring->seq = seq;
    ring->first = first;
    ring->steps = steps;
    ring->pipe = pipe;
    ring->n = g->size;
    ring->members = malloc((size_t)g->size * sizeof(int));
    ring->rec = malloc((size_t)g->size * sizeof(int));
    ring->bytes = malloc((size_t)g->size * sizeof(size_t));
    ring->lat = calloc((size_t)g->size, sizeof(double));
    ring->rate = calloc((size_t)g->size, sizeof(double));
    ring->hop = calloc((size_t)g->size, sizeof(double));
    ring->spread = g->spread;
    ring->group = -1;
    for (int j = 0; j < g->size; j++) ring->members[j] = s->index_of[g->members[j]];
    memcpy(ring->bytes, bytes, (size_t)g->size * sizeof(size_t));
    for (int j = 0; j < g->size; j++) ring->total += (double)bytes[j];
    id = *slot = s->n_rings;
    s->rings[s->n_rings++] = ring;
  }
  fast_ring *ring = s->rings[id];
  ring->rec[g->me] = s->n_recs[rc->me];
  fast_rec *r = rec_new(s, rc->me);
  r->ring = id;
  r->spread = g->spread;
  /* One chunk per step: at global step t, chunk (me - 1 - t) mod n. A
   * phase of n-1 steps from t sends every chunk but (me - t) mod n: O(1)
   * per phase, not O(n), which would be O(n^2) over the members. */
  int n = g->size;
  double total = ring->total;
  int t = first;
  for (; t + (n - 1) <= first + steps; t += n - 1) s->sent[rc->me] += total - (double)bytes[(((g->me - t) % n) + n) % n];
  for (; t < first + steps; t++) s->sent[rc->me] += (double)bytes[(((g->me - 1 - t) % n) + n) % n];
}

/* A tree run, whole (the lowering's tree hook): this member's roles. */
static void record_tree(const hs_lower_group *g, const hs_tree_run *run) {
  recorder *rc = g->ctx;
  fast_sched *s = rc->s;
  int seq = s->trees_seen[rc->me]++, id = -1;
  for (int i = 0; i < s->n_trees && id < 0; i++)
    if (s->trees[i]->seq == seq && strcmp(s->trees[i]->tag, g->tag) == 0) id = i;
  if (id < 0) {
    s->trees = realloc(s->trees, ((size_t)s->n_trees + 1) * sizeof *s->trees);
    s->tree_spread = realloc(s->tree_spread, ((size_t)s->n_trees + 1) * sizeof *s->tree_spread);
    id = s->n_trees++;
    s->trees[id] = hs_fast_tree_new(g->tag, seq, g->size, run);
    s->tree_spread[id] = g->spread;
    /* its flows' own bound, beside the schedule's (an allreduce's share of
     * NCCL's tree maximum: lowering.h, hs_lower_tree_flow_rate) */
    s->trees[id]->cap = g->rate;
    s->trees[id]->net_cap = g->net_rate;
  }
  hs_fast_tree *t = s->trees[id];
  hs_fast_tree_add(t, g->me, s->index_of[g->members[g->me]], s->n_recs[rc->me], run);
  fast_rec *r = rec_new(s, rc->me);
  r->tree = id;
  r->spread = g->spread;
  s->sent[rc->me] += hs_fast_tree_sent(t, g->me);
}

/* ---- compiling: matching ends, sharing bandwidth --------------------------------- */

typedef struct {
  int src, rec, slot;
} recv_key;

static int by_src(const void *a, const void *b) {
  const recv_key *x = a, *y = b;
  if (x->src != y->src) return x->src < y->src ? -1 : 1;
  return x->rec != y->rec ? (x->rec < y->rec ? -1 : 1) : (x->slot > y->slot) - (x->slot < y->slot);
}

/* Pairs each send with the receive it meets: sends and receives between
 * two members match in posting order, as SimGrid mailboxes do. */
static void match_ends(fast_sched *s) {
  recv_key **keys = calloc((size_t)s->n, sizeof *keys);
  int *n_keys = calloc((size_t)s->n, sizeof(int));
  for (int p = 0; p < s->n; p++) {
    int cnt = 0;
    for (int k = 0; k < s->n_recs[p]; k++) cnt += s->recs[p][k].n_recv;
    keys[p] = malloc((size_t)cnt * sizeof **keys + 1);
    for (int k = 0; k < s->n_recs[p]; k++) {
      fast_rec *r = &s->recs[p][k];
      for (int i = 0; i < r->n_recv; i++) keys[p][n_keys[p]++] = (recv_key){r->flows[r->n_send + i].peer, k, i};
    }
    qsort(keys[p], (size_t)n_keys[p], sizeof **keys, by_src);
  }
  int *sent_to = calloc((size_t)s->n, sizeof(int));
  for (int r = 0; r < s->n; r++) {
    for (int k = 0; k < s->n_recs[r]; k++) {
      fast_rec *rec = &s->recs[r][k];
      for (int i = 0; i < rec->n_send; i++) {
        int p = rec->flows[i].peer;
        /* first receive at p from r, then the sent_to[p]-th after it */
        int lo = 0, hi = n_keys[p];
        while (lo < hi) {
          int mid = (lo + hi) / 2;
          if (keys[p][mid].src < r) lo = mid + 1;
          else hi = mid;
        }
        int at = lo + sent_to[p]++;
        if (at >= n_keys[p] || keys[p][at].src != r) {
          fprintf(stderr, "hearsay: fast fidelity: a send of member %d to %d has no receive (lowering bug)\n", r, p);
          abort();
        }
        fast_rec *other = &s->recs[p][keys[p][at].rec];
        rec->flows[i].match = keys[p][at].rec;
        rec->flows[i].slot = keys[p][at].slot;
        other->flows[other->n_send + keys[p][at].slot].match = k;
      }
    }
    for (int k = 0; k < s->n_recs[r]; k++)
      for (int i = 0; i < s->recs[r][k].n_send; i++) sent_to[s->recs[r][k].flows[i].peer] = 0;
  }
  for (int p = 0; p < s->n; p++) free(keys[p]);
  free(keys);
  free(n_keys);
  free(sent_to);
}

typedef struct {
  int src, dst;   /* world ranks */
  double *lat, *rate; /* where to store the result */
  int gpus;       /* GPUs of its node the flow stands for (hs_net_flow_cap) */
  double cap;     /* its own bound beside the schedule's, bytes on the wire a second; 0: none */
  const route_entry *route; /* its route if the caller kept it (a copy: the table moves as it grows);
                             * NULL: looked up */
  int *bottleneck; /* where to store the link (global id) whose share fixed its rate, -1: its own cap; or NULL */
  double *solo;    /* where to store its rate alone on its route (NULL: not wanted) */
  int shares_proxy; /* a flow of one GPU's own exchange (lowering.h): counted for its proxy thread's share */
} flow_ref;

static int link_slot(const link_table *m, const void *link) {
  uintptr_t h = ((uintptr_t)link >> 4) * 0x9E3779B97F4A7C15ull;
  int i = (int)(h % (uintptr_t)m->cap);
  while (m->key[i] && m->key[i] != link) i = (i + 1) % m->cap;
  return i;
}

/* A flow across nodes of one GPU's own exchange (point-to-point,
 * alltoall; not a collective's schedule, whose trees' parent and children
 * keep the whole bound, as step's pipelined trees do): what a proxy
 * thread's share applies to (hs_net_flow_cap_concurrent). */
static int own_flow_across(const sim_world *w, const flow_ref *f) {
  return f->shares_proxy && f->gpus == 1 && f->src < w->n && f->dst < w->n &&
         hs_sim_node_of(w, f->src) != hs_sim_node_of(w, f->dst);
}

/* Rank r's slot in an open-addressing table of cap (a power of two)
 * entries, -1 where empty; taken if r is not there yet. */
static int rank_slot(int *key, int cap, int r) {
  unsigned h = ((unsigned)r * 2654435761u) & (unsigned)(cap - 1);
  while (key[h] != -1 && key[h] != r) h = (h + 1) & (unsigned)(cap - 1);
  key[h] = r;
  return (int)h;
}

/* For each of a step's flows, how many of its sender's own flows across
 * nodes the step has, as the busier direction counts them (its sends or
 * its receives): what the GPU's proxy thread divides itself among, as
 * step counts a post's (transport.c). 1 for every other flow. The table
 * is the step's size, so the cost is the flows', not the world's. */
static void count_concurrent(const sim_world *w, const flow_ref *fl, int nf, int *concurrent) {
  int across = 0;
  for (int i = 0; i < nf; i++) {
    concurrent[i] = 1;
    across += own_flow_across(w, &fl[i]);
  }
  if (across < 2) return;
  int cap = 4;
  while (cap < 4 * across) cap *= 2;
  int *key = malloc((size_t)cap * sizeof *key), *out = calloc((size_t)cap, sizeof *out),
      *in = calloc((size_t)cap, sizeof *in);
  for (int k = 0; k < cap; k++) key[k] = -1;
  for (int i = 0; i < nf; i++)
    if (own_flow_across(w, &fl[i])) out[rank_slot(key, cap, fl[i].src)]++, in[rank_slot(key, cap, fl[i].dst)]++;
  for (int i = 0; i < nf; i++)
    if (own_flow_across(w, &fl[i])) {
      int a = rank_slot(key, cap, fl[i].src);
      concurrent[i] = out[a] > in[a] ? out[a] : in[a];
    }
  free(key), free(out), free(in);
}

/* The id of a SimGrid link, entered with its bandwidth the first time. */
static int link_id(struct sim_fast *f, sg_link_t l) {
  link_table *m = &f->links;
  if (2 * (m->n + 1) >= m->cap) { /* grow: rehash every entry */
    link_table bigger = *m;
    bigger.cap = m->cap ? 2 * m->cap : 1024;
    bigger.key = calloc((size_t)bigger.cap, sizeof *bigger.key);
    bigger.val = malloc((size_t)bigger.cap * sizeof(int));
    for (int i = 0; i < m->cap; i++)
      if (m->key[i]) {
        int j = link_slot(&bigger, m->key[i]);
        bigger.key[j] = m->key[i];
        bigger.val[j] = m->val[i];
      }
    free(m->key), free(m->val);
    *m = bigger;
  }
  int i = link_slot(m, l);
  if (m->key[i]) return m->val[i];
  if (m->n == m->cap_ids) {
    m->cap_ids = m->cap_ids ? 2 * m->cap_ids : 1024;
    m->bw = realloc(m->bw, (size_t)m->cap_ids * sizeof *m->bw);
    m->lat = realloc(m->lat, (size_t)m->cap_ids * sizeof *m->lat);
    m->shared = realloc(m->shared, (size_t)m->cap_ids);
    m->local = realloc(m->local, (size_t)m->cap_ids * sizeof *m->local);
    m->stamp = realloc(m->stamp, (size_t)m->cap_ids * sizeof *m->stamp);
    for (int k = m->n; k < m->cap_ids; k++) m->stamp[k] = 0;
  }
  m->key[i] = l;
  m->val[i] = m->n;
  m->bw[m->n] = sg_link_get_bandwidth(l) * f->bw_factor;
  m->lat[m->n] = sg_link_get_latency(l);
  m->shared[m->n] = (char)sg_link_is_shared(l);
  return m->n++;
}

/* The slot holding key, or the empty one where it goes. */
static route_entry *route_slot(const route_cache *rc, long key) {
  /* mixed before the low bits are taken: the keys of one destination
   * differ by multiples of the ranks, a power of 2 on most clusters, and
   * a product alone kept their low bits alike (one long run of probes) */
  uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  long j = (long)(h & (uint64_t)(rc->cap - 1));
  while (rc->slot[j].key && rc->slot[j].key != key) j = (j + 1) & (rc->cap - 1);
  return &rc->slot[j];
}

/* The slot for key in rc, grown first where needed. */
static route_entry *route_insert_slot(route_cache *rc, long key) {
  if (2 * (rc->n + 1) >= rc->cap) { /* grow: rehash every entry */
    long cap = rc->cap ? 2 * rc->cap : 1024;
    route_cache bigger = {calloc((size_t)cap, sizeof(route_entry)), cap, rc->n};
    for (long i = 0; i < rc->cap; i++)
      if (rc->slot[i].key) *route_slot(&bigger, rc->slot[i].key) = rc->slot[i];
    free(rc->slot);
    *rc = bigger;
  }
  return route_slot(rc, key);
}

/* SimGrid's route from world id src to dst, as link ids (*k of them). */
static int *simgrid_route(const sim_world *w, struct sim_fast *f, int src, int dst, int *k) {
  xbt_dynar_t route = xbt_dynar_new(sizeof(sg_link_t), NULL);
  sg_host_get_route(hs_sim_host_of(w, src), hs_sim_host_of(w, dst), route);
  *k = (int)xbt_dynar_length(route);
  int *ids = malloc((size_t)*k * sizeof(int) + 1);
  for (int i = 0; i < *k; i++) ids[i] = link_id(f, xbt_dynar_get_as(route, i, sg_link_t));
  xbt_dynar_free(&route);
  return ids;
}

/* e from the route's links in order: latencies summed as SimGrid's
 * route_latency does, the shared links listed, the others a cap. */
static void fill_route(struct sim_fast *f, route_entry *e, long key, const int *ids, int k) {
  e->key = key;
  e->links = malloc((size_t)k * sizeof(int) + 1);
  e->n_links = 0;
  e->cap = INFINITY;
  e->lat = 0;
  for (int i = 0; i < k; i++) {
    int id = ids[i];
    e->lat += f->links.lat[id];
    if (f->links.shared[id]) e->links[e->n_links++] = id;
    else e->cap = dmin(e->cap, f->links.bw[id]);
  }
}

/* The key of the template for a route from src to dst (their nodes'
 * pair), or 0 where routes are not spliced: off, a switch at either end,
 * or a rank to itself. */
static long template_key(const sim_world *w, const struct sim_fast *f, int src, int dst) {
  int g = w->gpus_per_node > 0 ? w->gpus_per_node : 1;
  const hs_cluster_spec *c = &w->sc->cluster;
  /* a CPU process's route is SimGrid's own: it has no "gpu<r>_link" */
  if (!f->splice || src >= w->n || dst >= w->n || src == dst || hs_cluster_rank_is_cpu(c, src) ||
      hs_cluster_rank_is_cpu(c, dst))
    return 0;
  return (long)(src / g) * f->nodes + dst / g + 1;
}

/* A route between two ranks from their nodes' template and the ranks'
 * own links, where all are known: ids (k of them) or NULL. */
static int *spliced_route(const sim_world *w, struct sim_fast *f, int src, int dst, int *k) {
  long key = template_key(w, f, src, dst);
  if (!key || !f->templates.cap) return NULL;
  const route_entry *t = route_slot(&f->templates, key);
  if (!t->key || (t->at_up >= 0 && f->own_up[src] < 0) || (t->at_down >= 0 && f->own_down[dst] < 0)) return NULL;
  *k = t->n_links;
  int *ids = malloc((size_t)*k * sizeof(int) + 1);
  memcpy(ids, t->links, (size_t)*k * sizeof(int));
  if (t->at_up >= 0) ids[t->at_up] = f->own_up[src];
  if (t->at_down >= 0) ids[t->at_down] = f->own_down[dst];
  return ids;
}

/* A route between two ranks, kept as their nodes' template where each
 * rank's own link is found in it once, or, between nodes whose GPUs reach
 * the network through the node's PCIe side (links.h), where neither is:
 * then every pair of their GPUs has that route (at_up, at_down -1). */
static void learn_route(const sim_world *w, struct sim_fast *f, int src, int dst, const int *ids, int k) {
  long key = template_key(w, f, src, dst);
  if (!key) return;
  int at_up = -1, at_down = -1;
  for (int i = 0; i < k; i++) {
    if (ids[i] == f->own_up[src]) at_up = at_up < 0 ? i : k;
    if (ids[i] == f->own_down[dst]) at_down = at_down < 0 ? i : k;
  }
  int g = w->gpus_per_node > 0 ? w->gpus_per_node : 1;
  int by_pcie = at_up < 0 && at_down < 0 && src / g != dst / g && hs_links_nic_apart(&w->sc->cluster);
  if (!by_pcie && (at_up < 0 || at_down < 0)) return;
  if (at_up == k || at_down == k) return;
  route_entry *t = route_insert_slot(&f->templates, key);
  if (t->key) return;
  *t = (route_entry){.key = key, .at_up = at_up, .at_down = at_down, .n_links = k};
  t->links = malloc((size_t)k * sizeof(int));
  memcpy(t->links, ids, (size_t)k * sizeof(int));
  f->templates.n++;
}

/* HS_FAST_ROUTE_CHECK=1: how many spliced routes were found equal to
 * SimGrid's, said at exit (test_fidelity_fast reads it). */
static long routes_checked;
static void say_routes_checked(void) {
  fprintf(stderr, "hearsay: HS_FAST_ROUTE_CHECK: %ld spliced routes, each equal to SimGrid's\n", routes_checked);
}

static route_entry *route_of(const sim_world *w, struct sim_fast *f, int src, int dst) {
  long key = (long)src * (w->n + w->n_switches) + dst + 1;
  route_entry *e = route_insert_slot(&f->routes, key);
  if (e->key) return e;
  int k, *ids = spliced_route(w, f, src, dst, &k);
  if (ids && f->route_check) {
    int k2, *direct = simgrid_route(w, f, src, dst, &k2);
    if (k2 != k || memcmp(direct, ids, (size_t)k * sizeof(int)) != 0) {
      fprintf(stderr, "hearsay: internal error: the spliced route from rank %d to %d is not SimGrid's:", src, dst);
      for (int i = 0; i < k; i++) fprintf(stderr, " %d", ids[i]);
      fprintf(stderr, " against");
      for (int i = 0; i < k2; i++) fprintf(stderr, " %d", direct[i]);
      fprintf(stderr, "\n");
      abort();
    }
    free(direct);
    routes_checked++;
  }
  if (!ids) {
    ids = simgrid_route(w, f, src, dst, &k);
    learn_route(w, f, src, dst, ids, k);
  }
  fill_route(f, e, key, ids, k);
  free(ids);
  f->routes.n++;
  return e;
}

static void fix_flow(flow_ref *fl, int i, double rate, char *fixed, const int *const *links, const int *n_links,
                     double *cap, int *count) {
  fixed[i] = 1;
  *fl[i].rate = rate;
  for (int j = 0; j < n_links[i]; j++) {
    cap[links[i][j]] -= rate;
    count[links[i][j]]--;
  }
}

/* Max-min fair shares of the flows' bandwidth (progressive filling): the
 * most constrained link fixes the rate of every flow through it, which
 * then leaves the others. Non-shared (fatpipe) links only cap each flow,
 * as do the TCP window (SimGrid's gamma / 2 latency) and `bound`, the rate
 * every flow of the call has of its own (the protocol's, protocol.h;
 * SimGrid's Comm::set_rate in step; 0: none).
 * A call numbers the links it meets densely, in the order it meets them,
 * so its cost is that of its flows, not of the platform. */
static void share(const sim_world *w, struct sim_fast *f, flow_ref *fl, int nf, double bound) {
  if (nf == 0) return;
  link_table *lt = &f->links;
  if (++lt->gen == 0) { /* wrapped: every stamp is stale again */
    for (int k = 0; k < lt->cap_ids; k++) lt->stamp[k] = 0;
    lt->gen = 1;
  }
  const int **links = malloc((size_t)nf * sizeof *links);
  int *n_links = malloc((size_t)nf * sizeof(int));
  double *cap_flow = malloc((size_t)nf * sizeof(double));
  int *concurrent = malloc((size_t)nf * sizeof(int));
  count_concurrent(w, fl, nf, concurrent);
  int n_refs = 0;
  for (int i = 0; i < nf; i++) {
    const route_entry *re = fl[i].route ? fl[i].route : route_of(w, f, fl[i].src, fl[i].dst);
    links[i] = re->links; /* global ids for now */
    n_links[i] = re->n_links;
    n_refs += re->n_links;
    cap_flow[i] = re->cap;
    *fl[i].lat = re->lat * f->lat_factor;
    if (f->tcp_gamma > 0 && *fl[i].lat > 0) cap_flow[i] = dmin(cap_flow[i], f->tcp_gamma / (2 * *fl[i].lat));
    if (bound > 0) cap_flow[i] = dmin(cap_flow[i], bound);
    if (fl[i].cap > 0) cap_flow[i] = dmin(cap_flow[i], fl[i].cap);
    /* the transport's bound on a connection between two nodes (step's
     * flow_rate, transport.c) */
    if (fl[i].src < w->n && fl[i].dst < w->n) {
      int na = hs_sim_node_of(w, fl[i].src), nb = hs_sim_node_of(w, fl[i].dst);
      cap_flow[i] = dmin(cap_flow[i], hs_net_hop_cap(&w->sc->cluster, fl[i].src, fl[i].dst, na, nb, w->channels,
                                                     fl[i].gpus, concurrent[i]));
    }
    if (fl[i].solo) {
      double alone = cap_flow[i];
      for (int j = 0; j < re->n_links; j++) alone = dmin(alone, lt->bw[re->links[j]]);
      *fl[i].solo = alone;
    }
    if (fl[i].bottleneck) *fl[i].bottleneck = -1;
  }
  /* local ids, by first sight; each flow's list rewritten into them */
  int *local_links = malloc((size_t)n_refs * sizeof(int) + 1), nl = 0;
  int *global = malloc((size_t)n_refs * sizeof(int) + 1); /* local id -> the table's */
  double *cap = malloc((size_t)n_refs * sizeof(double) + 1);
  for (int i = 0, at = 0; i < nf; i++) {
    for (int j = 0; j < n_links[i]; j++) {
      int g = links[i][j];
      if (lt->stamp[g] != lt->gen) {
        lt->stamp[g] = lt->gen;
        lt->local[g] = nl;
        global[nl] = g;
        cap[nl++] = lt->bw[g];
      }
      local_links[at + j] = lt->local[g];
    }
    links[i] = local_links + at;
    at += n_links[i];
  }
  int *count = calloc((size_t)nl + 1, sizeof(int));
  for (int i = 0; i < nf; i++)
    for (int j = 0; j < n_links[i]; j++) count[links[i][j]]++;
  /* flows of each link (CSR) */
  int *first = calloc((size_t)nl + 2, sizeof(int)), *fill = calloc((size_t)nl + 1, sizeof(int));
  for (int l = 0; l < nl; l++) first[l + 1] = first[l] + count[l];
  int *through = malloc((size_t)first[nl] * sizeof(int) + 1);
  for (int i = 0; i < nf; i++)
    for (int j = 0; j < n_links[i]; j++) {
      int l = links[i][j];
      through[first[l] + fill[l]++] = i;
    }
  char *fixed = calloc((size_t)nf, 1);
  int *tight = malloc((size_t)nl * sizeof(int) + 1);
  int left = nf;
  while (left > 0) {
    /* the tightest constraint: a link's fair share, or a flow's own cap */
    double best = INFINITY;
    int best_link = -1, best_flow = -1;
    for (int l = 0; l < nl; l++)
      if (count[l] > 0 && cap[l] / count[l] < best) best = cap[l] / count[l], best_link = l, best_flow = -1;
    for (int i = 0; i < nf; i++)
      if (!fixed[i] && cap_flow[i] < best) best = cap_flow[i], best_flow = i, best_link = -1;
    if (best_link < 0 && best_flow < 0) { /* unconstrained: no shared link, no cap */
      for (int i = 0; i < nf; i++)
        if (!fixed[i]) *fl[i].rate = INFINITY, fixed[i] = 1, left--;
      break;
    }
    if (best_flow >= 0) {
      /* Every flow capped as tightly is settled in the same pass, for the
       * reason below: with a protocol's bound every flow has the same cap,
       * and fixing them one per pass cost O(flows^2) (0.5 s of a 16 384-GPU
       * ring). The cap is each flow's own, so its rate is its cap exactly. */
      for (int i = 0; i < nf; i++)
        if (!fixed[i] && cap_flow[i] <= best * (1 + 1e-12)) {
          fix_flow(fl, i, cap_flow[i], fixed, links, n_links, cap, count);
          left--;
        }
      continue;
    }
    /* Every link as tight as the tightest is settled in the same pass (a
     * symmetric collective has hundreds): fixing a flow at the fair share
     * leaves any other link's share at least as large. */
    int n_tight = 0;
    for (int l = 0; l < nl; l++)
      if (count[l] > 0 && cap[l] / count[l] <= best * (1 + 1e-12)) tight[n_tight++] = l;
    for (int t = 0; t < n_tight; t++)
      for (int q = first[tight[t]]; q < first[tight[t] + 1]; q++)
        if (!fixed[through[q]]) {
          if (fl[through[q]].bottleneck) *fl[through[q]].bottleneck = global[tight[t]];
          fix_flow(fl, through[q], best, fixed, links, n_links, cap, count);
          left--;
        }
  }
  free(links), free(n_links), free(cap), free(cap_flow), free(concurrent), free(local_links), free(global);
  free(count), free(first), free(fill), free(through), free(fixed), free(tight);
}

/* The node of a world id: a rank's, or the one a switch serves (switch.c). */
static int node_of_id(const sim_world *w, int id) { return hs_sim_node_of(w, id); }

/* Shares already found, by the flows they were found for: the rounds of
 * a schedule repeat the same flows (a tree's steady ticks, a pipeline's
 * units), and max-min sharing depends on nothing else, so a repeated set
 * copies its rates instead of solving again. A few sets at a time, the
 * oldest replaced first. */
enum { SHARE_MEMO = 8 };
typedef struct {
  int nf;
  uint64_t hash;
  int *pairs; /* src, dst, and gpus x 2 + shares_proxy, per flow */
  double *lat, *rate, *solo;
  int *bottleneck;
} share_entry;
typedef struct {
  share_entry e[SHARE_MEMO];
  int next;
} share_memo;

static uint64_t flows_hash(const flow_ref *fl, int nf) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a over the (src, dst, gpus) triples */
  for (int i = 0; i < nf; i++) {
    h = (h ^ (uint64_t)(uint32_t)fl[i].src) * 1099511628211ull;
    h = (h ^ (uint64_t)(uint32_t)fl[i].dst) * 1099511628211ull;
    h = (h ^ (uint64_t)(uint32_t)(fl[i].gpus * 2 + fl[i].shares_proxy)) * 1099511628211ull;
  }
  return h;
}

/* A memo serves one schedule's flows, which share one bound. */
static void share_memoized(const sim_world *w, struct sim_fast *f, share_memo *m, flow_ref *fl, int nf, double bound) {
  uint64_t h = flows_hash(fl, nf);
  for (int j = 0; j < SHARE_MEMO; j++) {
    share_entry *e = &m->e[j];
    if (!e->pairs || e->nf != nf || e->hash != h) continue;
    int same = 1;
    for (int i = 0; i < nf && same; i++)
      same = e->pairs[3 * i] == fl[i].src && e->pairs[3 * i + 1] == fl[i].dst && e->pairs[3 * i + 2] == fl[i].gpus * 2 + fl[i].shares_proxy &&
             (!fl[i].bottleneck || e->bottleneck[i] != -2) && (!fl[i].solo || !isnan(e->solo[i]));
    if (!same) continue;
    for (int i = 0; i < nf; i++) {
      *fl[i].lat = e->lat[i], *fl[i].rate = e->rate[i];
      if (fl[i].solo) *fl[i].solo = e->solo[i];
      if (fl[i].bottleneck) *fl[i].bottleneck = e->bottleneck[i];
    }
    return;
  }
  share(w, f, fl, nf, bound);
  share_entry *e = &m->e[m->next];
  m->next = (m->next + 1) % SHARE_MEMO;
  free(e->pairs), free(e->lat), free(e->rate), free(e->solo), free(e->bottleneck);
  e->nf = nf;
  e->hash = h;
  e->pairs = malloc(3 * (size_t)nf * sizeof(int) + 1);
  e->lat = malloc((size_t)nf * sizeof(double) + 1);
  e->rate = malloc((size_t)nf * sizeof(double) + 1);
  e->solo = malloc((size_t)nf * sizeof(double) + 1);
  e->bottleneck = malloc((size_t)nf * sizeof(int) + 1);
  for (int i = 0; i < nf; i++) {
    e->pairs[3 * i] = fl[i].src, e->pairs[3 * i + 1] = fl[i].dst, e->pairs[3 * i + 2] = fl[i].gpus * 2 + fl[i].shares_proxy;
    e->lat[i] = *fl[i].lat, e->rate[i] = *fl[i].rate;
    /* what a flow that asked for them got (a later set of the same flows may ask where this one did not) */
    e->solo[i] = fl[i].solo ? *fl[i].solo : NAN;
    e->bottleneck[i] = fl[i].bottleneck ? *fl[i].bottleneck : -2;
  }
}

static void share_memo_free(share_memo *m) {
  for (int j = 0; j < SHARE_MEMO; j++)
    free(m->e[j].pairs), free(m->e[j].lat), free(m->e[j].rate), free(m->e[j].solo), free(m->e[j].bottleneck);
}

/* The protocol's latency on the hop between two world ids (protocol.h). */
static double hop_cost(const sim_world *w, const fast_sched *s, int src, int dst) {
  return node_of_id(w, src) == node_of_id(w, dst) ? s->how.cost.hop_intra : s->how.cost.hop_net;
}

/* What a tree run needs of the platform (fast_tree.h): flows between its
 * positions, timed here. */
typedef struct {
  const sim_world *w;
  struct sim_fast *f;
  const fast_sched *s;
  const hs_fast_tree *t;
  int spread;          /* its recording group's (lowering.h) */
  route_entry *routes; /* per edge, once looked up (key 0: not yet): a
                        * tree's patterns share the same edges over and
                        * over (the table's probes were 3% of a 16 384-GPU
                        * tree's samples; docs/performance.md) */
} tree_env;

static void tree_share(void *ctx, int lo, int hi, double *lat, double *rate) {
  tree_env *e = ctx;
  int nf = hi - lo;
  flow_ref *fl = malloc((size_t)nf * sizeof *fl + 1);
  if (!e->routes) e->routes = calloc((size_t)e->t->n_edges + 1, sizeof *e->routes); /* the edges are known by now */
  for (int i = 0; i < nf; i++) {
    const hs_fast_tree_edge *ed = &e->t->edge[lo + i];
    int src = e->s->world_of[e->t->member[ed->src]], dst = e->s->world_of[e->t->member[ed->dst]];
    route_entry *re = &e->routes[lo + i];
    if (!re->key) *re = *route_of(e->w, e->f, src, dst);
    fl[i] = (flow_ref){src, dst, &lat[i], &rate[i], e->spread, 0, re, NULL, NULL, 0}; /* a collective's tree */
  }
  share(e->w, e->f, fl, nf, e->s->how.cost.rate);
  free(fl);
}

static double tree_hop(void *ctx, int src, int dst) {
  const tree_env *e = ctx;
  return hop_cost(e->w, e->s, e->s->world_of[e->t->member[src]], e->s->world_of[e->t->member[dst]]);
}

static int tree_across(void *ctx, int src, int dst) {
  const tree_env *e = ctx;
  return node_of_id(e->w, e->s->world_of[e->t->member[src]]) != node_of_id(e->w, e->s->world_of[e->t->member[dst]]);
}

static int tree_links(void *ctx, int src, int dst, int *ids, double *bw, int max) {
  const tree_env *e = ctx;
  const route_entry *re = route_of(e->w, e->f, e->s->world_of[e->t->member[src]], e->s->world_of[e->t->member[dst]]);
  int n = re->n_links < max ? re->n_links : max;
  for (int i = 0; i < n; i++) ids[i] = re->links[i], bw[i] = e->f->links.bw[re->links[i]];
  return n;
}

/* The pipelined rings of one record (here[]), after the sharing found
 * their rates and the link that bounded each flow: the links two or more
 * of their flows cross become the schedule's pools (their capacity, what
 * those flows took there together), and the rings that cross a pool with
 * another flow become a group, timed together (fast_ring.h). A flow alone
 * on its bounding link, or bound by its own cap, keeps its rate (pool -1). */
static void group_rings(struct sim_fast *f, fast_sched *s, const int *here, int n_here) {
  if (n_here == 0) return;
  link_table *lt = &f->links;
  int *flows_at = calloc((size_t)lt->cap_ids + 1, sizeof *flows_at);
  int *pool_at = malloc((size_t)lt->cap_ids * sizeof *pool_at + 1);
  for (int h = 0; h < n_here; h++) {
    const fast_ring *ring = s->rings[here[h]];
    for (int j = 0; j < ring->n; j++)
      if (ring->pool[j] >= 0) flows_at[ring->pool[j]]++, pool_at[ring->pool[j]] = -1;
  }
  int grouped = 0;
  for (int h = 0; h < n_here; h++) {
    fast_ring *ring = s->rings[here[h]];
    int shares = 0;
    for (int j = 0; j < ring->n; j++) {
      int link = ring->pool[j];
      if (link < 0 || flows_at[link] < 2) {
        ring->pool[j] = -1;
        continue;
      }
      if (pool_at[link] < 0) {
        pool_at[link] = s->n_pools++;
        s->pool_cap = realloc(s->pool_cap, (size_t)s->n_pools * sizeof *s->pool_cap);
        s->pool_cap[pool_at[link]] = 0;
      }
      ring->pool[j] = pool_at[link];
      s->pool_cap[ring->pool[j]] += ring->rate[j];
      shares = 1;
    }
    if (!shares) continue;
    if (!grouped) {
      s->group_ring = realloc(s->group_ring, (size_t)(s->n_groups + 1) * sizeof *s->group_ring);
      s->group_n = realloc(s->group_n, (size_t)(s->n_groups + 1) * sizeof *s->group_n);
      s->group_ring[s->n_groups] = malloc((size_t)n_here * sizeof **s->group_ring);
      s->group_n[s->n_groups++] = 0;
      grouped = 1;
    }
    ring->group = s->n_groups - 1;
    s->group_ring[ring->group][s->group_n[ring->group]++] = here[h];
  }
  free(flows_at);
  free(pool_at);
}

/* A group whose rings have the same shape and costs, position by
 * position, and whose every pool serves one position: rings that start
 * alike then move in step, every pool's flows on the wire together, so
 * the fixed shares are exact (and the shortcuts of ring_pipelined apply),
 * but for chunks that differ by rounding, timed as their mean
 * (hs_fast_ring_equal_chunks: under 1e-3). */
static int group_alike(const fast_sched *s, int g) {
  const fast_ring *a = s->rings[s->group_ring[g][0]];
  int n = a->n, alike = 1;
  int *position = malloc((size_t)s->n_pools * sizeof *position + 1);
  for (int q = 0; q < s->n_pools; q++) position[q] = -1;
  for (int i = 0; i < s->group_n[g] && alike; i++) {
    const fast_ring *b = s->rings[s->group_ring[g][i]];
    alike = b->n == n && b->first == a->first && b->steps == a->steps && b->pipe.slices == a->pipe.slices &&
            b->pipe.window == a->pipe.window && hs_fast_ring_equal_chunks(b) &&
            fabs(b->total - a->total) <= 1e-3 * (a->total / n);
    for (int j = 0; j < n && alike; j++) {
      alike = b->lat[j] == a->lat[j] && b->hop[j] == a->hop[j] && b->rate[j] == a->rate[j] &&
              b->solo[j] == a->solo[j] && (b->pool[j] < 0) == (a->pool[j] < 0);
      if (alike && b->pool[j] >= 0) {
        alike = position[b->pool[j]] < 0 || position[b->pool[j]] == j;
        position[b->pool[j]] = j;
      }
    }
  }
  free(position);
  return alike;
}

/* Flows at the same record index of the members' schedules run at the
 * same time (the lowerings are lock-step): they share bandwidth. A
 * protocol adds its hop latency to each flow's and moves `wire` bytes per
 * payload byte (protocol.h), as the step fidelity's messages do. */
static void compile(const sim_world *w, struct sim_fast *f, fast_sched *s) {
  const int *world_of = s->world_of;
  match_ends(s);
  double wire = s->how.cost.wire > 1 ? s->how.cost.wire : 1;
  int depth = 0;
  for (int i = 0; i < s->n; i++) depth = s->n_recs[i] > depth ? s->n_recs[i] : depth;
  char *ring_done = calloc((size_t)s->n_rings + 1, 1);
  share_memo memo = {0};
  for (int k = 0; k < depth; k++) {
    int nf = 0, total = 0, n_scratch = 0;
    for (int i = 0; i < s->n; i++)
      if (k < s->n_recs[i]) {
        const fast_rec *r = &s->recs[i][k];
        total += r->ring >= 0 ? s->rings[r->ring]->n : r->n_send;
      }
    flow_ref *fl = malloc((size_t)total * sizeof *fl + 1);
    int *here = malloc((size_t)s->n_rings * sizeof *here + 1), n_here = 0; /* pipelined rings at this record */
    double *scratch_lat, *scratch_rate;
    for (int i = 0; i < s->n; i++) {
      if (k >= s->n_recs[i]) continue;
      fast_rec *r = &s->recs[i][k];
      if (r->ring >= 0) {
        if (ring_done[r->ring]) continue;
        ring_done[r->ring] = 1;
        fast_ring *ring = s->rings[r->ring];
        int shares_links = ring->pipe.window > 0 && ring->n > 1; /* may share with rings beside it (fast_ring.h) */
        if (shares_links) {
          ring->pool = malloc((size_t)ring->n * sizeof *ring->pool);
          ring->solo = malloc((size_t)ring->n * sizeof *ring->solo);
          here[n_here++] = r->ring;
        }
        for (int j = 0; j < ring->n && ring->n > 1; j++)
          fl[nf++] = (flow_ref){world_of[ring->members[j]], world_of[ring->members[(j + 1) % ring->n]],
                                &ring->lat[j], &ring->rate[j], ring->spread, 0, NULL,
                                shares_links ? &ring->pool[j] : NULL, shares_links ? &ring->solo[j] : NULL, 0};
      } else {
        n_scratch += r->n_send;
      }
    }
    /* exchange sends: results into scratch, then into each flow's cost */
    scratch_lat = malloc((size_t)n_scratch * sizeof(double) + 1);
    scratch_rate = malloc((size_t)n_scratch * sizeof(double) + 1);
    int q = 0;
    for (int i = 0; i < s->n; i++) {
      if (k >= s->n_recs[i] || s->recs[i][k].ring >= 0) continue;
      fast_rec *r = &s->recs[i][k];
      for (int j = 0; j < r->n_send; j++, q++) {
        int src = world_of[i], dst = world_of[r->flows[j].peer];
        double cap = r->rate > 0 && (s->how.cost.rate <= 0 || r->rate < s->how.cost.rate) ? r->rate : 0;
        if (r->net_rate > 0 && node_of_id(w, src) != node_of_id(w, dst) && (cap <= 0 || r->net_rate < cap))
          cap = r->net_rate;
        fl[nf++] = (flow_ref){src, dst, &scratch_lat[q], &scratch_rate[q], r->spread, cap, NULL, NULL, NULL,
                              r->shares_proxy};
      }
    }
    /* Exchanges whose group bounds its flows more tightly than the
     * schedule does (a tree run by ticks: its share of NCCL's tree
     * maximum, between nodes or on one) carry their own bound; the memo
     * serves flows with the schedule's only. */
    int own = 0;
    for (int i = 0; i < nf; i++) own |= fl[i].cap > 0;
    if (own) share(w, f, fl, nf, s->how.cost.rate);
    else share_memoized(w, f, &memo, fl, nf, s->how.cost.rate);
    q = 0;
    for (int i = 0; i < s->n; i++) {
      if (k >= s->n_recs[i] || s->recs[i][k].ring >= 0) continue;
      fast_rec *r = &s->recs[i][k];
      for (int j = 0; j < r->n_send; j++, q++) {
        fast_flow *fw = &r->flows[j];
        int by_switch = s->how.cost.switch_wire > 0 &&
                        (hs_sim_is_switch(w, world_of[i]) || hs_sim_is_switch(w, world_of[fw->peer]));
        fw->cost = scratch_lat[q] + (double)fw->bytes * (by_switch ? s->how.cost.switch_wire : wire) / scratch_rate[q];
        fw->hop = hop_cost(w, s, world_of[i], world_of[fw->peer]);
        fast_rec *other = &s->recs[fw->peer][fw->match];
        other->flows[other->n_send + fw->slot].cost = fw->cost; /* the same flow, seen from the receiver */
        other->flows[other->n_send + fw->slot].hop = fw->hop;
      }
    }
    group_rings(f, s, here, n_here);
    free(here);
    free(fl);
    free(scratch_lat);
    free(scratch_rate);
  }
  free(ring_done);
  share_memo_free(&memo);
  for (int r = 0; r < s->n_rings; r++) {
    fast_ring *ring = s->rings[r];
    for (int j = 0; j < ring->n && ring->n > 1; j++) {
      ring->hop[j] = hop_cost(w, s, world_of[ring->members[j]], world_of[ring->members[(j + 1) % ring->n]]);
      ring->rate[j] /= wire;
      if (ring->solo) ring->solo[j] /= wire;
    }
  }
  for (int q = 0; q < s->n_pools; q++) s->pool_cap[q] /= wire;
  s->group_alike = malloc((size_t)s->n_groups + 1);
  s->group_broken = malloc((size_t)s->n_groups + 1);
  for (int g = 0; g < s->n_groups; g++) s->group_alike[g] = group_alike(s, g);
  for (int t = 0; t < s->n_trees; t++) {
    tree_env e = {w, f, s, s->trees[t], s->tree_spread[t], NULL};
    hs_fast_tree_compile(s->trees[t], &(hs_fast_tree_env){tree_share, tree_hop, tree_across, tree_links, &e});
    free(e.routes);
  }
  s->start = malloc((size_t)s->n * sizeof *s->start);
  for (int i = 0; i < s->n; i++) s->start[i] = malloc(((size_t)s->n_recs[i] + 1) * sizeof(double));
  s->pos = malloc((size_t)s->n * sizeof(int));
  s->compiled = 1;
}

/* ---- timing one call ------------------------------------------------------------ */

/* Lock-step (window 0): a step ends for a position when both its send and
 * its receive have; the recurrence
 *   t'[j] = max(max(t[j-1], t[j]) + c[j-1], max(t[j], t[j+1]) + c[j]). */
static void ring_lock_step(const fast_ring *ring, double *t) {
  int n = ring->n;
  double *next = malloc((size_t)n * sizeof *next), *cost = malloc((size_t)n * sizeof *cost);
  int equal = hs_fast_ring_equal_chunks(ring);
  if (equal)
    for (int j = 0; j < n; j++) cost[j] = ring->lat[j] + ring->total / n / ring->rate[j];
  for (int step = 0; step < ring->steps; step++) {
    if (!equal)
      for (int j = 0; j < n; j++) cost[j] = ring->lat[j] + hs_fast_ring_step_bytes(ring, j, step) / ring->rate[j];
    for (int j = 0; j < n; j++) {
      int prev = j ? j - 1 : n - 1, succ = j + 1 < n ? j + 1 : 0;
      double got = dmax(t[prev] + ring->hop[prev], t[j]) + cost[prev];
      double gave = dmax(t[j] + ring->hop[j], t[succ]) + cost[j];
      next[j] = dmax(got, gave);
    }
    /* The recurrence is max-plus linear with the same costs at every step:
     * once a step moves every member by the same amount (the ranks are in
     * lock-step, the slowest hop pacing them), every later step does the
     * same, and the remaining steps are that amount each. Equal arrivals
     * get there at once, a straggler's delay after it has gone round. */
    int lock_step = equal && step + 1 < ring->steps;
    double delta = next[0] - t[0];
    for (int j = 1; j < n && lock_step; j++)
      lock_step = fabs(next[j] - t[j] - delta) <= 1e-12 * dmax(fabs(next[j]), 1e-9);
    memcpy(t, next, (size_t)n * sizeof *t);
    if (lock_step) {
      double rest = (double)(ring->steps - 1 - step) * delta;
      for (int j = 0; j < n; j++) t[j] += rest;
      break;
    }
  }
  free(next);
  free(cost);
}

/* Positions j and k start alike and send alike: same arrival, same hop,
 * latency and rate out (bitwise: the recurrence then does the same
 * arithmetic on both). */
static int same_position(const fast_ring *ring, const double *t, int j, int k) {
  return t[j] == t[k] && ring->hop[j] == ring->hop[k] && ring->lat[j] == ring->lat[k] && ring->rate[j] == ring->rate[k];
}

/* The smallest P dividing n such that position j is as position j + P
 * for every j: the ring is its first P positions repeated (a cluster of
 * identical nodes and racks, ranks arriving together). KMP's prefix
 * function over the positions, O(n): a sequence is a power of its prefix
 * of length n - pi(n - 1) exactly when that divides n. */
static int ring_period(const fast_ring *ring, const double *t) {
  int n = ring->n;
  int *pi = malloc((size_t)n * sizeof *pi);
  pi[0] = 0;
  for (int j = 1; j < n; j++) {
    int k = pi[j - 1];
    while (k > 0 && !same_position(ring, t, j, k)) k = pi[k - 1];
    pi[j] = k + same_position(ring, t, j, k);
  }
  int p = n - pi[n - 1];
  free(pi);
  return n % p == 0 ? p : n;
}

/* Pipelined (lowering.c): a step's S slices move in units of at most
 * `window` slices (a receiver's credits; SimGrid moves a unit's slices
 * side by side, so they arrive together), G units per step. A unit on the
 * connection j -> j+1 starts when its data is at j (the same unit of the
 * previous step arrived there; the rank's arrival for the first step) and
 * j+1 holds a credit for it (the receive `window` slices earlier arrived:
 * L units earlier; its arrival for the first window); its bytes follow the
 * connection's previous unit (first in, first out; latency overlaps):
 *   begin = max(max(ready, credit) + lat, end of the previous unit)
 *   arrival at j+1 = begin + bytes / rate.
 * A member ends with its last receive and its last send. */
static void ring_pipelined(const fast_ring *ring, double *t) {
  /* Equal chunks on a ring that repeats with period P: every input of
   * the recurrence below is P-periodic in the position, so every arrival
   * is (induction over the units), and the first P positions, each with
   * its successor taken mod P, compute the whole ring's to the bit in
   * n / P times less work. It matters where the transient does not settle
   * into the uniform moves the shortcut below waits for: a latency-bound
   * ring of unlike hops moves each position by the latency that enters
   * it, which differs position by position for all 2(n - 1) steps
   * (bench-scale's 100 MiB at 16 384 GPUs on the fat tree: 5.2 s of
   * simulation, 0.76 s with the period). */
  int equal = hs_fast_ring_equal_chunks(ring);
  int n = equal ? ring_period(ring, t) : ring->n;
  int G = hs_lower_ring_units(ring->pipe), L = hs_lower_ring_credit_lag(ring->pipe);
  int hist = (L + G - 1) / G + 1; /* steps of arrivals kept: ready needs 1, credit ceil(L/G) */
  long units = (long)ring->steps * G;
  /* a[(step % hist) * G + g][j]: arrival at j of unit g of that step, from j-1 */
  double *a = malloc((size_t)hist * G * n * sizeof *a), *t0 = malloc((size_t)n * sizeof *t0);
  double *txend = malloc((size_t)n * sizeof *txend);
  memcpy(t0, t, (size_t)n * sizeof *t);
  for (int j = 0; j < n; j++) txend[j] = -INFINITY;
  double *unit_frac = malloc((size_t)G * sizeof *unit_frac);
  for (int g = 0; g < G; g++) unit_frac[g] = hs_fast_ring_unit_fraction(ring->pipe, g);
  int uniform_run = 0; /* consecutive steps that moved every arrival by the same delta */
  double delta = 0;
  int last_step = ring->steps - 1;
  double shift = 0;
#define A(u, j) a[((size_t)(((u) / G) % hist) * G + (size_t)((u) % G)) * n + (size_t)(j)]
  for (long u = 0; u < units; u++) {
    int step = (int)(u / G), g = (int)(u % G);
    for (int j = 0; j < n; j++) {
      int succ = j + 1 < n ? j + 1 : 0;
      double ready = step == 0 ? t0[j] : A(u - G, j);
      double credit = u < L ? t0[succ] : A(u - L, succ);
      double bytes = (equal ? ring->total / ring->n : hs_fast_ring_step_bytes(ring, j, step)) * unit_frac[g];
      double begin = dmax(dmax(ready + ring->hop[j], credit) + ring->lat[j], txend[j]);
      txend[j] = begin + bytes / ring->rate[j];
    }
    for (int j = 0; j < n; j++) A(u, j + 1 < n ? j + 1 : 0) = txend[j];
    if (g + 1 < G || step == 0) continue;
    /* Same costs at every step (equal chunks) make the recurrence
     * translation-invariant: once every arrival kept moved by the same
     * delta for as many steps as it looks back, every later step does too. */
    if (!equal || step == last_step) continue;
    double d = A(u, 0) - A(u - G, 0);
    int same = 1;
    for (int gg = 0; gg < G && same; gg++)
      for (int j = 0; j < n && same; j++) {
        double now = A(u - gg, j), before = A(u - gg - G, j);
        same = fabs(now - before - d) <= 1e-12 * dmax(fabs(now), 1e-9);
      }
    uniform_run = same && (uniform_run == 0 || fabs(d - delta) <= 1e-12 * dmax(fabs(d), 1e-12)) ? uniform_run + 1 : 0;
    delta = d;
    if (uniform_run >= hist) {
      shift = (double)(last_step - step) * delta;
      last_step = step;
      break;
    }
  }
  long last = (long)last_step * G + G - 1;
  for (int j = 0; j < n; j++) {
    int succ = j + 1 < n ? j + 1 : 0;
    t[j] = dmax(A(last, j), A(last, succ)) + shift;
  }
  for (int j = n; j < ring->n; j++) t[j] = t[j % n]; /* the period's repeats */
#undef A
  free(a);
  free(t0);
  free(txend);
  free(unit_frac);
}

static void run_ring(fast_sched *s, fast_ring *ring) {
  int n = ring->n;
  double *t = malloc((size_t)n * sizeof *t);
  for (int j = 0; j < n; j++) t[j] = s->start[ring->members[j]][ring->rec[j]];
  if (ring->pipe.window > 0) ring_pipelined(ring, t);
  else ring_lock_step(ring, t);
  for (int j = 0; j < n; j++) {
    int m = ring->members[j];
    s->start[m][ring->rec[j] + 1] = t[j];
    s->pos[m]++;
  }
  free(t);
}

/* Every member of the group's rings has reached them. */
static int group_ready(const fast_sched *s, int g) {
  for (int i = 0; i < s->group_n[g]; i++) {
    const fast_ring *ring = s->rings[s->group_ring[g][i]];
    for (int j = 0; j < ring->n; j++)
      if (s->pos[ring->members[j]] != ring->rec[j]) return 0;
  }
  return 1;
}

/* The group's rings, timed together (fast_ring.h), or each alone with its
 * fixed shares where they are alike and start alike (then exact) or would
 * cost too much together (HS_FAST_RINGS_SHARED_MAX_UNITS); returns how
 * many members it finished. */
static int run_group(fast_sched *s, int g) {
  int nr = s->group_n[g], in_step = s->group_alike[g], done = 0;
  fast_ring **rings = malloc((size_t)nr * sizeof *rings);
  double **t = malloc((size_t)nr * sizeof *t);
  for (int i = 0; i < nr; i++) {
    rings[i] = s->rings[s->group_ring[g][i]];
    t[i] = malloc((size_t)rings[i]->n * sizeof **t);
    for (int j = 0; j < rings[i]->n; j++) t[i][j] = s->start[rings[i]->members[j]][rings[i]->rec[j]];
    for (int j = 0; j < rings[i]->n && in_step && i > 0; j++) in_step = t[i][j] == t[0][j];
  }
  long units = in_step ? 0 : hs_fast_rings_shared_units(rings, nr);
  if (units > HS_FAST_RINGS_SHARED_MAX_UNITS) {
    static int said;
    if (!said++)
      fprintf(stderr,
              "hearsay: fast fidelity: %d rings beside each other through shared links move %ld units a call, over "
              "the %ld timed unit by unit: they keep the shares of rings in step, slower than step where they are "
              "not (docs/fidelity.md, \"Rails that share a NIC\")\n",
              nr, units, HS_FAST_RINGS_SHARED_MAX_UNITS);
    in_step = 1;
  }
  if (in_step)
    for (int i = 0; i < nr; i++) ring_pipelined(rings[i], t[i]);
  else
    hs_fast_rings_shared(rings, nr, t, s->pool_cap);
  for (int i = 0; i < nr; i++) {
    for (int j = 0; j < rings[i]->n; j++) {
      int m = rings[i]->members[j];
      s->start[m][rings[i]->rec[j] + 1] = t[i][j];
      done += ++s->pos[m] == s->n_recs[m];
    }
    free(t[i]);
  }
  free(t);
  free(rings);
  return done;
}

static void run_tree(fast_sched *s, const hs_fast_tree *t) {
  double *times = malloc((size_t)t->n * sizeof *times);
  for (int j = 0; j < t->n; j++) times[j] = s->start[t->member[j]][t->rec[j]];
  hs_fast_tree_time(t, s->how.cost.wire > 1 ? s->how.cost.wire : 1, times);
  for (int j = 0; j < t->n; j++) {
    s->start[t->member[j]][t->rec[j] + 1] = times[j];
    s->pos[t->member[j]]++;
  }
  free(times);
}

/* When a member that arrived at `arrival` starts its part: after the
 * protocol's launch (protocol.h), as the step fidelity sleeps it. */
static double start_of(const fast_sched *s, double arrival) {
  return arrival + (s->n > 1 && s->kind != HS_OP_P2P ? s->how.cost.launch : 0);
}

/* Each member's finish time from the arrival times: every record starts
 * when the previous one ended, and a flow starts when both ends posted. */
static void evaluate(fast_sched *s, const double *arrival, double *finish) {
  int done = 0;
  /* 1: no progress otherwise: the next grouped ring whose own members are
   * there breaks its group, whose rings then run alone, each when its
   * members are there (a schedule whose members reach the group's rings
   * at records that depend on one another) */
  int alone = 0;
  memset(s->group_broken, 0, (size_t)s->n_groups);
  for (int i = 0; i < s->n; i++) {
    s->pos[i] = 0;
    s->start[i][0] = start_of(s, arrival[i]);
    done += s->n_recs[i] == 0;
  }
  while (done < s->n) {
    int progress = 0;
    for (int i = 0; i < s->n; i++) {
      while (s->pos[i] < s->n_recs[i]) {
        int k = s->pos[i];
        fast_rec *r = &s->recs[i][k];
        if (r->ring >= 0 || r->tree >= 0) { /* a phase timed whole: once every member has reached it */
          fast_ring *ring = r->ring >= 0 ? s->rings[r->ring] : NULL;
          hs_fast_tree *t = ring ? NULL : s->trees[r->tree];
          const int *member = ring ? ring->members : t->member, *rec = ring ? ring->rec : t->rec;
          int m = ring ? ring->n : t->n, ready = 1;
          for (int j = 0; j < m && ready; j++) ready = s->pos[member[j]] == rec[j];
          if (!ready) break;
          if (ring && ring->group >= 0 && !s->group_broken[ring->group]) {
            if (group_ready(s, ring->group)) {
              done += run_group(s, ring->group);
              progress = 1;
              continue;
            }
            if (!alone) break;
            s->group_broken[ring->group] = 1; /* and this ring runs alone, below */
            alone = 0;
          }
          if (ring) run_ring(s, ring);
          else run_tree(s, t);
          for (int j = 0; j < m; j++) done += s->pos[member[j]] == s->n_recs[member[j]];
          progress = 1;
          continue;
        }
        int ready = 1;
        for (int x = 0; x < r->n_send + r->n_recv && ready; x++) ready = s->pos[r->flows[x].peer] >= r->flows[x].match;
        if (!ready) break;
        double t0 = s->start[i][k], t = t0;
        for (int x = 0; x < r->n_send + r->n_recv; x++) {
          /* a message starts when its receiver has posted and its sender
           * has, plus the protocol's hop (step's deferred send) */
          const fast_flow *fw = &r->flows[x];
          double theirs = s->start[fw->peer][fw->match];
          double start = x < r->n_send ? dmax(t0 + fw->hop, theirs) : dmax(t0, theirs + fw->hop);
          t = dmax(t, start + fw->cost);
        }
        s->start[i][k + 1] = t;
        s->pos[i]++;
        done += s->pos[i] == s->n_recs[i];
        progress = 1;
      }
    }
    if (!progress && !alone) {
      alone = 1;
      continue;
    }
    if (!progress) {
      fprintf(stderr, "hearsay: fast fidelity: the schedule cannot progress (lowering bug)\n");
      abort();
    }
    alone = 0;
  }
  for (int i = 0; i < s->n; i++) finish[i] = s->start[i][s->n_recs[i]];
}

/* How far a call's arrivals, relative to its first, may be from the last
 * call's for the last finishes to serve (timed_all), in units of the
 * clock's rounding at the call's time: arrivals that are the same up to
 * rounding differ by a few ulps of the clock (1.4e-15 s at 1.9 s), and an
 * exact comparison missed one call in ten of a 1024-GPU training run on
 * that alone, each miss a whole evaluation. */
#define MEMO_ULPS 64

/* The members' finish times. The evaluation is max and + over arrival
 * times and constant costs, so it commutes with a shift of every arrival:
 * a call whose arrivals are the last call's shifted (a training run whose
 * ranks reach each bucket together, iteration after iteration) gets the
 * last finishes shifted, in O(n) instead of O(records). Arrivals equal to
 * the memo's up to the clock's rounding (MEMO_ULPS) are served too: the
 * finishes differ by as much (the refined tree timings, fast_tree.c, are
 * not max and + alone, but move as little for so small a shift). */
static void timed_all(fast_sched *s, const double *arrival, double *finish) {
  double t0 = INFINITY;
  for (int i = 0; i < s->n; i++) t0 = dmin(t0, arrival[i]);
  int same = s->memo_arrival != NULL;
  double tolerance = MEMO_ULPS * DBL_EPSILON * dmax(fabs(t0), 1);
  for (int i = 0; i < s->n && same; i++) same = fabs(arrival[i] - t0 - s->memo_arrival[i]) <= tolerance;
  if (same) {
    for (int i = 0; i < s->n; i++) finish[i] = t0 + s->memo_finish[i];
    return;
  }
  evaluate(s, arrival, finish);
  if (!s->memo_arrival) {
    s->memo_arrival = malloc((size_t)s->n * sizeof(double));
    s->memo_finish = malloc((size_t)s->n * sizeof(double));
  }
  for (int i = 0; i < s->n; i++) {
    s->memo_arrival[i] = arrival[i] - t0;
    s->memo_finish[i] = finish[i] - t0;
  }
}

/* The members' finish times from their arrivals; a switch taking part is
 * ready from the first arrival on (it serves whoever comes). */
static void timed(fast_sched *s, const double *arrival, double *finish) {
  if (s->n == s->members) {
    timed_all(s, arrival, finish);
    return;
  }
  double first = INFINITY;
  for (int i = 0; i < s->members; i++) first = dmin(first, arrival[i]);
  memcpy(s->ext_arrival, arrival, (size_t)s->members * sizeof *arrival);
  for (int i = s->members; i < s->n; i++) s->ext_arrival[i] = first;
  timed_all(s, s->ext_arrival, s->ext_finish);
  memcpy(finish, s->ext_finish, (size_t)s->members * sizeof *finish);
}

/* ---- the backend's entry points ---------------------------------------------------- */

static sim_fast *fast_create(sim_world *w) {
  sim_fast *f = calloc(1, sizeof *f);
  f->ready_tail = &f->ready;
  const hs_sim_spec *sp = &w->sc->sim;
  /* CM02 (the only model fast runs under): factors 1 unless the scenario sets them. */
  f->lat_factor = sp->latency_factor > 0 ? sp->latency_factor : 1;
  f->bw_factor = sp->bandwidth_factor > 0 ? sp->bandwidth_factor : 1;
  f->tcp_gamma = sp->tcp_gamma;
  const char *ticks = getenv("HS_FAST_TREE_BY_TICKS");
  f->tree_by_ticks = ticks && strcmp(ticks, "1") == 0;
  const char *whole = getenv("HS_FAST_CHAIN_WHOLE");
  f->chain_whole = whole && strcmp(whole, "1") == 0;
  const char *check = getenv("HS_FAST_ROUTE_CHECK");
  f->route_check = check && strcmp(check, "1") == 0;
  if (f->route_check) atexit(say_routes_checked);
  int g = w->gpus_per_node > 0 ? w->gpus_per_node : 1;
  f->nodes = (w->n + g - 1) / g;
  f->own_up = malloc((size_t)w->n * sizeof(int) + 1);
  f->own_down = malloc((size_t)w->n * sizeof(int) + 1);
  f->splice = 1;
  for (int r = 0; r < w->n; r++) {
    char name[32];
    snprintf(name, sizeof name, "gpu%d", r);
    if (!hs_cluster_rank_is_cpu(&w->sc->cluster, r)) f->splice &= strcmp(sg_host_get_name(hs_sim_host_of(w, r)), name) == 0;
    f->own_up[r] = f->own_down[r] = -1;
  }
  /* Splicing takes one route for every pair of ranks of two nodes (or of
   * one): under a PCIe tree a pair's route depends on their switches. */
  if (hs_links_pcie_tree(&w->sc->cluster)) f->splice = 0;
  /* nor where a GPU's link is one, shared both ways (net_transport.h):
   * splicing finds a rank's own link by its way up and down */
  for (int n = 0; n < f->nodes; n++)
    if (hs_net_gpu_link_staged(&w->sc->cluster, n)) f->splice = 0;
  /* every rank's own links, by name, in one pass over the platform's */
  sg_link_t *all = sg_link_list();
  for (size_t i = 0, nl = sg_link_count(); f->splice && i < nl; i++) {
    int r, end = 0;
    const char *name = sg_link_get_name(all[i]);
    if (sscanf(name, "gpu%d_link_%n", &r, &end) != 1 || end == 0 || r < 0 || r >= w->n) continue;
    if (strcmp(name + end, "UP") == 0) f->own_up[r] = link_id(f, all[i]);
    else if (strcmp(name + end, "DOWN") == 0) f->own_down[r] = link_id(f, all[i]);
  }
  free(all); /* xbt_malloc is malloc */
  return f;
}

/* A key's bucket in a table of cap (a power of 2) buckets. */
static size_t bucket_of(uint64_t h, size_t cap) {
  h ^= h >> 33, h *= 0xff51afd7ed558ccdULL, h ^= h >> 33;
  return (size_t)(h & (cap - 1));
}
static uint64_t sched_hash(int ctx, hs_op_kind kind, size_t send_count, size_t recv_count) {
  return (uint64_t)(unsigned)ctx * 0x9e3779b97f4a7c15ULL ^ (uint64_t)kind << 56 ^ (uint64_t)send_count * 31 ^
         (uint64_t)recv_count;
}
static uint64_t call_hash(int ctx, int seq) { return (uint64_t)(unsigned)ctx << 32 | (unsigned)seq; }

/* Doubles a table once it holds as many entries as buckets. */
static void sched_index_grow(sim_fast *f) {
  size_t cap = f->sched_cap ? 2 * f->sched_cap : 64;
  fast_sched **t = calloc(cap, sizeof *t);
  for (fast_sched *s = f->scheds; s; s = s->next) {
    size_t b = bucket_of(sched_hash(s->ctx, s->kind, s->send_count, s->recv_count), cap);
    s->hnext = t[b], t[b] = s;
  }
  free(f->sched_index);
  f->sched_index = t, f->sched_cap = cap;
}
static void call_index_grow(sim_fast *f) {
  size_t cap = f->call_cap ? 2 * f->call_cap : 64;
  fast_call **t = calloc(cap, sizeof *t);
  for (size_t i = 0; i < f->call_cap; i++)
    for (fast_call *k = f->call_index[i], *next; k; k = next) {
      next = k->next;
      size_t b = bucket_of(call_hash(k->ctx, k->seq), cap);
      k->next = t[b], t[b] = k;
    }
  free(f->call_index);
  f->call_index = t, f->call_cap = cap;
}

static fast_sched *sched_get(sim_world *w, hs_comm *c, const hs_op *o, const hs_exec *how) {
  hs_coll_algo algo = how->algo;
  sim_fast *f = w->fast;
  if (f->sched_cap)
    for (fast_sched *s = f->sched_index[bucket_of(sched_hash(c->ctx, o->kind, o->send.count, o->recv.count),
                                                  f->sched_cap)];
         s; s = s->hnext)
      if (s->ctx == c->ctx && s->kind == o->kind && s->send_count == o->send.count &&
          s->recv_count == o->recv.count && s->dtype == o->send.dtype && s->root == o->root && s->algo == algo &&
          s->how.proto == how->proto)
        return s;
  fast_sched *s = calloc(1, sizeof *s);
  s->ctx = c->ctx;
  s->kind = o->kind;
  s->send_count = o->send.count;
  s->recv_count = o->recv.count;
  s->dtype = o->send.dtype;
  s->root = o->root;
  s->algo = algo;
  s->how = *how;
  s->members = c->g.size;
  s->chain = -1;
  /* the node's switch, or the fabric's participant per rail */
  int node_sw = c->g.run_switch && c->g.switch_id >= 0, rails = c->g.run_switch && c->g.fabric_switch_id >= 0
                                                                   ? (w->gpus_per_node > 0 ? w->gpus_per_node : 1) : 0;
  /* the NVLS tree's: the switch of every node the members are on, in order of appearance */
  int gpn = w->gpus_per_node > 0 ? w->gpus_per_node : 1, node_sws = 0;
  int *sws = malloc((size_t)c->g.size * sizeof(int));
  if (algo == HS_COLL_NVLS_TREE && c->g.run_switch && c->g.node_switch_base > 0) {
    char *seen = calloc((size_t)w->n_switches + 1, 1);
    for (int i = 0; i < c->g.size; i++) {
      int node = c->g.members[i] / gpn;
      if (node < w->n_switches && !seen[node]) seen[node] = 1, sws[node_sws++] = c->g.node_switch_base + node;
    }
    free(seen);
  }
  s->n = s->members + node_sw + rails + node_sws;
  s->world_of = malloc((size_t)s->n * sizeof(int));
  memcpy(s->world_of, c->g.members, (size_t)s->members * sizeof(int));
  if (node_sw) s->world_of[s->members] = c->g.switch_id;
  for (int k = 0; k < rails; k++) s->world_of[s->members + node_sw + k] = c->g.fabric_switch_id + k;
  memcpy(s->world_of + s->members + node_sw + rails, sws, (size_t)node_sws * sizeof(int));
  free(sws);
  if (s->n > s->members) {
    s->ext_arrival = malloc((size_t)s->n * sizeof(double));
    s->ext_finish = malloc((size_t)s->n * sizeof(double));
  }
  s->index_of = malloc((size_t)(w->n + w->n_switches) * sizeof(int));
  for (int r = 0; r < w->n + w->n_switches; r++) s->index_of[r] = -1;
  for (int i = 0; i < s->n; i++) s->index_of[s->world_of[i]] = i;
  s->recs = calloc((size_t)s->n, sizeof *s->recs);
  s->n_recs = calloc((size_t)s->n, sizeof(int));
  s->cap_recs = calloc((size_t)s->n, sizeof(int));
  s->rings_seen = calloc((size_t)s->n, sizeof(int));
  s->trees_seen = calloc((size_t)s->n, sizeof(int));
  s->has = calloc((size_t)s->n, 1);
  s->sent = calloc((size_t)s->n, sizeof(double));
  s->next = f->scheds;
  f->scheds = s;
  if (++f->n_scheds > f->sched_cap) sched_index_grow(f); /* which files s too */
  else {
    size_t b = bucket_of(sched_hash(s->ctx, s->kind, s->send_count, s->recv_count), f->sched_cap);
    s->hnext = f->sched_index[b], f->sched_index[b] = s;
  }
  return s;
}

/* The switch's part of an in-switch collective (inswitch.c), recorded as
 * one more participant's when the member that starts it records. */
static void record_switch(const hs_lower_group *sw, const hs_switch_job *job) {
  const recorder *member = sw->ctx;
  recorder rc = {member->s, member->s->index_of[sw->members[sw->me]]};
  hs_lower_group g = *sw;
  g.ctx = &rc;
  hs_lower_switch_serve(&g, job);
}

static void record(hs_comm *c, const hs_op *o, fast_sched *s) {
  recorder rc = {s, c->g.me};
  hs_lower_group g = hs_sim_group_for(c, &s->how);
  g.exchange = record_exchange;
  g.ring = record_ring;
  g.tree = c->self->world->fast->tree_by_ticks ? NULL : record_tree;
  if (g.run_switch) g.run_switch = record_switch;
  g.post = NULL;
  g.complete = NULL;
  g.complete_any = NULL;
  g.ctx = &rc;
  /* The schedule only: the lowering's local copies and reductions must
   * not touch a call's data (settle computes it: hs_sim_fast_reduce). */
  hs_op timing_only = *o;
  timing_only.send.data = NULL;
  timing_only.recv.data = NULL;
  hs_lower_run(&g, &timing_only, s->algo);
  s->has[c->g.me] = 1;
}

/* numbers: the operation carries data (then a chain is timed whole: its
 * numbers are reduced once, at the last arrival). */
static fast_call *call_get(sim_fast *f, hs_comm *c, fast_sched *s, int numbers) {
  int seq = c->fast_seq++;
  if (f->call_cap)
    for (fast_call *k = f->call_index[bucket_of(call_hash(c->ctx, seq), f->call_cap)]; k; k = k->next)
      if (k->ctx == c->ctx && k->seq == seq) return k;
  fast_call *k = calloc(1, sizeof *k);
  k->ctx = c->ctx;
  k->seq = seq;
  k->n = c->g.size;
  k->sched = s;
  k->world_of = c->g.members;
  k->arrival = malloc((size_t)k->n * sizeof(double));
  k->finish = malloc((size_t)k->n * sizeof(double));
  k->token = malloc((size_t)k->n * sizeof(void *));
  if (s->chain == 1 && !f->chain_whole && !numbers)
    k->chain = hs_fast_chain_new(s->trees[0], s->how.cost.wire > 1 ? s->how.cost.wire : 1);
  if (++f->n_calls > f->call_cap) call_index_grow(f);
  size_t b = bucket_of(call_hash(k->ctx, k->seq), f->call_cap);
  k->next = f->call_index[b], f->call_index[b] = k;
  return k;
}

/* Whether the schedule's calls can release their members one by one: a
 * broadcast that is one pipelined chain (fast_chain.h) and nothing else,
 * known once it is compiled (its first call timed). */
static void chain_check(fast_sched *s) {
  s->chain = 0;
  if (s->kind != HS_OP_BROADCAST || s->n != s->members || s->n_trees != 1) return;
  for (int i = 0; i < s->n; i++)
    if (s->n_recs[i] != 1 || s->recs[i][0].tree != 0) return;
  const hs_fast_tree *t = s->trees[0];
  if (t->n != s->n) return;
  hs_fast_chain *c = hs_fast_chain_new(t, 1);
  if (!c) return;
  hs_fast_chain_free(c);
  /* participant -> position: every participant at exactly one */
  int *pos_of = malloc((size_t)s->n * sizeof(int));
  for (int i = 0; i < s->n; i++) pos_of[i] = -1;
  for (int pos = 0; pos < t->n; pos++) {
    int i = t->member[pos];
    if (i < 0 || i >= s->n || pos_of[i] >= 0) {
      free(pos_of);
      return;
    }
    pos_of[i] = pos;
  }
  s->chain_pos = pos_of;
  s->chain = 1;
}

/* Whether member i of call k was told its finish before the last arrival. */
static int told(const fast_call *k, int i) {
  const fast_sched *s = k->sched;
  return k->chain && s->trees[0]->role[s->chain_pos[i]].depth < k->told_upto;
}

/* Tells the members of chain call k whose part is known and who were not
 * told yet. Telling one may give its stream's next call an arrival, so
 * only settle calls this, one call at a time. */
static void tell_known(fast_call *k) {
  const fast_sched *s = k->sched;
  while (k->told_upto < k->known_upto) {
    int d = k->told_upto++;
    int i = s->trees[0]->member[hs_fast_chain_position(k->chain, d)];
    k->finish[i] = hs_fast_chain_finish(k->chain, d);
    hs_sim_fast_timed(k->token[i], k->arrival[i], k->finish[i]);
  }
}

/* Times the calls whose arrivals are all known. Timing one tells its
 * members, which may give the next call on their streams its arrivals:
 * a queue, not recursion, and one actor at a time drains it (telling a
 * member may yield to other actors, whose calls then wait in the queue). */
static void settle(sim_world *w, sim_fast *f) {
  if (f->settling) return;
  f->settling = 1;
  while (f->ready || f->telling) {
    if (f->telling) { /* an open chain's members whose part is known */
      fast_call *k = f->telling;
      f->telling = k->next_telling;
      k->telling = 0;
      tell_known(k);
      continue;
    }
    fast_call *k = f->ready;
    f->ready = k->next;
    if (!f->ready) f->ready_tail = &f->ready;
    fast_sched *s = k->sched;
    if (!s->compiled) compile(w, f, s);
    if (s->chain < 0) chain_check(s);
    timed(s, k->arrival, k->finish);
    w->fast_collectives++;
    /* A member told before the last arrived may have gone on and freed
     * its token; a chain carries no numbers (hs_sim_fast_join). */
    if (!k->chain) hs_sim_fast_reduce(k->token, k->n);
    for (int i = 0; i < k->n; i++)
      if (!told(k, i)) hs_sim_fast_timed(k->token[i], k->arrival[i], k->finish[i]);
    hs_fast_chain_free(k->chain);
    free(k->arrival);
    free(k->finish);
    free(k->token);
    free(k);
  }
  f->settling = 0;
}

/* Member me's arrival is known: once all are, the call moves from the open
 * calls to the ready queue; before, a chain's call goes to the queue of
 * calls with members to tell when its arrival makes someone's part known.
 * Returns whether there is something for settle to do. */
static int arrived(sim_fast *f, fast_call *k, int me, double arrival) {
  k->arrival[me] = arrival;
  if (++k->known < k->n) {
    if (!k->chain) return 0;
    const fast_sched *s = k->sched;
    k->known_upto = hs_fast_chain_start(k->chain, s->chain_pos[me], start_of(s, arrival));
    if (k->known_upto > k->told_upto && !k->telling) {
      k->telling = 1;
      k->next_telling = f->telling;
      f->telling = k;
    }
    return k->telling;
  }
  if (k->telling) { /* every finish is timed whole now: out of the telling queue */
    fast_call **t = &f->telling;
    while (*t != k) t = &(*t)->next_telling;
    *t = k->next_telling;
    k->telling = 0;
  }
  fast_call **p = &f->call_index[bucket_of(call_hash(k->ctx, k->seq), f->call_cap)];
  while (*p != k) p = &(*p)->next;
  *p = k->next;
  f->n_calls--;
  k->next = NULL;
  *f->ready_tail = k;
  f->ready_tail = &k->next;
  return 1;
}

fast_call *hs_sim_fast_join(hs_comm *c, const hs_op *o, const hs_exec *how, void *token, double arrival) {
  sim_world *w = c->self->world;
  if (!w->fast) w->fast = fast_create(w); /* the first collective a plan times */
  sim_fast *f = w->fast;
  fast_sched *s = sched_get(w, c, o, how);
  int me = c->g.me;
  if (!s->has[me]) record(c, o, s);
  c->self->w.bytes_sent += (uint64_t)s->sent[me];
  fast_call *k = call_get(f, c, s, o->send.data || o->recv.data);
  k->token[me] = token;
  if (isnan(arrival)) return k;
  if (arrived(f, k, me, arrival)) settle(w, f);
  return NULL;
}

void hs_sim_fast_arrive(sim_world *w, fast_call *k, int me, double arrival) {
  if (arrived(w->fast, k, me, arrival)) settle(w, w->fast);
}
