/* platform.c — writes the SimGrid XML platform of a cluster. */
#include "sim/platform.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenarios/links.h"
#include "scenarios/net_transport.h"
#include "sim/link_profiles.h"

typedef struct {
  FILE *f;
  const hs_network_spec *net;
  const char *dir;
  int failed;
} writer;

/* A link, with the profiles of its network { } events: split-duplex (a
 * direction each way), or shared (both ways out of one rate). */
static void write_link_as(writer *w, hs_netlink_kind kind, int index, const char *id, double bw, double lat,
                          int shared) {
  char attrs[9000] = "";
  if (w->net && hs_link_profile_attrs(w->net, kind, index, bw, lat, w->dir, attrs, sizeof attrs)) w->failed = 1;
  fprintf(w->f, "    <link id=\"%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" sharing_policy=\"%s\"%s/>\n", id, bw, lat,
          shared ? "SHARED" : "SPLITDUPLEX", attrs);
}
static void write_link(writer *w, hs_netlink_kind kind, int index, const char *id, double bw, double lat) {
  write_link_as(w, kind, index, id, bw, lat, 0);
}

/* A split-duplex link no network { } event names (a CPU process's). */
static void write_plain_link(FILE *f, const char *id, double bw, double lat) {
  fprintf(f, "    <link id=\"%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" sharing_policy=\"SPLITDUPLEX\"/>\n", id, bw,
          lat);
}

/* Nodes that send or receive background traffic get one more host, on its
 * own fat link to the node's switch, so that traffic crosses the NIC and
 * the fabric but takes nothing from the GPUs' links. */
static int has_traffic(const hs_network_spec *net, int node) {
  for (int i = 0; net && i < net->n; i++)
    if (net->events[i].traffic && (net->events[i].src == node || net->events[i].dst == node)) return 1;
  return 0;
}

static void edge(FILE *f, const char *src_zone, const char *src_gw, const char *dst_zone, const char *dst_gw,
                 const char *link_id) {
  fprintf(f,
          "    <zoneRoute src=\"%s\" dst=\"%s\" gw_src=\"%s\" gw_dst=\"%s\" symmetrical=\"YES\">"
          "<link_ctn id=\"%s\" direction=\"UP\"/></zoneRoute>\n",
          src_zone, dst_zone, src_gw, dst_gw, link_id);
}

/* Node n's extra hosts, each on a link that constrains nothing to the
 * node's switch: the NVSwitch that reduces (algos/comm/inswitch.c), and
 * the host of its background traffic (network { }). Host "node<n>_KIND",
 * link "node<n>_KIND_link". */
static int extra_hosts(const writer *w, const hs_cluster_spec *c, int n, const char *kind[2]) {
  int k = 0;
  if (c->nvls) kind[k++] = "nvswitch";
  if (has_traffic(w->net, n)) kind[k++] = "background";
  return k;
}

int hs_platform_sm_levels(const hs_cluster_spec *c) {
  if (c->gpu_sms <= 0 || c->collective_sms <= 0) return 0;
  int levels = (c->gpu_sms + c->collective_sms - 1) / c->collective_sms; /* until none is left */
  return levels > HS_SM_LEVELS_MAX ? HS_SM_LEVELS_MAX : levels;
}

/* A GPU's host: its speed, then (pstates 1, 2, ...) what it has left while
 * 1, 2, ... collectives hold their SMs (sim/sm_hold.c). Where they hold
 * every SM (channels >= sms), backward waits for them, as it would on the
 * GPU; SimGrid cannot compute at speed 0, so such a level keeps
 * HS_SM_SPEED_FLOOR of the speed. */
static void write_gpu_host(FILE *f, const hs_cluster_spec *c, int r, double speed) {
  fprintf(f, "    <host id=\"gpu%d\" speed=\"%.17gf", r, speed);
  for (int j = 1, n = hs_platform_sm_levels(c); j <= n; j++) {
    double left = 1 - (double)j * c->collective_sms / c->gpu_sms;
    fprintf(f, ",%.17gf", speed * (left > HS_SM_SPEED_FLOOR ? left : HS_SM_SPEED_FLOOR));
  }
  fputs("\"/>\n", f);
}

/* A node's hosts (its GPUs and extra hosts) and their links to the node's
 * switch. In a Cluster zone (one node) they hang off the zone's router
 * through host_link; in a pod (several nodes) the routes are written
 * apart (node_routes). */
