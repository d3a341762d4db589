/* test_collective_time.c — at step fidelity, on a homogeneous cluster, the
 * simulated time of each collective is its closed form (REFERENCE.md):
 *   ring allreduce        2(n-1)a + 2(n-1)/n M/B
 *   ring reduce-scatter,
 *   ring allgather        (n-1)a + (n-1)/n M/B          (M: the full vector)
 *   broadcast, reduce     (S + n - 2)(a + M/(S B))      (NCCL's chain from the root,
 *                                                        S = ceil(M / 512 KiB) slices)
 * (the lock-step ring, sim.slices_in_flight = 0; the pipelined ring, the
 * default, below) for n in {8, 64} and M in {1 MiB, 100 MiB}, within 1%. The cluster is one
 * GPU per node on a flat switch with CM02 (plain alpha-beta): a is the route
 * latency intra.latency + inter.latency, B the narrowest link. Also the
 * hierarchical allreduce against intra RS + inter allreduce of M/g + intra
 * AG on an 8 x 8 cluster with one NIC per GPU. And the doubling
 * allreduces (sim.collectives), on the same one-GPU nodes:
 *   halving-doubling      2 log2(n) a + 2(n-1)/n M/B      (n a power of two)
 *   recursive doubling    log2(n) (a + M/B)
 * and for n = 12, which folds 4 ranks into 8 and back (two whole-vector
 * exchanges around the 8-rank core): 2(a + M/B) + the core's form for 8.
 * Under recursive_doubling, broadcast and reduce are binomial trees:
 *   binomial broadcast, reduce   ceil(log2 n)(a + M/B).
 * Their halves for reduce-scatter (recursive halving) and allgather
 * (recursive doubling):   log2(n) a + (n-1)/n M/B   (n a power of two).
 * The in-switch allreduce (sim.collectives = "nvls", one node of 8 whose
 * switch reduces): U = ceil(M / 2 MiB) units, one per tick (the default,
 * sim.switch_slices = 1) and 8 with sim.switch_slices = 8, in U + 1 lock-step ticks, each a GPU link's
 * latency (half the GPU-to-GPU route's) and one unit over a GPU link:
 *   (U + 1)(a/2 + M/(U B)).
 * Its reduce-scatter and allgather move M over the busier direction of a
 * GPU link (every block up, every block down) in the same units, and one
 * block's part of a unit the other way; a unit goes up alone at the first
 * tick and its part comes down alone at the last (the scatter; the gather
 * the other way round):   (U + 1) a/2 + M/B + M/(n U B),  1 MiB to 1 GiB.
 * The allreduce through a fabric that reduces (sim.collectives = "collnet"):
 * on one-GPU nodes, every member through the fabric's switch, U =
 * ceil(M / 512 KiB) units in U + 1 ticks of half a route and a unit over
 * the NIC: (U + 1)(a/2 + M/(U B)); on 8 x 8 (a NIC per GPU), NCCL's
 * CollNet chain (collnet_chain.c), pipelined: U units (what the lowering
 * picks, hs_lower_collnet_chain_units) in U + 2(g-1) + 1 lock-step
 * ticks, of which the U + 1 with the fabric busy take a part (M/(gU))
 * half a route over the NIC's share, a_e/2 + M/(g U B_e) (the chains' 2(g-1) parts
 * a tick over the GPU's 300 GB/s are faster), and the g - 1 that fill the
 * chains (j parts up at tick j - 1) and the g - 1 that drain them (the
 * same down) a_i + j M/(g U B_i) each; the three phases one after the
 * other took 36% more.
 * The pipelined ring (sim.slices_in_flight = 8 slots per channel, 2
 * channels on a one-NIC node: a window W = 16 slices of 512 KiB): a chunk
 * of M/n is S = ceil(M/n / 512 KiB) slices, rounded up to a multiple of W
 * above W, moved in G = S/W windows (1 when S <= W), each paying the hop
 * latency:   steps x (G a + M/(nB)),  steps = 2(n-1) or n-1.
 * And the latency-bound case of 16 x 8 GPUs with 5 ms between nodes: the
 * pipelined ring pays the latencies of the hops a slice crosses, about
 * 2(nodes-1) inter-node ones, where the lock-step ring pays 2(n-1), and
 * the double binary tree 2 log2(nodes). The tree on one-GPU nodes, at 8 B
 * (latency-bound): 2 log2(n) a, n = 8 and 64; its rooted form, broadcast
 * and reduce: log2(n) a.
 * These are the links' own closed forms: sim.protocol = "none". With a
 * protocol (protocol.h; NCCL 2.30.7's constants, written out here so that
 * a changed table fails), every message's hop pays the protocol's latency
 * on top of the link's, its bytes are `wire` times longer on the links,
 * and the collective pays a launch once:
 *   ring allreduce  launch + 2(n-1)(G(a + h) + wire M/(nB))
 * lock-step (G = 1) and pipelined, for LL (launch 6.6 us, h 2.7 us across
 * nodes, wire 2), LL128 (14 us, 4 us, 128/120) and Simple (8.4 us, 14 us, 1).
 * With NCCL's per-channel maxima (channels x 36.7 GB/s for LL128 rings on
 * Hopper, 141 GB/s for LL on one node), on one Hopper node where they
 * bind:   launch + 2(n-1)(a + h + (M/n) / min(B / wire, cap)).
 * Each measurement is its own simulation, so every rank starts at t = 0.
 *
 * The closed forms are the schedules' on links that deliver their line rate:
 * every scenario here sets intra and inter efficiency = 1 (what transfers
 * get of a line rate is scenarios/net_transport.c's, checked by
 * test_platform and test_transport). */
