/* mpi_checks.c — the comm-op checks of collective_checks.h on the MPI
 * transport; run under mpirun by test_real_collectives.
 *
 * usage: mpirun -np N mpi_checks SCENARIO.lua [--set k=v]...
 * The scenario gives placement (gpus_per_node), the lowering
 * (sim.collectives) and the GPU speed that hs_compute emulates; N may be
 * anything. Rank 0 prints one line per check, "1 name" or "0 name: why",
 * with failures summed over every rank. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "real/mpi_backend.h"
#include "scenarios/loader.h"
#include "tests/collective_checks.h"

int main(int argc, char **argv) {
  int provided, rank, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *sets[16];
  int n_sets = 0;
  for (int i = 2; i + 1 < argc && n_sets < 16; i += 2)
    if (strcmp(argv[i], "--set") == 0) sets[n_sets++] = argv[i + 1];
  hs_scenario sc;
  if (argc < 2 || provided < MPI_THREAD_MULTIPLE || hs_scenario_load(argv[1], sets, n_sets, &sc)) {
    if (rank == 0) printf("0 setup: scenario loads and MPI_THREAD_MULTIPLE is provided\n");
    MPI_Finalize();
    return 1;
  }
  hs_worker *w = hs_mpi_worker_create(&sc, NULL, 1);
  hs_mpi_worker_start_clock(w);
  hs_check_rank_main(w);
  hs_mpi_worker_free(w);

  /* Every rank recorded the same checks in the same order. */
  int lo, hi, finished = 0;
  MPI_Allreduce(&hs_check_n_cases, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&hs_check_n_cases, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&hs_check_finished, &finished, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && lo != hi) printf("0 every rank ran the same checks (%d to %d)\n", lo, hi);
  for (int i = 0; i < lo; i++) {
    long total = 0;
    MPI_Allreduce(&hs_check_cases[i].failures, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (hs_check_cases[i].failures)
      fprintf(stderr, "rank %d: %s: %s\n", rank, hs_check_cases[i].name, hs_check_cases[i].first);
    if (rank == 0)
      printf("%d %s%s%s\n", total == 0, hs_check_cases[i].name, total ? ": " : "",
             total ? (hs_check_cases[i].failures ? hs_check_cases[i].first : "failed on another rank (stderr)") : "");
  }
  if (rank == 0) printf("%d every rank finished (%d of %d)\n", finished == size, finished, size);
  hs_scenario_free(&sc);
  MPI_Finalize();
  return 0;
}
