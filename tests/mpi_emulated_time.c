/* mpi_emulated_time.c — how long one allreduce takes under emulation
 * (real.emulate: the link emulator delays every message as the scenario's
 * cluster would); run under mpirun by test_real_collectives.
 *
 * usage: mpirun -np N mpi_emulated_time SCENARIO BYTES EXPECT_S TOL [--set k=v]...
 * Times one allreduce of BYTES (float sum, timing-only buffers) on the
 * world communicator, as the latest rank's end minus the earliest start,
 * after a barrier and one untimed warm-up; rank 0 prints "1 ..." when it
 * is within TOL (relative) of EXPECT_S, what the simulator gives for the
 * same scenario, else "0 ...".
 *
 * usage: mpirun -np 1 mpi_emulated_time SCENARIO post BYTES RATE
 * Posts one message of BYTES from world rank 0 to 1 with no rate and one
 * from 2 to 3 at most at RATE bytes/s (hs_emulator_post), both now, and
 * prints "1 ..." when the first arrives within 1 ms and the second within
 * [BYTES/RATE, BYTES/RATE + 1 ms]: the links' latency and a clock read
 * between the calls are the slack, for a BYTES/RATE of 0.1 s or more.
 * Where GPUs 0 and 1 have no peer access (cluster.intra.p2p = false, or
 * on a PCIe tree further apart than NCCL's P2P level) the first is staged
 * in host memory: BYTES / host.staging_bandwidth.
 * On a TCP cluster it also posts one from rank 0 to the next node's first
 * GPU as one of 4 flows its exchange sends across nodes at once, which
 * share its proxy thread: BYTES x 4 / stream_bandwidth, 1 ms of slack;
 * and counts an exchange's flows across nodes (hs_emulator_concurrent). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "real/clock.h"
#include "real/emulator.h"
#include "real/mpi_backend.h"
#include "scenarios/loader.h"
#include "scenarios/net_transport.h"

static void allreduce(hs_worker *w, size_t count) {
  hs_request *q = NULL;
  hs_allreduce(w, w->world, hs_buf_virtual(count, HS_F32), hs_buf_virtual(count, HS_F32), HS_SUM, &q);
  hs_wait(w, &q);
}

int main(int argc, char **argv) {
  int provided, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *sets[16];
  int n_sets = 0;
  for (int i = 5; i + 1 < argc && n_sets < 16; i += 2)
    if (strcmp(argv[i], "--set") == 0) sets[n_sets++] = argv[i + 1];
  hs_scenario sc;
  if (argc < 5 || provided < MPI_THREAD_MULTIPLE || hs_scenario_load(argv[1], sets, n_sets, &sc)) {
    if (rank == 0) printf("0 setup: scenario loads and MPI_THREAD_MULTIPLE is provided\n");
    MPI_Finalize();
    return 1;
  }
  char err[256];
  hs_emulator *emu = hs_emulator_create(&sc, MPI_COMM_WORLD, err, sizeof err);
  if (!emu) {
    if (rank == 0) printf("0 setup: %s\n", err);
    MPI_Finalize();
    return 1;
  }
  if (strcmp(argv[2], "post") == 0) {
    double bytes = atof(argv[3]), rate = atof(argv[4]), now = hs_clock_now();
    int node = sc.cluster.gpus_per_node; /* flows of a whole node's GPUs */
    double free_s = hs_emulator_post(emu, 0, 1, (size_t)bytes, now, 0, node, 1) - now;
    double capped_s = hs_emulator_post(emu, 2, 3, (size_t)bytes, now, rate, node, 1) - now, want = bytes / rate;
    /* without peer access two GPUs of a node meet in host memory, at
     * host.staging_bandwidth (net_transport.h), as the simulator has it */
    double hop_cap = sc.cluster.gpus_per_node > 1 ? hs_net_hop_cap(&sc.cluster, 0, 1, 0, 0, 1, 1, 1) : INFINITY;
    double free_want = isfinite(hop_cap) ? bytes / hop_cap : 0;
    int ok = free_s >= free_want && free_s < free_want + 1e-3 && capped_s >= want && capped_s <= want + 1e-3;
    double shared_s = 0, shared_want = 0;
    int counted = -1;
    if (sc.cluster.transport.kind == HS_NET_TCP && sc.cluster.nodes > 2) {
      int g = sc.cluster.gpus_per_node, to[4] = {g, 2 * g, 1, g + 1}, from[2] = {g, 1};
      counted = hs_emulator_concurrent(emu, 0, to, 4, from, 2); /* 3 sends across nodes, 1 receive */
      now = hs_clock_now();
      shared_s = hs_emulator_post(emu, 0, g, (size_t)bytes, now, 0, 1, 4) - now;
      shared_want = bytes * 4 / sc.cluster.transport.stream_bandwidth;
      ok = ok && counted == (g > 1 ? 3 : 4) && shared_s >= shared_want && shared_s <= shared_want + 1e-3;
    }
    if (rank == 0)
      printf("%d one message of %g B: %.6g s free (%.6g: staged in host memory where GPUs 0 and 1 are not peers: "
             "intra.p2p, NCCL's P2P level), %.6g s at most at %g B/s (bytes/rate = %.6g s; slack 1 ms); one of 4 across nodes over TCP "
             "%.6g s (%.6g), flows across counted %d\n",
             ok, bytes, free_s, free_want, capped_s, rate, want, shared_s, shared_want, counted);
    hs_emulator_free(emu);
    hs_scenario_free(&sc);
    MPI_Finalize();
    return 0;
  }
  size_t count = (size_t)(atof(argv[2]) / 4);
  double expect = atof(argv[3]), tol = atof(argv[4]);
  hs_worker *w = hs_mpi_worker_create(&sc, emu, 1);
  hs_mpi_worker_start_clock(w);
  allreduce(w, count); /* warm-up: connections, scratch */
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = hs_clock_now();
  allreduce(w, count);
  double t1 = hs_clock_now(), first, last;
  MPI_Reduce(&t0, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&t1, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double took = last - first, err_rel = fabs(took - expect) / expect;
    printf("%d emulated %.6g s, simulated %.6g s, off by %.3g (bound %g)\n", err_rel <= tol, took, expect, err_rel, tol);
  }
  hs_mpi_worker_free(w);
  hs_emulator_free(emu);
  hs_scenario_free(&sc);
  MPI_Finalize();
  return 0;
}
