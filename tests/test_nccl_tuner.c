/* test_nccl_tuner.c — sim.tuner = "nccl" (the default): the selector runs
 * what NCCL would run, NCCL's own model's pick (algos/comm/nccl_model.h)
 * among the schedules hearsay runs as NCCL does (algos/comm/select.c):
 *  - on 3 nodes of 8 A100s with 4 NICs each (nccl-tests#119's cluster):
 *    at every size class from 1 B to 1 GiB the plan's pick is NCCL's
 *    unrestricted pick (ring and tree are both run by hearsay), the ring
 *    at 128 MiB (LL128 by NCCL's model), ring/Simple at 1 GiB, the tree
 *    at 8 B; hearsay's own
 *    tuner would take a schedule NCCL does not have at 8 B (recursive
 *    doubling), which is the difference the key makes;
 *  - hearsay-only schedules (hierarchical, doubling) are never picked;
 *  - the pick is made per size, as NCCL's per call: on 2 nodes of A100s
 *    and of H100s it is NCCL's model's at 176 sizes, some of which a pick
 *    per size class would get wrong;
 *  - forcing the ring leaves the protocol to NCCL's model of the ring
 *    (NCCL_ALGO=RING), and forcing protocol "none", which NCCL does not
 *    have, hands the pick to hearsay's tuner;
 *  - alltoall, which NCCL does not tune, runs the ring family;
 *  - the run follows the plan: `hearsay collective` at 1 GiB on that
 *    cluster runs ring/simple;
 *  - NCCL's model does not see what the network adds beyond its
 *    constants (its IB and socket plugins report no latency): with 5 ms
 *    more across 16 TCP nodes a 25 MiB allreduce keeps NCCL's ring and
 *    NCCL's estimate, and the run pays the 5 ms (the tuner took the tree
 *    when it saw them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/comm/nccl_model.h"
#include "algos/comm/select.h"
#include "tests/harness.h"
#include "tests/tap.h"

static const char *three_nodes =
    "cluster { system = 'dgx-a100', nodes = 3, inter = { nics_per_node = 4 } }\n"
    "workload { model = 'resnet50' }\nalgorithm { name = 'gradient_allreduce' }\nrun { iterations = 1 }\n"
    "sim { fidelity = 'fast' }\n";

/* The plan of a communicator of every GPU of the scenario `lua`; NULL if
 * it does not load (sc is then not to be freed). */
static hs_plan *plan_for(const char *lua, const char *const *sets, int n_sets, hs_scenario *sc) {
  if (hs_test_load_sets(lua, sets, n_sets, sc)) return NULL;
  int n = hs_scenario_gpus(sc), *members = malloc((size_t)n * sizeof *members);
  for (int r = 0; r < n; r++) members[r] = r;
  hs_select_query q = {sc, n, n, members, {1u << HS_ENGINE_MESSAGES | 1u << HS_ENGINE_TIMED, 0, 1}, 0};
  hs_plan *plan = malloc(sizeof *plan);
  hs_select(&q, plan);
  free(members);
  return plan;
}

static hs_plan *plan_of(const char *const *sets, int n_sets, hs_scenario *sc) {
  return plan_for(three_nodes, sets, n_sets, sc);
}

/* Writes `lua` to a scenario file `name` in the test's folder (path: its
 * name); 0, or -1 (reported). */
static int write_scenario(const char *name, const char *lua, char *path, size_t len) {
  snprintf(path, len, "%s/%s", hs_test_tmpdir(), name);
  FILE *f = fopen(path, "w");
  if (!f) {
    tap_ok(0, "writes the scenario %s", path);
    return -1;
  }
  fputs(lua, f);
  fclose(f);
  return 0;
}

static const char *algo(int a) { return hs_coll_algo_name((hs_coll_algo)a); }

/* NCCL's algorithm for hearsay's schedule, or -1. */
static int nccl_of(int a) {
  return a == HS_COLL_RING ? HS_NCCL_RING : a == HS_COLL_TREE ? HS_NCCL_TREE : a == HS_COLL_NVLS ? HS_NCCL_NVLS
       : a == HS_COLL_NVLS_TREE ? HS_NCCL_NVLS_TREE : -1;
}

