/* clock.c — the real backends' clock (clock.h). */
#include "real/clock.h"

#include <errno.h>
#include <mpi.h>
#include <sched.h>
#include <time.h>

double hs_clock_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Timer wake-ups come 50-100 us late on a busy machine, and an emulated
 * ring pays that once per step: sleep to shortly before t, then yield the
 * CPU in a loop until t. */
#define SPIN_WINDOW 200e-6

struct timespec hs_clock_timespec(double t) {
  struct timespec ts;
  ts.tv_sec = (time_t)t;
  ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
  if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
  return ts;
}

void hs_clock_sleep_until(double t) {
  double coarse = t - SPIN_WINDOW;
  if (hs_clock_now() < coarse) {
    struct timespec ts = hs_clock_timespec(coarse);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
  }
  while (hs_clock_now() < t) sched_yield();
}

double hs_real_common_start(void) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size, world_size, one_machine;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  MPI_Comm_free(&node);
  int here = node_size == world_size;
  MPI_Allreduce(&here, &one_machine, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = hs_clock_now();
  if (one_machine) MPI_Bcast(&t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return t0;
}

