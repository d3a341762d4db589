/* compressor.c — dispatch from hs_compressor to the kernels. */
#include "algos/compressor.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/compress.h"
#include "kernels/kernels.h"

int hs_cz_parse(const char *name) {
  static const char *const names[] = {"minmax_uint8", "sign", "topk", "randomk", "fp16", "bf16"};
  for (int i = 0; i < 6; i++)
    if (strcmp(name, names[i]) == 0) return i;
  return -1;
}

size_t hs_cz_kept(const hs_compressor *c, size_t n) {
  size_t k = (size_t)(c->fraction * (double)n);
  return k < 1 ? (n ? 1 : 0) : k > n ? n : k;
}

static size_t chunk_of(const hs_compressor *c, size_t n) { return c->chunk && c->chunk < n ? c->chunk : n; }

size_t hs_cz_bytes(const hs_compressor *c, size_t n) {
  if (n == 0) return 0;
  switch (c->kind) {
  case HS_CZ_MINMAX_U8: return hs_k_minmax_u8_bytes(n, chunk_of(c, n));
  case HS_CZ_SIGN: return hs_k_sign_bytes(n, chunk_of(c, n));
  case HS_CZ_TOPK: return hs_k_topk_bytes(hs_cz_kept(c, n));
  case HS_CZ_RANDK: return hs_k_randk_bytes(hs_cz_kept(c, n));
  case HS_CZ_FP16:
  case HS_CZ_BF16: return 2 * n;
  }
  return 0;
}

double hs_cz_encode_bytes_touched(const hs_compressor *c, size_t n) {
  double wire = (double)hs_cz_bytes(c, n), x = 4.0 * (double)n;
  switch (c->kind) {
  case HS_CZ_TOPK: return 5 * x + wire;
  case HS_CZ_RANDK: return 4.0 * (double)hs_cz_kept(c, n) + wire;
  default: return x + wire;
  }
}

double hs_cz_decode_bytes_touched(const hs_compressor *c, size_t n) { return (double)hs_cz_bytes(c, n) + 4.0 * (double)n; }

/* Compresses x as it is; sign alone also applies err (in its own pass). */
static void encode(const hs_compressor *c, const float *x, float *err, size_t n, uint64_t step, uint8_t *out) {
  switch (c->kind) {
  case HS_CZ_MINMAX_U8: hs_k_minmax_u8_encode(x, n, chunk_of(c, n), out); break;
  case HS_CZ_SIGN: hs_k_sign_encode(x, err, n, chunk_of(c, n), out); break;
  case HS_CZ_TOPK: hs_k_topk_encode(x, n, hs_cz_kept(c, n), out); break;
  case HS_CZ_RANDK: {
    size_t k = hs_cz_kept(c, n);
    uint32_t *idx = malloc(k * sizeof *idx);
    hs_k_randk_indices(c->seed, step, n, k, idx);
    float *v = malloc(k * sizeof *v);
    hs_k_gather_f32(x, idx, k, v);
    memcpy(out, v, k * sizeof *v);
    free(v);
    free(idx);
    break;
  }
  case HS_CZ_FP16: {
    uint16_t *h = malloc(n * sizeof *h);
    hs_k_to_f16(x, n, h);
    memcpy(out, h, n * sizeof *h);
    free(h);
    break;
  }
  case HS_CZ_BF16: {
    uint16_t *h = malloc(n * sizeof *h);
    hs_k_to_bf16(x, n, h);
    memcpy(out, h, n * sizeof *h);
    free(h);
    break;
  }
  }
}

void hs_cz_encode(const hs_compressor *c, const float *x, float *err, size_t n, uint64_t step, uint8_t *out) {
  if (n == 0) return;
  if (!err || c->kind == HS_CZ_SIGN) {
    encode(c, x, err, n, step, out);
    return;
  }
  /* Error feedback for every other compressor, EF-SGD's rule with the same
   * roundings as the sign kernel: v = err + x is compressed, and err keeps
   * v - C(v), what the receiver will not see this time. For top-k and
   * random-k C(v) is v on the kept indices and 0 elsewhere, so err is 0
   * there and v elsewhere, exactly. v is built in err itself so nothing
   * but the decoded copy is allocated. */
  hs_k_axpy_f32(err, x, 1.0f, n);
  encode(c, err, NULL, n, step, out);
  float *sent = malloc(n * sizeof *sent);
  hs_cz_decode(c, out, n, step, sent);
  hs_k_axpy_f32(err, sent, -1.0f, n);
  free(sent);
}

void hs_cz_decode(const hs_compressor *c, const uint8_t *in, size_t n, uint64_t step, float *x) {
  if (n == 0) return;
  switch (c->kind) {
  case HS_CZ_MINMAX_U8: hs_k_minmax_u8_decode(in, n, chunk_of(c, n), x); break;
  case HS_CZ_SIGN: hs_k_sign_decode(in, n, chunk_of(c, n), x); break;
  case HS_CZ_TOPK: hs_k_topk_decode(in, n, hs_cz_kept(c, n), x); break;
  case HS_CZ_RANDK: {
    size_t k = hs_cz_kept(c, n);
    uint32_t *idx = malloc(k * sizeof *idx);
    float *v = malloc(k * sizeof *v);
    hs_k_randk_indices(c->seed, step, n, k, idx);
    memcpy(v, in, k * sizeof *v);
    hs_k_scatter_f32(v, idx, k, n, x);
    free(v);
    free(idx);
    break;
  }
  case HS_CZ_FP16:
  case HS_CZ_BF16: {
    uint16_t *h = malloc(n * sizeof *h);
    memcpy(h, in, n * sizeof *h);
    if (c->kind == HS_CZ_FP16) hs_k_from_f16(h, n, x);
    else hs_k_from_bf16(h, n, x);
    free(h);
    break;
  }
  }
}
