/* registry.c — every algorithm hearsay knows, by name. Add yours here. */
#include <string.h>

#include "algos/algorithm.h"

extern const hs_algorithm_desc hs_algo_gradient_allreduce, hs_algo_fp16, hs_algo_bf16, hs_algo_bytegrad,
    hs_algo_qadam, hs_algo_onebit_adam, hs_algo_powersgd, hs_algo_decentralized, hs_algo_low_precision_decentralized,
    hs_algo_choco, hs_algo_local_sgd, hs_algo_async_model_average, hs_algo_adpsgd, hs_algo_parameter_server;

static const hs_algorithm_desc *const all_algorithms[] = {
    /* centralized, synchronous */
    &hs_algo_gradient_allreduce, &hs_algo_fp16, &hs_algo_bf16, &hs_algo_bytegrad, &hs_algo_qadam,
    &hs_algo_onebit_adam, &hs_algo_powersgd,
    /* decentralized */
    &hs_algo_decentralized, &hs_algo_low_precision_decentralized, &hs_algo_choco, &hs_algo_local_sgd,
    /* asynchronous */
    &hs_algo_async_model_average, &hs_algo_adpsgd, &hs_algo_parameter_server,
    NULL,
};

const hs_algorithm_desc *const *hs_algorithm_list(void) { return all_algorithms; }

const hs_algorithm_desc *hs_algorithm_find(const char *name) {
  for (int i = 0; all_algorithms[i]; i++)
    if (strcmp(all_algorithms[i]->name, name) == 0) return all_algorithms[i];
  return NULL;
}

void hs_algorithm_layout(const hs_scenario *sc, hs_server_layout *out) {
  const hs_algorithm_desc *d = hs_algorithm_find(sc->algorithm.name);
  *out = (hs_server_layout){0};
  if (d && d->layout) d->layout(sc, out);
}

int hs_algorithm_servers(const hs_scenario *sc) {
  hs_server_layout l;
  hs_algorithm_layout(sc, &l);
  return l.gpu_servers + sc->cluster.nodes * l.cpu_per_node + l.server_machines;
}

int hs_algorithm_workers(const hs_scenario *sc) {
  hs_server_layout l;
  hs_algorithm_layout(sc, &l);
  return hs_scenario_gpus(sc) - l.gpu_servers;
}

int hs_algorithm_max_iterations(const hs_scenario *sc) {
  const hs_algorithm_desc *d = hs_algorithm_find(sc->algorithm.name);
  return sc->run.iterations * (d && d->asynchronous ? HS_ASYNC_SLACK : 1);
}
