/* nvls_tree.c — NCCL's NVLS tree allreduce (sim.collectives "nvls_tree").
 *
 * Across nodes whose NVSwitches reduce (cluster.nvls), NCCL's NVLS tree
 * (2.30.7, src/device/all_reduce.h, NVLS_TREE) reduces each chunk in the
 * node's switch (multimem loads), runs a double binary tree across the
 * nodes on the node's sum, and multicasts the tree's result back through
 * the switch (multimem stores), all three pipelined into each other by
 * chunk: a chunk is in the switch while the one before it is in the tree
 * and an older one comes back. What bounds it is the slowest of the
 * three, not their sum: on 2 B200 nodes it measured 720 GB/s busbw, about
 * twice the ring (docs/validation.md).
 *
 * Lowered here with the switches as participants (as inswitch.c), on the
 * group's members plus every node's switch, in lock-step ticks. The
 * vector is cut into k blocks (k members a node: member i owns block i,
 * the block its NIC carries, as a rail) and every block into U units.
 * At tick x a member
 *  - sends up to its switch part x of every block (the scatter) and
 *    receives its own block's node sum of part x - 1;
 *  - runs the two trees of its rail (dtree.h, half of the part each)
 *    on the parts it holds: a node at depth d of a tree of height H sends
 *    part p up at tick p + 2 + H - d and down at p + 2 + H + d, so every
 *    node has part p's sum after tick p + 1 + 2H;
 *  - sends its own block's part x - lag (lag = 2H + 2) up again and
 *    receives every block's part x - lag - 1 (the gather).
 * The switch, at tick x, receives what its node's members send, reduces
 * the scatter in member order and sends each member its block's part the
 * tick after, and gathers the parts going up into the packed unit it
 * sends down the tick after. U + 2H + 3 ticks in all. Per member and
 * direction a unit crosses the NVLink twice and the NIC once a tree
 * level; with both at once each tick costs the slower of them. Every
 * member ends with the root's bits: the trees' down pass copies. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/comm/dtree.h"
#include "algos/comm/lowering.h"
#include "algos/comm/rails.h"
#include "kernels/kernels.h"

double hs_lower_nvls_tree_parts(int nodes) {
  int busiest = 0;
  for (int a = 0; a < nodes; a++) {
    int halves = 0, up, d0, d1;
    for (int w = 0; w < 2; w++) {
      hs_dtree(nodes, a, w, &up, &d0, &d1);
      halves += (up >= 0) + (d0 >= 0) + (d1 >= 0);
    }
    busiest = halves > busiest ? halves : busiest;
  }
  return busiest / 2.0;
}

int hs_lower_nvls_tree_height(int nodes) {
  int *depth = malloc((size_t)nodes * sizeof(int)), h = 0;
  for (int w = 0; w < 2; w++) {
    hs_dtree_depths(nodes, w, depth);
    for (int a = 0; a < nodes; a++) h = depth[a] > h ? depth[a] : h;
  }
  free(depth);
  return h;
}

/* Unit x of every block, packed block after block. */
typedef struct {
  size_t count, units, es;
  int k;
} blocks;

static void part_of(const blocks *B, int b, size_t x, size_t *off, size_t *cnt) {
  hs_rails_part(B->count, B->k, B->units, b, x, off, cnt);
}

/* Bytes of unit x packed, and where block b's part starts in it. */
static size_t packed_bytes(const blocks *B, size_t x) {
  size_t all = 0, off, cnt;
  for (int b = 0; b < B->k; b++) part_of(B, b, x, &off, &cnt), all += cnt;
  return all * B->es;
}

static size_t packed_at(const blocks *B, size_t x, int b) {
  size_t at = 0, off, cnt;
  for (int c = 0; c < b; c++) part_of(B, c, x, &off, &cnt), at += cnt;
  return at * B->es;
}

