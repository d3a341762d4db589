/* test_ps_placement.c — where parameter servers run, and the bytes each
 * placement sends through each node's NIC (algos/parameter_server.c, ps_server.c, ps_host.c).
 *
 * 4 nodes x 4 GPUs, softmax with P = 330 parameters (M = 4P bytes), 5
 * synchronous iterations, message by message (sim.fidelity = "step", so
 * the simulator's transport counts every byte that leaves a node:
 * hs_sim_stats.nic_sent). Server j owns slice j of what is exchanged,
 * s_j = floor(P (j+1) / S) - floor(P j / S) parameters. Per iteration the
 * designs say, for node a (and server machine k):
 *   gpus, 1 server (rank 15, on node 3): every worker pushes M and the
 *     server pulls M back to each of the 12 workers off its node:
 *     4M, 4M, 4M and 12M;
 *   colocated (a CPU server on every node): each of a node's 4 workers
 *     pushes every slice but its own node's, and the node's server
 *     returns its slice to the 12 workers elsewhere:
 *     4 * 4(P - s_a) + 12 * 4 s_a;
 *   colocated + aggregate: only the node's first worker pushes (its
 *     node's sum, reduced over NVLink) and its server returns its slice to
 *     the 3 other leaders: 4(P - s_a) + 3 * 4 s_a, the bytes of an
 *     allreduce (BytePS's point);
 *   machines, 2 servers: every worker pushes M through the NIC: 16P; server
 *     machine k pulls 4 s_k to each of the 16 workers: 64 s_k;
 *   machines + aggregate: 4P per node, 16 s_k per machine.
 * All are byte counts: compared exactly. Then the time a CPU server's
 * kernels take is its bytes over cluster.host.memory_bandwidth (a sum of
 * the pushes and the SGD step), and the PCIe link to a colocated server
 * (cluster.host.bandwidth) slows colocated but not GPU servers. Last, the
 * NIC's place in a PCIe node (cluster.intra.nic_switch) in a run's time:
 * the pushing GPU's own link, or its switch's uplink. BytePS's host path
 * (pcie_switch_size): the same bytes through the NICs, its copies
 * charged, and on a PCIe tree the crossing it avoids. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "algos/algorithm.h"
#include "algos/report/metrics.h"
#include "algos/train/train.h"
#include "algos/workloads/dataset.h"
#include "algos/workloads/model.h"
#include "tests/harness.h"
#include "tests/tap.h"

#define P 330.0
#define ITERS 5
/* ResNet-50's parameters as scenarios/models builds it, torchvision's
 * count (test_models checks it): the timing-only cases' M is 4 x this */
#define RESNET50_PARAMS 25557032.0
#define NODES 4

typedef struct {
  int ok, ranks, ranks_done;
  double time;
  double nic[HS_SIM_NIC_TRACKED];
  float params[(int)P]; /* rank 0's final weights */
} result;

typedef struct {
  const hs_scenario *sc;
  result *out;
  hs_train_job job;
} run_job;

static void rank_main(hs_worker *w, void *arg) { hs_train_worker(w, &((run_job *)arg)->job); }

static void child(void *arg, FILE *report) {
  run_job *j = arg;
  const hs_scenario *sc = j->sc;
  char err[256] = "";
  hs_dataset *ds = hs_dataset_create(&sc->workload, sc->run.seed, hs_algorithm_workers(sc), err, sizeof err);
  hs_metrics *m = hs_metrics_create(hs_algorithm_max_iterations(sc), hs_model_tracked_params(&sc->workload));
  j->job = (hs_train_job){.sc = sc, .ds = ds, .metrics = m, .final_params = j->out->params, .stragglers = 1};
  hs_sim_stats stats = {0};
  hs_test_simulate(sc, 0, rank_main, j, &stats, NULL);
  hs_metrics_summary s;
  hs_metrics_summarize(m, sc->workload.batch, 0, &s);
  j->out->ranks = hs_scenario_ranks(sc);
  j->out->ranks_done = j->job.ranks_done;
  j->out->time = s.total_time;
  memcpy(j->out->nic, stats.nic_sent, sizeof stats.nic_sent);
  j->out->ok = j->job.ranks_done == hs_scenario_ranks(sc);
  hs_report(report, j->out->ok, "%d of %d ranks ran to the end", j->job.ranks_done, hs_scenario_ranks(sc));
  hs_metrics_free(m);
  hs_dataset_free(ds);
}

