/* tuner.c — predicted times of hearsay's schedules, and the pick (tuner.h). */
#include "algos/comm/tuner.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/comm/dtree.h"
#include "algos/comm/lowering.h"
#include "scenarios/links.h"
#include "scenarios/net_transport.h"

static double dmin(double a, double b) { return a < b ? a : b; }
static double dmax(double a, double b) { return a > b ? a : b; }

/* The route's latency and its narrowest link. */
static void route(const hs_cluster_spec *c, int a, int b, double *lat, double *bw) {
  hs_hop hops[HS_ROUTE_MAX];
  int k = hs_links_route(c, a, b, hops);
  *lat = 0;
  *bw = INFINITY;
  for (int i = 0; i < k; i++) {
    *lat += hops[i].latency;
    *bw = dmin(*bw, hops[i].bandwidth);
  }
}

void hs_tuner_topo_of(const hs_scenario *sc, const int *members, int size, hs_tuner_topo *t) {
  const hs_cluster_spec *c = &sc->cluster;
  int gpn = c->gpus_per_node > 0 ? c->gpus_per_node : 1;
  memset(t, 0, sizeof *t);
  t->n = size;
  t->cpu_amd = c->cpu == HS_CPU_AMD;
  t->window = sc->sim.slices_in_flight;
  t->switch_slices = sc->sim.switch_slices;
  t->slice = sc->sim.slice;
  t->heads = c->nics_per_node;
  t->ring_bw = t->bw_intra = t->bw_inter = t->nic = t->nic_line = t->gpu_inter = t->reach = INFINITY;
  /* Nodes in communicator order: a new node starts where the node changes;
   * regular when no node comes back and every one holds as many. */
  int run = 0, regular = 1;
  for (int i = 0; i < size; i++) {
    int node = members[i] / gpn;
    if (i == 0 || node != members[i - 1] / gpn) {
      if (i > 0) {
        regular &= t->per_node == 0 || run == t->per_node;
        t->per_node = run > t->per_node ? run : t->per_node;
      }
      if (i > 0) regular &= node > members[i - 1] / gpn; /* nodes in increasing order: none comes back */
      t->nodes++;
      run = 0;
      hs_link_spec intra, inter;
      hs_links_of_node(c, node, &intra, &inter);
      t->nic = dmin(t->nic, inter.bandwidth);
      t->nic_line = dmin(t->nic_line, hs_links_nic_line_rate(c, node));
    }
    run++;
  }
  regular &= t->per_node == 0 || run == t->per_node;
  t->per_node = run > t->per_node ? run : t->per_node;
  t->regular = regular;
  if (t->nodes <= 1) t->nic = INFINITY;
  int channels = hs_channels_of(sc);
  for (int i = 0; i < size && t->nodes > 1; i++) { /* every node of the group once, where it starts */
    int node = members[i] / gpn;
    if (i > 0 && node == members[i - 1] / gpn) continue;
    t->reach = dmin(t->reach, hs_net_reach(c, node, channels, t->per_node));
    int other = members[i == 0 ? size - 1 : i - 1] / gpn;
    if (other != node) t->gpu_inter = dmin(t->gpu_inter, hs_net_flow_cap(c, node, other, channels, 1));
  }
  for (int j = 0; j < size && size > 1; j++) {
    int a = members[j], b = members[(j + 1) % size];
    double lat, bw;
    route(c, a, b, &lat, &bw);
    /* a hop across nodes is also its transport's flow (net_transport.h),
     * and a hop inside a node without peer access a staged one, which
     * this model sees as it sees the socket threads (NCCL's own search
     * rates the path through the CPU as its PCIe links) */
    bw = dmin(bw, hs_net_hop_cap(c, a, b, a / gpn, b / gpn, channels, hs_lower_node_members(members, size, j, gpn), 1));
    t->ring_bw = dmin(t->ring_bw, bw);
    if (a / gpn == b / gpn) {
      t->ring_intra++;
      t->ring_sum_intra += lat;
      t->ring_lat_intra = dmax(t->ring_lat_intra, lat);
      t->lat_intra = dmax(t->lat_intra, lat);
      t->bw_intra = dmin(t->bw_intra, bw);
    } else {
      t->ring_inter++;
      t->ring_sum_inter += lat;
      t->ring_lat_inter = dmax(t->ring_lat_inter, lat);
      t->lat_inter = dmax(t->lat_inter, lat);
      t->bw_inter = dmin(t->bw_inter, bw);
    }
  }
  t->gpu_inter = dmin(t->gpu_inter, t->bw_inter); /* one GPU's flow crosses a hop across too */
  t->nic_apart = hs_links_nic_apart(c);
  t->nvls = c->nvls && t->nodes == 1 && size > 1;
  t->nvls_nodes = c->nvls && t->nodes > 1;
  /* as the backend tells the lowering (sim/backend.c) */
  t->net_latency = hs_net_message_latency(c);
  t->rail_bandwidth = hs_net_rail_bandwidth(c);
  t->collnet = c->in_network_reduction && t->nodes > 1;
  t->site = hs_proto_site_of(sc, t->nodes, t->per_node == 1);
  if (t->ring_intra == 0) { /* one GPU per node: node 0's own links stand for a node */
    hs_link_spec intra, inter;
    hs_links_of_node(c, members[0] / gpn, &intra, &inter);
    t->lat_intra = intra.latency;
    t->bw_intra = intra.bandwidth;
  }
}

