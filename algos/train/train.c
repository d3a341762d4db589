/* train.c — the shared training loop. */
#include "algos/train/train.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algos/algorithm.h"
#include "algos/train/batches.h"
#include "algos/train/gpu_kernel.h"
#include "kernels/kernels.h"
#include "algos/workloads/model.h"
#include "algos/workloads/softmax.h"
#include "algos/train/straggler.h"
#include "algos/report/trace.h"

/* Computes flops, with the launches of the kernels that compute them
 * (cluster.gpu.launch_overhead each: a GPU runs no kernel for free, and a
 * small model's iteration is mostly launches), and then `kernels` seconds
 * of the kernels that run beside them on the compute stream (gradient
 * accumulation's adds, an algorithm's bucket_kernels), all slowed by this
 * iteration's straggler factor (a GPU 3x slower takes 3x its compute);
 * then stalls for the hiccup pauses that fell inside; returns the time it
 * all took (it may be longer than flops/speed if another thread of control
 * computes on the same GPU meanwhile). */
static double timed_compute(hs_worker *w, const hs_straggler *st, double factor, double flops, double launches,
                            double kernels, const char *what) {
  if (flops <= 0 && launches <= 0 && kernels <= 0) return 0;
  double t0 = hs_now(w);
  hs_compute_busy(w, flops * factor, (launches + kernels) * factor);
  double stall = hs_straggler_stall(st, t0, hs_now(w) - t0);
  if (stall > 0) hs_sleep(w, stall);
  double t1 = hs_now(w);
  if (w->tracing) hs_trace_span(w->trace, w->rank, HS_LANE_COMPUTE, what, t0, t1);
  return t1 - t0;
}

/* This iteration's straggler factor; a failing Lua slowdown function ends
 * the run as a bad scenario would (exit 2), from whichever rank hit it. */
static double straggler_factor(hs_straggler *st, const hs_scenario *sc, int rank, int it, double t) {
  char err[512] = "";
  double f = hs_straggler_factor(st, it, t, err, sizeof err);
  if (f < 0) {
    char where[HS_PATH_MAX + 256];
    hs_scenario_where(sc, "stragglers.slowdown", where, sizeof where);
    fprintf(stderr, "%s: rank %d, iteration %d: %s\n", where, rank, it, err);
    fflush(stderr);
    _exit(2);
  }
  return f;
}

static int is_eval_iteration(const hs_run_spec *run, int it) {
  return it == run->iterations - 1 || (run->eval_every > 0 && (it + 1) % run->eval_every == 0);
}

/* Rank 0's weights at each evaluation, set aside and evaluated after the
 * loop: evaluation is an observer's measurement and costs no time in any
 * mode (in a real run it would stall rank 0, and through the next
 * collective everyone). */
typedef struct {
  float *weights;
  int *iteration;
  double *time; /* when this rank had finished the iteration */
  int n, cap;
  size_t n_params;
} snapshots;

static void snapshot(snapshots *s, int it, double time, const float *params) {
  if (!s->weights || (s->n && s->iteration[s->n - 1] == it) || s->n == s->cap) return;
  memcpy(s->weights + (size_t)s->n * s->n_params, params, s->n_params * sizeof(float));
  s->time[s->n] = time;
  s->iteration[s->n++] = it;
}

/* Tears the algorithm down, whatever of it its init had built: every
 * finish takes a state its init left half built (an init that failed). */
static void tear_down(hs_algo_ctx *ctx, const hs_algorithm_desc *algo) {
  if (algo->finish && ctx->state) algo->finish(ctx);
  ctx->state = NULL;
}

/* One recovery: 0 done, -1 the rank stops, 1 another failure struck while
 * the algorithm started again. */
