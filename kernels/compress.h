/* compress.h — gradient and weight compressors, the C reference.
 *
 * Every compressor turns n float32 values into a byte string whose length
 * is known in advance (the *_bytes functions, the formulas docs/algorithms.md
 * quotes), and back. Layouts are fixed so the CUDA twins (kernels_cuda.h)
 * produce the same bytes:
 *
 *   minmax-uint8  [n_chunks x {float min, float max}] [n bytes q]
 *                 per chunk (Bagua's MinMaxUInt8): scale = 255/(max-min+eps),
 *                 upper = rint(max*scale), lower = upper-255,
 *                 q = min(rint(x*scale), upper) - lower, x^ = (q+lower)/scale
 *   sign          [n_chunks x float scale] [ceil(n/8) bytes of sign bits]
 *                 bit i (byte i/8, bit i%8) is 1 when x_i >= 0; scale is the
 *                 chunk's root mean square, x^ = +-scale
 *   top-k         [k x uint32 index, ascending] [k x float value]
 *   random-k      [k x float value]; the k indices are not sent, every rank
 *                 draws the same ones from (seed, step)
 *   fp16 / bf16   n x uint16, IEEE binary16 / bfloat16, rounded to nearest even
 *
 * Chunks are consecutive runs of `chunk` elements; the last may be shorter. */
#ifndef HS_COMPRESS_H
#define HS_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

/* Bagua's eps in the MinMaxUInt8 scale, so a constant chunk does not divide by 0. */
#define HS_K_MINMAX_EPS 1e-7f

static inline size_t hs_k_chunks(size_t n, size_t chunk) { return chunk ? (n + chunk - 1) / chunk : 0; }

/* ---- MinMaxUInt8 -------------------------------------------------------- */
size_t hs_k_minmax_u8_bytes(size_t n, size_t chunk);
void hs_k_minmax_u8_encode(const float *x, size_t n, size_t chunk, uint8_t *out);
void hs_k_minmax_u8_decode(const uint8_t *in, size_t n, size_t chunk, float *x);

/* ---- scaled sign, with optional error feedback -------------------------- */
size_t hs_k_sign_bytes(size_t n, size_t chunk);
/* With err != NULL (error feedback): buf = x + err is compressed and err is
 * set to buf - x^, so what was sent plus the new err is exactly buf. With
 * err == NULL, x itself is compressed. A chunk's sum of squares is taken in
 * double over 256 strided lanes combined by a binary tree, an order the
 * CUDA twin reproduces. */
void hs_k_sign_encode(const float *x, float *err, size_t n, size_t chunk, uint8_t *out);
void hs_k_sign_decode(const uint8_t *in, size_t n, size_t chunk, float *x);

/* ---- sparsifiers --------------------------------------------------------- */
static inline size_t hs_k_topk_bytes(size_t k) { return k * (sizeof(uint32_t) + sizeof(float)); }
static inline size_t hs_k_randk_bytes(size_t k) { return k * sizeof(float); }
/* The k elements of largest magnitude (ties: the lower index wins). */
void hs_k_topk_encode(const float *x, size_t n, size_t k, uint8_t *out);
/* x = 0 except at the k sent indices. */
void hs_k_topk_decode(const uint8_t *in, size_t n, size_t k, float *x);
/* k distinct indices in [0, n), ascending, drawn from (seed, step) alone:
 * every rank that passes the same arguments gets the same set. */
void hs_k_randk_indices(uint64_t seed, uint64_t step, size_t n, size_t k, uint32_t *idx);
/* out[j] = x[idx[j]] */
void hs_k_gather_f32(const float *x, const uint32_t *idx, size_t k, float *out);
/* x = 0, then x[idx[j]] = v[j] */
void hs_k_scatter_f32(const float *v, const uint32_t *idx, size_t k, size_t n, float *x);

/* ---- half precision ------------------------------------------------------ */
uint16_t hs_k_f32_to_f16(float f);
float hs_k_f16_to_f32(uint16_t h);
uint16_t hs_k_f32_to_bf16(float f);
float hs_k_bf16_to_f32(uint16_t h);
void hs_k_to_f16(const float *x, size_t n, uint16_t *out);
void hs_k_from_f16(const uint16_t *in, size_t n, float *x);
void hs_k_to_bf16(const float *x, size_t n, uint16_t *out);
void hs_k_from_bf16(const uint16_t *in, size_t n, float *x);

#endif