/* Runs the scenario with these algorithm options (and cluster extras);
 * NULL when it did not load or run. */
static result *run_nodes(const char *what, int nodes, const char *gpu, const char *workload, const char *options,
                         const char *cluster_extra) {
  char lua[2048];
  snprintf(lua, sizeof lua,
           "cluster { nodes = %d, gpus_per_node = 4, gpu = { flops = '%s' }, inter = { bandwidth = '10Gbps' } %s }\n"
           "workload { %s }\nalgorithm { name = 'parameter_server' %s }\n"
           "run { iterations = %d, seed = 2 }\nsim { fidelity = 'step' }\n",
           nodes, gpu, cluster_extra, workload, options, ITERS);
  hs_scenario sc;
  if (hs_test_load(lua, &sc)) {
    tap_ok(0, "%s: scenario loads", what);
    return NULL;
  }
  result *r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  memset(r, 0, sizeof *r);
  run_job j = {.sc = &sc, .out = r};
  hs_test_in_child(what, child, &j, 120);
  hs_scenario_free(&sc);
  if (!r->ok) {
    tap_ok(0, "%s: every rank ran to the end (%d of %d)", what, r->ranks_done, r->ranks);
    munmap(r, sizeof *r);
    return NULL;
  }
  return r;
}

static result *run_on(const char *what, const char *gpu, const char *workload, const char *options,
                      const char *cluster_extra) {
  return run_nodes(what, NODES, gpu, workload, options, cluster_extra);
}

static result *run(const char *what, const char *options, const char *cluster_extra) {
  return run_on(what, "1GF", "model = 'softmax', dataset = { classes = 10, features = 32, samples = 8000 }, batch = 16",
                options, cluster_extra);
}

static double slice(int j, int servers) { return floor(P * (j + 1) / servers) - floor(P * j / servers); }

/* The run's bytes through each NIC against want[] (nodes, then machines). */
static void check_nics(const char *what, const char *options, const double *want, int n, int ranks) {
  result *r = run(what, options, "");
  if (!r) return;
  int same = r->ranks == ranks;
  for (int k = 0; k < n; k++) same &= r->nic[k] == ITERS * want[k];
  for (int k = n; k < HS_SIM_NIC_TRACKED; k++) same &= r->nic[k] == 0;
  tap_ok(same, "%s: %d ranks; bytes out of each NIC per iteration as designed", what, ranks);
  for (int k = 0; k < n && !same; k++) tap_diag("  NIC %d: %.0f, want %.0f", k, r->nic[k] / ITERS, want[k]);
  munmap(r, sizeof *r);
}

