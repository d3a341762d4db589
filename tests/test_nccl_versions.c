/* test_nccl_versions.c — sim.nccl_version: what each NCCL release could
 * run (scenarios/nccl_versions.h), the tuner picking among only that, a
 * host-side controller's communicator left as it was, and a Horovod run
 * whose gradients follow the version while its negotiation does not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/comm/select.h"
#include "scenarios/nccl_versions.h"
#include "tests/harness.h"
#include "tests/tap.h"

/* Two DGX H100s: every algorithm NCCL has today can run (NVLS, its tree). */
static const char *const two_h100 =
    "cluster { system = 'dgx-h100', nodes = 2 }\n"
    "workload { model = 'resnet50' }\nalgorithm { name = 'gradient_allreduce' }\nrun { iterations = 1 }\n";

static void parse(void) {
  static const struct {
    const char *text;
    int want;
  } cases[] = {{"2.4", 204},  {"2.18.5", 218}, {"2.18.5-1", 218}, {"2.30", 230}, {"2.31.1", 231},
               {"1.3", 100},  {"1.3.4", 100},  {"2", -1},         {"2.", -1},    {"v2.4", -1},
               {"3.0", -1},   {"2.4.", -1},    {"2.4.x", -1},     {"2.4-1", -1}, {"", -1},
               {"2.100", -1}, {"2.4.8-", -1},  {" 2.4", -1}};
  int bad = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int got = hs_nccl_version_parse(cases[i].text);
    if (got != cases[i].want) {
      bad++;
      tap_diag("'%s': %d, want %d", cases[i].text, got, cases[i].want);
    }
  }
  tap_ok(bad == 0, "versions parse as MAJOR.MINOR[.PATCH[-BUILD]], 1.x and 2.x only (%zu cases)",
         sizeof cases / sizeof cases[0]);
  /* The releases' features, as NCCL's tags show them (nccl_versions.h). */
  tap_ok(!hs_nccl_has_ll(202) && hs_nccl_has_ll(203) && !hs_nccl_has_tree(203) && hs_nccl_has_tree(204) &&
             !hs_nccl_has_ll128(204) && hs_nccl_has_ll128(205) && !hs_nccl_has_collnet(205) &&
             hs_nccl_has_collnet(206) && !hs_nccl_has_nvls(216) && hs_nccl_has_nvls(217) &&
             !hs_nccl_has_nvls_tree(217) && hs_nccl_has_nvls_tree(218) && !hs_nccl_has_ll(100),
         "LL from 2.3, trees from 2.4, LL128 2.5, CollNet 2.6, NVLS 2.17, the NVLS tree 2.18; NCCL 1 as 2.0");
}

/* The plan of sc's world communicator, as the simulator makes it (a
 * host-side controller's where asked); NULL if out of memory. */
static hs_plan *world_plan(const hs_scenario *sc, int host_side) {
  int n = hs_scenario_gpus(sc), *members = malloc((size_t)n * sizeof *members);
  hs_plan *plan = malloc(sizeof *plan);
  if (members && plan) {
    for (int r = 0; r < n; r++) members[r] = r;
    hs_select(&(hs_select_query){sc, n, n, members, {1u << HS_ENGINE_MESSAGES, 0, 1}, host_side}, plan);
  }
  free(members);
  if (!members) free(plan);
  return members ? plan : NULL;
}

/* Which schedules and protocols the world's plan picks over sizes from 8 B
 * to 4 GiB, as bit masks. */
static void world_picks(const char *version, int host_side, unsigned *algos, unsigned *protos) {
  *algos = *protos = 0;
  hs_scenario sc;
  char set[64];
  snprintf(set, sizeof set, "sim.nccl_version=%s", version);
  const char *sets[] = {set};
  if (hs_test_load_sets(two_h100, sets, 1, &sc)) return;
  hs_plan *plan = world_plan(&sc, host_side);
  for (double bytes = 8; plan && bytes <= 4294967296.0; bytes *= 2) {
    hs_tuned t = hs_plan_tuned_at(plan, HS_OP_ALLREDUCE, bytes);
    *algos |= 1u << t.algo;
    *protos |= 1u << t.proto;
  }
  free(plan);
  hs_scenario_free(&sc);
}