/* The latency of one hop with protocol costs pc. */
static double hop(const hs_tuner_topo *t, const hs_proto_cost *pc, int across) {
  return across ? t->lat_inter + pc->hop_net : t->lat_intra + pc->hop_intra;
}

/* Link time of one flow of `bytes` payload given `bw` bytes/s of its
 * links' share: the protocol's wire bytes, at most at its rate
 * (protocol.h; NCCL's channels' maxima). */
static double move(const hs_proto_cost *pc, double bytes, double bw) {
  return pc->wire * bytes / (pc->rate > 0 ? dmin(bw, pc->rate) : bw);
}

/* A ring of `steps` steps over the communicator's own ring, each moving
 * `chunk` bytes: lock-step pays the slowest hop every step. The pipelined
 * ring, over the mean hop (link latency a, protocol hop h), moves a step
 * in G windows: a window waits for the credit the one before returned
 * and pays a link latency (G a + beta a step), and a step's data waits
 * for the step before and its hop (a + h + beta / G), whichever is
 * slower (docs/fidelity.md). */
static double ring_time(const hs_tuner_topo *t, const hs_proto_cost *pc, double steps, double chunk) {
  double beta = move(pc, chunk, t->ring_bw);
  double slow = dmax(t->ring_intra ? t->ring_lat_intra + pc->hop_intra : 0,
                     t->ring_inter ? t->ring_lat_inter + pc->hop_net : 0);
  if (t->window <= 0) return steps * (slow + beta);
  double slice = t->slice > 0 ? t->slice : pc->slice;
  double W = hs_lower_ring_window(t->window, t->site.channels);
  double S = dmax(1, ceil(chunk / slice)), G = S > W ? ceil(S / W) : 1;
  double a = (t->ring_sum_intra + t->ring_sum_inter) / t->n;
  double h = (t->ring_intra * pc->hop_intra + t->ring_inter * pc->hop_net) / t->n;
  return steps * dmax(G * a + beta, a + h + beta / G);
}

/* A ring of m members over hops of latency lat and bandwidth bw (the
 * hierarchical schedule's node and rail rings), steps per member count. */
static double sub_ring(double m, double steps_per, double lat, double bw, const hs_proto_cost *pc, double bytes) {
  if (m <= 1) return 0;
  return steps_per * (m - 1) * (lat + move(pc, bytes / m, bw));
}

/* Whether members d apart exchange across nodes (doubling schedules). */
static int crosses(const hs_tuner_topo *t, int d) { return t->nodes > 1 && (!t->regular || d >= t->per_node); }

/* Bandwidth of a doubling round at distance d: across nodes, every member
 * of a node crosses at once and they share its NICs. */
static double round_bw(const hs_tuner_topo *t, int d) {
  return crosses(t, d) ? dmin(t->gpu_inter, t->nic / t->per_node) : t->bw_intra;
}

static double doubling(const hs_tuner_topo *t, const hs_proto_cost *pc, int halving, double M) {
  int p = 1;
  while (2 * p <= t->n) p *= 2;
  double s = 0;
  for (int d = p / 2; d >= 1; d /= 2) {
    double bytes = halving ? M * d / p : M;
    s += (halving ? 2 : 1) * (hop(t, pc, crosses(t, d)) + move(pc, bytes, round_bw(t, d)));
  }
  if (p != t->n) s += 2 * (hop(t, pc, crosses(t, 1)) + move(pc, M, round_bw(t, 1))); /* the fold, with a neighbour */
  return s;
}

/* Reduce-scatter by recursive halving or allgather by recursive doubling
 * (lowering.c): one half of the allreduce's rounds, plus, where n is not a
 * power of two, the fold's two rounds with a neighbour (the whole vector
 * one way, a block the other). Folding breaks the closed form: the core's
 * member v is rank 2v+1 for v below the r folded, so partners a round
 * apart may sit on different nodes, and those parts hold two blocks. On a
 * regular placement each round is therefore timed by its slowest pair
 * (its window's blocks over the pair's link, a node's crossing pairs
 * sharing its NICs): O(p log p). */
