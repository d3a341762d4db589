/* collective_cmd.c — timing-only collectives over every GPU of a cluster.
 *
 * One size (--bytes 100MiB): the detailed report of one collective: the
 * simulated time, the schedule that ran, algbw and busbw (nccl-tests'
 * definitions), the ring's closed form (docs/fidelity.md), the protocol's
 * launch plus: pipelined,
 * steps x (G x mean hop latency + M/n / slowest hop bandwidth) with G the
 * units a step moves one after another; lock-step (sim.slices_in_flight =
 * 0), steps x (slowest hop latency + M/n / slowest hop bandwidth), hop
 * latencies with the protocol's and M with its wire bytes,
 * what the simulation cost, and with --model nccl what NCCL's own cost
 * model predicts (algos/comm/nccl_model.h).
 *
 * A sweep (--bytes MIN:MAX, --factor 2, --op all): nccl-tests' table, one
 * row per operation and size, each size its own simulation (SimGrid runs
 * one per process: a child per row), and --csv FILE the same rows for a
 * machine.
 *
 * --gpus-per-thread G is nccl-tests' -g G: one host thread launches each
 * collective on G GPUs in turn, and the table's time is what nccl-tests
 * then measures, the longer of the collective and G launches
 * (hs_nccltests_iteration); the one-size report prints both.
 *
 * sendrecv is nccl-tests' sendrecv_perf: every rank sends the size to the
 * next rank and receives as much from the previous one, one point-to-point
 * group (hs_group_p2p), busbw = algbw.
 *
 * Sizes are timed as asked for allreduce, broadcast, reduce and sendrecv, however
 * small (8 B over 128 ranks is 8 B, most chunks empty); the collectives that
 * split the vector into one share per rank take it rounded down to a
 * multiple of the ranks, say so, and refuse (one size) or skip (a sweep)
 * fewer bytes than ranks. */
#include "sim/collective_cmd.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "algos/comm/lowering.h"
#include "algos/comm/nccl_model.h"
#include "algos/comm/protocol.h"
#include "algos/comm/select.h"
#include "scenarios/nccl_versions.h"
#include "scenarios/net_transport.h"
#include "scenarios/units.h"
#include "sim/nccltests.h"
#include "sim/platform.h"
#include "sim/sim.h"

enum { OPS = 7 };
static const char *const ops[OPS] = {"allreduce", "reduce_scatter", "allgather", "broadcast", "reduce", "alltoall", "sendrecv"};
static const hs_op_kind kinds[OPS] = {HS_OP_ALLREDUCE, HS_OP_REDUCE_SCATTER, HS_OP_ALLGATHER,
                                      HS_OP_BROADCAST, HS_OP_REDUCE,         HS_OP_ALLTOALL, HS_OP_P2P};

typedef struct {
  int op;
  size_t count;   /* elements of the full vector */
  hs_dtype dtype; /* float32, or bytes when the size is not a multiple of 4 */
  double bytes;   /* M, as timed */
  /* results */
  double finish;
  double hop_latency, hop_bandwidth; /* slowest ring hop */
  double mean_hop_latency;           /* over the ring's n hops */
  double mean_link_latency, link_latency; /* the same without the protocol's hop; the slowest hop's */
  int proto;                         /* the protocol the selector runs it with */
  hs_proto_cost cost;                /* and its costs, on every GPU of the cluster */
  int gpus_per_node;
  const hs_cluster_spec *cluster; /* for the transport's bound on a hop across nodes */
  int channels;
  int ring_hops; /* the schedule is the ring: its hops are measured for its bound */
  int tree_rounds;     /* the schedule is a binomial tree: its rounds are timed for its closed form */
  double tree_closed;  /* that closed form (rank_main) */
  long collectives[HS_COLL_ALGOS];
  double wall, rss_mib;
  long messages, actors;
  int ok;
} coll_job;

