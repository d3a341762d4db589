/* test_platform.c — the generated platform has the routes docs/scenarios.md
 * promises: latencies add up link by link, the narrowest link sets the
 * bandwidth, overrides and speed factors land where they say. */
#include <math.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <string.h>
#include <xbt/dynar.h>

#include "scenarios/links.h"
#include "tests/harness.h"
#include "tests/tap.h"

typedef struct {
  FILE *report;
  const hs_scenario *sc;
} ctx;

static const char *lua =
    "cluster { nodes = 6, gpus_per_node = 2,\n"
    "  gpu = { flops = \"100TF\", efficiency = 0.5 },\n"
    "  intra = { bandwidth = \"200GBps\", latency = \"2us\" },\n"
    "  inter = { bandwidth = \"100Gbps\", latency = \"6us\", topology = \"fat_tree\", rack_size = 2,\n"
    "            oversubscription = 4, uplink_latency = \"3us\" },\n"
    "  overrides = { { rack = 2, bandwidth = \"10Gbps\" }, { node = 1, latency = \"10us\" },\n"
    "                { node = 5, transport = \"tcp\" } },\n"
    "  gpu_speed = { { gpu = 3, factor = 0.5 }, { node = 2, factor = 0.25 } } }\n"
    "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\nrun { iterations = 1 }\n";

static void close_to(FILE *r, double got, double want, const char *what) {
  hs_report(r, fabs(got - want) <= 1e-12 * fabs(want) + 1e-15, "%s: %.6g (want %.6g)", what, got, want);
}

static void emulator_routes(FILE *r, const hs_cluster_spec *cl, sg_host_t *g, int n);
static void run_probe(const char *text, void (*fn)(hs_worker *, void *), FILE *report);

/* The names of the links of SimGrid's route from a to b, space-separated,
 * against want. */
static void route_names(FILE *r, sg_host_t a, sg_host_t b, const char *want, const char *what) {
  xbt_dynar_t route = xbt_dynar_new(sizeof(sg_link_t), NULL);
  sg_host_get_route(a, b, route);
  char got[512] = "";
  for (unsigned i = 0; i < xbt_dynar_length(route); i++) {
    size_t at = strlen(got);
    snprintf(got + at, sizeof got - at, "%s%s", i ? " " : "", sg_link_get_name(xbt_dynar_get_as(route, i, sg_link_t)));
  }
  xbt_dynar_free(&route);
  hs_report(r, strcmp(got, want) == 0, "%s: %s (want %s)", what, got, want);
}

/* g[i] = host "gpu<i>", i < n. */
static void gpu_hosts(sg_host_t *g, int n) {
  for (int i = 0; i < n; i++) {
    char name[16];
    snprintf(name, sizeof name, "gpu%d", i);
    g[i] = sg_host_by_name(name);
  }
}

