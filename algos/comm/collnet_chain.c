/* collnet_chain.c — NCCL's CollNet chain allreduce (sim.collectives "collnet").
 *
 * Where the fabric reduces (SHARP, cluster.inter.in_network_reduction),
 * NCCL's CollNet chain (2.30.7 src/device/all_reduce.h,
 * RunWorkColl<AllReduce, COLLNET_CHAIN, SIMPLE>) runs, per channel, a chain
 * through the node's GPUs whose head is the GPU next to the channel's NIC
 * (src/graph/connect.cc: collnetChain.up of the chain's first GPU is the
 * network). Half of each channel's threads reduce chunks up the chain and
 * hand the node's sum to the network, which reduces it across nodes; the
 * other half take the network's result and broadcast it down the chain,
 * both at once, chunk after chunk: the three stages are pipelined into
 * each other, and what bounds the allreduce is the slowest of them, not
 * their sum. The channels' chains start at every NIC's GPU in turn
 * (NVIDIA/nccl#320: "0->1->...->7 -> NIC7 -> 7->...->0", then from 1 to
 * NIC0, ...), so every GPU is the head of one rail's share.
 *
 * Lowered here in lock-step ticks, on the group's members plus the
 * fabric's participant for each rail (fabric_switch_id + c, inswitch.c).
 * The vector is cut into k blocks (k members a node; block c is rail c's,
 * its chain headed by member c) and every block into U units. In block
 * c's chain, member i is at depth d = (c - i) mod k; its up neighbour is
 * member i + 1 and its down neighbour member i - 1 (mod k) in every
 * chain, so a member's traffic each way goes to one neighbour in one
 * message, every block's part packed. With H = k - 1:
 *  - up: the tail (d = H) sends unit p at tick p; depth d receives it
 *    from below at p + H - d - 1, reduces it into its own and sends it up
 *    at p + H - d; the head sends the node's sum to the fabric at p + H;
 *  - the fabric receives unit p from every node's head at p + H, reduces
 *    it in node order and sends the result back at p + H + 1;
 *  - down: the head sends it down at p + H + 2; depth d receives it at
 *    p + H + 1 + d and forwards it the tick after.
 * U + 2H + 1 ticks in all. Per member and direction a tick moves up to
 * 2(k - 1) of a unit's k parts over NVLink and, at a head, one part over
 * the NIC: 2(k-1)/k of the vector over each GPU's link, 1/k through each
 * NIC, both at once. Every member ends with the fabric's bits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/comm/lowering.h"
#include "algos/comm/rails.h"
#include "kernels/kernels.h"

static int valid(long p, size_t units) { return p >= 0 && (size_t)p < units; }

size_t hs_lower_collnet_chain_units(double bytes, size_t count, int k, int participants, size_t unit,
                                    double rail_bandwidth, double latency) {
  /* a tick's unit crosses the busiest NIC as one of k parts: the vector
   * moves at the node's k rails' rate */
  return hs_lower_pipeline_units(bytes, unit, count, participants, 2.0 * (k - 1) + 1, rail_bandwidth * k, latency);
}

/* What one chain message (up or down) of member i carries at tick x:
 * the blocks whose parts it packs, in block order, and their units. */
typedef struct {
  int n;
  int block[64];
  long unit[64];
} pack_list;

/* up: blocks where i is not the head, unit x - H + d; from below: blocks
 * where i is not the tail, unit x - H + d + 1; down: not the tail, unit
 * x - H - 2 - d; from above: not the head, unit x - H - 1 - d. */
typedef enum { SEND_UP, RECV_UP, SEND_DOWN, RECV_DOWN } chain_way;

static void list_of(pack_list *P, chain_way way, int i, int k, long x, size_t units) {
  int H = k - 1;
  P->n = 0;
  for (int c = 0; c < k; c++) {
    int d = (c - i + k) % k;
    long p;
    switch (way) {
    case SEND_UP: p = d >= 1 ? x - H + d : -1; break;
    case RECV_UP: p = d <= H - 1 ? x - H + d + 1 : -1; break;
    case SEND_DOWN: p = d <= H - 1 ? x - H - 2 - d : -1; break;
    default: p = d >= 1 ? x - H - 1 - d : -1; break;
    }
    if (valid(p, units)) P->block[P->n] = c, P->unit[P->n++] = p;
  }
}