#include <math.h>
#include <string.h>

#include "algos/comm/lowering.h"
#include "scenarios/net_transport.h"
#include "tests/harness.h"
#include "tests/tap.h"

typedef enum { ALLREDUCE, REDUCE_SCATTER, ALLGATHER, BROADCAST, REDUCE } kind;
static const char *const kind_name[] = {"allreduce", "reduce_scatter", "allgather", "broadcast", "reduce"};

typedef struct {
  kind k;
  size_t bytes; /* M */
  double finish; /* latest end over ranks */
} measure;

static void rank_main(hs_worker *w, void *arg) {
  measure *m = arg;
  size_t count = m->bytes / 4, n = (size_t)w->size;
  hs_request *q = NULL;
  switch (m->k) {
  case ALLREDUCE:
    hs_allreduce(w, w->world, hs_buf_virtual(count, HS_F32), hs_buf_virtual(count, HS_F32), HS_SUM, &q);
    break;
  case REDUCE_SCATTER:
    hs_reduce_scatter(w, w->world, hs_buf_virtual(count, HS_F32), hs_buf_virtual(count / n, HS_F32), HS_SUM, &q);
    break;
  case ALLGATHER:
    hs_allgather(w, w->world, hs_buf_virtual(count / n, HS_F32), hs_buf_virtual(count, HS_F32), &q);
    break;
  case BROADCAST:
    hs_broadcast(w, w->world, hs_buf_virtual(count, HS_F32), hs_buf_virtual(count, HS_F32), 0, &q);
    break;
  case REDUCE:
    hs_reduce(w, w->world, hs_buf_virtual(count, HS_F32), hs_buf_virtual(count, HS_F32), HS_SUM, 0, &q);
    break;
  }
  hs_wait(w, &q);
  if (hs_now(w) > m->finish) m->finish = hs_now(w);
}

typedef struct {
  const char *lua;
  const char *set;
  measure m;
  double want;
  const char *label;
  double upper; /* > 0: want is a lower bound, this the upper */
} timed_case;