static void probe(hs_worker *w, void *arg) {
  if (w->rank != 0) return;
  FILE *r = ((ctx *)arg)->report;
  sg_host_t g[12];
  gpu_hosts(g, 12);
  close_to(r, sg_host_get_route_latency(g[0], g[1]), 2e-6, "same node: latency = intra.latency");
  /* Links carry what transfers get of their line rates (net_transport.c):
   * NVLink on Ampere 20 of 25 GB/s, RDMA 0.96, TCP 1448 of 1538 bytes. */
  const double nvlink = 0.8, rdma = 0.96, tcp = 1448.0 / 1538.0;
  close_to(r, sg_host_get_route_bandwidth(g[0], g[1]), 200e9 * nvlink, "same node: bandwidth = intra.bandwidth x 0.8");
  close_to(r, sg_host_get_route_latency(g[0], g[2]), 2e-6 + 0.5 * 6e-6 + 0.5 * 10e-6,
           "same rack, node 1 overridden to 10us: intra + half of each NIC's latency");
  close_to(r, sg_host_get_route_latency(g[0], g[4]), 2e-6 + 6e-6 + 2 * 3e-6, "across racks: + 2 uplinks");
  close_to(r, sg_host_get_route_bandwidth(g[0], g[4]), 12.5e9 * rdma * 2 / 4,
           "across racks: the uplink (2 nodes x 12.5 GB/s x 0.96 / oversubscription 4) is the narrowest");
  close_to(r, sg_host_get_route_bandwidth(g[0], g[2]), 12.5e9 * rdma, "same rack: the NIC x 0.96 is the narrowest");
  /* node 5 on TCP: its NIC loses the framing and each message pays 30 us
   * more, half on each NIC of the route (net_transport.c) */
  close_to(r, sg_host_get_route_bandwidth(g[8], g[10]), 1.25e9 * tcp, "rack 2 override: 10 Gbps NICs, node 5's on tcp the narrowest: x 1448 / 1538");
  close_to(r, sg_host_get_route_latency(g[8], g[10]), 2e-6 + 6e-6 + 34e-6 / 2,
           "node 5 on tcp: its NIC's half of the route's latency pays half of the 34 us per message");
  /* 12 GPUs spread by the default 8% (scenarios/gpu_spread.h): GPU r sits
   * at place (7r + 6) mod 12 (7: the first number from 0.618 x 12 up that
   * is prime to 12), at 1 + 0.08 x round(16 ((k + 1)/13 - 1/2)) / 16: GPU 0
   * at k = 6 (16 x 0.0385 rounds to 1), GPU 3 at 27 mod 12 = 3 (-3.08 to
   * -3), GPU 4 at 34 mod 12 = 10 (5.54 to 6). */
  const double v = 0.08;
  double at0 = 1 + v * 1 / 16, at3 = 1 - v * 3 / 16, at4 = 1 + v * 6 / 16;
  close_to(r, sg_host_get_speed(g[0]), 50e12 * at0, "GPU speed = flops x efficiency x its place in the spread");
  close_to(r, sg_host_get_speed(g[3]), 25e12 * at3, "gpu 3 at factor 0.5");
  close_to(r, sg_host_get_speed(g[4]), 12.5e12 * at4, "node 2's GPUs at factor 0.25");

  /* A GPU's bytes to another node leave through the node's PCIe side,
   * not its NVLink link (links.h): the route from GPU 0 to GPU 2 (node 1)
   * has node 0's and node 1's PCIe sides and neither GPU's link; the
   * route inside node 0 has both GPUs' links and no PCIe side. */
  route_names(r, g[0], g[2], "node0_nic_UP node0_pcie_UP node1_pcie_DOWN node1_nic_DOWN",
              "across nodes: the NICs and PCIe sides (in SimGrid's order); no GPU link");
  route_names(r, g[0], g[1], "gpu0_link_UP gpu1_link_DOWN", "inside a node: the two GPUs' links");
  emulator_routes(r, &((ctx *)arg)->sc->cluster, g, 12);
}

/* Racks of 20 one-GPU nodes are cut into zones of 16 and 4, which reach
 * their leaf through trunks (sim/platform.c): a route between the two
 * zones of a rack is the one within a zone, and across racks it adds the
 * two uplinks. */
static const char *split_lua =
    "cluster { nodes = 40, gpus_per_node = 1,\n"
    "  gpu = { flops = \"100TF\", efficiency = 0.5 },\n"
    "  intra = { bandwidth = \"200GBps\", latency = \"2us\" },\n"
    "  inter = { bandwidth = \"100Gbps\", latency = \"6us\", topology = \"fat_tree\", rack_size = 20,\n"
    "            uplink_latency = \"3us\" } }\n"
    "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\nrun { iterations = 1 }\n";

static void probe_split(hs_worker *w, void *arg) {
  if (w->rank != 0) return;
  FILE *r = ((ctx *)arg)->report;
  sg_host_t g[40];
  gpu_hosts(g, 40);
  close_to(r, sg_host_get_route_latency(g[0], g[1]), 2e-6 + 6e-6, "racks of 20 in zones of 16: within a zone");
  close_to(r, sg_host_get_route_latency(g[0], g[17]), 2e-6 + 6e-6, "between the two zones of a rack: the same");
  close_to(r, sg_host_get_route_latency(g[17], g[25]), 2e-6 + 6e-6 + 2 * 3e-6, "across racks: + 2 uplinks");
  close_to(r, sg_host_get_route_bandwidth(g[0], g[17]), 12.5e9 * 0.96, "between zones: the NIC is the narrowest");
  emulator_routes(r, &((ctx *)arg)->sc->cluster, g, 40);
}

/* On PCIe nodes a GPU's link is its PCIe link, which its bytes to other
 * nodes cross as those inside the node do. */
static const char *pcie_lua =
    "cluster { nodes = 2, gpus_per_node = 2,\n"
    "  gpu = { flops = \"10TF\" },\n"
    "  intra = { bandwidth = \"15.754GBps\", link = \"pcie\" },\n"
    "  inter = { bandwidth = \"100Gbps\" } }\n"
    "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\nrun { iterations = 1 }\n";