/* Bytes of a pack, and copies between it and the vector. */
static size_t pack_bytes(const pack_list *P, size_t count, int k, size_t units, size_t es) {
  size_t all = 0, off, cnt;
  for (int j = 0; j < P->n; j++) hs_rails_part(count, k, units, P->block[j], (size_t)P->unit[j], &off, &cnt), all += cnt;
  return all * es;
}

static void pack_copy(const pack_list *P, size_t count, int k, size_t units, size_t es, char *vec, char *packed,
                      int to_pack) {
  size_t at = 0, off, cnt;
  for (int j = 0; j < P->n; j++) {
    hs_rails_part(count, k, units, P->block[j], (size_t)P->unit[j], &off, &cnt);
    if (to_pack) memcpy(packed + at, vec + off * es, cnt * es);
    else memcpy(vec + off * es, packed + at, cnt * es);
    at += cnt * es;
  }
}

/* The children's partial sums of a pack, reduced into mine. */
static void pack_reduce(const pack_list *P, size_t count, int k, size_t units, const hs_buf *buf, hs_redop op,
                        const char *packed) {
  size_t at = 0, off, cnt, es = hs_dtype_size(buf->dtype);
  for (int j = 0; j < P->n; j++) {
    hs_rails_part(count, k, units, P->block[j], (size_t)P->unit[j], &off, &cnt);
    hs_lower_recv red = {0, (char *)buf->data + off * es, cnt * es, 1, buf->dtype, op};
    hs_lower_deliver(&red, packed + at);
    at += cnt * es;
  }
}

int hs_lower_collnet_chain_allreduce(hs_lower_group *g, hs_buf buf, hs_redop op, int avg_over) {
  int n = g->size;
  hs_rails L;
  if (!hs_lower_has_fabric_switch(g) || n < 2 || !hs_rails_build(g, n, &L)) return 0;
  int k = L.k, a = 0, i = 0;
  /* one member a node (the fabric alone, inswitch.c), more than a pack
   * list holds, or fewer elements than members: the caller's schedules */
  if (k < 2 || k > 64 || buf.count < (size_t)k) {
    hs_rails_free(&L);
    return 0;
  }
  for (int j = 0; j < n; j++)
    if (L.member_of[j] == g->me) a = j / k, i = j % k;
  size_t es = hs_dtype_size(buf.dtype), count = buf.count;
  size_t unit = hs_lower_nvls_tree_unit((double)g->slice, g->switch_slices, g->window, g->channels, g->tree_heads);
  size_t U = hs_lower_collnet_chain_units((double)count * (double)es, count / (size_t)k, k, n + k, unit,
                                          g->rail_bandwidth, g->net_latency);
  int H = k - 1;
  /* the group with the fabric's participants: members first, then rail c's as n + c */
  int *members = malloc(((size_t)n + (size_t)k) * sizeof(int));
  memcpy(members, g->members, (size_t)n * sizeof(int));
  for (int c = 0; c < k; c++) members[n + c] = g->fabric_switch_id + c;
  hs_lower_group G = *g;
  G.members = members;
  G.size = n + k;
  if ((size_t)snprintf(G.tag, sizeof G.tag, "%s/c", g->tag) >= sizeof G.tag) abort();
  if (a == 0) { /* node 0's member of rail i starts the fabric's part for that rail */
    hs_lower_group sw = G;
    sw.me = n + i;
    hs_switch_job job = {HS_SWITCH_COLLNET_CHAIN, count, buf.dtype, op, U, buf.data == NULL, H};
    g->run_switch(&sw, &job);
  }
  char *vec = buf.data;
  size_t most = (count / (size_t)k + 1) / U + 1, stage = (size_t)k * most * es;
  char *up_out = vec ? malloc(stage) : NULL, *up_in = vec ? malloc(stage) : NULL;
  char *down_out = vec ? malloc(stage) : NULL, *down_in = vec ? malloc(stage) : NULL;
  int above = L.member_of[a * k + (i + 1) % k], below = L.member_of[a * k + (i - 1 + k) % k];
  long ticks = (long)U + 2 * H + 1;
  for (long x = 0; x < ticks; x++) {
    hs_lower_send s[3];
    hs_lower_recv r[3];
    int ns = 0, nr = 0;
    pack_list su, ru, sd, rd;
    list_of(&su, SEND_UP, i, k, x, U);
    list_of(&ru, RECV_UP, i, k, x, U);
    list_of(&sd, SEND_DOWN, i, k, x, U);
    list_of(&rd, RECV_DOWN, i, k, x, U);
    size_t b;
    if ((b = pack_bytes(&su, count, k, U, es))) {
      if (vec) pack_copy(&su, count, k, U, es, vec, up_out, 1);
      s[ns++] = (hs_lower_send){above, up_out, b};
    }
    if ((b = pack_bytes(&sd, count, k, U, es))) {
      if (vec) pack_copy(&sd, count, k, U, es, vec, down_out, 1);
      s[ns++] = (hs_lower_send){below, down_out, b};
    }
    if ((b = pack_bytes(&ru, count, k, U, es))) r[nr++] = (hs_lower_recv){below, up_in, b, 0, buf.dtype, HS_SUM};
    if ((b = pack_bytes(&rd, count, k, U, es))) r[nr++] = (hs_lower_recv){above, down_in, b, 0, buf.dtype, HS_SUM};
    /* my rail's block: the node's sum to the fabric, its result back */
    size_t off, cnt;
    if (valid(x - H, U)) {
      hs_rails_part(count, k, U, i, (size_t)(x - H), &off, &cnt);
      s[ns++] = (hs_lower_send){n + i, vec ? vec + off * es : NULL, cnt * es};
    }
    if (valid(x - H - 1, U)) {
      hs_rails_part(count, k, U, i, (size_t)(x - H - 1), &off, &cnt);
      r[nr++] = (hs_lower_recv){n + i, vec ? vec + off * es : NULL, cnt * es, 0, buf.dtype, HS_SUM};
    }
    G.exchange(&G, s, ns, r, nr);
    if (vec) {
      pack_reduce(&ru, count, k, U, &buf, op, up_in);
      pack_copy(&rd, count, k, U, es, vec, down_in, 0);
    }
  }
  if (avg_over > 0 && vec) hs_k_divide((hs_k_type)buf.dtype, vec, count, avg_over);
  free(up_out);
  free(up_in);
  free(down_out);
  free(down_in);
  free(members);
  hs_rails_free(&L);
  return 1;
}