static int recover_once(hs_algo_ctx *ctx, const hs_algorithm_desc *algo, int *seen, int *it) {
  hs_worker *w = ctx->w;
  const hs_scenario *sc = ctx->sc;
  /* Torn down in every case: an algorithm's own threads of control (the
   * averaging thread of async_model_average) must be joined before the
   * model they use is freed. */
  tear_down(ctx, algo);
  if (sc->run.on_failure != HS_ON_FAILURE_SHRINK) return -1;
  int resume = *it;
  for (;;) { /* another failure after an agreement closed: agree again from the start */
    if (hs_shrink(w, *it, &resume)) return -1;
    /* A failure while the survivors gathered is in the agreement (its
     * world is of the ranks alive when it closed); what every rank it
     * released has seen is the count then, not each one's own reading
     * (a rank that gathered early and one that came with a later failure
     * once took different counts, one went to agree again while the other
     * started the algorithm, and both waited for ever). */
    *seen = w->failures_agreed;
    if (hs_failures(w) != *seen) continue;
    hs_role role = w->rank >= w->size - hs_algorithm_servers(sc) ? HS_ROLE_SERVER : HS_ROLE_WORKER;
    /* A dead server takes its shard with it: no survivor could take its
     * role over mid-run, so everyone stops (they all see the same: one
     * allreduce). */
    int same_role = role == w->role, all_same = same_role;
    if (hs_algorithm_servers(sc) > 0) {
      hs_request *q = NULL;
      hs_allreduce(w, w->world, hs_buf_host(&same_role, 1, HS_I32), hs_buf_host(&all_same, 1, HS_I32), HS_MIN, &q);
      if (hs_wait(w, &q)) {
        if (hs_failures(w) != *seen) continue;
        return -1;
      }
    }
    if (!all_same) {
      if (w->rank == 0) fprintf(stderr, "hearsay: a parameter server died; the run cannot shrink past it\n");
      return -1;
    }
    if (ctx->model->params) { /* the weights first */
      hs_request *q = NULL;
      hs_buf b = hs_buf_host(ctx->model->params, ctx->model->n_params, HS_F32);
      hs_broadcast(w, w->world, b, b, 0, &q);
      if (hs_wait(w, &q)) {
        if (hs_failures(w) != *seen) continue;
        return -1;
      }
    }
    break;
  }
  ctx->iteration = *it = resume;
  ctx->restarts++; /* then the algorithm, over them */
  int rc = algo->init ? algo->init(ctx) : 0;
  if (hs_failures(w) != *seen) return 1;
  if (rc) tear_down(ctx, algo);
  return rc ? -1 : 0;
}

/* A failure struck (hs_failures changed). Under "abort", or when this rank
 * cannot go on, returns -1: the rank stops. Under "shrink" the lifecycle of
 * algorithm.h runs: the algorithm is torn down (finish), the survivors
 * agree on the iteration to resume from and form a world of their own,
 * agree on the weights (numeric runs: rank 0 of the new world broadcasts
 * its own, as an elastic restart would restart from one survivor's state),
 * and only then is the algorithm started again (init, ctx->restarts
 * counting), so whatever it copies from the model is the agreed model.
 * Another failure while it starts again (its communicators revoked under
 * it) is recovered from in turn. */
static int recover(hs_algo_ctx *ctx, const hs_algorithm_desc *algo, int *seen, int *it) {
  for (;;) {
    int rc = recover_once(ctx, algo, seen, it);
    if (rc <= 0) return rc;
  }
}

