/* main.c — the `hearsay-real` command, run under mpirun or srun. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "real/collective_bench.h"
#include "real/run.h"
#include "scenarios/units.h"

#define MAX_SETS 256

static void usage(FILE *f) {
  fputs("usage: mpirun -np N hearsay-real SCENARIO.lua [--set key.path=value]... [--out DIR] [--quiet]\n"
        "       srun -n N hearsay-real SCENARIO.lua ...\n"
        "       mpirun -np N hearsay-real collective SCENARIO.lua [--op allreduce|...|all]\n"
        "              [--bytes 8:128MiB] [--factor 2] [--iters 20] [--warmup 5] [--set k=v]...\n"
        "\n"
        "Runs the training job a Lua scenario describes on real processes: rank r\n"
        "plays GPU r of the scenario's cluster, so N must equal nodes x gpus_per_node,\n"
        "plus the CPU processes the algorithm places (a parameter server's), which\n"
        "follow the GPUs (MPI transport only).\n"
        "The scenario's real { } block picks the transport:\n"
        "  transport = \"mpi\"   host memory, messages over MPI\n"
        "  transport = \"nccl\"  device memory, NCCL on CUDA streams (if built)\n"
        "  transport = \"auto\"  NCCL when built and every rank has a GPU of its own, else MPI\n"
        "  emulate = true      MPI messages delayed by the scenario's link model,\n"
        "                      so one machine behaves like the modelled cluster\n"
        "Writes metrics.csv and summary.json (the simulator's schema, wall-clock\n"
        "times) into DIR (default out/NAME-real or out/NAME-emulated); compare\n"
        "with a simulated run by scripts/compare SIM_DIR REAL_DIR. docs/real.md\n"
        "explains what is real and what is emulated.\n"
        "\n"
        "`collective` times collectives over the same transport and prints\n"
        "nccl-tests' own table (all_reduce_perf's format), which\n"
        "`hearsay calibrate` reads to fit the simulator's machine to yours.\n",
        f);
}

/* "SIZE" or "MIN:MAX" into bytes; 0 or -1. */
static int parse_bytes(const char *text, double *min, double *max) {
  char a[128], err[256];
  const char *colon = strchr(text, ':');
  snprintf(a, sizeof a, "%.*s", colon ? (int)(colon - text) : (int)strlen(text), text);
  if (hs_parse_unit(a, HS_UNIT_BYTES, min, err, sizeof err)) return -1;
  *max = *min;
  if (colon && hs_parse_unit(colon + 1, HS_UNIT_BYTES, max, err, sizeof err)) return -1;
  return *min >= 1 && *max >= *min && *max <= 0x1p40 ? 0 : -1;
}

/* The collective benchmark's own options; 1 if argv[*i] was one (consumed),
 * 0 if not, -1 if bad. */
static int collective_option(int argc, char **argv, int *i, hs_real_collective_options *c) {
  const char *a = argv[*i];
  if (*i + 1 >= argc) return 0;
  const char *v = argv[*i + 1];
  char *end = NULL;
  if (strcmp(a, "--op") == 0) c->op = v;
  else if (strcmp(a, "--bytes") == 0) {
    if (parse_bytes(v, &c->min_bytes, &c->max_bytes)) return -1;
  } else if (strcmp(a, "--factor") == 0) {
    c->factor = strtod(v, &end);
    if (*end || !(c->factor > 1 && c->factor <= 1024)) return -1;
  } else if (strcmp(a, "--iters") == 0 || strcmp(a, "--warmup") == 0) {
    long n = strtol(v, &end, 10);
    if (*end || n < (a[2] == 'i' ? 1 : 0) || n > 100000) return -1;
    *(a[2] == 'i' ? &c->iters : &c->warmup) = (int)n;
  } else return 0;
  (*i)++;
  return 1;
}

/* Returns 0 and fills opt, or the exit code (usage printed by rank 0). */
static int parse(int argc, char **argv, int rank, hs_real_options *opt, const char **sets,
                 hs_real_collective_options *coll) {
  for (int i = coll ? 2 : 1; i < argc; i++) {
    const char *bad = NULL;
    int c = coll ? collective_option(argc, argv, &i, coll) : 0;
    if (c < 0) {
      if (rank == 0)
        fprintf(stderr, "hearsay-real collective: %s %s: expected --bytes SIZE or MIN:MAX (1 B to 1 TiB), --factor "
                        "above 1 (at most 1024), --iters 1..100000, --warmup 0..100000\n", argv[i], argv[i + 1]);
      return 2;
    } else if (c > 0) {
      continue;
    } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
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
    int collective = argc > 1 && strcmp(argv[1], "collective") == 0;
    hs_real_collective_options coll = {.op = "allreduce", .min_bytes = 8, .max_bytes = 128 << 20, .factor = 2,
                                       .iters = 20, .warmup = 5};
    rc = parse(argc, argv, rank, &opt, sets, collective ? &coll : NULL);
    if (rc < 0) rc = 0;
    else if (rc == 0 && collective) coll.run = opt, rc = hs_real_collective(&coll);
    else if (rc == 0) rc = hs_real_run(&opt);
  }
  MPI_Finalize();
  return rc;
}
