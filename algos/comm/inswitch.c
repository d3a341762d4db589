/* inswitch.c — collectives reduced in the switch (sim.collectives "nvls").
 *
 * With NVLink SHARP (NVLS, cluster.nvls) a node's NVSwitch reduces and
 * multicasts. NCCL's kernels issue multimem loads that the switch answers
 * with the sum over every GPU's copy, and multimem stores that it
 * replicates to every GPU. Per GPU link, in bytes:
 *  - allreduce: the vector once up and its sum once down, where a ring
 *    carries it 2(n-1)/n times each way;
 *  - reduce-scatter: the vector once up (every block, for every member's
 *    sum) and the member's own block of the sum down;
 *  - allgather: the member's block once up and every block once down.
 * The scatter and the gather thus move M over the busier direction where
 * a ring moves (n-1)/n M: they win on latency (two link crossings in all,
 * not n-1 hops), not on bandwidth. (NCCL's model agrees: NVLS reduce-
 * scatter and allgather at (ppn-1)/ppn of the NVLink's rate, tuning.cc.)
 *
 * The switch is lowered as a participant of its own: the group gains it
 * as member n (world id g->switch_id, a host without a rank), and the
 * backend runs its part beside the members (g->run_switch): messages in
 * step fidelity, records in fast, like any member's. Data moves in units
 * of slice x switch_slices bytes over the busier direction (NCCL's NVLS
 * chunks on its 16 channels, sim.switch_slices rounds of them at once), in lock-step ticks: at tick x
 * a member sends unit x up and receives unit x-1's result; the switch
 * receives unit x from every member, reduces it in member order (or
 * gathers it), and sends unit x-1's result down. U units take U + 1
 * ticks, the way up of one unit beside the way down of the one before. A
 * unit of the scatter or the gather is part x of every block, packed
 * block after block. Every member ends with the switch's bits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/comm/lowering.h"
#include "kernels/kernels.h"

size_t hs_lower_switch_units(double bytes, size_t unit, size_t count, int members) {
  double U = unit ? ceil(bytes / (double)unit) : 1, most = ldexp(1, 20) / (members > 0 ? members + 1 : 1);
  U = U > most ? floor(most) : U;
  U = U > (double)count ? (double)count : U;
  return U < 1 ? 1 : (size_t)U;
}

size_t hs_lower_pipeline_units(double bytes, size_t unit, size_t count, int participants, double fill, double rate,
                               double latency) {
  size_t most = hs_lower_switch_units(bytes, 1, count, participants), U;
  if (rate > 0 && latency > 0) {
    /* U + fill ticks of latency + bytes / (U rate) each: fewest seconds at
     * U = sqrt(fill bytes / (rate latency)), where the ticks' latencies
     * cost what the fill's extra units do */
    double best = ceil(sqrt(fill * bytes / (rate * latency)));
    U = best < (double)most ? (size_t)best : most;
  } else { /* units of `unit`, but never so few that the fill is more than a fifth of the ticks */
    U = hs_lower_switch_units(bytes, unit, count, participants);
    if ((double)U < 4 * fill) U = 4 * fill < (double)most ? (size_t)(4 * fill) : most;
  }
  return U < 1 ? 1 : U;
}

static size_t unit_bytes(const hs_lower_group *g) {
  double w = g->switch_slices > 0 ? g->switch_slices : 1;
  return (size_t)((double)(g->slice ? g->slice : 1) * w);
}

/* g with the switch as member n; members: n + 1 entries to fill. */
static hs_lower_group with_switch(const hs_lower_group *g, int *members) {
  hs_lower_group s = *g;
  memcpy(members, g->members, (size_t)g->size * sizeof(int));
  members[g->size] = g->switch_id;
  s.members = members;
  s.size = g->size + 1;
  /* Its own namespace: the switch's mailboxes are not the members' pairs. */
  if ((size_t)snprintf(s.tag, sizeof s.tag, "%s/s", g->tag) >= sizeof s.tag) abort();
  return s;
}

