/* run.h — `hearsay run`: one scenario, simulated, outputs written. */
#ifndef HS_SIM_RUN_H
#define HS_SIM_RUN_H

#include "scenarios/scenario.h"

typedef struct {
  const char *out_dir; /* NULL: out/<scenario name> */
  int quiet;
} hs_run_options;

/* Exit code: 0, 2 for a bad scenario (nothing written), 1 for a failure of
 * the run itself, 3 when a simulated failure ended it as the scenario's
 * run.on_failure = "abort" asks (outputs written: what was measured). */
#define HS_RUN_ABORTED 3
int hs_cmd_run(const hs_scenario *sc, const hs_run_options *opt);

#endif