static double doubling_half(const hs_tuner_topo *t, const hs_proto_cost *pc, double M) {
  int n = t->n, p = 1, g = t->per_node > 0 ? t->per_node : 1;
  while (2 * p <= n) p *= 2;
  int r = n - p;
  double s = 0;
  if (r == 0 || !t->regular || t->nodes <= 1) {
    for (int d = p / 2; d >= 1; d /= 2) s += hop(t, pc, crosses(t, d)) + move(pc, M * d / p, round_bw(t, d));
    if (r > 0) s += 2 * hop(t, pc, crosses(t, 1)) + move(pc, M + M / n, round_bw(t, 1));
    return s;
  }
  int rounds = 0;
  for (int d = p / 2; d >= 1; d /= 2) rounds++;
  int *crossing = calloc((size_t)rounds * (size_t)t->nodes, sizeof(int));
#define REAL(v) ((v) < r ? 2 * (v) + 1 : (v) + r)
#define FIRST(v) ((v) < r ? 2 * (v) : (v) + r) /* the part's first block */
  for (int v = 0; v < p; v++) { /* a node's crossing pairs per round */
    int i = 0;
    for (int d = p / 2; d >= 1; d /= 2, i++)
      if (REAL(v) / g != REAL(v ^ d) / g) crossing[i * t->nodes + REAL(v) / g]++;
  }
  double *worst = calloc((size_t)rounds, sizeof(double)), block = M / n;
  for (int v = 0; v < p; v++) {
    int lo = 0, hi = p, i = 0;
    for (int d = p / 2; d >= 1; d /= 2, i++) {
      int mid = lo + (hi - lo) / 2, lower = (v & d) == 0, a = REAL(v), b = REAL(v ^ d);
      double bytes = lower ? (FIRST(hi) - FIRST(mid)) * block : (FIRST(mid) - FIRST(lo)) * block;
      int across = a / g != b / g;
      double bw = across ? dmin(t->bw_inter, t->nic / crossing[i * t->nodes + a / g]) : t->bw_intra;
      worst[i] = dmax(worst[i], hop(t, pc, across) + move(pc, bytes, bw));
      if (lower) hi = mid;
      else lo = mid;
    }
  }
  for (int i = 0; i < rounds; i++) s += worst[i];
  double fold = 0;
  for (int v = 0; v < r; v++) {
    int across = (2 * v) / g != (2 * v + 1) / g;
    fold = dmax(fold, 2 * hop(t, pc, across) + move(pc, M + block, across ? dmin(t->gpu_inter, t->nic) : t->bw_intra));
  }
#undef REAL
#undef FIRST
  free(crossing);
  free(worst);
  return s + fold;
}

/* The pipelined trees (lowering.c), tick by tick. Each node has a chain
 * of g members; its head sends to its parent node's head and to its
 * children nodes' heads, and each tree runs once from each of a node's
 * heads, the chain rotated (member q sits k g / heads places on in head
 * k's chain). A member at depth d sends slice k up at tick
 * k + H - d and down at k + D + d (D = H after the way up, else 0), every
 * edge busy for the S ticks [off, off + S). A tick costs the slowest
 * message moving then (lock-step: on one-GPU nodes and on one node each
 * tick's slowest edge lies on fast's critical path, so the sum is fast's;
 * elsewhere it may only over-count, where the two trees cross nodes in
 * different ticks: 2-9% at 4 MiB on 2-128 nodes of 8, the most on 2), and
 * a message moves at its links' share: a GPU's link in each direction and
 * its node's NIC, split among the flows busy on them; on PCIe nodes flows
 * across nodes (bound by the NIC) cross the GPU's link too and leave the
 * rest of it to the chain's (max-min), on NVLink nodes they leave through
 * PCIe and the chain has the link (links.h). The first and last ticks are why the simple closed form
 * fill + (S - 1) x steady under-counted: in fill a parent hears its two
 * children at once (half a NIC each) and both trees use one node's chain
 * in the same ticks. Nodes with the same depths, children and parents in
 * every tree have the same links' loads: each such class is counted once,
 * O(nodes log nodes + ticks' windows x classes x g). */
typedef struct {
  int depth[2], kids[2], parent[2];
} node_class;

static int by_class(const void *a, const void *b) { return memcmp(a, b, sizeof(node_class)); }

/* Flows busy on one GPU's links and its node's NIC in a window of offsets. */
typedef struct {
  int out_intra, out_inter, in_intra, in_inter;
} link_load;

typedef struct {
  const hs_tuner_topo *t;
  const hs_proto_cost *pc;
  const hs_proto_cost *pc_net; /* the same for flows between nodes (their own bound: lowering.h, net_rate) */
  int trees, up, down, g, H[2];
  int pooled;      /* an allreduce: a GPU's bound flows share its budget (algos/comm/tree_pipe.c, tree_budget) */
  int heads;       /* each tree runs once from each of a node's heads, its chain rotated (lowering.c) */
  double b;        /* one slice's bytes */
  link_load *load; /* scratch: a node's g members' loads (slowest_of) */
  const node_class *cls; /* the node classes, and pooled: each member's loads over the whole run, [class * g + q] */
  link_load *steady;
} tree_run_shape;

