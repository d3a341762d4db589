/* run.c — simulate a scenario's training and write its outputs. */
#include "sim/run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "algos/workloads/dataset.h"
#include "algos/report/metrics.h"
#include "algos/workloads/model.h"
#include "algos/report/outdir.h"
#include "algos/report/report.h"
#include "algos/report/trace.h"
#include "algos/train/train.h"
#include "scenarios/loader.h"
#include "scenarios/units.h"
#include "sim/fidelity_auto.h"
#include "sim/guard.h"
#include "sim/platform.h"
#include "sim/progress.h"
#include "sim/sim.h"

/* From this many GPUs on, setting up takes seconds: say so first. */
#define HS_ANNOUNCE_RANKS 8192

static void train_rank(hs_worker *w, void *arg) {
  int rc = hs_train_worker(w, arg);
  /* HS_EPEER: stopped by a failure, which the run reports once. */
  if (rc && rc != HS_EPEER) fprintf(stderr, "hearsay: rank %d failed (%d)\n", w->rank, rc);
}

typedef struct {
  const hs_scenario *sc;
  const hs_run_options *opt;
} run_ctx;

static int run_staged(void *arg, const char *stage, const char *target) {
  const run_ctx *ctx = arg;
  const hs_scenario *sc = ctx->sc;
  const hs_run_options *opt = ctx->opt;
  const char *dir = stage;
  int n = hs_scenario_ranks(sc); /* the GPUs and any CPU processes (parameter servers) */
  /* Progress from the start: generating a large data set or platform
   * takes seconds too. */
  hs_train_job job = {.sc = sc, .stragglers = 1};
  hs_progress *progress = hs_progress_start(&job, sc->name, sc->run.iterations);
  hs_dataset *ds = NULL;
  if (sc->workload.numeric) {
    char err[256];
    ds = hs_dataset_create(&sc->workload, sc->run.seed, hs_algorithm_workers(sc), err, sizeof err);
    if (!ds) {
      /* The partition is what the loader cannot check: a Dirichlet draw
       * that leaves a worker without samples. */
      char where[HS_PATH_MAX + 256];
      hs_scenario_where(sc, "workload.dataset.alpha", where, sizeof where);
      fprintf(stderr, "%s: %s\n", where, err);
      hs_progress_stop(progress);
      return HS_SCENARIO_EBAD;
    }
  }
  char platform[4200];
  snprintf(platform, sizeof platform, "%s/platform.xml", dir);
  FILE *pf = fopen(platform, "w");
  if (!pf || hs_platform_write(&sc->cluster, &sc->network, dir, pf) || fclose(pf)) {
    fprintf(stderr, "hearsay: cannot write %s\n", platform);
    hs_dataset_free(ds);
    hs_progress_stop(progress);
    return 1;
  }

  hs_metrics *m = hs_metrics_create(hs_algorithm_max_iterations(sc), hs_model_tracked_params(&sc->workload));
  job.ds = ds;
  job.metrics = m;
  hs_trace *trace = sc->run.trace > 0 ? hs_trace_create() : NULL;
  hs_sim_config cfg = {.sc = sc, .platform_file = platform, .main = train_rank, .arg = &job, .trace = trace};
  hs_sim_stats stats = {0};
  hs_sim_run(&cfg, &stats);
  hs_progress_stop(progress);

  /* What ran, not only what was asked: under fast, the round schedules the
   * tuner picks run message by message when ranks do not arrive together
   * (select.c). */
  const char *fidelity = hs_sim_fidelity(sc, n);
  long ran = 0;
  for (int a = 0; a < HS_COLL_ALGOS; a++) ran += stats.collectives[a];
  if (!strcmp(fidelity, "fast") && stats.by_messages > 0)
    fidelity = stats.by_messages == ran ? "step" : "fast+step";
  hs_run_info info = {.mode = "simulated", .backend = "simgrid", .fidelity = fidelity, .ranks = n,
                      .wall_time = stats.wall_time, .messages = stats.messages,
                      .auto_fast = sc->sim.auto_fast && n <= HS_FIDELITY_AUTO_STEP_MAX && strcmp(fidelity, "step")
                                       ? hs_fidelity_step_messages(sc)
                                       : 0,
                      .fast_collectives = stats.fast_collectives,
                      .fast_beside = stats.fast_collectives > 0 ? stats.messages : 0,
                      .actors = stats.actors, .collectives = stats.collectives, .protocols = stats.protocols,
                      .nccl_unmodelled = stats.unmodelled,
                      .n_failures = stats.n_failures,
                      .listed = stats.n_failures < HS_SIM_FAILURES_MAX ? stats.n_failures : HS_SIM_FAILURES_MAX,
                      .failure_time = stats.failure_time, .failure_what = (const char (*)[48])stats.failure_what,
                      .ranks_lost = stats.ranks_lost, .aborted = stats.aborted};
  /* Shrinking until no rank is left ends the run as an abort does: the
   * scenario's failures took every GPU (seen: mtbf = 1ns). */
  int shrink = sc->run.on_failure == HS_ON_FAILURE_SHRINK;
  int all_lost = shrink && stats.n_failures > 0 && stats.aborted;
  /* Survivors that could not go on (a parameter server lost, a peer
   * scheme that cannot run over them; each says why): the failures ended
   * the run as much as an abort would have. */
  int stuck = shrink && stats.n_failures > 0 && !stats.aborted && job.ranks_done == 0;
  if (all_lost || stuck) info.aborted = 1;
  int rc = hs_report_write(dir, sc, m, &info) ? 1 : 0;
  /* What was measured is written either way; a run in which some rank did
   * not run to its end is still a failed run. A failure that aborts the run
   * as the scenario asked is its own outcome: exit 3. */
  if (stats.aborted && !shrink) {
    fprintf(stderr, "hearsay: %s at %.6g s ended the run (run.on_failure = \"abort\"); the outputs hold the %d "
            "iterations measured before it\n", stats.failure_what[0], stats.failure_time[0], hs_metrics_rows(m));
    if (!opt->quiet) hs_report_print(stdout, sc, m, &info, target);
    rc = rc ? rc : HS_RUN_ABORTED;
  } else if (all_lost) {
    fprintf(stderr, "hearsay: failures { } took every rank (the last at %.6g s; run.on_failure = \"shrink\" had "
            "nothing left to go on with); the outputs hold the %d iterations measured\n",
            stats.failure_time[info.listed > 0 ? info.listed - 1 : 0], hs_metrics_rows(m));
    if (!opt->quiet) hs_report_print(stdout, sc, m, &info, target);
    rc = rc ? rc : HS_RUN_ABORTED;
  } else if (stuck) {
    fprintf(stderr, "hearsay: the survivors of %s at %.6g s could not go on (run.on_failure = \"shrink\"; why, above); "
            "the outputs hold the %d iterations measured\n", stats.failure_what[info.listed > 0 ? info.listed - 1 : 0],
            stats.failure_time[info.listed > 0 ? info.listed - 1 : 0], hs_metrics_rows(m));
    if (!opt->quiet) hs_report_print(stdout, sc, m, &info, target);
    rc = rc ? rc : HS_RUN_ABORTED;
  } else if (job.ranks_done != n - stats.ranks_lost) {
    fprintf(stderr, "hearsay: only %d of %d ranks ran to the end; the outputs hold what was measured\n",
            job.ranks_done, n);
    rc = 1;
  }
  if (!rc && trace) {
    char tmp[4200], final[4200];
    snprintf(tmp, sizeof tmp, "%s/.trace.json.partial", dir);
    snprintf(final, sizeof final, "%s/trace.json", dir);
    if (hs_trace_write(trace, tmp) || rename(tmp, final)) {
      fprintf(stderr, "hearsay: cannot write trace.json into %s\n", dir);
      rc = 1;
    }
  }
  hs_trace_free(trace);
  if (!rc && !opt->quiet) hs_report_print(stdout, sc, m, &info, target);
  hs_metrics_free(m);
  hs_dataset_free(ds);
  return rc;
}