static void probe_pcie(hs_worker *w, void *arg) {
  if (w->rank != 0) return;
  FILE *r = ((ctx *)arg)->report;
  sg_host_t g[4];
  gpu_hosts(g, 4);
  route_names(r, g[0], g[2], "gpu0_link_UP node0_nic_UP node1_nic_DOWN gpu2_link_DOWN",
              "PCIe nodes, across nodes: the GPUs' links and the NICs");
  emulator_routes(r, &((ctx *)arg)->sc->cluster, g, 4);
}

/* A PCIe tree with the NIC under switch 1 of 2, on socket 1 of 2
 * (scenarios/links.h): switch 1's GPUs reach it directly; switch 0's
 * climb to their socket, cross to socket 1 and come down switch 1's uplink. */
static const char *nic_tree_lua =
    "cluster { nodes = 2, gpus_per_node = 4, cpu = \"intel\",\n"
    "  gpu = { flops = \"10TF\" },\n"
    "  intra = { bandwidth = \"15.754GBps\", link = \"pcie\", pcie_switches = 2, sockets = 2, nic_switch = 1 },\n"
    "  inter = { bandwidth = \"100Gbps\" } }\n"
    "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\nrun { iterations = 1 }\n";

static void probe_nic_tree(hs_worker *w, void *arg) {
  if (w->rank != 0) return;
  FILE *r = ((ctx *)arg)->report;
  sg_host_t g[8];
  gpu_hosts(g, 8);
  route_names(r, g[2], g[6], "gpu2_link_UP node0_nic_UP node1_nic_DOWN gpu6_link_DOWN",
              "NIC under switch 1: its GPUs reach the network through the switch alone");
  route_names(r, g[0], g[4],
              "gpu0_link_UP node0_psw0_up_UP node0_qpi_DOWN node0_psw1_up_DOWN node0_nic_UP node1_nic_DOWN "
              "node1_psw1_up_UP node1_qpi_UP node1_psw0_up_DOWN gpu4_link_DOWN",
              "NIC under switch 1: switch 0's GPUs climb, cross the sockets and come down switch 1's uplink");
  route_names(r, g[0], g[1], "gpu0_link_UP gpu1_link_DOWN", "NIC under switch 1: under one switch, the GPU links alone");
  emulator_routes(r, &((ctx *)arg)->sc->cluster, g, 8);
}

/* The NICs under every switch: every GPU reaches the network through its
 * own switch (scenarios/links.h, nic_per_switch). */
static const char *nics_tree_lua =
    "cluster { nodes = 2, gpus_per_node = 4, cpu = \"intel\",\n"
    "  gpu = { flops = \"10TF\" },\n"
    "  intra = { bandwidth = \"15.754GBps\", link = \"pcie\", pcie_switches = 2, sockets = 2, nic_per_switch = true },\n"
    "  inter = { bandwidth = \"100Gbps\", nics_per_node = 2 } }\n"
    "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\nrun { iterations = 1 }\n";

static void probe_nics_tree(hs_worker *w, void *arg) {
  if (w->rank != 0) return;
  FILE *r = ((ctx *)arg)->report;
  sg_host_t g[8];
  gpu_hosts(g, 8);
  /* (SimGrid lists the two links of a switch's route to the gateway last first, as it lists an NVLink
   * node's PCIe side and NIC above) */
  route_names(r, g[0], g[6],
              "gpu0_link_UP node0_nic_UP node0_psw0_nic_UP node1_psw1_nic_DOWN node1_nic_DOWN gpu6_link_DOWN",
              "NICs under every switch: switch 0's GPU to switch 1's of the next node, through their own switches "
              "(their steps to the NIC link constrain nothing)");
  route_names(r, g[0], g[3], "gpu0_link_UP node0_psw0_up_UP node0_qpi_DOWN node0_psw1_up_DOWN gpu3_link_DOWN",
              "NICs under every switch: inside the node the tree as before");
  emulator_routes(r, &((ctx *)arg)->sc->cluster, g, 8);
}

/* GPUs without peer access (intra.p2p = false): every route from a GPU
 * turns at its socket's root, where host memory is, so two GPUs of one
 * switch cross its uplink both ways (scenarios/links.h). With no
 * GPUDirect RDMA either, every byte a GPU moves goes through host memory,
 * and its link is one budget for both ways, 2 x host.staging_bandwidth
 * (scenarios/net_transport.h): a shared link, crossed whichever way. */
