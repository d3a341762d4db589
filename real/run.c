/* run.c — hearsay-real: one scenario's training on real processes.
 *
 * Every rank loads the same scenario; rank r plays GPU r. Whatever goes
 * wrong before training (bad file, wrong rank count, no NCCL, an output
 * folder that cannot be made) is decided by all ranks together, printed
 * once, and every rank exits with the same non-zero code: nothing hangs,
 * nothing is written. After training, the per-rank metrics are merged on
 * rank 0, which writes the same files the simulator writes. */
#include "real/run.h"
#include "real/run_internal.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "algos/workloads/dataset.h"
#include "algos/report/metrics.h"
#include "algos/workloads/model.h"
#include "algos/report/report.h"
#include "algos/report/outdir.h"
#include "algos/train/train.h"
#include "real/emulator.h"
#include "real/mpi_backend.h"
#include "real/nccl_backend.h"
#include "scenarios/loader.h"

/* Every rank proposes an exit code (0: fine); all get the largest. */
int hs_real_agree(int rc) {
  int all = 0;
  MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

/* Rank 0 loads first, so a bad file is reported once; the others load only
 * if it succeeded (and report only if their copy differs). */
int hs_real_load(const hs_real_options *opt, int rank, hs_scenario *sc) {
  int rc = 0;
  hs_scenario_set_process_ranks(1); /* the memory check: one rank per process */
  if (rank == 0) rc = hs_scenario_load(opt->scenario, opt->sets, opt->n_sets, sc);
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc) return rc;
  if (rank != 0) rc = hs_scenario_load(opt->scenario, opt->sets, opt->n_sets, sc);
  rc = hs_real_agree(rc);
  if (rc && rank != 0) hs_scenario_free(sc);
  return rc;
}

int hs_real_check_ranks(const hs_scenario *sc, int rank, int size) {
  int gpus = hs_scenario_gpus(sc), ranks = hs_scenario_ranks(sc);
  if (ranks == size) return 0;
  if (rank == 0 && ranks == gpus)
    fprintf(stderr,
            "%s: cluster has %d GPUs (nodes = %d x gpus_per_node = %d) but %d ranks were started; "
            "start %d ranks (mpirun -np %d) or change the cluster (--set cluster.nodes=...)\n",
            sc->path, gpus, sc->cluster.nodes, sc->cluster.gpus_per_node, size, gpus, gpus);
  else if (rank == 0) /* CPU processes: a parameter server's (scenario.h numbers them after the GPUs) */
    fprintf(stderr,
            "%s: cluster has %d GPUs (nodes = %d x gpus_per_node = %d) and the algorithm %d CPU processes "
            "(its servers or host aggregators), but %d ranks were started; start %d ranks (mpirun -np %d)\n",
            sc->path, gpus, sc->cluster.nodes, sc->cluster.gpus_per_node, ranks - gpus, size, ranks, ranks);
  return HS_SCENARIO_EBAD;
}

/* How many ranks of the job run on this rank's machine. */
static int ranks_on_this_machine(void) {
  MPI_Comm node;
  int n = 1;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return n;
}

/* Picks the transport the scenario asks for, or says why it cannot. NCCL
 * needs a GPU of its own for every rank of a machine (two ranks on one GPU
 * fail ncclCommInitRank), so "auto" takes it only where that holds on every
 * machine: 4 ranks on a one-GPU workstation run over MPI instead of failing. */
