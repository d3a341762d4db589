/* bench_allreduce.c — allreduce bus bandwidth of hearsay's transports
 * against the raw library call, nccl-tests style, side by side in one run.
 *
 * usage: mpirun -np N hs_bench_allreduce [--max 256MiB] [--scenario FILE]
 * For each size from 1 KiB to --max (x4), float32 sum, out of place:
 *   hearsay's MPI transport with real.lowering = "mpi" (the library's
 *   collectives, behind hearsay's streams and requests),
 *   the same with real.lowering = "hearsay" (the simulator's ring, the
 *   lowering emulation uses),
 *   raw MPI_Allreduce.
 * Prints time and busbw (= algbw * 2(n-1)/n) for each and the busbw ratios
 * to raw. The NCCL transport's twin of this table needs a GPU machine
 * (docs/real.md says how). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "real/clock.h"
#include "real/mpi_backend.h"
#include "real/nccl_backend.h"
#include "scenarios/loader.h"
#include "scenarios/units.h"

typedef double (*timed_fn)(void *ctx, size_t count, int iters);

typedef struct {
  hs_worker *w;
  float *send, *recv;
} hs_ctx;

static double time_hs(void *p, size_t count, int iters) {
  hs_ctx *c = p;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = hs_clock_now();
  for (int i = 0; i < iters; i++) {
    hs_request *q;
    hs_allreduce(c->w, c->w->world, hs_buf_host(c->send, count, HS_F32), hs_buf_host(c->recv, count, HS_F32), HS_SUM,
                 &q);
    hs_wait(c->w, &q);
  }
  double t = (hs_clock_now() - t0) / iters, worst;
  MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

static double time_mpi(void *p, size_t count, int iters) {
  hs_ctx *c = p;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = hs_clock_now();
  for (int i = 0; i < iters; i++) MPI_Allreduce(c->send, c->recv, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double t = (hs_clock_now() - t0) / iters, worst;
  MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

static double busbw(size_t bytes, int n, double t) { return bytes / t / 1e9 * (n > 1 ? 2.0 * (n - 1) / n : 1); }

static void row(size_t bytes, int n, double t_native, double t_lowered, double t_raw) {
  char sz[16];
  hs_format_bytes((double)bytes, sz, sizeof sz);
  printf("%10s  %10.1f %7.3f  %10.1f %7.3f  %10.1f %7.3f   %6.3f %6.3f\n", sz, t_native * 1e6,
         busbw(bytes, n, t_native), t_lowered * 1e6, busbw(bytes, n, t_lowered), t_raw * 1e6, busbw(bytes, n, t_raw),
         t_raw / t_native, t_raw / t_lowered);
}

static void header(void) {
  printf("%10s  %18s  %18s  %18s   %13s\n", "", "hearsay mpi", "hearsay mpi", "MPI_Allreduce", "busbw ratio");
  printf("%10s  %18s  %18s  %18s   %13s\n", "", "lowering=mpi", "lowering=hearsay", "(raw)", "to raw");
  printf("%10s  %10s %7s  %10s %7s  %10s %7s   %6s %6s\n", "size", "time(us)", "busbw", "time(us)", "busbw",
         "time(us)", "busbw", "mpi", "hearsay");
}

static int iterations_for(size_t bytes) {
  size_t it = (size_t)2e9 / (bytes + 65536);
  return it < 5 ? 5 : it > 2000 ? 2000 : (int)it;
}

int main(int argc, char **argv) {
  int provided, rank, n;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  double max_bytes = 256.0 * 1024 * 1024;
  const char *scenario = HS_SOURCE_DIR "/scenarios/emulated-4.lua";
  for (int i = 1; i < argc; i++) {
    char err[128];
    if (strcmp(argv[i], "--max") == 0 && i + 1 < argc) hs_parse_unit(argv[++i], HS_UNIT_BYTES, &max_bytes, err, sizeof err);
    else if (strcmp(argv[i], "--scenario") == 0 && i + 1 < argc) scenario = argv[++i];
  }
  /* The scenario only supplies placement and the lowering (ring); no
   * emulation, no compute: raw transport speed. */
  hs_scenario sc, sc_lowered;
  const char *sets[] = {"real.emulate=false", "sim.collectives=ring", "real.lowering=mpi"};
  const char *sets_lowered[] = {"real.emulate=false", "sim.collectives=ring", "real.lowering=hearsay"};
  if (hs_scenario_load(scenario, sets, 3, &sc) || hs_scenario_load(scenario, sets_lowered, 3, &sc_lowered)) {
    MPI_Finalize();
    return 2;
  }
  size_t max_count = (size_t)(max_bytes / sizeof(float));
  hs_ctx c = {hs_mpi_worker_create(&sc, NULL, 0), malloc(max_count * sizeof(float)),
              malloc(max_count * sizeof(float))};
  hs_ctx lowered = c;
  lowered.w = hs_mpi_worker_create(&sc_lowered, NULL, 0);
  for (size_t i = 0; i < max_count; i++) c.send[i] = (float)(i % 7);
  memset(c.recv, 0, max_count * sizeof(float));
  if (rank == 0) {
    printf("# allreduce float32 sum, %d ranks, out of place; time is the slowest rank's mean\n", n);
    header();
  }
  for (size_t bytes = 1024; bytes <= (size_t)max_bytes; bytes *= 4) {
    size_t count = bytes / sizeof(float);
    int iters = iterations_for(bytes);
    time_hs(&c, count, 2), time_hs(&lowered, count, 2), time_mpi(&c, count, 2); /* warm-up */
    /* Interleaved halves, so drift on a shared machine hits all alike. */
    double t[3] = {0, 0, 0};
    for (int half = 0; half < 2; half++) {
      t[0] += time_hs(&c, count, iters) / 2;
      t[1] += time_hs(&lowered, count, iters) / 2;
      t[2] += time_mpi(&c, count, iters) / 2;
    }
    if (rank == 0) row(bytes, n, t[0], t[1], t[2]);
  }
  fflush(stdout);
  hs_mpi_worker_free(lowered.w);
  hs_mpi_worker_free(c.w);
  free(c.send);
  free(c.recv);
  hs_scenario_free(&sc);
  hs_scenario_free(&sc_lowered);
  MPI_Finalize();
  return 0;
}