static void picks_are_nccls(void) {
  hs_scenario sc;
  hs_plan *p = plan_of(NULL, 0, &sc);
  if (!tap_ok(p != NULL, "3 x 8 A100 with 4 HDR NICs a node: the scenario loads")) return;
  hs_nccl_topo t;
  hs_nccl_topo_of(&sc, &t);
  hs_nccl_model m;
  hs_nccl_model_init(&m, &t);
  int same = 1, classes = 0, hearsay_only = 0;
  for (int c = 1; c <= 31; c++) {
    double bytes = ldexp(1.4142135623730951, c - 1);
    hs_tuned got = hs_test_tuned_class(p, HS_OP_ALLREDUCE, c);
    hs_nccl_algo a;
    hs_proto pr;
    if (hs_nccl_pick(&m, HS_OP_ALLREDUCE, bytes, &a, &pr, NULL)) continue;
    classes++;
    if (nccl_of(got.algo) != (int)a || got.proto != pr) {
      same = 0;
      tap_diag("class 2^%d: picked %s/%s, NCCL's model %s/%s", c - 1, algo(got.algo), hs_proto_name(got.proto),
               hs_nccl_algo_name(a), hs_proto_name(pr));
    }
    hearsay_only |= got.algo == HS_COLL_HIERARCHICAL || got.algo == HS_COLL_HALVING_DOUBLING ||
                    got.algo == HS_COLL_RECURSIVE_DOUBLING;
  }
  tap_ok(same && classes == 31, "every size class from 1 B to 1 GiB: the plan runs NCCL's own pick (%d classes)",
         classes);
  tap_ok(!hearsay_only, "no hearsay-only schedule (hierarchical, doubling) is ever picked");
  hs_tuned large = hs_test_tuned_class(p, HS_OP_ALLREDUCE, hs_test_size_class(128.0 * 1048576));
  hs_tuned huge = hs_test_tuned_class(p, HS_OP_ALLREDUCE, hs_test_size_class(1073741824.0));
  hs_tuned tiny = hs_test_tuned_class(p, HS_OP_ALLREDUCE, hs_test_size_class(8));
  tap_ok(large.algo == HS_COLL_RING && huge.algo == HS_COLL_RING && huge.proto == HS_PROTO_SIMPLE,
         "128 MiB: the ring (%s/%s); 1 GiB: ring/simple (%s/%s), as NCCL runs it on 3+ nodes", algo(large.algo),
         hs_proto_name(large.proto), algo(huge.algo), hs_proto_name(huge.proto));
  tap_ok(tiny.algo == HS_COLL_TREE, "8 B: the tree (%s/%s)", algo(tiny.algo), hs_proto_name(tiny.proto));
  hs_tuned a2a = hs_test_tuned_class(p, HS_OP_ALLTOALL, hs_test_size_class(1048576));
  tap_ok(a2a.algo == HS_COLL_RING, "alltoall (not tuned by NCCL): the ring family (%s)", algo(a2a.algo));
  free(p);

  /* hearsay's own tuner takes a schedule NCCL does not have at 8 B here
   * (where NCCL's model picks the tree): the key matters */
  const char *hearsay[] = {"sim.tuner=hearsay"};
  p = plan_of(hearsay, 1, &sc);
  if (p) {
    hs_tuned h = hs_test_tuned_class(p, HS_OP_ALLREDUCE, hs_test_size_class(8));
    tap_ok(h.algo == HS_COLL_HIERARCHICAL || h.algo == HS_COLL_HALVING_DOUBLING ||
               h.algo == HS_COLL_RECURSIVE_DOUBLING,
           "sim.tuner = hearsay at 8 B: a hearsay-only schedule (%s/%s), which NCCL's model does not have",
           algo(h.algo), hs_proto_name(h.proto));
    free(p);
  } else {
    tap_ok(0, "sim.tuner = hearsay loads");
  }
}

/* NCCL picks per call's size, and so does the plan: on 2 nodes of 8
 * A100s and of 8 H100s, at 8 sizes in every power of two from 1 KiB to 4
 * GiB, the plan's pick is NCCL's model's at that size. A pick per size
 * class (at the class's middle) runs its neighbour's pick on the other
 * side of a crossover inside the class: the A100 pair's ring/LL128 at 104
 * to 128 MiB where NCCL's model runs Simple from 102, the H100 pair's NVLS
 * tree at 2 to 2.77 MiB where it runs tree/LL128; so some of these sizes
 * differ from their class's pick (the diagnostics list them). */
