/* compressor.h — one name for every compressor in kernels/compress.h, so an
 * algorithm can take "which compressor" as an option (Choco-SGD) and compute
 * its wire size without caring which one it is. */
#ifndef HS_COMPRESSOR_H
#define HS_COMPRESSOR_H

#include <stddef.h>
#include <stdint.h>

typedef enum { HS_CZ_MINMAX_U8, HS_CZ_SIGN, HS_CZ_TOPK, HS_CZ_RANDK, HS_CZ_FP16, HS_CZ_BF16 } hs_cz_kind;

typedef struct {
  hs_cz_kind kind;
  size_t chunk;    /* minmax / sign: elements per scale (0: the whole buffer) */
  double fraction; /* top-k / random-k: share of elements kept */
  uint64_t seed;   /* random-k: the shared seed */
} hs_compressor;

/* "minmax_uint8|sign|topk|randomk|fp16|bf16" -> kind; -1 if unknown. */
int hs_cz_parse(const char *name);
/* Elements kept by top-k / random-k out of n (at least 1). */
size_t hs_cz_kept(const hs_compressor *c, size_t n);
/* Bytes on the wire for n elements. */
size_t hs_cz_bytes(const hs_compressor *c, size_t n);
/* Bytes a GPU touches (reads and writes, for algos/train/gpu_kernel.h) to
 * encode n elements without error feedback, and to decode them into n
 * floats. Encoding reads the input once and writes the wire bytes, except:
 * top-k reads it five times (PyTorch's multi-block top-k on 32-bit keys:
 * four 8-bit radix-select passes, then a gather; aten/src/ATen/native/
 * cuda/TensorTopK.cu), random-k reads only the k values it gathers.
 * Decoding reads the wire bytes and writes every float (a sparsifier's
 * zeros too). */
double hs_cz_encode_bytes_touched(const hs_compressor *c, size_t n);
double hs_cz_decode_bytes_touched(const hs_compressor *c, size_t n);
/* Compresses x (n elements) into out. err: error feedback state (n floats,
 * zero at first; NULL for none), for every kind: v = x + err is compressed
 * and err becomes v - decode(out), so what is sent plus the new err is v.
 * step feeds random-k's shared draw. */
void hs_cz_encode(const hs_compressor *c, const float *x, float *err, size_t n, uint64_t step, uint8_t *out);
/* x = decompressed values (zeros where a sparsifier sent nothing). */
void hs_cz_decode(const hs_compressor *c, const uint8_t *in, size_t n, uint64_t step, float *x);

#endif
