/* ddp_buckets.h — how PyTorch DDP's reducer cuts a model into buckets, as
 * options of the algorithms that run on DDP's buckets (gradient_allreduce
 * and DDP's communication hooks: fp16/bf16_compress, powersgd).
 *
 * DDP fills buckets of at least bucket_cap_mb (25 MiB), but caps the first
 * one at dist._DEFAULT_FIRST_BUCKET_BYTES (1 MiB, c10d's
 * kDefaultFirstBucketBytes): "a single small bucket for parameters that are
 * defined first, such that their gradients don't spill into a much larger
 * bucket, adding unnecessary latency after gradient computation finishes.
 * Experiments showed 1MB is a reasonable value" (torch/nn/parallel/
 * distributed.py). Up to PyTorch 1.4 the buckets are cut in definition
 * order, from the input layers, and then reversed: the 1 MiB bucket is the
 * last one ready, and the one holding the output layer is what is left
 * over. Since PyTorch 1.5 the reducer rebuilds its buckets after the first
 * iteration in the order the gradients became ready (pytorch/pytorch#35137,
 * March 2020), with the same two limits: the 1 MiB bucket is then the
 * first ready and the input layers' is the remainder. hearsay models the
 * steady state (the first iteration's layout is not modelled). */
#ifndef HS_DDP_BUCKETS_H
#define HS_DDP_BUCKETS_H

#include "algos/algorithm.h"

#define HS_DDP_BUCKET_OPTIONS                                                                                        \
  {"first_bucket_size", HS_OPT_BYTES, "1MiB", 0, NULL,                                                              \
   "the first bucket cut is closed at this size (DDP's _DEFAULT_FIRST_BUCKET_BYTES, 1 MiB); 0: like the others "    \
   "(Horovod's fusion, Bagua)"},                                                                                     \
      {"bucket_order", HS_OPT_STRING, "ready", 0, "ready|definition",                                               \
       "ready: buckets cut in the order backward readies the gradients, from the output layer (DDP's rebuilt "      \
       "buckets, PyTorch 1.5 and later); definition: cut from the input layer (PyTorch 1.4 and before), the first " \
       "bucket being the last one ready"}

#define HS_DDP_BUCKET_LAYOUT .first_bucket_option = "first_bucket_size", .bucket_order_option = "bucket_order"

/* DDP keeps each parameter's gradient apart from the bucket it is reduced
 * in (gradient_as_bucket_view=False, its default): as a gradient is ready
 * the reducer copies it into its bucket (Reducer::mark_variable_ready_dense,
 * on the compute stream), and once the bucket's communication (allreduce,
 * or a communication hook's future) is done it copies each back
 * (copy_bucket_to_grad). 8 bytes a parameter and a launch per tensor each
 * way, whatever runs on the bucket in between. */
#define HS_DDP_BUCKET_VIEW_OPTION                                                                                     \
  {"gradient_as_bucket_view", HS_OPT_BOOL, "false", 0, NULL,                                                        \
   "gradients live in their buckets (Bagua, DDP's gradient_as_bucket_view=True); false: DDP's default, each "       \
   "gradient copied into its bucket and back, 8 bytes a parameter and a launch per tensor each way"}

/* DDP's reducer assigns tensors to buckets, not layers
 * (compute_bucket_assignment_by_size): an algorithm on DDP's buckets
 * whose hook does not need a layer whole sets this as its bucket_layout
 * (hs_bucket_layout.tensors). */
void hs_ddp_cut_at_tensors(const hs_options *opt, hs_bucket_layout *layout);
/* Parameter tensors of each bucket (the copies' launches); NULL if out of memory. */
int *hs_ddp_bucket_tensors(const hs_model *m);
/* Seconds of copying bucket b's gradients into it (on the compute stream,
 * in backward's hooks: an algorithm's bucket_kernels). */
double hs_ddp_copy_in_seconds(const hs_algo_ctx *ctx, const int *bucket_tensors, int b);
/* Seconds of copying every gradient back out of its bucket (on the
 * compute stream, before the step: hs_sgd_step_after). */
double hs_ddp_copy_out_seconds(const hs_algo_ctx *ctx);

#endif