static void child(void *arg, FILE *report) {
  timed_case *tc = arg;
  hs_scenario sc;
  const char *sets[] = {tc->set};
  if (hs_test_load_sets(tc->lua, sets, tc->set ? 1 : 0, &sc)) {
    hs_report(report, 0, "scenario loads");
    return;
  }
  hs_test_simulate(&sc, 0, rank_main, &tc->m, NULL, NULL);
  if (tc->upper > 0) { /* a range, not a closed form */
    hs_report(report, tc->m.finish >= tc->want && tc->m.finish <= tc->upper, "simulated %.6g s, in [%.6g, %.6g] s",
              tc->m.finish, tc->want, tc->upper);
    return;
  }
  double err = fabs(tc->m.finish - tc->want) / tc->want;
  hs_report(report, err <= 0.01, "simulated %.6g s, closed form %.6g s, error %.3g%% (bound 1%%)",
            tc->m.finish, tc->want, 100 * err);
}

/* n nodes of one GPU on a flat switch: route latency 1 + 5 us, the NIC
 * (100 Gbps) the narrowest link. */
static void one_gpu_nodes(char *lua, size_t len, int n, const char *protocol) {
  snprintf(lua, len,
           "cluster { nodes = %d, gpus_per_node = 1, gpu = { flops = \"100TF\" },\n"
           "  intra = { efficiency = 1, bandwidth = \"100GBps\", latency = \"1us\" },\n"
           "  inter = { efficiency = 1, bandwidth = \"100Gbps\", latency = \"5us\" } }\n"
           "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\n"
           "run { iterations = 1 }\nsim { collectives = \"ring\", protocol = \"%s\", slices_in_flight = 0 }\n",
           n, protocol);
}