int hs_lower_has_switch(const hs_lower_group *g) { return g->run_switch != NULL && g->switch_id >= 0; }

int hs_lower_has_fabric_switch(const hs_lower_group *g) { return g->run_switch != NULL && g->fabric_switch_id >= 0; }

/* Elements in one block: the whole vector for the allreduce, one of the
 * n members' blocks for the scatter and the gather. */
static size_t block_count(const hs_switch_job *job, int n) {
  return job->kind == HS_SWITCH_ALLREDUCE ? job->count : job->count / (size_t)n;
}

/* Parts of a unit each way: a member sends every block's part up in the
 * scatter, receives every block's part down in the gather. */
static int parts_up(hs_switch_kind k, int n) { return k == HS_SWITCH_REDUCE_SCATTER ? n : 1; }
static int parts_down(hs_switch_kind k, int n) { return k == HS_SWITCH_ALLGATHER ? n : 1; }

/* A member's ticks: `whole` is the vector (n blocks for the scatter and
 * the gather), or NULL when only time is simulated. The scatter's result
 * lands in the member's own block of it, the gather's in every block. */
static void member_ticks(hs_lower_group *g, hs_switch_kind kind, char *whole, size_t count, hs_dtype dtype,
                         hs_redop op, size_t unit) {
  int n = g->size, me = g->me;
  int *members = malloc(((size_t)n + 1) * sizeof(int));
  hs_lower_group sg = with_switch(g, members);
  size_t es = hs_dtype_size(dtype);
  hs_switch_job job = {kind, count, dtype, op, 0, whole == NULL, 0};
  size_t c = block_count(&job, n);
  job.units = hs_lower_switch_units((double)count * (double)es, unit, c, n);
  size_t U = job.units, most = c / U + (c % U != 0);
  if (me == 0) { /* one member starts the switch's part, for all */
    hs_lower_group sw = sg;
    sw.me = n;
    g->run_switch(&sw, &job);
  }
  int multi = kind != HS_SWITCH_ALLREDUCE;
  char *own = whole && multi ? whole + (size_t)me * c * es : whole;
  /* packed parts of every block: the scatter's way up, the gather's down */
  char *stage = whole && multi ? malloc((size_t)n * most * es + 1) : NULL;
  for (size_t x = 0; x <= U; x++) {
    hs_lower_send s;
    hs_lower_recv r;
    int ns = 0, nr = 0;
    size_t off, cnt;
    if (x < U) {
      hs_lower_part(c, x, U, &off, &cnt);
      char *src = own ? own + off * es : NULL;
      if (kind == HS_SWITCH_REDUCE_SCATTER && whole) {
        for (int b = 0; b < n; b++) memcpy(stage + (size_t)b * cnt * es, whole + ((size_t)b * c + off) * es, cnt * es);
        src = stage;
      }
      s = (hs_lower_send){n, src, (size_t)parts_up(kind, n) * cnt * es};
      ns = 1;
    }
    size_t roff = 0, rcnt = 0;
    if (x >= 1) {
      hs_lower_part(c, x - 1, U, &roff, &rcnt);
      char *dst = kind == HS_SWITCH_ALLGATHER ? stage : own ? own + roff * es : NULL;
      r = (hs_lower_recv){n, dst, (size_t)parts_down(kind, n) * rcnt * es, 0, dtype, HS_SUM};
      nr = 1;
    }
    sg.exchange(&sg, &s, ns, &r, nr);
    if (x >= 1 && kind == HS_SWITCH_ALLGATHER && whole)
      for (int b = 0; b < n; b++) memcpy(whole + ((size_t)b * c + roff) * es, stage + (size_t)b * rcnt * es, rcnt * es);
  }
  free(stage);
  free(members);
}

