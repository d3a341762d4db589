/* progress.h — a long run says that it is running.
 *
 * A valid run can take minutes of wall time (a thousand GPUs, a large
 * model, step fidelity); silence then looks like a hang. A thread of the
 * run's process prints one line on stderr after HS_PROGRESS_FIRST seconds
 * of wall time and every HS_PROGRESS_EVERY seconds after that: the
 * iterations done and the simulated time. It reads what the ranks write
 * into the job; it never touches the simulation. Runs shorter than the
 * first delay print nothing. */
#ifndef HS_SIM_PROGRESS_H
#define HS_SIM_PROGRESS_H

#include "algos/train/train.h"

#define HS_PROGRESS_FIRST 5
#define HS_PROGRESS_EVERY 30

typedef struct hs_progress hs_progress;

/* Starts the thread; NULL if it cannot (the run goes on silently). */
hs_progress *hs_progress_start(const hs_train_job *job, const char *name, int iterations);
void hs_progress_stop(hs_progress *p);

#endif
