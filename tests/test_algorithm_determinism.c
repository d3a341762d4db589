/* test_algorithm_determinism.c — same seed, same results, for every
 * algorithm in the registry, the asynchronous ones included (their threads
 * of control are SimGrid actors, scheduled deterministically): two runs
 * give identical per-iteration end times, bytes, losses, consensus distances and
 * final weights, bit for bit; a third with another seed differs. */
#include <string.h>

#include "algos/algorithm.h"
#include "tests/harness.h"
#include "tests/tap.h"
#include "tests/train_run.h"

static const char *scenario_fmt =
    "cluster { nodes = %d, gpus_per_node = %d, gpu = { flops = \"1GF\" }, inter = { bandwidth = \"10Gbps\" },\n"
    "  gpu_speed = { { gpu = 1, factor = 0.5 } } }\n"
    "workload { model = \"softmax\", dataset = { classes = 10, features = 32, samples = 8000, partition = \"dirichlet\" },\n"
    "           batch = 16, lr = 0.05, init_noise = 0.1 }\n"
    "algorithm { name = \"%s\" %s }\n"
    "run { iterations = 40, seed = %d, eval_every = 10 }\n";

static hs_run_result *run(const char *name, const char *options, int seed) {
  int ps = strcmp(name, "parameter_server") == 0;
  char lua[2048], what[256];
  snprintf(lua, sizeof lua, scenario_fmt, ps ? 9 : 2, ps ? 1 : 4, name, options, seed);
  snprintf(what, sizeof what, "%s%s, seed %d", name, options, seed);
  return hs_run_lua(what, lua, 120);
}

static void check(const char *name, const char *options) {
  hs_run_result *a = run(name, options, 3), *b = run(name, options, 3), *c = run(name, options, 4);
  if (a && b && c) {
    tap_ok(a->ok && a->rows > 0 && memcmp(a, b, sizeof *a) == 0,
           "%s%s: the same seed twice gives identical metrics and weights, bit for bit", name, options);
    tap_ok(memcmp(a->params, c->params, sizeof a->params) != 0, "%s%s: another seed gives other weights", name,
           options);
  }
  if (a) hs_run_free(a);
  if (b) hs_run_free(b);
  if (c) hs_run_free(c);
}

int main(void) {
  for (const hs_algorithm_desc *const *d = hs_algorithm_list(); *d; d++) {
    const char *opts = "";
    if (strcmp((*d)->name, "async_model_average") == 0) opts = ", sync_interval = \"100us\"";
    if (strcmp((*d)->name, "qadam") == 0 || strcmp((*d)->name, "onebit_adam") == 0) opts = ", warmup_steps = 10";
    check((*d)->name, opts);
  }
  check("parameter_server", ", mode = \"async\", servers = 2");
  check("parameter_server", ", mode = \"async\", staleness = 3");
  check("decentralized", ", peers = \"ring\", hierarchical = true");
  return tap_done(0);
}
