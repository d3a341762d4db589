/* sgd.h — the local optimizer step the SGD-based algorithms share: the
 * workload's SGD with momentum and weight decay (kernels' fused step) on
 * the flat model, a no-op in timing-only runs. */
#ifndef HS_SGD_H
#define HS_SGD_H

#include <stdlib.h>

#include "algos/algorithm.h"
#include "algos/train/gpu_kernel.h"
#include "kernels/kernels.h"

/* Momentum state for the model, or NULL when none is needed. */
static inline float *hs_sgd_momentum_alloc(const hs_algo_ctx *ctx) {
  return ctx->model->params && ctx->sc->workload.momentum > 0 ? calloc(ctx->model->n_params, sizeof(float)) : NULL;
}

/* params -= lr * (momentum-filtered grad + weight decay), with grad given.
 * Its kernel reads the gradient and the weights and writes the weights,
 * and reads and writes the momentum when there is one: 12 or 20 bytes a
 * parameter, in one launch per bucket over the flattened buckets (Bagua's
 * fused optimizer) or one per parameter tensor (workload.fused_optimizer =
 * false, a per-tensor optimizer: torchvision's ResNet-50 has 161), numbers
 * or not (gpu_kernel.h). The step comes after `before` seconds of other
 * kernels on the same stream (the mixing and the copies an algorithm runs
 * between its communication and its update), charged with its own as one
 * piece of GPU time: they run back to back, and one activity a step
 * instead of one a kernel is a seventh of bench-scale's C. */
static inline void hs_sgd_step_after(hs_algo_ctx *ctx, double before, const float *grad, float *momentum) {
  hs_model *m = ctx->model;
  const hs_workload_spec *wl = &ctx->sc->workload;
  double bytes = (double)m->n_params * (wl->momentum > 0 ? 20 : 12);
  int launches = wl->fused_optimizer ? m->n_buckets : m->n_tensors;
  hs_gpu_busy(ctx->w, before + hs_gpu_kernel_seconds(&ctx->sc->cluster, bytes, launches));
  if (!m->params) return;
  hs_k_sgd_momentum_f32(m->params, grad, momentum, m->n_params, (float)wl->lr, (float)wl->momentum,
                        (float)wl->weight_decay);
}

static inline void hs_sgd_step(hs_algo_ctx *ctx, const float *grad, float *momentum) {
  hs_sgd_step_after(ctx, 0, grad, momentum);
}

#endif
