/* clock.h — wall-clock time for the real backends.
 *
 * CLOCK_MONOTONIC: one clock for every process of a machine, which the
 * link emulator's arrival times and the merged metrics rely on. */
#ifndef HS_REAL_CLOCK_H
#define HS_REAL_CLOCK_H

#include <time.h>

/* Monotonic seconds shared by every process of the machine. */
double hs_clock_now(void);
/* The hs_clock_now() time t as an absolute CLOCK_MONOTONIC timespec (for
 * clock_nanosleep and condition variables on that clock). */
struct timespec hs_clock_timespec(double t);
/* Sleeps until hs_clock_now() >= t (returns at once if it already is). */
void hs_clock_sleep_until(double t);

/* Collective over MPI_COMM_WORLD: the hs_clock_now() at which every rank's
 * hs_now() starts. On one machine all ranks take rank 0's reading, so their
 * times compare exactly; across machines each takes its own right after a
 * barrier (skew: one barrier's latency). */
double hs_real_common_start(void);

#endif
