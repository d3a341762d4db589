/* collective_checks.h — backend-independent checks of the comm-op interface.
 *
 * hs_check_rank_main exercises every collective, grouped send/recv,
 * sub-communicators, hs_test and the second thread of control on the
 * calling rank, with inputs whose results are known bit for bit, and
 * records each named check's failures. The same code runs on the SimGrid
 * backend (tests/test_collectives.c) and on the MPI transport
 * (tests/mpi_checks.c under mpirun), so both are held to one standard.
 * hs_compute must take time (simulated, or emulated in real runs). */
#ifndef HS_TEST_COLLECTIVE_CHECKS_H
#define HS_TEST_COLLECTIVE_CHECKS_H

#include "algos/comm/comm.h"

#define MAX_CASES 64

typedef struct {
  char name[64];
  long failures;
  char first[160];
} check_case;

extern check_case hs_check_cases[MAX_CASES];
extern int hs_check_n_cases;
extern int hs_check_finished; /* ranks (of this process) that ran to the end */

void hs_check_record(const char *name, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void hs_check_rank_main(hs_worker *w);

#endif
