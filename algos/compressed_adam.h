/* compressed_adam.h — Adam whose momentum travels compressed after a warm-up,
 * the machinery QAdam (qadam.c, 8-bit MinMaxUInt8) and 1-bit Adam
 * (onebit_adam.c, scaled sign with error feedback on both sides) share.
 *
 *   warm-up (first warmup_steps): plain Adam on allreduce(avg) gradients;
 *   then: variance frozen; each worker folds its own gradient into its
 *   momentum, m = beta1 m + (1 - beta1) g, the momenta are averaged by the
 *   compressed scatter-gather allreduce (scatter_gather.h), and the weights
 *   take the Adam step with the averaged momentum and the frozen variance.
 *   warmup_steps = 0: compressed from the first step; with no variance to
 *   freeze, it follows the average gradient rebuilt from the averaged
 *   momentum (compressed_adam.c). */
#ifndef HS_COMPRESSED_ADAM_H
#define HS_COMPRESSED_ADAM_H

#include "algos/algorithm.h"
#include "algos/compressor.h"

int hs_cadam_init(hs_algo_ctx *ctx, const hs_compressor *cz, int error_feedback);
void hs_cadam_bucket_ready(hs_algo_ctx *ctx, int bucket);
void hs_cadam_step(hs_algo_ctx *ctx);
void hs_cadam_finish(hs_algo_ctx *ctx);

/* The options both share; each file lists them in its own table. */
#define HS_CADAM_OPTIONS(warmup)                                                                             \
  {"bucket_size", HS_OPT_BYTES, "10MiB", 1, NULL, "momenta are grouped into buckets of about this size"},    \
      {"warmup_steps", HS_OPT_INT, warmup, 0, NULL,                                                          \
       "steps of plain Adam with uncompressed gradient allreduce (0: compressed from the first step)"},      \
      {"lr", HS_OPT_NUMBER, "0", 0, NULL, "Adam's learning rate (0: workload.lr)"},                          \
      {"beta1", HS_OPT_NUMBER, "0.9", 0, NULL, "momentum decay"},                                            \
      {"beta2", HS_OPT_NUMBER, "0.999", 0, NULL, "variance decay"},                                          \
      {"eps", HS_OPT_NUMBER, "1e-8", 0, NULL, "added to the square root of the variance"},                   \
      {"hierarchical", HS_OPT_BOOL, "false", 0, NULL, "full precision inside a node, compressed among node leaders"}

#endif