/* Copies unit x between the vector and its packed form (to_pack: into it). */
static void pack(const blocks *B, size_t x, char *vec, char *packed, int to_pack) {
  size_t at = 0, off, cnt;
  for (int b = 0; b < B->k; b++) {
    part_of(B, b, x, &off, &cnt);
    if (to_pack) memcpy(packed + at, vec + off * B->es, cnt * B->es);
    else memcpy(vec + off * B->es, packed + at, cnt * B->es);
    at += cnt * B->es;
  }
}

static int valid(long p, size_t units) { return p >= 0 && (size_t)p < units; }

/* A unit where the group does not know the network's latency and rate
 * (hs_lower_nvls_tree_units): the in-switch schedule's (a round of NVLS
 * chunks, times sim.switch_slices) for every slot a connection holds in
 * flight (sim.slices_in_flight, NCCL_STEPS) on every channel a NIC
 * carries (channels / NICs), what NCCL has in flight. Lock-step ticks pay
 * a hop's latency each, where NCCL's connections pay it once for all the
 * steps they hold in flight; across nodes that latency is as long as one
 * NVLS round's move on a NIC (5 us against 5.5 on NDR). */
size_t hs_lower_nvls_tree_unit(double slice, int switch_slices, int window, int channels, int nics) {
  int heads = nics > 0 ? nics : 1, per_nic = channels > heads ? channels / heads : 1;
  return (size_t)((slice > 0 ? slice : 1) * (switch_slices > 0 ? switch_slices : 1) * (window > 0 ? window : 1) * per_nic);
}

size_t hs_lower_nvls_tree_units(double bytes, size_t unit, size_t count, int participants, int nodes, double rate,
                                double latency) {
  return hs_lower_pipeline_units(bytes, unit, count, participants, 2.0 * hs_lower_nvls_tree_height(nodes) + 3, rate,
                                 latency);
}

