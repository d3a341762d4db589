/* test_algorithm_convergence.c — every algorithm of the library trains.
 *
 * 16 workers, softmax regression on a 10-class mixture, iid and Dirichlet
 * (alpha = 0.5) partitions: each algorithm (and each variant worth telling
 * apart: decentralized peers, hierarchical forms, Choco's compressors, the
 * parameter server's two modes) ends within 2 points of held-out accuracy
 * of gradient_allreduce trained on the same number of samples (the same
 * iterations x workers x batch; asynchronous algorithms spend that budget
 * however their workers progress). Both accuracies are printed. */
#include <math.h>
#include <stdio.h>

#include "tests/harness.h"
#include "tests/tap.h"
#include "tests/train_run.h"

/* 1 GF/s GPUs: an iteration's compute (~40 us) is what gives asynchronous
 * algorithms time to run; the network is a plain 10 Gbps switch. */
static const char *scenario_fmt =
    "cluster { nodes = %d, gpus_per_node = %d, gpu = { flops = \"1GF\" },\n"
    "  intra = { bandwidth = \"100GBps\" }, inter = { bandwidth = \"10Gbps\", latency = \"5us\" } }\n"
    "workload { model = \"softmax\", dataset = { classes = 10, features = 32, samples = 32000,\n"
    "           partition = \"%s\", alpha = 0.5 }, batch = 32, lr = 0.05, momentum = 0.9 }\n"
    "algorithm { name = \"%s\" %s }\n"
    "run { iterations = 150, seed = 5, eval_every = 50 }\n";

typedef struct {
  const char *name, *options;
  int server_rank; /* the parameter server needs a 17th rank to keep 16 workers */
} variant;

static const variant variants[] = {
    {"fp16_compress", "", 0},
    {"bf16_compress", "", 0},
    {"bytegrad", "", 0},
    {"bytegrad", ", hierarchical = true", 0},
    {"qadam", ", warmup_steps = 30", 0},
    {"onebit_adam", ", warmup_steps = 30", 0},
    {"onebit_adam", ", warmup_steps = 30, hierarchical = true", 0},
    {"qadam", ", warmup_steps = 30, hierarchical = true", 0},
    {"powersgd", ", rank = 2", 0},
    {"decentralized", ", peers = \"all\"", 0},
    {"decentralized", ", peers = \"shift_one\"", 0},
    {"decentralized", ", peers = \"ring\"", 0},
    {"decentralized", ", peers = \"shift_one\", hierarchical = true", 0},
    {"low_precision_decentralized", "", 0},
    {"choco", ", compressor = \"topk\", fraction = 0.1", 0},
    {"choco", ", compressor = \"randomk\", fraction = 0.25, gamma = 0.1", 0},
    {"choco", ", compressor = \"minmax_uint8\"", 0},
    {"choco", ", compressor = \"sign\", gamma = 0.2", 0},
    {"local_sgd", ", period = 4", 0},
    {"async_model_average", ", sync_interval = \"200us\", warmup_steps = 10", 0},
    {"parameter_server", ", mode = \"sync\"", 1},
    {"parameter_server", ", mode = \"async\"", 1},
};

static hs_run_result *train(const char *partition, const variant *v) {
  char lua[2048], what[256];
  int nodes = v->server_rank ? 17 : 4, gpn = v->server_rank ? 1 : 4;
  snprintf(lua, sizeof lua, scenario_fmt, nodes, gpn, partition, v->name, v->options);
  snprintf(what, sizeof what, "%s%s, %s", v->name, v->options, partition);
  return hs_run_lua(what, lua, 300);
}

int main(void) {
  const char *partitions[] = {"iid", "dirichlet"};
  for (int p = 0; p < 2; p++) {
    variant base = {"gradient_allreduce", "", 0};
    hs_run_result *ref = train(partitions[p], &base);
    if (!ref) continue;
    tap_diag("gradient_allreduce, %s: held-out accuracy %.2f%%", partitions[p], 100 * ref->accuracy);
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
      const variant *v = &variants[i];
      hs_run_result *r = train(partitions[p], v);
      if (!r) continue;
      tap_ok(r->ok && fabs(r->accuracy - ref->accuracy) <= 0.02,
             "%s%s, %s: accuracy %.2f%% vs gradient_allreduce %.2f%% (within 2 points), same samples", v->name,
             v->options, partitions[p], 100 * r->accuracy, 100 * ref->accuracy);
      hs_run_free(r);
    }
    hs_run_free(ref);
  }
  return tap_done(0);
}
