/* progress.c — a long run's progress lines (progress.h). */
#include "sim/progress.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "scenarios/units.h"

struct hs_progress {
  const hs_train_job *job;
  const char *name;
  int iterations;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t stop_cond;
  int stop;
};

static void *report_loop(void *arg) {
  hs_progress *p = arg;
  struct timespec start, deadline;
  clock_gettime(CLOCK_REALTIME, &start);
  deadline = start;
  deadline.tv_sec += HS_PROGRESS_FIRST;
  pthread_mutex_lock(&p->lock);
  while (!p->stop) {
    int rc = pthread_cond_timedwait(&p->stop_cond, &p->lock, &deadline);
    if (p->stop) break;
    if (rc != ETIMEDOUT) continue;
    int it = p->job->progress_iteration;
    double t = p->job->progress_time;
    char sim[32];
    hs_format_time(t, sim, sizeof sim);
    long wall = (long)(deadline.tv_sec - start.tv_sec);
    if (it == 0)
      fprintf(stderr, "hearsay: %s: still setting up (data set, platform, actors) or in the first iteration after %ld "
              "s of wall time\n", p->name, wall);
    else
      fprintf(stderr, "hearsay: %s: %d iterations done (run.iterations = %d) at %s simulated, %ld s of wall time "
              "so far\n", p->name, it, p->iterations, sim, wall);
    deadline.tv_sec += HS_PROGRESS_EVERY;
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

hs_progress *hs_progress_start(const hs_train_job *job, const char *name, int iterations) {
  hs_progress *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->job = job;
  p->name = name;
  p->iterations = iterations;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->stop_cond, NULL);
  if (pthread_create(&p->thread, NULL, report_loop, p) != 0) {
    free(p);
    return NULL;
  }
  return p;
}

void hs_progress_stop(hs_progress *p) {
  if (!p) return;
  pthread_mutex_lock(&p->lock);
  p->stop = 1;
  pthread_cond_signal(&p->stop_cond);
  pthread_mutex_unlock(&p->lock);
  pthread_join(p->thread, NULL);
  pthread_mutex_destroy(&p->lock);
  pthread_cond_destroy(&p->stop_cond);
  free(p);
}
