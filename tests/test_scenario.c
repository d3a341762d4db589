/* test_scenario.c — the loader fills defaults, converts units, applies
 * --set overrides and reads the cluster's lists. */
#include <math.h>
#include <string.h>

#include "algos/options.h"
#include "tests/harness.h"
#include "tests/tap.h"

static const char *base =
    "local racks = {}\n"
    "for r = 0, 1 do racks[#racks + 1] = { rack = r, bandwidth = (r + 1) * 10 .. \"Gbps\" } end\n"
    "racks[#racks + 1] = { node = 3, latency = \"20us\", intra_bandwidth = \"50GBps\" }\n"
    "cluster { nodes = 6, gpus_per_node = 4,\n"
    "  gpu = { flops = \"100TF\", efficiency = 0.5 },\n"
    "  inter = { bandwidth = \"100Gbps\", topology = \"fat_tree\", rack_size = 3, oversubscription = 2 },\n"
    "  overrides = racks,\n"
    "  gpu_speed = { { gpu = 5, factor = 0.5 }, { node = 2, factor = 0.25 } } }\n"
    "workload { model = \"resnet50\", batch = 16 }\n"
    "algorithm { name = \"gradient_allreduce\", bucket_size = \"10MiB\" }\n"
    "run { iterations = 5 }\n";

int main(void) {
  hs_scenario sc;
  int rc = hs_test_load(base, &sc);
  tap_ok(rc == 0, "a scenario that computes its own tables loads");
  if (rc) return tap_done(0);
  const hs_cluster_spec *c = &sc.cluster;
  tap_ok(c->nodes == 6 && c->gpus_per_node == 4 && hs_scenario_gpus(&sc) == 24, "6 x 4 = 24 GPUs");
  tap_ok(c->gpu_flops == 100e12 && c->gpu_efficiency == 0.5, "gpu flops and efficiency");
  tap_ok(c->inter.bandwidth == 12.5e9 && c->inter.latency == 0,
         "inter: 100Gbps = 12.5e9 B/s, default 0 s (NCCL's network hop latencies are the protocol's)");
  tap_ok(c->intra.bandwidth == 300e9 && c->intra.latency == 0,
         "intra defaults 300GBps, 0 s (NCCL's hop latencies are the protocol's)");
  tap_ok(c->topology == HS_TOPO_FAT_TREE && c->rack_size == 3 && c->oversubscription == 2, "fat tree settings");
  tap_ok(c->n_overrides == 3 && c->overrides[1].rack == 1 && c->overrides[1].inter.bandwidth == 2.5e9,
         "rack override computed in Lua: rack 1 at 20Gbps");
  tap_ok(c->overrides[2].node == 3 && c->overrides[2].inter.latency == 20e-6 &&
             c->overrides[2].intra.bandwidth == 50e9,
         "node override with intra bandwidth");
  tap_ok(c->n_speed == 2 && c->speed[0].gpu == 5 && c->speed[1].node == 2 && c->speed[1].factor == 0.25,
         "gpu_speed entries");
  tap_ok(!sc.workload.numeric && sc.workload.n_layers == 54 && sc.workload.dtype_bytes == 4,
         "resnet50 profile: timing-only, 54 layers, fp32");
  tap_ok(fabs(hs_opt_num(&sc.algorithm.options, "bucket_size") - 10485760) < 1e-9, "bucket_size 10MiB in bytes");
  tap_ok(hs_opt_bool(&sc.algorithm.options, "overlap"), "overlap defaults to true");
  tap_ok(strcmp(sc.sim.network_model, "CM02") == 0 && !sc.sim.crosstraffic && sc.sim.tcp_gamma == 0,
         "network model defaults: CM02, no cross-traffic, no TCP window cap");
  tap_ok(sc.run.seed == 1 && sc.run.eval_every == 0, "run defaults");
  hs_scenario_free(&sc);

  const char *sets[] = {"cluster.nodes=4", "cluster.inter.bandwidth=25Gbps", "algorithm.overlap=false",
                        "sim.collectives=hierarchical", "run.seed=42"};
  rc = hs_test_load_sets(base, sets, 5, &sc);
  tap_ok(rc == 0, "loads with --set overrides");
  if (rc == 0) {
    tap_ok(sc.cluster.nodes == 4 && sc.cluster.inter.bandwidth == 25e9 / 8, "--set reaches nested fields");
    tap_ok(!hs_opt_bool(&sc.algorithm.options, "overlap"), "--set algorithm.overlap=false");
    tap_ok(sc.sim.collectives == HS_COLL_HIERARCHICAL, "--set creates the sim declaration");
    tap_ok(sc.run.seed == 42, "--set run.seed=42");
    hs_scenario_free(&sc);
  }
  return tap_done(0);
}
