/* test_nccl_versions.c — sim.nccl_version: what each NCCL release could
 * run (scenarios/nccl_versions.h), the tuner picking among only that,
 * NCCL 2.3's and 2.4's thresholds in place of the model
 * (algos/comm/nccl_legacy.h), a host-side controller's communicator left
 * as it was, and a Horovod run whose gradients follow the version while
 * its negotiation does not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/comm/nccl_legacy.h"
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

/* NCCL 2.3's and 2.4's thresholds, worked by hand from their sources
 * (nccl_legacy.c names them) on communicators described directly. */
static hs_nccl_topo topo(int ranks, int nodes, int channels, int nvlink, hs_gpu_arch arch) {
  hs_nccl_topo t;
  memset(&t, 0, sizeof t);
  t.ranks = ranks, t.nodes = nodes, t.channels = channels, t.nvlink = nvlink, t.arch = arch;
  return t;
}

/* The largest size in [1, 2^40] at which pick says LL (the thresholds
 * are monotone: LL below, Simple above), by bisection. */
static long long ll_limit(int version, const hs_nccl_topo *t, hs_op_kind k, int may_ring, int may_tree) {
  long long lo = 1, hi = 1LL << 40;
  int tree, ll;
  while (lo < hi) {
    long long mid = lo + (hi - lo + 1) / 2;
    if (hs_nccl_legacy_pick(version, t, k, (double)mid, may_ring, may_tree, &tree, &ll) && ll) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

static void legacy(void) {
  tap_ok(!hs_nccl_legacy(202) && hs_nccl_legacy(203) && hs_nccl_legacy(204) && !hs_nccl_legacy(205) &&
             !hs_nccl_legacy(230),
         "thresholds pick in NCCL 2.3 and 2.4 only (the model from 2.5, nothing to pick before 2.3)");
  /* ncclTreeThreshold: 4 PCIe nodes of 4: the ring's latency 6 x 15 = 90
   * us, the tree's 15 log2(4) + 4 x 3 = 42; rates 5000 and 2/3 of it, so
   * 5000 x 3333 / 1667 = 10000 B/us over 48 us: 480000 B (NCCL computes
   * in float: within 2 B). 16 NVLink nodes of 8 on 4 channels: 762 against
   * 88 us, rates 20000 and 15000, 60000 B/us x 674 us = 40 440 000 B. */
  hs_nccl_topo pcie4 = topo(16, 4, 2, 0, HS_GPU_PASCAL), nvl16 = topo(128, 16, 4, 1, HS_GPU_VOLTA);
  hs_nccl_topo nvl2 = topo(16, 2, 8, 1, HS_GPU_VOLTA), one = topo(8, 1, 8, 1, HS_GPU_VOLTA);
  hs_nccl_topo pcie2x1 = topo(2, 2, 2, 0, HS_GPU_VOLTA);
  long long a = hs_nccl24_tree_threshold(&pcie4), b = hs_nccl24_tree_threshold(&nvl16);
  tap_ok(llabs(a - 480000) <= 2 && llabs(b - 40440000) <= 40, "2.4's treeThreshold: %lld B on 4 PCIe nodes of 4 "
         "(480000), %lld on 16 NVLink nodes of 8 (40440000, float's 7 digits)", a, b);
  tap_ok(hs_nccl24_tree_threshold(&nvl2) == HS_NCCL_TREE_ALWAYS && hs_nccl24_tree_threshold(&one) == 0 &&
             hs_nccl24_tree_threshold(&pcie2x1) == 0,
         "2.4: always the tree on two NVLink nodes; never on one node, nor where the ring's latency (6 us) is "
         "under the tree's (15)");
  int tree = -1, ll = -1, ok = 1;
  ok &= hs_nccl_legacy_pick(204, &pcie4, HS_OP_ALLREDUCE, (double)a, 1, 1, &tree, &ll) && tree == 1;
  ok &= hs_nccl_legacy_pick(204, &pcie4, HS_OP_ALLREDUCE, (double)a + 1, 1, 1, &tree, &ll) && tree == 0;
  ok &= hs_nccl_legacy_pick(204, &pcie4, HS_OP_ALLREDUCE, 1e3, 1, 0, &tree, &ll) && tree == 0;
  ok &= hs_nccl_legacy_pick(204, &pcie4, HS_OP_ALLREDUCE, 1e9, 0, 1, &tree, &ll) && tree == 1;
  ok &= hs_nccl_legacy_pick(204, &pcie4, HS_OP_ALLGATHER, 1e3, 1, 1, &tree, &ll) && tree == 0;
  ok &= hs_nccl_legacy_pick(203, &nvl2, HS_OP_ALLREDUCE, 1e3, 1, 1, &tree, &ll) && tree == 0;
  ok &= !hs_nccl_legacy_pick(204, &pcie4, HS_OP_ALLTOALL, 1e3, 1, 1, &tree, &ll);
  ok &= !hs_nccl_legacy_pick(230, &pcie4, HS_OP_ALLREDUCE, 1e3, 1, 1, &tree, &ll);
  tap_ok(ok, "2.4's allreduce: the tree up to treeThreshold, the ring above; the one allowed where the "
             "scenario forces one; rings for allgather and in 2.3; no pick for alltoall or after 2.4");
  /* LL (threads of 64 to 256, 8 B a thread while rings are added, then
   * the per-thread threshold: 64 on Volta, 32 on Pascal, twice across
   * nodes): 16 Volta ranks on 2 nodes, 4 channels: the ring's patterns
   * reach 16 ranks x 4 channels x 256 threads x 128 B = 2 MiB (2.3's
   * ncclGetCollResource and 2.4's getKernelInfo alike); 2.4's tree, one
   * chunk a loop at 4 x 128 B a thread: 4 x 256 x 512 B = 512 KiB; on
   * Pascal the ring's halves, 1 MiB. */
  hs_nccl_topo v16 = topo(16, 2, 4, 1, HS_GPU_VOLTA), p16 = topo(16, 2, 4, 1, HS_GPU_PASCAL);
  long long l23 = ll_limit(203, &v16, HS_OP_ALLREDUCE, 1, 1), l24ring = ll_limit(204, &v16, HS_OP_ALLREDUCE, 1, 0);
  long long l24tree = ll_limit(204, &v16, HS_OP_ALLREDUCE, 0, 1), l23p = ll_limit(203, &p16, HS_OP_ALLREDUCE, 1, 1);
  long long l24bc = ll_limit(204, &v16, HS_OP_BROADCAST, 1, 1);
  tap_ok(l23 == 2097152 && l24ring == 2097152 && l24tree == 524288 && l23p == 1048576,
         "LL up to: 2.3 %lld B, 2.4's ring %lld (2 MiB both), 2.4's tree %lld (512 KiB), Pascal's ring %lld "
         "(1 MiB)", l23, l24ring, l24tree, l23p);
  /* a pipeline (broadcast, reduce) is one chunk a loop at the ring's
   * per-thread threshold: 4 x 256 x 128 B */
  tap_ok(l24bc == 131072, "2.4's broadcast, a pipeline: LL up to %lld B (128 KiB)", l24bc);
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
  tap_ok(a == 1u << HS_COLL_TREE && (p & 1u << HS_PROTO_LL) && (p & 1u << HS_PROTO_SIMPLE) &&
             !(p & 1u << HS_PROTO_LL128),
         "NCCL 2.4 on two NVLink nodes: the tree at every size (its treeThreshold), LL and Simple, no LL128, no "
         "NVLS (algos %#x, protocols %#x)",
         a, p);
  world_picks("2.17.1", 0, &a, &p);
  tap_ok(!(a & 1u << HS_COLL_NVLS_TREE) && (p & 1u << HS_PROTO_LL128),
         "NCCL 2.17: LL128 but no NVLS tree across nodes (algos %#x, protocols %#x)", a, p);
  world_picks("2.2.13", 1, &a, &p);
  tap_ok((a & 1u << HS_COLL_TREE) && (p & 1u << HS_PROTO_LL),
         "a host-side controller's communicator under NCCL 2.2 still picks the tree and LL (algos %#x, protocols "
         "%#x)",
         a, p);
}

/* On four PCIe nodes of four (Horovod's 2017 cluster), NCCL 2.4's plan
 * switches from the tree to the ring at its treeThreshold (480000 B,
 * legacy() above), and 2.3's runs the ring at every size, LL at 8 B. */
static void pcie_plan(void) {
  static const char *const p100 =
      "cluster { system = 'p100-pcie', nodes = 4 }\n"
      "workload { model = 'resnet50' }\nalgorithm { name = 'gradient_allreduce' }\nrun { iterations = 1 }\n";
  hs_scenario sc;
  const char *v24[] = {"sim.nccl_version=2.4.8"}, *v23[] = {"sim.nccl_version=2.3.7"};
  if (!tap_ok(hs_test_load_sets(p100, v24, 1, &sc) == 0, "4 x 4 P100 under NCCL 2.4.8 loads")) return;
  hs_plan *plan = world_plan(&sc, 0);
  hs_tuned below = plan ? hs_plan_tuned_at(plan, HS_OP_ALLREDUCE, 400000) : (hs_tuned){0};
  hs_tuned above = plan ? hs_plan_tuned_at(plan, HS_OP_ALLREDUCE, 600000) : (hs_tuned){0};
  tap_ok(plan && below.algo == HS_COLL_TREE && above.algo == HS_COLL_RING,
         "NCCL 2.4 on 4 x 4 PCIe GPUs: the tree at 400 kB, the ring at 600 kB (%d, %d)", below.algo, above.algo);
  free(plan);
  hs_scenario_free(&sc);
  if (hs_test_load_sets(p100, v23, 1, &sc)) return;
  plan = world_plan(&sc, 0);
  hs_tuned small = plan ? hs_plan_tuned_at(plan, HS_OP_ALLREDUCE, 8) : (hs_tuned){0};
  hs_tuned large = plan ? hs_plan_tuned_at(plan, HS_OP_ALLREDUCE, 64e6) : (hs_tuned){0};
  tap_ok(plan && small.algo == HS_COLL_RING && small.proto == HS_PROTO_LL && large.algo == HS_COLL_RING &&
             large.proto == HS_PROTO_SIMPLE,
         "NCCL 2.3: the ring, LL at 8 B and Simple at 64 MB (%d/%d, %d/%d)", small.algo, small.proto, large.algo,
         large.proto);
  free(plan);
  hs_scenario_free(&sc);
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
  legacy();
  picks();
  pcie_plan();
  forced();
  horovod();
  return tap_done(0);
}
