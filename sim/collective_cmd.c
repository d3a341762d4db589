/* collective_cmd.c — one timing-only collective over every GPU of a cluster.
 *
 * Prints the simulated time, algorithm and bus bandwidth (nccl-tests'
 * definitions), the ring bound 2(n-1)(a + M/(nB)) taken over the slowest
 * hop of the ring (the lock-step limit of a ring on a heterogeneous path),
 * and what the simulation cost: wall time, peak memory, messages.
 *
 * --bytes is timed exactly for allreduce, broadcast and reduce; the
 * collectives that split the vector into one share per rank take it
 * rounded down to a multiple of the ranks, say so, and refuse fewer bytes
 * than ranks (docs/performance.md). */
#include "sim/collective_cmd.h"

#include <math.h>
#include <simgrid/host.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "scenarios/units.h"
#include "sim/platform.h"
#include "sim/sim.h"

typedef struct {
  int op;
  size_t count;    /* elements of the full vector */
  hs_dtype dtype;  /* float32, or bytes when the size is not a multiple of 4 */
  double finish;
  double hop_latency, hop_bandwidth; /* slowest ring hop */
} coll_job;

static const char *const ops[] = {"allreduce", "reduce_scatter", "allgather", "broadcast", "reduce", "alltoall", NULL};

static void rank_main(hs_worker *w, void *arg) {
  coll_job *j = arg;
  size_t n = (size_t)w->size, c = j->count;
  if (w->rank == 0) {
    /* The ring's slowest hop, from SimGrid's own routes. */
    j->hop_latency = 0;
    j->hop_bandwidth = INFINITY;
    for (int r = 0; r < w->size; r++) {
      char a[32], b[32];
      snprintf(a, sizeof a, "gpu%d", r);
      snprintf(b, sizeof b, "gpu%d", (r + 1) % w->size);
      sg_host_t ha = sg_host_by_name(a), hb = sg_host_by_name(b);
      if (ha == hb) continue;
      double lat = sg_host_get_route_latency(ha, hb), bw = sg_host_get_route_bandwidth(ha, hb);
      if (lat > j->hop_latency) j->hop_latency = lat;
      if (bw < j->hop_bandwidth) j->hop_bandwidth = bw;
    }
  }
  hs_request *q = NULL;
  hs_buf full = hs_buf_virtual(c, j->dtype), part = hs_buf_virtual(c / n, j->dtype);
  switch (j->op) {
  case 0: hs_allreduce(w, w->world, full, full, HS_SUM, &q); break;
  case 1: hs_reduce_scatter(w, w->world, full, part, HS_SUM, &q); break;
  case 2: hs_allgather(w, w->world, part, full, &q); break;
  case 3: hs_broadcast(w, w->world, full, full, 0, &q); break;
  case 4: hs_reduce(w, w->world, full, full, HS_SUM, 0, &q); break;
  default: hs_alltoall(w, w->world, full, full, &q); break;
  }
  hs_wait(w, &q);
  if (hs_now(w) > j->finish) j->finish = hs_now(w);
}