void hs_lower_collnet_chain_serve(const hs_lower_group *sw, const hs_switch_job *job) {
  int n = sw->size - job->lag - 1, c = sw->me - n; /* the k = lag + 1 rails come after the n members */
  hs_rails L;
  if (!hs_rails_build(sw, n, &L)) return; /* the members checked it: not reached */
  int N = L.nodes, data = !job->timing_only;
  size_t es = hs_dtype_size(job->dtype), U = job->units, count = job->count, kk = (size_t)L.k;
  size_t most = (count / kk + 1) / U + 1;
  char *in = data ? malloc((size_t)N * most * es) : NULL, *acc = data ? malloc(2 * most * es) : NULL;
  hs_lower_send *s = malloc((size_t)N * sizeof *s);
  hs_lower_recv *r = malloc((size_t)N * sizeof *r);
  hs_lower_group g = *sw;
  for (size_t y = 0; y <= U; y++) { /* the members' tick y + H */
    int ns = 0, nr = 0;
    size_t off, cnt = 0, o2, c2 = 0;
    if (y < U) {
      hs_rails_part(count, L.k, U, c, y, &off, &cnt);
      for (int a = 0; a < N; a++)
        r[nr++] = (hs_lower_recv){L.member_of[a * L.k + c], data ? in + (size_t)a * most * es : NULL, cnt * es, 0,
                                  job->dtype, HS_SUM};
    }
    if (y >= 1) {
      hs_rails_part(count, L.k, U, c, y - 1, &o2, &c2);
      for (int a = 0; a < N; a++)
        s[ns++] = (hs_lower_send){L.member_of[a * L.k + c], data ? acc + (y - 1) % 2 * most * es : NULL, c2 * es};
    }
    g.exchange(&g, s, ns, r, nr);
    if (y < U && data) { /* in node order: the bits do not depend on who arrived first */
      char *out = acc + y % 2 * most * es;
      memcpy(out, in, cnt * es);
      for (int a = 1; a < N; a++) {
        hs_lower_recv red = {0, out, cnt * es, 1, job->dtype, job->op};
        hs_lower_deliver(&red, in + (size_t)a * most * es);
      }
    }
  }
  free(in);
  free(acc);
  free(s);
  free(r);
  hs_rails_free(&L);
}
