/* test_nccl_agreement.c — hearsay's fast fidelity against NCCL's own cost
 * model (algos/comm/nccl_model.h), algorithm by algorithm and protocol by
 * protocol, as issue 18 asks: ring and tree allreduce, LL, LL128 and
 * Simple, on 1, 2, 4, 16 and 128 nodes of 8 GPUs, 8 B to 8 GiB (x8).
 *
 * The cluster is scenarios/bench-1024.lua on a flat switch (homogeneous,
 * no contention) whose links add no latency of their own: a scenario's
 * link latencies are what the network adds beyond NCCL's per-hop
 * constants (docs/fidelity.md), which both models charge; NCCL's 8 slices
 * in flight per connection; NCCL's two channels there (sim.channels,
 * pinned, though two per NIC is the default), whose maxima hearsay
 * charges too. Each
 * size is simulated by `hearsay collective ... --csv`, which prints NCCL's
 * model for the same algorithm and protocol (the scenario forces both);
 * the test recomputes that figure and checks the CSV carries it.
 *
 * A case is compared (|hearsay / NCCL - 1| <= 5%) unless the two models
 * cannot agree by construction, and then the test says which and why:
 *  - fitted: NCCL's size-dependent fits apply (the tree's correction
 *    table, the multi-node ring/Simple "plateau" x1.4 on latency).
 *  - knee: NCCL's latency and transfer terms each take more than 5% of its
 *    time. NCCL adds them (alpha + beta); hearsay's slices overlap them
 *    (a slice crosses hop after hop while the next ones follow), so the
 *    two agree only where one term dominates.
 *  - two nodes, the tree at large sizes: each tree crosses the one pair of
 *    NICs once each way, so a NIC carries M; NCCL's tree bandwidth (bus
 *    bandwidth / 2) assumes an inner node's 2M on every NIC.
 * The ring is compared with an allowance: NCCL counts 2(nodes - 1)
 * network steps, while a chunk's 2(n - 1) hops cross nodes about
 * 2(n - 1) x nodes / n times, which hearsay charges; the difference times
 * (network hop - NVLink hop) is printed and allowed.
 * The tree is compared as it is: it forwards slices on arrival with
 * NCCL's 8 in flight per connection (algos/comm/tree_pipe.c), so no
 * slice after the first pays a hop's latency that NCCL's hides (its
 * lock-step ticks did: up to 23% over NCCL here).
 * Ring cases where one of NCCL's bandwidth caps in GB/s (llMaxBw, the
 * LL128 per-channel maximum) sets NCCL's bandwidth are compared like the
 * rest: a ring's flows move at most those maxima times the channels
 * (protocol.h); the test counts them apart so that they cannot vanish.
 * Tree cases where NCCL's tree maxima bind are compared too: each GPU's
 * flows share them as a budget (lowering.h, hs_lower_tree_flow_rate;
 * tree_pipe.c), within 10% there, since hearsay's fill moves at that
 * budget and NCCL's model has no fill.
 *
 * Tolerance 5%: issue 18's target for two models of one schedule. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "algos/comm/lowering.h"
#include "algos/comm/nccl_model.h"
#include "algos/comm/protocol.h"
#include "algos/comm/tuner.h"
#include "scenarios/loader.h"
#include "tests/harness.h"
#include "tests/tap.h"

enum { MAX_ROWS = 64 };

typedef struct {
  double bytes, time_us, nccl_us;
} row;

static const char *const proto_names[HS_PROTOS] = {"ll", "ll128", "simple"};

enum { SETS = 9 };

static void sets_of(int nodes, const char *algo, int proto, char sets[SETS][64]) {
  snprintf(sets[0], 64, "cluster.nodes=%d", nodes);
  snprintf(sets[1], 64, "cluster.inter.topology=flat");
  snprintf(sets[2], 64, "sim.fidelity=fast");
  snprintf(sets[3], 64, "sim.collectives=%s", algo);
  snprintf(sets[4], 64, "sim.protocol=%s", proto_names[proto]);
  snprintf(sets[5], 64, "sim.slices_in_flight=8");
  snprintf(sets[6], 64, "cluster.intra.latency=0s");
  snprintf(sets[7], 64, "cluster.inter.latency=0s");
  snprintf(sets[8], 64, "sim.channels=2"); /* NCCL's count here (two per NIC), pinned against a change of default */
}

/* One sweep through the binary; its CSV rows into r. Returns the count, -1
 * when the run failed. */
