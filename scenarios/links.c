/* links.c — the cluster's links and routes (see links.h). */
#include "scenarios/links.h"

#include <math.h>

#include "scenarios/gpu_spread.h"

#include "scenarios/net_transport.h"

double hs_links_speed_factor(const hs_cluster_spec *c, int gpu) {
  double f = hs_gpu_spread_factor(c, gpu); /* identical GPUs differ (gpu_spread.h) */
  for (int i = 0; i < c->n_speed; i++) {
    const hs_speed_override *s = &c->speed[i];
    if (s->gpu == gpu || (s->node >= 0 && s->node == gpu / c->gpus_per_node)) f *= s->factor;
  }
  return f;
}

void hs_links_speed_products(const hs_cluster_spec *c, double *f) {
  int n = c->nodes * c->gpus_per_node;
  for (int g = 0; g < n; g++) f[g] = 1;
  for (int i = 0; i < c->n_speed; i++) {
    const hs_speed_override *s = &c->speed[i];
    if (s->gpu >= 0 && s->gpu < n) f[s->gpu] *= s->factor;
    for (int g = 0; s->node >= 0 && g < c->gpus_per_node; g++)
      if (s->node * c->gpus_per_node + g < n) f[s->node * c->gpus_per_node + g] *= s->factor;
  }
}

const hs_net_override *hs_links_next_override(const hs_cluster_spec *c, int node, int *cursor) {
  int rack = node / c->rack_size;
  for (; *cursor < 2 * c->n_overrides; (*cursor)++) {
    int pass = *cursor / c->n_overrides;
    const hs_net_override *o = &c->overrides[*cursor % c->n_overrides];
    if (pass == 0 ? o->rack == rack : o->node == node) {
      (*cursor)++; /* the next call starts past it */
      return o;
    }
  }
  return NULL;
}

void hs_links_of_node(const hs_cluster_spec *c, int node, hs_link_spec *intra, hs_link_spec *inter) {
  *intra = c->intra;
  *inter = c->inter;
  const hs_net_override *o;
  for (int k = 0; (o = hs_links_next_override(c, node, &k));) {
    if (o->inter.bandwidth > 0) inter->bandwidth = o->inter.bandwidth;
    if (o->inter.latency > 0) inter->latency = o->inter.latency;
    if (o->intra.bandwidth > 0) intra->bandwidth = o->intra.bandwidth;
    if (o->intra.latency > 0) intra->latency = o->intra.latency;
  }
  /* What transfers get of the line rates, and what each message across
   * nodes pays besides (net_transport.h): on the links themselves, so
   * every engine and the emulator charge them alike. */
  hs_net_transport t = hs_net_transport_of_node(c, node);
  intra->bandwidth *= c->intra_efficiency;
  inter->bandwidth *= c->nics_per_node * t.efficiency;
  /* Every byte a node sends or receives across nodes crosses one of its
   * GPUs' PCIe links (GPUDirect RDMA), so the node moves no more than its
   * GPUs' links together: one GPU a node with four NDR NICs, 48 GB/s, not
   * 192 (NVIDIA/nccl-tests#232). On the DGX systems the two are rated
   * alike and this binds nothing. Shared by all of the node's flows, as
   * the NICs are; what one GPU of several reaches is each flow's bound
   * (hs_net_reach). */
  if (c->gpu_pcie_bandwidth > 0 && c->gpus_per_node * c->gpu_pcie_bandwidth < inter->bandwidth)
    inter->bandwidth = c->gpus_per_node * c->gpu_pcie_bandwidth;
  inter->latency += t.message_cost;
}

double hs_links_nic_line_rate(const hs_cluster_spec *c, int node) {
  double rate = c->inter.bandwidth;
  const hs_net_override *o;
  for (int k = 0; (o = hs_links_next_override(c, node, &k));)
    if (o->inter.bandwidth > 0) rate = o->inter.bandwidth;
  return rate;
}

