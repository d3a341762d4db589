/* ring_copies.h — the state of ring gossip with compressed differences,
 * shared by low_precision_decentralized and choco: a rank's copies of its
 * own public weights and of its two neighbours', and one round in which a
 * compressed difference goes to both neighbours and every copy takes the
 * difference it concerns (own += Q(mine), left += Q(left's), right += ...). */
#ifndef HS_RING_COPIES_H
#define HS_RING_COPIES_H

#include "algos/comm/comm.h"
#include "algos/compressor.h"
#include "scenarios/scenario.h"

typedef struct {
  hs_compressor cz;
  const hs_cluster_spec *gpu; /* what its kernels cost (algos/train/gpu_kernel.h) */
  size_t n, wire;             /* parameters, compressed bytes */
  float *mine, *left, *right; /* the copies (numeric runs; zero at first) */
  float *diff;                /* what the caller fills before a round */
  float *tmp;
  uint8_t *out, *in_l, *in_r;
} hs_ring_copies;

/* numeric = 0: only sizes travel, nothing is allocated. */
void hs_ring_copies_init(hs_ring_copies *r, const hs_compressor *cz, const hs_cluster_spec *gpu, size_t n,
                         int numeric);
void hs_ring_copies_free(hs_ring_copies *r);
/* Compresses r->diff, exchanges with both ring neighbours on c (blocking)
 * and adds the decoded differences into the copies. Its kernels cost
 * their time on the calling thread: one encode, and three decodes each
 * followed by an add into its copy (read two, write one). */
int hs_ring_copies_round(hs_ring_copies *r, hs_worker *w, hs_comm *c, uint64_t step);

#endif
