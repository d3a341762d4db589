/* test_ring_bytes.c — hs_lower_ring_bytes, which backends with their own
 * collectives (NCCL, real.lowering = "mpi") count in bytes_sent, equals
 * what the simulator's ring/tree lowering really sends, summed over ranks,
 * for every collective and n in {1, 2, 5, 8} (timing-only, 1000 floats per
 * rank, root 1 where there is one). Exact: both are byte counts. */
#include <stdio.h>

#include "algos/comm/lowering.h"
#include "tests/harness.h"
#include "tests/tap.h"

#define COUNT 1000
static const hs_op_kind kinds[] = {HS_OP_ALLREDUCE, HS_OP_REDUCE_SCATTER, HS_OP_ALLGATHER,
                                   HS_OP_BROADCAST, HS_OP_REDUCE,         HS_OP_ALLTOALL};
#define KINDS 6

typedef struct {
  FILE *report;
  int n;
  double sent[KINDS], counted[KINDS]; /* summed over ranks */
} job;

static void rank_main(hs_worker *w, void *arg) {
  job *j = arg;
  int n = w->size, root = n > 1 ? 1 : 0;
  for (int k = 0; k < KINDS; k++) {
    hs_buf one = hs_buf_virtual(COUNT, HS_F32), all = hs_buf_virtual((size_t)COUNT * n, HS_F32);
    hs_request *q = NULL;
    uint64_t before = w->bytes_sent;
    double vector = 0;
    switch (kinds[k]) {
    case HS_OP_ALLREDUCE: hs_allreduce(w, w->world, one, one, HS_SUM, &q), vector = COUNT * 4.0; break;
    case HS_OP_REDUCE_SCATTER: hs_reduce_scatter(w, w->world, all, one, HS_SUM, &q), vector = COUNT * 4.0 * n; break;
    case HS_OP_ALLGATHER: hs_allgather(w, w->world, one, all, &q), vector = COUNT * 4.0 * n; break;
    case HS_OP_BROADCAST: hs_broadcast(w, w->world, one, one, root, &q), vector = COUNT * 4.0; break;
    case HS_OP_REDUCE: hs_reduce(w, w->world, one, one, HS_SUM, root, &q), vector = COUNT * 4.0; break;
    case HS_OP_ALLTOALL: hs_alltoall(w, w->world, all, all, &q), vector = COUNT * 4.0 * n; break;
    default: break;
    }
    hs_wait(w, &q);
    j->sent[k] += (double)(w->bytes_sent - before);
    j->counted[k] += hs_lower_ring_bytes(kinds[k], n, vector, w->rank == root);
  }
}

static void child(void *arg, FILE *report) {
  job *j = arg;
  const char *lua = "cluster { nodes = 8, gpus_per_node = 1, gpu = { flops = \"10TF\" },\n"
                    "  inter = { bandwidth = \"10Gbps\" } }\n"
                    "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\n"
                    "run { iterations = 1 }\nsim { collectives = \"ring\" }\n"; /* the ring's own bytes */
  hs_scenario sc;
  if (hs_test_load(lua, &sc)) {
    hs_report(report, 0, "scenario loads");
    return;
  }
  hs_test_simulate(&sc, j->n, rank_main, j, NULL, NULL);
  for (int k = 0; k < KINDS; k++)
    hs_report(report, j->sent[k] == j->counted[k], "n=%d %s: lowering sends %.0f B in all, counted %.0f B", j->n,
              hs_op_name(kinds[k]), j->sent[k], j->counted[k]);
}

int main(void) {
  const int ns[] = {1, 2, 5, 8};
  for (int i = 0; i < 4; i++) {
    job j = {.n = ns[i]};
    char what[32];
    snprintf(what, sizeof what, "ring bytes n=%d", ns[i]);
    hs_test_in_child(what, child, &j, 60);
  }
  return tap_done(0);
}
