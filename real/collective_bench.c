/* collective_bench.c — `hearsay-real collective`: nccl-tests on hearsay's
 * transports, in nccl-tests' own format.
 *
 * Each size of each collective is posted `iters` times back to back on the
 * world communicator of the transport the scenario picks (NCCL on GPUs,
 * else MPI), after `warmup` untimed ones, out of place and then in place,
 * as nccl-tests' -n and -w do; the time printed is the slowest rank's
 * mean, algbw and busbw are nccl-tests' (its doc/PERFORMANCE.md). The
 * output is what nccl-tests prints, header, rank lines and table, so that
 * `hearsay calibrate` reads it as it reads nccl-tests' own: a user measures
 * their cluster through the same code their algorithms run and feeds the
 * table back to the simulator. Buffers are timing-only (the NCCL transport
 * moves device scratch of the same size; nothing is validated: #wrong is
 * N/A, as nccl-tests prints it under -c 0). */
#include "real/collective_bench.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "real/nccl_backend.h"
#include "real/run_internal.h"

static const struct {
  const char *op, *binary;
  hs_op_kind kind;
} ops[] = {
    {"allreduce", "all_reduce_perf", HS_OP_ALLREDUCE},     {"reduce_scatter", "reduce_scatter_perf", HS_OP_REDUCE_SCATTER},
    {"allgather", "all_gather_perf", HS_OP_ALLGATHER},     {"broadcast", "broadcast_perf", HS_OP_BROADCAST},
    {"reduce", "reduce_perf", HS_OP_REDUCE},               {"alltoall", "alltoall_perf", HS_OP_ALLTOALL},
    {"sendrecv", "sendrecv_perf", HS_OP_P2P},
};
enum { OPS = sizeof ops / sizeof ops[0] };

/* One operation on the whole vector of `count` float32 elements. Buffers
 * are timing-only, so in place is this same call with recv = send. */
static int post(hs_worker *w, hs_op_kind k, size_t count, hs_request **q) {
  int n = w->size;
  hs_buf whole = hs_buf_virtual(count, HS_F32), share = hs_buf_virtual(count / (size_t)n, HS_F32);
  switch (k) {
  case HS_OP_ALLREDUCE: return hs_allreduce(w, w->world, whole, whole, HS_SUM, q);
  case HS_OP_REDUCE_SCATTER: return hs_reduce_scatter(w, w->world, whole, share, HS_SUM, q);
  case HS_OP_ALLGATHER: return hs_allgather(w, w->world, share, whole, q);
  case HS_OP_BROADCAST: return hs_broadcast(w, w->world, whole, whole, 0, q);
  case HS_OP_REDUCE: return hs_reduce(w, w->world, whole, whole, HS_SUM, 0, q);
  case HS_OP_P2P: { /* sendrecv_perf: the vector to the next rank, as much from the previous */
    hs_p2p pair[2] = {{HS_P2P_SEND, (w->rank + 1) % n, whole}, {HS_P2P_RECV, (w->rank + n - 1) % n, whole}};
    return hs_group_p2p(w, w->world, pair, 2, q);
  }
  default: return hs_alltoall(w, w->world, whole, whole, q);
  }
}

/* Seconds per operation: iters posted back to back, then waited, on every
 * rank; the slowest rank's. -1 if an operation failed anywhere. */
static double timed(hs_worker *w, hs_op_kind k, size_t count, int iters) {
  hs_request **q = calloc((size_t)iters, sizeof *q);
  int bad = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters && !bad; i++) bad = post(w, k, count, &q[i]) != HS_OK;
  for (int i = 0; i < iters; i++)
    if (q[i]) bad |= hs_wait(w, &q[i]) != HS_OK;
  free(q);
  double mine[2] = {(MPI_Wtime() - t0) / iters, bad}, all[2];
  MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all[1] > 0 ? -1 : all[0];
}

static double bus_factor(hs_op_kind k, int n) {
  if (k == HS_OP_BROADCAST || k == HS_OP_REDUCE || k == HS_OP_P2P) return 1;
  return (k == HS_OP_ALLREDUCE ? 2.0 : 1.0) * (n - 1) / n;
}

/* "#  Rank  r Group  0 Pid  p on HOST device  d [bus] NAME", gathered on rank 0. */
static void rank_lines(hs_transport t, int rank, int size, int local_rank) {
  enum { LINE = 256 };
  char line[LINE], host[MPI_MAX_PROCESSOR_NAME] = "", name[128] = "CPU (MPI transport)", bus[32] = "[0000:00:00]";
  int len = 0;
  MPI_Get_processor_name(host, &len);
  int device = local_rank;
  if (t == HS_TRANSPORT_NCCL) {
    int d = hs_nccl_device(name, sizeof name, bus, sizeof bus);
    if (d >= 0) device = d;
  }
  snprintf(line, sizeof line, "#  Rank %2d Group  0 Pid %6d on %10s device %2d %s %s\n", rank, (int)getpid(), host,
           device, bus, name);
  char *all = rank == 0 ? malloc((size_t)size * LINE) : NULL;
  MPI_Gather(line, LINE, MPI_CHAR, all, LINE, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; r++) fputs(all + (size_t)r * LINE, stdout);
    free(all);
  }
}