static void rank_main(hs_worker *w, void *arg) {
  coll_job *j = arg;
  size_t n = (size_t)w->size, c = j->count;
  if (w->rank == 0 && j->ring_hops) {
    /* The ring's slowest hop, from SimGrid's own routes: n of them, which
     * at 16 384 GPUs costs more than a tree's whole simulation, so only
     * where the ring runs and its bound is printed. */
    j->hop_latency = 0;
    j->hop_bandwidth = INFINITY;
    j->mean_hop_latency = 0;
    j->mean_link_latency = 0;
    j->link_latency = 0;
    for (int r = 0; r < w->size; r++) {
      if (w->size < 2) continue;
      /* the link's latency and the protocol's on that kind of hop */
      int same_node = r / j->gpus_per_node == ((r + 1) % w->size) / j->gpus_per_node;
      double lat, bw;
      hs_sim_route(w, r, (r + 1) % w->size, &lat, &bw);
      /* a hop across nodes is also its transport's flow (net_transport.h) */
      bw = fmin(bw, hs_net_hop_cap(j->cluster, r, (r + 1) % w->size, r / j->gpus_per_node,
                                   ((r + 1) % w->size) / j->gpus_per_node, j->channels, j->gpus_per_node, 1));
      j->mean_link_latency += lat / w->size;
      lat += same_node ? j->cost.hop_intra : j->cost.hop_net;
      j->mean_hop_latency += lat / w->size;
      if (lat > j->hop_latency) {
        j->hop_latency = lat;
        j->link_latency = lat - (same_node ? j->cost.hop_intra : j->cost.hop_net);
      }
      if (bw < j->hop_bandwidth) j->hop_bandwidth = bw;
    }
  }
  if (w->rank == 0 && j->tree_rounds) {
    /* A binomial tree from rank 0: in the round of distance d, every rank
     * v < d that has a peer v + d sends it the whole vector, one GPU's
     * flow (lowering.c, tree_broadcast; a reduce the same edges the
     * other way). Each rank's rounds follow one another, so the tree
     * ends by the sum over rounds of each round's slowest edge: exact
     * where a round's edges are alike. */
    double bytes = (double)c * (double)hs_dtype_size(j->dtype) * j->cost.wire, total = 0;
    for (int d = 1; d < w->size; d *= 2) {
      double slowest = 0;
      for (int v = 0; v < d && v + d < w->size; v++) {
        double lat, bw;
        hs_sim_route(w, v, v + d, &lat, &bw);
        int same_node = v / j->gpus_per_node == (v + d) / j->gpus_per_node;
        bw = fmin(bw, hs_net_hop_cap(j->cluster, v, v + d, v / j->gpus_per_node, (v + d) / j->gpus_per_node,
                                     j->channels, 1, 1));
        if (j->cost.rate > 0) bw = fmin(bw, j->cost.rate);
        slowest = fmax(slowest, lat + (same_node ? j->cost.hop_intra : j->cost.hop_net) + bytes / bw);
      }
      total += slowest;
    }
    j->tree_closed = total + j->cost.launch;
  }
  hs_request *q = NULL;
  hs_buf full = hs_buf_virtual(c, j->dtype), part = hs_buf_virtual(c / n, j->dtype);
  switch (j->op) {
  case 0: hs_allreduce(w, w->world, full, full, HS_SUM, &q); break;
  case 1: hs_reduce_scatter(w, w->world, full, part, HS_SUM, &q); break;
  case 2: hs_allgather(w, w->world, part, full, &q); break;
  case 3: hs_broadcast(w, w->world, full, full, 0, &q); break;
  case 4: hs_reduce(w, w->world, full, full, HS_SUM, 0, &q); break;
  case 5: hs_alltoall(w, w->world, full, full, &q); break;
  default: {
    hs_p2p pair[2] = {{HS_P2P_SEND, (w->rank + 1) % w->size, full}, {HS_P2P_RECV, (w->rank + w->size - 1) % w->size, full}};
    hs_group_p2p(w, w->world, pair, 2, &q);
  } break;
  }
  hs_wait(w, &q);
  if (hs_now(w) > j->finish) j->finish = hs_now(w);
}

static int shares(int op) { return op == 1 || op == 2 || op == 5; } /* reduce_scatter, allgather, alltoall */

/* The size actually timed for `bytes` asked: see the header comment.
 * Returns 0 when nothing can be timed (fewer bytes than ranks). */
static double timed_bytes(int op, double bytes, int n) {
  if (!shares(op)) return bytes;
  return bytes < n ? 0 : floor(bytes / n) * n;
}

/* The world communicator's members, ranks 0..n-1 (to free). */
static int *world_members(int n) {
  int *members = malloc((size_t)n * sizeof *members);
  for (int r = 0; r < n; r++) members[r] = r;
  return members;
}

/* The selector's plan for the world communicator of sc (n ranks). */
static hs_plan *world_plan(const hs_scenario *sc, int n) {
  int *members = world_members(n);
  hs_select_query q = {sc, n, n, members, {1u << HS_ENGINE_MESSAGES, 0, 1}, 0};
  hs_plan *p = malloc(sizeof *p);
  hs_select(&q, p);
  free(members);
  return p;
}

