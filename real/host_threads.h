/* host_threads.h — what both real backends do the same way on the host:
 * the second thread of control (a pthread), the mutex and semaphores shared with it, and
 * compute for timing-only workloads (a sleep of the scenario GPU's time).
 * The functions fill the matching slots of an hs_backend table. */
#ifndef HS_REAL_HOST_THREADS_H
#define HS_REAL_HOST_THREADS_H

#include "algos/comm/comm.h"
#include "scenarios/scenario.h"

/* Starts fn(arg) on a new thread; enter(ctx), when not NULL, runs first on
 * that thread (the NCCL transport selects the rank's CUDA device there). */
int hs_host_thread_spawn(void (*fn)(void *), void *arg, void (*enter)(void *), void *ctx, hs_thread **out);
void hs_host_thread_join(hs_thread *t);

hs_mutex *hs_host_mutex_create(hs_worker *w);
void hs_host_mutex_lock(hs_mutex *m);
void hs_host_mutex_unlock(hs_mutex *m);
void hs_host_mutex_destroy(hs_mutex *m);

/* Semaphores (comm.h's sem_*): a mutex and a condition variable on
 * CLOCK_MONOTONIC, the clock of hs_clock_now. */
hs_sem *hs_host_sem_create(hs_worker *w, int initial);
int hs_host_sem_acquire(hs_sem *s, double seconds);
void hs_host_sem_release(hs_sem *s);
void hs_host_sem_destroy(hs_sem *s);

/* FLOPs per second of world rank `rank`'s GPU (flops x efficiency x speed
 * factors), used when compute is emulated; 0 when it is not. */
double hs_host_compute_speed(const hs_scenario *sc, int rank, int emulate_compute);
/* Takes flops / speed of wall time (nothing when speed is 0). */
void hs_host_compute(double speed, double flops);
/* A kernel's modelled time where compute is emulated (speed > 0); nothing
 * where the kernel really ran. */
void hs_host_gpu_busy(double speed, double seconds);
/* The backends' sleep: wall time passes. */
void hs_host_sleep(hs_worker *w, double seconds);

#endif