static void picks(void) {
  unsigned a, p;
  world_picks("2.30.7", 0, &a, &p);
  tap_ok((a & 1u << HS_COLL_TREE) && (a & 1u << HS_COLL_NVLS_TREE) && (p & 1u << HS_PROTO_LL) &&
             (p & 1u << HS_PROTO_LL128),
         "NCCL 2.30 on two DGX H100s: the tree, the NVLS tree, LL and LL128 all picked somewhere (algos %#x, "
         "protocols %#x)",
         a, p);
  world_picks("2.2.13", 0, &a, &p);
  tap_ok(a == 1u << HS_COLL_RING && p == 1u << HS_PROTO_SIMPLE,
         "NCCL 2.2: the ring and Simple at every size (algos %#x, protocols %#x)", a, p);
  world_picks("2.4.8", 0, &a, &p);
  tap_ok((a & 1u << HS_COLL_TREE) && !(a & (1u << HS_COLL_NVLS_TREE | 1u << HS_COLL_NVLS)) &&
             (p & 1u << HS_PROTO_LL) && !(p & 1u << HS_PROTO_LL128),
         "NCCL 2.4: the tree and LL, no LL128, no NVLS (algos %#x, protocols %#x)", a, p);
  world_picks("2.17.1", 0, &a, &p);
  tap_ok(!(a & 1u << HS_COLL_NVLS_TREE) && (p & 1u << HS_PROTO_LL128),
         "NCCL 2.17: LL128 but no NVLS tree across nodes (algos %#x, protocols %#x)", a, p);
  world_picks("2.2.13", 1, &a, &p);
  tap_ok((a & 1u << HS_COLL_TREE) && (p & 1u << HS_PROTO_LL),
         "a host-side controller's communicator under NCCL 2.2 still picks the tree and LL (algos %#x, protocols "
         "%#x)",
         a, p);
}

/* A forced schedule or protocol runs whatever the version. */
static void forced(void) {
  hs_scenario sc;
  const char *sets[] = {"sim.nccl_version=2.2.13", "sim.collectives=tree", "sim.protocol=ll"};
  if (!tap_ok(hs_test_load_sets(two_h100, sets, 3, &sc) == 0, "NCCL 2.2 with the tree and LL forced loads")) return;
  hs_plan *plan = world_plan(&sc, 0);
  hs_exec e = plan ? plan->exec[HS_OP_ALLREDUCE] : (hs_exec){0};
  tap_ok(plan && !plan->tuned && e.algo == HS_COLL_TREE && e.proto == HS_PROTO_LL,
         "forced: tree/LL runs under NCCL 2.2 (%d/%d)", e.algo, e.proto);
  free(plan);
  hs_scenario_free(&sc);
}

/* "key": N inside the JSON object starting at obj (summary.json's counts). */
static double json_count(const char *obj, const char *key) {
  if (!obj) return -1;
  const char *end = strchr(obj, '}');
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *at = strstr(obj, pat);
  return at && end && at < end ? strtod(at + strlen(pat), NULL) : -1;
}

/* Horovod on 4 nodes under NCCL 2.2: its gradients' allreduces on the ring
 * and Simple; its negotiation every cycle, on its controller's
 * communicator (hs_comm_split_host), still on the tree and LL. */
static void horovod(void) {
  char out[8192];
  char dir[512], cmd[2048];
  snprintf(dir, sizeof dir, "%s/hvd", hs_test_tmpdir());
  FILE *f;
  char path[600];
  snprintf(path, sizeof path, "%s.lua", dir);
  if (!(f = fopen(path, "w"))) {
    tap_ok(0, "scenario written");
    return;
  }
  fputs("cluster { nodes = 4, gpus_per_node = 2, gpu = { flops = '10TF' },\n"
        "  intra = { bandwidth = '100GBps' }, inter = { bandwidth = '25Gbps' } }\n"
        "workload { model = 'resnet18', batch = 16 }\n"
        "algorithm { name = 'gradient_allreduce', bucket_size = '64MiB', cycle_time = '5ms' }\n"
        "run { iterations = 2 }\nsim { nccl_version = '2.2' }\n",
        f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s run %s --quiet --out %s && cat %s/summary.json", HEARSAY_BIN, path, dir, dir);
  int rc = hs_test_output(cmd, out, sizeof out);
  const char *col = strstr(out, "\"collectives\""), *pro = strstr(out, "\"protocols\"");
  double ring = json_count(col, "ring"), tree = json_count(col, "tree");
  double ll = json_count(pro, "ll"), simple = json_count(pro, "simple");
  tap_ok(rc == 0 && ring > 0 && simple > 0 && tree > 0 && ll > 0 && tree == ll,
         "Horovod under NCCL 2.2: gradients on ring/Simple (%g, %g), the negotiation on tree/LL (%g, %g)", ring,
         simple, tree, ll);
}

int main(void) {
  parse();
  picks();
  forced();
  horovod();
  return tap_done(0);
}