void hs_lower_switch_allreduce(hs_lower_group *g, hs_buf buf, hs_redop op, int avg_over) {
  member_ticks(g, HS_SWITCH_ALLREDUCE, buf.data, buf.count, buf.dtype, op, unit_bytes(g));
  if (avg_over > 0 && buf.data) hs_k_divide((hs_k_type)buf.dtype, buf.data, buf.count, avg_over);
}

void hs_lower_switch_reduce_scatter(hs_lower_group *g, hs_buf whole, hs_buf r, hs_redop op) {
  member_ticks(g, HS_SWITCH_REDUCE_SCATTER, whole.data, r.count * (size_t)g->size, r.dtype, op, unit_bytes(g));
}

void hs_lower_switch_allgather(hs_lower_group *g, hs_buf r) {
  member_ticks(g, HS_SWITCH_ALLGATHER, r.data, r.count, r.dtype, HS_SUM, unit_bytes(g));
}

void hs_lower_switch_serve(const hs_lower_group *sw, const hs_switch_job *job) {
  if (job->kind == HS_SWITCH_NVLS_TREE) {
    hs_lower_nvls_tree_serve(sw, job);
    return;
  }
  if (job->kind == HS_SWITCH_COLLNET_CHAIN) {
    hs_lower_collnet_chain_serve(sw, job);
    return;
  }
  int n = sw->size - 1;
  hs_switch_kind kind = job->kind;
  size_t es = hs_dtype_size(job->dtype), U = job->units, c = block_count(job, n);
  size_t most = c / U + (c % U != 0); /* the largest part (hs_lower_part) */
  size_t up = (size_t)parts_up(kind, n), packed = (size_t)n * most * es; /* a unit, every block's part */
  int data = !job->timing_only;
  /* what each member sent of the unit now going up, and the results of
   * the last two units (one going down while the next is combined) */
  char *in = data ? malloc((size_t)n * up * most * es + 1) : NULL, *acc = data ? malloc(2 * packed + 1) : NULL;
  hs_lower_send *s = malloc((size_t)n * sizeof *s);
  hs_lower_recv *r = malloc((size_t)n * sizeof *r);
  hs_lower_group g = *sw;
  for (size_t x = 0; x <= U; x++) {
    int ns = 0, nr = 0;
    size_t off = 0, cnt = 0;
    if (x < U) {
      hs_lower_part(c, x, U, &off, &cnt);
      for (int i = 0; i < n; i++)
        r[nr++] = (hs_lower_recv){i, data ? in + (size_t)i * up * most * es : NULL, up * cnt * es, 0, job->dtype, HS_SUM};
    }
    if (x >= 1) {
      size_t o2, c2;
      hs_lower_part(c, x - 1, U, &o2, &c2);
      char *res = data ? acc + (x - 1) % 2 * packed : NULL;
      for (int i = 0; i < n; i++) {
        char *src = res && kind == HS_SWITCH_REDUCE_SCATTER ? res + (size_t)i * c2 * es : res;
        s[ns++] = (hs_lower_send){i, src, (size_t)parts_down(kind, n) * c2 * es};
      }
    }
    g.exchange(&g, s, ns, r, nr);
    if (x < U && data) {
      char *out = acc + x % 2 * packed;
      if (kind == HS_SWITCH_ALLGATHER) { /* member i's part is block i's */
        for (int i = 0; i < n; i++) memcpy(out + (size_t)i * cnt * es, in + (size_t)i * most * es, cnt * es);
      } else { /* in member order: the bits do not depend on who arrived first */
        memcpy(out, in, up * cnt * es);
        for (int i = 1; i < n; i++) {
          hs_lower_recv red = {0, out, up * cnt * es, 1, job->dtype, job->op};
          hs_lower_deliver(&red, in + (size_t)i * up * most * es);
        }
      }
    }
  }
  free(in);
  free(acc);
  free(s);
  free(r);
}
