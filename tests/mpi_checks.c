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
#include <stdlib.h>
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

  /* Ranks may run different checks (a one-member sub-communicator has no
   * send/recv): rank 0 gathers every rank's table and merges by name. */
  int finished = 0;
  MPI_Reduce(&hs_check_finished, &finished, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  for (int i = 0; i < hs_check_n_cases; i++)
    if (hs_check_cases[i].failures)
      fprintf(stderr, "rank %d: %s: %s\n", rank, hs_check_cases[i].name, hs_check_cases[i].first);
  for (int i = hs_check_n_cases; i < MAX_CASES; i++) hs_check_cases[i].name[0] = '\0';
  check_case *all = rank == 0 ? malloc((size_t)size * sizeof hs_check_cases) : NULL;
  MPI_Gather(hs_check_cases, (int)sizeof hs_check_cases, MPI_BYTE, all, (int)sizeof hs_check_cases, MPI_BYTE, 0,
             MPI_COMM_WORLD);
  if (rank == 0) {
    check_case merged[MAX_CASES];
    int n = 0;
    for (int r = 0; r < size; r++)
      for (int i = 0; i < MAX_CASES && all[r * MAX_CASES + i].name[0]; i++) {
        const check_case *c = &all[r * MAX_CASES + i];
        int k = 0;
        while (k < n && strcmp(merged[k].name, c->name) != 0) k++;
        if (k == n) {
          if (n == MAX_CASES) continue;
          merged[n] = *c;
          merged[n++].failures = 0;
        }
        if (c->failures && !merged[k].failures) snprintf(merged[k].first, sizeof merged[k].first, "%s", c->first);
        merged[k].failures += c->failures;
      }
    for (int k = 0; k < n; k++)
      printf("%d %s%s%s\n", merged[k].failures == 0, merged[k].name, merged[k].failures ? ": " : "",
             merged[k].failures ? merged[k].first : "");
    printf("%d every rank finished (%d of %d)\n", finished == size, finished, size);
    free(all);
  }
  hs_scenario_free(&sc);
  MPI_Finalize();
  return 0;
}
