/* comm_stream.h — a communication stream: one thread of control per rank
 * that runs an algorithm's per-bucket communication jobs one after the
 * other, in the order they were handed over, while the training thread
 * goes on with backward. It is what the reference implementations do with
 * their NCCL stream (Bagua's communication thread, DDP's reducer): a
 * bucket's whole chain (an intra-node reduce, a compressed exchange among
 * node leaders, a broadcast back, its kernels) runs there, so none of it
 * blocks the compute stream, and the next bucket's chain starts when this
 * one's ends. The training thread waits for all of them (sync) before the
 * optimizer step.
 *
 * Built on the comm-op interface alone (a thread and two semaphores), so
 * it runs the same on every backend. A job may block
 * (hs_wait) and may charge kernels (hs_gpu_busy): they take the stream's
 * time, not the training thread's. */
#ifndef HS_COMM_STREAM_H
#define HS_COMM_STREAM_H

#include "algos/comm/comm.h"

typedef struct hs_comm_stream hs_comm_stream;
typedef void (*hs_comm_job)(void *arg, int index);

/* Starts the stream's thread on this rank, for up to `capacity` jobs
 * handed over between two syncs (an algorithm's buckets). NULL if it
 * cannot. */
hs_comm_stream *hs_comm_stream_start(hs_worker *w, int capacity);
/* Hands job(arg, index) to the stream; returns at once, unless `capacity`
 * jobs are already waiting for a sync: then it first waits for the
 * oldest to end. */
void hs_comm_stream_enqueue(hs_comm_stream *s, hs_comm_job job, void *arg, int index);
/* Blocks the calling (training) thread until every job handed over so far
 * has run; traced as a wait on the compute thread's wait lane. */
void hs_comm_stream_sync(hs_comm_stream *s);
/* Runs what is left, ends the thread and frees the stream (NULL: nothing). */
void hs_comm_stream_stop(hs_comm_stream *s);

#endif
