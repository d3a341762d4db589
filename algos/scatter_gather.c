/* scatter_gather.c — compressed allreduce by alltoall + allgather (scatter_gather.h). */
#include "algos/scatter_gather.h"

#include "algos/train/gpu_kernel.h"

#include <stdlib.h>
#include <string.h>

struct hs_sg {
  const hs_cluster_spec *gpu; /* what its kernels cost (algos/train/gpu_kernel.h) */
  hs_compressor cz;
  size_t n, chunk, block; /* elements, elements per rank's chunk, bytes per compressed chunk */
  int p, me;
  int numeric;
  uint8_t *send, *recv, *mine, *all; /* p blocks, p blocks, 1 block, p blocks */
  float *tmp, *acc;                  /* one chunk each */
  float *worker_err, *server_err;
  int error_feedback;
  hs_request *req;
};

/* A kernel pass over the bucket, numbers or not (gpu_kernel.h). */
static void kernel(const hs_sg *s, hs_worker *w, double bytes) { hs_gpu_busy(w, hs_gpu_kernel_seconds(s->gpu, bytes, 1)); }

static size_t chunk_len(const hs_sg *s, int j) {
  size_t a = (size_t)j * s->chunk;
  return a >= s->n ? 0 : (s->n - a < s->chunk ? s->n - a : s->chunk);
}

hs_sg *hs_sg_create(const hs_cluster_spec *gpu, const hs_compressor *cz, size_t n, int p, int numeric,
                    int error_feedback) {
  hs_sg *s = calloc(1, sizeof *s);
  s->gpu = gpu;
  s->error_feedback = error_feedback;
  s->cz = *cz;
  s->n = n;
  s->p = p;
  s->chunk = (n + (size_t)p - 1) / (size_t)p;
  s->block = hs_cz_bytes(cz, s->chunk);
  s->numeric = numeric;
  if (numeric) {
    s->send = calloc((size_t)p, s->block);
    s->recv = calloc((size_t)p, s->block);
    s->mine = calloc(1, s->block);
    s->all = calloc((size_t)p, s->block);
    s->tmp = calloc(s->chunk, sizeof(float));
    s->acc = calloc(s->chunk, sizeof(float));
    if (error_feedback) {
      s->worker_err = calloc(n, sizeof(float));
      s->server_err = calloc(s->chunk, sizeof(float));
    }
  }
  return s;
}

void hs_sg_free(hs_sg *s) {
  if (!s) return;
  free(s->send), free(s->recv), free(s->mine), free(s->all), free(s->tmp), free(s->acc);
  free(s->worker_err), free(s->server_err);
  free(s);
}

size_t hs_sg_bytes_per_rank(const hs_sg *s) { return 2 * (size_t)(s->p - 1) * s->block; }

static hs_buf blocks(const hs_sg *s, uint8_t *data, int count) {
  return s->numeric ? hs_buf_host(data, (size_t)count * s->block, HS_U8)
                    : hs_buf_virtual((size_t)count * s->block, HS_U8);
}

int hs_sg_start(hs_sg *s, hs_worker *w, hs_comm *c, const float *g, uint64_t step) {
  s->me = hs_comm_rank(w, c);
  /* one kernel compresses the bucket chunk by chunk: reads it (and reads
   * and writes the residual), writes p blocks */
  kernel(s, w, 4.0 * (double)s->n * (s->error_feedback ? 3 : 1) + (double)s->p * (double)s->block);
  if (s->numeric)
    for (int j = 0; j < s->p; j++) {
      size_t a = (size_t)j * s->chunk;
      hs_cz_encode(&s->cz, g + a, s->worker_err ? s->worker_err + a : NULL, chunk_len(s, j), step,
                   s->send + (size_t)j * s->block);
    }
  hs_buf snd = blocks(s, s->send, s->p), rcv = blocks(s, s->recv, s->p);
  return hs_alltoall(w, c, snd, rcv, &s->req);
}

int hs_sg_exchange(hs_sg *s, hs_worker *w, hs_comm *c, uint64_t step) {
  int rc = hs_wait(w, &s->req);
  if (rc) return rc;
  size_t len = chunk_len(s, s->me);
  /* one kernel decodes the p blocks into a sum (reading each block,
   * reading and writing the sum), one averages and compresses it (and its
   * residual) into this rank's block */
  kernel(s, w, (double)s->p * ((double)s->block + 8.0 * (double)len));
  kernel(s, w, 4.0 * (double)len * (s->error_feedback ? 3 : 1) + (double)s->block);
  if (s->numeric && len) {
    /* Sum in rank order, so every run adds in the same order. */
    memset(s->acc, 0, len * sizeof(float));
    for (int j = 0; j < s->p; j++) {
      hs_cz_decode(&s->cz, s->recv + (size_t)j * s->block, len, step, s->tmp);
      for (size_t i = 0; i < len; i++) s->acc[i] += s->tmp[i];
    }
    for (size_t i = 0; i < len; i++) s->acc[i] /= (float)s->p;
    hs_cz_encode(&s->cz, s->acc, s->server_err, len, step, s->mine);
  }
  hs_buf snd = blocks(s, s->mine, 1), rcv = blocks(s, s->all, s->p);
  return hs_allgather(w, c, snd, rcv, &s->req);
}

int hs_sg_finish(hs_sg *s, hs_worker *w, float *out, uint64_t step) {
  int rc = hs_wait(w, &s->req);
  if (rc) return rc;
  kernel(s, w, (double)s->p * (double)s->block + 4.0 * (double)s->n); /* decodes the p blocks into the bucket */
  if (!s->numeric) return rc;
  for (int j = 0; j < s->p; j++)
    hs_cz_decode(&s->cz, s->all + (size_t)j * s->block, chunk_len(s, j), step, out + (size_t)j * s->chunk);
  return 0;
}

void hs_sg_run(hs_sg *s, hs_worker *w, hs_hierarchy *h, hs_comm *c, hs_buf bucket, uint64_t step) {
  hs_hierarchy_reduce(w, h, bucket);
  if (c) {
    hs_sg_start(s, w, c, bucket.data, step);
    hs_sg_exchange(s, w, c, step);
    hs_sg_finish(s, w, bucket.data, step);
  }
  hs_hierarchy_broadcast(w, h, bucket);
}
