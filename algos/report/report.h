/* report.h — the outputs every mode writes, in one schema.
 *
 *  metrics.csv   one row per iteration (see docs/outputs.md for columns)
 *  summary.json  headline figures and the resolved configuration
 * Files are written under a temporary name and renamed, so a reader never
 * sees half of one. */
#ifndef HS_REPORT_H
#define HS_REPORT_H

#include <stdio.h>

#include "algos/report/metrics.h"
#include "scenarios/scenario.h"

typedef struct {
  const char *mode;     /* "simulated", "emulated", "real" */
  const char *backend;  /* "simgrid", "mpi", "nccl" */
  const char *fidelity; /* how collectives were modelled ("step") */
  int ranks;
  double wall_time;     /* seconds the run took on this machine */
  long messages;        /* simulated point-to-point messages, 0 if n/a */
  long actors;          /* simulated: SimGrid actors started (0 if n/a) */
  double auto_fast;     /* > 0: sim.fidelity "auto" ran fast though the ranks are few, as step would have
                           simulated about this many messages (sim/fidelity_auto.h) */
  long fast_collectives; /* simulated: collectives fast timed by their schedule */
  long fast_beside;      /* > 0: messages SimGrid ran beside them (point-to-point, or collectives run by
                            messages), which fast does not let contend with its collectives for links
                            (docs/fidelity.md, "Not modelled by fast") */
  const long *collectives; /* collectives run per schedule (hs_coll_algo), or NULL if not counted */
  const long *protocols;   /* and per protocol (hs_proto, HS_PROTO_NONE last), or NULL */
  const long *nccl_unmodelled; /* of them, where NCCL's model picks an algorithm hearsay does not run: [1] NVLS tree,
                                  [2] PAT ([0] unused), or NULL */
  /* failures { } that struck (simulated runs) */
  int n_failures;            /* all of them; the first `listed` are described */
  int listed;
  const double *failure_time;
  const char (*failure_what)[48];
  int ranks_lost;
  int aborted;               /* the run stopped at the first one */
} hs_run_info;

/* Creates dir and its parents (mkdir -p); 0 or -1 with errno set. */
int hs_report_mkdir(const char *dir);

int hs_report_write(const char *dir, const hs_scenario *sc, const hs_metrics *m, const hs_run_info *info);
void hs_report_print(FILE *out, const hs_scenario *sc, const hs_metrics *m, const hs_run_info *info,
                     const char *dir);

#endif