static void shape(const hs_scenario *sc, coll_job *j, int n) {
  j->gpus_per_node = sc->cluster.gpus_per_node;
  j->cluster = &sc->cluster;
  j->channels = hs_channels_of(sc);
  /* the protocol the run will use: the scenario's, or the tuner's pick */
  hs_plan *p = world_plan(sc, n);
  j->proto = p->exec[kinds[j->op]].proto;
  hs_coll_algo algo = p->exec[kinds[j->op]].algo;
  if (kinds[j->op] == HS_OP_P2P) j->proto = hs_plan_p2p_proto(p, j->bytes); /* NCCL's by size */
  else if (p->tuned) {
    hs_tuned t = hs_plan_tuned_at(p, kinds[j->op], j->bytes);
    j->proto = t.proto;
    algo = (hs_coll_algo)t.algo;
  }
  hs_proto_cost planned = p->exec[kinds[j->op]].cost;
  free(p);
  j->ring_hops = algo == HS_COLL_RING && j->op <= 2;
  j->tree_rounds = algo == HS_COLL_RECURSIVE_DOUBLING && (j->op == 3 || j->op == 4);
  hs_proto_site site = hs_proto_site_of(sc, sc->cluster.nodes, sc->cluster.gpus_per_node == 1);
  j->cost = hs_proto_cost_of(j->proto, kinds[j->op] == HS_OP_P2P ? HS_PROTO_FOR_RING : hs_proto_family_of(algo), &site);
  if (planned.host) { /* a host library's (Gloo's): its costs, its copies to the host and back with the launch */
    j->cost = planned;
    /* a reduce-scatter's or an allgather's one side is a rank's share;
     * an alltoall's and a sendrecv's are whole both ways */
    double whole = j->bytes, piece = j->op == 1 || j->op == 2 ? j->bytes / n : j->bytes;
    j->cost.launch += planned.stage * (whole + piece);
  }
  /* Float32 elements when they fit exactly, as the algorithms send; bytes
   * otherwise (the same traffic: nothing is computed on a timing-only
   * vector). */
  size_t unit = fmod(j->bytes, shares(j->op) ? 4.0 * n : 4.0) == 0 ? 4 : 1;
  j->dtype = unit == 4 ? HS_F32 : HS_U8;
  j->count = (size_t)(j->bytes / (double)unit);
}

static void simulate(const hs_scenario *sc, const char *platform, coll_job *j) {
  hs_sim_config cfg = {.sc = sc, .platform_file = platform, .main = rank_main, .arg = j};
  hs_sim_stats st = {0};
  hs_sim_run(&cfg, &st);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  j->rss_mib = ru.ru_maxrss / 1024.0;
  j->wall = st.wall_time;
  j->messages = st.messages;
  j->actors = st.actors;
  memcpy(j->collectives, st.collectives, sizeof j->collectives);
  j->ok = 1;
}

/* One simulation in a child process (SimGrid runs once per process); the
 * result comes back through a pipe. */