hs_link_spec hs_links_uplink(const hs_cluster_spec *c, int rack) {
  int first = rack * c->rack_size;
  int last = first + c->rack_size < c->nodes ? first + c->rack_size : c->nodes;
  double nic_sum = 0;
  for (int n = first; n < last; n++) {
    hs_link_spec intra, inter;
    hs_links_of_node(c, n, &intra, &inter);
    nic_sum += inter.bandwidth;
  }
  hs_link_spec up = {.bandwidth = nic_sum / c->oversubscription, .latency = c->uplink_latency};
  return up;
}

int hs_links_nic_apart(const hs_cluster_spec *c) { return c->intra_link == HS_INTRA_NVLINK; }

static int racks_of(const hs_cluster_spec *c) {
  return c->topology == HS_TOPO_FAT_TREE ? (c->nodes + c->rack_size - 1) / c->rack_size : 0;
}

int hs_links_pcie_tree(const hs_cluster_spec *c) { return c->pcie_switches > 1; }

int hs_links_switch_of(const hs_cluster_spec *c, int gpu) {
  return c->pcie_switches > 1 ? gpu % c->gpus_per_node / (c->gpus_per_node / c->pcie_switches) : 0;
}

int hs_links_socket_of(const hs_cluster_spec *c, int sw) {
  return c->sockets > 1 ? sw / (c->pcie_switches / c->sockets) : 0;
}

int hs_links_pcie_path(const hs_cluster_spec *c, int gpu_a, int gpu_b) {
  int sa = hs_links_switch_of(c, gpu_a), sb = hs_links_switch_of(c, gpu_b);
  if (sa == sb) return HS_PCIE_PXB;
  return hs_links_socket_of(c, sa) == hs_links_socket_of(c, sb) ? HS_PCIE_PHB : HS_PCIE_SYS;
}

/* A switch's uplink from the node's GPU link rate (hs_links_switch_uplink). */
static double uplink_of(const hs_cluster_spec *c, const hs_link_spec *intra) {
  return c->cpu == HS_CPU_INTEL ? intra->bandwidth * 5 / 6 : intra->bandwidth;
}

double hs_links_switch_uplink(const hs_cluster_spec *c, int node) {
  hs_link_spec intra, inter;
  hs_links_of_node(c, node, &intra, &inter);
  return uplink_of(c, &intra);
}

/* The first id past the star's links: where the PCIe tree's begin. */
static int tree_base(const hs_cluster_spec *c) {
  return 2 * (c->nodes * c->gpus_per_node + c->nodes + racks_of(c) + (hs_links_nic_apart(c) ? c->nodes : 0));
}

/* The first id past the PCIe trees' links: where the CPU processes'
 * begin, node n's k-th at 2 (n cpn + k), then the server machines'. */
static int cpu_base(const hs_cluster_spec *c) {
  int tree = hs_links_pcie_tree(c) ? 2 * c->nodes * c->pcie_switches + (c->sockets > 1 ? 2 * c->nodes : 0) : 0;
  return tree_base(c) + tree;
}

int hs_links_count(const hs_cluster_spec *c) {
  return cpu_base(c) + 2 * (c->nodes * c->cpu_ranks_per_node + c->server_machines);
}

/* GPU r's own link on node n: the GPU link's rate, or where every byte
 * it moves goes through host memory the budget of both ways together
 * (net_transport.h), which SimGrid's platform shares between them and
 * the emulator charges each way apart. */
static double own_link(const hs_cluster_spec *c, int n, const hs_link_spec *intra) {
  return hs_net_gpu_link_staged(c, n) ? hs_net_gpu_link_budget(c, intra->bandwidth) : intra->bandwidth;
}
/* Its id: 2r up and 2r + 1 down, or 2r both ways where it is one budget. */
static int own_id(const hs_cluster_spec *c, int n, int r, int up) {
  return 2 * r + (up || hs_net_gpu_link_staged(c, n) ? 0 : 1);
}

