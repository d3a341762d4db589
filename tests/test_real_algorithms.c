/* test_real_algorithms.c — every algorithm of the library runs on real
 * processes (mpirun, the MPI transport) from the same scenario file as the
 * simulator.
 *
 * Synchronous algorithms, with real.lowering = "hearsay" (the simulator's
 * own lowering, so reductions happen in the same order): the loss curve,
 * evaluations and bytes per iteration equal the simulator's (1e-5, see
 * sim_vs_real.h). Asynchronous ones depend on real timing by nature: they
 * must run to the end (exit 0, a metrics row per iteration of the mean
 * worker) and still train (accuracy >= 90%). 4 ranks (2 nodes x 2 GPUs);
 * the parameter server gets a fifth rank for its server, and runs with its
 * servers on CPU processes (colocated; BytePS's host path with a server
 * machine). Decentralized SGD also runs with two peer schemes written in
 * Lua. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "tests/harness.h"
#include "tests/sim_vs_real.h"
#include "tests/tap.h"

static const char *scenario_fmt =
    "cluster { nodes = %d, gpus_per_node = %d, gpu = { flops = \"1GF\" }, inter = { bandwidth = \"10Gbps\" } }\n"
    "workload { model = \"softmax\", dataset = { classes = 10, features = 32, samples = 8000 },\n"
    "           batch = 16, lr = 0.05, momentum = 0.9 }\n"
    "algorithm { name = \"%s\" %s }\n"
    "run { iterations = 40, seed = 8, eval_every = 20 }\n"
    "real { transport = \"mpi\", lowering = \"hearsay\" }\n";

static void write_scenario(const char *path, const char *name, const char *options, int ps) {
  FILE *f = fopen(path, "w");
  fprintf(f, scenario_fmt, ps ? 5 : 2, ps ? 1 : 2, name, options);
  fclose(f);
}

static void run_async(const char *name, const char *options, const char *path, int np) {
  char cmd[4096], err[4096], out[700];
  snprintf(out, sizeof out, "%s/real-%s", hs_test_tmpdir(), name);
  snprintf(cmd, sizeof cmd, "timeout -k 5 300 %s %s %s --out %s --quiet", hs_test_mpirun(np), HEARSAY_REAL_BIN, path,
           out);
  int rc = hs_test_command(cmd, err, sizeof err);
  static hs_csv_table t;
  int read = rc == 0 && hs_csv_read_metrics(out, &t) == 0 && t.rows > 0;
  /* Rank 0 evaluates; in an asynchronous run other workers may report later rows. */
  double acc = 0;
  for (int i = read ? t.rows - 1 : -1; i >= 0; i--)
    if (t.v[i][HS_CSV_ACCURACY] == t.v[i][HS_CSV_ACCURACY]) {
      acc = t.v[i][HS_CSV_ACCURACY];
      break;
    }
  tap_ok(read && acc >= 0.9, "%s%s: mpirun -np %d runs to the end (exit %d, %d rows), accuracy %.2f%%", name,
         options, np, rc, read ? t.rows : 0, 100 * acc);
}

int main(void) {
  for (const hs_algorithm_desc *const *d = hs_algorithm_list(); *d; d++) {
    const char *name = (*d)->name, *options = "";
    int ps = strcmp(name, "parameter_server") == 0;
    if (strcmp(name, "async_model_average") == 0) options = ", sync_interval = \"2ms\"";
    if (strcmp(name, "qadam") == 0 || strcmp(name, "onebit_adam") == 0) options = ", warmup_steps = 10";
    char path[700];
    snprintf(path, sizeof path, "%s/%s.lua", hs_test_tmpdir(), name);
    write_scenario(path, name, options, ps);
    if ((*d)->asynchronous && !ps) run_async(name, options, path, 4);
    else hs_test_sim_vs_real(name, path, "", ps ? 5 : 4, 1);
  }
  /* Peer schemes written in Lua run in hearsay-real too (every process calls
   * the same function): a directed one (push-sum through MPI) and an inline
   * undirected one. */
  static const char *const lua_schemes[][2] = {
      {"decentralized-lua-exp2-one-peer", ", peers = hearsay.scheme(\"exp2_one_peer\")"},
      {"decentralized-lua-inline-xor", ", peers = function(rank, n, step) return { rank ~ (1 << (step % 2)) } end"},
  };
  for (int i = 0; i < 2; i++) {
    char path[700];
    snprintf(path, sizeof path, "%s/%s.lua", hs_test_tmpdir(), lua_schemes[i][0]);
    write_scenario(path, "decentralized", lua_schemes[i][1], 0);
    hs_test_sim_vs_real(lua_schemes[i][0], path, "", 4, 1);
  }
  char path[700];
  /* Parameter servers on CPU processes: 2 nodes x 2 GPUs with a server
   * on each node's CPU (6 processes), and BytePS's host path, groups of
   * one GPU, a host aggregator a node and a server machine (7 processes). */
  static const char *const cpu_cases[][3] = {
      {"parameter_server-colocated", ", placement = \"colocated\", aggregate = true", "6"},
      {"parameter_server-host-path",
       ", placement = \"machines\", aggregate = true, update = \"workers\", pcie_switch_size = 1", "7"},
  };
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/%s.lua", hs_test_tmpdir(), cpu_cases[i][0]);
    FILE *f = fopen(path, "w");
    fprintf(f, scenario_fmt, 2, 2, "parameter_server", cpu_cases[i][1]);
    fclose(f);
    hs_test_sim_vs_real(cpu_cases[i][0], path, "", atoi(cpu_cases[i][2]), 1);
  }
  snprintf(path, sizeof path, "%s/ps-async.lua", hs_test_tmpdir());
  write_scenario(path, "parameter_server", ", mode = \"async\"", 1);
  run_async("parameter_server", ", mode = \"async\"", path, 5);
  return tap_done(0);
}
