/* test_transport.c — what transfers get of the line rates, and what TCP
 * costs besides (scenarios/net_transport.c): the loader's defaults per
 * transport and GPU generation, a scenario's own values, the bound on one
 * connection, and a collective over two nodes on RDMA and on TCP, in step
 * and fast, against the closed forms those parameters give. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scenarios/links.h"
#include "scenarios/loader.h"
#include "scenarios/net_transport.h"
#include "tests/harness.h"
#include "tests/tap.h"

static char dir[600];

static int load(const char *cluster, hs_scenario *sc) {
  char path[700];
  snprintf(path, sizeof path, "%s/scenario.lua", dir);
  FILE *f = fopen(path, "w");
  fprintf(f, "%s\nworkload { model = 'resnet50' }\nalgorithm { name = 'gradient_allreduce' }\nrun { iterations = 1 }\n",
          cluster);
  fclose(f);
  return hs_scenario_load(path, NULL, 0, sc);
}

/* Loads the cluster into sc: 1, or 0 after a failed check saying so. */
static int loaded(const char *cluster, hs_scenario *sc) {
  if (load(cluster, sc) == 0) return 1;
  tap_ok(0, "the scenario loads: %s", cluster);
  return 0;
}

/* `hearsay collective` on the scenario: its simulated time, NAN on failure. */
static double collective(const char *cluster, const char *args) {
  char path[700], result[2048];
  snprintf(path, sizeof path, "%s/c.lua", dir);
  FILE *f = fopen(path, "w");
  fprintf(f, "%s\nworkload { model = 'resnet50' }\nalgorithm { name = 'gradient_allreduce' }\nrun { iterations = 1 }\n",
          cluster);
  fclose(f);
  if (hs_test_collective(path, args, result, sizeof result, NULL)) return NAN;
  return hs_test_result_value(result, "sim_s");
}

/* `hearsay collective` of `what` (its --op and --bytes, and --sets) at
 * fidelity step or fast. */
static double collective_at(const char *cluster, const char *what, int fast) {
  char args[512];
  snprintf(args, sizeof args, "%s --set sim.fidelity=%s", what, fast ? "fast" : "step");
  return collective(cluster, args);
}

static int near(double got, double want, double tol) { return fabs(got - want) <= tol * fabs(want); }

/* The bus bandwidth of a ring allreduce of 1 GiB over the cluster's
 * `ranks` GPUs, as nccl-tests reports it: 2 (n - 1) / n x bytes / time. */
static double ring_busbw(const char *cluster, int ranks, int fast) {
  double t = collective_at(cluster, "--op allreduce --bytes 1GiB --set sim.collectives=ring", fast);
  return 2.0 * (ranks - 1) / ranks * 1073741824.0 / t;
}

/* Whether the way from b back to a takes a's way to b's links the other
 * way round, every id within hs_links_count. */
static int route_mirrored(const hs_cluster_spec *c, int a, int b) {
  hs_hop there[HS_ROUTE_MAX], back[HS_ROUTE_MAX];
  int k = hs_links_route(c, a, b, there), ok = k == hs_links_route(c, b, a, back);
  for (int i = 0; i < k && ok; i++)
    ok = there[i].id == (back[k - 1 - i].id ^ 1) && there[i].id >= 0 && there[i].id < hs_links_count(c);
  return ok;
}

