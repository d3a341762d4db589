/* test_watchdog.c — when the simulated time passes its bound, the watchdog
 * (sim/watchdog.c) tells a slow scenario from a stuck simulation:
 *
 *  - a cluster whose iterations should take milliseconds cannot account for
 *    a day of simulated time each: stuck, a bug in hearsay (every such run
 *    found so far was an actor left waiting after a failure, which the
 *    message used to blame on the network's bandwidth);
 *  - the same cluster at 42 B/s (the user meant 42 Gbps), a latency of an
 *    hour, or GPUs of 1 flop/s: slow, the units message;
 *  - what the estimate leaves out makes no verdict of stuck: stragglers'
 *    slowdowns, network { } events, a bound the scenario set itself.
 * The verdict is hs_sim_watchdog_stuck; the message around it is printed
 * where the watchdog stops the run. */
#include <stdio.h>
#include <string.h>

#include "scenarios/loader.h"
#include "sim/sim_internal.h"
#include "tests/harness.h"
#include "tests/tap.h"

static const char *base =
    "cluster { nodes = 4, gpus_per_node = 2, gpu = { flops = '10TF' }, inter = { bandwidth = '25Gbps' } }\n"
    "workload { model = 'resnet18', batch = 16 }\n"
    "algorithm { name = 'gradient_allreduce' }\n"
    "run { iterations = 20 }\n";

/* The verdict for the scenario `text` with `extra` appended and `set`
 * applied (NULL: none); -1 if it does not load. */
static int stuck_of(const char *text, const char *name, const char *extra, const char *set) {
  char path[700];
  snprintf(path, sizeof path, "%s/%s.lua", hs_test_tmpdir(), name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  if (extra) fputs(extra, f);
  fclose(f);
  hs_scenario sc;
  const char *sets[1] = {set};
  if (hs_scenario_load(path, sets, set ? 1 : 0, &sc)) return -1;
  int v = hs_sim_watchdog_stuck(&sc);
  hs_scenario_free(&sc);
  return v;
}

/* The same for the base scenario. */
static int stuck(const char *name, const char *extra, const char *set) { return stuck_of(base, name, extra, set); }

int main(void) {
  tap_ok(stuck("plain", NULL, NULL) == 1,
         "25 Gbps, 10 TF/s GPUs, ResNet-18: a day an iteration cannot be the cluster's doing: stuck");
  tap_ok(stuck("bytes", NULL, "cluster.inter.bandwidth=42") == 0, "42 B/s between nodes: slow, not stuck");
  /* scripts/fuzz, seed 4444, case 986: the NICs alone were estimated */
  tap_ok(stuck("intra-bytes", NULL, "cluster.intra.bandwidth=42") == 0,
         "42 B/s between the GPUs of each of several nodes: slow, not stuck");
  tap_ok(stuck("intra-latency", NULL, "cluster.intra.latency=1h") == 0,
         "an hour of latency between the GPUs of each of several nodes: slow, not stuck");
  tap_ok(stuck("latency", NULL, "cluster.inter.latency=1h") == 0, "an hour of latency a hop: slow, not stuck");
  tap_ok(stuck("flops", NULL, "cluster.gpu.flops=1") == 0, "GPUs of 1 flop/s: slow, not stuck");
  /* scripts/fuzz, seed 4444, case 2362: factors naming one GPU multiply,
   * and the estimate took the lowest single one (0.5). Its thousand of
   * them are refused since (the product leaves [1e-6, 1e6]); nineteen,
   * 1.9e-6 of the GPU's speed, are not: a few hours an iteration */
  tap_ok(stuck_of("cluster { nodes = 4, gpus_per_node = 2, gpu = { flops = '10TF' }, inter = { bandwidth = '25Gbps' },\n"
                  "  gpu_speed = (function() local t = {} for i = 1, 19 do t[i] = { gpu = 0, factor = 0.5 } end "
                  "return t end)() }\n"
                  "workload { model = 'resnet18', batch = 16 }\nalgorithm { name = 'gradient_allreduce' }\n"
                  "run { iterations = 20 }\n",
                  "speed-product", NULL, NULL) == 0,
         "nineteen gpu_speed entries of 0.5 on one GPU (1.9e-6 of its speed): slow, not stuck");
  tap_ok(stuck("bound", NULL, "run.max_simulated_time=1e-6") == 0, "a bound the scenario set: no verdict of stuck");
  tap_ok(stuck("stragglers", "stragglers { { gpu = 3, slowdown = 1e6 } }\n", NULL) == 0,
         "stragglers' slowdowns, which the estimate leaves out: no verdict of stuck");
  tap_ok(stuck("network", "network { { link = 'node1', bandwidth = 0.001, from = 0, to = '1h' } }\n", NULL) == 0,
         "a network { } event, which the estimate leaves out: no verdict of stuck");
  return tap_done(0);
}