static int sweep(char sets[SETS][64], const char *csv, row *r) {
  char cmd[4096];
  int len = snprintf(cmd, sizeof cmd, "timeout -k 5 300 %s collective %s/scenarios/bench-1024.lua --op allreduce "
                                      "--bytes 8B:8GiB --factor 8 --csv %s",
                     HEARSAY_BIN, HS_SOURCE_DIR, csv);
  for (int i = 0; i < SETS; i++) len += snprintf(cmd + len, sizeof cmd - (size_t)len, " --set %s", sets[i]);
  snprintf(cmd + len, sizeof cmd - (size_t)len, " >/dev/null 2>&1");
  fflush(stdout);
  int status = system(cmd);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    remove(csv); /* a failed sweep writes none, but leave nothing behind either way */
    return -1;
  }
  FILE *f = fopen(csv, "r");
  if (!f) return -1;
  char line[1024];
  int n = 0;
  if (!fgets(line, sizeof line, f)) n = -1; /* the header */
  while (n >= 0 && n < MAX_ROWS && fgets(line, sizeof line, f)) {
    /* op,size_B,count,type,redop,root,time_us,algbw,busbw,schedule,fidelity,nccl_model_us,... */
    char *field[16];
    int k = 0;
    for (char *s = strtok(line, ","); s && k < 16; s = strtok(NULL, ",")) field[k++] = s;
    if (k < 12) continue;
    r[n++] = (row){strtod(field[1], NULL), strtod(field[6], NULL), strtod(field[11], NULL)};
  }
  fclose(f);
  remove(csv);
  return n;
}