static void node_hosts(writer *w, const hs_cluster_spec *c, int n, int cluster_zone) {
  FILE *f = w->f;
  int g = c->gpus_per_node;
  double speed = c->gpu_flops * c->gpu_efficiency;
  hs_link_spec intra, inter;
  hs_links_of_node(c, n, &intra, &inter);
  int staged = hs_net_gpu_link_staged(c, n);
  for (int l = 0; l < g; l++) {
    int r = n * g + l;
    char id[64];
    write_gpu_host(f, c, r, speed * hs_links_speed_factor(c, r));
    snprintf(id, sizeof id, "gpu%d_link", r);
    if (staged) { /* every byte through host memory: both ways out of one budget (net_transport.h) */
      write_link_as(w, HS_NETLINK_GPU, r, id, hs_net_gpu_link_budget(c, intra.bandwidth), intra.latency / 2, 1);
      if (cluster_zone) fprintf(f, "    <host_link id=\"gpu%d\" up=\"%s\" down=\"%s\"/>\n", r, id, id);
      continue;
    }
    write_link(w, HS_NETLINK_GPU, r, id, intra.bandwidth, intra.latency / 2);
    if (cluster_zone)
      fprintf(f, "    <host_link id=\"gpu%d\" up=\"gpu%d_link_UP\" down=\"gpu%d_link_DOWN\"/>\n", r, r, r);
  }
  /* The node's CPU processes (parameter servers, host aggregators): host
   * "cpu<r>" on a link to the node's switch, which every byte between
   * them and the GPUs or the NICs crosses (links.h,
   * hs_links_cpu_bandwidth: on a PCIe tree two switches copy to host
   * memory at once, each up its own uplink). */
  double host_link = hs_links_cpu_bandwidth(c);
  for (int k = 0; k < c->cpu_ranks_per_node; k++) {
    int r = hs_cluster_rank_of_cpu(c, n, k);
    char id[64];
    fprintf(f, "    <host id=\"cpu%d\" speed=\"1f\"/>\n", r);
    snprintf(id, sizeof id, "cpu%d_link", r);
    write_plain_link(f, id, host_link, intra.latency / 2);
    if (cluster_zone)
      fprintf(f, "    <host_link id=\"cpu%d\" up=\"cpu%d_link_UP\" down=\"cpu%d_link_DOWN\"/>\n", r, r, r);
  }
  /* A PCIe tree (links.h): a router a switch, one for socket 1's root
   * (socket 0's is the node's switch, where the NIC hangs), and their
   * links. Pods only: a Cluster zone is a star. */
  if (!cluster_zone && hs_links_pcie_tree(c)) {
    for (int s = 0; s < c->pcie_switches; s++) {
      fprintf(f, "    <router id=\"node%d_psw%d\"/>\n", n, s);
      char id[64];
      snprintf(id, sizeof id, "node%d_psw%d_up", n, s);
      write_plain_link(f, id, hs_links_switch_uplink(c, n), 0);
    }
    /* NICs under every switch: a switch's step to the node's NIC link,
     * constraining nothing. It is there for SimGrid's Dijkstra, which
     * weighs a path by its links: with it a switch is 2 links from the
     * gateway, so two switches are 4 apart that way and at most 3 (up,
     * socket, down) through the CPUs, and no route inside a node leaves
     * it through the NICs. */
    for (int s = 0; c->nic_per_switch && s < c->pcie_switches; s++)
      fprintf(f,
              "    <link id=\"node%d_psw%d_nic\" bandwidth=\"1e15Bps\" latency=\"0s\" sharing_policy=\"SPLITDUPLEX\"/>\n",
              n, s);
    if (c->sockets > 1) {
      fprintf(f, "    <router id=\"node%d_cpu1\"/>\n", n);
      char id[64];
      snprintf(id, sizeof id, "node%d_qpi", n);
      write_plain_link(f, id, c->socket_bandwidth, 0);
    }
  }
  const char *kind[2];
  for (int k = 0, nk = extra_hosts(w, c, n, kind); k < nk; k++) {
    const char *x = kind[k];
    fprintf(f, "    <host id=\"node%d_%s\" speed=\"1f\"/>\n", n, x);
    fprintf(f, "    <link id=\"node%d_%s_link\" bandwidth=\"1e15Bps\" latency=\"0s\" sharing_policy=\"SPLITDUPLEX\"/>\n",
            n, x);
    if (cluster_zone)
      fprintf(f, "    <host_link id=\"node%d_%s\" up=\"node%d_%s_link_UP\" down=\"node%d_%s_link_DOWN\"/>\n", n, x, n,
              x, n, x);
  }
}