int hs_real_choose_transport(const hs_scenario *sc, int rank, hs_transport *out) {
  char why[256] = "";
  int gpus = hs_nccl_gpus(), local = ranks_on_this_machine();
  int nccl_ok = gpus > 0 && gpus >= local;
  *out = sc->real.transport;
  /* Decided together: machines that differ (one with GPUs for its ranks,
   * one without) must not start different transports. */
  /* A CPU process has no GPU to join a NCCL communicator with. */
  int cpus = hs_scenario_ranks(sc) > hs_scenario_gpus(sc);
  if (*out == HS_TRANSPORT_AUTO)
    *out = hs_real_agree(!nccl_ok || sc->real.emulate || cpus) ? HS_TRANSPORT_MPI : HS_TRANSPORT_NCCL;
  if (*out == HS_TRANSPORT_NCCL && cpus)
    snprintf(why, sizeof why, "real.transport = \"nccl\" but the algorithm runs CPU processes (its servers or host "
                              "aggregators), which have no GPU for NCCL; use real.transport = \"mpi\"");
  else if (*out == HS_TRANSPORT_NCCL && sc->real.emulate)
    snprintf(why, sizeof why, "real.emulate delays messages of the MPI transport; NCCL's links are the GPUs' own "
                              "(use real.transport = \"mpi\" to emulate)");
  else if (*out == HS_TRANSPORT_NCCL && !hs_nccl_built())
    snprintf(why, sizeof why, "real.transport = \"nccl\" but this build has no NCCL transport "
                              "(CUDA toolkit or NCCL not found when it was configured)");
  else if (*out == HS_TRANSPORT_NCCL && gpus == 0)
    snprintf(why, sizeof why, "real.transport = \"nccl\" but no CUDA GPU is visible to this process");
  else if (*out == HS_TRANSPORT_NCCL && !nccl_ok)
    snprintf(why, sizeof why,
             "real.transport = \"nccl\" but %d ranks share this machine's %d GPU%s; NCCL needs one GPU per rank "
             "(start at most %d ranks per machine, or use real.transport = \"mpi\")",
             local, gpus, gpus == 1 ? "" : "s", gpus);
  int bad = hs_real_agree(why[0] ? 1 : 0);
  if (bad && rank == 0) fprintf(stderr, "%s: %s\n", sc->path, why[0] ? why : "NCCL is not usable on every rank");
  return bad ? HS_SCENARIO_EBAD : 0;
}

/* Sums and maxima of every rank's metrics, on rank 0. Evaluation happens on
 * rank 0 only, so its test loss and accuracy are already there. Each
 * process saw only its own compute time: rank 0 gathers them all and folds
 * them into each iteration's slowest two. */
static void merge_metrics(hs_metrics *m, int rank, int size) {
  int n = m->iterations;
  int root = rank == 0;
  void *in_place = MPI_IN_PLACE;
#define REDUCE(buf, count, type, op) MPI_Reduce(root ? in_place : (void *)(buf), root ? (void *)(buf) : NULL, \
                                                (int)(count), type, op, 0, MPI_COMM_WORLD)
  REDUCE(m->end_time, n, MPI_DOUBLE, MPI_MAX);
  REDUCE(m->end_first, n, MPI_DOUBLE, MPI_MIN);
  REDUCE(m->compute, n, MPI_DOUBLE, MPI_SUM);
  REDUCE(m->loss, n, MPI_DOUBLE, MPI_SUM);
  REDUCE(m->bytes, n, MPI_DOUBLE, MPI_SUM);
  REDUCE(m->count, n, MPI_INT, MPI_SUM);
  REDUCE(m->wait, n, MPI_DOUBLE, MPI_SUM);
  REDUCE(&m->run_end, 1, MPI_DOUBLE, MPI_MAX);
  if (m->param_sum) {
    REDUCE(m->param_sum, (size_t)n * m->n_params, MPI_DOUBLE, MPI_SUM);
    REDUCE(m->param_sq, n, MPI_DOUBLE, MPI_SUM);
  }
#undef REDUCE
  /* slow1 holds this process's own compute (-1 where it did not report). */
  double *all = root ? malloc((size_t)n * size * sizeof *all) : NULL;
  MPI_Gather(m->slow1, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (root) {
    for (int i = 0; i < n; i++) {
      m->slow1[i] = m->slow2[i] = -1;
      m->slow_rank[i] = -1;
    }
    for (int r = 0; r < size; r++)
      for (int i = 0; i < n; i++)
        if (all[(size_t)r * n + i] >= 0) hs_metrics_note_compute(m, i, r, all[(size_t)r * n + i]);
    free(all);
  }
}

hs_worker *hs_real_make_worker(const hs_scenario *sc, hs_transport t, hs_emulator *emu) {
  /* A timing-only workload has no gradients to compute: its FLOPs take the
   * scenario GPU's time, so communication overlaps what it would overlap. */
  int emulate_compute = !sc->workload.numeric;
  if (t == HS_TRANSPORT_NCCL) return hs_nccl_worker_create(sc, emulate_compute);
  return hs_mpi_worker_create(sc, emu, emulate_compute);
}

void hs_real_free_worker(hs_worker *w, hs_transport t) {
  if (t == HS_TRANSPORT_NCCL) hs_nccl_worker_free(w);
  else hs_mpi_worker_free(w);
}

