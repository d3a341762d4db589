/* test_fidelity_fast.c — sim.fidelity = "fast" against "step" (every
 * message simulated, the reference) on clusters of 16 to 128 ranks, and
 * both against the ring's closed form on homogeneous clusters.
 *
 * Promised: fast within 2% of step in simulated time on every case below
 * but those that say otherwise and why, both within 1% of the closed form
 * 2(n-1)(a + M/(n b)) where it holds.
 * (Fast replays the same lowered schedule with SimGrid's own routes and
 * max-min shares, so in practice the two agree to ~1e-8; the bounds are the
 * promise, and each case prints both times and the error.)
 *
 * The scenarios pin the ring and Simple (the defaults are the tuner's
 * picks), so each case names the schedule it checks. Cases: homogeneous flat switch; fat tree with 2:1 oversubscription;
 * two-level hierarchical (NVLink inside nodes, 25 Gbps between); racks of
 * different bandwidths (scenarios/hetero-racks.lua); and training runs with
 * one GPU 3x slower and with lognormal noise drawn per GPU per iteration,
 * where arrival times differ and the collective must delay exactly whom
 * the straggler delays. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "tests/tap.h"

static char dir[600];
/* What compare_collective allows between step and fast: 2%, unless a case says why not. */
static double tolerance = 0.02;

