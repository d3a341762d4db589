/* comm_stream.c — a communication stream per rank (comm_stream.h).
 *
 * The jobs wait in a ring with one producer (the training thread) and one
 * consumer (the stream's thread), and the two semaphores carry every
 * hand-off, so no lock is needed: `work` counts jobs written and not yet
 * taken, `done` jobs that ran and that the training thread has not waited
 * for yet. A slot is written again only once the job that used it is done
 * (outstanding < capacity), long after the consumer copied it out. In a
 * real run the semaphores' mutex orders the slot's write before its read.
 * A job of NULL ends the thread. */
#include "algos/comm_stream.h"

#include <stdlib.h>

#include "algos/report/trace.h"

typedef struct {
  hs_comm_job job;
  void *arg;
  int index;
} queued_job;

struct hs_comm_stream {
  hs_worker *w;
  hs_thread *thread;
  hs_sem *work, *done;
  queued_job *ring;
  int cap;         /* slots */
  int tail;        /* the producer's next slot */
  int head;        /* the consumer's next slot (its thread's own) */
  int outstanding; /* handed over and not yet waited for (the producer's own) */
};

static void stream_main(void *arg) {
  hs_comm_stream *s = arg;
  for (;;) {
    hs_sem_acquire(s->w, s->work, -1);
    queued_job j = s->ring[s->head];
    s->head = (s->head + 1) % s->cap;
    if (!j.job) return;
    j.job(j.arg, j.index);
    hs_sem_release(s->w, s->done);
  }
}

hs_comm_stream *hs_comm_stream_start(hs_worker *w, int capacity) {
  hs_comm_stream *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->w = w;
  s->cap = capacity > 0 ? capacity : 1;
  s->ring = malloc((size_t)s->cap * sizeof *s->ring);
  s->work = hs_sem_create(w, 0);
  s->done = hs_sem_create(w, 0);
  if (!s->ring || !s->work || !s->done || hs_thread_spawn(w, stream_main, s, &s->thread)) {
    if (s->work) hs_sem_destroy(w, s->work);
    if (s->done) hs_sem_destroy(w, s->done);
    free(s->ring);
    free(s);
    return NULL;
  }
  return s;
}

static void push(hs_comm_stream *s, hs_comm_job job, void *arg, int index) {
  s->ring[s->tail] = (queued_job){job, arg, index};
  s->tail = (s->tail + 1) % s->cap;
  hs_sem_release(s->w, s->work);
}

void hs_comm_stream_enqueue(hs_comm_stream *s, hs_comm_job job, void *arg, int index) {
  if (s->outstanding == s->cap) { /* every slot in use: wait for the oldest job */
    hs_sem_acquire(s->w, s->done, -1);
    s->outstanding--;
  }
  push(s, job, arg, index);
  s->outstanding++;
}

void hs_comm_stream_sync(hs_comm_stream *s) {
  hs_worker *w = s->w;
  double t0 = hs_now(w);
  for (; s->outstanding > 0; s->outstanding--) hs_sem_acquire(w, s->done, -1);
  double t1 = hs_now(w);
  if (w->tracing && t1 > t0) hs_trace_span(w->trace, w->rank, HS_LANE_WAIT, "wait (communication stream)", t0, t1);
}

void hs_comm_stream_stop(hs_comm_stream *s) {
  if (!s) return;
  hs_comm_stream_sync(s); /* every slot free */
  push(s, NULL, NULL, 0);
  hs_thread_join(s->w, s->thread);
  hs_sem_destroy(s->w, s->work);
  hs_sem_destroy(s->w, s->done);
  free(s->ring);
  free(s);
}
