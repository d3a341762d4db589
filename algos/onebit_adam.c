/* onebit_adam.c — 1-bit Adam: after an uncompressed warm-up, the momentum is
 * averaged by a 1-bit compressed allreduce (sign bits packed, one scale per
 * rank's chunk), with error feedback on the worker side (what it sends) and
 * on the server side (the averaged chunk it sends back); the variance is
 * frozen (algos/compressed_adam.h). Bytes per worker per step after warm-up,
 * per bucket of b parameters over n ranks: 2 (n-1) (4 + ceil(ceil(b/n)/8)). */
#include "algos/compressed_adam.h"

static int onebit_init(hs_algo_ctx *ctx) {
  hs_compressor cz = {.kind = HS_CZ_SIGN};
  return hs_cadam_init(ctx, &cz, 1);
}

static const hs_option_spec onebit_options[] = {
    HS_CADAM_OPTIONS("100"),
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_onebit_adam = {
    .name = "onebit_adam",
    .summary = "Adam with 1-bit compressed momentum (error feedback on both sides) after a warm-up",
    .options = onebit_options,
    .bucket_option = "bucket_size",
    .init = onebit_init,
    .bucket_ready = hs_cadam_bucket_ready,
    .step = hs_cadam_step,
    .finish = hs_cadam_finish,
};