static const char *staged_tree_lua =
    "cluster { nodes = 2, gpus_per_node = 4, cpu = \"intel\",\n"
    "  gpu = { flops = \"10TF\" },\n"
    "  intra = { bandwidth = \"15.754GBps\", link = \"pcie\", pcie_switches = 2, sockets = 2, p2p = false },\n"
    "  inter = { bandwidth = \"100Gbps\", gpudirect = false } }\n"
    "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\nrun { iterations = 1 }\n";

static void probe_staged_tree(hs_worker *w, void *arg) {
  if (w->rank != 0) return;
  FILE *r = ((ctx *)arg)->report;
  sg_host_t g[8];
  gpu_hosts(g, 8);
  /* (SimGrid lists a route of two links, a GPU's here, last first, as above) */
  route_names(r, g[0], g[1], "node0_psw0_up_UP gpu0_link gpu1_link node0_psw0_up_DOWN",
              "without peer access: under one switch, up its uplink to host memory and down again");
  route_names(r, g[2], g[3], "node0_psw1_up_UP gpu2_link gpu3_link node0_psw1_up_DOWN",
              "without peer access: the same on socket 1's switch, turning at socket 1's root");
  route_names(r, g[0], g[3], "node0_psw0_up_UP gpu0_link node0_qpi_DOWN gpu3_link node0_psw1_up_DOWN",
              "without peer access: between switches the tree as before");
  route_names(r, g[1], g[0], "node0_psw0_up_UP gpu1_link gpu0_link node0_psw0_up_DOWN",
              "without peer access: the way back crosses the same GPU links, each shared by its two ways");
  sg_link_t own = sg_link_by_name("gpu0_link");
  hs_report(r, own && sg_link_get_bandwidth(own) == 7.8e9 && sg_link_is_shared(own),
            "no peer access nor GPUDirect RDMA: GPU 0's link one shared budget of 2 x 3.9 GB/s (%g B/s)",
            own ? sg_link_get_bandwidth(own) : -1);
  emulator_routes(r, &((ctx *)arg)->sc->cluster, g, 8);
}

/* The link emulator's routes (scenarios/links.h) are the platform's: same
 * latency sum and same narrowest link for every ordered pair. */
static void emulator_routes(FILE *r, const hs_cluster_spec *cl, sg_host_t *g, int n) {
  int bad = 0, pairs = 0;
  char first[160] = "";
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) {
      if (a == b) continue;
      hs_hop hop[HS_ROUTE_MAX];
      int k = hs_links_route(cl, a, b, hop);
      double lat = 0, bw = INFINITY;
      for (int i = 0; i < k; i++) {
        lat += hop[i].latency;
        if (hop[i].bandwidth < bw) bw = hop[i].bandwidth;
      }
      double want_lat = sg_host_get_route_latency(g[a], g[b]), want_bw = sg_host_get_route_bandwidth(g[a], g[b]);
      pairs++;
      if (fabs(lat - want_lat) > 1e-12 * want_lat || fabs(bw - want_bw) > 1e-12 * want_bw) {
        if (!bad) snprintf(first, sizeof first, " (first: %d->%d %g s %g B/s, SimGrid %g s %g B/s)", a, b, lat, bw, want_lat, want_bw);
        bad++;
      }
    }
  hs_report(r, bad == 0, "emulator routes match SimGrid's for all %d ordered pairs (latency, bottleneck)%s", pairs, first);
}

/* CPU processes (a parameter server's: its colocated servers, host
 * aggregators and server machines) in the emulator's routes too: every
 * ordered pair of the run's ranks, GPUs and CPU processes, as SimGrid
 * routes them. Three clusters: NVLink nodes on a fat tree of one node a
 * rack with a colocated server and an aggregator a node; PCIe trees with
 * the NIC under switch 1 and without peer access, with server machines;
 * PCIe trees with NICs under every switch on a fat tree, with server
 * machines. The first two narrow host.bandwidth, host.memory_bandwidth
 * and the socket link so that the CPU processes' own links and the
 * socket link bind where their routes cross them. */