static void picks_per_size(void) {
  static const char *const systems[] = {"dgx-a100", "dgx-h100"};
  for (int s = 0; s < 2; s++) {
    char lua[512];
    snprintf(lua, sizeof lua,
             "cluster { system = '%s', nodes = 2 }\nworkload { model = 'resnet50' }\n"
             "algorithm { name = 'gradient_allreduce' }\nrun { iterations = 1 }\nsim { fidelity = 'fast' }\n",
             systems[s]);
    hs_scenario sc;
    hs_plan *p = plan_for(lua, NULL, 0, &sc);
    if (!tap_ok(p != NULL, "2 x %s loads", systems[s])) continue;
    hs_nccl_topo t;
    hs_nccl_topo_of(&sc, &t);
    hs_nccl_model m;
    hs_nccl_model_init(&m, &t);
    int sizes = 0, same = 1, off_class = 0;
    for (int e = 10; e < 32; e++)
      for (int j = 0; j < 8; j++) {
        double bytes = ldexp(1 + j / 8.0, e);
        hs_nccl_algo a;
        hs_proto pr;
        if (hs_nccl_pick(&m, HS_OP_ALLREDUCE, bytes, &a, &pr, NULL)) continue;
        sizes++;
        hs_tuned got = hs_plan_tuned_at(p, HS_OP_ALLREDUCE, bytes), cls = hs_test_tuned_class(p, HS_OP_ALLREDUCE, hs_test_size_class(bytes));
        if (nccl_of(got.algo) != (int)a || got.proto != pr) {
          if (same) tap_diag("%.0f B: picked %s/%s, NCCL's model %s/%s", bytes, algo(got.algo), hs_proto_name(got.proto),
                             hs_nccl_algo_name(a), hs_proto_name(pr));
          same = 0;
        }
        if (nccl_of(cls.algo) != (int)a || cls.proto != pr)
          tap_diag("%s, %.0f B: NCCL's model %s/%s, its class's middle %s/%s", systems[s], bytes, hs_nccl_algo_name(a),
                   hs_proto_name(pr), algo(cls.algo), hs_proto_name(cls.proto)), off_class++;
      }
    tap_ok(same && sizes == 22 * 8, "2 x %s, allreduce at %d sizes from 1 KiB to 4 GiB: NCCL's model's pick at each", systems[s],
           sizes);
    tap_ok(off_class > 0, "2 x %s: %d of those sizes differ from their size class's pick", systems[s], off_class);
    free(p);
    hs_scenario_free(&sc);
  }
}

static void forced(void) {
  hs_scenario sc;
  const char *ring[] = {"sim.collectives=ring"};
  hs_plan *p = plan_of(ring, 1, &sc);
  if (!tap_ok(p != NULL, "collectives = ring loads")) return;
  hs_nccl_topo t;
  hs_nccl_topo_of(&sc, &t);
  hs_nccl_model m;
  hs_nccl_model_init(&m, &t);
  int same = 1;
  for (int c = 1; c <= 31; c++) {
    double bytes = ldexp(1.4142135623730951, c - 1), best = -1;
    int want = -1;
    for (int y = 0; y < HS_PROTOS; y++) {
      double s = hs_nccl_time(&m, HS_OP_ALLREDUCE, HS_NCCL_RING, (hs_proto)y, bytes);
      if (s >= 0 && (best < 0 || s < best)) best = s, want = y;
    }
    hs_tuned got = hs_test_tuned_class(p, HS_OP_ALLREDUCE, c);
    same &= got.algo == HS_COLL_RING && (int)got.proto == want;
  }
  tap_ok(same, "collectives = ring: every class runs the ring with NCCL's fastest ring protocol (NCCL_ALGO=RING)");
  free(p);

  const char *none[] = {"sim.protocol=none"};
  p = plan_of(none, 1, &sc);
  if (!tap_ok(p != NULL, "protocol = none loads")) return;
  hs_tuned got = hs_test_tuned_class(p, HS_OP_ALLREDUCE, hs_test_size_class(8));
  hs_coll_algo a;
  int pr;
  hs_tuner_pick(&p->topo, HS_OP_ALLREDUCE, ldexp(1.4142135623730951, hs_test_size_class(8) - 1),
                p->algos & hs_tuner_algos_for(HS_OP_ALLREDUCE), p->protos, &a, &pr);
  tap_ok(got.algo == a && got.proto == HS_PROTO_NONE,
         "protocol = none (not NCCL's): hearsay's tuner picks (%s/%s, its pick %s)", algo(got.algo),
         hs_proto_name(got.proto), algo(a));
  free(p);
}