/* The share of `total` each of n_free flows gets beside n_bound flows held
 * to `bound` elsewhere (max-min on one link); *bound_share: theirs. */
static double share_beside(double total, int n_bound, double bound, int n_free, double *bound_share) {
  int n = n_bound + n_free;
  if (n == 0) return *bound_share = total, total;
  double equal = total / n;
  if (n_bound == 0 || bound >= equal) return *bound_share = equal, equal;
  *bound_share = bound;
  return n_free ? (total - n_bound * bound) / n_free : total;
}

static int busy(int off, int lo, int hi) { return off >= lo && off <= hi; }

/* Member q of a class-c node: its flows busy in [lo, hi]. */
static link_load load_of(const tree_run_shape *r, const node_class *c, int q, int lo, int hi) {
  link_load l = {0, 0, 0, 0};
  for (int run = 0; run < r->heads * r->trees; run++) {
    int k = run / r->trees, w = run % r->trees;
    int p = (q - k * r->g / r->heads + r->g) % r->g; /* q's place in head k's chain */
    int H = r->H[w], D = r->up && r->down ? H : 0, d = c->depth[w] + p, head = p == 0;
    int has_up = p > 0 || c->parent[w], chain_down = p < r->g - 1, kids = head ? c->kids[w] : 0;
    if (r->up) {
      if (has_up && busy(H - d, lo, hi)) head ? l.out_inter++ : l.out_intra++;
      if (busy(H - d - 1, lo, hi)) l.in_intra += chain_down, l.in_inter += kids;
    }
    if (r->down) {
      if (busy(D + d, lo, hi)) l.out_intra += chain_down, l.out_inter += kids;
      if (has_up && busy(D + d - 1, lo, hi)) head ? l.in_inter++ : l.in_intra++;
    }
  }
  return l;
}

/* The slowest message of a class-c node's members busy in [lo, hi], seen
 * from its own end (the sender's side for what it sends, the receiver's
 * for what it receives): the slowest over every class is the tick's. */
static double slowest_of(const tree_run_shape *r, const node_class *c, int lo, int hi, double *moves,
                         double worst_kind[2]) {
  const hs_tuner_topo *t = r->t;
  double worst = 0;
  /* the node's NICs are shared by every member's flows across nodes */
  int node_x[2] = {0, 0};
  for (int q = 0; q < r->g; q++) {
    r->load[q] = load_of(r, c, q, lo, hi);
    node_x[0] += r->load[q].out_inter, node_x[1] += r->load[q].in_inter;
  }
  for (int q = 0; q < r->g; q++) {
    link_load l = r->load[q], all = r->pooled ? r->steady[(c - r->cls) * r->g + q] : l;
    int dir_intra[2] = {l.out_intra, l.in_intra}, dir_inter[2] = {l.out_inter, l.in_inter};
    int all_intra[2] = {all.out_intra, all.in_intra}, all_inter[2] = {all.out_inter, all.in_inter};
    for (int dir = 0; dir < 2; dir++) {
      int ni = dir_intra[dir], nx = dir_inter[dir];
      double nic = nx ? dmin(t->bw_inter, t->nic / node_x[dir]) : 0, across = 0;
      double inside;
      if (t->nic_apart) { /* the chain has the GPU's link, the flows across nodes their NIC share */
        inside = t->bw_intra / (ni ? ni : 1);
        across = nic;
      } else {
        inside = share_beside(t->bw_intra, nx, nic, ni, &across);
      }
      /* a bound shared as a budget: the steady state's flows' worth among
       * those in the window */
      hs_proto_cost in = *r->pc, net = *r->pc_net;
      if (r->pooled && ni && in.rate > 0) in.rate *= (double)all_intra[dir] / ni;
      if (r->pooled && nx && net.rate > 0) net.rate *= (double)all_inter[dir] / nx;
      if (ni) {
        worst_kind[0] = dmax(worst_kind[0], hop(t, r->pc, 0) + move(&in, r->b, inside));
        worst = dmax(worst, worst_kind[0]);
        *moves = dmax(*moves, move(&in, r->b, inside));
      }
      if (nx) {
        worst_kind[1] = dmax(worst_kind[1], hop(t, r->pc, 1) + move(&net, r->b, dmin(nic, across)));
        worst = dmax(worst, worst_kind[1]);
        *moves = dmax(*moves, move(&net, r->b, dmin(nic, across)));
      }
    }
  }
  return worst;
}

/* trees: 2 for the allreduce's double binary tree (half the vector each,
 * split again over the heads), 1 for a broadcast's or reduce's tree 0 (all
 * of it); mode: which ways. */
