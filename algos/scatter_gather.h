/* scatter_gather.h — compressed allreduce(avg) by scatter-gather, Bagua's
 * ByteGrad pattern, shared by bytegrad, qadam and onebit_adam:
 *
 *   each rank splits its buffer into p chunks (chunk j is rank j's), compresses
 *   each, alltoall -> rank j decompresses the p copies of its chunk, averages
 *   them, compresses the average -> allgather -> everyone decompresses all.
 *
 * Bytes a rank sends: 2 (p-1) * hs_cz_bytes(ceil(n/p)). With error feedback
 * (1-bit Adam; any compressor, hs_cz_encode), the worker side keeps the
 * residual of what it compressed (n floats) and the server side that of its
 * averaged chunk (n/p floats).
 *
 * It runs in three calls so the alltoall can overlap backward: start() as a
 * bucket is ready, exchange() once backward is done, finish() for the result. */
#ifndef HS_SCATTER_GATHER_H
#define HS_SCATTER_GATHER_H

#include "algos/comm/comm.h"
#include "algos/comm/hierarchy.h"
#include "algos/compressor.h"
#include "scenarios/scenario.h"

typedef struct hs_sg hs_sg;

/* n elements over a communicator of p ranks; numeric = 0 moves only sizes.
 * gpu: the cluster whose GPU times its compression kernels (every call
 * charges them, numbers or not: algos/train/gpu_kernel.h). */
hs_sg *hs_sg_create(const hs_cluster_spec *gpu, const hs_compressor *cz, size_t n, int p, int numeric,
                    int error_feedback);
void hs_sg_free(hs_sg *s);
/* Bytes one rank sends per run (the formula above). */
size_t hs_sg_bytes_per_rank(const hs_sg *s);
/* Compresses g (ignored when not numeric) and posts the alltoall. */
int hs_sg_start(hs_sg *s, hs_worker *w, hs_comm *c, const float *g, uint64_t step);
/* Waits for the alltoall, averages this rank's chunk, posts the allgather. */
int hs_sg_exchange(hs_sg *s, hs_worker *w, hs_comm *c, uint64_t step);
/* Waits for the allgather and writes the average into out. */
int hs_sg_finish(hs_sg *s, hs_worker *w, float *out, uint64_t step);
/* All of it on one bucket, blocking, for a communication stream's job
 * (algos/comm_stream.h): with h enabled, the intra-node reduce onto the
 * leader first and the broadcast back after, the exchange itself among
 * the leaders (c; s and c are NULL on the other GPUs of a node). The
 * bucket's average replaces its contents. */
void hs_sg_run(hs_sg *s, hs_worker *w, hs_hierarchy *h, hs_comm *c, hs_buf bucket, uint64_t step);

#endif
