/* train.h — the training loop every algorithm shares, run on each worker.
 *
 * Per iteration: forward (compute), backward bucket by bucket in reverse
 * layer order, handing each finished bucket to the algorithm at once so its
 * communication overlaps the rest of backward, then the algorithm's step.
 * Numeric workloads really compute their gradients; every workload costs
 * its FLOPs through hs_compute (simulated time, or nothing in real runs). */
#ifndef HS_TRAIN_H
#define HS_TRAIN_H

#include "algos/comm/comm.h"
#include "algos/workloads/dataset.h"
#include "algos/report/metrics.h"
#include "scenarios/scenario.h"

typedef struct {
  const hs_scenario *sc;
  const hs_dataset *ds; /* NULL for timing-only workloads */
  hs_metrics *metrics;  /* where each rank reports */
  float *final_params;  /* optional: rank 0 copies its final weights here */
  int ranks_done;       /* ranks that ran to the end (workers and servers) */
  /* Apply the scenario's stragglers { } (the simulator always does; real
   * runs only when emulating, where the delays are injected). */
  int stragglers;
  /* Where the command shows progress (sim/progress.c): the last iteration
   * any rank finished and its (simulated or wall) time. Written by the
   * ranks, read by a progress thread: a torn read only misreports one line. */
  volatile int progress_iteration;
  volatile double progress_time;
} hs_train_job;

/* Runs the whole training on one worker; returns 0 or a negative error. */
int hs_train_worker(hs_worker *w, hs_train_job *job);

#endif