/* From GPU g of node n (its links `intra`) up to the root of socket `to`
 * (up = 1: g sends) or down from it (up = 0: g receives): its switch's
 * uplink and, from the other socket, the socket link. Nothing without a
 * PCIe tree. */
static int climb(const hs_cluster_spec *c, int n, const hs_link_spec *intra, int g, int to, int up, hs_hop *out) {
  if (!hs_links_pcie_tree(c)) return 0;
  int sw = hs_links_switch_of(c, g), socket = hs_links_socket_of(c, sw), k = 0;
  int base = tree_base(c), uplink = base + 2 * (n * c->pcie_switches + sw) + !up;
  hs_hop sw_hop = {uplink, uplink_of(c, intra), 0};
  if (up) out[k++] = sw_hop;
  if (socket != to) {
    /* socket 1 to socket 0 is the link's up way (K = 2): going up, the
     * bytes move toward `to`; coming down, toward g's own socket */
    int toward0 = up ? to == 0 : socket == 0;
    out[k++] = (hs_hop){base + 2 * c->nodes * c->pcie_switches + 2 * n + !toward0, c->socket_bandwidth, 0};
  }
  if (!up) out[k++] = sw_hop;
  return k;
}

/* From GPU g of node n to the node's NIC (up = 1: g sends) or from it to
 * g (up = 0), as the NIC's place says:
 *  - under every switch (nic_per_switch): nothing, g's own switch's NIC
 *    (GPUDirect RDMA, which NCCL's default NCCL_NET_GDR_LEVEL, PXB,
 *    allows through one switch);
 *  - under switch s (nic_switch): nothing for s's own GPUs, the same way;
 *    for the others the climb to s's socket and s's uplink down to the
 *    NIC, which their bytes cross whether staged in host memory or not;
 *  - on socket 0's root: g's climb there;
 *  - without a tree, nothing: the GPU link is the whole way.
 * Without peer access a NIC under g's own switch is reached through host
 * memory, up and down the switch's uplink. */
static int to_nic(const hs_cluster_spec *c, int n, const hs_link_spec *intra, int g, int up, hs_hop *out) {
  /* Without peer access (intra.p2p) the bytes meet in host memory first,
   * also a NIC's under g's own switch: up its uplink to the socket's root
   * and down again, whichever way they go */
  int own = hs_links_switch_of(c, g);
  if (hs_links_pcie_tree(c) && !c->intra_p2p && (c->nic_per_switch || own == c->nic_switch)) {
    int uplink = tree_base(c) + 2 * (n * c->pcie_switches + own);
    out[0] = (hs_hop){uplink, uplink_of(c, intra), 0};
    out[1] = (hs_hop){uplink + 1, uplink_of(c, intra), 0};
    return 2;
  }
  if (!hs_links_pcie_tree(c) || c->nic_per_switch) return 0;
  if (c->nic_switch < 0) return climb(c, n, intra, g, 0, up, out);
  int s = c->nic_switch, k = 0;
  if (hs_links_switch_of(c, g) == s) return 0;
  int uplink = tree_base(c) + 2 * (n * c->pcie_switches + s);
  /* toward the NIC the bytes come down s's uplink; from it they go up */
  hs_hop nic_side = {uplink + up, uplink_of(c, intra), 0};
  if (!up) out[k++] = nic_side;
  k += climb(c, n, intra, g, hs_links_socket_of(c, s), up, out + k);
  if (up) out[k++] = nic_side;
  return k;
}

/* ---- CPU processes (scenario.h's ranks after the GPUs; sim/platform.c) ---- */

/* A CPU process of a node: its link to the node's switch (socket 0's
 * root, hs_links_cpu_bandwidth), up = 1 the way out of it. */