static double tree_ticks(const hs_tuner_topo *t, const hs_proto_cost *pc, double M, int trees, hs_tree_mode mode) {
  int N = t->nodes > 0 ? t->nodes : 1, g = t->per_node > 0 ? t->per_node : 1;
  /* an allreduce's trees run from each of a node's heads (lowering.h) */
  int heads = trees == 2 ? hs_lower_tree_heads(t->heads, g, N) : 1;
  double slice = t->slice > 0 ? t->slice : pc->slice, part = M / (trees * heads);
  if (pc->tree_shrink && trees >= 2 && !(t->slice > 0))
    slice = (double)hs_lower_tree_chunk((size_t)slice, M, trees * heads, N, t->n);
  double S = (double)hs_lower_tree_slices(part, (size_t)slice, t->n);
  /* the allreduce's runs share NCCL's tree maximum, as the lowering's do:
   * its flows between nodes, or all of them on one node */
  hs_proto_cost shared = *pc, net = *pc;
  if (trees == 2 && N > 1) net.rate = hs_lower_tree_flow_rate(pc->rate, pc->tree_bus, trees * heads);
  else if (trees == 2) shared.rate = net.rate = hs_lower_tree_flow_rate(pc->rate, pc->tree_bus, trees * heads);
  pc = &shared;
  tree_run_shape r = {t,     pc,       &net, trees, (mode & HS_TREE_UP) != 0, (mode & HS_TREE_DOWN) != 0, g, {0, 0},
                      trees == 2, heads, part / S, malloc((size_t)g * sizeof(link_load)), NULL, NULL};
  node_class *cls = malloc((size_t)N * sizeof *cls);
  int *depth = malloc((size_t)N * sizeof(int));
  memset(cls, 0, (size_t)N * sizeof *cls);
  for (int w = 0; w < trees; w++) {
    hs_dtree_depths(N, w, depth);
    for (int k = 0; k < N; k++) {
      int up, d0, d1;
      hs_dtree(N, k, w, &up, &d0, &d1);
      cls[k].depth[w] = depth[k];
      cls[k].kids[w] = (d0 >= 0) + (d1 >= 0);
      cls[k].parent[w] = up >= 0;
      r.H[w] = depth[k] + r.g - 1 > r.H[w] ? depth[k] + r.g - 1 : r.H[w];
    }
  }
  free(depth);
  qsort(cls, (size_t)N, sizeof *cls, by_class);
  int classes = 0;
  for (int k = 0; k < N; k++)
    if (classes == 0 || memcmp(&cls[classes - 1], &cls[k], sizeof *cls)) cls[classes++] = cls[k];
  /* a budget's share counts a member's bounded flows over the whole run:
   * once per class and member, not per window */
  r.cls = cls;
  r.steady = r.pooled ? malloc((size_t)classes * (size_t)g * sizeof *r.steady) : NULL;
  for (int c = 0; r.pooled && c < classes; c++)
    for (int q = 0; q < g; q++) r.steady[c * g + q] = load_of(&r, &cls[c], q, INT_MIN / 2, INT_MAX / 2);
  int span = 0; /* the last offset any edge starts at, plus one */
  for (int w = 0; w < trees; w++) span = dmax(span, (r.up && r.down ? 2 : 1) * r.H[w]);
  /* Pipelined (a window of slices in flight, forwarding on arrival:
   * tree_pipe.h), the first slice crosses the deepest tree hop after hop,
   * each hop at the cost of its kind among the messages then on the wire
   * (up: its node's chain inside, then the node trees across; down the
   * other way round), and each later one costs the busiest link's time
   * for it, or a window's round trip shared by the window's slices where
   * the credits pace it (the ticks after the first slice's `span`).
   * Lock-step (no window), every tick costs its slowest message. */
  int deep = 0;
  for (int w = 1; w < trees; w++) deep = r.H[w] > r.H[deep] ? w : deep;
  int H = r.H[deep], chain = r.g - 1, across = H - chain;
  double total = 0, cost = 0, moves = 0, kind[2] = {0, 0};
  int last_lo = -1, last_hi = -1, W = t->window;
  for (double x = 0; x < S + span - 1; x++) {
    int lo = (int)dmax(0, x - S + 1), hi = (int)dmin(x, span);
    if (lo != last_lo || hi != last_hi) {
      cost = moves = kind[0] = kind[1] = 0;
      for (int c = 0; c < classes; c++) cost = dmax(cost, slowest_of(&r, &cls[c], lo, hi, &moves, kind));
      last_lo = lo, last_hi = hi;
    }
    if (W > 0 && x < span) { /* the first slice's hop at offset x: inside (0) or across (1) */
      int y = (int)x, up_way = r.up && (!r.down || y < H);
      int k = up_way ? y >= chain : (r.up ? y - H : y) < across;
      total += kind[k] > 0 ? kind[k] : cost;
      continue;
    }
    total += W > 0 && x >= span ? dmax(moves, cost / W) : cost;
  }
  free(cls);
  free(r.load);
  free(r.steady);
  return total;
}