/* A link's place in a route: a split-duplex link's way up (SimGrid takes
 * the way down for the symmetrical route back), or a shared link. */
static const char *way(int shared) { return shared ? "NONE" : "UP"; }

static void hop_as(FILE *f, const char *src, const char *dst, const char *link, int shared) {
  fprintf(f, "    <route src=\"%s\" dst=\"%s\" symmetrical=\"YES\"><link_ctn id=\"%s\" direction=\"%s\"/></route>\n",
          src, dst, link, way(shared));
}
static void hop(FILE *f, const char *src, const char *dst, const char *link) { hop_as(f, src, dst, link, 0); }

/* src to the pod's gateway through node n's PCIe side and its NIC. */
static void network_hop(FILE *f, const char *src, int n, const char *gw) {
  fprintf(f,
          "    <route src=\"%s\" dst=\"%s\" symmetrical=\"YES\"><link_ctn id=\"node%d_pcie\" direction=\"UP\"/>"
          "<link_ctn id=\"node%d_nic\" direction=\"UP\"/></route>\n",
          src, gw, n, n);
}

/* Inside a pod: every host of node n to the node's switch, the switch to
 * the pod's gateway through the node's NIC. On NVLink nodes a GPU also
 * reaches the gateway on its own, through the PCIe side (hs_links_nic_apart). */
static void node_routes(const writer *w, const hs_cluster_spec *c, int n, const char *gw) {
  FILE *f = w->f;
  char src[64], dst[64], link[64];
  int apart = hs_links_nic_apart(c);
  snprintf(dst, sizeof dst, "node%d_sw", n);
  int tree = hs_links_pcie_tree(c), staged = hs_net_gpu_link_staged(c, n);
  for (int l = 0; l < c->gpus_per_node; l++) {
    int r = n * c->gpus_per_node + l;
    char sw[64];
    snprintf(src, sizeof src, "gpu%d", r);
    snprintf(link, sizeof link, "gpu%d_link", r);
    if (tree) snprintf(sw, sizeof sw, "node%d_psw%d", n, hs_links_switch_of(c, r));
    if (tree && !c->intra_p2p) {
      /* Without peer access a GPU's bytes meet the others' in host
       * memory: up its switch's uplink to its socket's root, where every
       * route from it turns, so a switch's own GPUs cross the uplink too
       * (links.h) */
      int s = hs_links_switch_of(c, r);
      char root[64];
      if (hs_links_socket_of(c, s) == 1) snprintf(root, sizeof root, "node%d_cpu1", n);
      else snprintf(root, sizeof root, "%s", dst);
      fprintf(f,
              "    <route src=\"%s\" dst=\"%s\" symmetrical=\"YES\"><link_ctn id=\"%s\" direction=\"%s\"/>"
              "<link_ctn id=\"node%d_psw%d_up\" direction=\"UP\"/></route>\n",
              src, root, link, way(staged), n, s);
    } else {
      hop_as(f, src, tree ? sw : dst, link, staged);
    }
    if (apart) network_hop(f, src, n, gw);
  }
  /* the PCIe tree: each switch to its socket's root, socket 1's root to
   * socket 0's, the node's switch */
  for (int s = 0; tree && s < c->pcie_switches; s++) {
    char sw[64], root[64];
    snprintf(sw, sizeof sw, "node%d_psw%d", n, s);
    snprintf(link, sizeof link, "node%d_psw%d_up", n, s);
    if (hs_links_socket_of(c, s) == 1) snprintf(root, sizeof root, "node%d_cpu1", n);
    else snprintf(root, sizeof root, "%s", dst);
    hop(f, sw, root, link);
  }
  if (tree && c->sockets > 1) {
    snprintf(src, sizeof src, "node%d_cpu1", n);
    snprintf(link, sizeof link, "node%d_qpi", n);
    hop(f, src, dst, link);
  }
  for (int k = 0; k < c->cpu_ranks_per_node; k++) {
    int r = hs_cluster_rank_of_cpu(c, n, k);
    snprintf(src, sizeof src, "cpu%d", r);
    snprintf(link, sizeof link, "cpu%d_link", r);
    hop(f, src, dst, link);
  }
  const char *kind[2];
  for (int k = 0, nk = extra_hosts(w, c, n, kind); k < nk; k++) {
    snprintf(src, sizeof src, "node%d_%s", n, kind[k]);
    snprintf(link, sizeof link, "node%d_%s_link", n, kind[k]);
    hop(f, src, dst, link);
  }
  if (apart) {
    network_hop(f, dst, n, gw);
  } else {
    /* the NIC on the node's switch (socket 0's root) or under one of
     * its PCIe switches (links.h, nic_switch) */
    char nic_at[64];
    snprintf(link, sizeof link, "node%d_nic", n);
    if (tree && c->nic_per_switch) { /* the NICs under every switch: one link, reached from each */
      for (int s = 0; s < c->pcie_switches; s++)
        fprintf(f,
                "    <route src=\"node%d_psw%d\" dst=\"%s\" symmetrical=\"YES\"><link_ctn id=\"node%d_psw%d_nic\" "
                "direction=\"UP\"/><link_ctn id=\"%s\" direction=\"UP\"/></route>\n",
                n, s, gw, n, s, link);
    } else {
      if (tree && c->nic_switch >= 0) snprintf(nic_at, sizeof nic_at, "node%d_psw%d", n, c->nic_switch);
      else snprintf(nic_at, sizeof nic_at, "%s", dst);
      hop(f, nic_at, gw, link);
    }
  }
}

