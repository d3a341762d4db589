/* test_real_training.c — the same scenario file, simulated and run on real
 * processes (mpirun -np 4), trains the same model: the loss curves agree to
 * 1e-5 relative (same seed, same partition). Both backends lower collectives
 * the same way (algos/comm/lowering.c) and reduce in the same order, so the
 * curves are in fact expected to be identical; 1e-5 is the promise. The
 * held-out evaluations and the bytes each rank sent must match too.
 *
 * Cases: scenarios/emulated-4.lua as shipped (4 nodes x 1 GPU, links
 * emulated), scenarios/quickstart.lua shrunk to 2 nodes x 2 GPUs with
 * hierarchical collectives and no emulation (the MPI library's
 * collectives), and the timing-only resnet50-16x8.lua shrunk the same way
 * with both lowerings (same bytes, exit 0). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/sim_vs_real.h"
#include "tests/tap.h"

int main(void) {
  hs_test_sim_vs_real("emulated-4", HS_SOURCE_DIR "/scenarios/emulated-4.lua", "--set run.iterations=30", 4, 1);
  hs_test_sim_vs_real("quickstart 2x2 hierarchical", HS_SOURCE_DIR "/scenarios/quickstart.lua",
          "--set cluster.nodes=2 --set cluster.gpus_per_node=2 --set sim.collectives=hierarchical "
          "--set run.iterations=60", 4, 1);
  /* Timing-only (a model profile): buffers carry no data, real bytes still
   * move (scratch), compute is emulated; both lowerings. */
  const char *resnet = "--set cluster.nodes=2 --set cluster.gpus_per_node=2 --set run.iterations=3";
  char sets[512];
  for (int i = 0; i < 2; i++) {
    const char *lowering = i ? "mpi" : "hearsay";
    char name[64];
    snprintf(name, sizeof name, "resnet50 timing-only, lowering=%s", lowering);
    snprintf(sets, sizeof sets, "%s --set real.lowering=%s", resnet, lowering);
    hs_test_sim_vs_real(name, HS_SOURCE_DIR "/scenarios/resnet50-16x8.lua", sets, 4, 0);
  }
  return tap_done(0);
}
