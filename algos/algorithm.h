/* algorithm.h — what an algorithm implements, and how the loop drives it.
 *
 * An algorithm is one file in algos/ that defines one hs_algorithm_desc and
 * is listed in algos/registry.c. The shared training loop (algos/train.c)
 * calls, on every worker and every iteration:
 *
 *     forward ... backward of the last layer ... bucket_ready(b) for each
 *     bucket as soon as its gradients exist ... backward of the first layer
 *     step()            after backward: finish communication, update weights
 *
 * and finish() once at the end. Hooks talk to the cluster only through
 * algos/comm.h (ctx->w) and compute only through kernels/ — never through a
 * backend's headers. docs/writing-an-algorithm.md walks through one. */
#ifndef HS_ALGORITHM_H
#define HS_ALGORITHM_H

#include "algos/comm.h"
#include "algos/model.h"
#include "algos/options.h"
#include "scenarios/scenario.h"

typedef struct hs_algo_ctx {
  hs_worker *w;
  const hs_scenario *sc;
  const hs_options *opt; /* the algorithm's validated options */
  hs_model *model;
  int iteration;         /* 0-based, the one being run */
  void *state;           /* the algorithm's own, set by init */
} hs_algo_ctx;

typedef struct hs_algorithm_desc {
  const char *name;
  const char *summary;
  const hs_option_spec *options; /* terminated by an entry with key == NULL */
  /* Bucket size the loop should cut the model into (bytes); the option
   * named here is read from ctx->opt, NULL means one bucket per model. */
  const char *bucket_option;
  int (*init)(hs_algo_ctx *ctx);
  void (*bucket_ready)(hs_algo_ctx *ctx, int bucket);
  void (*step)(hs_algo_ctx *ctx);
  void (*finish)(hs_algo_ctx *ctx);
} hs_algorithm_desc;

const hs_algorithm_desc *hs_algorithm_find(const char *name);
/* NULL-terminated list of every algorithm, for --help and error messages. */
const hs_algorithm_desc *const *hs_algorithm_list(void);

#endif
