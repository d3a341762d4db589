/* ddp_copies.c — PyTorch DDP's reducer copies (ddp_buckets.h). */
#include <stdlib.h>

#include "algos/ddp_buckets.h"
#include "algos/train/gpu_kernel.h"

void hs_ddp_cut_at_tensors(const hs_options *opt, hs_bucket_layout *layout) {
  (void)opt;
  layout->tensors = 1;
}

int *hs_ddp_bucket_tensors(const hs_model *m) {
  int *t = calloc(m->n_buckets > 0 ? (size_t)m->n_buckets : 1, sizeof *t);
  if (!t) return NULL;
  for (int b = 0; b < m->n_buckets; b++) t[b] = m->buckets[b].tensors;
  return t;
}

double hs_ddp_copy_in_seconds(const hs_algo_ctx *ctx, const int *bucket_tensors, int b) {
  return hs_gpu_kernel_seconds(&ctx->sc->cluster, 8.0 * (double)ctx->model->buckets[b].count, bucket_tensors[b]);
}

double hs_ddp_copy_out_seconds(const hs_algo_ctx *ctx) {
  return hs_gpu_kernel_seconds(&ctx->sc->cluster, 8.0 * (double)ctx->model->n_params, ctx->model->n_tensors);
}