int main(void) {
  const int node_counts[] = {1, 2, 4, 16, 128};
  const char *const algos[] = {"ring", "tree"};
  const hs_nccl_algo nccl_algos[] = {HS_NCCL_RING, HS_NCCL_TREE};
  char dir[] = "/tmp/hearsay-test-nccl-XXXXXX";
  if (!mkdtemp(dir)) {
    tap_ok(0, "a temporary directory");
    return tap_done(0);
  }
  char csv[sizeof dir + 16];
  snprintf(csv, sizeof csv, "%s/rows.csv", dir);
  int compared = 0, capped = 0, fitted = 0, knee = 0, trees = 0, two_nodes = 0;
  int capped_ring = 0, tree_capped = 0; /* compared, where NCCL's caps set its bandwidth */
  double worst = 0;
  for (size_t ni = 0; ni < sizeof node_counts / sizeof *node_counts; ni++)
    for (int ai = 0; ai < 2; ai++)
      for (int p = 0; p < HS_PROTOS; p++) {
        int nodes = node_counts[ni];
        char sets[SETS][64];
        sets_of(nodes, algos[ai], p, sets);
        const char *set_ptrs[SETS];
        for (int i = 0; i < SETS; i++) set_ptrs[i] = sets[i];
        char path[4096];
        snprintf(path, sizeof path, "%s/scenarios/bench-1024.lua", HS_SOURCE_DIR);
        hs_scenario sc;
        if (hs_scenario_load(path, set_ptrs, SETS, &sc) != 0) {
          tap_ok(0, "%d nodes %s/%s: the scenario loads", nodes, algos[ai], proto_names[p]);
          continue;
        }
        hs_nccl_topo topo;
        hs_nccl_topo_of(&sc, &topo);
        hs_nccl_model m;
        hs_nccl_model_init(&m, &topo);
        int n = hs_scenario_gpus(&sc);
        int cpu_amd = sc.cluster.cpu == HS_CPU_AMD;
        hs_scenario_free(&sc);

        row r[MAX_ROWS];
        int rows = sweep(sets, csv, r);
        int csv_ok = rows == 11;
        for (int i = 0; i < rows; i++) {
          hs_nccl_algo a = nccl_algos[ai];
          double lat, xfer;
          int fits = hs_nccl_time_parts(&m, HS_OP_ALLREDUCE, a, (hs_proto)p, r[i].bytes, &lat, &xfer);
          double want = (lat + xfer) * 1e6, got = r[i].time_us, ratio = got / want;
          /* the CSV prints microseconds with 6 decimals */
          csv_ok &= fits >= 0 && fabs(r[i].nccl_us - want) <= 1e-6 * want + 1e-6;
          char what[160];
          int is_capped = m.capped[HS_OP_ALLREDUCE][a][p];
          snprintf(what, sizeof what, "%3d x 8, %s/%s, %.0f B%s: hearsay %.2f us, NCCL %.2f us, ratio %.3f", nodes,
                   algos[ai], proto_names[p], r[i].bytes, is_capped ? " (capped)" : "", got, want, ratio);
          capped += is_capped;
          tree_capped += is_capped && ai == 1;
          if (fits > 0) {
            printf("# excluded (fitted: %s) %s\n",
                   fits & HS_NCCL_FIT_TREE_CORRECTION ? "NCCL's tree correction table" : "NCCL's ring plateau x1.4",
                   what);
            fitted++;
          } else if (lat > 0.05 * (lat + xfer) && xfer > 0.05 * (lat + xfer)) {
            printf("# excluded (knee: latency %.0f%% of NCCL's time) %s\n", 100 * lat / (lat + xfer), what);
            knee++;
          } else if (ai == 1 && nodes == 2 && xfer > 0.95 * (lat + xfer)) {
            printf("# excluded (two nodes: each tree crosses the one pair of NICs once each way, M per NIC; "
                   "NCCL's bus / 2 assumes an inner node's 2M) %s\n", what);
            two_nodes++;
          } else if (ai == 1) {
            /* where NCCL's tree maxima set its bandwidth, hearsay's fill
             * moves at each GPU's share of them too, which NCCL's model
             * (latency + size / bandwidth) has no term for: up to 8.5%
             * measured (1 x 8, LL128, 128 MiB) */
            double bound = is_capped ? 0.10 : 0.05;
            tap_ok(fabs(ratio - 1) <= bound, "%s (bound %.0f%%)", what, 100 * bound);
            trees++;
            worst = fmax(worst, fabs(ratio - 1));
          } else {
            /* NCCL counts 2(nodes - 1) network steps; a chunk's 2(n - 1)
             * hops around a ring of n GPUs on `nodes` nodes cross nodes
             * 2(n - 1) x nodes / n times on average, as hearsay's ring
             * (its mean hop) does: about two more. */
            double cross = 2.0 * (n - 1) * nodes / n - 2.0 * (nodes - 1);
            double intra = fmax(hs_nccl_hop_latency(HS_NCCL_HW_NVLINK, HS_NCCL_RING, (hs_proto)p),
                                nodes > 1 ? hs_nccl_net_overhead((hs_proto)p, cpu_amd) : 0);
            double delta = nodes > 1 ? cross * (hs_nccl_hop_latency(HS_NCCL_HW_NET, HS_NCCL_RING, (hs_proto)p) - intra) * 1e6 : 0;
            tap_ok(fabs(got - want - delta) <= 0.05 * want, "%s (the crossings add %.2f us; bound 5%%)", what, delta);
            compared++;
            capped_ring += is_capped;
          }
        }
        tap_ok(csv_ok, "%d x 8, %s/%s: 11 sizes simulated, and the CSV's NCCL column is NCCL's model for %s/%s", nodes,
               algos[ai], proto_names[p], algos[ai], proto_names[p]);
      }
  /* Nodes with a NIC a GPU (DGX A100, DGX H100: 8 NICs, NVLink inside),
   * NCCL's own pick (the tree, capped by its per-channel maxima: from
   * 64 KiB to 128 MiB on 16 DGX A100s; on 16 DGX H100s from 238 KiB to
   * 21 MiB, its NVLS tree above since the NVLS graph is rated as NCCL's
   * search rates it, nccl_model.c, 2026-11-28), as
   * the systems ship: NCCL builds a tree a channel, each starting a
   * node's chain at the GPU next to its NIC (connect.cc), and so does
   * hearsay (lowering.c, tree_heads_of). With one head a node, its GPU
   * link carried the node's chain and all of its tree traffic: 1.20-1.51
   * of NCCL's model from 256 MiB to 1 GiB. Within 10% now: 1.02 to 1.07
   * measured at these sizes, the trees' maxima shared as each GPU's
   * budget (tree_pipe.c; held to each flow's steady-state share, the
   * pipeline's fill took 1.13-1.28; the H100s at 256 and 512 MiB, where
   * their tree ran until 2026-11-28, 1.05-1.07). */
  static const struct {
    const char *system, *bytes;
  } dgx[] = {{"dgx-a100", "32MiB"}, {"dgx-a100", "64MiB"}, {"dgx-h100", "4MiB"}, {"dgx-h100", "8MiB"},
             {"dgx-h100", "16MiB"}};
  for (int i = 0; i < 5; i++) {
    char path[sizeof dir + 32], args[128], result[1024];
    snprintf(path, sizeof path, "%s/dgx.lua", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "cluster { system = '%s', nodes = 16 }\nworkload { model = 'resnet50' }\n"
               "algorithm { name = 'gradient_allreduce' }\nrun { iterations = 1 }\n", dgx[i].system);
    fclose(f);
    snprintf(args, sizeof args, "--op allreduce --bytes %s --model nccl --set sim.fidelity=fast", dgx[i].bytes);
    int warned = 0, bad = hs_test_collective(path, args, result, sizeof result, &warned);
    double sim = bad ? 0 : hs_test_result_value(result, "sim_s"), nccl = bad ? 1 : hs_test_result_value(result, "nccl_s");
    tap_ok(!bad && !warned && strstr(result, "schedule=double_binary_tree") && fabs(sim / nccl - 1) <= 0.10,
           "16 x %s, allreduce %s, NCCL's pick (the tree, from the NICs' 8 heads a node): simulated %.4g ms, "
           "NCCL's model %.4g ms, ratio %.3f (bound 10%%)", dgx[i].system, dgx[i].bytes, sim * 1e3, nccl * 1e3,
           sim / nccl);
    unlink(path);
  }
  rmdir(dir);
  printf("# compared within 5%%: %d ring cases, %d tree cases (the largest tree gap %.1f%%; 10%% allowed where NCCL's tree "
         "maxima bind, %d cases swept), NCCL's GB/s caps setting the bandwidth in %d of the ring's (%d capped cases in all); "
         "excluded: %d fitted, %d knee, %d tree over two nodes\n",
         compared, trees, 100 * worst, tree_capped, capped_ring, capped, fitted, knee, two_nodes);
  tap_ok(compared >= 20 && trees >= 10, "enough cases compared to mean something (%d ring, %d tree)", compared,
         trees);
  tap_ok(capped_ring >= 10, "capped ring cases among them (%d)", capped_ring);
  return tap_done(0);
}
