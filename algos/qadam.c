/* qadam.c — Bagua's QAdam: Adam whose momentum is averaged through an 8-bit
 * (MinMaxUInt8) compressed allreduce after `warmup_steps` of plain Adam;
 * the variance is frozen after the warm-up (algos/compressed_adam.h).
 * Bytes per worker per step after warm-up: as bytegrad, 2 (n-1) (8 + ceil(b/n))
 * per bucket of b parameters; during warm-up, gradient_allreduce's. */
#include "algos/compressed_adam.h"

static int qadam_init(hs_algo_ctx *ctx) {
  hs_compressor cz = {.kind = HS_CZ_MINMAX_U8};
  return hs_cadam_init(ctx, &cz, 0);
}

static const hs_option_spec qadam_options[] = {
    HS_CADAM_OPTIONS("100"),
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_qadam = {
    .name = "qadam",
    .summary = "Adam with 8-bit compressed momentum after a warm-up, variance frozen",
    .options = qadam_options,
    .bucket_option = "bucket_size",
    .init = qadam_init,
    .bucket_ready = hs_cadam_bucket_ready,
    .step = hs_cadam_step,
    .finish = hs_cadam_finish,
};
