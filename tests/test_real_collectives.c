/* test_real_collectives.c — the MPI transport gives the exact results the
 * simulator gives: the checks of collective_checks.h (every collective,
 * grouped send/recv, sub-communicators, hs_test, a second thread) under
 * mpirun for 1, 2, 3, 4 and 5 ranks, with the MPI library's collectives
 * and with each of hearsay's lowerings (ring, hierarchical, halving-
 * doubling, recursive doubling: real.lowering = "hearsay"), ranks placed
 * 4 per node so hierarchical meets ragged nodes (5 ranks) and the
 * doubling schedules meet sizes that are not powers of two (3, 5). */
#include <stdio.h>

#include "tests/harness.h"
#include "tests/tap.h"

static const char *lua =
    "cluster { nodes = 5, gpus_per_node = 4, gpu = { flops = \"50TF\" },\n"
    "  inter = { bandwidth = \"100Gbps\" } }\n"
    "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\nrun { iterations = 1 }\n";

int main(void) {
  hs_scenario sc;
  if (hs_test_load(lua, &sc)) return tap_ok(0, "scenario loads"), tap_done(0);
  const char *algos[] = {"ring", "hierarchical", "halving_doubling", "recursive_doubling", "tree", NULL};
  for (int a = 0; a < 6; a++)
    for (int n = 1; n <= 5; n++) {
      char what[64], args[8192];
      if (algos[a]) {
        snprintf(what, sizeof what, "mpi n=%d hearsay's %s", n, algos[a]);
        snprintf(args, sizeof args, "%s %s --set sim.collectives=%s --set real.lowering=hearsay", HS_MPI_CHECKS_BIN,
                 sc.path, algos[a]);
      } else {
        snprintf(what, sizeof what, "mpi n=%d the library's collectives", n);
        snprintf(args, sizeof args, "%s %s --set real.lowering=mpi", HS_MPI_CHECKS_BIN, sc.path);
      }
      hs_test_mpirun_checks(what, n, args, 300);
    }
  hs_scenario_free(&sc);
  return tap_done(0);
}