int hs_lower_nvls_tree_allreduce(hs_lower_group *g, hs_buf buf, hs_redop op, int avg_over) {
  int n = g->size;
  hs_rails L;
  if (g->node_switch_base <= 0 || !g->run_switch || n < 2 || !hs_rails_build(g, n, &L)) return 0;
  int N = L.nodes, k = L.k, a = 0, i = 0;
  for (int j = 0; j < n; j++)
    if (L.member_of[j] == g->me) a = j / k, i = j % k;
  size_t es = hs_dtype_size(buf.dtype), smallest = buf.count / (size_t)k;
  size_t unit = hs_lower_nvls_tree_unit((double)g->slice, g->switch_slices, g->window, g->channels, g->tree_heads);
  /* a tick moves each rail's part of a unit, once a tree edge each way (hs_lower_nvls_tree_parts) */
  double rate = g->rail_bandwidth * k / hs_lower_nvls_tree_parts(N);
  blocks B = {buf.count,
              hs_lower_nvls_tree_units((double)buf.count * (double)es, unit, smallest ? smallest : 1, n + N, N,
                                       rate, g->net_latency),
              es, k};
  int H = hs_lower_nvls_tree_height(N), lag = 2 * H + 2, up[2], down[2][2], depth[2];
  for (int w = 0; w < 2; w++) {
    hs_dtree(N, a, w, &up[w], &down[w][0], &down[w][1]);
    depth[w] = hs_dtree_depth(N, a, w);
  }
  /* the group with the switches: members first, then node a's switch as n + a */
  int *members = malloc(((size_t)n + (size_t)N) * sizeof(int));
  memcpy(members, g->members, (size_t)n * sizeof(int));
  for (int x = 0; x < N; x++) members[n + x] = g->node_switch_base + L.node_id[x];
  hs_lower_group G = *g;
  G.members = members;
  G.size = n + N;
  if ((size_t)snprintf(G.tag, sizeof G.tag, "%s/v", g->tag) >= sizeof G.tag) abort();
  if (i == 0) { /* a node's first member starts its switch's part */
    hs_lower_group sw = G;
    sw.me = n + a;
    hs_switch_job job = {HS_SWITCH_NVLS_TREE, buf.count, buf.dtype, op, B.units, buf.data == NULL, lag};
    g->run_switch(&sw, &job);
  }
  char *vec = buf.data;
  size_t most = (buf.count / (size_t)k + 1) / B.units + 1;
  /* a tick's message each way: the scatter's unit and the gather's part up, the
   * scatter's part and the gather's unit down */
  char *stage_up = vec ? malloc(((size_t)k + 1) * most * es) : NULL;
  char *stage_down = vec ? malloc(((size_t)k + 1) * most * es) : NULL;
  int me_sw = n + a;
  long ticks = (long)B.units + 2 * H + 3;
  for (long x = 0; x < ticks; x++) {
    hs_lower_send s[8];
    hs_lower_recv r[8];
    int ns = 0, nr = 0;
    size_t off, cnt;
    /* the switch first, in one message each way: NVLS moves a stream, not
     * two (and two flows on one link would each get half of it) */
    size_t up_bytes = 0, down_bytes = 0, mine = 0;
    if (valid(x, B.units)) {
      if (vec) pack(&B, (size_t)x, vec, stage_up, 1);
      up_bytes = packed_bytes(&B, (size_t)x);
    }
    if (valid(x - lag, B.units)) {
      part_of(&B, i, (size_t)(x - lag), &off, &cnt);
      if (vec) memcpy(stage_up + up_bytes, vec + off * es, cnt * es);
      up_bytes += cnt * es;
    }
    if (valid(x - 1, B.units)) part_of(&B, i, (size_t)(x - 1), &off, &cnt), mine = cnt * es;
    down_bytes = mine + (valid(x - lag - 1, B.units) ? packed_bytes(&B, (size_t)(x - lag - 1)) : 0);
    if (up_bytes) s[ns++] = (hs_lower_send){me_sw, stage_up, up_bytes};
    if (down_bytes) r[nr++] = (hs_lower_recv){me_sw, stage_down, down_bytes, 0, buf.dtype, HS_SUM};
    /* the trees, each on half of my block's part; per tree up, then down */
    for (int w = 0; w < 2; w++) {
      long p_up = x - 2 - (H - depth[w]), p_in = p_up + 1, p_down = x - 2 - H - depth[w], p_last = p_down + 1;
      size_t hoff, hcnt;
      if (up[w] >= 0 && valid(p_up, B.units)) {
        part_of(&B, i, (size_t)p_up, &off, &cnt), hs_lower_part(cnt, (size_t)w, 2, &hoff, &hcnt);
        s[ns++] = (hs_lower_send){L.member_of[up[w] * k + i], vec ? vec + (off + hoff) * es : NULL, hcnt * es};
      }
      for (int c = 0; c < 2; c++)
        if (down[w][c] >= 0 && valid(p_down, B.units)) {
          part_of(&B, i, (size_t)p_down, &off, &cnt), hs_lower_part(cnt, (size_t)w, 2, &hoff, &hcnt);
          s[ns++] = (hs_lower_send){L.member_of[down[w][c] * k + i], vec ? vec + (off + hoff) * es : NULL, hcnt * es};
        }
      for (int c = 0; c < 2; c++)
        if (down[w][c] >= 0 && valid(p_in, B.units)) {
          part_of(&B, i, (size_t)p_in, &off, &cnt), hs_lower_part(cnt, (size_t)w, 2, &hoff, &hcnt);
          r[nr++] = (hs_lower_recv){L.member_of[down[w][c] * k + i], vec ? vec + (off + hoff) * es : NULL, hcnt * es,
                                    1, buf.dtype, op};
        }
      if (up[w] >= 0 && valid(p_last, B.units)) {
        part_of(&B, i, (size_t)p_last, &off, &cnt), hs_lower_part(cnt, (size_t)w, 2, &hoff, &hcnt);
        r[nr++] = (hs_lower_recv){L.member_of[up[w] * k + i], vec ? vec + (off + hoff) * es : NULL, hcnt * es, 0,
                                  buf.dtype, HS_SUM};
      }
    }
    G.exchange(&G, s, ns, r, nr);
    if (vec && mine) { /* my block's node sum of part x - 1 */
      part_of(&B, i, (size_t)(x - 1), &off, &cnt);
      memcpy(vec + off * es, stage_down, mine);
    }
    if (vec && valid(x - lag - 1, B.units)) pack(&B, (size_t)(x - lag - 1), vec, stage_down + mine, 0);
  }
  if (avg_over > 0 && vec) hs_k_divide((hs_k_type)buf.dtype, vec, buf.count, avg_over);
  free(stage_up);
  free(stage_down);
  free(members);
  hs_rails_free(&L);
  return 1;
}

