/* registry.c — every algorithm hearsay knows, by name. Add yours here. */
#include <string.h>

#include "algos/algorithm.h"

extern const hs_algorithm_desc hs_algo_gradient_allreduce;

static const hs_algorithm_desc *const all_algorithms[] = {
    &hs_algo_gradient_allreduce,
    NULL,
};

const hs_algorithm_desc *const *hs_algorithm_list(void) { return all_algorithms; }

const hs_algorithm_desc *hs_algorithm_find(const char *name) {
  for (int i = 0; all_algorithms[i]; i++)
    if (strcmp(all_algorithms[i]->name, name) == 0) return all_algorithms[i];
  return NULL;
}