/* Nodes per pod: zones of a few nodes each, never across a rack. SimGrid
 * 3.32 checks every new host's and link's name by walking every zone, so
 * a zone per node made loading 16 384 GPUs (2048 zones) cost seconds; a
 * pod of 16 nodes is 16 times fewer zones, and its routes (Dijkstra over
 * ~150 vertices, cached per source) stay cheap. */
static int pod_nodes(const hs_cluster_spec *c) {
  int p = 256 / (c->gpus_per_node > 0 ? c->gpus_per_node : 1);
  p = p < 1 ? 1 : p > 16 ? 16 : p;
  if (c->topology != HS_TOPO_FLAT && c->rack_size < p) p = c->rack_size;
  return p;
}

int hs_platform_write(const hs_cluster_spec *c, const hs_network_spec *net, const char *profile_dir, FILE *f) {
  writer wr = {f, net, profile_dir, 0};
  fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
  fprintf(f, "<!-- generated by hearsay from the scenario's cluster {}; see sim/platform.h -->\n");
  fprintf(f, "<platform version=\"4.1\">\n  <zone id=\"world\" routing=\"DijkstraCache\">\n");
  /* Server machines need a fabric to reach: one node with them is laid
   * out as several nodes are. */
  if (c->nodes == 1 && c->server_machines == 0 && !hs_links_pcie_tree(c)) {
    fprintf(f, "  <zone id=\"node0\" routing=\"Cluster\">\n    <router id=\"node0_sw\"/>\n");
    node_hosts(&wr, c, 0, 1);
    fprintf(f, "  </zone>\n");
  } else {
    int flat = c->topology == HS_TOPO_FLAT;
    int racks = flat ? 0 : (c->nodes + c->rack_size - 1) / c->rack_size;
    int per_pod = pod_nodes(c), n_pods = 0;
    /* Pods: [first node, end) each, a rack cut into pods of per_pod. */
    int *pod_first = malloc((size_t)c->nodes * sizeof *pod_first), *pod_end = malloc((size_t)c->nodes * sizeof *pod_end);
    for (int n = 0; n < c->nodes; n = pod_end[n_pods++]) {
      int rack_end = flat ? c->nodes : (n / c->rack_size + 1) * c->rack_size;
      pod_first[n_pods] = n;
      pod_end[n_pods] = n + per_pod < rack_end ? n + per_pod : rack_end;
      if (pod_end[n_pods] > c->nodes) pod_end[n_pods] = c->nodes;
    }
    /* Where every rack is one pod (rack_size at most pod_nodes' 16 nodes,
     * and 256 GPUs: racks of up to 16 nodes of 8), the
     * pod's gateway is its rack's leaf switch, which then needs no zone of
     * its own nor a trunk to it. SimGrid 3.32 seals each zone by walking
     * every host of the platform (NetZoneImpl::seal, get_all_hosts), so
     * 128 leaf zones at 16 384 GPUs cost 0.15 s of every run, and their
     * names as much again at loading. (One zone of leaves under the spine
     * would need a route through a zone between two different gateways,
     * which SimGrid 3.32's DijkstraZone cannot take: it passes null
     * points to get_global_route.) */
    int rack_pods = !flat && per_pod >= c->rack_size;
    for (int p = 0; p < n_pods; p++) {
      char gw[32];
      if (rack_pods) snprintf(gw, sizeof gw, "leaf%d_sw", p);
      else snprintf(gw, sizeof gw, "pod%d_gw", p);
      fprintf(f, "  <zone id=\"pod%d\" routing=\"DijkstraCache\">\n    <router id=\"%s\"/>\n", p, gw);
      for (int n = pod_first[p]; n < pod_end[p]; n++) {
        hs_link_spec intra, inter;
        hs_links_of_node(c, n, &intra, &inter);
        char id[64];
        fprintf(f, "    <router id=\"node%d_sw\"/>\n", n);
        node_hosts(&wr, c, n, 0);
        snprintf(id, sizeof id, "node%d_nic", n);
        write_link(&wr, HS_NETLINK_NIC, n, id, inter.bandwidth, inter.latency / 2);
        /* The PCIe side's step to the NIC: constrains nothing (each flow's
         * own bound carries what its GPUs' PCIe links reach, hs_net_reach)
         * and holds the GPU link's latency, so a route across nodes keeps
         * its latency. SimGrid's Dijkstra weighs an edge by its links, and
         * this second link makes a GPU's edge to the gateway weigh 2: two
         * GPUs of a node are 2 apart through the node's switch and 4
         * through the gateway, and a GPU is 2 from the gateway on its own
         * and 3 through the switch. Split-duplex as the NIC is: one
         * resource for both ways would join every flow into and out of
         * the node in one max-min component, which SimGrid solves whole
         * at every change (an asynchronous parameter server on 16 nodes
         * took 25 times as long). */
        if (hs_links_nic_apart(c))
          fprintf(f,
                  "    <link id=\"node%d_pcie\" bandwidth=\"1e15Bps\" latency=\"%.17gs\" sharing_policy=\"SPLITDUPLEX\"/>\n",
                  n, intra.latency / 2);
      }
      for (int n = pod_first[p]; n < pod_end[p]; n++) node_routes(&wr, c, n, gw);
      fprintf(f, "  </zone>\n");
    }
    /* Server machines: host "cpu<r>" each, with a GPU node's NICs (what
     * the cluster's transport gets of nics_per_node x inter.bandwidth, and
     * its message cost) to the top switch, in a zone of their own: BytePS
     * wants its CPU machines on the GPU machines' bandwidth. */
    if (c->server_machines > 0) {
      double nic_bw = c->inter.bandwidth * c->nics_per_node * c->transport.efficiency;
      double nic_lat = c->inter.latency + c->transport.message_cost;
      fprintf(f, "  <zone id=\"servers\" routing=\"DijkstraCache\">\n    <router id=\"servers_gw\"/>\n");
      for (int k = 0; k < c->server_machines; k++) {
        int r = hs_cluster_rank_of_machine(c, k);
        char id[64];
        fprintf(f, "    <host id=\"cpu%d\" speed=\"1f\"/>\n", r);
        snprintf(id, sizeof id, "cpu%d_nic", r);
        write_plain_link(f, id, nic_bw, nic_lat / 2);
      }
      for (int k = 0; k < c->server_machines; k++) {
        char src[32], link[64];
        int r = hs_cluster_rank_of_machine(c, k);
        snprintf(src, sizeof src, "cpu%d", r);
        snprintf(link, sizeof link, "cpu%d_nic", r);
        hop(f, src, "servers_gw", link);
      }
      fprintf(f, "  </zone>\n");
    }
    /* A fabric that reduces (SHARP) gets a host beside its top switch, on
     * a link that constrains nothing (algos/comm/inswitch.c). */
    const char *top = flat ? "fabric" : "spine";
    if (c->in_network_reduction) {
      fprintf(f, "  <zone id=\"%s\" routing=\"Full\">\n    <router id=\"%s_sw\"/>\n", top, top);
      fprintf(f, "    <host id=\"fabric_sharp\" speed=\"1f\"/>\n");
      fprintf(f, "    <link id=\"fabric_sharp_link\" bandwidth=\"1e15Bps\" latency=\"0s\" sharing_policy=\"FATPIPE\"/>\n");
      fprintf(f, "    <route src=\"fabric_sharp\" dst=\"%s_sw\"><link_ctn id=\"fabric_sharp_link\"/></route>\n", top);
      fprintf(f, "  </zone>\n");
    } else {
      fprintf(f, "  <zone id=\"%s\" routing=\"Full\"><router id=\"%s_sw\"/></zone>\n", top, top);
    }
    for (int k = 0; k < racks && !rack_pods; k++)
      fprintf(f, "  <zone id=\"leaf%d\" routing=\"Full\"><router id=\"leaf%d_sw\"/></zone>\n", k, k);
    /* A pod's gateway reaches its leaf (or the flat fabric) through a trunk
     * that constrains nothing: the NICs inside the pod are the links. The
     * DTD wants every <link> of a zone before its first route. */
    for (int pass = 0; pass < 2; pass++) {
      for (int p = 0; p < n_pods && !rack_pods; p++) {
        char id[64], zone[32], gw[32], up_zone[32], up_gw[32];
        int rack = flat ? 0 : pod_first[p] / c->rack_size;
        snprintf(id, sizeof id, "pod%d_trunk", p);
        snprintf(zone, sizeof zone, "pod%d", p);
        snprintf(gw, sizeof gw, "pod%d_gw", p);
        snprintf(up_zone, sizeof up_zone, flat ? "fabric" : "leaf%d", rack);
        snprintf(up_gw, sizeof up_gw, flat ? "fabric_sw" : "leaf%d_sw", rack);
        if (pass == 0)
          fprintf(f, "    <link id=\"%s\" bandwidth=\"1e15Bps\" latency=\"0s\" sharing_policy=\"FATPIPE\"/>\n", id);
        else
          fprintf(f,
                  "    <zoneRoute src=\"%s\" dst=\"%s\" gw_src=\"%s\" gw_dst=\"%s\" symmetrical=\"YES\">"
                  "<link_ctn id=\"%s\"/></zoneRoute>\n",
                  zone, up_zone, gw, up_gw, id);
      }
      for (int k = 0; k < racks; k++) {
        hs_link_spec up = hs_links_uplink(c, k);
        char id[64], zone[32], gw[32];
        snprintf(id, sizeof id, "leaf%d_uplink", k);
        snprintf(zone, sizeof zone, rack_pods ? "pod%d" : "leaf%d", k);
        snprintf(gw, sizeof gw, "leaf%d_sw", k);
        if (pass == 0) write_link(&wr, HS_NETLINK_UPLINK, k, id, up.bandwidth, up.latency);
        else edge(f, zone, gw, "spine", "spine_sw", id);
      }
      /* the server machines' zone reaches the top switch as a pod does */
      if (c->server_machines > 0 && pass == 0)
        fprintf(f, "    <link id=\"servers_trunk\" bandwidth=\"1e15Bps\" latency=\"0s\" sharing_policy=\"FATPIPE\"/>\n");
      else if (c->server_machines > 0)
        fprintf(f,
                "    <zoneRoute src=\"servers\" dst=\"%s\" gw_src=\"servers_gw\" gw_dst=\"%s_sw\" symmetrical=\"YES\">"
                "<link_ctn id=\"servers_trunk\"/></zoneRoute>\n",
                top, top);
    }
    free(pod_first);
    free(pod_end);
  }
  fprintf(f, "  </zone>\n</platform>\n");
  return ferror(f) || wr.failed ? -1 : 0;
}

int hs_platform_write_temp(const hs_cluster_spec *c, const char *who, char *path) {
  char name[] = "/tmp/hearsay-platform-XXXXXX";
  int fd = mkstemp(name);
  if (fd >= 0) unlink(name); /* from here on only the descriptor holds it */
  int keep = fd >= 0 ? dup(fd) : -1;
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  int failed = !f || keep < 0 || hs_platform_write(c, NULL, NULL, f);
  if (f ? fclose(f) : fd >= 0 ? close(fd) : 0) failed = 1;
  if (failed) {
    if (keep >= 0) close(keep);
    fprintf(stderr, "%s: cannot write a platform file\n", who);
    return -1;
  }
  snprintf(path, HS_PLATFORM_TEMP_LEN, "/proc/self/fd/%d", keep);
  return 0;
}

void hs_platform_temp_release(const char *path) {
  int fd;
  if (sscanf(path, "/proc/self/fd/%d", &fd) == 1) close(fd);
}
