/* host_threads.c — pthreads, mutexes and emulated compute (host_threads.h). */
#include "real/host_threads.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "real/clock.h"
#include "scenarios/links.h"

struct hs_thread {
  pthread_t t;
  void (*fn)(void *);
  void *arg;
  void (*enter)(void *);
  void *ctx;
};

static void *thread_main(void *p) {
  hs_thread *t = p;
  if (t->enter) t->enter(t->ctx);
  t->fn(t->arg);
  return NULL;
}

int hs_host_thread_spawn(void (*fn)(void *), void *arg, void (*enter)(void *), void *ctx, hs_thread **out) {
  hs_thread *t = calloc(1, sizeof *t);
  *out = NULL;
  if (!t) return HS_ENOMEM;
  *t = (hs_thread){.fn = fn, .arg = arg, .enter = enter, .ctx = ctx};
  if (pthread_create(&t->t, NULL, thread_main, t)) {
    free(t);
    return HS_EBACKEND;
  }
  *out = t;
  return HS_OK;
}

void hs_host_thread_join(hs_thread *t) {
  pthread_join(t->t, NULL);
  free(t);
}

struct hs_mutex {
  pthread_mutex_t m;
};

hs_mutex *hs_host_mutex_create(hs_worker *w) {
  (void)w;
  hs_mutex *m = malloc(sizeof *m);
  if (m) pthread_mutex_init(&m->m, NULL);
  return m;
}
void hs_host_mutex_lock(hs_mutex *m) { pthread_mutex_lock(&m->m); }
void hs_host_mutex_unlock(hs_mutex *m) { pthread_mutex_unlock(&m->m); }
void hs_host_mutex_destroy(hs_mutex *m) {
  pthread_mutex_destroy(&m->m);
  free(m);
}

struct hs_sem {
  pthread_mutex_t m;
  pthread_cond_t c;
  int count;
};

hs_sem *hs_host_sem_create(hs_worker *w, int initial) {
  (void)w;
  hs_sem *s = malloc(sizeof *s);
  if (!s) return NULL;
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_init(&s->c, &a);
  pthread_condattr_destroy(&a);
  pthread_mutex_init(&s->m, NULL);
  s->count = initial;
  return s;
}

int hs_host_sem_acquire(hs_sem *s, double seconds) {
  struct timespec until = hs_clock_timespec(seconds >= 0 ? hs_clock_now() + seconds : 0);
  pthread_mutex_lock(&s->m);
  while (s->count == 0) {
    if (seconds < 0) pthread_cond_wait(&s->c, &s->m);
    else if (pthread_cond_timedwait(&s->c, &s->m, &until) == ETIMEDOUT) break;
  }
  int got = s->count > 0;
  if (got) s->count--;
  pthread_mutex_unlock(&s->m);
  return got;
}

void hs_host_sem_release(hs_sem *s) {
  pthread_mutex_lock(&s->m);
  s->count++;
  pthread_cond_signal(&s->c);
  pthread_mutex_unlock(&s->m);
}

void hs_host_sem_destroy(hs_sem *s) {
  pthread_cond_destroy(&s->c);
  pthread_mutex_destroy(&s->m);
  free(s);
}

double hs_host_compute_speed(const hs_scenario *sc, int rank, int emulate_compute) {
  if (!emulate_compute) return 0;
  return sc->cluster.gpu_flops * sc->cluster.gpu_efficiency * hs_links_speed_factor(&sc->cluster, rank);
}

void hs_host_compute(double speed, double flops) {
  if (speed > 0 && flops > 0) hs_clock_sleep_until(hs_clock_now() + flops / speed);
}

void hs_host_gpu_busy(double speed, double seconds) {
  if (speed > 0 && seconds > 0) hs_clock_sleep_until(hs_clock_now() + seconds);
}

void hs_host_sleep(hs_worker *w, double seconds) {
  (void)w;
  if (seconds > 0) hs_clock_sleep_until(hs_clock_now() + seconds);
}
