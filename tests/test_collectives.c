/* test_collectives.c — every collective, grouped send/recv, sub-communicators
 * and the second thread of control give exact results on every rank.
 *
 * For n in {1, 2, 3, 4, 5, 7, 8, 16, 17} ranks (placed on a 5 x 4 cluster so
 * hierarchical lowerings meet both uniform and ragged nodes), with ring and
 * hierarchical lowering (and every other schedule; "nvls" on a cluster whose
 * node switches reduce: communicators inside one node run allreduce,
 * reduce-scatter and allgather in the switch,
 * the others the ring; "nvls_tree" there too: communicators of equal
 * counts on several nodes run allreduce through every node's switch and a
 * tree across, the others the ring; "collnet" on a fabric that reduces: communicators
 * across nodes reduce there, per rail on uniform nodes, through the
 * leaders on ragged ones), on the world communicator and on a sub-communicator
 * (odd/even ranks, reversed order), for counts {1, m-1, m+1, 1000003}.
 * Inputs are small integers, so sums are exact in float and the expected
 * result is known bit for bit; AVG is checked as sum / m, one division. */
#include <stdio.h>
#include <string.h>

#include "tests/collective_checks.h"
#include "tests/harness.h"
#include "tests/tap.h"

typedef struct {
  FILE *report;
  int n;
  const char *algo;
  int pipelined; /* sim.slices_in_flight = 3 with 256 KiB slices: up to 9 slices a chunk, in windows of 3 */
  int heads;     /* 4 NICs a node: the tree allreduce runs from 4 heads a node (lowering.c, tree_heads_of) */
} job;

static void rank_main(hs_worker *w, void *arg) {
  (void)arg;
  hs_check_rank_main(w);
}

static void child(void *arg, FILE *report) {
  job *j = arg;
  const char *lua =
      "cluster { nodes = 5, gpus_per_node = 4, gpu = { flops = \"50TF\" },\n"
      "  inter = { bandwidth = \"100Gbps\" } }\n"
      "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\nrun { iterations = 1 }\n";
  char set[64];
  snprintf(set, sizeof set, "sim.collectives=%s", j->algo);
  int nvls = strncmp(j->algo, "nvls", 4) == 0, collnet = strcmp(j->algo, "collnet") == 0;
  const char *sets[] = {set,
                        nvls      ? "cluster.nvls=true"
                        : collnet ? "cluster.inter.in_network_reduction=true"
                                  : "sim.slices_in_flight=3",
                        "sim.slice=256KiB", "cluster.inter.nics_per_node=4"};
  int n_sets = j->pipelined ? 3 : nvls || collnet ? 2 : 1;
  if (j->heads && j->pipelined) n_sets = 4;
  else if (j->heads) sets[1] = sets[3], n_sets = 2;
  hs_scenario sc;
  if (hs_test_load_sets(lua, sets, n_sets, &sc)) {
    hs_report(report, 0, "scenario loads");
    return;
  }
  hs_sim_stats st;
  hs_test_simulate(&sc, j->n, rank_main, NULL, &st, NULL);
  /* The world of 2-4 ranks lies on node 0: its allreduces run in the
   * switch, not in the ring the others fall back to. */
  if (nvls && strcmp(j->algo, "nvls") == 0 && j->n >= 2 && j->n <= 4)
    hs_report(report, st.collectives[HS_COLL_NVLS] > 0, "collectives ran in the switch (%ld)", st.collectives[HS_COLL_NVLS]);
  /* 8 and 16 ranks fill 2 and 4 nodes of 4: the world's allreduces run the NVLS tree. */
  if (strcmp(j->algo, "nvls_tree") == 0 && (j->n == 8 || j->n == 16))
    hs_report(report, st.collectives[HS_COLL_NVLS_TREE] > 0, "allreduces ran as the NVLS tree (%ld)",
              st.collectives[HS_COLL_NVLS_TREE]);
  /* From 5 ranks on the world spans nodes: its allreduces reduce in the fabric. */
  if (collnet && j->n >= 5)
    hs_report(report, st.collectives[HS_COLL_COLLNET] > 0, "allreduces ran in the fabric (%ld)",
              st.collectives[HS_COLL_COLLNET]);
  for (int i = 0; i < hs_check_n_cases; i++)
    hs_report(report, hs_check_cases[i].failures == 0, "%s%s%s", hs_check_cases[i].name,
              hs_check_cases[i].failures ? ": " : "", hs_check_cases[i].first);
  hs_report(report, hs_check_finished == j->n, "every rank finished (%d of %d)", hs_check_finished, j->n);
}

int main(void) {
  const int ns[] = {1, 2, 3, 4, 5, 7, 8, 16, 17};
  const char *algos[] = {"ring", "hierarchical", "halving_doubling", "recursive_doubling", "tree", "nvls", "collnet",
                         "nvls_tree"};
  for (int a = 0; a < 8; a++)
    for (int k = 0; k < 9; k++) {
      /* the NVLS tree runs on uniform nodes (8, 16); the others fall back
       * to the ring, as 2 (one node) and 17 (a last node of one) show */
      if (a == 7 && ns[k] != 2 && ns[k] != 8 && ns[k] != 16 && ns[k] != 17) continue;
      job j = {NULL, ns[k], algos[a], 0, 0};
      char what[64];
      snprintf(what, sizeof what, "n=%d %s", ns[k], algos[a]);
      hs_test_in_child(what, child, &j, 300);
    }
  /* The pipelined ring, forwarding slices on arrival, and the tree with
   * 256 KiB slices (up to 8 a tree): the same bits. */
  const int pipelined_ns[] = {2, 3, 7}; /* every slicing case; more ranks only cost time */
  const int pipelined_algos[] = {0, 1, 4};
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) {
      int a = pipelined_algos[i];
      job j = {NULL, pipelined_ns[k], algos[a], 1, 0};
      char what[64];
      snprintf(what, sizeof what, "n=%d %s, pipelined", pipelined_ns[k], algos[a]);
      hs_test_in_child(what, child, &j, 300);
    }
  /* The tree from 4 heads a node (4 NICs): on 2 to 5 nodes of 4 (17: a
   * last node of one, so the world runs one head and its halves four),
   * forwarding on arrival with the default window and with 256 KiB
   * slices in windows of 3: the same exact bits. */
  const int heads_ns[] = {5, 8, 16, 17};
  for (int p = 0; p < 2; p++)
    for (int k = 0; k < 4; k++) {
      job j = {NULL, heads_ns[k], "tree", p, 1};
      char what[64];
      snprintf(what, sizeof what, "n=%d tree, 4 heads a node%s", heads_ns[k], p ? ", pipelined" : "");
      hs_test_in_child(what, child, &j, 300);
    }
  return tap_done(0);
}
