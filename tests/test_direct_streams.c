/* test_direct_streams.c — operations that skip their stream actor
 * (sim/stream.c: fast collectives joined at the post, gossip posted by the
 * rank) give the simulated times of the general way, where every operation
 * goes through the actor (HS_SIM_STREAM_ACTORS=1).
 *
 * Every algorithm of the library, with one GPU 3x slower and lognormal
 * noise per GPU per iteration so that arrivals differ at every operation:
 *  - the numeric softmax workload in step fidelity (gossip and parameter
 *    servers carry real data through the direct comms: the losses must be
 *    the same, bit for bit);
 *  - a timing-only ResNet-50 profile in fast fidelity (bucketed collectives
 *    chain on the stream, each starting at its predecessor's finish).
 * Every metrics.csv value must agree within a relative 1e-12: the actor
 * reaches a finish time by sleep_until, whose clock is now + (t - now),
 * which may differ from t in the last bit; observed differences are
 * printed. Messages sent must be equal, and where the direct ways apply
 * (gossip of decentralized, fast buckets of gradient_allreduce) fewer
 * actors must have started.
 *
 * Then, in process, hs_test on direct requests: a fast allreduce and a
 * gossip exchange are pending while a peer has not posted, done after; a
 * test of a direct send that the stream's actor is draining ends well. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "tests/harness.h"
#include "tests/run_csv.h"
#include "tests/tap.h"

/* ---- hs_test on direct requests ------------------------------------------------ */

static FILE *out;

static void report_rank0(hs_worker *w, int ok, const char *what, int early, int late, double t) {
  if (w->rank == 0) hs_report(out, ok, "%s (early %d, late %d, at %.6g s)", what, early, late, t);
}

static void test_rank(hs_worker *w, void *arg) {
  (void)arg;
  /* A timing-only allreduce timed by fast: rank 0 posts first, the others
   * after 10 ms of compute (1e12 flops at 100 TF). */
  hs_request *q;
  if (w->rank != 0) hs_compute(w, 1e12);
  hs_allreduce(w, w->world, hs_buf_virtual(1 << 20, HS_F32), hs_buf_virtual(1 << 20, HS_F32), HS_SUM, &q);
  int early = w->rank == 0 ? hs_test(w, &q) : 0;
  if (w->rank == 0) hs_compute(w, 5e12);
  int late = w->rank == 0 ? hs_test(w, &q) : (hs_wait(w, &q), 1);
  report_rank0(w, early == 0 && late == 1 && q == NULL, "fast allreduce: test pending until peers join, then done",
               early, late, hs_now(w));
  /* A gossip pair (0 <-> 1) carrying data: rank 1 posts 10 ms later. */
  if (w->rank < 2) {
    float mine = (float)(w->rank + 1), theirs = 0;
    hs_p2p ops[2] = {{HS_P2P_SEND, 1 - w->rank, hs_buf_host(&mine, 1, HS_F32)},
                     {HS_P2P_RECV, 1 - w->rank, hs_buf_host(&theirs, 1, HS_F32)}};
    if (w->rank == 1) hs_compute(w, 1e12);
    hs_group_p2p(w, w->world, ops, 2, &q);
    early = w->rank == 0 ? hs_test(w, &q) : 0;
    if (w->rank == 0) hs_compute(w, 5e12);
    late = w->rank == 0 ? hs_test(w, &q) : (hs_wait(w, &q), 1);
    report_rank0(w, early == 0 && late == 1 && q == NULL && theirs == 2.0f,
                 "gossip: test pending until the peer posts, then done with its data", early, late, hs_now(w));
  }
  /* A direct send whose message has arrived, a second send posted behind
   * it on the same communicator (so the stream's actor starts and drains
   * the first), and a test of the first at that same moment: SimGrid's test
   * of a comm lets other actors run, and the actor once waited on a comm
   * the test then released (a crash). */
  if (w->rank < 2) {
    float a = 3, b = 4, got[2] = {0, 0};
    hs_request *first = NULL, *second = NULL;
    if (w->rank == 0) {
      hs_p2p sa = {HS_P2P_SEND, 1, hs_buf_host(&a, 1, HS_F32)}, sb = {HS_P2P_SEND, 1, hs_buf_host(&b, 1, HS_F32)};
      hs_group_p2p(w, w->world, &sa, 1, &first);
      hs_compute(w, 1e12); /* 10 ms: the message is long in */
      hs_group_p2p(w, w->world, &sb, 1, &second);
      int t = hs_test(w, &first); /* 0 or 1: either is right, a crash is not */
      int rc = first ? hs_wait(w, &first) : 0;
      rc = rc ? rc : hs_wait(w, &second);
      hs_report(out, (t == 0 || t == 1) && rc == 0 && !first && !second,
                "a test of a direct send while the stream's actor drains it: test %d, then both sends done", t);
    } else {
      hs_p2p ra = {HS_P2P_RECV, 0, hs_buf_host(&got[0], 1, HS_F32)}, rb = {HS_P2P_RECV, 0, hs_buf_host(&got[1], 1, HS_F32)};
      hs_group_p2p(w, w->world, &ra, 1, &first);
      hs_group_p2p(w, w->world, &rb, 1, &second);
      hs_wait(w, &first), hs_wait(w, &second);
      hs_report(out, got[0] == 3.0f && got[1] == 4.0f, "the two sends' data arrived in order: %g, %g", got[0], got[1]);
    }
  }
}

