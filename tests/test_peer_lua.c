/* test_peer_lua.c — peer-selection schemes written in Lua.
 *
 *  1. Every built-in scheme but `all` (which runs as an allreduce) trains
 *     bit for bit like its Lua twin scenarios/peers/NAME.lua: rank 0's
 *     weights, the loss, the simulated time and the bytes of every
 *     iteration, 16 workers, 12 iterations. So does a ring written inline
 *     as a function in the scenario.
 *  2. Deliberately broken schemes are rejected by `hearsay peers` and by
 *     `hearsay run`: asymmetric pairing, a peer out of range, weights whose
 *     sum exceeds 1, a function that raises an error, one that returns a
 *     string, an endless loop, and one that breaks only at step 40 (after
 *     the steps checked at load). Each exits 2 within the time limit, the
 *     message names the step and the ranks (and the Lua line for a Lua
 *     error), and `hearsay peers` writes no peers.json.
 *  3. Push-sum: a directed scheme whose matrix is column- but not
 *     row-stochastic (even ranks send to two peers, odd ranks to one) drives
 *     every replica to the average of the starting weights with lr = 0 in 400
 *     steps (the consensus column falls below 1e-9 of its start); `hearsay peers` says
 *     push-sum is what reaches the mean.
 *  4. hearsay.metropolis turns an irregular undirected graph (a path) into a
 *     doubly stochastic W; uniform weights on it are only row-stochastic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "algos/workloads/model.h"
#include "tests/harness.h"
#include "tests/tap.h"
#include "tests/train_run.h"

static const char *train_fmt =
    "cluster { nodes = 4, gpus_per_node = 4, gpu = { flops = \"1GF\" }, inter = { bandwidth = \"10Gbps\" } }\n"
    "workload { model = \"softmax\", dataset = { classes = 10, features = 16, samples = 8000 },\n"
    "           batch = 16, lr = %g, momentum = 0.9, init_noise = 1 }\n"
    "algorithm { name = \"decentralized\", peers = %s }\n"
    "run { iterations = %d, seed = 11 }\n";

static hs_run_result *train(const char *peers, double lr, int iterations, const char *what) {
  char lua[4096];
  snprintf(lua, sizeof lua, train_fmt, lr, peers, iterations);
  return hs_run_lua(what, lua, 120);
}

static int same_run(const hs_run_result *a, const hs_run_result *b) {
  if (!a || !b || !a->ok || !b->ok || a->rows != b->rows || a->n_params != b->n_params) return 0;
  for (int i = 0; i < a->rows; i++)
    if (a->time[i] != b->time[i] || a->bytes[i] != b->bytes[i] || memcmp(&a->loss[i], &b->loss[i], sizeof(double)))
      return 0;
  return memcmp(a->params, b->params, a->n_params * sizeof(float)) == 0;
}

static void test_twins(void) {
  static const char *const schemes[] = {"ring", "ring_left", "ring_right", "shift_one", "exp2", "exp2_one_peer",
                                        "machine_exp2", "sgp_exp", "random_matching", "torus2d", "random_regular"};
  for (size_t i = 0; i < sizeof schemes / sizeof *schemes; i++) {
    char builtin[64], twin[96];
    snprintf(builtin, sizeof builtin, "\"%s\"", schemes[i]);
    snprintf(twin, sizeof twin, "hearsay.scheme(\"%s\")", schemes[i]);
    hs_run_result *a = train(builtin, 0.1, 12, schemes[i]), *b = train(twin, 0.1, 12, twin);
    tap_ok(same_run(a, b), "%s: the Lua twin trains bit for bit like the built-in (weights, loss, time, bytes; "
           "16 workers, 12 iterations; final loss %.6f)", schemes[i], a && a->rows ? a->loss[a->rows - 1] : NAN);
    hs_run_free(a), hs_run_free(b);
  }
  hs_run_result *a = train("\"ring\"", 0.1, 12, "ring"),
                *b = train("function(rank, n, step) return { (rank - 1) % n, (rank + 1) % n } end", 0.1, 12,
                           "inline ring");
  tap_ok(same_run(a, b), "a ring written inline as function(rank, n, step) trains bit for bit like peers = \"ring\"");
  hs_run_free(a), hs_run_free(b);
}

/* ---- broken schemes ---------------------------------------------------------- */

