/* train.c — the shared training loop. */
#include "algos/train.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "algos/batches.h"
#include "algos/model.h"
#include "algos/softmax.h"
#include "algos/trace.h"

/* Computes and returns the time it took (it may be longer than flops/speed
 * if another thread of control computes on the same GPU meanwhile). */
static double timed_compute(hs_worker *w, double flops, const char *what) {
  if (flops <= 0) return 0;
  double t0 = hs_now(w);
  hs_compute(w, flops);
  double t1 = hs_now(w);
  if (w->tracing) hs_trace_span(w->trace, w->rank, HS_LANE_COMPUTE, what, t0, t1);
  return t1 - t0;
}

static int is_eval_iteration(const hs_run_spec *run, int it) {
  return it == run->iterations - 1 || (run->eval_every > 0 && (it + 1) % run->eval_every == 0);
}

int hs_train_worker(hs_worker *w, hs_train_job *job) {
  const hs_scenario *sc = job->sc;
  const hs_workload_spec *wl = &sc->workload;
  const hs_algorithm_desc *algo = hs_algorithm_find(sc->algorithm.name);
  if (!algo) return HS_EINVAL;

  double bucket_bytes = algo->bucket_option ? hs_opt_num(&sc->algorithm.options, algo->bucket_option) : 0;
  hs_model *model = hs_model_create(wl, bucket_bytes);
  if (!model) return HS_ENOMEM;

  hs_algo_ctx ctx = {.w = w, .sc = sc, .opt = &sc->algorithm.options, .model = model};
  int rc = algo->init ? algo->init(&ctx) : 0;
  if (rc) {
    hs_model_free(model);
    return rc;
  }

  hs_batcher batcher;
  long *batch_idx = NULL;
  if (wl->numeric) {
    hs_batcher_init(&batcher, job->ds, w->rank, sc->run.seed);
    batch_idx = malloc((size_t)wl->batch * sizeof *batch_idx);
  }

  double fwd_flops = 0;
  for (int l = 0; l < model->n_layers; l++) fwd_flops += model->layers[l].fwd_flops;
  /* Backward cost of each bucket: the layers in it, all done before it is ready. */
  double *bucket_bwd = calloc(model->n_buckets, sizeof *bucket_bwd);
  for (int l = 0; l < model->n_layers; l++) bucket_bwd[model->layers[l].bucket] += model->layers[l].bwd_flops;

  float *snapshots = NULL; /* rank 0's weights at each evaluation */
  int *snap_iter = NULL, n_snap = 0;
  if (wl->numeric && w->rank == 0) {
    int evals = 0;
    for (int it = 0; it < sc->run.iterations; it++) evals += is_eval_iteration(&sc->run, it);
    snapshots = malloc((size_t)evals * model->n_params * sizeof(float));
    snap_iter = malloc((size_t)evals * sizeof(int));
  }

  for (int it = 0; it < sc->run.iterations; it++) {
    ctx.iteration = it;
    w->tracing = w->trace && it < sc->run.trace;
    uint64_t bytes0 = w->bytes_sent;
    double loss = 0, compute = 0;

    if (wl->numeric) {
      /* Real work: in real runs it takes wall time and counts as compute; in
       * simulation the clock does not move here, hs_compute charges it. */
      double t0 = hs_now(w);
      hs_batcher_indices(&batcher, it, wl->batch, batch_idx);
      loss = hs_softmax_grad(model->params, job->ds, batch_idx, wl->batch, model->grads);
      compute += hs_now(w) - t0;
    }
    compute += timed_compute(w, fwd_flops * wl->batch, "forward");
    for (int b = 0; b < model->n_buckets; b++) {
      char what[32];
      snprintf(what, sizeof what, "backward (bucket %d)", b);
      compute += timed_compute(w, bucket_bwd[b] * wl->batch, what);
      if (algo->bucket_ready) algo->bucket_ready(&ctx, b);
    }
    algo->step(&ctx);

    hs_metrics_add(job->metrics, it, hs_now(w), compute, loss, (double)(w->bytes_sent - bytes0));
    /* Evaluation is an observer's measurement, taken on rank 0's replica:
     * the weights are set aside here and evaluated after the loop, so it
     * costs no time in any mode (in a real run it would stall rank 0, and
     * through the next collective everyone). */
    if (snapshots && is_eval_iteration(&sc->run, it)) {
      memcpy(snapshots + (size_t)n_snap * model->n_params, model->params, model->n_params * sizeof(float));
      snap_iter[n_snap++] = it;
    }
  }
  for (int i = 0; i < n_snap; i++) {
    double tl, acc;
    hs_softmax_eval(snapshots + (size_t)i * model->n_params, job->ds, &tl, &acc);
    hs_metrics_eval(job->metrics, snap_iter[i], tl, acc);
  }
  free(snapshots);
  free(snap_iter);

  w->tracing = 0;
  if (algo->finish) algo->finish(&ctx);
  if (job->final_params && w->rank == 0 && model->params)
    memcpy(job->final_params, model->params, model->n_params * sizeof(float));
  if (wl->numeric) {
    hs_batcher_free(&batcher);
    free(batch_idx);
  }
  free(bucket_bwd);
  hs_model_free(model);
  return 0;
}