int hs_cmd_run(const hs_scenario *sc, const hs_run_options *opt) {
  char target[HS_OUTDIR_PATH_MAX];
  if (opt->out_dir) snprintf(target, sizeof target, "%s", opt->out_dir);
  else snprintf(target, sizeof target, "out/%s", sc->name);
  int n = hs_scenario_gpus(sc);
  if (n >= HS_ANNOUNCE_RANKS) {
    char mem[32];
    hs_format_bytes(hs_scenario_memory(sc, 0, NULL, NULL, NULL), mem, sizeof mem);
    fprintf(stderr, "hearsay: setting up %d simulated GPUs (%d nodes x %d), up to %s of memory; large clusters take "
            "a while to build\n", n, sc->cluster.nodes, sc->cluster.gpus_per_node, mem);
  }
  /* What auto runs at is settled here, for the whole run, before
   * anything is simulated: the scenario as the run sees it is a copy (its
   * arrays and Lua state shared, not duplicated). */
  hs_scenario resolved = *sc;
  resolved.sim.auto_fast = hs_fidelity_auto_fast(sc);
  run_ctx ctx = {.sc = &resolved, .opt = opt};
  return hs_guard_run_staged(target, run_staged, &ctx, "hearsay run", HS_RUN_ABORTED);
}