static hs_hop node_cpu_hop(const hs_cluster_spec *c, int r, int up) {
  int n = hs_cluster_rank_node(c, r), i = r - hs_cluster_rank_of_cpu(c, n, 0) + n * c->cpu_ranks_per_node;
  hs_link_spec intra, inter;
  hs_links_of_node(c, n, &intra, &inter);
  return (hs_hop){cpu_base(c) + 2 * i + !up, hs_links_cpu_bandwidth(c), intra.latency / 2};
}

double hs_links_cpu_bandwidth(const hs_cluster_spec *c) {
  return hs_links_pcie_tree(c) ? c->host_memory_bandwidth : c->host_bandwidth;
}

/* A server machine's NICs to the fabric's top: a GPU node's NICs at the
 * cluster's transport, and its message cost. */
static hs_hop machine_hop(const hs_cluster_spec *c, int r, int up) {
  int k = r - hs_cluster_rank_of_machine(c, 0);
  double bw = c->inter.bandwidth * c->nics_per_node * c->transport.efficiency;
  double lat = (c->inter.latency + c->transport.message_cost) / 2;
  return (hs_hop){cpu_base(c) + 2 * (c->nodes * c->cpu_ranks_per_node + k) + !up, bw, lat};
}

/* Between node n's switch (socket 0's root, where its CPU processes
 * hang) and its NIC, up = 1 toward the NIC: nothing where the NIC is on
 * that root; where it is under switch s (nic_switch, or the first of
 * nic_per_switch's, the nearest) down s's uplink, across the socket link
 * first if s is on socket 1. */
static int root_to_nic(const hs_cluster_spec *c, int n, const hs_link_spec *intra, int up, hs_hop *out) {
  if (!hs_links_pcie_tree(c) || (c->nic_switch < 0 && !c->nic_per_switch)) return 0;
  int s = c->nic_per_switch ? 0 : c->nic_switch, k = 0;
  hs_hop uplink = {tree_base(c) + 2 * (n * c->pcie_switches + s) + up, uplink_of(c, intra), 0};
  if (!up) out[k++] = uplink;
  if (hs_links_socket_of(c, s) == 1) /* the socket link's up way is toward socket 0 */
    out[k++] = (hs_hop){tree_base(c) + 2 * c->nodes * c->pcie_switches + 2 * n + up, c->socket_bandwidth, 0};
  if (up) out[k++] = uplink;
  return k;
}

/* Endpoint r (a GPU or a node's CPU process) of node n to its NIC
 * (up = 1) or from it (up = 0), the NIC's own link left out. */
static int endpoint_nic(const hs_cluster_spec *c, int r, int n, const hs_link_spec *intra, int up, hs_hop *out) {
  int G = c->nodes * c->gpus_per_node, k = 0, pcie = 2 * G + 2 * c->nodes + 2 * racks_of(c);
  int apart = hs_links_nic_apart(c);
  if (r < G) {
    hs_hop own = apart ? (hs_hop){pcie + 2 * n + !up, INFINITY, intra->latency / 2}
                       : (hs_hop){own_id(c, n, r, up), own_link(c, n, intra), intra->latency / 2};
    if (up) out[k++] = own;
    k += to_nic(c, n, intra, r, up, out + k);
    if (!up) out[k++] = own;
    return k;
  }
  /* a CPU process: its link, then from the root as the NIC hangs (an
   * NVLink node's PCIe side, which holds the GPU link's latency) */
  if (up) out[k++] = node_cpu_hop(c, r, 1);
  if (apart && up) out[k++] = (hs_hop){pcie + 2 * n, INFINITY, intra->latency / 2};
  k += root_to_nic(c, n, intra, up, out + k);
  if (apart && !up) out[k++] = (hs_hop){pcie + 2 * n + 1, INFINITY, intra->latency / 2};
  if (!up) out[k++] = node_cpu_hop(c, r, 0);
  return k;
}

