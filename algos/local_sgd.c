/* local_sgd.c — local SGD (model averaging every H steps).
 *
 * Each worker takes H local SGD steps on its own data, then all workers
 * replace their weights by the average (allreduce(avg) of the model).
 * Bytes per worker: 2(n-1)/n model sizes every H steps (ring), nothing in
 * between; momentum stays local.
 *
 * The averaging runs as PyTorch's post-local SGD does it
 * (torch.distributed.algorithms.model_averaging.utils.average_parameters):
 * the parameters are concatenated into one flat buffer (torch.cat: read
 * and write 4 bytes a parameter), divided by the world size in place
 * (another 8), allreduced, and left as views of that buffer (no copy
 * back): 16 bytes a parameter and two launches, on the compute stream. */
#include <stdlib.h>

#include "algos/algorithm.h"
#include "algos/train/gpu_kernel.h"
#include "algos/train/sgd.h"

typedef struct {
  int period;
  float *momentum;
} lsgd_state;

static int lsgd_init(hs_algo_ctx *ctx) {
  lsgd_state *s = calloc(1, sizeof *s);
  s->period = (int)hs_opt_int(ctx->opt, "period");
  s->momentum = hs_sgd_momentum_alloc(ctx);
  ctx->state = s;
  return 0;
}

static void lsgd_step(hs_algo_ctx *ctx) {
  lsgd_state *s = ctx->state;
  hs_model *m = ctx->model;
  hs_sgd_step(ctx, m->grads, s->momentum);
  if ((ctx->iteration + 1) % s->period) return;
  hs_gpu_kernel(ctx, 16.0 * (double)m->n_params, 2);
  hs_buf x = hs_model_buf(m, m->params);
  hs_request *r = NULL;
  hs_allreduce(ctx->w, ctx->w->world, x, x, HS_AVG, &r);
  hs_wait(ctx->w, &r);
}

static void lsgd_finish(hs_algo_ctx *ctx) {
  lsgd_state *s = ctx->state;
  free(s->momentum);
  free(s);
}

static const hs_option_spec lsgd_options[] = {
    {"period", HS_OPT_INT, "4", 1, NULL, "local steps between two model averages (H)"},
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_local_sgd = {
    .name = "local_sgd",
    .summary = "local SGD: H local steps, then allreduce(avg) of the weights",
    .options = lsgd_options,
    .init = lsgd_init,
    .step = lsgd_step,
    .finish = lsgd_finish,
};