/* The in-switch collectives (inswitch.c): U units of slice x switch_slices bytes
 * over the busier direction (M in all: the allreduce's vector, the
 * scatter's every block up, the gather's every block down), U + 1 lock-
 * step ticks, each one GPU link's latency (half a GPU-to-GPU route: the
 * switch sits between the two links) and one unit over a GPU link, up and
 * down at once on its two directions: the allreduce's unit both ways; the
 * scatter's unit up and a block's part of it down (the gather's the other
 * way round), so its first tick (last) moves only that part. A unit is a
 * part of each of `blocks` blocks: never more units than a block has bytes.
 * -1 where no switch reduces, or for a protocol other than Simple (NVLS
 * carries Simple only; none: the links alone). */
static double in_switch(const hs_tuner_topo *t, const hs_proto_cost *pc, int p, double M, double blocks) {
  if (!t->nvls || (p != HS_PROTO_SIMPLE && p != HS_PROTO_NONE)) return -1;
  double unit = (t->slice > 0 ? t->slice : pc->slice) * (t->switch_slices > 0 ? t->switch_slices : 1);
  double U = (double)hs_lower_switch_units(M, (size_t)unit, (size_t)dmax(1, M / blocks), t->n);
  /* the busier direction at every tick but the last (or the first): a
   * unit; there, one block's part of it */
  return (U + 1) * (t->lat_intra / 2 + pc->hop_intra) + move(pc, M + M / U / blocks, t->bw_intra);
}

/* The allreduce with the fabric reducing across nodes. On one-member
 * nodes (inswitch.c): every member's vector through the fabric's switch,
 * U units in U + 1 ticks, each half a route across nodes (the switch sits
 * at its middle) and a unit over the NIC. On regular nodes of several,
 * NCCL's CollNet chain (collnet_chain.c): U units in U + 2(g - 1) + 1
 * lock-step ticks. The U + 1 with the fabric busy are each the slower of a
 * member's chain traffic (2(g - 1) of a unit's g parts out over its GPU's
 * link, one way each) and its rail's (a part to or from the fabric, half
 * a route, at the fabric's share of the NIC: switch_wire); the 2(g - 1)
 * that fill and drain the chains move one way only, a part more each
 * tick: a quarter of a full tick's bytes on average. Irregular placements: the hierarchical schedule (leaders). */
static double in_network(const hs_tuner_topo *t, const hs_proto_cost *pc, double M) {
  double g = t->per_node, Mr = M / g, rail_bw = dmin(t->gpu_inter, t->nic / g);
  hs_proto_cost by_switch = *pc;
  by_switch.wire = pc->switch_wire > 0 ? pc->switch_wire : pc->wire;
  if (g >= 2) {
    size_t unit = hs_lower_nvls_tree_unit(t->slice > 0 ? t->slice : pc->slice, t->switch_slices, t->window,
                                          t->site.channels, t->heads);
    double U = (double)hs_lower_collnet_chain_units(M, (size_t)dmax(1, Mr), (int)g, t->n + (int)g, unit,
                                                    t->rail_bandwidth, t->net_latency);
    double lat = t->lat_intra + pc->hop_intra, moved = move(pc, 2 * (g - 1) / g * M / U, t->bw_intra);
    double rail = t->lat_inter / 2 + pc->hop_net + move(&by_switch, Mr / U, rail_bw);
    /* the U + 1 ticks with the fabric busy; the 2(g - 1) that fill the
     * chains and drain them move from one part to g - 1 one way: half */
    return (U + 1) * dmax(lat + moved, rail) + 2 * (g - 1) * (lat + moved / 4);
  }
  double unit = (t->slice > 0 ? t->slice : pc->slice) * (t->switch_slices > 0 ? t->switch_slices : 1);
  double U = (double)hs_lower_switch_units(Mr, (size_t)unit, (size_t)dmax(1, Mr), t->nodes);
  return (U + 1) * (t->lat_inter / 2 + pc->hop_net + move(&by_switch, Mr / U, rail_bw));
}

/* NCCL's NVLS tree (nvls_tree.c): U units in U + 2H + 3 lock-step ticks
 * (H: the taller of the two trees over the nodes), each the slower of a
 * GPU's switch traffic (a unit up and its own block's part of the sum
 * coming back, each way, at the switch's wire; on PCIe nodes beside its
 * rail's flows on the GPU's link, which NVLink nodes send through PCIe)
 * and its rail's: the busiest tree rank sends a part of
 * its block each way a tick on 2 nodes (the root of one tree, the leaf of
 * the other), two where it is inner in one; the first two ticks and the last
 * two have no rail traffic. Regular placements only, Simple only (NVLS
 * carries Simple only). */