static void test_child(void *arg, FILE *report) {
  (void)arg;
  out = report;
  hs_scenario sc;
  if (hs_test_load("cluster { nodes = 2, gpus_per_node = 2, gpu = { flops = '100TF' }, inter = { bandwidth = '25Gbps' } }\n"
                   "workload { model = 'resnet50' }\nalgorithm { name = 'gradient_allreduce' }\n"
                   "run { iterations = 1 }\nsim { fidelity = 'fast' }\n",
                   &sc)) {
    hs_report(report, 0, "scenario loads");
    return;
  }
  hs_sim_stats st;
  hs_test_simulate(&sc, 0, test_rank, NULL, &st, NULL);
  /* the four ranks, and the streams of ranks 0 and 1 that the last part
   * starts (its second operations go behind the first) */
  hs_report(report, st.fast_collectives == 1 && st.actors == 6,
            "the allreduce was timed by fast and no stream actor started before the last part (%ld fast, %ld actors, "
            "6 expected)", st.fast_collectives, st.actors);
}

/* ---- metrics both ways ------------------------------------------------------------ */

static const char *cluster =
    "cluster { nodes = 4, gpus_per_node = 4, gpu = { flops = '100TF', efficiency = 0.4 },\n"
    "          intra = { bandwidth = '150GBps', latency = '2us' },\n"
    "          inter = { bandwidth = '25Gbps', latency = '5us' } }\n"
    "stragglers { { gpu = 5, slowdown = 3 }, { noise = 'lognormal', sigma = 0.3 } }\n";

/* A number of summary.json ("messages", "actors"); -1 if absent. */
static long summary(const hs_csv_run *r, const char *key) {
  char path[700], text[8192], quoted[64];
  snprintf(path, sizeof path, "%s/summary.json", r->out);
  snprintf(quoted, sizeof quoted, "\"%s\":", key);
  if (!hs_test_slurp(path, text, sizeof text)) return -1;
  const char *m = strstr(text, quoted);
  return m ? strtol(m + strlen(quoted), NULL, 10) : -1;
}

/* Largest relative difference over every value of two metrics.csv. */
static double max_rel_diff(const hs_csv_run *a, const hs_csv_run *b, int *same_shape) {
  double worst = 0;
  *same_shape = a->rows == b->rows && a->cols == b->cols && a->rows > 0;
  for (int i = 0; *same_shape && i < a->rows; i++)
    for (int c = 0; c < a->cols; c++) {
      double x = a->v[i][c], y = b->v[i][c];
      if (isnan(x) && isnan(y)) continue;
      if (isnan(x) != isnan(y)) return INFINITY;
      double d = fabs(x - y) / (fabs(x) > 1e-300 ? fabs(x) : 1);
      if (d > worst) worst = d;
    }
  return worst;
}

/* must_skip: the direct ways apply here, so fewer stream actors must have
 * started (what shows that HS_SIM_STREAM_ACTORS took effect). */
static void compare(const char *algo, const char *what, const char *lua, const char *args, int must_skip) {
  static hs_csv_run direct, actors;
  unsetenv("HS_SIM_STREAM_ACTORS");
  hs_csv_run_lua("direct", lua, args, &direct);
  long m_direct = summary(&direct, "messages"), a_direct = summary(&direct, "actors");
  setenv("HS_SIM_STREAM_ACTORS", "1", 1);
  hs_csv_run_lua("actors", lua, args, &actors);
  long m_actors = summary(&actors, "messages"), a_actors = summary(&actors, "actors");
  unsetenv("HS_SIM_STREAM_ACTORS");
  tap_ok(a_direct > 0 && (must_skip ? a_direct < a_actors : a_direct <= a_actors),
         "%s, %s: %ld actors direct, %ld through the stream actors%s", algo, what, a_direct, a_actors,
         must_skip ? " (fewer expected)" : "");
  int shape;
  double d = max_rel_diff(&direct, &actors, &shape);
  tap_ok(direct.rc == 0 && actors.rc == 0 && shape && d <= 1e-12 && m_direct == m_actors,
         "%s, %s: direct and through the actors agree (exit %d/%d, %d rows, largest relative difference %.3g, "
         "messages %ld/%ld)", algo, what, direct.rc, actors.rc, direct.rows, d, m_direct, m_actors);
  if (direct.rc || actors.rc) tap_diag("%s%s", direct.err, actors.err);
}

int main(void) {
  hs_test_in_child("hs_test on direct requests", test_child, NULL, 60);
  for (const hs_algorithm_desc *const *a = hs_algorithm_list(); *a; a++) {
    char lua[2048];
    snprintf(lua, sizeof lua,
             "%sworkload { model = 'softmax', dataset = { samples = 8000 }, batch = 32, lr = 0.1 }\n"
             "algorithm { name = '%s' }\nrun { iterations = 40, seed = 5 }\n",
             cluster, (*a)->name);
    compare((*a)->name, "numeric softmax, step", lua, "--set sim.fidelity=step",
            strcmp((*a)->name, "decentralized") == 0);
    snprintf(lua, sizeof lua,
             "%sworkload { model = 'resnet50', batch = 64 }\n"
             "algorithm { name = '%s' }\nrun { iterations = 8, seed = 5 }\n",
             cluster, (*a)->name);
    compare((*a)->name, "ResNet-50 timing, fast", lua, "--set sim.fidelity=fast",
            strcmp((*a)->name, "gradient_allreduce") == 0);
  }
  /* Collectives inside each machine (fast, direct) around gossip among the
   * machines' leaders (direct point-to-point) on communicators split from
   * the world. */
  char lua[2048];
  snprintf(lua, sizeof lua,
           "%sworkload { model = 'resnet50', batch = 64 }\n"
           "algorithm { name = 'decentralized', peers = 'machine_exp2' }\nrun { iterations = 8, seed = 5 }\n",
           cluster);
  compare("decentralized machine_exp2", "ResNet-50 timing, fast", lua, "--set sim.fidelity=fast", 1);
  return tap_done(0);
}
