/* async_model_average.c — Bagua's asynchronous model averaging.
 *
 * The first `warmup_steps` are synchronous (gradient allreduce). Then each
 * worker trains on its own, holding a weight lock during forward, backward
 * and its optimizer step, while a second thread of control on the same GPU
 * averages the weights every `sync_interval`:
 *   copy x (under the lock); allreduce(sum) of the copy;
 *   x += sum/n - copy (under the lock), so local progress made meanwhile stays.
 * Each round first agrees, by an allreduce of (iterations done, workers
 * finished), whether to go on: the run stops for everyone once all workers
 * together have done run.iterations x n iterations (or one reached its cap),
 * so fast workers are not held back by slow ones and nobody hangs.
 * Bytes per worker per round: 2(n-1)/n model sizes + 16 bytes of agreement.
 * Its kernels cost their time on the averaging thread (a side stream): the
 * copy (8 bytes a parameter) and the update (reads x, the sum and the
 * copy, writes x: 16). */
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "algos/train/gpu_kernel.h"
#include "algos/train/sgd.h"

typedef struct {
  hs_algo_ctx *ctx;
  int warmup;
  int start; /* the iteration init ran before: the warm-up counts from there (after a shrink too) */
  double interval;
  hs_comm *bg;        /* the averaging thread's communicator */
  hs_mutex *lock;     /* the weights */
  hs_sem *wake;       /* released when the worker's loop is over: ends the wait between rounds */
  hs_thread *thread;
  float *momentum, *copy, *sum;
  /* Shared between the two threads of control of a real run. */
  _Atomic int done;     /* iterations this worker finished */
  _Atomic int finished; /* its loop is over */
  _Atomic int stop;     /* agreed: everyone stops */
  hs_request *req;
} ama_state;

static void average_loop(void *arg) {
  ama_state *s = arg;
  hs_algo_ctx *ctx = s->ctx;
  hs_worker *w = ctx->w;
  hs_model *m = ctx->model;
  double budget = (double)ctx->sc->run.iterations * w->size;
  for (;;) {
    hs_sem_acquire(w, s->wake, s->interval);
    double flags[2] = {s->done, s->finished};
    hs_request *r = NULL;
    hs_allreduce(w, s->bg, hs_buf_host(flags, 2, HS_F64), hs_buf_host(flags, 2, HS_F64), HS_SUM, &r);
    hs_wait(w, &r);
    if (flags[0] >= budget || flags[1] > 0) {
      s->stop = 1;
      return;
    }
    double np = (double)m->n_params;
    hs_mutex_lock(w, s->lock);
    hs_gpu_kernel(ctx, 8 * np, 1);
    if (m->params) memcpy(s->copy, m->params, m->n_params * sizeof(float));
    hs_mutex_unlock(w, s->lock);
    hs_allreduce(w, s->bg, hs_model_buf(m, s->copy), hs_model_buf(m, s->sum), HS_SUM, &r);
    hs_wait(w, &r);
    hs_mutex_lock(w, s->lock);
    hs_gpu_kernel(ctx, 16 * np, 1);
    if (m->params)
      for (size_t i = 0; i < m->n_params; i++) m->params[i] += s->sum[i] / (float)w->size - s->copy[i];
    hs_mutex_unlock(w, s->lock);
  }
}

static int ama_init(hs_algo_ctx *ctx) {
  ama_state *s = calloc(1, sizeof *s);
  ctx->state = s;
  s->ctx = ctx;
  s->warmup = (int)hs_opt_int(ctx->opt, "warmup_steps");
  s->start = ctx->iteration;
  s->interval = hs_opt_num(ctx->opt, "sync_interval");
  s->momentum = hs_sgd_momentum_alloc(ctx);
  if (ctx->model->params) {
    s->copy = malloc(ctx->model->n_params * sizeof(float));
    s->sum = malloc(ctx->model->n_params * sizeof(float));
  }
  s->lock = hs_mutex_create(ctx->w);
  s->wake = hs_sem_create(ctx->w, 0);
  return hs_comm_split(ctx->w, ctx->w->world, 0, ctx->w->rank, &s->bg);
}

static int ama_keep_going(hs_algo_ctx *ctx) {
  ama_state *s = ctx->state;
  /* Until the averaging thread runs (warm-up), the run is synchronous. */
  return s->thread ? !s->stop : ctx->iteration < ctx->sc->run.iterations;
}

static void ama_begin(hs_algo_ctx *ctx) {
  ama_state *s = ctx->state;
  int since = ctx->iteration - s->start;
  if (since == s->warmup) hs_thread_spawn(ctx->w, average_loop, s, &s->thread);
  if (since >= s->warmup) hs_mutex_lock(ctx->w, s->lock);
}

static void ama_step(hs_algo_ctx *ctx) {
  ama_state *s = ctx->state;
  hs_model *m = ctx->model;
  if (ctx->iteration - s->start < s->warmup) {
    hs_buf g = hs_model_buf(m, m->grads);
    hs_request *r = NULL;
    hs_allreduce(ctx->w, ctx->w->world, g, g, HS_AVG, &r);
    hs_wait(ctx->w, &r);
    hs_sgd_step(ctx, m->grads, s->momentum);
  } else {
    hs_sgd_step(ctx, m->grads, s->momentum);
    hs_mutex_unlock(ctx->w, s->lock);
  }
  s->done = ctx->iteration + 1;
}

static void ama_finish(hs_algo_ctx *ctx) {
  ama_state *s = ctx->state;
  s->finished = 1;
  if (s->wake) hs_sem_release(ctx->w, s->wake); /* a thread waiting out sync_interval goes to agree at once */
  if (s->thread) hs_thread_join(ctx->w, s->thread);
  hs_comm_free(ctx->w, s->bg);
  if (s->lock) hs_mutex_destroy(ctx->w, s->lock); /* an init that failed may not have made them */
  if (s->wake) hs_sem_destroy(ctx->w, s->wake);
  free(s->momentum), free(s->copy), free(s->sum);
  free(s);
}

static const hs_option_spec ama_options[] = {
    {"sync_interval", HS_OPT_TIME, "0s", 0, NULL,
     "time the background thread waits between two averaging rounds (0: the next starts when one ends; Bagua's "
     "default is 500ms)"},
    {"warmup_steps", HS_OPT_INT, "0", 0, NULL, "synchronous gradient-allreduce steps before going asynchronous"},
    {NULL, 0, NULL, 0, NULL, NULL},
};

const hs_algorithm_desc hs_algo_async_model_average = {
    .name = "async_model_average",
    .summary = "asynchronous model averaging by a background thread every sync_interval (Bagua)",
    .options = ama_options,
    .asynchronous = 1,
    .init = ama_init,
    .keep_going = ama_keep_going,
    .begin_iteration = ama_begin,
    .step = ama_step,
    .finish = ama_finish,
};