int main(void) {
  snprintf(dir, sizeof dir, "%s", hs_test_tmpdir());
  hs_scenario sc;
  const double tcp_eff = 1448.0 / 1538.0;

  /* Defaults: each transport's published values, NVLink's by generation. */
  int rc = load("cluster { nodes = 2, gpu = { flops = '1TF' }, inter = { bandwidth = '100Gbps' } }", &sc);
  tap_ok(rc == 0 && sc.cluster.transport.kind == HS_NET_RDMA && sc.cluster.transport.efficiency == 0.96 &&
             sc.cluster.transport.stream_bandwidth == 0 && sc.cluster.transport.message_cost == 0 &&
             sc.cluster.intra_efficiency == 0.8,
         "default: RDMA at 0.96 of the line rate, no bound per connection, nothing per message; NVLink (Ampere) 0.8");
  if (rc == 0) hs_scenario_free(&sc);
  rc = load("cluster { nodes = 2, gpu = { flops = '1TF', arch = 'hopper' },\n"
            "  inter = { bandwidth = '100Gbps', transport = 'tcp' } }", &sc);
  tap_ok(rc == 0 && sc.cluster.transport.kind == HS_NET_TCP && sc.cluster.transport.efficiency == tcp_eff &&
             sc.cluster.transport.stream_bandwidth == 2.06e9 && sc.cluster.transport.socket_threads == 0 &&
             sc.cluster.transport.message_cost == 34e-6 && sc.cluster.intra_efficiency == 20.6 / 25,
         "tcp: 1448 / 1538 of the line rate, the GPU's proxy thread at 2.06 GB/s for all its connections, 34 us a "
         "message; NVLink (Hopper) 20.6 / 25");
  if (rc == 0) hs_scenario_free(&sc);
  rc = load("cluster { nodes = 2, gpu = { flops = '1TF', arch = 'pascal' }, inter = { bandwidth = '25Gbps' } }", &sc);
  tap_ok(rc == 0 && sc.cluster.intra_efficiency == 18.0 / 20 && sc.cluster.gpu_memory_bandwidth == 732e9,
         "Pascal: NVLink 1.0 at 18 / 20 (NCCL's SM60_NVLINK_BW), HBM2 at 732 GB/s");
  if (rc == 0) hs_scenario_free(&sc);
  rc = load("cluster { nodes = 2, gpu = { flops = '1TF', arch = 'pascal' }, intra = { link = 'pcie' },\n"
            "  inter = { bandwidth = '25Gbps' } }", &sc);
  tap_ok(rc == 0 && sc.cluster.intra_link == HS_INTRA_PCIE && sc.cluster.intra_efficiency == 12.0 / 15.754,
         "PCIe: NCCL's PCI_BW 12 GB/s of PCIe 3.0 x16's 15.754");
  if (rc == 0) hs_scenario_free(&sc);
  /* NVLS: NCCL's nvlsEfficiency (0.85 Hopper, 0.74 Blackwell) x (g - 1)/g
   * for g GPUs a node (tuning.cc), exact in double as computed */
  rc = load("cluster { nodes = 1, gpus_per_node = 8, nvls = true, gpu = { flops = '1TF', arch = 'hopper' },\n"
            "  inter = { bandwidth = '400Gbps' } }", &sc);
  tap_ok(rc == 0 && sc.cluster.nvls_efficiency == 0.85 * 7 / 8, "NVLS on 8 H100s: 0.85 x 7/8 (%.6g)",
         rc == 0 ? sc.cluster.nvls_efficiency : NAN);
  if (rc == 0) hs_scenario_free(&sc);
  rc = load("cluster { nodes = 1, gpus_per_node = 4, nvls = true, gpu = { flops = '1TF', arch = 'blackwell' },\n"
            "  inter = { bandwidth = '400Gbps' } }", &sc);
  tap_ok(rc == 0 && sc.cluster.nvls_efficiency == 0.74 * 3 / 4, "NVLS on 4 Blackwell GPUs: 0.74 x 3/4 (%.6g)",
         rc == 0 ? sc.cluster.nvls_efficiency : NAN);
  if (rc == 0) hs_scenario_free(&sc);
  rc = load("cluster { nodes = 2, gpu = { flops = '1TF', arch = 'volta' }, intra = { efficiency = 0.7, nvls_efficiency = 0.5 },\n"
            "  inter = { bandwidth = '100Gbps', transport = 'tcp', efficiency = 0.9, stream_bandwidth = '10Gbps',\n"
            "            socket_threads = 4, message_cost = '0' } }", &sc);
  tap_ok(rc == 0 && sc.cluster.transport.efficiency == 0.9 && sc.cluster.transport.stream_bandwidth == 10e9 / 8 &&
             sc.cluster.transport.socket_threads == 4 && sc.cluster.transport.message_cost == 0 &&
             sc.cluster.intra_efficiency == 0.7 && sc.cluster.nvls_efficiency == 0.5,
         "a scenario's own values win over the transport's, 0 included");
  if (rc == 0) hs_scenario_free(&sc);

  /* The bound on one flow between nodes: one proxy thread for all its
   * channels by default, channels x socket_threads threads with helpers. */
  if (loaded("cluster { nodes = 4, gpus_per_node = 2, gpu = { flops = '1TF' }, inter = { bandwidth = '100Gbps' },\n"
             "  overrides = { { node = 3, transport = 'tcp' } } }", &sc)) {
    const hs_cluster_spec *c = &sc.cluster;
    tap_ok(isinf(hs_net_flow_cap(c, 0, 1, 4, 2)) && isinf(hs_net_flow_cap(c, 3, 3, 4, 2)) &&
               hs_net_flow_cap(c, 0, 3, 4, 2) == 2.06e9 && hs_net_flow_cap(c, 3, 2, 1, 2) == 2.06e9,
           "per flow: none on RDMA or inside a node; a node on tcp bounds its flows at one proxy thread's 2.06 GB/s "
           "whatever the channels");
    hs_scenario_free(&sc);
  }
  /* Several NICs: the node's channels cross at one GPU a NIC, as many
   * proxy threads; but no more than the node has GPUs. */
  if (loaded("cluster { nodes = 2, gpus_per_node = 8, gpu = { flops = '1TF' },\n"
             "  inter = { bandwidth = '100Gbps', nics_per_node = 4, transport = 'tcp' } }", &sc)) {
    tap_ok(hs_net_flow_cap(&sc.cluster, 0, 1, 8, 8) == 4 * 2.06e9 && hs_net_flow_cap(&sc.cluster, 0, 1, 2, 8) == 2 * 2.06e9,
           "4 NICs, 8 GPUs a node: a ring's 8 channels cross at 4 GPUs' proxy threads, 2 channels at 2");
    tap_ok(hs_net_flow_cap(&sc.cluster, 0, 1, 8, 1) == 2.06e9 && hs_net_flow_cap(&sc.cluster, 0, 1, 8, 2) == 2 * 2.06e9,
           "a flow that is one GPU's (a rail, point-to-point) has its one proxy thread, 4 NICs or not; two GPUs' two");
    hs_scenario_free(&sc);
  }
  if (loaded("cluster { nodes = 2, gpus_per_node = 1, gpu = { flops = '1TF' },\n"
             "  inter = { bandwidth = '100Gbps', nics_per_node = 4, transport = 'tcp' } }", &sc)) {
    tap_ok(hs_net_flow_cap(&sc.cluster, 0, 1, 8, 8) == 2.06e9, "4 NICs, one GPU a node: its one proxy thread");
    hs_scenario_free(&sc);
  }
  /* What a flow's GPUs reach of the network (hs_net_reach): their own
   * NICs and their own PCIe links, on any transport. */
  rc = load("cluster { nodes = 2, gpu = { flops = '1TF', arch = 'hopper' }, inter = { bandwidth = '400Gbps' } }", &sc);
  tap_ok(rc == 0 && sc.cluster.gpu_pcie_bandwidth == 48e9, "Hopper: a Gen5 x16 link, 48 GB/s as NCCL rates it");
  if (rc == 0) hs_scenario_free(&sc);
  rc = load("cluster { nodes = 2, gpu = { flops = '1TF', arch = 'volta' }, inter = { bandwidth = '100Gbps' } }", &sc);
  tap_ok(rc == 0 && sc.cluster.gpu_pcie_bandwidth == 12e9, "Volta: Gen3 x16, NCCL's PCI_BW 12 GB/s");
  if (rc == 0) hs_scenario_free(&sc);
  /* 8 GPUs, 4 NICs of 200 Gb/s (24 GB/s each at 0.96), Gen5: a NIC binds
   * a GPU; GPUs 0 and 1 share one; 4 GPUs reach 2; the whole node all 4,
   * which the NIC link already is (no bound) */
  if (loaded("cluster { nodes = 2, gpus_per_node = 8, gpu = { flops = '1TF', arch = 'hopper' },\n"
             "  inter = { bandwidth = '200Gbps', nics_per_node = 4 } }", &sc)) {
    const hs_cluster_spec *c = &sc.cluster;
    tap_ok(hs_net_flow_cap(c, 0, 1, 16, 1) == 24e9 && hs_net_flow_cap(c, 0, 1, 16, 2) == 24e9 &&
               hs_net_flow_cap(c, 0, 1, 16, 4) == 48e9 && isinf(hs_net_flow_cap(c, 0, 1, 16, 8)),
           "4 NICs, 8 GPUs, RDMA: one GPU's flow 24 GB/s (%.4g), two GPUs' one NIC, four GPUs' two, the node's "
           "every NIC (no bound)", hs_net_flow_cap(c, 0, 1, 16, 1) / 1e9);
    tap_ok(hs_net_flow_cap(c, 0, 1, 1, 8) == 24e9 && hs_net_flow_cap(c, 0, 1, 2, 8) == 48e9,
           "a ring of one channel crosses at one NIC, of two at two");
    hs_scenario_free(&sc);
  }
  /* Which override wins (links.c, hs_links_next_override): a node's entry
   * over its rack's even when written before it, and of two entries of one
   * kind the later; each key on its own. Node 1 is in rack 0 (racks of 2). */
  if (loaded("cluster { nodes = 4, gpus_per_node = 1, gpu = { flops = '1TF', arch = 'ampere', pcie_bandwidth = '1000GBps' },\n"
             "  inter = { bandwidth = '100Gbps', topology = 'fat_tree', rack_size = 2, transport = 'rdma' },\n"
             "  overrides = { { node = 1, bandwidth = '10Gbps', transport = 'tcp' },\n"
             "                { rack = 0, bandwidth = '50Gbps', latency = '7us', transport = 'rdma' },\n"
             "                { rack = 0, bandwidth = '40Gbps' }, { node = 1, bandwidth = '20Gbps' } } }",
             &sc)) {
    const hs_cluster_spec *c = &sc.cluster;
    hs_link_spec intra, inter0, inter1, inter2;
    hs_links_of_node(c, 0, &intra, &inter0);
    hs_links_of_node(c, 1, &intra, &inter1);
    hs_links_of_node(c, 2, &intra, &inter2);
    tap_ok(hs_links_nic_line_rate(c, 0) == 5e9 && hs_links_nic_line_rate(c, 1) == 2.5e9 &&
               hs_links_nic_line_rate(c, 2) == 12.5e9,
           "overrides: rack 0's later entry (40 Gb/s) wins over its first; node 1's later entry (20 Gb/s) over its "
           "first and over its rack's; rack 1 untouched (%.4g, %.4g, %.4g GB/s)",
           hs_links_nic_line_rate(c, 0) / 1e9, hs_links_nic_line_rate(c, 1) / 1e9, hs_links_nic_line_rate(c, 2) / 1e9);
    tap_ok(hs_net_transport_of_node(c, 1).kind == HS_NET_TCP && hs_net_transport_of_node(c, 0).kind == HS_NET_RDMA,
           "overrides: node 1's transport (tcp, written first) wins over its rack's (rdma, written after)");
    double tcp = hs_net_transport_default(HS_NET_TCP).efficiency;
    tap_ok(inter0.bandwidth == 5e9 * 0.96 && fabs(inter1.bandwidth - 2.5e9 * tcp) < 1 &&
               inter1.latency > inter0.latency && inter0.latency >= 7e-6 && inter2.latency < 7e-6,
           "overrides on the links: node 0 at its rack's 40 Gb/s over RDMA, node 1 at its own 20 Gb/s over TCP with "
           "the rack's 7 us and TCP's message cost, rack 1 neither");
    hs_scenario_free(&sc);
  }
  /* A PCIe tree (links.h): 8 V100 PCIe a node under 2 switches on 2 Intel
   * sockets, 2 nodes. GPU links 12 GB/s (15.754 x NCCL's 12/15.754),
   * switch uplinks 5/6 of that on Intel, the socket link NCCL's 10. */
  const char *tree_nodes = "cluster { nodes = 2, gpus_per_node = 8, cpu = 'intel', gpu = { flops = '1TF', arch = 'volta' },\n"
                           "  intra = { bandwidth = '15.754GBps', link = 'pcie', pcie_switches = 2, sockets = 2%s },\n"
                           "  inter = { bandwidth = '100Gbps'%s } }";
  char tree[600];
  snprintf(tree, sizeof tree, tree_nodes, "", "");
  if (loaded(tree, &sc)) {
    const hs_cluster_spec *c = &sc.cluster;
    hs_hop h[HS_ROUTE_MAX];
    double gpu = 12e9, up = 10e9; /* near(.., 1e-9): 15.754e9 x 12/15.754 is 12e9 but for rounding */
    int k = hs_links_route(c, 0, 3, h);
    tap_ok(k == 2 && near(h[0].bandwidth, gpu, 1e-9) && near(h[1].bandwidth, gpu, 1e-9),
           "PCIe tree: GPUs 0 and 3 under one switch cross their own links alone (%d hops)", k);
    k = hs_links_route(c, 3, 4, h);
    tap_ok(k == 5 && near(h[1].bandwidth, gpu * 5 / 6, 1e-9) && h[2].bandwidth == up && near(h[3].bandwidth, gpu * 5 / 6, 1e-9),
           "PCIe tree: GPU 3 (switch 0, socket 0) to GPU 4 (switch 1, socket 1): its link, its switch's uplink at 5/6 "
           "of a GPU link (Intel), the socket link at 10 GB/s, 4's uplink, 4's link (%d hops)", k);
    tap_ok(route_mirrored(c, 3, 4), "PCIe tree: the way back takes the same links the other way round, ids within "
                                    "the %d of hs_links_count", hs_links_count(c));
    k = hs_links_route(c, 4, 8, h);
    int socket_up = k == 7 && h[2].bandwidth == up && (h[2].id & 1) == 0;
    tap_ok(socket_up && near(h[6].bandwidth, gpu, 1e-9) && near(h[5].bandwidth, gpu * 5 / 6, 1e-9),
           "PCIe tree: GPU 4 (socket 1) to GPU 8 of the next node (socket 0): its switch, the socket link up to the "
           "NIC's socket 0, the NICs, 8's switch and link (%d hops)", k);
    k = hs_links_route(c, 0, 12, h);
    tap_ok(k == 7 && h[4].bandwidth == up && (h[4].id & 1) == 1,
           "PCIe tree: into socket 1 of a node the socket link is crossed down (%d hops)", k);
    hs_scenario_free(&sc);
  }
  /* The same nodes with the NIC under switch 1, on socket 1: its GPUs
   * reach the network through the switch alone (GPUDirect RDMA), the
   * others climb to socket 1 and come down switch 1's uplink. */
  snprintf(tree, sizeof tree, tree_nodes, ", nic_switch = 1", "");
  if (loaded(tree, &sc)) {
    const hs_cluster_spec *c = &sc.cluster;
    hs_hop h[HS_ROUTE_MAX];
    double gpu = 12e9, up = 10e9, nic = 12.5e9 * 0.96; /* RDMA's efficiency, as above */
    int k = hs_links_route(c, 4, 12, h);
    tap_ok(k == 4 && near(h[1].bandwidth, nic, 1e-9) && near(h[0].bandwidth, gpu, 1e-9),
           "NIC under switch 1: GPU 4 to GPU 12 (both under it) cross their links and the NICs alone (%d hops)", k);
    k = hs_links_route(c, 0, 12, h);
    /* 0 sits under switch 0 on socket 0: up its uplink, across to socket
     * 1 (the socket link's down way), down switch 1's uplink to the NIC */
    int uplink0 = h[1].id, uplink1 = h[3].id;
    tap_ok(k == 7 && near(h[1].bandwidth, gpu * 5 / 6, 1e-9) && (uplink0 & 1) == 0 && h[2].bandwidth == up &&
               (h[2].id & 1) == 1 && near(h[3].bandwidth, gpu * 5 / 6, 1e-9) && (uplink1 & 1) == 1 &&
               uplink1 != (uplink0 ^ 1) && near(h[4].bandwidth, nic, 1e-9),
           "NIC under switch 1: GPU 0 (switch 0) to the network climbs its uplink, crosses to socket 1 and comes down "
           "switch 1's uplink; GPU 12 under the NIC's switch takes it directly (%d hops)", k);
    tap_ok(route_mirrored(c, 0, 12) && route_mirrored(c, 0, 8),
           "NIC under switch 1: the ways back (GPU 12 and 8 to 0) are the same links the other way round, ids within "
           "the %d of hs_links_count", hs_links_count(c));
    k = hs_links_route(c, 0, 8, h);
    tap_ok(k == 10, "NIC under switch 1: between the GPUs 0 and 8 under switch 0 of two nodes, both ways through the "
                    "other socket: %d hops", k);
    k = hs_links_route(c, 0, 4, h);
    tap_ok(k == 5 && h[2].bandwidth == up, "NIC under switch 1: inside a node nothing changes (GPU 0 to 4: %d hops)", k);
    hs_scenario_free(&sc);
  }
  /* The longest route there is, which HS_ROUTE_MAX must hold: the same,
   * the two nodes in racks of their own (a fat tree's two leaf uplinks
   * on top of the 10 hops above). */
  snprintf(tree, sizeof tree, tree_nodes, ", nic_switch = 1", ", topology = 'fat_tree', rack_size = 1");
  if (loaded(tree, &sc)) {
    hs_hop h[HS_ROUTE_MAX];
    int k = hs_links_route(&sc.cluster, 0, 8, h);
    tap_ok(k == HS_ROUTE_MAX, "the longest route (NIC under the other socket's switch, two racks) is %d hops, as "
                              "HS_ROUTE_MAX holds", k);
    hs_scenario_free(&sc);
  }
  /* A NIC under every switch: each GPU's bytes to the network leave
   * through its own switch, climbing nothing. */
  snprintf(tree, sizeof tree, tree_nodes, ", nic_per_switch = true", ", nics_per_node = 2");
  if (loaded(tree, &sc)) {
    const hs_cluster_spec *c = &sc.cluster;
    hs_hop h[HS_ROUTE_MAX];
    int k0 = hs_links_route(c, 0, 12, h), k1 = hs_links_route(c, 5, 8, h), k2 = hs_links_route(c, 0, 4, h);
    tap_ok(k0 == 4 && k1 == 4 && k2 == 5,
           "NICs under every switch: GPU 0 to 12 and 5 to 8 cross their links and the NICs alone (%d, %d hops); "
           "inside a node nothing changes (GPU 0 to 4: %d hops)", k0, k1, k2);
    hs_scenario_free(&sc);
  }
  /* What the NICs' place does, both engines: an alltoall of 256 MiB (16
   * MiB a pair) on the nodes above, with 2 NICs of 100 Gb/s a node. On socket 0's root the socket link binds
   * going up: socket 1's 4 GPUs send 4 x 4 x 16 MiB to socket 0's and 4 x
   * 8 x 16 MiB to the network, 768 MiB at 10 GB/s. Under switch 0 the
   * same bytes cross it. Under every switch only the first 256 MiB do,
   * and the NICs bind: 8 x 8 x 16 MiB each way at 2 x 12 GB/s (RDMA's
   * 0.96 of 12.5). */
  struct { const char *nics; double seconds; } a2a[] = {{"", 768 * 1048576.0 / 10e9},
                                                        {", nic_switch = 0", 768 * 1048576.0 / 10e9},
                                                        {", nic_per_switch = true", 1073741824.0 / 24e9}};
  for (size_t i = 0; i < sizeof a2a / sizeof a2a[0]; i++)
    for (int fast = 0; fast < 2; fast++) {
      snprintf(tree, sizeof tree, tree_nodes, a2a[i].nics, ", nics_per_node = 2");
      double t = collective_at(tree, "--op alltoall --bytes 256MiB", fast);
      /* 0.5%: the links' latencies over some 50 ms */
      tap_ok(near(t, a2a[i].seconds, 0.005), "%s: alltoall of 256 MiB on 2 x 8 PCIe GPUs, NICs %s: %.4g ms (%.4g)",
             fast ? "fast" : "step", a2a[i].nics[0] ? a2a[i].nics + 2 : "on socket 0's root", t * 1e3,
             a2a[i].seconds * 1e3);
    }
  /* and what a ring of one node moves over it, both engines, where NCCL
   * joins every pair peer to peer (NCCL_P2P_LEVEL=SYS): the socket
   * link binds (10 GB/s); under one switch a GPU link (12); on two
   * switches of one Intel socket the uplinks (10); AMD's socket link is
   * 16 GB/s, so a GPU link binds again, unless the scenario slows it */
  const char *pcie_node = "cluster { nodes = 1, gpus_per_node = 8, cpu = '%s', gpu = { flops = '1TF', arch = 'volta' },\n"
                          "  intra = { bandwidth = '15.754GBps', link = 'pcie', pcie_switches = %d, sockets = %d%s },\n"
                          "  inter = { bandwidth = '100Gbps' } }";
  struct { const char *cpu; int switches, sockets; const char *extra; double busbw; } rings[] = {
      {"intel", 1, 1, "", 12e9},
      {"intel", 2, 1, ", p2p_level = 'sys'", 10e9},
      {"intel", 2, 2, ", p2p_level = 'sys'", 10e9},
      {"amd", 2, 2, ", p2p_level = 'sys'", 12e9},
      {"amd", 2, 2, ", p2p_level = 'sys', socket_bandwidth = '5GBps'", 5e9},
      /* without peer access (GeForce cards) every hop is staged in host
       * memory at 3.9 GB/s (host.staging_bandwidth), and on two switches
       * climbs to the CPU even between a switch's own GPUs: each uplink
       * then carries its 4 GPUs' sends one way and receives the other, a
       * quarter of its 10 GB/s each */
      {"intel", 1, 1, ", p2p = false", 3.9e9},  {"intel", 2, 1, ", p2p = false", 2.5e9}};
  for (size_t i = 0; i < sizeof rings / sizeof rings[0]; i++)
    for (int fast = 0; fast < 2; fast++) {
      char cl[600];
      snprintf(cl, sizeof cl, pcie_node, rings[i].cpu, rings[i].switches, rings[i].sockets, rings[i].extra);
      double busbw = ring_busbw(cl, 8, fast);
      /* 1%: the ring's latency and its pipeline's fill over 1 GiB */
      tap_ok(near(busbw, rings[i].busbw, 0.01), "%s: ring allreduce of 1 GiB on 8 PCIe GPUs, %s, %d switch(es) on %d "
             "socket(s)%s: busbw %.4g GB/s (%.4g)", fast ? "fast" : "step", rings[i].cpu, rings[i].switches,
             rings[i].sockets, rings[i].extra, busbw / 1e9, rings[i].busbw / 1e9);
    }
  /* Host staging's keys (scenarios/net_transport.c): peer access and
   * GPUDirect RDMA by default; without them a staged connection's bound,
   * inside a node and across; NVLink has no host path of its own here. */
  if (loaded("cluster { nodes = 2, gpus_per_node = 4, gpu = { flops = '1TF', arch = 'volta' },\n"
             "  intra = { link = 'pcie', bandwidth = '15.754GBps' }, inter = { bandwidth = '100Gbps' } }", &sc)) {
    tap_ok(sc.cluster.intra_p2p && sc.cluster.gpudirect && sc.cluster.host_staging_bandwidth == 3.9e9 &&
               isinf(hs_net_flow_cap(&sc.cluster, 0, 0, 2, 1)) && isinf(hs_net_flow_cap(&sc.cluster, 0, 1, 2, 4)),
           "default: peer access and GPUDirect RDMA, nothing staged (host.staging_bandwidth 3.9 GB/s)");
    hs_scenario_free(&sc);
  }
  if (loaded("cluster { nodes = 2, gpus_per_node = 4, gpu = { flops = '1TF', arch = 'volta' },\n"
             "  intra = { link = 'pcie', bandwidth = '15.754GBps', p2p = false },\n"
             "  inter = { bandwidth = '100Gbps', nics_per_node = 2, gpudirect = false },\n"
             "  host = { staging_bandwidth = '5GBps' } }", &sc)) {
    tap_ok(hs_net_flow_cap(&sc.cluster, 1, 1, 2, 1) == 5e9 && hs_net_flow_cap(&sc.cluster, 0, 1, 2, 4) == 2 * 5e9 &&
               hs_net_flow_cap(&sc.cluster, 0, 1, 1, 4) == 5e9 && hs_net_flow_cap(&sc.cluster, 0, 1, 2, 1) == 5e9,
           "staged: a hop in a node at host.staging_bandwidth; across nodes that at each GPU the channels cross at "
           "(2 channels, 2 NICs: 2 of them; 1 channel or one GPU's flow: 1)");
    /* A CPU process's bytes are in host memory: with one a node (as a
     * colocated parameter server places them), rank 8 is node 0's
     * (scenario.h numbers them after the 8 GPUs), 9 node 1's. A copy from
     * a GPU is its copy engine's (the links alone), and between two nodes'
     * CPU processes nothing is staged (RDMA: no bound at all) */
    sc.cluster.cpu_ranks_per_node = 1;
    tap_ok(isinf(hs_net_hop_cap(&sc.cluster, 1, 8, 0, 0, 2, 1, 1)) && isinf(hs_net_hop_cap(&sc.cluster, 8, 2, 0, 0, 2, 1, 1)) &&
               isinf(hs_net_hop_cap(&sc.cluster, 8, 9, 0, 1, 2, 1, 4)) &&
               hs_net_hop_cap(&sc.cluster, 0, 9, 0, 1, 1, 1, 1) == 5e9,
           "a CPU process: its copies with a GPU of its node and its flows to another node's CPU process unstaged; a "
           "GPU's flow to it still staged at the GPU");
    hs_scenario_free(&sc);
  }
  /* Over sockets a host library's connections (ps-lite's) share its 4
   * ZeroMQ I/O threads: each of n at once at 2.06 GB/s x min(n, 4) / n */
  if (loaded("cluster { nodes = 2, gpus_per_node = 4, gpu = { flops = '1TF' },\n"
             "  inter = { bandwidth = '100Gbps', transport = 'tcp' } }", &sc)) {
    sc.cluster.cpu_ranks_per_node = 1; /* ranks 8 and 9, as above */
    const hs_cluster_spec *c = &sc.cluster;
    tap_ok(hs_net_hop_cap(c, 8, 9, 0, 1, 2, 1, 1) == 2.06e9 && hs_net_hop_cap(c, 8, 9, 0, 1, 2, 1, 2) == 2.06e9 &&
               hs_net_hop_cap(c, 8, 9, 0, 1, 2, 1, 4) == 2.06e9 && hs_net_hop_cap(c, 8, 9, 0, 1, 2, 1, 8) == 1.03e9,
           "TCP between CPU processes: 1, 2, 4 connections at a thread each, 8 at 4 threads' share (%.4g GB/s)",
           hs_net_hop_cap(c, 8, 9, 0, 1, 2, 1, 8) / 1e9);
    hs_scenario_free(&sc);
  }
  tap_ok(load("cluster { nodes = 1, gpu = { flops = '1TF' }, intra = { p2p = false }, inter = { bandwidth = '100Gbps' } }",
              &sc) != 0,
         "intra.p2p = false on NVLink is refused (the staged path is PCIe's)");
  /* Two one-GPU nodes without GPUDirect RDMA over 100 Gb/s InfiniBand,
   * ring allreduce of 1 GiB: each half crosses at the staged 3.9 GB/s,
   * not the NIC's 12 (1%: latencies) */
  for (int fast = 0; fast < 2; fast++) {
    double t = collective_at("cluster { nodes = 2, gpus_per_node = 1, gpu = { flops = '1TF' },\n"
                             "  inter = { bandwidth = '100Gbps', gpudirect = false } }",
                             "--op allreduce --bytes 1GiB --set sim.collectives=ring", fast);
    double want = 2 * (1073741824.0 / 2) / 3.9e9;
    tap_ok(near(t, want, 0.01), "%s: without GPUDirect RDMA 1 GiB across two nodes in %.4g ms (staged: %.4g)",
           fast ? "fast" : "step", t * 1e3, want * 1e3);
  }
  /* NCCL itself turns GPUDirect RDMA off where the NIC is further from
   * the GPU than a PCIe switch (NCCL_NET_GDR_LEVEL's default, PXB:
   * ncclTopoCheckGdr in src/graph/paths.cc): a PCIe tree whose NICs hang
   * off the CPU's root is staged though the NICs could do it. Two nodes
   * of 8 PCIe GPUs on two switches and two Intel sockets, two NICs, ring
   * allreduce of 1 GiB: the ring's two crossing GPUs stage at 3.9 GB/s
   * each, busbw 7.8 GB/s; with a NIC under each switch the socket link's
   * 10 GB/s binds, unless the NICs cannot reach GPU memory at all. (Every
   * pair inside a node peer to peer, p2p_level = 'sys', as above.) */
  const char *gdr_tree = "cluster { nodes = 2, gpus_per_node = 8, cpu = 'intel', gpu = { flops = '1TF', arch = 'volta' },\n"
                         "  intra = { bandwidth = '15.754GBps', link = 'pcie', pcie_switches = 2, sockets = 2, "
                         "p2p_level = 'sys'%s },\n"
                         "  inter = { bandwidth = '100Gbps', nics_per_node = 2%s } }";
  struct { const char *intra, *inter; int gdr; double busbw; } gdr_rows[] = {
      {"", "", 0, 7.8e9}, {", nic_per_switch = true", "", 1, 10e9},
      {", nic_per_switch = true", ", gpudirect = false", 0, 7.8e9}};
  for (size_t i = 0; i < sizeof gdr_rows / sizeof gdr_rows[0]; i++) {
    char cl[700];
    snprintf(cl, sizeof cl, gdr_tree, gdr_rows[i].intra, gdr_rows[i].inter);
    if (loaded(cl, &sc)) {
      tap_ok(hs_net_gpudirect(&sc.cluster) == gdr_rows[i].gdr, "NICs %s%s: GPUDirect RDMA %s",
             gdr_rows[i].intra[0] ? "under every switch" : "on the CPU's root", gdr_rows[i].inter,
             gdr_rows[i].gdr ? "on" : "off");
      hs_scenario_free(&sc);
    }
    for (int fast = 0; fast < 2; fast++) {
      double busbw = ring_busbw(cl, 16, fast);
      /* 1%: the ring's latency and its pipeline's fill over 1 GiB */
      tap_ok(near(busbw, gdr_rows[i].busbw, 0.01), "%s: ring allreduce of 1 GiB on 2 x 8 PCIe GPUs, NICs %s%s: busbw "
             "%.4g GB/s (%.4g)", fast ? "fast" : "step", gdr_rows[i].intra[0] ? "under every switch" : "on the CPU's root",
             gdr_rows[i].inter, busbw / 1e9, gdr_rows[i].busbw / 1e9);
    }
  }
  /* NCCL's own P2P level (intra.p2p_level's default, by release and CPU:
   * ncclTopoCheckP2p, src/graph/paths.cc): a hop further apart than it
   * allows goes through host memory at 3.9 GB/s (host.staging_bandwidth),
   * and the ring of one node of 8 PCIe GPUs on two switches moves that.
   * Today's NCCL stops at the switch (PXB), 2.7 and 2.8 at an Intel
   * socket's root (PHB: the uplinks' 10 GB/s bind), 2.3 at the socket
   * link; AMD's, SYS from 2.7 to 2.22 (a GPU link's 12 GB/s binds), is
   * PXB since 2.23 where a node has more than two GPUs. */
  struct { const char *cpu; int sockets; const char *nccl; double busbw; int path; } levels[] = {
      {"intel", 1, "2.30", 3.9e9, HS_PCIE_PXB}, {"intel", 1, "2.8", 10e9, HS_PCIE_PHB},
      {"intel", 2, "2.3.7", 3.9e9, HS_PCIE_PHB}, {"amd", 2, "2.22", 12e9, HS_PCIE_SYS},
      {"amd", 2, "2.23", 3.9e9, HS_PCIE_PXB}};
  for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
    char cl[600], file[700];
    snprintf(cl, sizeof cl, pcie_node, levels[i].cpu, 2, levels[i].sockets, "");
    snprintf(file, sizeof file, "%s\nsim { nccl_version = '%s' }", cl, levels[i].nccl);
    if (loaded(file, &sc)) {
      tap_ok(sc.cluster.p2p_path == levels[i].path && hs_net_p2p(&sc.cluster, 0, 3) &&
                 hs_net_p2p(&sc.cluster, 3, 4) == (levels[i].path >= (levels[i].sockets > 1 ? HS_PCIE_SYS : HS_PCIE_PHB)),
             "NCCL %s on %s, 2 switches on %d socket(s): P2P level %d; GPUs 0 and 3 (one switch) peer to peer, 3 and 4 "
             "%s", levels[i].nccl, levels[i].cpu, levels[i].sockets, sc.cluster.p2p_path,
             hs_net_p2p(&sc.cluster, 3, 4) ? "too" : "through host memory");
      hs_scenario_free(&sc);
    }
    for (int fast = 0; fast < 2; fast++) {
      double busbw = ring_busbw(file, 8, fast);
      /* 1%: the ring's latency and its pipeline's fill over 1 GiB */
      tap_ok(near(busbw, levels[i].busbw, 0.01), "%s: ring allreduce of 1 GiB on 8 PCIe GPUs, %s, 2 switches on %d "
             "socket(s), NCCL %s: busbw %.4g GB/s (%.4g)", fast ? "fast" : "step", levels[i].cpu, levels[i].sockets,
             levels[i].nccl, busbw / 1e9, levels[i].busbw / 1e9);
    }
  }
  /* one H100 of a DGX with four NDR NICs (NVIDIA/nccl-tests#232): the
   * node moves what its one Gen5 x16 link does, 48 GB/s, not the NICs'
   * 192, on its NIC link itself (scenarios/links.c), shared by all of its
   * flows; nothing more per flow */
  if (loaded("cluster { nodes = 2, gpus_per_node = 1, gpu = { flops = '1TF', arch = 'hopper' },\n"
             "  inter = { bandwidth = '400Gbps', nics_per_node = 4 } }", &sc)) {
    const hs_cluster_spec *c = &sc.cluster;
    hs_link_spec intra, inter;
    hs_links_of_node(c, 1, &intra, &inter);
    tap_ok(inter.bandwidth == 48e9 && hs_net_reach(c, 0, 8, 1) == 48e9 && isinf(hs_net_flow_cap(c, 0, 1, 8, 1)),
           "one H100 a node, 4 NDR NICs: the node's link is its PCIe link's 48 GB/s (%.4g), no bound per flow",
           inter.bandwidth / 1e9);
    hs_scenario_free(&sc);
  }
  if (loaded("cluster { nodes = 2, gpus_per_node = 1, gpu = { flops = '1TF', arch = 'hopper', pcie_bandwidth = '20GBps' },\n"
             "  inter = { bandwidth = '400Gbps' } }", &sc)) {
    hs_link_spec intra, inter;
    hs_links_of_node(&sc.cluster, 0, &intra, &inter);
    tap_ok(inter.bandwidth == 20e9, "gpu.pcie_bandwidth set: it binds a node of one GPU under its NIC");
    hs_scenario_free(&sc);
  }
  /* two H100 a node, 4 NDR NICs: the node's link is their two links, 96
   * GB/s; one GPU's flow gets its own 48 of them */
  if (loaded("cluster { nodes = 2, gpus_per_node = 2, gpu = { flops = '1TF', arch = 'hopper' },\n"
             "  inter = { bandwidth = '400Gbps', nics_per_node = 4 } }", &sc)) {
    hs_link_spec intra, inter;
    hs_links_of_node(&sc.cluster, 0, &intra, &inter);
    tap_ok(inter.bandwidth == 96e9 && hs_net_flow_cap(&sc.cluster, 0, 1, 8, 1) == 48e9 &&
               isinf(hs_net_flow_cap(&sc.cluster, 0, 1, 8, 2)),
           "two H100 a node, 4 NICs: the node 96 GB/s (%.4g), one GPU's flow 48, both GPUs' no more than the node",
           inter.bandwidth / 1e9);
    hs_scenario_free(&sc);
  }
  /* and the same through `hearsay collective`: one H100 a node, 4 NICs,
   * ring allreduce of 1 GiB, step and fast: busbw at most 48 GB/s (it was
   * the 4 NICs' 192 before the PCIe link counted) */
  const char *one_h100 = "cluster { nodes = 2, gpus_per_node = 1, gpu = { flops = '1TF', arch = 'hopper' },\n"
                         "  inter = { bandwidth = '400Gbps', nics_per_node = 4 } }";
  for (int fast = 0; fast < 2; fast++) {
    double t = collective_at(one_h100, "--op allreduce --bytes 1GiB --set sim.collectives=ring", fast), floor_s = 1073741824.0 / 48e9;
    tap_ok(t >= floor_s && t <= 1.05 * floor_s,
           "%s: ring allreduce of 1 GiB over one H100 a node %.4g ms, at its PCIe link's 48 GB/s (%.4g ms; 5%% for "
           "latency and the pipeline's fill)", fast ? "fast" : "step", t * 1e3, floor_s * 1e3);
  }
  /* The double binary tree of those two ranks sends from each GPU on two
   * flows at once (up in one tree, down in the other): they share the
   * GPU's link, at least 1 GiB / 48 GB/s (Simple; 10% for the slices'
   * fill and the protocol's latencies, measured 8.8%). With the bound per
   * flow alone each had 48 and it took 0.55 of that. */
  for (int fast = 0; fast < 2; fast++) {
    double t = collective_at(one_h100, "--op allreduce --bytes 1GiB --set sim.collectives=tree --set sim.protocol=simple",
                             fast),
           floor_s = 1073741824.0 / 48e9;
    tap_ok(t >= floor_s && t <= 1.10 * floor_s,
           "%s: tree allreduce of 1 GiB over one H100 a node %.4g ms, its two trees sharing its 48 GB/s (%.4g ms, 10%%)",
           fast ? "fast" : "step", t * 1e3, floor_s * 1e3);
  }

  /* the key this replaced, as old calibrated system files hold it */
  rc = load("cluster { nodes = 2, gpu = { flops = '1TF' },\n"
            "  inter = { bandwidth = '100Gbps', transport = 'tcp', sockets = 1 } }", &sc);
  if (rc == 0) hs_scenario_free(&sc);
  char cmd[1600], err[4096];
  snprintf(cmd, sizeof cmd, "%s run %s/scenario.lua --out %s/never --quiet", HEARSAY_BIN, dir, dir);
  int exit_code = hs_test_command(cmd, err, sizeof err);
  tap_ok(rc != 0 && exit_code == 2 && strstr(err, "cluster.inter.sockets: replaced by socket_threads"),
         "inter.sockets, which old calibrated system files hold, is refused with what replaced it (%s)", err);
  if (loaded("cluster { nodes = 2, gpu = { flops = '1TF' },\n"
             "  inter = { bandwidth = '100Gbps', transport = 'tcp', socket_threads = 2 } }", &sc)) {
    tap_ok(hs_net_flow_cap(&sc.cluster, 0, 1, 4, 1) == 4 * 2 * 2.06e9 && hs_net_flow_cap(&sc.cluster, 1, 0, 1, 1) == 2 * 2.06e9,
           "socket_threads = 2: each channel's connection has two threads, 4 channels x 2 x 2.06 GB/s");
    hs_scenario_free(&sc);
  }

  /* A GPU's own flows across nodes at once share its proxy thread where
   * its connections have no threads of their own (socket_threads = 0,
   * NCCL's default on a generic NIC): an alltoall of 1 GiB over 4 one-GPU
   * nodes sends each GPU's 3 blocks of 256 MiB across at once, 3 x 256 MiB
   * through one 2.06 GB/s thread. With a thread for each connection
   * (socket_threads = 1, 2 channels) they are 3 x 4.12 GB/s, more than
   * the NIC's 100 Gb/s at TCP's framing: the NIC binds. Step and fast,
   * against the closed forms (1%: latencies and SimGrid's precision; each
   * was 3 x 256 MiB / 2.06 GB/s x 1/3 with the bound per flow alone). */
  const char *four = "cluster { nodes = 4, gpus_per_node = 1, gpu = { flops = '1TF' },\n"
                     "  inter = { bandwidth = '100Gbps', transport = 'tcp', socket_threads = %d } }";
  for (int fast = 0; fast < 2; fast++) {
    double block = 1073741824.0 / 4, t[2];
    for (int st = 0; st < 2; st++) {
      char cl[512];
      snprintf(cl, sizeof cl, four, st);
      t[st] = collective_at(cl, "--op alltoall --bytes 1GiB", fast);
    }
    double proxy = 3 * block / 2.06e9, nic = 3 * block / (12.5e9 * 1448.0 / 1538);
    tap_ok(near(t[0], proxy, 0.01) && near(t[1], nic, 0.01),
           "%s: alltoall of 1 GiB over 4 one-GPU TCP nodes: %.6g s on one proxy thread (3 blocks through 2.06 GB/s: "
           "%.6g), %.6g s with a thread a connection (the NIC's: %.6g)",
           fast ? "fast" : "step", t[0], proxy, t[1], nic);
  }

  /* A gossip's two peers across nodes share the thread too (decentralized
   * on a ring of 4 one-GPU TCP nodes: VGG-16's 553 MB to each neighbour,
   * the simulator posting the exchange itself, not through a collective):
   * 2 x 553 MB through one 2.06 GB/s thread, against 553 MB at 2 channels x
   * 2.06 with a thread a connection. At least the closed form and at most
   * 10 ms over: the iteration's compute and its optimizer's and mixing's
   * kernels on 138 M parameters (6.1 ms) are the rest. Step and fast. */
  for (int fast = 0; fast < 2; fast++) {
    double t[2];
    for (int st = 0; st < 2; st++) {
      char lua[1024], name[32], out[800], text[8192], path[900], json[16384];
      snprintf(lua, sizeof lua,
               "cluster { nodes = 4, gpus_per_node = 1, gpu = { flops = '1000TF' },\n"
               "  inter = { bandwidth = '100Gbps', transport = 'tcp', socket_threads = %d } }\n"
               "workload { model = 'vgg16', batch = 1 }\nalgorithm { name = 'decentralized', peers = 'ring' }\n"
               "run { iterations = 4, warmup_iterations = 1 }\nsim { fidelity = '%s' }\n",
               st, fast ? "fast" : "step");
      snprintf(name, sizeof name, "gossip-%d-%d", fast, st);
      int rc = hs_test_run_text(name, lua, out, sizeof out, text, sizeof text);
      snprintf(path, sizeof path, "%s/summary.json", out);
      json[hs_test_slurp(path, json, sizeof json)] = '\0';
      t[st] = rc == 0 ? hs_test_json_number(json, "time_per_iteration_s") : NAN;
    }
    double model = 138357544.0 * 4, one = model / (2.06e9 / 2), own = model / (2 * 2.06e9);
    tap_ok(t[0] >= one && t[0] <= one + 0.01 && t[1] >= own && t[1] <= own + 0.01,
           "%s: ring gossip of VGG-16 over 4 one-GPU TCP nodes, %.6g s an iteration on one proxy thread (%.6g), %.6g "
           "with a thread a connection (%.6g)", fast ? "fast" : "step", t[0], one, t[1], own);
  }

  /* ... and a collective's schedule does not: on 8 one-GPU TCP nodes a
   * tree's parent and children each keep the thread's whole bound, in
   * step's pipelined tree and in fast alike (fast once shared it there:
   * 303 ms against step's 76.6 at 256 MiB). 1e-3: the two agree to the
   * pipeline's arithmetic. */
  const char *eight = "cluster { nodes = 8, gpus_per_node = 1, gpu = { flops = '1TF' },\n"
                      "  inter = { bandwidth = '100Gbps', transport = 'tcp', socket_threads = 0 } }";
  double by_tree[2];
  for (int fast = 0; fast < 2; fast++)
    by_tree[fast] = collective_at(eight, "--op allreduce --bytes 256MiB --set sim.collectives=tree", fast);
  tap_ok(near(by_tree[1], by_tree[0], 1e-3), "tree allreduce of 256 MiB over 8 one-GPU TCP nodes: fast %.6g s, step %.6g s",
         by_tree[1], by_tree[0]);

  /* Two one-GPU nodes, 100 Gb/s, one lock-step ring allreduce without a
   * protocol (the links alone; pipelined, each of its slices would pay the
   * route's latency, test_collective_time): 1 GiB is
   * bound by the NIC on RDMA (12.5 x 0.96 GB/s) and by the proxy thread on
   * TCP (2.06 GB/s for both channels, under the NIC's 11.77);
   * 8 B by latency: its 2 steps each pay 30 us more on TCP. Step and fast
   * both, each against the closed form (1%: the ring's two steps and the
   * links' latencies are in it exactly; the rest is SimGrid's precision). */
  const char *two = "cluster { nodes = 2, gpu = { flops = '1TF' }, intra = { bandwidth = '300GBps', latency = '1us' },\n"
                    "  inter = { bandwidth = '100Gbps', latency = '5us', transport = '%s' } }\n"
                    "sim { collectives = 'ring', protocol = 'none', channels = 2, slices_in_flight = 0 }";
  for (int fast = 0; fast < 2; fast++) {
    const char *fid = fast ? "fast" : "step";
    double t[2][2];
    for (int k = 0; k < 2; k++) {
      char cl[512], args[256];
      snprintf(cl, sizeof cl, two, k ? "tcp" : "rdma");
      for (int big = 0; big < 2; big++) {
        snprintf(args, sizeof args, "--op allreduce --bytes %s --set sim.fidelity=%s", big ? "1GiB" : "8B", fid);
        t[k][big] = collective(cl, args);
      }
    }
    /* 1 GiB: each rank sends half the vector twice (reduce-scatter, allgather) */
    double M = 1073741824.0, lat = 1e-6 + 5e-6;
    double rdma = 2 * (lat + (M / 2) / (12.5e9 * 0.96)), tcp = 2 * (lat + 34e-6 + (M / 2) / 2.06e9);
    tap_ok(near(t[0][1], rdma, 0.01) && near(t[1][1], tcp, 0.01),
           "%s, 1 GiB: RDMA %.6g s (closed form %.6g: the NIC at 0.96), TCP %.6g s (%.6g: 2 connections on "
           "one 2.06 GB/s proxy thread)", fid, t[0][1], rdma, t[1][1], tcp);
    tap_ok(near(t[1][0] - t[0][0], 2 * 34e-6, 0.01),
           "%s, 8 B: TCP %.4g us against RDMA %.4g us, %.4g us more (2 messages x 34 us)", fid, t[1][0] * 1e6,
           t[0][0] * 1e6, (t[1][0] - t[0][0]) * 1e6);
  }

  /* What a flow stands for (lowering.h, spread): two nodes of 8 GPUs and
   * 4 NICs over TCP, 256 MiB. The ring's crossing carries the node's 8
   * channels on 4 GPUs' proxy threads; the hierarchical schedule's inter-
   * node allreduce runs on 8 rails of one GPU a node, each on its GPU's one
   * thread: a rail of 2 moves its eighth of the vector across once
   * (M/16 each way twice), at 2.06 GB/s, at least 16.3 ms, whatever the
   * NICs (47 GB/s) could carry; the node's phases over NVLink add about
   * 2 ms. Given every flow the node's 4 threads it took 7.8 ms. */
  const char *rails = "cluster { nodes = 2, gpus_per_node = 8, gpu = { flops = '1TF' },\n"
                      "  inter = { bandwidth = '100Gbps', nics_per_node = 4, transport = 'tcp' } }";
  for (int fast = 0; fast < 2; fast++) {
    double t = collective_at(rails, "--op allreduce --bytes 256MiB --set sim.collectives=hierarchical", fast), rail = 268435456.0 / 8 / 2.06e9;
    tap_ok(t >= rail && t <= rail + 4e-3,
           "%s: hierarchical over 4-NIC TCP nodes %.4g ms, its rails each on one GPU's thread (%.4g ms of them, "
           "4 ms for the rest)", fast ? "fast" : "step", t * 1e3, rail * 1e3);
  }
  return tap_done(0);
}
