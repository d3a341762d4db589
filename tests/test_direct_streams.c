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
 * actors must have started. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "tests/harness.h"
#include "tests/run_csv.h"
#include "tests/tap.h"

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