int hs_real_collective(const hs_real_collective_options *o) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int first = -1, last = -1;
  for (int i = 0; i < OPS; i++)
    if (strcmp(ops[i].op, o->op) == 0) first = last = i;
  if (strcmp(o->op, "all") == 0) first = 0, last = OPS - 1;
  if (first < 0) {
    if (rank == 0)
      fprintf(stderr, "hearsay-real collective: unknown --op '%s' (allreduce, reduce_scatter, allgather, broadcast, "
                      "reduce, alltoall, sendrecv, all)\n", o->op);
    return 2;
  }
  hs_scenario sc;
  int rc = hs_real_load(&o->run, rank, &sc);
  if (rc) return rc;
  /* collectives run among the GPUs alone, as `hearsay collective` times
   * them: an algorithm's CPU processes (a parameter server's) take no part */
  sc.cluster.cpu_ranks_per_node = 0, sc.cluster.server_machines = 0;
  rc = hs_real_agree(hs_real_check_ranks(&sc, rank, size));
  hs_transport t = HS_TRANSPORT_MPI;
  if (!rc) rc = hs_real_choose_transport(&sc, rank, &t);
  hs_worker *w = NULL;
  if (!rc) {
    w = hs_real_make_worker(&sc, t, NULL);
    rc = hs_real_agree(w ? 0 : 1);
    if (rc && rank == 0) fprintf(stderr, "hearsay-real collective: the transport failed to start\n");
  }
  if (rc) {
    if (w) hs_real_free_worker(w, t);
    hs_scenario_free(&sc);
    return rc;
  }
  for (int op = first; op <= last && !rc; op++) {
    if (rank == 0) {
      printf("# nccl-tests format, written by hearsay-real collective (%s transport, scenario %s)\n",
             t == HS_TRANSPORT_NCCL ? "NCCL" : "MPI", sc.path);
      printf("# Collective test starting: %s\n", ops[op].binary);
      printf("# nThread 1 nGpus 1 minBytes %.0f maxBytes %.0f step: %g(factor) warmup iters: %d iters: %d agg iters: "
             "1 validation: 0 graph: 0\n#\n# Using devices\n", o->min_bytes, o->max_bytes, o->factor, o->warmup,
             o->iters);
    }
    fflush(stdout);
    rank_lines(t, rank, size, w->local_rank);
    if (rank == 0) {
      printf("#\n# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "",
             "", "", "", "");
      printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "size", "count", "type",
             "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
      printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "(B)", "(elements)", "", "", "",
             "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
    }
    hs_op_kind k = ops[op].kind;
    int splits = k == HS_OP_REDUCE_SCATTER || k == HS_OP_ALLGATHER || k == HS_OP_ALLTOALL;
    double sum_busbw = 0;
    int rows = 0;
    for (double b = o->min_bytes; b <= o->max_bytes * (1 + 1e-12) && !rc; b = fmax(floor(b * o->factor), b + 1)) {
      /* float32 elements, a multiple of the ranks where the vector splits
       * into shares (nccl-tests rounds the same way) */
      size_t unit = splits ? 4 * (size_t)size : 4, count = (size_t)(b / (double)unit) * (unit / 4);
      if (count == 0) continue;
      double bytes = (double)count * 4, t_out = 0, t_in = 0;
      for (int ip = 0; ip < 2 && !rc; ip++) {
        if (timed(w, k, count, o->warmup) < 0) rc = 1;
        double s = rc ? -1 : timed(w, k, count, o->iters);
        if (s < 0) rc = 1;
        *(ip ? &t_in : &t_out) = s;
      }
      if (rc) {
        if (rank == 0) fprintf(stderr, "hearsay-real collective: %s of %.0f B failed\n", ops[op].op, bytes);
        break;
      }
      if (rank == 0) {
        double f = bus_factor(k, size), a_out = bytes / t_out / 1e9, a_in = bytes / t_in / 1e9;
        printf("%12.0f  %12zu  %8s  %6s  %6d", bytes, count, "float", k == HS_OP_ALLGATHER || k == HS_OP_ALLTOALL ||
               k == HS_OP_BROADCAST ? "none" : "sum", k == HS_OP_BROADCAST || k == HS_OP_REDUCE ? 0 : -1);
        printf("  %7.2f  %6.2f  %6.2f  %6s  %7.2f  %6.2f  %6.2f  %6s\n", t_out * 1e6, a_out, a_out * f, "N/A",
               t_in * 1e6, a_in, a_in * f, "N/A");
        sum_busbw += a_out * f, rows++;
      }
    }
    if (rank == 0 && !rc) {
      printf("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : %g \n#\n# Collective test concluded: %s\n\n",
             rows ? sum_busbw / rows : 0, ops[op].binary);
      fflush(stdout);
    }
    rc = hs_real_agree(rc);
  }
  hs_real_free_worker(w, t);
  hs_scenario_free(&sc);
  return rc;
}