static const char *write_lua(const char *name, const char *text) {
  static char path[700];
  snprintf(path, sizeof path, "%s/%s.lua", dir, name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

/* `hearsay collective`: simulated time, ring bound and fidelity from its
 * result line. SimGrid's warnings (e.g. actions left behind at the end of
 * a run) fail the comparison: a user would see them. */
static int collective(const char *scenario, const char *args, double *sim, double *bound, char *fidelity) {
  char result[1024];
  int warned;
  if (hs_test_collective(scenario, args, result, sizeof result, &warned) || warned) return -1;
  *sim = hs_test_result_value(result, "sim_s");
  *bound = hs_test_result_value(result, "bound_s");
  const char *f = strstr(result, " fidelity=");
  return f && sscanf(f + 10, "%7s", fidelity) == 1 ? 0 : -1;
}

/* Fast's replay of a whole lock-step tree run (sim/fast_tree.c,
 * sim.slices_in_flight = 0) against the same run recorded tick by tick as
 * exchanges (HS_FAST_TREE_BY_TICKS=1): the same ticks and the same
 * max-min shares, so equal but for the order in which flows enter the
 * sharing (rounding: 1e-9 relative). The pipelined tree takes its shares
 * from these ticks. */
static void compare_tree_replay(const char *what, const char *scenario, const char *args) {
  char a[1024], f1[8] = "", f2[8] = "";
  double whole = NAN, ticks = NAN, b1, b2;
  snprintf(a, sizeof a, "%s --set sim.fidelity=fast --set sim.slices_in_flight=0", args);
  int r1 = collective(scenario, a, &whole, &b1, f1);
  setenv("HS_FAST_TREE_BY_TICKS", "1", 1);
  int r2 = collective(scenario, a, &ticks, &b2, f2);
  unsetenv("HS_FAST_TREE_BY_TICKS");
  double err = fabs(whole - ticks) / ticks;
  tap_ok(r1 == 0 && r2 == 0 && !strcmp(f1, "fast") && !strcmp(f2, "fast") && err <= 1e-9,
         "%s: fast replaying the tree whole %.12g s, tick by tick %.12g s, error %.2g (<= 1e-9)", what, whole, ticks,
         err);
}

/* Fast splices a route between two ranks from their nodes' route and the
 * ranks' own GPU links (sim/fast.c); with HS_FAST_ROUTE_CHECK=1 it checks
 * every spliced route against SimGrid's, link for link in SimGrid's order
 * (which sums the latency), aborts on the first that differs, and says at
 * exit how many it checked: at least one, or the check proved nothing. */
static void check_spliced_routes(const char *what, const char *scenario, const char *args) {
  char cmd[2048], err[4096];
  snprintf(cmd, sizeof cmd, "HS_FAST_ROUTE_CHECK=1 timeout -k 5 300 %s collective %s %s --set sim.fidelity=fast",
           HEARSAY_BIN, scenario, args);
  int rc = hs_test_command(cmd, err, sizeof err);
  const char *at = strstr(err, "HS_FAST_ROUTE_CHECK: ");
  long checked = at ? strtol(at + strlen("HS_FAST_ROUTE_CHECK: "), NULL, 10) : 0;
  tap_ok(rc == 0 && checked > 0, "%s: %ld spliced routes, each SimGrid's (exit %d)", what, checked, rc);
}

static void compare_collective(const char *what, const char *scenario, const char *args, int closed_form) {
  char a[1024], fs[8] = "", ff[8] = "";
  double step = NAN, fast = NAN, bs = NAN, bf = NAN;
  snprintf(a, sizeof a, "%s --set sim.fidelity=step", args);
  int rs = collective(scenario, a, &step, &bs, fs);
  snprintf(a, sizeof a, "%s --set sim.fidelity=fast", args);
  int rf = collective(scenario, a, &fast, &bf, ff);
  double err = fabs(fast - step) / step;
  tap_ok(rs == 0 && rf == 0 && !strcmp(fs, "step") && !strcmp(ff, "fast") && err <= tolerance,
         "%s: step %.6g s, fast %.6g s, error %.2g (<= %g%%)", what, step, fast, err, 100 * tolerance);
  if (closed_form)
    tap_ok(fabs(step - bs) <= 0.01 * bs && fabs(fast - bf) <= 0.01 * bf,
           "%s: closed form %.6g s; step off by %.2g, fast by %.2g (<= 1%%)", what, bs, fabs(step - bs) / bs,
           fabs(fast - bf) / bf);
}

/* total_time_s of a training run's summary.json */
static double run_time(const char *scenario, const char *args, const char *out) {
  char cmd[2048], err[4096], path[800], buf[1 << 16];
  snprintf(cmd, sizeof cmd, "timeout -k 5 300 %s run %s %s --out %s --quiet", HEARSAY_BIN, scenario, args, out);
  if (hs_test_command(cmd, err, sizeof err) != 0) return NAN;
  snprintf(path, sizeof path, "%s/summary.json", out);
  FILE *f = fopen(path, "r");
  if (!f) return NAN;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *t = strstr(buf, "\"total_time_s\":");
  return t ? strtod(t + 15, NULL) : NAN;
}

static void compare_training_within(const char *what, const char *scenario, const char *args, double tol) {
  char a[1024], out[800];
  snprintf(a, sizeof a, "%s --set sim.fidelity=step", args);
  snprintf(out, sizeof out, "%s/step", dir);
  double step = run_time(scenario, a, out);
  snprintf(a, sizeof a, "%s --set sim.fidelity=fast", args);
  snprintf(out, sizeof out, "%s/fast", dir);
  double fast = run_time(scenario, a, out);
  double err = fabs(fast - step) / step;
  tap_ok(err <= tol, "%s: step %.6g s, fast %.6g s, error %.2g (<= %.2g)", what, step, fast, err, tol);
}

static void compare_training(const char *what, const char *scenario, const char *args) {
  compare_training_within(what, scenario, args, 0.02);
}

int main(void) {
  snprintf(dir, sizeof dir, "%s", hs_test_tmpdir());
  const char *flat = write_lua("flat",
      "cluster { nodes = 32, gpus_per_node = 1, gpu = { flops = '100TF' },\n"
      "          inter = { bandwidth = '100Gbps', latency = '5us', topology = 'flat' } }\n"
      "workload { model = 'resnet50', batch = 32 }\nalgorithm { name = 'gradient_allreduce' }\n"
      "run { iterations = 2 }\nsim { collectives = 'ring', protocol = 'simple' }\n");
  compare_collective("flat switch, 32 ranks, ring allreduce 64 MiB", flat, "--op allreduce --bytes 64MiB", 1);
  compare_collective("flat switch, 32 ranks, ring allgather 16 MiB", flat, "--op allgather --bytes 16MiB", 1);
  compare_collective("flat switch, 32 ranks, broadcast 8 MiB", flat, "--op broadcast --bytes 8MiB", 0);
  compare_collective("flat switch, 32 ranks, alltoall 8 MiB", flat, "--op alltoall --bytes 8MiB", 0);
  compare_collective("flat switch, 32 ranks, halving-doubling allreduce 64 MiB", flat,
                     "--op allreduce --bytes 64MiB --set sim.collectives=halving_doubling", 0);
  compare_collective("flat switch, 24 ranks, recursive doubling allreduce 8 MiB", flat,
                     "--op allreduce --bytes 8MiB --set sim.collectives=recursive_doubling --set cluster.nodes=24", 0);

  const char *fat = write_lua("fat",
      "cluster { nodes = 16, gpus_per_node = 4, gpu = { flops = '100TF' },\n"
      "          intra = { bandwidth = '300GBps', latency = '2us' },\n"
      "          inter = { bandwidth = '100Gbps', latency = '5us', topology = 'fat_tree', rack_size = 4,\n"
      "                    oversubscription = 2 } }\n"
      "workload { model = 'resnet50', batch = 32 }\nalgorithm { name = 'gradient_allreduce' }\n"
      "run { iterations = 2 }\nsim { collectives = 'ring', protocol = 'simple' }\n");
  compare_collective("fat tree 2:1, 64 ranks, ring allreduce 64 MiB", fat, "--op allreduce --bytes 64MiB", 0);
  compare_collective("fat tree 2:1, 64 ranks, reduce_scatter 64 MiB", fat, "--op reduce_scatter --bytes 64MiB", 0);
  compare_collective("fat tree 2:1, 64 ranks, halving-doubling allreduce 64 MiB", fat,
                     "--op allreduce --bytes 64MiB --set sim.collectives=halving_doubling", 0);
  compare_collective("fat tree 2:1, 64 ranks, recursive halving reduce_scatter 64 MiB", fat,
                     "--op reduce_scatter --bytes 64MiB --set sim.collectives=halving_doubling", 0);
  compare_collective("fat tree 2:1, 64 ranks, recursive doubling allreduce 4 MiB", fat,
                     "--op allreduce --bytes 4MiB --set sim.collectives=recursive_doubling", 0);

  const char *two = write_lua("two",
      "cluster { nodes = 16, gpus_per_node = 8, gpu = { flops = '312TF', efficiency = 0.35 },\n"
      "          intra = { bandwidth = '300GBps', latency = '2us' },\n"
      "          inter = { bandwidth = '25Gbps', latency = '5us' } }\n"
      "workload { model = 'resnet50', batch = 64 }\nalgorithm { name = 'gradient_allreduce' }\n"
      "run { iterations = 5, seed = 1 }\nsim { collectives = 'hierarchical' }\n");
  compare_collective("two-level (NVLink, 25 Gbps), 128 ranks, hierarchical allreduce 100 MiB", two,
                     "--op allreduce --bytes 100MiB", 0);
  compare_collective("two-level (NVLink, 25 Gbps), 128 ranks, hierarchical broadcast 16 MiB", two,
                     "--op broadcast --bytes 16MiB", 0);

  /* NCCL's per-channel maxima (protocol.h): on Hopper nodes with 3.2 Tbps
   * of NICs, two channels, LL128's 2 x 36.7 GB/s binds on every hop, and
   * LL's 70 GB/s (llMaxBw across nodes) likewise. Every flow bounded in step (SimGrid's Comm::set_rate)
   * as in fast's max-min sharing. */
  const char *capped = write_lua("capped",
      "cluster { nodes = 4, gpus_per_node = 8, gpu = { flops = '989TF', arch = 'hopper' },\n"
      "          intra = { bandwidth = '450GBps', latency = '2us' },\n"
      "          inter = { bandwidth = '3200Gbps', latency = '5us' } }\n"
      "workload { model = 'resnet50', batch = 64 }\nalgorithm { name = 'gradient_allreduce' }\n"
      "run { iterations = 3, seed = 1 }\nsim { collectives = 'ring', protocol = 'll128', channels = 2 }\n");
  compare_collective("Hopper, channels' caps, 32 ranks, lock-step ring/LL128 allreduce 256 MiB", capped,
                     "--op allreduce --bytes 256MiB --set sim.slices_in_flight=0", 1);
  compare_collective("Hopper, channels' caps, 32 ranks, pipelined ring/LL128 allreduce 256 MiB", capped,
                     "--op allreduce --bytes 256MiB", 0);
  compare_collective("Hopper, channels' caps, 32 ranks, hierarchical/LL128 allreduce 64 MiB", capped,
                     "--op allreduce --bytes 64MiB --set sim.collectives=hierarchical", 0);
  compare_collective("Hopper, channels' caps, 32 ranks, halving-doubling/LL allreduce 64 MiB", capped,
                     "--op allreduce --bytes 64MiB --set sim.collectives=halving_doubling --set sim.protocol=ll", 0);
  compare_training("Hopper, channels' caps, 32 ranks, ResNet-50 training, ring/LL128", capped, "");

  char hetero[700];
  snprintf(hetero, sizeof hetero, "%s/scenarios/hetero-racks.lua", HS_SOURCE_DIR);
  compare_collective("racks of different bandwidths (hetero-racks, 256 ranks), hierarchical allreduce 64 MiB", hetero,
                     "--op allreduce --bytes 64MiB", 0);
  compare_collective("two-level (NVLink, 25 Gbps), 120 ranks, halving-doubling allreduce 100 MiB", two,
                     "--op allreduce --bytes 100MiB --set sim.collectives=halving_doubling --set cluster.nodes=15", 0);
  compare_collective("two-level (NVLink, 25 Gbps), 120 ranks, recursive doubling allgather 16 MiB", two,
                     "--op allgather --bytes 16MiB --set sim.collectives=halving_doubling --set cluster.nodes=15", 0);
  /* hetero-racks.lua also has a half-speed GPU, under which the doubling
   * schedules run message by message in fast too (select.c): the same
   * racks without it. */
  const char *racks = write_lua("racks",
      "cluster { nodes = 32, gpus_per_node = 8, gpu = { flops = '312TF', efficiency = 0.35 },\n"
      "          intra = { bandwidth = '300GBps', latency = '2us' },\n"
      "          inter = { bandwidth = '100Gbps', latency = '5us', topology = 'fat_tree', rack_size = 8,\n"
      "                    oversubscription = 2 },\n"
      "          overrides = { { rack = 3, bandwidth = '25Gbps' }, { node = 5, latency = '50us' } } }\n"
      "workload { model = 'bert-large', batch = 8 }\nalgorithm { name = 'gradient_allreduce' }\n"
      "run { iterations = 2 }\nsim { collectives = 'ring', protocol = 'simple' }\n");
  compare_collective("racks of different bandwidths (256 ranks), halving-doubling allreduce 64 MiB", racks,
                     "--op allreduce --bytes 64MiB --set sim.collectives=halving_doubling", 0);
  /* spliced routes: a 2:1 fat tree, NVLink + 25 Gbps, racks with a slow
   * rack and a slow node (and below, one node whose GPUs hang off a
   * Cluster zone's router), under the schedules that meet most pairs */
  check_spliced_routes("fat tree 2:1, 64 ranks, halving-doubling", fat,
                       "--op allreduce --bytes 64MiB --set sim.collectives=halving_doubling");
  check_spliced_routes("two-level, 128 ranks, tree", two, "--op allreduce --bytes 8MiB --set sim.collectives=tree");
  check_spliced_routes("racks of different bandwidths, 256 ranks, halving-doubling", racks,
                       "--op allreduce --bytes 64MiB --set sim.collectives=halving_doubling");
  compare_collective("racks of different bandwidths (256 ranks), recursive halving reduce_scatter 64 MiB", racks,
                     "--op reduce_scatter --bytes 64MiB --set sim.collectives=halving_doubling", 0);
  compare_training("racks of different bandwidths, BERT-Large training", hetero, "");

  /* The pipelined ring (sim.slices_in_flight = 8): step moves every unit
   * (the slices a connection carries at once) as a SimGrid message, fast
   * runs the recurrence of fast.c. Left out, because they do not agree
   * yet: chunks smaller than the window, whose connections hold units of
   * several steps at once, sharing links with others (the rails of a
   * hierarchical allreduce over racks of different speeds, 256 KiB chunks:
   * step 0.058 s, fast 0.042 s; the same with 32 KiB slices agrees
   * exactly). SimGrid shares a link per message, fast sends a
   * connection's units first in, first out (docs/fidelity.md). */
  const char *pipe = "--set sim.slices_in_flight=8";
  char args[512], flat_p[720], fat_p[720], racks_p[720], two_p[720]; /* write_lua's path is one static buffer */
  snprintf(flat_p, sizeof flat_p, "%s/flat.lua", dir);
  snprintf(fat_p, sizeof fat_p, "%s/fat.lua", dir);
  snprintf(racks_p, sizeof racks_p, "%s/racks.lua", dir);
  snprintf(two_p, sizeof two_p, "%s/two.lua", dir);
  flat = flat_p, fat = fat_p, racks = racks_p, two = two_p;
  snprintf(args, sizeof args, "--op allreduce --bytes 64MiB %s", pipe);
  compare_collective("flat switch, 32 ranks, pipelined ring allreduce 64 MiB", flat, args, 1);
  compare_collective("fat tree 2:1, 64 ranks, pipelined ring allreduce 64 MiB", fat, args, 0);
  compare_collective("racks of different bandwidths (256 ranks), pipelined ring allreduce 64 MiB", racks, args, 0);
  snprintf(args, sizeof args, "--op reduce_scatter --bytes 64MiB %s", pipe);
  compare_collective("fat tree 2:1, 64 ranks, pipelined ring reduce_scatter 64 MiB", fat, args, 0);
  snprintf(args, sizeof args, "--op allreduce --bytes 100MiB %s", pipe);
  compare_collective("two-level (NVLink, 25 Gbps), 128 ranks, pipelined hierarchical allreduce 100 MiB", two, args, 0);
  snprintf(args, sizeof args, "--op allreduce --bytes 25MiB --set sim.collectives=ring --set cluster.inter.latency=5ms %s",
           pipe);
  compare_collective("two-level, 5 ms between nodes, 128 ranks, pipelined ring allreduce 25 MiB", two, args, 0);
  /* With a protocol the pipelined ring's sends leave a hop after they are
   * posted (deferred sends); 64 MiB gives 512 KiB chunks, one unit in
   * flight per connection, where step and fast agree. */
  snprintf(args, sizeof args, "--op allreduce --bytes 64MiB --set sim.collectives=ring --set sim.protocol=ll128 %s", pipe);
  compare_collective("two-level (NVLink, 25 Gbps), 128 ranks, pipelined LL128 ring allreduce 64 MiB", two, args, 0);

  /* Protocols (the default Simple runs above): LL and LL128, whose hops
   * and wire bytes step pays by deferred sends and fast by arithmetic;
   * and the tuner's picks. */
  compare_collective("flat switch, 32 ranks, LL ring allreduce 1 MiB", flat,
                     "--op allreduce --bytes 1MiB --set sim.protocol=ll", 1);
  compare_collective("fat tree 2:1, 64 ranks, LL128 ring allreduce 16 MiB", fat,
                     "--op allreduce --bytes 16MiB --set sim.protocol=ll128", 0);
  compare_collective("two-level (NVLink, 25 Gbps), 128 ranks, LL hierarchical allreduce 256 KiB", two,
                     "--op allreduce --bytes 256KiB --set sim.protocol=ll --set sim.collectives=hierarchical", 0);
  const char *tuned_sizes[] = {"4KiB", "1MiB", "64MiB"};
  for (int i = 0; i < 3; i++) {
    char what[160];
    snprintf(what, sizeof what, "two-level (NVLink, 25 Gbps), 128 ranks, tuned allreduce %s", tuned_sizes[i]);
    snprintf(args, sizeof args, "--op allreduce --bytes %s --set sim.collectives=auto --set sim.protocol=auto",
             tuned_sizes[i]);
    compare_collective(what, two, args, 0);
  }

  /* The double binary tree (sim.collectives = tree; broadcast and reduce
   * on its first tree, rooted at the root), forwarding on arrival: every
   * slice of both trees a message in step; in fast each slice of an edge
   * takes the share it has in the lock-step tick it would move in, scaled
   * (three passes) by the share it gets among the slices really on the
   * wire beside it (sim/fast_tree.c). Where the first slice's path takes
   * most of the run (LL, 1 MiB: 16 slices a tree, 22 hops deep) the ticks'
   * shares alone were 2.9% slow; now 0.03%. On the 2:1 fat tree fast was
   * faster than step by 1.5% at 64 MiB and 2.6% at LL 1 MiB while SimGrid
   * weighed each flow by its route's latency (step gave intra-rack flows
   * more of a NIC than cross-rack ones); with plain sharing
   * (sim/sg_latency.h) 0.11% and 0.88% (docs/fidelity.md). */
  static const struct {
    const char *what, *path, *op, *bytes;
  } trees[] = {{"flat switch, 32 ranks", "flat", "allreduce", "64MiB"},
               {"fat tree 2:1, 64 ranks", "fat", "allreduce", "64MiB"},
               {"two-level (NVLink, 25 Gbps), 128 ranks", "two", "allreduce", "100MiB"},
               {"racks of different bandwidths (256 ranks)", "racks", "allreduce", "64MiB"},
               {"two-level (NVLink, 25 Gbps), 128 ranks, LL", "two", "allreduce", "1MiB --set sim.protocol=ll"},
               {"two-level (NVLink, 25 Gbps), 128 ranks, LL", "two", "allreduce", "128KiB --set sim.protocol=ll"},
               {"fat tree 2:1, 64 ranks, LL", "fat", "allreduce", "1MiB --set sim.protocol=ll"},
               {"fat tree 2:1, 64 ranks", "fat", "broadcast", "16MiB"},
               {"two-level (NVLink, 25 Gbps), 128 ranks", "two", "reduce", "16MiB"}};
  for (int i = 0; i < 9; i++) {
    char what[200], path[720];
    snprintf(path, sizeof path, "%s/%s.lua", dir, trees[i].path);
    snprintf(what, sizeof what, "%s, %s %s %s", trees[i].what,
             strcmp(trees[i].op, "allreduce") ? "pipelined tree" : "double binary tree", trees[i].op, trees[i].bytes);
    snprintf(args, sizeof args, "--op %s --bytes %s --set sim.collectives=tree", trees[i].op, trees[i].bytes);
    compare_collective(what, path, args, 0);
    compare_tree_replay(what, path, args);
  }
  /* Nodes with a NIC a GPU (DGX A100's links: 8 HDR NICs, NVLink
   * inside): the tree's head GPU carries its node's chain (a route of
   * 1 us) and the flows to other nodes (6 us) on one link. SimGrid 3.32
   * weighs each flow by its route's latency, CM02 too, which no NVLink or
   * InfiniBand arbiter does and fast never did: step gave the chain six
   * times the share of the flows across nodes and was 21% slower than
   * fast here (1.28 against 1.06 ms). hearsay makes SimGrid share plainly
   * under CM02 (sim/sg_latency.h); test_sharing checks that alone. */
  const char *nic = write_lua("nic",
      "cluster { system = 'dgx-a100', nodes = 4, gpus_per_node = 2 }\n"
      "workload { model = 'resnet50', batch = 32 }\nalgorithm { name = 'gradient_allreduce' }\n"
      "run { iterations = 2 }\n");
  compare_collective("DGX A100 links, 4 x 2 ranks, double binary tree allreduce 64 MiB", nic,
                     "--op allreduce --bytes 64MiB --set sim.collectives=tree", 0);
  compare_collective("DGX A100 links, 4 x 2 ranks, double binary tree allreduce 1 MiB (LL128)", nic,
                     "--op allreduce --bytes 1MiB --set sim.collectives=tree --set sim.protocol=ll128", 0);
  /* Whole DGX A100 nodes: the trees run from the 8 NICs' GPUs, 16 runs
   * of a sixteenth each (lowering.c, tree_heads_of), every GPU a head
   * twice and a chain member in the other runs. */
  const char *dgx = write_lua("dgx",
      "cluster { system = 'dgx-a100', nodes = 4 }\n"
      "workload { model = 'resnet50', batch = 32 }\nalgorithm { name = 'gradient_allreduce' }\n"
      "run { iterations = 2 }\n");
  compare_collective("DGX A100, 4 x 8 ranks (8 heads a node), double binary tree allreduce 64 MiB", dgx,
                     "--op allreduce --bytes 64MiB --set sim.collectives=tree", 0);
  compare_collective("DGX A100, 4 x 8 ranks (8 heads a node), double binary tree allreduce 4 MiB (LL128)", dgx,
                     "--op allreduce --bytes 4MiB --set sim.collectives=tree --set sim.protocol=ll128", 0);

  /* Where the credits pace the tree (a window of LL's 32 KiB slices at
   * 2500 Gbps takes less than the 7 us round trip): over 4 one-GPU nodes,
   * broadcast and reduce, one flow per link, so no share to approximate:
   * step and fast to 1e-4 (measured 1e-6; without the credits fast is
   * 3.3% faster). The allreduce over 2 and 4 nodes: each NIC carries one
   * tree's slices going up and the other's coming down, in the same ticks
   * but, paced by the credits, never at once: fast with the ticks' shares
   * alone was 8.5% and 16% slow; with the passes that see who is on the
   * wire, 1e-6 (1e-4 allowed). The NICs deliver their line rate here
   * (efficiency = 1), and the GPUs' PCIe links do not bind them
   * (pcie_bandwidth above the NIC's 312 GB/s): at RDMA's 0.96, or under
   * Ampere's 24 GB/s link, the window no longer paces every slice, and the
   * case is no longer the one it is built to be (fast is then 0.25-0.5%
   * off, within the 2% of the other cases). */
  {
    const char *paced = write_lua("paced",
        "cluster { nodes = 4, gpus_per_node = 1, gpu = { flops = '312TF', pcie_bandwidth = '400GBps' },\n"
        "          intra = { bandwidth = '300GBps', latency = '2us', efficiency = 1 },\n"
        "          inter = { bandwidth = '2500Gbps', latency = '5us', efficiency = 1 } }\n"
        "workload { model = 'resnet50', batch = 64 }\nalgorithm { name = 'gradient_allreduce' }\n"
        "run { iterations = 2 }\nsim { collectives = 'tree', protocol = 'll' }\n");
    tolerance = 1e-4;
    compare_collective("4 one-GPU nodes at 2500 Gbps, credit-paced tree broadcast 1 MiB (LL)", paced,
                       "--op broadcast --bytes 1MiB", 0);
    compare_collective("4 one-GPU nodes at 2500 Gbps, credit-paced tree reduce 1 MiB (LL)", paced,
                       "--op reduce --bytes 1MiB", 0);
    compare_collective("4 one-GPU nodes at 2500 Gbps, credit-paced double binary tree allreduce 1 MiB (LL)", paced,
                       "--op allreduce --bytes 1MiB", 0);
    compare_collective("2 one-GPU nodes at 2500 Gbps, credit-paced double binary tree allreduce 1 MiB (LL)", paced,
                       "--op allreduce --bytes 1MiB --set cluster.nodes=2", 0);
    tolerance = 0.02;
  }

  /* The in-switch allreduce (sim.collectives = nvls) on one node whose
   * switch reduces: the switch a participant of its own in both
   * fidelities (messages in step, records in fast); a training run of
   * bucketed allreduces through it; and the same with a 3x straggler,
   * where fast runs its rounds by messages (select.c). */
  {
    static const char node[] =
        "cluster { nodes = 1, gpus_per_node = 8, nvls = true, gpu = { flops = '312TF', efficiency = 0.35 },\n"
        "          intra = { bandwidth = '300GBps', latency = '2us' }, inter = { bandwidth = '400Gbps' } }\n"
        "workload { model = 'resnet50', batch = 64 }\nalgorithm { name = 'gradient_allreduce' }\n"
        "run { iterations = 3, seed = 1 }\nsim { collectives = 'nvls', protocol = 'simple' }\n";
    const char *nv = write_lua("nvls", node);
    compare_collective("one NVLS node, 8 ranks, in-switch allreduce 64 MiB", nv, "--op allreduce --bytes 64MiB", 0);
    compare_collective("one NVLS node, 8 ranks, in-switch allreduce 1 MiB", nv, "--op allreduce --bytes 1MiB", 0);
    check_spliced_routes("one NVLS node, 8 ranks, halving-doubling", nv,
                         "--op allreduce --bytes 1MiB --set sim.collectives=halving_doubling");
    /* its reduce-scatter and allgather: the scatter's units up are every
     * block's part, the gather's down */
    compare_collective("one NVLS node, 8 ranks, in-switch reduce-scatter 64 MiB", nv, "--op reduce_scatter --bytes 64MiB",
                       0);
    compare_collective("one NVLS node, 8 ranks, in-switch allgather 64 MiB", nv, "--op allgather --bytes 64MiB", 0);
    compare_collective("one NVLS node, 8 ranks, in-switch allgather 1 MiB", nv, "--op allgather --bytes 1MiB", 0);
    compare_training("one NVLS node, 8 ranks, in-switch allreduce training", nv, "");
    compare_training("one NVLS node, 8 ranks, bytegrad (alltoall, in-switch allgather) training", nv,
                     "--set algorithm.name=bytegrad");
    char slow[sizeof node + 64];
    snprintf(slow, sizeof slow, "%sstragglers { { gpu = 3, slowdown = 3 } }\n", node);
    const char *nv_slow = write_lua("nvls-slow", slow);
    compare_training("one NVLS node, 8 ranks, one GPU 3x slower, in-switch allreduce training", nv_slow, "");
  }

  /* Through a fabric that reduces (sim.collectives = collnet): the
   * fabric's switch a participant per rail beside the top switch, on the
   * reference clusters that span nodes; a training run; and one with a 3x
   * straggler (by messages in fast, as the other round schedules). */
  {
    static const struct {
      const char *what, *path, *bytes;
    } nets[] = {{"flat switch, 32 ranks", "flat", "64MiB"},
                {"fat tree 2:1, 64 ranks", "fat", "64MiB"},
                {"two-level (NVLink, 25 Gbps), 128 ranks", "two", "100MiB"},
                {"racks of different bandwidths (256 ranks)", "racks", "64MiB"}};
    const char *sharp = "--set cluster.inter.in_network_reduction=true --set sim.collectives=collnet";
    for (int i = 0; i < 4; i++) {
      char what[200], path[720];
      snprintf(path, sizeof path, "%s/%s.lua", dir, nets[i].path);
      snprintf(what, sizeof what, "%s, in-network allreduce %s", nets[i].what, nets[i].bytes);
      snprintf(args, sizeof args, "--op allreduce --bytes %s %s", nets[i].bytes, sharp);
      /* Every one within 2%, the racks' too since CollNet's chain (the
       * sequential schedule's rails had made fast 4.1% slower there) */
      compare_collective(what, path, args, 0);
    }
    char path[720];
    snprintf(path, sizeof path, "%s/two.lua", dir);
    compare_training("two-level (NVLink, 25 Gbps), 128 ranks, in-network allreduce training", path, sharp);
  }

  /* The NVLS tree (sim.collectives = nvls_tree) across nodes whose
   * switches reduce: every node's switch a participant beside the members,
   * a tick's message to it and its rail's tree flows on one GPU link; on 2
   * nodes (one tree level each way) and 3 (a node inner in one tree), and
   * a training run. */
  {
    static const char nodes[] =
        "cluster { nodes = 2, gpus_per_node = 8, nvls = true, gpu = { flops = '312TF', efficiency = 0.35 },\n"
        "          intra = { bandwidth = '450GBps', latency = '2us' },\n"
        "          inter = { bandwidth = '400Gbps', latency = '5us', nics_per_node = 8 } }\n"
        "workload { model = 'resnet50', batch = 64 }\nalgorithm { name = 'gradient_allreduce' }\n"
        "run { iterations = 3, seed = 1 }\nsim { collectives = 'nvls_tree' }\n";
    const char *nt = write_lua("nvls-tree", nodes);
    compare_collective("2 NVLS nodes, 16 ranks, NVLS tree allreduce 256 MiB", nt, "--op allreduce --bytes 256MiB", 0);
    compare_collective("2 NVLS nodes, 16 ranks, NVLS tree allreduce 1 MiB", nt, "--op allreduce --bytes 1MiB", 0);
    compare_collective("3 NVLS nodes, 24 ranks, NVLS tree allreduce 64 MiB", nt,
                       "--op allreduce --bytes 64MiB --set cluster.nodes=3", 0);
    compare_training("2 NVLS nodes, 16 ranks, NVLS tree allreduce training", nt, "");
  }

  /* With the tuner (the default), a straggler and a fabric that reduces,
   * fast runs the round schedules it picks for some buckets (CollNet) by
   * messages and the rest (rings, trees) without: the summary says both. */
  {
    const char *mix = write_lua("mix",
        "cluster { nodes = 4, gpus_per_node = 8, gpu = { flops = '312TF', efficiency = 0.35 },\n"
        "          intra = { bandwidth = '300GBps', latency = '2us' },\n"
        "          inter = { bandwidth = '100Gbps', latency = '5us', in_network_reduction = true } }\n"
        "workload { model = 'resnet50', batch = 64 }\n"
        "algorithm { name = 'gradient_allreduce', bucket_size = '4MiB' }\n"
        "run { iterations = 3, seed = 1 }\nstragglers { { gpu = 9, slowdown = 3 } }\nsim { fidelity = 'fast' }\n");
    char out[800], buf[1 << 16];
    snprintf(out, sizeof out, "%s/mix", dir);
    double t = run_time(mix, "", out);
    snprintf(out, sizeof out, "%s/mix/summary.json", dir);
    size_t got = hs_test_slurp(out, buf, sizeof buf);
    tap_ok(got > 0 && t > 0 && strstr(buf, "\"fidelity\": \"fast+step\"") != NULL,
           "auto with a straggler: some picks run by messages, the summary says fast+step");
  }

  /* Rails that share a NIC (fast_ring.h): the hierarchical allreduce's
   * eight rail rings cross each node's NIC together, and one GPU 3% slow
   * holds its node's reduce-scatter, so the rails leave it at their own
   * times. Step gives a rail the whole NIC while the others are not on
   * it; fast times the rails together, sharing the NIC as their units
   * cross it, and agrees with step to rounding (1e-8 here). With the
   * shares fixed for the whole ring, as before, the run was 0.68% slower
   * than step (each bucket's allreduce up to 21%): hence 1e-4, which
   * that fails and rounding does not approach. */
  {
    const char *rails = write_lua("rails",
        "cluster { nodes = 4, gpus_per_node = 8,\n"
        "          gpu = { flops = '312TF', efficiency = 0.35, variability = 0 },\n"
        "          intra = { bandwidth = '300GBps', latency = '2us' },\n"
        "          inter = { bandwidth = '200Gbps', latency = '5us', topology = 'flat' },\n"
        "          gpu_speed = { { gpu = 5, factor = 0.97 } } }\n"
        "workload { model = 'resnet50', batch = 64 }\n"
        "algorithm { name = 'gradient_allreduce', bucket_size = '25MiB', overlap = true }\n"
        "run { iterations = 3, seed = 1 }\nsim { collectives = 'hierarchical' }\n");
    compare_training_within("rails sharing a NIC, 4 x 8 ranks, one GPU 3% slow, hierarchical allreduce training",
                            rails, "", 1e-4);
    /* The same on a 2:1 fat tree of racks of 2 with the default spread
     * of GPU speeds: the NICs are the rails' pools, and the uplinks they
     * also cross, where no rail is bound, keep their fixed shares: 1.5e-5
     * off step (1.5% with the shares fixed), hence 1e-3. */
    compare_training_within("rails sharing a NIC, 8 x 8 ranks, 2:1 fat tree, GPUs spread 8%, hierarchical allreduce training",
                     rails,
                     "--set cluster.nodes=8 --set cluster.inter.topology=fat_tree --set cluster.inter.rack_size=2 "
                     "--set cluster.inter.oversubscription=2 --set cluster.gpu.variability=0.08", 1e-3);
  }

  /* Stragglers: arrival times differ at every collective, DDP's two
   * buffer broadcasts before forward included: pipelined chains whose
   * ranks arrive unevenly (each rank posts the second when its part of
   * the first ends). Fast releases a chain's members one by one
   * (fast_chain.h) from a schedule's second call on; timed whole, as its
   * first call still is, the 3x straggler's case was 2.5% off step
   * (docs/fidelity.md), and it is 0.5% off now, all of it iteration 0's
   * (run with HS_FAST_CHAIN_WHOLE=1 to see it fail). */
  static const char *const stragglers[][2] = {{"one GPU 3x slower", "{ gpu = 9, slowdown = 3 }"},
                                              {"lognormal noise per GPU per iteration",
                                               "{ noise = 'lognormal', sigma = 0.5 }"}};
  for (int i = 0; i < 2; i++) {
    char lua[1024], what[128];
    snprintf(lua, sizeof lua,
             "cluster { nodes = 16, gpus_per_node = 8, gpu = { flops = '312TF', efficiency = 0.35 },\n"
             "          intra = { bandwidth = '300GBps', latency = '2us' },\n"
             "          inter = { bandwidth = '100Gbps', latency = '5us' } }\n"
             "workload { model = 'resnet50', batch = 64 }\n"
             "algorithm { name = 'gradient_allreduce' }\n"
             "run { iterations = 5, seed = 1 }\nstragglers { %s }\n", stragglers[i][1]);
    const char *path = write_lua(i ? "noise" : "slow", lua);
    /* The tree is timed by fast whatever the arrivals (its replay forwards
     * on arrival, select.h); halving_doubling and collnet: with stragglers
     * fast runs them message by message (select.c), so both sides are step
     * and agree exactly; the check is that the summary says so. */
    static const char *const lowerings[] = {"ring", "hierarchical", "tree", "halving_doubling", "collnet"};
    for (int h = 0; h < (i == 0 ? 5 : 4); h++) { /* collnet, like halving_doubling, once is enough */
      char set[160];
      snprintf(what, sizeof what, "%s, 128 ranks, %s lowering", stragglers[i][0], lowerings[h]);
      snprintf(set, sizeof set, "--set sim.collectives=%s%s", lowerings[h],
               h == 4 ? " --set cluster.inter.in_network_reduction=true" : "");
      compare_training(what, path, set);
      if (h >= 2) {
        char summary[900], buf[1 << 16];
        snprintf(summary, sizeof summary, "%s/fast/summary.json", dir);
        size_t got = hs_test_slurp(summary, buf, sizeof buf);
        if (h == 2)
          tap_ok(got > 0 && strstr(buf, "\"fidelity\": \"fast\"") != NULL,
                 "%s: the summary says fast (the tree is timed under stragglers)", what);
        else
          tap_ok(got > 0 && strstr(buf, "\"fidelity\": \"step\"") != NULL,
                 "%s: asked for fast, the summary says step (round schedules are not timed under stragglers)", what);
      }
    }
  }
  return tap_done(0);
}
