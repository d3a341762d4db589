/* main.c — the `hearsay-real` command, run under mpirun or srun. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "real/run.h"

#define MAX_SETS 256

static void usage(FILE *f) {
  fputs("usage: mpirun -np N hearsay-real SCENARIO.lua [--set key.path=value]... [--out DIR] [--quiet]\n"
        "       srun -n N hearsay-real SCENARIO.lua ...\n"
        "\n"
        "Runs the training job a Lua scenario describes on real processes: rank r\n"
        "plays GPU r of the scenario's cluster, so N must equal nodes x gpus_per_node.\n"
        "The scenario's real { } block picks the transport:\n"
        "  transport = \"mpi\"   host memory, messages over MPI\n"
        "  transport = \"nccl\"  device memory, NCCL on CUDA streams (if built)\n"
        "  transport = \"auto\"  NCCL when built and every rank has a GPU of its own, else MPI\n"
        "  emulate = true      MPI messages delayed by the scenario's link model,\n"
        "                      so one machine behaves like the modelled cluster\n"
        "Writes metrics.csv and summary.json (the simulator's schema, wall-clock\n"
        "times) into DIR (default out/NAME-real or out/NAME-emulated); compare\n"
        "with a simulated run by scripts/compare SIM_DIR REAL_DIR. docs/real.md\n"
        "explains what is real and what is emulated.\n",
        f);
}

/* Returns 0 and fills opt, or the exit code (usage printed by rank 0). */
static int parse(int argc, char **argv, int rank, hs_real_options *opt, const char **sets) {
  for (int i = 1; i < argc; i++) {
    const char *bad = NULL;
    if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
      if (opt->n_sets == MAX_SETS) bad = "too many --set";
      else sets[opt->n_sets++] = argv[++i];
    } else if (strncmp(argv[i], "--set=", 6) == 0) {
      if (opt->n_sets == MAX_SETS) bad = "too many --set";
      else sets[opt->n_sets++] = argv[i] + 6;
    } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
      opt->out_dir = argv[++i];
    } else if (strcmp(argv[i], "--quiet") == 0) {
      opt->quiet = 1;
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      if (rank == 0) usage(stdout);
      return -1;
    } else if (argv[i][0] == '-' || opt->scenario) {
      bad = argv[i];
    } else {
      opt->scenario = argv[i];
    }
    if (bad) {
      if (rank == 0) {
        fprintf(stderr, "hearsay-real: unexpected argument '%s'\n", bad);
        usage(stderr);
      }
      return 2;
    }
  }
  if (!opt->scenario) {
    if (rank == 0) {
      fprintf(stderr, "hearsay-real: which scenario? (e.g. scenarios/emulated-4.lua)\n");
      usage(stderr);
    }
    return 2;
  }
  opt->sets = sets;
  return 0;
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int rc;
  hs_real_options opt = {0};
  const char *sets[MAX_SETS];
  if (provided < MPI_THREAD_MULTIPLE) {
    /* Streams and the algorithms' second thread call MPI concurrently. */
    if (rank == 0) fprintf(stderr, "hearsay-real: this MPI does not provide MPI_THREAD_MULTIPLE\n");
    rc = 1;
  } else {
    rc = parse(argc, argv, rank, &opt, sets);
    if (rc < 0) rc = 0;
    else if (rc == 0) rc = hs_real_run(&opt);
  }
  MPI_Finalize();
  return rc;
}