static const char *cpu_luas[] = {
    "cluster { nodes = 2, gpus_per_node = 4, gpu = { flops = \"10TF\" }, host = { bandwidth = \"1GBps\" },\n"
    "  inter = { bandwidth = \"100Gbps\", topology = \"fat_tree\", rack_size = 1 } }\n"
    "workload { model = \"resnet50\" }\nalgorithm { name = \"parameter_server\", placement = \"colocated\",\n"
    "  aggregate = true, update = \"workers\", pcie_switch_size = 2 }\nrun { iterations = 1 }\n",
    "cluster { nodes = 2, gpus_per_node = 4, cpu = \"intel\", gpu = { flops = \"10TF\" },\n"
    "  intra = { bandwidth = \"15.754GBps\", link = \"pcie\", pcie_switches = 2, sockets = 2, nic_switch = 1, p2p = false,\n"
    "            socket_bandwidth = \"3GBps\" },\n"
    "  host = { bandwidth = \"1GBps\", memory_bandwidth = \"5GBps\" }, inter = { bandwidth = \"100Gbps\" } }\n"
    "workload { model = \"resnet50\" }\nalgorithm { name = \"parameter_server\", placement = \"machines\", servers = 2,\n"
    "  aggregate = true, update = \"workers\", pcie_switch_size = 2 }\nrun { iterations = 1 }\n",
    "cluster { nodes = 4, gpus_per_node = 4, cpu = \"amd\", gpu = { flops = \"10TF\" },\n"
    "  intra = { bandwidth = \"15.754GBps\", link = \"pcie\", pcie_switches = 2, sockets = 2, nic_per_switch = true },\n"
    "  inter = { bandwidth = \"100Gbps\", nics_per_node = 2, topology = \"fat_tree\", rack_size = 2,\n"
    "            oversubscription = 2 } }\n"
    "workload { model = \"resnet50\" }\nalgorithm { name = \"parameter_server\", placement = \"machines\", servers = 3,\n"
    "  aggregate = true, update = \"workers\", pcie_switch_size = 2 }\nrun { iterations = 1 }\n",
};

static void probe_cpus(hs_worker *w, void *arg) {
  if (w->rank != 0) return;
  const hs_cluster_spec *c = &((ctx *)arg)->sc->cluster;
  int n = hs_cluster_ranks(c), gpus = c->nodes * c->gpus_per_node;
  sg_host_t h[64];
  for (int i = 0; i < n && i < 64; i++) {
    char name[16];
    snprintf(name, sizeof name, i < gpus ? "gpu%d" : "cpu%d", i);
    h[i] = sg_host_by_name(name);
  }
  emulator_routes(((ctx *)arg)->report, c, h, n < 64 ? n : 64);
}

static void child_cpus(void *arg, FILE *report) { run_probe(cpu_luas[*(int *)arg], probe_cpus, report); }

static void run_probe(const char *text, void (*fn)(hs_worker *, void *), FILE *report) {
  hs_scenario sc;
  if (hs_test_load(text, &sc)) {
    hs_report(report, 0, "scenario loads");
    return;
  }
  ctx c = {report, &sc};
  hs_test_simulate(&sc, 0, fn, &c, NULL, NULL);
}

static void child(void *arg, FILE *report) {
  (void)arg;
  run_probe(lua, probe, report);
}

static void child_split(void *arg, FILE *report) {
  (void)arg;
  run_probe(split_lua, probe_split, report);
}

static void child_pcie(void *arg, FILE *report) {
  (void)arg;
  run_probe(pcie_lua, probe_pcie, report);
}

static void child_nic_tree(void *arg, FILE *report) {
  (void)arg;
  run_probe(nic_tree_lua, probe_nic_tree, report);
}

static void child_nics_tree(void *arg, FILE *report) {
  (void)arg;
  run_probe(nics_tree_lua, probe_nics_tree, report);
}

static void child_staged_tree(void *arg, FILE *report) {
  (void)arg;
  run_probe(staged_tree_lua, probe_staged_tree, report);
}

int main(void) {
  hs_test_in_child("platform", child, NULL, 60);
  hs_test_in_child("platform, PCIe nodes", child_pcie, NULL, 60);
  hs_test_in_child("platform, a PCIe tree with the NIC under a switch", child_nic_tree, NULL, 60);
  hs_test_in_child("platform, a PCIe tree with NICs under every switch", child_nics_tree, NULL, 60);
  hs_test_in_child("platform, a PCIe tree without peer access", child_staged_tree, NULL, 60);
  hs_test_in_child("platform, racks split into zones", child_split, NULL, 60);
  for (int i = 0; i < 3; i++) hs_test_in_child("platform, CPU processes", child_cpus, &i, 60);
  return tap_done(0);
}
