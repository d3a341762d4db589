/* sign.c — scaled sign compressor with optional error feedback (compress.h),
 * the compressor of 1-bit Adam and of Choco-SGD's "sign" option. */
#include <math.h>
#include <string.h>

#include "kernels/compress.h"
#include "kernels/sign_lanes.h"

size_t hs_k_sign_bytes(size_t n, size_t chunk) { return hs_k_chunks(n, chunk) * sizeof(float) + (n + 7) / 8; }

/* Sum of squares in double, in sign_lanes.h's order: per tile, lane j
 * takes elements j, j+LANES, ... in order and lanes are combined by halving
 * strides, exactly as a CUDA block does; tiles are then added in order. */
static double tile_squares(const float *buf, size_t len) {
  double lane[HS_K_SIGN_LANES];
  for (size_t j = 0; j < HS_K_SIGN_LANES; j++) {
    double s = 0;
    for (size_t i = j; i < len; i += HS_K_SIGN_LANES) s += (double)buf[i] * (double)buf[i];
    lane[j] = s;
  }
  for (size_t stride = HS_K_SIGN_LANES / 2; stride > 0; stride /= 2)
    for (size_t j = 0; j < stride; j++) lane[j] += lane[j + stride];
  return lane[0];
}

static double sum_squares(const float *buf, size_t len) {
  double s = 0;
  for (size_t a = 0; a < len; a += HS_K_SIGN_TILE)
    s += tile_squares(buf + a, len - a < HS_K_SIGN_TILE ? len - a : HS_K_SIGN_TILE);
  return s;
}

void hs_k_sign_encode(const float *x, float *err, size_t n, size_t chunk, uint8_t *out) {
  size_t nc = hs_k_chunks(n, chunk);
  uint8_t *bits = out + nc * sizeof(float);
  memset(bits, 0, (n + 7) / 8);
  for (size_t c = 0; c < nc; c++) {
    size_t a = c * chunk, len = (a + chunk < n ? a + chunk : n) - a;
    /* The chunk's values to compress (x + err), in place in err when error
     * feedback is on, so nothing is allocated. */
    const float *v = x + a;
    if (err) {
      for (size_t i = 0; i < len; i++) err[a + i] += x[a + i];
      v = err + a;
    }
    float scale = (float)(sqrt(sum_squares(v, len)) / sqrt((double)len));
    memcpy(out + c * sizeof(float), &scale, sizeof scale);
    for (size_t i = 0; i < len; i++) {
      int positive = v[i] >= 0;
      if (positive) bits[(a + i) / 8] |= (uint8_t)(1u << ((a + i) % 8));
      if (err) err[a + i] = v[i] - (positive ? scale : -scale);
    }
  }
}

void hs_k_sign_decode(const uint8_t *in, size_t n, size_t chunk, float *x) {
  size_t nc = hs_k_chunks(n, chunk);
  const uint8_t *bits = in + nc * sizeof(float);
  for (size_t c = 0; c < nc; c++) {
    size_t a = c * chunk, b = a + chunk < n ? a + chunk : n;
    float scale;
    memcpy(&scale, in + c * sizeof(float), sizeof scale);
    for (size_t i = a; i < b; i++) x[i] = (bits[i / 8] >> (i % 8)) & 1 ? scale : -scale;
  }
}