static double nvls_tree(const hs_tuner_topo *t, const hs_proto_cost *pc, int p, double M) {
  if (!t->nvls_nodes || !t->regular || (p != HS_PROTO_SIMPLE && p != HS_PROTO_NONE)) return -1;
  double g = t->per_node, rail_bw = dmin(t->gpu_inter, t->nic / g);
  size_t unit = hs_lower_nvls_tree_unit(t->slice > 0 ? t->slice : pc->slice, t->switch_slices, t->window,
                                        t->site.channels, t->heads);
  double parts = hs_lower_nvls_tree_parts(t->nodes);
  double U = (double)hs_lower_nvls_tree_units(M, unit, (size_t)dmax(1, M / g), t->n + t->nodes, t->nodes,
                                              t->rail_bandwidth * g / parts, t->net_latency);
  int H = hs_lower_nvls_tree_height(t->nodes);
  hs_proto_cost by_switch = *pc;
  by_switch.wire = pc->switch_wire > 0 ? pc->switch_wire : pc->wire;
  double room = t->nic_apart ? t->bw_intra : dmax(t->bw_intra - rail_bw, t->bw_intra / 2);
  double sw = t->lat_intra / 2 + move(&by_switch, M / U * (1 + 1 / g), room);
  double net = t->lat_inter + pc->hop_net + move(pc, parts * M / U / g, rail_bw);
  /* the first two ticks and the last two move through the switch alone */
  return (U + 2 * H - 1) * dmax(sw, net) + 4 * sw;
}

static double binomial(const hs_tuner_topo *t, const hs_proto_cost *pc, double M) {
  double s = 0;
  for (int d = 1; d < t->n; d *= 2)
    s += hop(t, pc, crosses(t, d)) + move(pc, M, crosses(t, d) ? t->gpu_inter : t->bw_intra); /* one GPU's flow */
  return s;
}

/* NCCL's broadcast and reduce: a chain through the n members from the
 * root (lowering.c, chain_run), nodes - 1 of its hops across nodes, the
 * vector in S slices. Lock-step, S + n - 2 ticks each paying the slowest
 * hop; forwarding on arrival, the first slice crosses every hop and each
 * later one costs the narrowest hop's move for it, or a window's round
 * trip shared by the window's slices where the credits pace it (as the
 * trees, tree_ticks). */
static double chain_time(const hs_tuner_topo *t, const hs_proto_cost *pc, double M) {
  double slice = t->slice > 0 ? t->slice : pc->slice;
  double S = (double)hs_lower_tree_slices(M, (size_t)slice, t->n), b = M / S;
  int across = t->nodes > 1 ? t->nodes - 1 : 0, inside = t->n - 1 - across;
  double m_in = move(pc, b, t->bw_intra), m_x = move(pc, b, t->ring_bw);
  double h_in = t->ring_lat_intra + pc->hop_intra, h_x = t->ring_lat_inter + pc->hop_net;
  double cost = dmax(inside ? h_in + m_in : 0, across ? h_x + m_x : 0);
  double moves = dmax(inside ? m_in : 0, across ? m_x : 0);
  if (t->window <= 0) return (S + t->n - 2) * cost;
  return inside * (h_in + m_in) + across * (h_x + m_x) + (S - 1) * dmax(moves, cost / t->window);
}