static int train_and_report(const hs_scenario *sc, const hs_real_options *opt, const hs_outdir *od, int rank,
                            int size) {
  hs_transport transport;
  int rc = hs_real_choose_transport(sc, rank, &transport);
  if (rc) return rc;

  char err[256] = "";
  hs_dataset *ds = NULL;
  if (sc->workload.numeric)
    ds = hs_dataset_create(&sc->workload, sc->run.seed, hs_algorithm_workers(sc), err, sizeof err);
  rc = hs_real_agree(sc->workload.numeric && !ds ? HS_SCENARIO_EBAD : 0);
  if (rc) {
    if (rank == 0) fprintf(stderr, "%s: %s\n", sc->path, err[0] ? err : "cannot build the dataset on every rank");
    hs_dataset_free(ds);
    return rc;
  }

  hs_emulator *emu = NULL;
  if (sc->real.emulate) {
    emu = hs_emulator_create(sc, MPI_COMM_WORLD, err, sizeof err);
    rc = hs_real_agree(emu ? 0 : HS_SCENARIO_EBAD);
    if (rc) {
      if (rank == 0) fprintf(stderr, "%s: %s\n", sc->path, err[0] ? err : "emulation failed on some rank");
      hs_emulator_free(emu);
      hs_dataset_free(ds);
      return rc;
    }
  }

  hs_worker *w = hs_real_make_worker(sc, transport, emu);
  rc = hs_real_agree(w ? 0 : 1);
  if (rc) {
    if (rank == 0) fprintf(stderr, "hearsay-real: the %s transport failed to start\n",
                           transport == HS_TRANSPORT_NCCL ? "NCCL" : "MPI");
    if (w) hs_real_free_worker(w, transport);
    hs_emulator_free(emu);
    hs_dataset_free(ds);
    return rc;
  }
  if (sc->run.trace > 0 && rank == 0)
    fprintf(stderr, "hearsay-real: run.trace is recorded by the simulator only; no trace.json here\n");

  hs_metrics *m = hs_metrics_create(hs_algorithm_max_iterations(sc), hs_model_tracked_params(&sc->workload));
  hs_train_job job = {.sc = sc, .ds = ds, .metrics = m, .stragglers = sc->real.emulate};
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (transport == HS_TRANSPORT_NCCL) hs_nccl_worker_start_clock(w);
  else hs_mpi_worker_start_clock(w);
  int train_rc = hs_train_worker(w, &job);
  if (train_rc) fprintf(stderr, "hearsay-real: rank %d: training failed (%d)\n", rank, train_rc);
  rc = hs_real_agree(train_rc ? 1 : 0);
  double wall = MPI_Wtime() - t0;
  hs_real_free_worker(w, transport);
  hs_emulator_free(emu);

  if (!rc) {
    merge_metrics(m, rank, size);
    if (rank == 0) {
      const char *mode = sc->real.emulate ? "emulated" : "real";
      const char *backend = transport == HS_TRANSPORT_NCCL ? "nccl" : "mpi";
      hs_run_info info = {.mode = mode, .backend = backend, .fidelity = "measured", .ranks = size,
                          .wall_time = wall};
      rc = hs_report_write(od->stage, sc, m, &info) ? 1 : 0;
      if (!rc && !opt->quiet) hs_report_print(stdout, sc, m, &info, od->target);
    }
    rc = hs_real_agree(rc);
  }
  hs_metrics_free(m);
  hs_dataset_free(ds);
  return rc;
}

int hs_real_run(const hs_real_options *opt) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  hs_scenario sc;
  int rc = hs_real_load(opt, rank, &sc);
  if (rc) return rc;
  rc = hs_real_agree(hs_real_check_ranks(&sc, rank, size));

  /* Rank 0 writes; its folder is staged and put in place only when every
   * rank succeeded (algos/report/outdir.h). */
  char dir[HS_OUTDIR_PATH_MAX], err[HS_OUTDIR_PATH_MAX + 128];
  if (opt->out_dir) snprintf(dir, sizeof dir, "%s", opt->out_dir);
  else snprintf(dir, sizeof dir, "out/%s-%s", sc.name, sc.real.emulate ? "emulated" : "real");
  hs_outdir od = {0};
  if (!rc) {
    int bad = rank == 0 && hs_outdir_open(&od, dir, err, sizeof err);
    if (bad) fprintf(stderr, "hearsay-real: %s\n", err);
    rc = hs_real_agree(bad);
  }
  if (!rc) rc = train_and_report(&sc, opt, &od, rank, size);
  if (rank == 0 && od.stage[0]) {
    if (!rc && hs_outdir_commit(&od)) {
      fprintf(stderr, "hearsay-real: cannot put the outputs in place at %s: %s\n", od.target, strerror(errno));
      rc = 1;
    }
    if (rc) hs_outdir_discard(&od);
  }
  hs_scenario_free(&sc);
  return rc;
}