int main(void) {
  const double a = 1e-6 + 5e-6, B = 12.5e9; /* route latency, narrowest link */
  const int ns[] = {8, 64};
  const size_t Ms[] = {1u << 20, 100u << 20};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      for (int k = ALLREDUCE; k <= REDUCE; k++) {
        int n = ns[i];
        double M = (double)Ms[j], want;
        switch (k) {
        case ALLREDUCE: want = 2 * (n - 1) * a + 2.0 * (n - 1) / n * M / B; break;
        case REDUCE_SCATTER:
        case ALLGATHER: want = (n - 1) * a + (double)(n - 1) / n * M / B; break;
        default: { /* the chain: slice k leaves depth d at tick k + d */
          double S = ceil(M / (512 << 10));
          want = (S + n - 2) * (a + M / (S * B));
          break;
        }
        }
        char lua[1024], label[128];
        one_gpu_nodes(lua, sizeof lua, n, "none");
        snprintf(label, sizeof label, "%s n=%d M=%s", kind_name[k], n, j ? "100MiB" : "1MiB");
        timed_case tc = {lua, NULL, {(kind)k, Ms[j], 0}, want, label, 0};
        hs_test_in_child(label, child, &tc, 120);
      }

  /* Reduce-scatter by recursive halving and allgather by recursive
   * doubling (sim.collectives = halving_doubling), n a power of two:
   * log2(n) rounds, the window halving (or doubling) from M/2 to M/n,
   * log2(n) a + (n-1)/n M / B. */
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      for (int k = REDUCE_SCATTER; k <= ALLGATHER; k++) {
        int n = ns[i];
        double M = (double)Ms[j], want = log2(n) * a + (double)(n - 1) / n * M / B;
        char lua[1024], label[128];
        one_gpu_nodes(lua, sizeof lua, n, "none");
        snprintf(label, sizeof label, "%s %s n=%d M=%s", k == REDUCE_SCATTER ? "recursive halving" : "recursive doubling",
                 kind_name[k], n, j ? "100MiB" : "1MiB");
        timed_case tc = {lua, "sim.collectives=halving_doubling", {(kind)k, Ms[j], 0}, want, label, 0};
        hs_test_in_child(label, child, &tc, 120);
      }

  /* Hierarchical allreduce, 8 nodes x 8 GPUs, one 100 Gbps NIC per GPU:
   * intra ring RS (g-1 steps of M/g over NVLink), a ring allreduce across
   * the 8 nodes on each GPU's M/g chunk (8 rails in parallel, each with its
   * own NIC's worth of bandwidth), intra ring AG. */
  {
    int g = 8, N = 8;
    double M = 100.0 * 1048576, Bi = 300e9, ai = 2e-6, Be = 12.5e9, ae = 2e-6 + 5e-6;
    double want = 2 * ((g - 1) * ai + (double)(g - 1) / g * M / Bi) +
                  2 * (N - 1) * ae + 2.0 * (N - 1) / N * (M / g) / Be;
    const char *lua = "cluster { nodes = 8, gpus_per_node = 8, gpu = { flops = \"100TF\" },\n"
                      "  intra = { efficiency = 1, bandwidth = \"300GBps\", latency = \"2us\" },\n"
                      "  inter = { efficiency = 1, bandwidth = \"100Gbps\", latency = \"5us\", nics_per_node = 8 } }\n"
                      "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\n"
                      "run { iterations = 1 }\nsim { collectives = \"ring\", protocol = \"none\", slices_in_flight = 0 }\n";
    timed_case tc = {lua, "sim.collectives=hierarchical", {ALLREDUCE, 100u << 20, 0}, want,
                     "hierarchical allreduce 8x8 M=100MiB", 0};
    hs_test_in_child(tc.label, child, &tc, 120);
  }
  /* The doubling allreduces. */
  {
    const int dn[] = {8, 64, 12};
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 2; j++)
        for (int h = 0; h < 2; h++) {
          int n = dn[i], p = n == 12 ? 8 : n;
          double M = (double)Ms[j], lg = log2(p);
          double core = h == 0 ? 2 * lg * a + 2.0 * (p - 1) / p * M / B : lg * (a + M / B);
          double want = core + (n != p ? 2 * (a + M / B) : 0);
          char lua[1024], label[128], set[64];
          one_gpu_nodes(lua, sizeof lua, n, "none");
          const char *algo = h == 0 ? "halving_doubling" : "recursive_doubling";
          snprintf(set, sizeof set, "sim.collectives=%s", algo);
          snprintf(label, sizeof label, "%s allreduce n=%d M=%s", algo, n, j ? "100MiB" : "1MiB");
          timed_case tc = {lua, set, {ALLREDUCE, Ms[j], 0}, want, label, 0};
          hs_test_in_child(label, child, &tc, 120);
        }
  }
  /* Broadcast and reduce under recursive_doubling: binomial trees of the
   * whole vector (MPICH's and gloo's broadcast), one round a power of
   * two, a rank's sends one after the other: ceil(log2 n)(a + M/B), for
   * n = 8, 12 (4 rounds, the last one half full) and 64. */
  {
    const int dn[] = {8, 12, 64};
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 2; j++)
        for (int k = BROADCAST; k <= REDUCE; k++) {
          int n = dn[i];
          double M = (double)Ms[j], want = ceil(log2(n)) * (a + M / B);
          char lua[1024], label[128];
          one_gpu_nodes(lua, sizeof lua, n, "none");
          snprintf(label, sizeof label, "binomial %s n=%d M=%s", kind_name[k], n, j ? "100MiB" : "1MiB");
          timed_case tc = {lua, "sim.collectives=recursive_doubling", {(kind)k, Ms[j], 0}, want, label, 0};
          hs_test_in_child(label, child, &tc, 120);
        }
  }
  /* The in-switch allreduce, one node of 8 GPUs, a GPU link 300 GB/s and
   * 1 us each way (2 us GPU to GPU). */
  {
    const char *lua = "cluster { nodes = 1, gpus_per_node = 8, nvls = true, gpu = { flops = \"100TF\" },\n"
                      "  intra = { efficiency = 1, bandwidth = \"300GBps\", latency = \"2us\" }, inter = { efficiency = 1, bandwidth = \"400Gbps\" } }\n"
                      "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\n"
                      "run { iterations = 1 }\nsim { collectives = \"nvls\", protocol = \"none\" }\n";
    const size_t sizes[] = {8, 1u << 20, 100u << 20, 1u << 30};
    for (int j = 0; j < 4; j++)
      for (int w = 0; w < 2; w++) {
        double M = (double)sizes[j], unit = 2097152.0 * (w ? 8 : 1), U = ceil(M / unit);
        double want = (U + 1) * (1e-6 + M / U / 300e9);
        char label[128];
        snprintf(label, sizeof label, "in-switch allreduce 1x8 M=%zu B (%g units%s)", sizes[j], U,
                 w ? ", 8 slices a tick" : "");
        timed_case tc = {lua, w ? "sim.switch_slices=8" : NULL, {ALLREDUCE, sizes[j], 0}, want, label, 0};
        hs_test_in_child(label, child, &tc, 120);
      }
    /* Its reduce-scatter and allgather move M over the busier direction
     * (every block up, or every block down) in the same units, and a
     * block's part (M/(8U)) the other way: the first tick's and the last's
     * differ. (8 B has no element per member: not a case.) */
    for (int k = REDUCE_SCATTER; k <= ALLGATHER; k++)
      for (int j = 1; j < 4; j++) {
        double M = (double)sizes[j], U = ceil(M / 2097152.0);
        double want = (U + 1) * 1e-6 + M / 300e9 + M / (8 * U) / 300e9;
        char label[128];
        snprintf(label, sizeof label, "in-switch %s 1x8 M=%zu B (%g units)", kind_name[k], sizes[j], U);
        timed_case tc = {lua, NULL, {(kind)k, sizes[j], 0}, want, label, 0};
        hs_test_in_child(label, child, &tc, 120);
      }
  }
  /* Through the fabric's reduction: one-GPU nodes, then 8 x 8. */
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      int n = ns[i];
      double M = (double)Ms[j], U = ceil(M / 524288);
      double want = (U + 1) * (a / 2 + M / U / B);
      char lua[1024], label[128];
      snprintf(lua, sizeof lua,
               "cluster { nodes = %d, gpus_per_node = 1, gpu = { flops = \"100TF\" },\n"
               "  intra = { efficiency = 1, bandwidth = \"100GBps\", latency = \"1us\" },\n"
               "  inter = { efficiency = 1, bandwidth = \"100Gbps\", latency = \"5us\", in_network_reduction = true } }\n"
               "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\n"
               "run { iterations = 1 }\nsim { protocol = \"none\" }\n", n);
      snprintf(label, sizeof label, "in-network allreduce n=%d M=%s (%g units)", n, j ? "100MiB" : "1MiB", U);
      timed_case tc = {lua, "sim.collectives=collnet", {ALLREDUCE, Ms[j], 0}, want, label, 0};
      hs_test_in_child(label, child, &tc, 120);
    }
  {
    int g = 8;
    const char *lua = "cluster { nodes = 8, gpus_per_node = 8, gpu = { flops = \"100TF\" },\n"
                      "  intra = { efficiency = 1, bandwidth = \"300GBps\", latency = \"2us\" },\n"
                      "  inter = { efficiency = 1, bandwidth = \"100Gbps\", latency = \"5us\", nics_per_node = 8,\n"
                      "            in_network_reduction = true } }\n"
                      "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\n"
                      "run { iterations = 1 }\nsim { collectives = \"collnet\", protocol = \"none\", slices_in_flight = 0 }\n";
    hs_scenario sc;
    if (hs_test_load(lua, &sc)) {
      tap_ok(0, "8 x 8 SHARP scenario loads");
    } else {
      double M = 100.0 * 1048576, Bi = 300e9, ai = 2e-6, Be = 12.5e9, ae = 2e-6 + 5e-6;
      double U = (double)hs_lower_collnet_chain_units(M, (size_t)(M / 4 / g), g, 64 + g, 1,
                                                      hs_net_rail_bandwidth(&sc.cluster),
                                                      hs_net_message_latency(&sc.cluster));
      double part = M / g / U, want = (U + 1) * (ae / 2 + part / Be);
      for (int j = 1; j < g; j++) want += 2 * (ai + j * part / Bi);
      char label[96];
      snprintf(label, sizeof label, "in-network allreduce 8x8 M=100MiB (CollNet chain, %g units)", U);
      timed_case tc = {lua, NULL, {ALLREDUCE, 100u << 20, 0}, want, label, 0};
      hs_test_in_child(tc.label, child, &tc, 120);
      hs_scenario_free(&sc);
    }
  }
  /* The pipelined ring. */
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      for (int k = ALLREDUCE; k <= ALLGATHER; k++) {
        int n = ns[i];
        double M = (double)Ms[j], chunk = M / n;
        double W = 8 * 2, S = ceil(chunk / 524288), G = S > W ? ceil(S / W) : 1; /* 8 slots x 2 channels */
        double steps = k == ALLREDUCE ? 2.0 * (n - 1) : n - 1.0;
        double want = steps * (G * a + chunk / B);
        char lua[1024], label[128];
        one_gpu_nodes(lua, sizeof lua, n, "none");
        snprintf(label, sizeof label, "pipelined ring %s n=%d M=%s (%g windows per step)", kind_name[k], n,
                 j ? "100MiB" : "1MiB", G);
        timed_case tc = {lua, "sim.slices_in_flight=8", {(kind)k, Ms[j], 0}, want, label, 0};
        hs_test_in_child(label, child, &tc, 120);
      }
  /* Latency-bound: 8 KiB over 16 x 8 GPUs, 5 ms between nodes. A slice
   * crosses 2(n-1) = 254 consecutive hops of the ring, of which 30 to 32
   * leave a node (16 of its 128 hops do): at least 2(N-1) x 5 ms, at most
   * 2N x (5 ms + 2 intra latencies) + 254 intra hops (1 us each, twice) +
   * the 64 B chunks' transfer (negligible). Lock-step pays 2(n-1) x 5 ms. */
  {
    const char *lua = "cluster { nodes = 16, gpus_per_node = 8, gpu = { flops = \"100TF\" },\n"
                      "  intra = { efficiency = 1, bandwidth = \"300GBps\", latency = \"1us\" },\n"
                      "  inter = { efficiency = 1, bandwidth = \"100Gbps\", latency = \"5ms\" } }\n"
                      "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\n"
                      "run { iterations = 1 }\nsim { collectives = \"ring\", protocol = \"none\" }\n";
    double N = 16, n = 128, ae = 5e-3, ai = 1e-6;
    timed_case tc = {lua, "sim.slices_in_flight=8", {ALLREDUCE, 8192, 0}, 2 * (N - 1) * ae,
                     "latency-bound pipelined ring allreduce 16x8, 5 ms between nodes, 8 KiB",
                     2 * N * (ae + 2 * ai) + 2 * (n - 1) * 2 * ai + 1e-4};
    hs_test_in_child(tc.label, child, &tc, 120);
    timed_case lock = {lua, "sim.slices_in_flight=0", {ALLREDUCE, 8192, 0}, 2 * (n - 1) * ae,
                       "latency-bound lock-step ring allreduce 16x8, 5 ms between nodes, 8 KiB",
                       2 * (n - 1) * (ae + 4 * ai) + 1e-4};
    hs_test_in_child(lock.label, child, &lock, 120);
    /* The double binary tree: 2 x log2(16) = 8 hops across nodes (up to
     * a root and back), 2 x 7 along the chains, each a link latency twice
     * (GPU link in and out) when it stays inside a node, plus 2 of those
     * around each crossing. */
    timed_case tree = {lua, "sim.collectives=tree", {ALLREDUCE, 8192, 0}, 2 * log2(N) * ae,
                       "latency-bound double binary tree allreduce 16x8, 5 ms between nodes, 8 KiB",
                       2 * log2(N) * (ae + 2 * ai) + 2 * 7 * 2 * ai + 1e-4};
    hs_test_in_child(tree.label, child, &tree, 120);
  }
  /* The double binary tree on one-GPU nodes, latency-bound (8 B: one
   * float a tree): 2 log2(N) hops, up to the root and back, N = 8 and 64
   * (the transfer of 4 B is under 1e-6 of a hop). */
  for (int i = 0; i < 2; i++) {
    int n = ns[i];
    char lua[1024], label[128];
    one_gpu_nodes(lua, sizeof lua, n, "none");
    snprintf(label, sizeof label, "double binary tree allreduce n=%d M=8B: 2 log2(n) a", n);
    timed_case tc = {lua, "sim.collectives=tree", {ALLREDUCE, 8, 0}, 2 * log2(n) * a, label, 0};
    hs_test_in_child(label, child, &tc, 120);
    /* the rooted tree of broadcast and reduce: log2(n) hops one way */
    for (int k = BROADCAST; k <= REDUCE; k++) {
      snprintf(label, sizeof label, "pipelined tree %s n=%d M=8B: log2(n) a", kind_name[k], n);
      timed_case tb = {lua, "sim.collectives=tree", {(kind)k, 8, 0}, log2(n) * a, label, 0};
      hs_test_in_child(label, child, &tb, 120);
    }
  }
  /* NCCL's chain forwarding on arrival (sim.slices_in_flight = 8): the
   * first slice crosses the n - 1 hops, each later one costs a slice's
   * move on the narrowest link (the credits, 8 slices of a hop's latency
   * and a move each, never bind: a = 6 us < 7 x 42 us). Large, the whole
   * vector once at the link's rate however many members: a binomial tree
   * would take log2(n) times as long. */
  for (int i = 0; i < 2; i++)
    for (int k = BROADCAST; k <= REDUCE; k++) {
      int n = ns[i];
      double M = 100u << 20, S = ceil(M / (512 << 10)), b = M / (S * B);
      char lua[1024], label[128];
      one_gpu_nodes(lua, sizeof lua, n, "none");
      snprintf(label, sizeof label, "pipelined chain %s n=%d M=100MiB: (n-1)(a + b) + (S-1) b", kind_name[k], n);
      timed_case tc = {lua, "sim.slices_in_flight=8", {(kind)k, 100u << 20, 0}, (n - 1) * (a + b) + (S - 1) * b,
                       label, 0};
      hs_test_in_child(label, child, &tc, 120);
    }
  /* The protocols, on the ring allreduce of one-GPU nodes (every hop
   * across nodes): lock-step and pipelined, a latency-bound and a
   * bandwidth-bound size. Pipelined slices are the protocol's step: 32 KiB
   * (LL), 576000 B (LL128), 512 KiB (Simple); at 1 MiB over 8 a chunk is
   * one to four slices, one window. With one GPU a node a ring's network
   * hop pays NCCL's tree's network latency, 5.0, 8.5 and 14 us, not the
   * ring's 2.7, 4.0 and 14 ("with ppn=1 latencies are fully exposed",
   * tuning.cc; protocol.c). */
  {
    static const struct {
      const char *name;
      double launch, hop, wire, slice;
    } proto[] = {{"ll", 6.6e-6, 5.0e-6, 2.0, 32768},
                 {"ll128", 14e-6, 8.5e-6, 128.0 / 120.0, 576000},
                 {"simple", 8.4e-6, 14e-6, 1.0, 524288}};
    const size_t sizes[] = {8192, 1u << 20};
    for (int p = 0; p < 3; p++)
      for (int j = 0; j < 2; j++)
        for (int w = 0; w < 2; w++) {
          int n = 8;
          double M = (double)sizes[j], chunk = M / n;
          double W = 8 * 2, S = ceil(chunk / proto[p].slice), G = w && S > W ? ceil(S / W) : 1; /* 8 slots x 2 channels */
          double want = proto[p].launch + 2 * (n - 1) * (G * (a + proto[p].hop) + proto[p].wire * chunk / B);
          char lua[1024], label[160];
          one_gpu_nodes(lua, sizeof lua, n, proto[p].name);
          snprintf(label, sizeof label, "%s protocol, %s ring allreduce n=%d M=%s", proto[p].name,
                   w ? "pipelined" : "lock-step", n, j ? "1MiB" : "8KiB");
          timed_case tc = {lua, w ? "sim.slices_in_flight=8" : "sim.slices_in_flight=0", {ALLREDUCE, sizes[j], 0},
                           want, label, 0};
          hs_test_in_child(label, child, &tc, 120);
        }
  }
  /* Channels (protocol.h): NCCL's kernels move at most a measured rate
   * per channel, and hearsay's flows at most that times the channels. One
   * Hopper node of 8 on 450 GB/s NVLink, lock-step ring allreduce, where
   * the caps bind (NCCL 2.30.7's tuning.cc, written out here): LL128
   * 36.7 GB/s per channel (perChMaxRingLL128Bw), LL 141 GB/s whatever the
   * channels (llMaxBw on one node); Simple has none. Per step a hop's
   * latency (2 us route, the protocol's NVLink hop: LL128 1.9 us, LL
   * 0.6 us, Simple 3.4 us) and the chunk M/8 at the capped rate:
   *   launch + 2(n-1)(a + h + chunk / min(B / wire, cap)). */
  {
    static const struct {
      const char *proto;
      int channels;
      double launch, hop, wire, cap;
    } cc[] = {{"ll128", 2, 14e-6, 1.9e-6, 1 / 0.92, 2 * 36.7e9},
              {"ll128", 4, 14e-6, 1.9e-6, 1 / 0.92, 4 * 36.7e9},
              {"ll", 2, 6.6e-6, 0.6e-6, 2, 141e9},
              {"simple", 2, 8.4e-6, 3.4e-6, 1, INFINITY}};
    const char *lua = "cluster { nodes = 1, gpus_per_node = 8, gpu = { flops = \"989TF\", arch = \"hopper\" },\n"
                      "  intra = { efficiency = 1, bandwidth = \"450GBps\", latency = \"2us\" }, inter = { efficiency = 1, bandwidth = \"400Gbps\" } }\n"
                      "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\n"
                      "run { iterations = 1 }\nsim { collectives = \"ring\", slices_in_flight = 0, channels = %d }\n";
    for (size_t c = 0; c < sizeof cc / sizeof *cc; c++)
      for (int j = 0; j < 2; j++) {
        int n = 8;
        size_t bytes = j ? 1u << 30 : 64u << 20;
        double chunk = (double)bytes / n, Bn = 450e9, an = 2e-6;
        double rate = fmin(Bn / cc[c].wire, cc[c].cap);
        double want = cc[c].launch + 2 * (n - 1) * (an + cc[c].hop + chunk / rate);
        char set[64], label[160];
        snprintf(set, sizeof set, "sim.protocol=%s", cc[c].proto);
        char lua_c[1024];
        snprintf(lua_c, sizeof lua_c, lua, cc[c].channels);
        snprintf(label, sizeof label, "%s ring allreduce on one Hopper node, %d channels, M=%s: %s", cc[c].proto,
                 cc[c].channels, j ? "1GiB" : "64MiB", isinf(cc[c].cap) ? "no cap" : "at the channels' cap");
        timed_case tc = {lua_c, set, {ALLREDUCE, bytes, 0}, want, label, 0};
        hs_test_in_child(label, child, &tc, 120);
      }
  }
  return tap_done(0);
}
