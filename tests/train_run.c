/* train_run.c — simulated training runs for tests (train_run.h). */
/* MAP_ANONYMOUS is a BSD/Linux extension beyond POSIX. */
#define _DEFAULT_SOURCE
#include "tests/train_run.h"

#include <math.h>
#include <string.h>
#include <sys/mman.h>

#include "algos/algorithm.h"
#include "algos/workloads/dataset.h"
#include "algos/report/metrics.h"
#include "algos/workloads/model.h"
#include "algos/train/train.h"
#include "tests/harness.h"
#include "tests/tap.h"

typedef struct {
  const hs_scenario *sc;
  hs_run_result *out;
  hs_dataset *ds;
  hs_metrics *m;
  hs_train_job job;
} run_job;

static void rank_main(hs_worker *w, void *arg) {
  run_job *j = arg;
  hs_train_worker(w, &j->job);
}

static void child(void *arg, FILE *report) {
  run_job *j = arg;
  const hs_scenario *sc = j->sc;
  hs_run_result *r = j->out;
  char err[256] = "";
  if (sc->workload.numeric) j->ds = hs_dataset_create(&sc->workload, sc->run.seed, hs_algorithm_workers(sc), err, sizeof err);
  j->m = hs_metrics_create(hs_algorithm_max_iterations(sc), hs_model_tracked_params(&sc->workload));
  r->n_params = hs_model_tracked_params(&sc->workload);
  float *final = r->n_params <= HS_RUN_MAX_PARAMS ? r->params : NULL;
  j->job = (hs_train_job){.sc = sc, .ds = j->ds, .metrics = j->m, .final_params = final, .stragglers = 1};
  hs_test_simulate(sc, 0, rank_main, j, NULL, NULL);
  hs_metrics_summary s;
  hs_metrics_summarize(j->m, sc->workload.batch, 0, &s);
  r->ranks_done = j->job.ranks_done;
  r->rows = hs_metrics_rows(j->m);
  r->accuracy = s.final_accuracy, r->samples_per_s = s.samples_per_s, r->total_time = s.total_time;
  for (int i = 0; i < r->rows && i < HS_RUN_MAX_ROWS; i++) {
    r->time[i] = j->m->end_time[i];
    r->bytes[i] = j->m->bytes[i];
    r->count[i] = j->m->count[i];
    r->consensus[i] = hs_metrics_consensus(j->m, i);
    r->loss[i] = j->m->count[i] ? j->m->loss[i] / j->m->count[i] : NAN;
  }
  r->ok = r->ranks_done == hs_scenario_gpus(sc);
  hs_report(report, r->ok, "%d of %d ranks ran to the end", r->ranks_done, hs_scenario_gpus(sc));
}

hs_run_result *hs_run_sim(const char *what, const hs_scenario *sc, int timeout_s) {
  hs_run_result *r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  memset(r, 0, sizeof *r);
  run_job j = {.sc = sc, .out = r};
  hs_test_in_child(what, child, &j, timeout_s);
  return r;
}

void hs_run_free(hs_run_result *r) { munmap(r, sizeof *r); }

hs_run_result *hs_run_lua(const char *what, const char *lua, int timeout_s) {
  hs_scenario sc;
  if (hs_test_load(lua, &sc)) {
    tap_ok(0, "%s: scenario loads", what);
    return NULL;
  }
  hs_run_result *r = hs_run_sim(what, &sc, timeout_s);
  hs_scenario_free(&sc);
  return r;
}