static void the_run_follows(void) {
  char path[512];
  if (write_scenario("nccl-tuner.lua", three_nodes, path, sizeof path)) return;
  char result[2048] = "";
  int rc = hs_test_collective(path, "--op allreduce --bytes 1GiB", result, sizeof result, NULL);
  tap_ok(rc == 0 && strstr(result, "schedule=ring") && strstr(result, "nccl_algo=ring nccl_proto=simple"),
         "hearsay collective at 1 GiB runs the ring, as NCCL's model picks: %s", result);
}

static void blind_to_network_latency(void) {
  static const char *sixteen = "cluster { system = 'dgx1-v100', nodes = 16,\n"
                               "  inter = { bandwidth = '100Gbps', nics_per_node = 1, transport = 'tcp' } }\n"
                               "workload { model = 'resnet50' }\nalgorithm { name = 'gradient_allreduce' }\n"
                               "run { iterations = 1 }\nsim { fidelity = 'fast' }\n";
  char path[512], result[2][2048] = {"", ""};
  if (write_scenario("nccl-blind.lua", sixteen, path, sizeof path)) return;
  int rc = hs_test_collective(path, "--op allreduce --bytes 25MiB", result[0], sizeof result[0], NULL) ||
           hs_test_collective(path, "--op allreduce --bytes 25MiB --set cluster.inter.latency=5ms", result[1],
                              sizeof result[1], NULL);
  double nccl0 = hs_test_result_value(result[0], "nccl_s"), nccl5 = hs_test_result_value(result[1], "nccl_s");
  double sim0 = hs_test_result_value(result[0], "sim_s"), sim5 = hs_test_result_value(result[1], "sim_s");
  tap_ok(rc == 0 && strstr(result[0], "schedule=ring") && strstr(result[1], "schedule=ring") && nccl5 == nccl0 &&
             sim5 > sim0 + 20 * 5e-3,
         "5 ms more across nodes: NCCL's ring kept, its estimate the same (%.6g s), the run %.4g s longer "
         "(more than 20 of its 30 network steps' 5 ms; the tree took 70 ms): %s", nccl5, sim5 - sim0, result[1]);
}

/* What the plan of lua (with the ring forced, NCCL_ALGO=RING, or not)
 * runs for kind k at `bytes`; 0, or -1 if lua does not load. */
static int tuned_for(const char *lua, int forced_ring, hs_op_kind k, double bytes, hs_tuned *t) {
  hs_scenario sc;
  const char *ring[] = {"sim.collectives=ring"};
  hs_plan *plan = plan_for(lua, ring, forced_ring, &sc);
  if (!plan) return -1;
  *t = hs_plan_tuned_at(plan, k, bytes);
  free(plan);
  hs_scenario_free(&sc);
  return 0;
}

/* NCCL's NVLS tree is run as NCCL's model picks it: on two DGX H100s for
 * a large allreduce (forcing the ring, NCCL_ALGO, runs the ring). */