int hs_train_worker(hs_worker *w, hs_train_job *job) {
  const hs_scenario *sc = job->sc;
  const hs_workload_spec *wl = &sc->workload;
  const hs_algorithm_desc *algo = hs_algorithm_find(sc->algorithm.name);
  if (!algo) return HS_EINVAL;
  w->role = w->rank >= w->size - hs_algorithm_servers(sc) ? HS_ROLE_SERVER : HS_ROLE_WORKER;

  const hs_options *opt = &sc->algorithm.options;
  hs_bucket_layout layout = {
      .bytes = algo->bucket_option ? hs_opt_num(opt, algo->bucket_option) : 0,
      .first_bytes = algo->first_bucket_option ? hs_opt_num(opt, algo->first_bucket_option) : 0,
      .from_input = algo->bucket_order_option && !strcmp(hs_opt_str(opt, algo->bucket_order_option), "definition"),
  };
  if (algo->bucket_layout) algo->bucket_layout(opt, &layout);
  hs_model *model = hs_model_create_layout(wl, &layout);
  if (!model) return HS_ENOMEM;
  hs_model_init_params(model, wl, sc->run.seed, w->rank);

  hs_algo_ctx ctx = {.w = w, .sc = sc, .opt = &sc->algorithm.options, .model = model};
  const int world_rank = w->rank; /* the GPU's own rank, whatever the world becomes (a shrink below too) */
  /* Failures are counted from the run's start: one that strikes while the
   * algorithm starts (at time 0, or during its communicators' splits) is
   * recovered from as any later one, not taken for a failed init. */
  int seen_failures = 0;
  int rc = algo->init ? algo->init(&ctx) : 0;
  if (rc && hs_failures(w) == seen_failures) { /* not a failure's doing: out of memory, say */
    tear_down(&ctx, algo);
    hs_model_free(model);
    return rc;
  }
  int first = 0;
  if (hs_failures(w) != seen_failures && recover(&ctx, algo, &seen_failures, &first)) {
    hs_model_free(model);
    return HS_EPEER;
  }
  if (w->role == HS_ROLE_SERVER) {
    int served = 0;
    for (;;) {
      if (algo->serve) algo->serve(&ctx);
      if (hs_failures(w) == seen_failures) break;
      if (recover(&ctx, algo, &seen_failures, &served)) {
        hs_model_free(model);
        return HS_EPEER;
      }
    }
    if (algo->finish) algo->finish(&ctx);
    hs_model_free(model);
    job->ranks_done++;
    return 0;
  }

  hs_batcher batcher;
  long *batch_idx = NULL;
  float *micro_grads = NULL; /* a later micro-batch's gradient, before it is added */
  int accum = wl->accumulation_steps > 1 ? wl->accumulation_steps : 1;
  if (wl->numeric) {
    hs_batcher_init(&batcher, job->ds, w->rank, sc->run.seed);
    batch_idx = malloc((size_t)wl->batch * sizeof *batch_idx);
    if (accum > 1) micro_grads = malloc(model->n_params * sizeof *micro_grads);
  }

  /* Seconds of kernel launches: a pass's kernels, each
   * cluster.gpu.launch_overhead. */
  double launch = sc->cluster.gpu_launch_overhead;
  double fwd_flops = 0, fwd_launch = 0;
  for (int l = 0; l < model->n_layers; l++) {
    fwd_flops += model->layers[l].fwd_flops;
    fwd_launch += model->layers[l].fwd_kernels * launch;
  }
  /* Backward cost of each bucket: the layers in it, all done before it is ready. */
  double *bucket_bwd = calloc(model->n_buckets, sizeof *bucket_bwd), bwd_flops = 0, bwd_launch = 0;
  double *bucket_launch = calloc(model->n_buckets, sizeof *bucket_launch);
  for (int l = 0; l < model->n_layers; l++) {
    bucket_bwd[model->layers[l].bucket] += model->layers[l].bwd_flops;
    bucket_launch[model->layers[l].bucket] += model->layers[l].bwd_kernels * launch;
    bwd_flops += model->layers[l].bwd_flops;
    bwd_launch += model->layers[l].bwd_kernels * launch;
  }

  /* gradient accumulation's adds into the accumulated gradient, a whole model's */
  double add_all = hs_gpu_kernel_seconds(&sc->cluster, 12.0 * (double)model->n_params, model->n_tensors);
  int max_iterations = hs_algorithm_max_iterations(sc);
  snapshots snaps = {.n_params = model->n_params};
  if (wl->numeric && w->rank == 0) {
    for (int it = 0; it < max_iterations; it++) snaps.cap += is_eval_iteration(&sc->run, it);
    snaps.cap += 1; /* an asynchronous run's last iteration */
    snaps.weights = malloc((size_t)snaps.cap * model->n_params * sizeof(float));
    snaps.iteration = malloc((size_t)snaps.cap * sizeof(int));
    snaps.time = malloc((size_t)snaps.cap * sizeof(double));
  }

  hs_straggler *st = job->stragglers ? hs_straggler_create(sc, world_rank) : NULL;
  /* Weights at the start of the iteration under way, to restart it from if a
   * failure strikes in the middle (only kept when failures are declared). */
  float *restart = sc->failures.n > 0 && model->params ? malloc(model->n_params * sizeof(float)) : NULL;
  int it, stopped = 0;
  double last_end = 0;
  for (it = 0; it < max_iterations; it++) {
    if (hs_failures(w) != seen_failures && recover(&ctx, algo, &seen_failures, &it)) {
      stopped = 1;
      break;
    }
    ctx.iteration = it;
    if (algo->keep_going ? !algo->keep_going(&ctx) : it >= sc->run.iterations) break;
    w->tracing = w->trace && it < sc->run.trace;
    uint64_t bytes0 = w->bytes_sent;
    double loss = 0, compute = 0, start = hs_now(w);
    double factor = st ? straggler_factor(st, sc, world_rank, it, start) : 1;
    if (restart) memcpy(restart, model->params, model->n_params * sizeof(float));

    if (algo->begin_iteration) algo->begin_iteration(&ctx);
    if (wl->numeric) {
      /* Real work: in real runs it takes wall time and counts as compute; in
       * simulation the clock does not move here, hs_compute charges it.
       * Micro-batch j of iteration it is the batcher's it x accum + j: the
       * same samples as one batch of accum x batch. Their gradients are
       * averaged, as accumulating the mean losses' and dividing does. */
      double t0 = hs_now(w);
      for (int j = 0; j < accum; j++) {
        hs_batcher_indices(&batcher, (long)it * accum + j, wl->batch, batch_idx);
        float *g = j ? micro_grads : model->grads;
        loss += hs_softmax_grad(model->params, job->ds, batch_idx, wl->batch, g) / accum;
        if (j) hs_k_reduce(HS_K_F32, HS_K_SUM, model->grads, micro_grads, model->n_params);
      }
      if (accum > 1) hs_k_divide(HS_K_F32, model->grads, model->n_params, accum);
      double took = hs_now(w) - t0;
      /* An emulated straggler takes longer to do the same real work. */
      if (factor != 1 && took > 0) hs_sleep(w, (factor - 1) * took);
      compute += hs_now(w) - t0;
    }
    /* The micro-batches before the last: forward and backward, no
     * communication (DDP's no_sync). From the second on, backward adds
     * each gradient into the one accumulated so far: a kernel a tensor
     * reading both and writing one, fp32 (autograd's accumulation into
     * .grad), 12 bytes a parameter. */
    for (int j = 0; j + 1 < accum; j++) {
      compute += timed_compute(w, st, factor, fwd_flops * wl->batch, fwd_launch, 0,
                               w->tracing ? "forward (micro-batch)" : "");
      compute += timed_compute(w, st, factor, bwd_flops * wl->batch, bwd_launch, j ? add_all : 0,
                               w->tracing ? "backward (micro-batch)" : "");
    }
    compute += timed_compute(w, st, factor, fwd_flops * wl->batch, fwd_launch, 0, "forward");
    for (int b = 0; b < model->n_buckets; b++) {
      char what[32] = ""; /* named only for the trace: this runs per bucket per iteration */
      if (w->tracing) snprintf(what, sizeof what, "backward (bucket %d)", b);
      /* The bucket's backward, then on the same stream the accumulation's
       * adds and the algorithm's hook kernels (algorithm.h), charged as
       * one execution. */
      double kernels = algo->bucket_kernels ? algo->bucket_kernels(&ctx, b) : 0;
      if (accum > 1)
        kernels += hs_gpu_kernel_seconds(&sc->cluster, 12.0 * (double)model->buckets[b].count, model->buckets[b].tensors);
      compute += timed_compute(w, st, factor, bucket_bwd[b] * wl->batch, bucket_launch[b], kernels, what);
      if (algo->bucket_ready) algo->bucket_ready(&ctx, b);
    }
    algo->step(&ctx);
    if (hs_failures(w) != seen_failures) {
      /* Hit mid-way: what it computed is not to be trusted. Not recorded;
       * recovery (at the top) decides where to go on from. */
      if (restart) memcpy(model->params, restart, model->n_params * sizeof(float));
      it--;
      continue;
    }

    double end = hs_now(w);
    hs_metrics_add(job->metrics, it, world_rank, start, end, compute, loss, (double)(w->bytes_sent - bytes0));
    hs_metrics_add_params(job->metrics, it, model->params);
    if (it + 1 > job->progress_iteration) job->progress_iteration = it + 1, job->progress_time = end;
    if (snaps.weights && is_eval_iteration(&sc->run, it)) snapshot(&snaps, it, end, model->params);
    last_end = end;
  }
  if (snaps.weights && it > 0) snapshot(&snaps, it - 1, last_end, model->params);
  for (int i = 0; i < snaps.n; i++) {
    double tl, acc;
    hs_softmax_eval(snaps.weights + (size_t)i * model->n_params, job->ds, &tl, &acc);
    hs_metrics_eval(job->metrics, snaps.iteration[i], snaps.time[i], tl, acc);
  }
  free(snaps.weights);
  free(snaps.iteration);
  free(snaps.time);

  w->tracing = 0;
  free(restart);
  if (algo->finish && !stopped) algo->finish(&ctx);
  if (!stopped) hs_metrics_run_end(job->metrics, hs_now(w));
  if (job->final_params && w->rank == 0 && model->params)
    memcpy(job->final_params, model->params, model->n_params * sizeof(float));
  if (wl->numeric) {
    hs_batcher_free(&batcher);
    free(batch_idx);
  }
  free(bucket_bwd);
  free(bucket_launch);
  free(micro_grads);
  hs_straggler_free(st);
  hs_model_free(model);
  if (stopped) return HS_EPEER;
  job->ranks_done++;
  return 0;
}