double hs_tuner_predict(const hs_tuner_topo *t, hs_op_kind k, hs_coll_algo a, int p, double M) {
  if (t->n <= 1) return 0;
  if (k == HS_OP_P2P) {
    /* nccl-tests' sendrecv: every member sends M to the next one at once,
     * one flow each, in one group: its protocol's launch, then the slowest
     * flow, inside a node or one GPU's across nodes, with its hop and its
     * wire bytes (select.h, hs_plan_p2p_cost) */
    hs_proto_cost pc = hs_proto_cost_of(p, HS_PROTO_FOR_RING, &t->site);
    double wire = pc.wire > 1 ? pc.wire : 1;
    double inside = t->per_node > 1 ? pc.hop_intra + t->lat_intra + M * wire / t->bw_intra : 0;
    double across = t->nodes > 1 ? pc.hop_net + t->lat_inter + M * wire / t->gpu_inter : 0;
    return pc.launch + dmax(inside, across);
  }
  if (!(hs_tuner_algos_for(k) & (1u << a))) return -1;
  hs_proto_cost pc = hs_proto_cost_of(p, hs_proto_family_of(a), &t->site);
  double n = t->n, g = t->per_node, N = t->nodes;
  int hier = t->regular && t->nodes > 1 && t->nodes < t->n;
  if (a == HS_COLL_HIERARCHICAL && !hier) return -1; /* it would run the flat ring: not a choice of its own */
  double rail_bw = dmin(t->gpu_inter, t->nic / g);
  double s = -1;
  switch (k) {
  case HS_OP_ALLREDUCE:
    if (a == HS_COLL_RING) s = ring_time(t, &pc, 2 * (n - 1), M / n);
    else if (a == HS_COLL_TREE) s = tree_ticks(t, &pc, M, 2, HS_TREE_BOTH);
    else if (a == HS_COLL_NVLS) s = in_switch(t, &pc, p, M, 1);
    else if (a == HS_COLL_NVLS_TREE) s = nvls_tree(t, &pc, p, M);
    else if (a == HS_COLL_COLLNET)
      s = t->collnet && t->regular && (p == HS_PROTO_SIMPLE || p == HS_PROTO_NONE) ? in_network(t, &pc, M) : -1;
    else if (a == HS_COLL_HIERARCHICAL)
      s = 2 * sub_ring(g, 1, hop(t, &pc, 0), t->bw_intra, &pc, M) +
          sub_ring(N, 2, hop(t, &pc, 1), rail_bw, &pc, M / g);
    else s = doubling(t, &pc, a == HS_COLL_HALVING_DOUBLING, M);
    break;
  case HS_OP_REDUCE_SCATTER:
  case HS_OP_ALLGATHER:
    if (a == HS_COLL_NVLS) s = in_switch(t, &pc, p, M, n);
    else s = a == HS_COLL_HALVING_DOUBLING ? doubling_half(t, &pc, M) : ring_time(t, &pc, n - 1, M / n);
    break;
  case HS_OP_BROADCAST:
  case HS_OP_REDUCE:
    if (a == HS_COLL_TREE) {
      s = tree_ticks(t, &pc, M, 1, k == HS_OP_BROADCAST ? HS_TREE_DOWN : HS_TREE_UP);
    } else if (a == HS_COLL_RECURSIVE_DOUBLING) {
      s = binomial(t, &pc, M); /* the whole vector a round, ceil(log2 n) rounds */
    } else if (a == HS_COLL_HIERARCHICAL) {
      hs_tuner_topo across = *t, inside = *t;
      across.n = t->nodes, across.regular = 0;  /* leaders: one per node, every hop across */
      inside.n = t->per_node, inside.nodes = 1; /* a node's tree */
      s = binomial(&across, &pc, M) + binomial(&inside, &pc, M);
    } else {
      s = chain_time(t, &pc, M);
    }
    break;
  case HS_OP_ALLTOALL:
    /* n - 1 flows of M / n at once, sharing the GPU's link (and its node's NICs) */
    s = hop(t, &pc, t->nodes > 1) + move(&pc, M / n, dmin(t->bw_intra, t->nodes > 1 ? t->nic / g : INFINITY) / (n - 1));
    break;
  case HS_OP_BARRIER:
    s = 0;
    for (int d = 1; d < t->n; d *= 2) s += hop(t, &pc, crosses(t, d));
    break;
  default: return -1;
  }
  return s < 0 ? -1 : s + pc.launch;
}

unsigned hs_tuner_algos_for(hs_op_kind k) {
  unsigned ring = 1u << HS_COLL_RING, hier = 1u << HS_COLL_HIERARCHICAL;
  if (k == HS_OP_ALLREDUCE)
    return ring | hier | 1u << HS_COLL_HALVING_DOUBLING | 1u << HS_COLL_RECURSIVE_DOUBLING | 1u << HS_COLL_TREE |
           1u << HS_COLL_NVLS | 1u << HS_COLL_COLLNET | 1u << HS_COLL_NVLS_TREE;
  if (k == HS_OP_BROADCAST || k == HS_OP_REDUCE)
    return ring | hier | 1u << HS_COLL_TREE | 1u << HS_COLL_RECURSIVE_DOUBLING;
  if (k == HS_OP_REDUCE_SCATTER || k == HS_OP_ALLGATHER) return ring | 1u << HS_COLL_HALVING_DOUBLING | 1u << HS_COLL_NVLS;
  return ring;
}

double hs_tuner_pick(const hs_tuner_topo *t, hs_op_kind k, double bytes, unsigned algos, unsigned protos,
                     hs_coll_algo *a, int *p) {
  double best = -1;
  *a = HS_COLL_RING;
  *p = HS_PROTO_SIMPLE;
  for (int x = 0; x < HS_COLL_ALGOS; x++) {
    if (!(algos & (1u << x))) continue;
    for (int y = 0; y <= HS_PROTOS; y++) {
      if (!(protos & (1u << y))) continue;
      double s = hs_tuner_predict(t, k, (hs_coll_algo)x, y, bytes);
      if (s >= 0 && (best < 0 || s < best)) {
        best = s;
        *a = (hs_coll_algo)x;
        *p = y;
      }
    }
  }
  return best;
}