static void nvls_tree_picks_run(void) {
  static const char *two_h100 = "cluster { system = 'dgx-h100', nodes = 2 }\n"
                                "workload { model = 'bert-large', batch = 16, precision = 'bf16' }\n"
                                "algorithm { name = 'gradient_allreduce' }\nrun { iterations = 2 }\n"
                                "sim { fidelity = 'fast' }\n";
  for (int forced_ring = 0; forced_ring < 2; forced_ring++) {
    hs_tuned t;
    if (tuned_for(two_h100, forced_ring, HS_OP_ALLREDUCE, 1073741824.0, &t)) {
      tap_ok(0, "two DGX H100s load");
      return;
    }
    if (!forced_ring)
      tap_ok(t.algo == HS_COLL_NVLS_TREE && t.proto == HS_PROTO_SIMPLE && t.unmodelled == HS_UNMODELLED_NONE,
             "2 x DGX H100, allreduce 1 GiB: NCCL's model picks its NVLS tree and hearsay runs it (%s/%s)",
             algo(t.algo), hs_proto_name(t.proto));
    else
      tap_ok(t.algo == HS_COLL_RING, "the ring forced (NCCL_ALGO=RING): the ring (%s)", algo(t.algo));
  }
  char path[600], result[2048] = "";
  if (write_scenario("nvls-tree.lua", two_h100, path, sizeof path)) return;
  int rc = hs_test_collective(path, "--op allreduce --bytes 1GiB --model nccl", result, sizeof result, NULL);
  tap_ok(rc == 0 && strstr(result, "schedule=nvls_tree") && strstr(result, "nccl_algo=nvls_tree"),
         "hearsay collective at 1 GiB runs it: %s", result);
  remove(path);
}

/* NCCL's PAT is not modelled: on 16 one-GPU H100 nodes NCCL's model picks
 * it for small allgathers; the plan runs the fastest schedule hearsay has
 * by that model and says so, per collective and in the run's summary
 * (forcing a schedule, NCCL_ALGO, leaves nothing to say). */
static void unmodelled_picks_are_told(void) {
  static const char *one_gpu_nodes = "cluster { system = 'dgx-h100', nodes = 16, gpus_per_node = 1 }\n"
                                     "workload { model = 'resnet50', batch = 64 }\n"
                                     "algorithm { name = 'bytegrad' }\nrun { iterations = 2 }\n"
                                     "sim { fidelity = 'fast' }\n";
  for (int forced_ring = 0; forced_ring < 2; forced_ring++) {
    hs_tuned t;
    if (tuned_for(one_gpu_nodes, forced_ring, HS_OP_ALLGATHER, 1048576.0, &t)) {
      tap_ok(0, "16 one-GPU H100 nodes load");
      return;
    }
    if (!forced_ring)
      tap_ok(t.unmodelled == HS_UNMODELLED_PAT && t.algo == HS_COLL_RING,
             "16 x 1 H100, allgather 1 MiB: NCCL's model picks PAT (%s), hearsay runs %s/%s",
             hs_unmodelled_name((hs_unmodelled)t.unmodelled), algo(t.algo), hs_proto_name(t.proto));
    else
      tap_ok(t.unmodelled == HS_UNMODELLED_NONE, "the ring forced (NCCL_ALGO=RING): nothing unmodelled to tell");
  }
  char dir[512], path[600], cmd[1600], out[4096] = "", json[16384] = "";
  snprintf(dir, sizeof dir, "%s/unmodelled", hs_test_tmpdir());
  if (write_scenario("unmodelled.lua", one_gpu_nodes, path, sizeof path)) return;
  snprintf(cmd, sizeof cmd, "timeout -k 5 300 %s run %s --out %s 2>&1", HEARSAY_BIN, path, dir);
  int rc = hs_test_output(cmd, out, sizeof out);
  char summary[700];
  snprintf(summary, sizeof summary, "%s/summary.json", dir);
  hs_test_slurp(summary, json, sizeof json);
  static const char told_key[] = "\"nccl_picks_not_modelled\": {\"pat\": ";
  const char *key = strstr(json, told_key);
  long told = key ? strtol(key + strlen(told_key), NULL, 10) : 0;
  tap_ok(rc == 0 && told > 0 && strstr(out, "not modelled NCCL's model picks pat for"),
         "a run on them tells how many collectives NCCL would have run as PAT (%ld), in its summary and "
         "summary.json", told);
  snprintf(cmd, sizeof cmd, "timeout -k 5 300 %s collective %s --op allgather --bytes 1MiB --model nccl 2>&1",
           HEARSAY_BIN, path);
  rc = hs_test_output(cmd, out, sizeof out);
  tap_ok(rc == 0 && strstr(out, "pat is not modelled") && strstr(out, "nccl_algo=pat"),
         "and hearsay collective --model nccl says it beside NCCL's prediction");
  remove(path);
}

int main(void) {
  picks_are_nccls();
  forced();
  picks_per_size();
  the_run_follows();
  blind_to_network_latency();
  nvls_tree_picks_run();
  unmodelled_picks_are_told();
  return tap_done(0);
}
