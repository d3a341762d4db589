/* train_run.h — one simulated training run in a forked child, its results
 * brought back through shared memory: what the algorithm tests compare. */
#ifndef HS_TEST_TRAIN_RUN_H
#define HS_TEST_TRAIN_RUN_H

#include <stddef.h>

#include "scenarios/scenario.h"

#define HS_RUN_MAX_ROWS 2048
#define HS_RUN_MAX_PARAMS 4096

typedef struct {
  int ok;          /* the child ran to the end, every rank returned 0 */
  int ranks_done;
  int rows;        /* metrics rows reported */
  double accuracy;                   /* last held-out evaluation */
  double samples_per_s;              /* every worker's samples / total time */
  double total_time;                 /* the summary's: the last row's end, or the last worker's run's if later */
  double time[HS_RUN_MAX_ROWS];      /* when the slowest reporting worker ended the row */
  double bytes[HS_RUN_MAX_ROWS];     /* summed over ranks */
  int count[HS_RUN_MAX_ROWS];        /* workers reporting */
  double consensus[HS_RUN_MAX_ROWS]; /* NAN when not tracked */
  double loss[HS_RUN_MAX_ROWS];      /* mean over reporting workers */
  size_t n_params;
  float params[HS_RUN_MAX_PARAMS];   /* rank 0's final weights */
} hs_run_result;

/* Simulates the scenario (already loaded) in a child; returns a result in
 * memory shared with it (free with hs_run_free). */
hs_run_result *hs_run_sim(const char *what, const hs_scenario *sc, int timeout_s);
void hs_run_free(hs_run_result *r);
/* Loads the scenario text and simulates it; a scenario that does not load
 * is a failed TAP check and NULL. */
hs_run_result *hs_run_lua(const char *what, const char *lua, int timeout_s);

#endif