/* a to b, two ranks of node n. Between GPUs: up a's switch to where the
 * route turns, b's socket (nothing under one switch with peer access;
 * without it even a switch's own GPUs meet in host memory, at the CPU),
 * and down to b (the socket link was crossed going up). A CPU process
 * sits at socket 0's root, where a route to or from it turns. */
static int route_in_node(const hs_cluster_spec *c, int a, int b, int n, hs_hop *out) {
  int G = c->nodes * c->gpus_per_node, k = 0;
  hs_link_spec intra, inter;
  hs_links_of_node(c, n, &intra, &inter);
  int gpus = a < G && b < G;
  int same_switch = gpus && c->intra_p2p && hs_links_switch_of(c, a) == hs_links_switch_of(c, b);
  int turn = gpus ? hs_links_socket_of(c, hs_links_switch_of(c, b)) : 0;
  if (a < G) {
    out[k++] = (hs_hop){2 * a, own_link(c, n, &intra), intra.latency / 2};
    if (!same_switch) k += climb(c, n, &intra, a, turn, 1, out + k);
  } else {
    out[k++] = node_cpu_hop(c, a, 1);
  }
  if (b < G) {
    if (!same_switch) k += climb(c, n, &intra, b, turn, 0, out + k);
    out[k++] = (hs_hop){own_id(c, n, b, 0), own_link(c, n, &intra), intra.latency / 2};
  } else {
    out[k++] = node_cpu_hop(c, b, 0);
  }
  return k;
}

/* a (of node na, or a server machine: na < 0) to b across the fabric:
 * each end to its NIC, the NICs, and a fat tree's leaf uplinks between
 * racks (a server machine hangs at the top, the spine). */
static int route_across(const hs_cluster_spec *c, int a, int na, int b, int nb, hs_hop *out) {
  int G = c->nodes * c->gpus_per_node, N = c->nodes, k = 0;
  hs_link_spec intra_a, inter_a, intra_b, inter_b;
  if (na >= 0) {
    hs_links_of_node(c, na, &intra_a, &inter_a);
    k += endpoint_nic(c, a, na, &intra_a, 1, out + k);
    out[k++] = (hs_hop){2 * G + 2 * na, inter_a.bandwidth, inter_a.latency / 2};
  } else {
    out[k++] = machine_hop(c, a, 1);
  }
  if (c->topology == HS_TOPO_FAT_TREE) {
    int ra = na < 0 ? -1 : na / c->rack_size, rb = nb < 0 ? -1 : nb / c->rack_size;
    if (ra != rb && ra >= 0) {
      hs_link_spec ua = hs_links_uplink(c, ra);
      out[k++] = (hs_hop){2 * G + 2 * N + 2 * ra, ua.bandwidth, ua.latency};
    }
    if (ra != rb && rb >= 0) {
      hs_link_spec ub = hs_links_uplink(c, rb);
      out[k++] = (hs_hop){2 * G + 2 * N + 2 * rb + 1, ub.bandwidth, ub.latency};
    }
  }
  if (nb >= 0) {
    hs_links_of_node(c, nb, &intra_b, &inter_b);
    out[k++] = (hs_hop){2 * G + 2 * nb + 1, inter_b.bandwidth, inter_b.latency / 2};
    k += endpoint_nic(c, b, nb, &intra_b, 0, out + k);
  } else {
    out[k++] = machine_hop(c, b, 0);
  }
  return k;
}

int hs_links_route(const hs_cluster_spec *c, int a, int b, hs_hop *out) {
  if (a == b) return 0;
  int machines = hs_cluster_rank_of_machine(c, 0);
  int na = a < machines ? hs_cluster_rank_node(c, a) : -1, nb = b < machines ? hs_cluster_rank_node(c, b) : -1;
  if (na >= 0 && na == nb) return route_in_node(c, a, b, na, out);
  return route_across(c, a, na, b, nb, out);
}