void hs_lower_nvls_tree_serve(const hs_lower_group *sw, const hs_switch_job *job) {
  int n = 0;
  while (n < sw->size && sw->members[n] < sw->node_switch_base) n++;
  hs_rails L;
  if (!hs_rails_build(sw, n, &L)) return; /* the members checked it: not reached */
  int k = L.k, a = sw->me - n, lag = job->lag, data = !job->timing_only;
  size_t es = hs_dtype_size(job->dtype);
  blocks B = {job->count, job->units, es, k};
  size_t most = (job->count / (size_t)k + 1) / B.units + 1, packed = (size_t)k * most * es, msg = packed + most * es;
  /* each member's message up (the scatter's unit, the gather's part), the
   * scatter's sum (this tick's and last's), the gather's units (this
   * tick's and last's) and each member's message down */
  char *in = data ? malloc((size_t)k * msg) : NULL, *sum = data ? malloc(2 * packed) : NULL,
       *gather = data ? malloc(2 * packed) : NULL, *out = data ? malloc((size_t)k * msg) : NULL;
  hs_lower_send *s = malloc((size_t)k * sizeof *s);
  hs_lower_recv *r = malloc((size_t)k * sizeof *r);
  hs_lower_group g = *sw;
  long ticks = (long)B.units + lag + 1;
  for (long x = 0; x < ticks; x++) {
    int ns = 0, nr = 0;
    size_t off, cnt, scatter = valid(x, B.units) ? packed_bytes(&B, (size_t)x) : 0;
    size_t gathered = valid(x - lag - 1, B.units) ? packed_bytes(&B, (size_t)(x - lag - 1)) : 0;
    for (int i = 0; i < k; i++) {
      int m = L.member_of[a * k + i];
      size_t up = scatter, mine = 0;
      if (valid(x - lag, B.units)) part_of(&B, i, (size_t)(x - lag), &off, &cnt), up += cnt * es;
      if (valid(x - 1, B.units)) part_of(&B, i, (size_t)(x - 1), &off, &cnt), mine = cnt * es;
      if (up) r[nr++] = (hs_lower_recv){m, data ? in + (size_t)i * msg : NULL, up, 0, job->dtype, HS_SUM};
      if (!mine && !gathered) continue;
      char *o = data ? out + (size_t)i * msg : NULL;
      if (o) {
        memcpy(o, sum + (size_t)((x - 1) % 2) * packed + packed_at(&B, (size_t)(x - 1), i), mine);
        if (gathered) memcpy(o + mine, gather + (size_t)((x - lag - 1) % 2) * packed, gathered);
      }
      s[ns++] = (hs_lower_send){m, o, mine + gathered};
    }
    g.exchange(&g, s, ns, r, nr);
    if (!data) continue;
    if (scatter) { /* in member order: the bits do not depend on who arrived first */
      char *acc = sum + (size_t)(x % 2) * packed;
      memcpy(acc, in, scatter);
      for (int i = 1; i < k; i++) {
        hs_lower_recv red = {0, acc, scatter, 1, job->dtype, job->op};
        hs_lower_deliver(&red, in + (size_t)i * msg);
      }
    }
    if (valid(x - lag, B.units)) /* member i's part is block i's */
      for (int i = 0; i < k; i++) {
        part_of(&B, i, (size_t)(x - lag), &off, &cnt);
        memcpy(gather + (size_t)((x - lag) % 2) * packed + packed_at(&B, (size_t)(x - lag), i),
               in + (size_t)i * msg + scatter, cnt * es);
      }
  }
  free(in);
  free(sum);
  free(gather);
  free(out);
  free(s);
  free(r);
  hs_rails_free(&L);
}