static const char *broken_fmt =
    "cluster { nodes = 8, gpus_per_node = 1, gpu = { flops = \"1GF\" }, inter = { bandwidth = \"10Gbps\" } }\n"
    "workload { model = \"softmax\", dataset = { classes = 4, features = 8, samples = 800 }, batch = 8 }\n"
    "run { iterations = 60 }\n"
    "algorithm { name = \"decentralized\",\n"
    "  peers = function(rank, n, step)\n"
    "%s\n" /* line 6 */
    "  end }\n";

typedef struct {
  const char *what;
  const char *body;
  const char *expect[3]; /* substrings the message must hold */
} broken_case;

static const broken_case broken[] = {
    {"asymmetric pairing", "    if rank == 0 then return { 1 } end return {}",
     {"step 0", "rank 0 pairs with rank 1, but rank 1 does not pair with rank 0", NULL}},
    {"a peer out of range", "    return { (rank + 1) % n, n }", {"step 0", "rank 0 lists peer 8, outside 0..7", NULL}},
    {"weights summing above 1",
     "    return { { peer = (rank + 1) % n, weight = 0.7 }, { peer = (rank - 1) % n, weight = 0.6 } }",
     {"step 0", "weights of rank 0 sum to 1.3", "> 1"}},
    {"a function that raises an error", "    error(\"no peers for you\")",
     {"step 0, rank 0 of 8", ".lua:6:", "no peers for you"}},
    {"a function that returns a string", "    return \"ring\"", {"step 0, rank 0 of 8", "returned a string", NULL}},
    {"an endless loop", "    while true do end", {"step 0, rank 0 of 8", "endless loop", NULL}},
    {"a scheme that breaks at step 40",
     "    if step == 40 and rank == 3 then local t = nil; return t.peer end return { (rank + 1) % n, (rank - 1) % n }",
     {"step 40, rank 3 of 8", ".lua:6:", "attempt to index"}},
};

static void test_broken(void) {
  for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
    const broken_case *c = &broken[i];
    char lua[4096], path[512], out[512], cmd[2048], err[8192], json[600];
    snprintf(lua, sizeof lua, broken_fmt, c->body);
    snprintf(path, sizeof path, "%s/broken-%zu.lua", hs_test_tmpdir(), i);
    FILE *f = fopen(path, "w");
    fputs(lua, f);
    fclose(f);
    for (int run = 0; run < 2; run++) {
      snprintf(out, sizeof out, "%s/broken-out-%zu-%d", hs_test_tmpdir(), i, run);
      snprintf(cmd, sizeof cmd, "timeout -k 5 60 %s %s %s --steps 60 --out %s --quiet", HEARSAY_BIN,
               run ? "run" : "peers", path, out);
      if (run) /* hearsay run takes no --steps */
        snprintf(cmd, sizeof cmd, "timeout -k 5 60 %s run %s --out %s --quiet", HEARSAY_BIN, path, out);
      int rc = hs_test_command(cmd, err, sizeof err);
      int has = 1;
      for (int k = 0; k < 3 && c->expect[k]; k++) has &= strstr(err, c->expect[k]) != NULL;
      snprintf(json, sizeof json, "%s/peers.json", out);
      struct stat st;
      int no_json = stat(json, &st) != 0;
      char *nl = strchr(err, '\n');
      if (nl) *nl = '\0';
      tap_ok(rc == 2 && has && no_json, "%s, hearsay %s: exit %d (2), message names step, ranks%s: %s", c->what,
             run ? "run" : "peers", rc, strstr(c->expect[1] ? c->expect[1] : "", ".lua") ? " and Lua line" : "", err);
    }
  }
}

/* ---- hearsay peers on a scheme ------------------------------------------------- */

/* Writes the training scenario with `prelude` before it and `peers` as the
 * scheme, runs `hearsay peers --steps STEPS` on it, and reads peers.json
 * into text (empty if missing). Returns the command's exit code. */
static int peers_json(const char *name, const char *prelude, const char *peers, int steps, char *text, size_t len) {
  char path[600], out[512], cmd[2048], err[4096];
  snprintf(path, sizeof path, "%s/%s.lua", hs_test_tmpdir(), name);
  snprintf(out, sizeof out, "%s/%s-out", hs_test_tmpdir(), name);
  FILE *f = fopen(path, "w");
  fputs(prelude, f);
  fprintf(f, train_fmt, 0.1, peers, 10);
  fclose(f);
  snprintf(cmd, sizeof cmd, "timeout -k 5 60 %s peers %s --steps %d --out %s --quiet", HEARSAY_BIN, path, steps, out);
  int rc = hs_test_command(cmd, err, sizeof err);
  snprintf(path, sizeof path, "%s/peers.json", out);
  f = fopen(path, "r");
  size_t n = f ? fread(text, 1, len - 1, f) : 0;
  text[n] = '\0';
  if (f) fclose(f);
  return rc;
}