int hs_cmd_collective(const hs_scenario *sc, const char *op, double bytes) {
  coll_job j = {0};
  j.op = -1;
  for (int i = 0; ops[i]; i++)
    if (strcmp(ops[i], op) == 0) j.op = i;
  if (j.op < 0) {
    fprintf(stderr, "hearsay collective: unknown --op '%s' (allreduce, reduce_scatter, allgather, broadcast, "
                    "reduce, alltoall)\n", op);
    return 2;
  }
  int n = hs_scenario_gpus(sc);
  if (bytes != floor(bytes) || bytes > 0x1p52) {
    fprintf(stderr, "hearsay collective: --bytes %.15gB: not a whole number of bytes below 4 PiB\n", bytes);
    return 2;
  }
  /* allreduce, broadcast and reduce take any count (the ring's chunks are
   * uneven when it does not divide): exactly the bytes asked. The others
   * split the vector into n equal shares, so it must hold a whole number of
   * bytes per rank: fewer than n bytes is refused, and other sizes are
   * rounded down to a multiple of n, and the report says so. */
  int shares = j.op == 1 || j.op == 2 || j.op == 5; /* reduce_scatter, allgather, alltoall */
  double M = bytes;
  if (shares) {
    if (bytes < n) {
      fprintf(stderr, "hearsay collective: --bytes %.0fB: %s over %d ranks needs at least %d B (its vector is %d "
                      "equal shares of whole bytes)\n", bytes, ops[j.op], n, n, n);
      return 2;
    }
    M = floor(bytes / n) * n;
  }
  /* Float32 elements when they fit exactly, as the algorithms send; bytes
   * otherwise (the same traffic: nothing is computed on a timing-only
   * vector). */
  size_t unit = fmod(M, shares ? 4.0 * n : 4.0) == 0 ? 4 : 1;
  j.dtype = unit == 4 ? HS_F32 : HS_U8;
  j.count = (size_t)(M / (double)unit);

  char platform[HS_PLATFORM_TEMP_LEN];
  if (hs_platform_write_temp(&sc->cluster, "hearsay collective", platform)) return 1;
  hs_sim_config cfg = {.sc = sc, .platform_file = platform, .platform_temp = 1, .main = rank_main, .arg = &j};
  hs_sim_stats st = {0};
  hs_sim_run(&cfg, &st);
  remove(platform);

  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double rss_mib = ru.ru_maxrss / 1024.0;
  double steps = j.op == 0 ? 2.0 * (n - 1) : (j.op <= 2 ? n - 1.0 : NAN);
  double bound = steps * (j.hop_latency + M / n / j.hop_bandwidth);
  int ring = sc->sim.collectives == HS_COLL_RING && j.op <= 2 && n > 1;
  static const double bus_factor_num[] = {2, 1, 1, 0, 0, 1};
  double factor = j.op == 3 || j.op == 4 ? 1 : bus_factor_num[j.op] * (n - 1) / n;
  char tb[32], tp[32], mb[32];
  hs_format_time(j.finish, tb, sizeof tb);
  hs_format_time(bound, tp, sizeof tp);
  /* Below 1 KiB the byte count itself (hs_format_bytes keeps 3 digits). */
  if (M < 1024) snprintf(mb, sizeof mb, "%.0f B", M);
  else hs_format_bytes(M, mb, sizeof mb);
  printf("hearsay collective: %s of %s over %d ranks (%d x %d), %s lowering, %s fidelity\n", ops[j.op], mb, n,
         sc->cluster.nodes, sc->cluster.gpus_per_node, sc->sim.collectives == HS_COLL_RING ? "ring" : "hierarchical",
         hs_sim_fidelity(sc, n));
  if (M != bytes)
    printf("  timed            %.0f B, not the %.0f B asked: %s splits its vector into %d equal shares of whole "
           "bytes\n", M, bytes, ops[j.op], n);
  printf("  simulated time   %s\n", tb);
  if (ring)
    printf("  ring bound       %s  (slowest hop: %.3g us, %.4g GB/s; simulated/bound = %.6f)\n", tp,
           j.hop_latency * 1e6, j.hop_bandwidth / 1e9, j.finish / bound);
  printf("  algbw / busbw    %.4g / %.4g GB/s\n", M / j.finish / 1e9, M / j.finish / 1e9 * factor);
  printf("  simulation cost  %.3f s wall, %.1f MiB peak RSS, %ld messages, %ld actors\n", st.wall_time, rss_mib,
         st.messages, st.actors);
  printf("result op=%s ranks=%d bytes=%.0f sim_s=%.9g bound_s=%.9g wall_s=%.4f rss_mib=%.1f messages=%ld "
         "fidelity=%s actors=%ld requested_bytes=%.0f\n", ops[j.op], n, M, j.finish, ring ? bound : NAN, st.wall_time,
         rss_mib, st.messages, hs_sim_fidelity(sc, n), st.actors, bytes);
  return 0;
}
