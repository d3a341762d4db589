/* ring_copies.c — compressed-difference ring gossip (ring_copies.h). */
#include "algos/ring_copies.h"

#include <stdlib.h>

#include "algos/peers/ring.h"
#include "algos/train/gpu_kernel.h"
#include "kernels/kernels.h"

void hs_ring_copies_init(hs_ring_copies *r, const hs_compressor *cz, const hs_cluster_spec *gpu, size_t n,
                         int numeric) {
  *r = (hs_ring_copies){.cz = *cz, .gpu = gpu, .n = n, .wire = hs_cz_bytes(cz, n)};
  if (!numeric) return;
  r->mine = calloc(n, sizeof(float)), r->left = calloc(n, sizeof(float)), r->right = calloc(n, sizeof(float));
  r->diff = malloc(n * sizeof(float)), r->tmp = malloc(n * sizeof(float));
  r->out = malloc(r->wire), r->in_l = malloc(r->wire), r->in_r = malloc(r->wire);
}

void hs_ring_copies_free(hs_ring_copies *r) {
  free(r->mine), free(r->left), free(r->right), free(r->diff), free(r->tmp);
  free(r->out), free(r->in_l), free(r->in_r);
}

static hs_buf bytes_of(uint8_t *data, size_t n) { return data ? hs_buf_host(data, n, HS_U8) : hs_buf_virtual(n, HS_U8); }

static void add_decoded(hs_ring_copies *r, const uint8_t *in, float *copy, uint64_t step) {
  hs_cz_decode(&r->cz, in, r->n, step, r->tmp);
  hs_k_axpy_f32(copy, r->tmp, 1.0f, r->n);
}

int hs_ring_copies_round(hs_ring_copies *r, hs_worker *w, hs_comm *c, uint64_t step) {
  hs_gpu_busy(w, hs_gpu_kernel_seconds(r->gpu, hs_cz_encode_bytes_touched(&r->cz, r->n), 1));
  if (r->diff) hs_cz_encode(&r->cz, r->diff, NULL, r->n, step, r->out);
  hs_request *q = NULL;
  int rc = hs_ring_exchange(w, c, bytes_of(r->out, r->wire), bytes_of(r->in_l, r->wire), bytes_of(r->in_r, r->wire),
                            &q);
  if (!rc) rc = hs_wait(w, &q);
  if (rc) return rc;
  hs_gpu_busy(w, hs_gpu_kernel_seconds(r->gpu, 3 * (hs_cz_decode_bytes_touched(&r->cz, r->n) + 12.0 * (double)r->n), 6));
  if (!r->diff) return 0;
  add_decoded(r, r->out, r->mine, step);
  add_decoded(r, r->in_l, r->left, step);
  add_decoded(r, r->in_r, r->right, step);
  return 0;
}