static int simulate_child(const hs_scenario *sc, const char *platform, coll_job *j) {
  int fd[2];
  if (pipe(fd)) return -1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]), close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    close(fd[0]);
    simulate(sc, platform, j);
    ssize_t w = write(fd[1], j, sizeof *j);
    _exit(w == (ssize_t)sizeof *j ? 0 : 1);
  }
  close(fd[1]);
  ssize_t got = 0, r;
  while (got < (ssize_t)sizeof *j && (r = read(fd[0], (char *)j + got, sizeof *j - (size_t)got)) > 0) got += r;
  close(fd[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return got == (ssize_t)sizeof *j && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int hs_collective_simulate(const hs_scenario *sc, const char *platform, hs_op_kind k, double bytes, double *seconds) {
  int op = 0;
  while (op < OPS && kinds[op] != k) op++;
  if (op == OPS) return -1;
  coll_job j = {.op = op, .bytes = timed_bytes(op, bytes, hs_scenario_gpus(sc))};
  if (j.bytes == 0) return -1;
  shape(sc, &j, hs_scenario_gpus(sc));
  if (simulate_child(sc, platform, &j)) return -1;
  *seconds = j.finish;
  return 0;
}

/* nccl-tests' bus bandwidth factor (its doc/PERFORMANCE.md). */
static double bus_factor(int op, int n) {
  if (op == 3 || op == 4 || op == 6) return 1;
  return (op == 0 ? 2.0 : 1.0) * (n - 1) / n;
}

/* The schedule that ran: the lowering of this operation under the family
 * the selector chose (the one with a count). */
static const char *schedule(const coll_job *j) {
  if (kinds[j->op] == HS_OP_P2P) return "p2p";
  for (int a = 0; a < HS_COLL_ALGOS; a++)
    if (j->collectives[a]) return hs_lower_schedule_name(kinds[j->op], (hs_coll_algo)a);
  return "-";
}

int hs_collective_parse_bytes(const char *text, double *min, double *max, char *err, size_t len) {
  char lo[64], hi[64];
  const char *colon = strchr(text, ':');
  if (strlen(text) >= sizeof lo) {
    snprintf(err, len, "%s: too long", text);
    return -1;
  }
  snprintf(lo, sizeof lo, "%.*s", colon ? (int)(colon - text) : (int)strlen(text), text);
  snprintf(hi, sizeof hi, "%s", colon ? colon + 1 : lo);
  char e[200] = "";
  if (hs_parse_unit(lo, HS_UNIT_BYTES, min, e, sizeof e) || hs_parse_unit(hi, HS_UNIT_BYTES, max, e, sizeof e)) {
    snprintf(err, len, "%s", e[0] ? e : "not a size");
    return -1;
  }
  for (int i = 0; i < 2; i++) {
    double b = i ? *max : *min;
    if (b <= 0 || b != floor(b) || b > 0x1p52) {
      snprintf(err, len, "%.15gB: not a whole number of bytes from 1 B to 4 PiB", b);
      return -1;
    }
  }
  if (*max < *min) {
    snprintf(err, len, "%s: the largest size is below the smallest", text);
    return -1;
  }
  return 0;
}

/* NCCL's algorithm that runs hearsay's schedule a, or -1: the ring and the
 * double binary tree are NCCL's own; the others are not. */
static int nccl_counterpart(hs_coll_algo a) {
  return a == HS_COLL_RING ? HS_NCCL_RING : a == HS_COLL_TREE ? HS_NCCL_TREE : -1;
}

/* What NCCL's model predicts for j: for the same algorithm and protocol
 * when the scenario forces both and NCCL has them for this operation (a
 * comparison of two models of one schedule), else NCCL's own pick (what
 * NCCL would run, against what hearsay's tuner runs). */
static void nccl_predict(const hs_scenario *sc, const hs_nccl_model *m, int op, double bytes, double *us,
                         const char **algo, const char **proto) {
  hs_nccl_algo a;
  hs_proto p;
  double s = -1;
  *us = NAN;
  *algo = *proto = "-";
  int same = nccl_counterpart(sc->sim.collectives);
  if (same >= 0 && sc->sim.protocol >= 0 && sc->sim.protocol < HS_PROTOS) {
    a = (hs_nccl_algo)same;
    p = (hs_proto)sc->sim.protocol;
    s = hs_nccl_time(m, kinds[op], a, p, bytes);
  }
  if (s >= 0 || hs_nccl_pick(m, kinds[op], bytes, &a, &p, &s) == 0) {
    *us = s * 1e6;
    *algo = hs_nccl_algo_name(a);
    *proto = hs_proto_name(p);
  }
}

static int report_one(const hs_scenario *sc, const hs_collective_options *o, int op, const char *platform, FILE *csv,
                      const hs_nccl_model *m);

static int gpus_per_thread(const hs_collective_options *o) { return o->gpus_per_thread > 1 ? o->gpus_per_thread : 1; }

/* "ring/simple": the schedule and the protocol that ran. */
static const char *how_ran(const coll_job *j) {
  static char buf[64];
  snprintf(buf, sizeof buf, "%s/%s", schedule(j), hs_proto_name(j->proto));
  return buf;
}

static int same_pick(hs_tuned a, hs_tuned b) { return a.algo == b.algo && a.proto == b.proto; }

/* The tuner's picks for op over the world communicator, from 1 B to
 * 8 GiB: where they change (the crossover sizes, to the byte). Sizes
 * 2^(k/2) apart are asked, and between two that differ the first size of
 * the second's pick is found by bisection (a pick that changes and comes
 * back between two of them is not seen). Nothing when the scenario forces
 * both the schedule and the protocol. */
static void print_tuner(const hs_scenario *sc, int op, int n, const char *prefix) {
  if (kinds[op] == HS_OP_P2P) return;
  hs_plan *p = world_plan(sc, n);
  if (!p->tuned) {
    free(p);
    return;
  }
  /* a study's older NCCL (sim.nccl_version) picks among less: say which */
  if (sc->sim.nccl > 0 && sc->sim.nccl < HS_NCCL_LATEST)
    printf("%stuner (%s over %d ranks, NCCL %s):", prefix, ops[op], n, sc->sim.nccl_version);
  else
    printf("%stuner (%s over %d ranks):", prefix, ops[op], n);
  hs_op_kind k = kinds[op];
  double below = 1;
  hs_tuned last = hs_plan_tuned_at(p, k, below);
  for (int h = 0; h <= 67; h++) {
    double size = h == 0 ? 1 : floor(ldexp(h % 2 ? 1.4142135623730951 : 1, h / 2));
    hs_tuned t = hs_plan_tuned_at(p, k, size);
    if (h > 0 && same_pick(t, last)) {
      below = size;
      continue;
    }
    double from = size;
    while (h > 0 && from - below > 1) { /* the first size of t's pick above below */
      double mid = floor((below + from) / 2);
      if (same_pick(hs_plan_tuned_at(p, k, mid), last)) below = mid;
      else from = mid;
    }
    t = hs_plan_tuned_at(p, k, from);
    char at[32];
    hs_format_bytes(from, at, sizeof at);
    printf("%s from %s %s/%s", h > 0 ? "," : "", at, hs_lower_schedule_name(k, (hs_coll_algo)t.algo), hs_proto_name(t.proto));
    last = t;
    below = size;
  }
  printf(" (picked per size, as NCCL picks per call)\n");
  free(p);
}

static const char *type_name(const coll_job *j) { return j->dtype == HS_F32 ? "float" : "uint8"; }
static const char *redop_name(int op) { return op == 0 || op == 1 || op == 4 || op == 6 ? "sum" : "none"; } /* sendrecv_perf prints sum */
static int root_of(int op) { return op == 3 || op == 4 ? 0 : -1; }

/* One CSV row; count: elements of the full vector. */
static void csv_row(FILE *csv, const hs_scenario *sc, const coll_job *j, int n, double nccl_us, const char *algo,
                    const char *proto) {
  double algbw = j->bytes / j->finish / 1e9;
  fprintf(csv, "%s,%.0f,%zu,%s,%s,%d,%.6f,%.6f,%.6f,%s,%s,%.6f,%s,%s,%s\n", ops[j->op], j->bytes, j->count, type_name(j),
          redop_name(j->op), root_of(j->op), j->finish * 1e6, algbw, algbw * bus_factor(j->op, n), schedule(j),
          hs_sim_fidelity(sc, n), nccl_us, algo, proto, hs_proto_name(j->proto));
}

int hs_cmd_collective(const hs_scenario *sc, const hs_collective_options *o) {
  int first = -1, last = -1;
  for (int i = 0; i < OPS; i++)
    if (strcmp(ops[i], o->op) == 0) first = last = i;
  if (strcmp(o->op, "all") == 0) first = 0, last = OPS - 1;
  if (first < 0) {
    fprintf(stderr, "hearsay collective: unknown --op '%s' (allreduce, reduce_scatter, allgather, broadcast, "
                    "reduce, alltoall, sendrecv, all)\n", o->op);
    return 2;
  }
  int n = hs_scenario_gpus(sc);
  int sweep = o->max_bytes > o->min_bytes || first != last;
  /* a sweep by --step is linear: bound its rows, as a geometric one is by
   * its factor, so that no input runs for ever */
  if (sweep && o->step > 0 && (o->max_bytes - o->min_bytes) / o->step >= 10000) {
    fprintf(stderr, "hearsay collective: --step %.0fB: %.0f B to %.0f B would take more than 10000 sizes\n", o->step,
            o->min_bytes, o->max_bytes);
    return 2;
  }
  if (sweep && !(o->factor > 1) && !(o->step > 0)) {
    fprintf(stderr, "hearsay collective: --factor %g: a sweep needs a factor above 1\n", o->factor);
    return 2;
  }
  if (!sweep && shares(first) && o->min_bytes < n) {
    fprintf(stderr, "hearsay collective: --bytes %.0fB: %s over %d ranks needs at least %d B (its vector is %d "
                    "equal shares of whole bytes)\n", o->min_bytes, ops[first], n, n, n);
    return 2;
  }
  if (sc->cluster.gpus_per_node % gpus_per_thread(o) != 0) {
    fprintf(stderr, "hearsay collective: --gpus-per-thread %d: a thread's GPUs are on its node, whose %d GPUs are "
            "not threads of %d each\n", o->gpus_per_thread, sc->cluster.gpus_per_node, o->gpus_per_thread);
    return 2;
  }
  hs_nccl_topo topo;
  hs_nccl_topo_of(sc, &topo);
  hs_nccl_model model;
  hs_nccl_model_init(&model, &topo);

  char tmp_csv[4096 + 8] = "";
  FILE *csv = NULL;
  if (o->csv) {
    snprintf(tmp_csv, sizeof tmp_csv, "%s.tmp", o->csv);
    csv = fopen(tmp_csv, "w");
    if (!csv) {
      fprintf(stderr, "hearsay collective: --csv %s: %s\n", o->csv, strerror(errno));
      return 2;
    }
    fprintf(csv, "op,size_B,count,type,redop,root,time_us,algbw_GBps,busbw_GBps,schedule,fidelity,"
                 "nccl_model_us,nccl_algorithm,nccl_protocol,protocol\n");
  }
  char platform[HS_PLATFORM_TEMP_LEN];
  if (hs_platform_write_temp(&sc->cluster, "hearsay collective", platform)) {
    if (csv) fclose(csv), remove(tmp_csv);
    return 1;
  }
  int rc = 0;
  if (!sweep) {
    rc = report_one(sc, o, first, platform, csv, &model);
  } else {
    printf("# hearsay collective: %d ranks (%d x %d), %s fidelity, %d GPU%s a thread, sizes %.0f B to %.0f B ", n,
           sc->cluster.nodes, sc->cluster.gpus_per_node, hs_sim_fidelity(sc, n), gpus_per_thread(o),
           gpus_per_thread(o) == 1 ? "" : "s", o->min_bytes, o->max_bytes);
    if (o->step > 0) printf("by +%.0f B\n", o->step);
    else printf("by x%g\n", o->factor);
    printf("#%13s %12s %8s %6s %5s %12s %8s %8s  %-17s", "size(B)", "count", "type", "redop", "root", "time(us)",
           "algbw", "busbw", "schedule");
    if (o->model_nccl) printf(" %12s %-16s %8s", "nccl(us)", "nccl_algo", "sim/nccl");
    printf("\n");
    for (int op = first; op <= last; op++) print_tuner(sc, op, n, "# ");
    double busbw_sum = 0;
    int rows = 0;
    for (int op = first; op <= last && rc == 0; op++) {
      /* at least one byte more each time: floor(1 x 1.1) is 1 again */
      for (double b = o->min_bytes; b <= o->max_bytes * (1 + 1e-12);
           b = o->step > 0 ? b + o->step : fmax(floor(b * o->factor), b + 1)) {
        coll_job j = {.op = op, .bytes = timed_bytes(op, b, n)};
        if (j.bytes == 0) {
          printf("# %s of %.0f B skipped: it splits into %d shares of whole bytes\n", ops[op], b, n);
          continue;
        }
        shape(sc, &j, n);
        if (simulate_child(sc, platform, &j)) {
          fprintf(stderr, "hearsay collective: the simulation of %s at %.0f B failed\n", ops[op], j.bytes);
          rc = 1;
          break;
        }
        /* what nccl-tests would print: its host's launches included (NCCL's
         * model has none: the sim/nccl column compares the collectives) */
        double coll_us = j.finish * 1e6;
        j.finish = hs_nccltests_iteration(j.finish, gpus_per_thread(o), sc->cluster.gpu_launch_overhead);
        double t_us = j.finish * 1e6, algbw = j.bytes / j.finish / 1e9, busbw = algbw * bus_factor(op, n);
        printf(" %13.0f %12zu %8s %6s %5d %12.2f %8.3f %8.3f  %-17s", j.bytes, j.count, type_name(&j),
               redop_name(op), root_of(op), t_us, algbw, busbw, how_ran(&j));
        double nus;
        const char *na, *np;
        nccl_predict(sc, &model, op, j.bytes, &nus, &na, &np);
        char nalgo[40];
        snprintf(nalgo, sizeof nalgo, "%s/%s", na, np);
        if (o->model_nccl) {
          if (isnan(nus)) printf(" %12s %-16s %8s", "-", "(not tuned)", "-");
          else printf(" %12.2f %-16s %8.3f", nus, nalgo, coll_us / nus);
        }
        printf("  %s\n", ops[op]);
        busbw_sum += busbw, rows++;
        if (csv) csv_row(csv, sc, &j, n, nus, na, np);
        if (o->step <= 0 && b * o->factor > 0x1p52) break;
      }
    }
    /* nccl-tests' closing line: the mean bus bandwidth over every row */
    if (rc == 0 && rows > 0) printf("# Avg bus bandwidth    : %g\n", busbw_sum / rows);
  }
  hs_platform_temp_release(platform);
  if (csv) {
    int bad = ferror(csv) | fclose(csv);
    if (rc == 0 && !bad && rename(tmp_csv, o->csv) == 0) return 0;
    remove(tmp_csv);
    if (rc == 0) {
      fprintf(stderr, "hearsay collective: --csv %s: could not be written\n", o->csv);
      rc = 1;
    }
  }
  return rc;
}

static int report_one(const hs_scenario *sc, const hs_collective_options *o, int op, const char *platform, FILE *csv,
                      const hs_nccl_model *m) {
  int n = hs_scenario_gpus(sc);
  double bytes = o->min_bytes;
  coll_job j = {.op = op, .bytes = timed_bytes(op, bytes, n)};
  shape(sc, &j, n);
  simulate(sc, platform, &j);
  double M = j.bytes;
  double steps = op == 0 ? 2.0 * (n - 1) : (op <= 2 ? n - 1.0 : NAN);
  /* The slicing the lowering applies to this ring's largest chunk. */
  size_t esize = hs_dtype_size(j.dtype);
  size_t slice = (size_t)(sc->sim.slice > 0 ? sc->sim.slice : j.cost.slice);
  int window = j.cost.window > 0 ? j.cost.window : hs_lower_ring_window(sc->sim.slices_in_flight, hs_channels_of(sc));
  hs_ring_pipeline pipe = hs_lower_ring_pipeline((j.count + n - 1) / n * esize, j.count / n, slice, window);
  int units = hs_lower_ring_units(pipe), pipelined = pipe.window > 0;
  /* hop latencies include the protocol's (rank_main); its wire bytes
   * slow every hop, which moves them at most at its rate (NCCL's
   * channels' maxima); its launch is paid once */
  double hop_bw = j.cost.rate > 0 ? fmin(j.hop_bandwidth, j.cost.rate) : j.hop_bandwidth;
  double chunk_s = M * j.cost.wire / n / hop_bw, bound = steps * (j.hop_latency + chunk_s);
  if (pipelined) {
    /* The slices pay the latencies of the hops they cross; but a
     * connection holds only `window` slices: when a step needs more (L ==
     * 1 step of credit), each of its units waits for the credit the one
     * before returned and pays a link latency, else it carries L steps at
     * once. Exact on rings of equal hops. */
    int credit_steps = hs_lower_ring_credit_lag(pipe);
    double a = j.mean_link_latency, h = j.mean_hop_latency - a;
    double path = steps * fmax(units * a + chunk_s, a + h + chunk_s / units);
    double pace = credit_steps == 1 ? steps * fmax(units * j.link_latency + chunk_s, j.hop_latency + chunk_s / units)
                                    : steps * fmax(chunk_s, (j.hop_latency + chunk_s) / credit_steps);
    bound = fmax(path, pace);
  }
  bound += j.cost.launch;
  int ring = j.collectives[HS_COLL_RING] > 0 && op <= 2 && n > 1 && j.ring_hops; /* hops measured */
  double factor = bus_factor(op, n);
  char tb[32], tp[32], mb[32];
  hs_format_time(j.finish, tb, sizeof tb);
  hs_format_time(bound, tp, sizeof tp);
  /* Below 1 KiB the byte count itself (hs_format_bytes keeps 3 digits). */
  if (M < 1024) snprintf(mb, sizeof mb, "%.0f B", M);
  else hs_format_bytes(M, mb, sizeof mb);
  char proto_words[32];
  snprintf(proto_words, sizeof proto_words, "%s protocol", hs_proto_name(j.proto));
  if (kinds[op] == HS_OP_P2P)
    printf("hearsay collective: %s of %s over %d ranks (%d x %d), point-to-point, %s fidelity\n", ops[op], mb, n,
           sc->cluster.nodes, sc->cluster.gpus_per_node, hs_sim_fidelity(sc, n));
  else
    printf("hearsay collective: %s of %s over %d ranks (%d x %d), %s schedule, %s, %s fidelity\n", ops[op], mb, n,
           sc->cluster.nodes, sc->cluster.gpus_per_node, schedule(&j),
           j.cost.host ? "Gloo over TCP" : proto_words, hs_sim_fidelity(sc, n));
  if (M != bytes)
    printf("  timed            %.0f B, not the %.0f B asked: %s splits its vector into %d equal shares of whole "
           "bytes\n", M, bytes, ops[op], n);
  printf("  simulated time   %s\n", tb);
  print_tuner(sc, op, n, "  ");
  if (ring && pipelined)
    printf("  ring closed form %s  (pipelined, %d slice%s per chunk, %d unit%s per step; hop latency mean %.3g us, "
           "max %.3g us; slowest hop %.4g GB/s; simulated/closed form = %.6f)\n",
           tp, pipe.slices, pipe.slices == 1 ? "" : "s", units, units == 1 ? "" : "s", j.mean_hop_latency * 1e6,
           j.hop_latency * 1e6, j.hop_bandwidth / 1e9, j.finish / bound);
  else if (ring)
    printf("  ring closed form %s  (lock-step; slowest hop: %.3g us, %.4g GB/s; simulated/closed form = %.6f)\n", tp,
           j.hop_latency * 1e6, j.hop_bandwidth / 1e9, j.finish / bound);
  if (j.tree_rounds && n > 1) {
    int rounds = 0;
    for (int d = 1; d < n; d *= 2) rounds++;
    char tt[32];
    hs_format_time(j.tree_closed, tt, sizeof tt);
    printf("  binomial tree    %s  (%d rounds of the whole vector, each at its slowest hop: exact where a round's "
           "hops are alike, else a bound; simulated/closed form = %.6f)\n",
           tt, rounds, j.finish / j.tree_closed);
  }
  int p2p = kinds[op] == HS_OP_P2P;
  if (p2p && j.cost.host)
    printf("  point-to-point   each rank sends the size to the next and receives as much from the previous, one "
           "flow each, in one group over Gloo's TCP connections\n");
  else if (p2p)
    printf("  point-to-point   each rank sends the size to the next and receives as much from the previous, one "
           "flow each, in one group on %s (NCCL's: LL up to %d B, then Simple; docs/fidelity.md)\n",
           hs_proto_name(j.proto), HS_P2P_LL_THRESHOLD);
  if (j.proto != HS_PROTO_NONE)
    printf("  protocol         %s: launch %.3g us, hop %.3g us in a node / %.3g us across nodes, %.4g wire bytes per "
           "byte, %.0f B slices (NCCL 2.30.7's constants; docs/fidelity.md)\n",
           hs_proto_name(j.proto), j.cost.launch * 1e6, j.cost.hop_intra * 1e6, j.cost.hop_net * 1e6,
           j.cost.wire, j.cost.slice);
  if (j.cost.host) {
    char tc[32];
    hs_format_time(j.cost.launch, tc, sizeof tc);
    printf("  gloo             a connection a pair of processes, %d segments of up to %.0f B in flight; a process's "
           "thread moves at most %.4g GB/s (host.tcp_stream_bandwidth), a message costs %.3g us in a node and %.3g "
           "us across nodes beyond the NICs' own; %s of copies to the host and back (docs/fidelity.md)\n",
           j.cost.window, j.cost.slice, j.cost.rate / 1e9, j.cost.hop_intra * 1e6, j.cost.hop_net * 1e6, tc);
  } else if (j.cost.rate > 0 && !p2p)
    printf("  channels         %d; a flow moves at most %.4g GB/s on the wire (NCCL 2.30.7's maxima for %s GPUs, "
           "docs/fidelity.md)\n",
           hs_channels_of(sc), j.cost.rate / 1e9, hs_gpu_arch_name(sc->cluster.gpu_arch));
  /* The tuner's closed form for what ran (algos/comm/tuner.c). */
  double tuned = NAN;
  for (int a = 0; a < HS_COLL_ALGOS && isnan(tuned) && !j.cost.host; a++) /* the tuner's forms are NCCL's */
    if (j.collectives[a] || (p2p && a == HS_COLL_RING)) {
      int *members = world_members(n);
      hs_tuner_topo t;
      hs_tuner_topo_of(sc, members, n, &t);
      free(members);
      tuned = hs_tuner_predict(&t, kinds[op], (hs_coll_algo)a, j.proto, M);
      if (tuned < 0) tuned = NAN;
    }
  if (!isnan(tuned)) {
    char tt[32];
    hs_format_time(tuned, tt, sizeof tt);
    printf("  tuner predicts   %s  (its closed form for this %s; simulated/predicted = %.4f)\n", tt,
           p2p ? "exchange" : "schedule and protocol", j.finish / tuned);
  }
  printf("  algbw / busbw    %.4g / %.4g GB/s\n", M / j.finish / 1e9, M / j.finish / 1e9 * factor);
  /* What nccl-tests prints for this size: its iterations back to back,
   * each launched by a host thread on its GPUs in turn. */
  int g = gpus_per_thread(o);
  double L = sc->cluster.gpu_launch_overhead, iter = hs_nccltests_iteration(j.finish, g, L);
  if (g > 1 || iter > j.finish) {
    char ti[32], th[32];
    hs_format_time(iter, ti, sizeof ti);
    hs_format_time(g * L, th, sizeof th);
    printf("  nccl-tests -g %-3d %s a collective: one thread launches it on %d GPU%s, %s (gpu.launch_overhead %.3g "
           "us each), %s (docs/fidelity.md)\n", g, ti, g, g == 1 ? "" : "s", th, L * 1e6,
           iter > j.finish ? "host-bound: the GPUs wait for the launches" : "under the collective's time");
  }
  double nus;
  const char *na, *np;
  nccl_predict(sc, m, op, M, &nus, &na, &np);
  if (o->model_nccl) {
    if (isnan(nus)) printf("  nccl model       (NCCL does not tune %s)\n", ops[op]);
    else {
      char tn[32];
      hs_format_time(nus * 1e-6, tn, sizeof tn);
      printf("  nccl model       %s with %s/%s (NCCL 2.30.7's tuning.cc, %d channels; simulated/model = %.4f)\n", tn,
             na, np, m->topo.channels, j.finish * 1e6 / nus);
      if (!strcmp(na, "pat")) /* docs/fidelity.md, "The tuner" */
        printf("                   %s is not modelled: hearsay ran the fastest schedule it has by that model\n", na);
    }
  }
  printf("  simulation cost  %.3f s wall, %.1f MiB peak RSS, %ld messages, %ld actors\n", j.wall, j.rss_mib,
         j.messages, j.actors);
  printf("result op=%s ranks=%d bytes=%.0f sim_s=%.9g bound_s=%.9g wall_s=%.4f rss_mib=%.1f messages=%ld "
         "fidelity=%s actors=%ld requested_bytes=%.0f schedule=%s nccl_s=%.9g nccl_algo=%s nccl_proto=%s tuner_s=%.9g "
         "gpus_per_thread=%d nccltests_s=%.9g\n",
         ops[op], n, M, j.finish, ring ? bound : NAN, j.wall, j.rss_mib, j.messages, hs_sim_fidelity(sc, n), j.actors,
         bytes, schedule(&j), nus * 1e-6, na, np, tuned, g, iter);
  if (csv) { /* the table's time: what nccl-tests prints, as a sweep's rows */
    coll_job row = j;
    row.finish = iter;
    csv_row(csv, sc, &row, n, nus, na, np);
  }
  return 0;
}
