/* algorithm.h — what an algorithm implements, and how the loop drives it.
 *
 * An algorithm is one file in algos/ that defines one hs_algorithm_desc and
 * is listed in algos/registry.c. Hooks talk to the cluster only through
 * algos/comm/comm.h (ctx->w) and compute only through kernels/, never
 * through a backend's headers. docs/writing-an-algorithm.md walks through
 * one.
 *
 * The lifecycle, on every rank (algos/train/train.c):
 *
 *     init()                once, before the first iteration, on every rank
 *                           of w->world; ctx->model->params holds this rank's
 *                           initial weights
 *     per iteration, workers:
 *       keep_going()        asynchronous algorithms only: 0 ends this worker's run
 *       begin_iteration()   before forward (e.g. take the weight lock, post a
 *                           weight exchange that overlaps compute)
 *       forward ... backward of the last layer ... bucket_ready(b) for each
 *       bucket as soon as its gradients exist ... backward of the first layer
 *       step()              after backward: finish communication, update weights
 *     servers (ranks whose role is HS_ROLE_SERVER: the last ones, as the
 *     algorithm's layout places them) run serve() instead, until it returns
 *     finish()              once at the end: join the algorithm's threads,
 *                           free ctx->state
 *
 * After a failure under run.on_failure = "shrink" (docs/stragglers.md):
 *
 *     finish()              the algorithm is torn down first, whatever it was
 *                           doing; ctx->state is then NULL
 *     (the loop)            survivors agree on the iteration to resume from,
 *                           form a new w->world (new w->rank, w->size), and
 *                           agree on the weights: every survivor's
 *                           ctx->model->params is rank 0's of the new world
 *     init()                again, ctx->restarts one higher, ctx->iteration
 *                           the iteration to resume from
 *
 * so init must be re-entrant: it builds everything from ctx (the agreed
 * weights, the new world and its placement) and keeps nothing from the
 * previous start: no static state, no communicator of the old world (they
 * are revoked), no copy of the old weights. Any copy of the model an
 * algorithm keeps (public copies of neighbours, an outer optimizer's
 * anchor, a server's shard) is taken in init, from the agreed weights,
 * which is why every survivor starts equal. Momentum buffers, error
 * feedback and other per-rank state restart from zero, as after an elastic
 * restart. A failure while the survivors agree (on the iteration or on the
 * weights) makes them agree again from the start; init is never called
 * twice without a finish in between. */
#ifndef HS_ALGORITHM_H
#define HS_ALGORITHM_H

#include "algos/comm/comm.h"
#include "algos/workloads/model.h"
#include "algos/options.h"
#include "scenarios/scenario.h"

/* Where an algorithm's servers run (hs_algorithm_desc.layout). Server
 * ranks are the world's last: the last gpu_servers GPUs, then CPU
 * processes, one on every GPU node per cpu_per_node and one on each of
 * server_machines CPU-only machines (scenario.h numbers them). */
typedef struct {
  int gpu_servers;
  int cpu_per_node;
  int server_machines;
} hs_server_layout;

typedef struct hs_algo_ctx {
  hs_worker *w;
  const hs_scenario *sc;
  const hs_options *opt; /* the algorithm's validated options */
  hs_model *model;
  int iteration;         /* 0-based, the one being run */
  void *state;           /* the algorithm's own, set by init, freed by finish */
  int restarts;          /* times init ran again after a shrink (0: the first start) */
} hs_algo_ctx;

typedef struct hs_algorithm_desc {
  const char *name;
  const char *summary;
  const hs_option_spec *options; /* terminated by an entry with key == NULL */
  /* Bucket size the loop should cut the model into (bytes); the option
   * named here is read from ctx->opt, NULL means one bucket per model. */
  const char *bucket_option;
  /* Options that shape the cut further (ddp_buckets.h), or NULL: the
   * first bucket's limit (bytes) and the order of the cut ("ready" or
   * "definition"). */
  const char *first_bucket_option;
  const char *bucket_order_option;
  /* Adjusts the cut the options above describe, from the validated
   * options, or NULL (gradient_allreduce under Horovod's loop cuts a bucket
   * a layer, which its loop fuses by what is ready at each cycle). */
  void (*bucket_layout)(const hs_options *opt, hs_bucket_layout *layout);
  /* Where its servers run, from the validated options; NULL: every rank
   * is a worker GPU. */
  void (*layout)(const hs_scenario *sc, hs_server_layout *out);
  /* Workers progress at their own pace: run.iterations is then the budget
   * of the mean worker (iterations x workers in all), a fast worker may run
   * up to HS_ASYNC_SLACK times that, and keep_going decides when to stop. */
  int asynchronous;
  /* Checks that need the whole scenario (rank counts, option combinations).
   * Returns NULL, or the offending option's key with a message in msg. */
  const char *(*validate)(const hs_scenario *sc, char *msg, size_t len);
  int (*init)(hs_algo_ctx *ctx);
  int (*keep_going)(hs_algo_ctx *ctx);
  void (*begin_iteration)(hs_algo_ctx *ctx);
  void (*bucket_ready)(hs_algo_ctx *ctx, int bucket);
  /* Seconds of the kernels that backward's hooks run on the compute stream
   * as bucket b's gradients come out, before bucket_ready (PyTorch DDP's
   * reducer copying each gradient into its bucket; a communication hook's
   * division and conversion), or NULL for none. The loop charges them in
   * the bucket's backward execution, where they run on the GPU: one
   * activity instead of two (a sleep a bucket a rank was a fifth of
   * bench-scale's B), stretched like backward by the SMs that running
   * collectives hold, and inside the bucket's span of the trace. */
  double (*bucket_kernels)(hs_algo_ctx *ctx, int bucket);
  void (*step)(hs_algo_ctx *ctx);
  void (*serve)(hs_algo_ctx *ctx);
  void (*finish)(hs_algo_ctx *ctx);
} hs_algorithm_desc;

#define HS_ASYNC_SLACK 2

const hs_algorithm_desc *hs_algorithm_find(const char *name);
/* NULL-terminated list of every algorithm, for --help and error messages. */
const hs_algorithm_desc *const *hs_algorithm_list(void);

/* The scenario's server layout (all zero when the algorithm has none). */
void hs_algorithm_layout(const hs_scenario *sc, hs_server_layout *out);
/* Ranks that act as servers (GPUs and CPU processes) / workers (GPUs). */
int hs_algorithm_servers(const hs_scenario *sc);
int hs_algorithm_workers(const hs_scenario *sc);
/* Rows the metrics need: the most iterations one worker may run. */
int hs_algorithm_max_iterations(const hs_scenario *sc);

#endif