int main(void) {
  double want[NODES + 2];

  /* GPU servers: the last GPU (node 3). */
  for (int a = 0; a < NODES; a++) want[a] = a < 3 ? 4 * 4 * P : 12 * 4 * P;
  check_nics("gpus, 1 server", "", want, NODES, 16);

  /* A CPU server on every node. */
  for (int a = 0; a < NODES; a++) want[a] = 4 * 4 * (P - slice(a, NODES)) + 12 * 4 * slice(a, NODES);
  check_nics("colocated", ", placement = 'colocated'", want, NODES, 20);
  for (int a = 0; a < NODES; a++) want[a] = 4 * (P - slice(a, NODES)) + 3 * 4 * slice(a, NODES);
  check_nics("colocated + aggregate", ", placement = 'colocated', aggregate = true", want, NODES, 20);
  /* per bucket: the same bytes, each bucket sliced on its own; 60-byte
   * buckets hold one layer each here (the softmax has one weight matrix
   * and one bias vector), so the sums below are over them */
  {
    double bucket[2] = {320, 10}; /* the weights, then the bias: backward's order */
    for (int a = 0; a < NODES; a++) {
      want[a] = 0;
      for (int b = 0; b < 2; b++) {
        double s = floor(bucket[b] * (a + 1) / NODES) - floor(bucket[b] * a / NODES);
        want[a] += 4 * (bucket[b] - s) + 3 * 4 * s;
      }
    }
    check_nics("colocated + aggregate + overlap", ", placement = 'colocated', aggregate = true, overlap = true, "
               "bucket_size = '60B'", want, NODES, 20);
  }

  /* CPU-only server machines. */
  for (int a = 0; a < NODES; a++) want[a] = 16 * P;
  for (int k = 0; k < 2; k++) want[NODES + k] = 64 * slice(k, 2);
  check_nics("machines, 2 servers", ", placement = 'machines', servers = 2", want, NODES + 2, 18);
  for (int a = 0; a < NODES; a++) want[a] = 4 * P;
  for (int k = 0; k < 2; k++) want[NODES + k] = 16 * slice(k, 2);
  check_nics("machines + aggregate", ", placement = 'machines', servers = 2, aggregate = true", want, NODES + 2, 18);

  /* BytePS's host path (pcie_switch_size = 2: two groups a node): a CPU
   * aggregator on every node pushes the node's sum, so the NICs carry the
   * bytes of machines + aggregate (16 GPUs, 4
   * aggregators, 2 machines: 22 ranks), and the weights are those of the
   * node's first GPU pushing, to float rounding (the sum's order differs:
   * two groups' NCCL reduces added on the CPU; 1e-5 of the largest). */
  {
    const char *plain = ", placement = 'machines', servers = 2, aggregate = true, update = 'workers'";
    const char *host = ", placement = 'machines', servers = 2, aggregate = true, update = 'workers', "
                       "pcie_switch_size = 2";
    check_nics("machines + aggregate + host path", host, want, NODES + 2, 22);
    result *a = run("machines + aggregate", plain, ""), *b = run("machines + aggregate + host path", host, "");
    if (a && b) {
      double most = 0, diff = 0;
      for (int i = 0; i < (int)P; i++) {
        most = fmax(most, fabs(a->params[i]));
        diff = fmax(diff, fabs(a->params[i] - b->params[i]));
      }
      tap_ok(most > 0 && diff <= 1e-5 * most, "host path: the same final weights to rounding (largest difference "
             "%.3g of %.3g)", diff, most);
    }
    /* One machine, no server (BytePS's non-distributed mode across PCIe
     * switches): the host averages the node's two groups and answers; no
     * byte leaves the node, and the weights are the server's. */
    result *one = run_nodes("one node, no server", 1, "1GF", "model = 'softmax', dataset = { classes = 10, features = "
                            "32, samples = 8000 }, batch = 16",
                            ", servers = 0, aggregate = true, update = 'workers', pcie_switch_size = 2", "");
    result *one_srv = run_nodes("one node, a server machine", 1, "1GF", "model = 'softmax', dataset = { classes = 10, "
                                "features = 32, samples = 8000 }, batch = 16", plain, "");
    if (one && one_srv) {
      double most = 0, diff = 0, out = 0;
      for (int i = 0; i < (int)P; i++) {
        most = fmax(most, fabs(one_srv->params[i]));
        diff = fmax(diff, fabs(one->params[i] - one_srv->params[i]));
      }
      for (int k = 0; k < HS_SIM_NIC_TRACKED; k++) out += one->nic[k];
      tap_ok(one->ranks == 5 && out == 0 && most > 0 && diff <= 1e-5 * most,
             "no server: 4 GPUs and the host (%d ranks), %.0f bytes out of the node, the weights of a server's "
             "average to rounding (%.3g of %.3g)", one->ranks, out, diff, most);
    }
    result *all[] = {a, b, one, one_srv};
    for (int i = 0; i < 4; i++)
      if (all[i]) munmap(all[i], sizeof *all[i]);
  }

  /* The host path's copies cost what they move: ResNet-50 (timing only,
   * M = 4 x 25 557 032 bytes) on 4 NVLink nodes, one group a node
   * (pcie_switch_size = 4, BytePS's default on its node), push and pull
   * one after the other (no overlap), 4 server machines on 400 Gb/s. The
   * node's aggregator takes the group's sum in (COPYD2H), pushes it, pulls
   * the answer and copies it back (COPYH2D), each of the four through its
   * link to the node, host.bandwidth: 4M at 2 GB/s against 4 GB/s, an
   * iteration longer by 4M (1/2 - 1/4) ns = 102.2 ms; free copies would
   * leave 2M of it. 0.5%: the latencies of the steps. */
  {
    const char *opts = ", placement = 'machines', servers = 4, aggregate = true, overlap = false, update = 'workers', "
                       "pcie_switch_size = 4";
    result *slow = run_on("host path, host.bandwidth 2 GB/s", "1PF", "model = 'resnet50', batch = 16", opts,
                          ", inter = { bandwidth = '400Gbps' }, host = { bandwidth = '2GBps' }");
    result *fast = run_on("host path, host.bandwidth 4 GB/s", "1PF", "model = 'resnet50', batch = 16", opts,
                          ", inter = { bandwidth = '400Gbps' }, host = { bandwidth = '4GBps' }");
    if (slow && fast) {
      double gap = (slow->time - fast->time) / ITERS, want_gap = 4 * 4 * RESNET50_PARAMS * (1 / 2e9 - 1 / 4e9);
      tap_ok(fabs(gap - want_gap) <= 0.005 * want_gap,
             "host path: the copies to and from host memory and the push and pull from there cross host.bandwidth: "
             "%.4g ms an iteration more at 2 GB/s than at 4, want %.4g", gap * 1e3, want_gap * 1e3);
    }
    if (slow) munmap(slow, sizeof *slow);
    if (fast) munmap(fast, sizeof *fast);
  }

  /* On a PCIe node of two switches whose GPUs NCCL joins only under one
   * switch (p2p_level = 'pxb'), the node's NCCL reduce crosses between
   * the switches through host memory at host.staging_bandwidth, 3.9 GB/s,
   * where BytePS's groups of a switch reduce peer to peer and the host
   * adds the two copies: ResNet-50 on 4 nodes of 4 GPUs, 2 switches, 2
   * Intel sockets, 400 Gb/s NICs, 4 server machines. The node's reduce
   * and broadcast of M at the staged rate take at least 2M / 3.9 GB/s =
   * 52 ms an iteration; the host path's copies, each up its own switch's
   * uplink, about 2M / 10 GB/s (20 ms). Its iteration is shorter by at
   * least 20 ms. */
  {
    const char *tree = ", cpu = 'intel', inter = { bandwidth = '400Gbps' }, intra = { bandwidth = '15.754GBps', "
                       "link = 'pcie', pcie_switches = 2, sockets = 2, p2p_level = 'pxb' }";
    const char *opts = ", placement = 'machines', servers = 4, aggregate = true, overlap = false, update = 'workers', "
                       "pcie_switch_size = %d";
    char o0[300], o2[300];
    snprintf(o0, sizeof o0, opts, 0), snprintf(o2, sizeof o2, opts, 2);
    result *node = run_on("PCIe tree, the node's NCCL reduce", "1PF", "model = 'resnet50', batch = 16", o0, tree);
    result *host = run_on("PCIe tree, a reduce a switch and the host's sum", "1PF", "model = 'resnet50', batch = 16",
                          o2, tree);
    if (node && host) {
      double a = node->time / ITERS, b = host->time / ITERS;
      tap_ok(a - b >= 0.020, "PCIe tree: the host path's iteration %.4g ms, the node's NCCL reduce across the "
             "switches %.4g ms (at least 20 ms more)", b * 1e3, a * 1e3);
    }
    if (node) munmap(node, sizeof *node);
    if (host) munmap(host, sizeof *host);
  }

  /* A GPU's budget through host memory (scenarios/net_transport.h): on
   * one PCIe node of 4 GPUs without peer access (one node: no connection
   * across nodes, so every byte a GPU moves goes through host memory),
   * BytePS on one machine (servers = 0, the node's 4 GPUs one group)
   * reduces ResNet-50's M = 102 MB onto the group's first GPU through host
   * memory, copies it there, gets the average back and broadcasts it,
   * bucket after bucket once backward is done (pipeline): that GPU's link
   * moves 4M an iteration, the reduce's M in, the copy's M out, the
   * answer's M in and the broadcast's M out, all out of one budget of 2 x
   * host.staging_bandwidth, 7.8 GB/s, so an iteration takes at least
   * 4M / 7.8 GB/s = 52.4 ms. Each way apart at its own rates (the staged
   * hops at 3.9 GB/s, the copies at host.bandwidth) it was 41 ms (before
   * the budget, 2026-11-29). With peer access the link is split-duplex
   * and the reduce and broadcast run peer to peer: well under it. */
  {
    const char *opts = ", servers = 0, aggregate = true, pipeline = true, update = 'workers', pcie_switch_size = 4";
    const char *node = ", intra = { bandwidth = '15.754GBps', link = 'pcie', p2p = %s }, inter = { bandwidth = '100Gbps' }";
    char staged[300], direct[300];
    snprintf(staged, sizeof staged, node, "false"), snprintf(direct, sizeof direct, node, "true");
    result *a = run_nodes("one PCIe node, every byte through host memory", 1, "1PF", "model = 'resnet50', batch = 16",
                          opts, staged);
    result *b = run_nodes("one PCIe node, peer access", 1, "1PF", "model = 'resnet50', batch = 16", opts, direct);
    if (a && b) {
      double m = 4 * RESNET50_PARAMS, budget = 2 * 3.9e9, ta = a->time / ITERS, tb = b->time / ITERS;
      tap_ok(ta >= 4 * m / budget && tb < 4 * m / budget,
             "a GPU's traffic through host memory shares one budget both ways: %.4g ms an iteration (at least "
             "%.4g), %.4g ms with peer access (under it)", ta * 1e3, 4 * m / budget * 1e3, tb * 1e3);
    }
    if (a) munmap(a, sizeof *a);
    if (b) munmap(b, sizeof *b);
  }

  /* update = "workers": the servers return the average gradient and every
   * worker steps on it (BytePS's summation service): the same bytes
   * through every NIC and, SGD being the same kernel on the same numbers,
   * bit for bit the same weights as the servers' step. */
  {
    result *srv = run("machines + aggregate, servers step", ", placement = 'machines', servers = 2, aggregate = true", "");
    result *wrk = run("machines + aggregate, workers step",
                      ", placement = 'machines', servers = 2, aggregate = true, update = 'workers'", "");
    if (srv && wrk) {
      tap_ok(memcmp(srv->nic, wrk->nic, sizeof srv->nic) == 0, "update = workers: the same bytes out of every NIC");
      tap_ok(memcmp(srv->params, wrk->params, sizeof srv->params) == 0 && srv->params[0] != 0,
             "update = workers: the same final weights, bit for bit (w[0] = %.9g)", wrk->params[0]);
    }
    if (srv) munmap(srv, sizeof *srv);
    if (wrk) munmap(wrk, sizeof *wrk);
  }

  /* A CPU server's kernels: per iteration it reads the 16 pushes and
   * writes their average (4 * 17 * P bytes), then runs SGD with momentum
   * on its P parameters (20 bytes each), at the host's memory bandwidth,
   * on the critical path of every iteration. Halving the bandwidth adds
   * exactly that much again; 1e-9 s covers rounding of the clock. */
  {
    result *slow = run("machines, host memory 1 GB/s", ", placement = 'machines'", ", host = { memory_bandwidth = '1GBps' }");
    result *fast = run("machines, host memory 2 GB/s", ", placement = 'machines'", ", host = { memory_bandwidth = '2GBps' }");
    if (slow && fast) {
      double bytes = 4 * 17 * P + 20 * P, want_gap = ITERS * (bytes / 1e9 - bytes / 2e9);
      tap_ok(fabs((slow->time - fast->time) - want_gap) < 1e-9,
             "a CPU server's sum and update cost their bytes at host.memory_bandwidth: %.9g s slower, want %.9g",
             slow->time - fast->time, want_gap);
    }
    if (slow) munmap(slow, sizeof *slow);
    if (fast) munmap(fast, sizeof *fast);
  }

  /* PCIe to a colocated server: its bytes cross it, a GPU server's do not.
   * At 100 MB/s the server's pulls alone (16 x 4 s_a, about 5.3 kB an
   * iteration) take about 53 us, more than a whole iteration at the
   * default (about 49 us): the run at least doubles; 1.5 leaves margin. */
  {
    const char *narrow = ", host = { bandwidth = '100MBps' }";
    result *co = run("colocated", ", placement = 'colocated'", ""),
           *co_narrow = run("colocated, PCIe 100 MB/s", ", placement = 'colocated'", narrow),
           *gpu = run("gpus", "", ""), *gpu_narrow = run("gpus, PCIe 100 MB/s", "", narrow);
    if (co && co_narrow && gpu && gpu_narrow) {
      tap_ok(co_narrow->time > 1.5 * co->time, "a colocated server's traffic crosses host.bandwidth (%.3g s at 100 "
             "MB/s, %.3g s at the default)", co_narrow->time, co->time);
      tap_ok(gpu_narrow->time == gpu->time, "a GPU server's does not (%.9g s either way)", gpu->time);
    }
    result *all[] = {co, co_narrow, gpu, gpu_narrow};
    for (int i = 0; i < 4; i++)
      if (all[i]) munmap(all[i], sizeof *all[i]);
  }

  /* Push and pull pipeline as BytePS's stages do: the push of one bucket
   * and the pull of the one before share the NICs, one each way. ResNet-50
   * (timing only) in BytePS's 4000 KiB partitions, one server machine,
   * aggregated (4 leaders), 1 Gb/s NICs at rdma's 0.96, GPUs so fast that
   * compute is nothing: the machine's NIC takes the 4 leaders' pushes in
   * and sends their pulls out, a one-way time T of its bytes out (counted)
   * over 0.96 Gb/s, 3.4 s, beside which the NVLink reduce and broadcast
   * (under 2 ms) and latencies are nothing. Both ways at once, an
   * iteration takes T and the largest bucket's push before the first pull
   * and pull after the last push (under 10% of the model); one after the
   * other, as a unit that waits for its pull before the next push, 2T.
   * Bounds: [T, 1.25 T]. The same with pipeline (the buckets sent once
   * backward is done, which here takes no time), with the same bytes;
   * the whole model as one unit takes [1.9 T, 2.1 T]. */
  {
    const char *opts[3] = {", placement = 'machines', aggregate = true, overlap = true, update = 'workers'",
                           ", placement = 'machines', aggregate = true, pipeline = true, update = 'workers'",
                           ", placement = 'machines', aggregate = true, update = 'workers'"};
    const char *what[3] = {"overlap", "pipeline", "one unit"};
    result *r[3];
    for (int i = 0; i < 3; i++)
      r[i] = run_on(what[i], "1PF", "model = 'resnet50', batch = 16", opts[i], ", inter = { bandwidth = '1Gbps' }");
    if (r[0] && r[1] && r[2]) {
      double T = r[0]->nic[NODES] / ITERS / (1e9 / 8 * 0.96);
      for (int i = 0; i < 2; i++) {
        double it = r[i]->time / ITERS;
        tap_ok(T > 1 && it >= T && it <= 1.25 * T, "%s: push of a bucket beside the pull of the one before: %.4g s "
               "an iteration, in [T, 1.25 T], T = %.4g s (one after the other: 2T)", what[i], it, T);
      }
      double one = r[2]->time / ITERS;
      tap_ok(memcmp(r[1]->nic, r[0]->nic, sizeof r[0]->nic) == 0 && one >= 1.9 * T && one <= 2.1 * T,
             "pipeline sends overlap's bytes; the model as one unit takes %.4g s, in [1.9 T, 2.1 T]", one);
    }
    for (int i = 0; i < 3; i++)
      if (r[i]) munmap(r[i], sizeof *r[i]);
    /* With compute (100 GF/s GPUs: 4 s an iteration, backward 2.7 s of
     * it) overlap hides the exchange (T = 3.4 s) behind backward, pipeline
     * starts it after: 5.05 s against 7.69 s, of which at least 2 s is
     * backward no longer hiding anything. */
    result *ov = run_on("overlap, 100 GF/s", "100GF", "model = 'resnet50', batch = 16", opts[0],
                        ", inter = { bandwidth = '1Gbps' }");
    result *pl = run_on("pipeline, 100 GF/s", "100GF", "model = 'resnet50', batch = 16", opts[1],
                        ", inter = { bandwidth = '1Gbps' }");
    if (ov && pl)
      tap_ok(pl->time / ITERS - ov->time / ITERS >= 2.0, "pipeline waits for backward, overlap does not: %.4g s "
             "against %.4g s an iteration", pl->time / ITERS, ov->time / ITERS);
    if (ov) munmap(ov, sizeof *ov);
    if (pl) munmap(pl, sizeof *pl);
  }

  /* Where the NIC hangs in a PCIe node (cluster.intra.nic_switch), seen
   * in a run's time: 4 nodes of 4 GPUs under 2 switches on 2 Intel
   * sockets, ResNet-50 (timing only) aggregated onto each node's first
   * worker, GPU 0 under switch 0, which alone pushes and pulls the node's
   * M = 4 x 25 557 032 bytes; push and pull one after the other, NICs of
   * 400 Gb/s and 4 server machines, so GPU 0's path to the NIC binds.
   * With the NIC on the root or under switch 1 that path climbs switch
   * 0's uplink at 5/6 of a GPU link on Intel, 10 GB/s; under switch 0 it
   * is GPU 0's own link, 12 GB/s: an iteration shorter by 2M (1/10 -
   * 1/12) ns = 3.408 ms, all else the same (0.5%: the bucket pipeline's
   * latencies). */
  {
    const char *tree = ", cpu = 'intel', inter = { bandwidth = '400Gbps' }, intra = { bandwidth = '15.754GBps', "
                       "link = 'pcie', pcie_switches = 2, sockets = 2%s }";
    const char *opts = ", placement = 'machines', servers = 4, aggregate = true, overlap = false, update = 'workers'";
    char extra[3][300];
    const char *where[3] = {"", ", nic_switch = 0", ", nic_switch = 1"};
    result *r[3];
    for (int i = 0; i < 3; i++) {
      snprintf(extra[i], sizeof extra[i], tree, where[i]);
      r[i] = run_on(where[i][0] ? where[i] + 2 : "NIC on the root", "1PF", "model = 'resnet50', batch = 16", opts,
                    extra[i]);
    }
    if (r[0] && r[1] && r[2]) {
      double root = r[0]->time / ITERS, under0 = r[1]->time / ITERS, under1 = r[2]->time / ITERS;
      double want = 2 * 4 * RESNET50_PARAMS * (1 / 10e9 - 1 / 12e9);
      /* the same to rounding: the two runs sum the same times in another order */
      tap_ok(fabs((root - under0) - want) <= 0.005 * want && fabs(under1 - root) <= 1e-9 * root,
             "the NIC under the pushing GPU's switch: %.4g ms an iteration shorter than on the root (%.4g ms: its "
             "own link, not the uplink); under the other switch, the same as on the root (%.9g s, %.9g s)",
             (root - under0) * 1e3, want * 1e3, under1, root);
    }
    for (int i = 0; i < 3; i++)
      if (r[i]) munmap(r[i], sizeof *r[i]);
  }

  /* Bad placements: file, line, key, exit 2 as every scenario error. */
  static const char *const refused[][2] = {
      {"placement = 'colocated', servers = 2", "colocated with a server count is refused"},
      {"mode = 'async', aggregate = true", "aggregate needs mode = sync"},
      {"mode = 'async', update = 'workers'", "update = workers needs mode = sync"},
      {"pcie_switch_size = 4", "pcie_switch_size needs aggregate"},
      {"servers = 0, aggregate = true", "servers = 0 needs the host path"},
      {"servers = 0, aggregate = true, pcie_switch_size = 4, update = 'workers'", "servers = 0 needs one node"},
      {"overlap = true, pipeline = true", "pipeline and overlap are refused together"},
      {"mode = 'async', pipeline = true", "pipeline needs mode = sync"},
  };
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    char lua[512];
    snprintf(lua, sizeof lua,
             "cluster { nodes = 2, gpu = { flops = '1GF' }, inter = { bandwidth = '1Gbps' } }\n"
             "workload { model = 'resnet50' }\nalgorithm { name = 'parameter_server', %s }\nrun { iterations = 1 }\n",
             refused[i][0]);
    hs_scenario sc;
    tap_ok(hs_test_load(lua, &sc) != 0, "%s", refused[i][1]);
  }
  return tap_done(0);
}
