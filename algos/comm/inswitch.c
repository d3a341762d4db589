/* inswitch.c — allreduce reduced in the switch (sim.collectives "nvls").
 *
 * With NVLink SHARP (NVLS, cluster.nvls) a node's NVSwitch reduces and
 * multicasts: each GPU sends its vector to the switch once and receives
 * the reduced vector once, so every GPU link carries the vector once each
 * way, where a ring carries it 2(n-1)/n times. (NCCL's kernels issue
 * multimem loads that reduce in the switch and multimem stores that it
 * replicates; per GPU link that is the same bytes each way.)
 *
 * The switch is lowered as a participant of its own: the group gains it
 * as member n (world id g->switch_id, a host without a rank), and the
 * backend runs its part beside the members (g->run_switch): messages in
 * step fidelity, records in fast, like any member's. Data moves in units
 * of slice x window bytes (NCCL's NVLS chunks, as many as a connection
 * keeps in flight), in lock-step ticks: at tick x a member sends unit x
 * up and receives unit x-1's result; the switch receives unit x from every
 * member, reduces it in member order, and multicasts unit x-1's result.
 * U units take U + 1 ticks, the way up of one unit beside the way down of
 * the one before. Every member ends with the switch's bits. */
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

static size_t unit_bytes(const hs_lower_group *g) {
  double w = g->window > 0 ? g->window : 1;
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

void hs_lower_switch_allreduce(hs_lower_group *g, hs_buf buf, hs_redop op, int avg_over) {
  int n = g->size;
  int *members = malloc(((size_t)n + 1) * sizeof(int));
  hs_lower_group sg = with_switch(g, members);
  size_t es = hs_dtype_size(buf.dtype);
  size_t U = hs_lower_switch_units((double)buf.count * (double)es, unit_bytes(g), buf.count, n);
  if (g->me == 0) { /* one member starts the switch's part, for all */
    hs_switch_job job = {buf.count, buf.dtype, op, U, buf.data == NULL};
    hs_lower_group sw = sg;
    sw.me = n;
    g->run_switch(&sw, &job);
  }
  for (size_t x = 0; x <= U; x++) {
    hs_lower_send s;
    hs_lower_recv r;
    int ns = 0, nr = 0;
    size_t off, cnt;
    if (x < U) {
      hs_lower_part(buf.count, x, U, &off, &cnt);
      s = (hs_lower_send){n, buf.data ? (char *)buf.data + off * es : NULL, cnt * es};
      ns = 1;
    }
    if (x >= 1) {
      hs_lower_part(buf.count, x - 1, U, &off, &cnt);
      r = (hs_lower_recv){n, buf.data ? (char *)buf.data + off * es : NULL, cnt * es, 0, buf.dtype, HS_SUM};
      nr = 1;
    }
    sg.exchange(&sg, &s, ns, &r, nr);
  }
  if (avg_over > 0 && buf.data) hs_k_divide((hs_k_type)buf.dtype, buf.data, buf.count, avg_over);
  free(members);
}

void hs_lower_switch_serve(const hs_lower_group *sw, const hs_switch_job *job) {
  int n = sw->size - 1;
  size_t es = hs_dtype_size(job->dtype), U = job->units;
  size_t most = job->count / U + (job->count % U != 0); /* the largest unit (hs_lower_part) */
  int data = !job->timing_only;
  /* what each member sent of the unit now going up, and the results of
   * the last two units (one going down while the next is reduced) */
  char *in = data ? malloc((size_t)n * most * es + 1) : NULL, *acc = data ? malloc(2 * most * es + 1) : NULL;
  hs_lower_send *s = malloc((size_t)n * sizeof *s);
  hs_lower_recv *r = malloc((size_t)n * sizeof *r);
  hs_lower_group g = *sw;
  for (size_t x = 0; x <= U; x++) {
    int ns = 0, nr = 0;
    size_t off = 0, cnt = 0;
    if (x < U) {
      hs_lower_part(job->count, x, U, &off, &cnt);
      for (int i = 0; i < n; i++)
        r[nr++] = (hs_lower_recv){i, data ? in + (size_t)i * most * es : NULL, cnt * es, 0, job->dtype, HS_SUM};
    }
    if (x >= 1) {
      size_t o2, c2;
      hs_lower_part(job->count, x - 1, U, &o2, &c2);
      for (int i = 0; i < n; i++) s[ns++] = (hs_lower_send){i, data ? acc + (x - 1) % 2 * most * es : NULL, c2 * es};
    }
    g.exchange(&g, s, ns, r, nr);
    if (x < U && data) { /* in member order: the bits do not depend on who arrived first */
      char *out = acc + x % 2 * most * es;
      memcpy(out, in, cnt * es);
      for (int i = 1; i < n; i++) {
        hs_lower_recv red = {0, out, cnt * es, 1, job->dtype, job->op};
        hs_lower_deliver(&red, in + (size_t)i * most * es);
      }
    }
  }
  free(in);
  free(acc);
  free(s);
  free(r);
}