/* ---- push-sum ------------------------------------------------------------------ */

static const char *uneven =
    "{ directed = true, peers = function(rank, n, step)\n"
    "    if rank % 2 == 0 then return { (rank + 1) % n, (rank + 3) % n } end\n"
    "    return { (rank + 1) % n } end }";

static void test_push_sum(void) {
  hs_run_result *r = train(uneven, 0, 400, "uneven directed scheme, lr = 0");
  double first = r && r->rows ? r->consensus[0] : NAN, last = r && r->rows ? r->consensus[r->rows - 1] : NAN;
  /* The average of the 16 starting replicas, from the same initialisation. */
  char lua[4096];
  snprintf(lua, sizeof lua, train_fmt, 0.0, "\"ring\"", 1);
  hs_scenario sc;
  int ok = hs_test_load(lua, &sc) == 0 && r && r->ok;
  double worst = INFINITY;
  if (ok) {
    hs_model *m = hs_model_create(&sc.workload, 0);
    double *mean = calloc(m->n_params, sizeof(double));
    for (int k = 0; k < 16; k++) {
      hs_model_init_params(m, &sc.workload, sc.run.seed, k);
      for (size_t i = 0; i < m->n_params; i++) mean[i] += m->params[i] / 16.0;
    }
    worst = 0;
    for (size_t i = 0; i < m->n_params; i++) worst = fmax(worst, fabs(r->params[i] - mean[i]));
    free(mean);
    hs_model_free(m);
    hs_scenario_free(&sc);
  }
  /* hearsay peers gives this scheme a rate of 0.934 per step: 400 steps
   * shrink the distance (a squared norm) by 0.934^800 ~ 1e-24; 1e-9 leaves
   * room for the float rounding of the weights. */
  tap_ok(ok && last < 1e-9 * first,
         "push-sum on a column- but not row-stochastic scheme: consensus distance %.3g -> %.3g in 400 steps (rate 0.934 per step)", first,
         last);
  /* float weights: the de-biased average carries float rounding (1e-6 of |x| ~ 1). */
  tap_ok(ok && worst < 1e-5, "push-sum reaches the average of the starting weights, not a weighted mean (max |diff| "
         "%.2g < 1e-5)", worst);
  hs_run_free(r);

  static char text[1 << 15];
  int rc = peers_json("uneven", "", uneven, 500, text, sizeof text);
  tap_ok(rc == 0 && strstr(text, "\"push_sum\": true") && strstr(text, "\"doubly_stochastic\": false") &&
             strstr(text, "\"rows_stochastic\": false") && strstr(text, "\"exact_consensus_step\": -1") == NULL,
         "hearsay peers on it: directed, push-sum, rows not stochastic, and the gossiped error still reaches 1e-12");
}

/* ---- Metropolis-Hastings weights -------------------------------------------- */

/* A path graph (no wrap-around): its ends have one neighbour, the rest two.
 * Uniform weights keep rows stochastic but not columns; hearsay.metropolis
 * makes W symmetric, hence doubly stochastic. */
static void test_metropolis(void) {
  static const char *const schemes[2] = {
      "path", "hearsay.metropolis(path)"};
  for (int mh = 0; mh < 2; mh++) {
    static char text[1 << 15];
    char name[32];
    snprintf(name, sizeof name, "path-%d", mh);
    int rc = peers_json(name, "local function path(rank, n, step)\n"
                              "  local out = {}\n"
                              "  if rank > 0 then out[#out + 1] = rank - 1 end\n"
                              "  if rank < n - 1 then out[#out + 1] = rank + 1 end\n"
                              "  return out\n"
                              "end\n",
                        schemes[mh], 50, text, sizeof text);
    int doubly = strstr(text, "\"doubly_stochastic\": true") != NULL;
    tap_ok(rc == 0 && strstr(text, "\"rows_stochastic\": true") && doubly == mh,
           "path graph with %s weights: rows stochastic, doubly stochastic: %s", mh ? "Metropolis-Hastings" : "uniform",
           doubly ? "yes" : "no");
  }
}

int main(void) {
  test_metropolis();
  test_twins();
  test_broken();
  test_push_sum();
  return tap_done(0);
}
