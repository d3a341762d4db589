/* nccl_model.c — NCCL's cost model (nccl_model.h), ported from NCCL 2.30.7,
 * src/graph/tuning.cc (github.com/NVIDIA/nccl, commit 5067397). Constants
 * keep NCCL's names in comments so they can be checked against the source;
 * what NCCL reads from its topology search is taken from the cluster
 * (hs_nccl_topo_of). Only the default tuner constants are modelled: no
 * NCCL_ALGO/NCCL_PROTO environment, no tuner plugin, no fp8 demotion. */
#include "algos/comm/nccl_model.h"

#include <math.h>
#include <string.h>

#include "scenarios/links.h"
#include "scenarios/net_transport.h"

enum { HW_NVLINK = HS_NCCL_HW_NVLINK, HW_PCI = HS_NCCL_HW_PCI, HW_NET = HS_NCCL_HW_NET };

/* baseLatencies [algo][proto], us */
static const double base_lat[HS_NCCL_ALGOS][HS_PROTOS] = {
    {6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, /* Tree, Ring */
    {0, 0, 0},        {0, 0, 0},        /* CollNet Direct, Chain */
    {0, 0, 0},        {0, 0, 0},        /* NVLS, NVLS Tree */
    {8.0, 8.0, 8.0}};                   /* PAT */

/* hwLatencies [hw][algo][proto], us */
static const double hw_lat[3][HS_NCCL_ALGOS][HS_PROTOS] = {
    /* NVLINK */
    {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
    /* PCI */
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
    /* NET */
    {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}}};

/* llMaxBws [index1][index2], GB/s: index1 the GPU generation on one node,
 * Intel (0) or AMD (1) hosts across nodes; index2 nodes 1, 2, more. */
static const double ll_max_bw[4][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}};
/* per-channel caps [generation][index2], GB/s */
static const double ring_ll128_max[4][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {40, 40, 40}};
static const double tree_ll128_max[4][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
static const double tree_max[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
static const double nvls_tree_max[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0, 57.7, 45.5}, {0, 96.0, 80.0}};
/* nvlsEfficiency [generation] */
static const double nvls_eff[4] = {0, 0, 0.85, 0.74};

/* search.cc's speed arrays (GB/s a channel), Hopper and Blackwell: one
 * node's, several nodes' */
static const double sm90_intra[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
static const double sm90_inter[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                    15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
static const double sm100_intra[] = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
static const double sm100_inter[] = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0,
                                     20.0, 17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* treeCorrectionFactor [proto][log2(bytes / 64)], 64 B to 256 MiB */
static const double tree_correction[HS_PROTOS][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};

static int log2i(double x) {
  int l = 0;
  while (x >= 2) x /= 2, l++;
  return l;
}

static double dmin(double a, double b) { return a < b ? a : b; }

/* NCCL's functions, by hearsay kind; -1: not tuned by NCCL. */
static int tuned(hs_op_kind k) {
  return k == HS_OP_ALLREDUCE || k == HS_OP_REDUCE_SCATTER || k == HS_OP_ALLGATHER || k == HS_OP_BROADCAST ||
         k == HS_OP_REDUCE;
}

/* The row of NCCL's per-generation tables: Volta's for every compute
 * capability below 8 (tuning.cc, compCapIndex), Pascal's included. */
static int generation(hs_gpu_arch arch) { return arch <= HS_GPU_VOLTA ? 0 : (int)arch - (int)HS_GPU_VOLTA; }

static void tune(hs_nccl_model *m, hs_op_kind coll) {
  const hs_nccl_topo *t = &m->topo;
  int n = t->ranks, nodes = t->nodes, gen = generation(t->arch);
  int index2 = nodes <= 2 ? nodes - 1 : 2;
  double ppn = (double)n / nodes;
  int intra_hw = t->nvlink ? HW_NVLINK : HW_PCI, hw = nodes == 1 ? intra_hw : HW_NET;
  int allreduce = coll == HS_OP_ALLREDUCE, rs_ag = coll == HS_OP_REDUCE_SCATTER || coll == HS_OP_ALLGATHER;
  int nsteps = allreduce ? 2 * (n - 1) : rs_ag ? n - 1 : n;
  int pat_enabled = nodes == n; /* one GPU per node, the host driving the network */
  for (int a = 0; a < HS_NCCL_ALGOS; a++)
    for (int p = 0; p < HS_PROTOS; p++) m->bw_gbs[coll][a][p] = 0;
  if (n <= 1) return;
  for (int a = 0; a < HS_NCCL_ALGOS; a++) {
    if ((coll == HS_OP_BROADCAST || coll == HS_OP_REDUCE) && a != HS_NCCL_RING) continue;
    if (rs_ag && a != HS_NCCL_PAT && a != HS_NCCL_RING && a != HS_NCCL_NVLS && a != HS_NCCL_COLLNET_DIRECT) continue;
    if (allreduce && a == HS_NCCL_PAT) continue;
    int channels = a == HS_NCCL_NVLS || a == HS_NCCL_NVLS_TREE ? t->nvls_channels : t->channels;
    for (int p = 0; p < HS_PROTOS; p++) {
      if ((a == HS_NCCL_NVLS || a == HS_NCCL_NVLS_TREE) && p != HS_PROTO_SIMPLE) continue;
      if (rs_ag && a == HS_NCCL_PAT && (p != HS_PROTO_SIMPLE || !pat_enabled)) continue;
      int collnet = a == HS_NCCL_COLLNET_DIRECT || a == HS_NCCL_COLLNET_CHAIN;
      /* tuning.cc: bw = nNodes <= 2 ? graph->bwIntra : graph->bwInter, each
       * algorithm its own graph's: the ring's intra speed is its network's
       * (search.cc raises both together for rings), the tree's may be up to
       * twice it */
      double bw = nodes <= 2 || collnet ? t->bw_intra_gbs : t->bw_inter_gbs;
      if (a == HS_NCCL_TREE && nodes == 2 && t->bw_tree_intra_gbs > 0) bw = t->bw_tree_intra_gbs;
      if (a == HS_NCCL_NVLS || a == HS_NCCL_NVLS_TREE) {
        if (channels < 2) continue; /* NVLS needs at least 2 channels */
        /* the NVLS graph's own speeds (hs_nccl_nvls_graph); where there
         * are none (a generation NCCL has no NVLS graph for, which a
         * scenario may still give nvls = true; a topology written by
         * hand) the ring graph's, shared among the NVLS channels, and its
         * network figure per channel */
        double g_intra = t->nvls_bw_intra_gbs, g_inter = t->nvls_bw_inter_gbs;
        if (!(g_intra > 0)) {
          g_intra = t->bw_intra_gbs * t->channels / channels;
          g_inter = t->bw_inter_gbs;
        }
        double intra = g_intra * nvls_eff[gen] * (channels - 1) / channels;
        intra *= allreduce ? 2.0 : (ppn - 1) / ppn; /* allreduce pipelines two operations */
        double inter = g_inter * (nodes <= 2 && a == HS_NCCL_NVLS_TREE ? 2 : 1);
        bw = dmin(intra, inter);
        if (a == HS_NCCL_NVLS_TREE) bw = dmin(bw, nvls_tree_max[gen][index2]);
      }
      double bus = channels * bw;
      /* NCCL's refinements: the protocol's share of the links, then its
       * caps in GB/s (per GPU generation and host CPU), noted where they
       * bind */
      int capped = 0;
      if (a == HS_NCCL_RING && p == HS_PROTO_LL) bus *= .5;
      if (a == HS_NCCL_RING && p == HS_PROTO_LL128) bus *= 0.92;
      if (a == HS_NCCL_TREE && allreduce) bus *= .92;
      if (a == HS_NCCL_TREE && p == HS_PROTO_LL) bus = bus * 1.0 / 3.8;
      if (a == HS_NCCL_TREE && p == HS_PROTO_LL128) bus *= nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0;
      if (a == HS_NCCL_RING || (a == HS_NCCL_TREE && allreduce)) {
        double cap = hs_nccl_bus_cap(t->arch, t->cpu_amd, nodes, hs_graph_channels(channels, nodes), (hs_nccl_algo)a,
                                     (hs_proto)p);
        if (cap > 0 && cap < bus) bus = cap, capped = 1;
      }
      m->capped[coll][a][p] = capped;
      if (a == HS_NCCL_PAT) bus *= .75;
      if (collnet && p != HS_PROTO_SIMPLE) bus = 0;
      if (a == HS_NCCL_COLLNET_DIRECT && p == HS_PROTO_SIMPLE) {
        if (rs_ag) bus = ppn * dmin(t->bw_intra_gbs, t->bw_inter_gbs * 0.9);
        else {
          double factor = ppn / (1.0 * hs_graph_channels(channels, nodes)); /* GPU / NIC ratio */
          factor -= (factor - 1) / 2;
          bus /= factor;
          if (t->arch >= HS_GPU_HOPPER) bus *= .85;
        }
      }
      /* NVLS and CollNet Direct reduce-scatter/allgather across nodes need
       * the collnet plugin's own calls; not modelled: disabled. */
      if ((a == HS_NCCL_NVLS || a == HS_NCCL_COLLNET_DIRECT) && rs_ag && nodes > 1) bus = 0;
      /* bus bandwidth to algorithm bandwidth */
      if (!(a != HS_NCCL_RING && rs_ag)) {
        double ratio = a == HS_NCCL_RING || a == HS_NCCL_NVLS || a == HS_NCCL_NVLS_TREE ? (double)n / nsteps : .5;
        bus *= ratio;
      }
      /* Which algorithms exist on this cluster (ncclTopoTuneModel's
       * disable list and the LL128 enable rule). */
      if (nodes == 1 && a == HS_NCCL_NVLS_TREE) bus = 0;
      if (!t->collnet && (collnet || (a == HS_NCCL_NVLS && nodes > 1))) bus = 0;
      if ((a == HS_NCCL_NVLS || a == HS_NCCL_NVLS_TREE) && t->nvls_channels == 0) bus = 0;
      if (a == HS_NCCL_COLLNET_DIRECT && !t->nvlink) bus = 0; /* needs an NVSwitch system */
      if (p == HS_PROTO_LL128 && !t->nvlink) bus = 0; /* LL128 only over NVLink (every generation here is >= Volta) */
      m->bw_gbs[coll][a][p] = bus;

      double lat = base_lat[a][p];
      double intra_lat = hw_lat[intra_hw][a][p];
      /* ppn 1: latencies fully exposed, the tree's network latency */
      double inter_lat = ppn == 1 ? hw_lat[HW_NET][HS_NCCL_TREE][p] : hw_lat[HW_NET][a][p];
      inter_lat += t->latency_inter_us;
      if (p == HS_PROTO_SIMPLE) inter_lat += t->latency_inter_us; /* the flush */
      if (a == HS_NCCL_RING) {
        double l = hw_lat[hw][a][p];
        if (coll == HS_OP_REDUCE || coll == HS_OP_BROADCAST) {
          /* the search's channels are the same for every ring here (sameChannels) */
          lat += l;
        } else {
          double net_overhead = nodes > 1 ? hs_nccl_net_overhead((hs_proto)p, t->cpu_amd) * 1e6 : 0;
          intra_lat = intra_lat > net_overhead ? intra_lat : net_overhead;
          int inter_steps = nodes == 1 ? 0 : allreduce ? 2 * (nodes - 1) : nodes - 1;
          lat += (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat;
        }
      } else if (a == HS_NCCL_TREE) {
        if (allreduce) lat += 2 * ((n / nodes - 1) * intra_lat + log2i(nodes) * inter_lat);
      } else if (a == HS_NCCL_COLLNET_DIRECT) {
        int local = n / nodes - 1;
        lat += 2 * ((local < 1 ? local : 1) * intra_lat + local * 0.4) + inter_lat;
      } else if (a == HS_NCCL_COLLNET_CHAIN) {
        lat += 2 * (n / nodes - 1) * intra_lat + inter_lat;
      } else if (a == HS_NCCL_NVLS) {
        lat = intra_lat + (nodes > 1 ? inter_lat : 0);
      } else if (a == HS_NCCL_NVLS_TREE) {
        lat += intra_lat + 2 * log2i(nodes) * inter_lat;
      } else if (a == HS_NCCL_PAT && rs_ag) {
        lat += log2i(nodes) * (inter_lat / 3.5) + n * 2.8;
      }
      m->lat_us[coll][a][p] = lat;
    }
  }
}

void hs_nccl_model_init(hs_nccl_model *m, const hs_nccl_topo *t) {
  memset(m, 0, sizeof *m);
  m->topo = *t;
  for (int k = 0; k < HS_OP_KINDS; k++)
    if (tuned((hs_op_kind)k)) tune(m, (hs_op_kind)k);
}

int hs_nccl_time_parts(const hs_nccl_model *m, hs_op_kind k, hs_nccl_algo a, hs_proto p, double bytes,
                       double *latency, double *transfer) {
  *latency = *transfer = -1;
  if (k >= HS_OP_KINDS || a >= HS_NCCL_ALGOS || p >= HS_PROTOS || !tuned(k)) return -1;
  if (m->topo.ranks <= 1) { /* NCCL copies locally; nothing to model */
    *latency = *transfer = 0;
    return 0;
  }
  double bw = m->bw_gbs[k][a][p], lat = m->lat_us[k][a][p];
  if (bw == 0) return -1;
  int fitted = 0, log_size = bytes >= 64 ? log2i(floor(bytes / 64)) : -1;
  double corr = 1;
  if (a == HS_NCCL_TREE && k == HS_OP_ALLREDUCE && log_size >= 0 && log_size < 23) corr = tree_correction[p][log_size];
  if (a == HS_NCCL_NVLS_TREE && k == HS_OP_ALLREDUCE && log_size >= 0 && log_size < 24 &&
      m->topo.arch >= HS_GPU_BLACKWELL && !m->topo.cpu_amd)
    corr = tree_correction[p][log_size];
  if (corr != 1) bw *= corr, fitted |= HS_NCCL_FIT_TREE_CORRECTION;
  if (a == HS_NCCL_RING && p == HS_PROTO_SIMPLE && m->topo.nodes > 1 && k == HS_OP_ALLREDUCE &&
      bytes / ((double)m->topo.channels * m->topo.ranks) >= 64) {
    lat *= m->topo.arch < HS_GPU_AMPERE ? 1.9 : 1.4; /* "plateau effect of ring" */
    fitted |= HS_NCCL_FIT_RING_PLATEAU;
  }
  *latency = lat * 1e-6;
  *transfer = bytes / (1000 * bw) * 1e-6;
  return fitted;
}

double hs_nccl_time(const hs_nccl_model *m, hs_op_kind k, hs_nccl_algo a, hs_proto p, double bytes) {
  double lat, xfer;
  return hs_nccl_time_parts(m, k, a, p, bytes, &lat, &xfer) < 0 ? -1 : lat + xfer;
}

int hs_nccl_pick(const hs_nccl_model *m, hs_op_kind k, double bytes, hs_nccl_algo *a, hs_proto *p, double *seconds) {
  double best = -1;
  for (int x = 0; x < HS_NCCL_ALGOS; x++)
    for (int y = 0; y < HS_PROTOS; y++) {
      double t = hs_nccl_time(m, k, (hs_nccl_algo)x, (hs_proto)y, bytes);
      if (t >= 0 && (best < 0 || t < best)) {
        best = t;
        *a = (hs_nccl_algo)x;
        *p = (hs_proto)y;
      }
    }
  if (seconds) *seconds = best;
  return best < 0 ? -1 : 0;
}

/* The cluster as NCCL's search would see it. Per channel, the bandwidth
 * every ring or tree gets: on one node, a GPU's NVLink share; across
 * nodes, NCCL searches intra and inter with one speed, so the bottleneck
 * of a GPU's link and its node's NICs (every node's ring enters and leaves
 * through them once per channel). Channels: two per NIC, as NCCL's search
 * finds one ring per NIC on rail-optimised nodes and then duplicates them
 * (search.cc, ncclTopoDupChannels); sim.channels overrides it. */
/* What every communicator shares: its channels, GPUs and hosts. */
static void topo_common(const hs_scenario *sc, hs_nccl_topo *t) {
  const hs_cluster_spec *c = &sc->cluster;
  memset(t, 0, sizeof *t);
  t->channels = hs_channels_of(sc);
  t->nvlink = c->intra_link == HS_INTRA_NVLINK; /* else PCIe: its hop latencies, no LL128 */
  t->arch = c->gpu_arch;
  t->cpu_amd = c->cpu == HS_CPU_AMD;
  t->collnet = c->in_network_reduction;
}

void hs_nccl_nvls_graph(hs_gpu_arch arch, int nodes, int channels, double link_gbs, double nic_gbs, double *intra,
                        double *inter) {
  *intra = *inter = 0;
  if (arch != HS_GPU_HOPPER && arch != HS_GPU_BLACKWELL) return;
  int across = nodes > 1, n;
  const double *speed;
  if (arch == HS_GPU_HOPPER) speed = across ? sm90_inter : sm90_intra, n = across ? COUNT(sm90_inter) : COUNT(sm90_intra);
  else speed = across ? sm100_inter : sm100_intra, n = across ? COUNT(sm100_inter) : COUNT(sm100_intra);
  int i = 0;
  while (i < n - 1 && ((channels + 1) * speed[i] > link_gbs || (across && speed[i] > nic_gbs))) i++;
  *intra = *inter = speed[i];
  while (i > 0 && *inter < 2 * *intra && (!across || speed[i - 1] <= nic_gbs)) *inter = speed[--i];
}

/* Per channel: a GPU's NVLink share on one node; across nodes the
 * bottleneck of a GPU's link and its node's NICs. The NVLS graph has a
 * channel per GPU pulling from the switch, at most NCCL_MAX_NVLS_ARITY 32
 * (search.cc, ncclTopoCompute; NCCL 2.30.7): what the tuning counts, not
 * the 16 channels NVLS kernels run on. */
static void topo_links(const hs_scenario *sc, hs_nccl_topo *t, double intra, double nics, double reach,
                       double nic_line, double nic_latency, int per_node) {
  const hs_cluster_spec *c = &sc->cluster;
  double link = intra; /* a GPU's NVLink, as NCCL rates it */
  /* NCCL's search finds channels through the NICs next to the GPUs it
   * has, at the rate of the GPUs' PCIe links on the way (a communicator of
   * one GPU a node reaches that GPU's NIC) */
  if (t->nodes > 1) nics = dmin(nics, reach);
  double total = t->nodes > 1 ? dmin(intra, nics) : intra;
  t->bw_intra_gbs = t->bw_inter_gbs = total / 1e9 / t->channels;
  /* a tree's graph: its intra speed raised after its network's is found,
   * while below twice it and the GPUs' links carry it (search.cc, pass 2) */
  t->bw_tree_intra_gbs = t->nodes > 1 ? dmin(intra / 1e9 / t->channels, 2 * t->bw_inter_gbs) : t->bw_intra_gbs;
  /* NCCL's graph takes latencyInter from its network plugin (search.cc:
   * graph->latencyInter = net->net.latency), and both of NCCL's own
   * report none: "props->latency = 0; // Not set" (net_ib/init.cc,
   * net_socket.cc). So NCCL's model, and the picks it makes, never see
   * what a network adds beyond its constants: a long link, a switch's
   * delay, TCP's cost per message (nic_latency here, which the
   * simulation charges). Before 2026-11-29 hearsay's port added it and
   * picked as a better-informed NCCL would: with 5 ms across nodes its
   * tuner ran BERT-Large's allreduces on the tree where NCCL keeps its
   * ring. */
  (void)nic_latency;
  t->latency_inter_us = 0;
  /* NVLS channels: one a GPU on one node; across nodes one a head, a
   * GPU with a NIC of its own (search.cc: "NVLS search only tries to find
   * NIC:GPU combinations to compute the heads"); at most
   * NCCL_MAX_NVLS_ARITY 32 */
  int heads = t->nodes > 1 && c->nics_per_node < per_node ? c->nics_per_node : per_node;
  t->nvls_channels = c->nvls ? (heads < 32 ? heads : 32) : 0;
  if (t->nvls_channels > 0)
    hs_nccl_nvls_graph(c->gpu_arch, t->nodes, t->nvls_channels, link / 1e9, nic_line / 1e9,
                       &t->nvls_bw_intra_gbs, &t->nvls_bw_inter_gbs);
}

void hs_nccl_topo_of(const hs_scenario *sc, hs_nccl_topo *t) {
  const hs_cluster_spec *c = &sc->cluster;
  topo_common(sc, t);
  t->ranks = c->nodes * c->gpus_per_node;
  t->nodes = c->nodes;
  hs_link_spec intra, inter;
  hs_links_of_node(c, 0, &intra, &inter); /* inter: the node's NICs together */
  double reach = INFINITY, nic_line = c->inter.bandwidth; /* the narrowest node's (per-node overrides) */
  for (int n = 0; n < c->nodes && c->nodes > 1; n++) {
    reach = dmin(reach, hs_net_reach(c, n, t->channels, c->gpus_per_node));
    nic_line = dmin(nic_line, hs_links_nic_line_rate(c, n));
  }
  topo_links(sc, t, intra.bandwidth, inter.bandwidth, reach, nic_line, inter.latency, c->gpus_per_node);
}

void hs_nccl_topo_of_group(const hs_scenario *sc, const hs_tuner_topo *g, hs_nccl_topo *t) {
  topo_common(sc, t);
  t->ranks = g->n;
  t->nodes = g->nodes > 0 ? g->nodes : 1;
  /* the tuner's intra-node figure is a hop's: a GPU's link (or the
   * narrowest), which is NCCL's bwIntra on NVSwitch nodes; across
   * nodes its hop's latency is the route's, NIC to NIC */
  double intra = isfinite(g->bw_intra) ? g->bw_intra : g->ring_bw;
  double nic_lat = t->nodes > 1 ? g->lat_inter / 2 : 0;
  /* a topology built by hand (tests) may leave the NICs' line rate unset */
  double nic_line = g->nic_line > 0 && isfinite(g->nic_line) ? g->nic_line : sc->cluster.inter.bandwidth;
  topo_links(sc, t, intra, g->nic, g->reach, nic_line, nic_lat, g->per_node);
}

double hs_nccl_bus_cap(hs_gpu_arch arch, int cpu_amd, int nodes, int channels, hs_nccl_algo a, hs_proto p) {
  int gen = generation(arch), index2 = nodes <= 2 ? nodes - 1 : 2, index1 = nodes == 1 ? gen : cpu_amd ? 1 : 0;
  if (nodes < 1 || channels < 1 || gen < 0 || gen > 3) return 0;
  double ll = ll_max_bw[index1][index2];
  if (a == HS_NCCL_RING)
    return p == HS_PROTO_LL ? ll : p == HS_PROTO_LL128 ? channels * ring_ll128_max[gen][index2] : 0;
  if (a != HS_NCCL_TREE) return 0;
  /* the tree's own cap, under the protocol's share as NCCL applies it */
  double tree = channels * tree_max[gen][index2];
  if (p == HS_PROTO_LL) return dmin(tree * 1.0 / 3.8, ll);
  if (p == HS_PROTO_LL128)
    return dmin(tree * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), channels * tree_ll128_max[gen][index2]);
  return tree;
}

double hs_nccl_base_latency(hs_nccl_algo a, hs_proto p) {
  return a < HS_NCCL_ALGOS && p < HS_PROTOS ? base_lat[a][p] * 1e-6 : 0;
}

double hs_nccl_hop_latency(hs_nccl_hw hw, hs_nccl_algo a, hs_proto p) {
  return hw <= HS_NCCL_HW_NET && a < HS_NCCL_ALGOS && p < HS_PROTOS ? hw_lat[hw][a][p] * 1e-6 : 0;
}

/* tuning.cc: netOverhead = 1 us (Intel hosts) or 2 us (AMD), x3 for Simple. */
double hs_nccl_net_overhead(hs_proto p, int cpu_amd) {
  double us = cpu_amd ? 2.0 : 1.0;
  return (p == HS_PROTO_SIMPLE ? 3 * us : us) * 1e-6;
}

const char *hs_nccl_algo_name(hs_nccl_algo a) {
  static const char *const names[HS_NCCL_ALGOS] = {"tree", "ring", "collnet_direct", "collnet_chain",
                                                   "nvls", "nvls_tree", "pat"};
  return a < HS_NCCL_ALGOS ? names[a] : "?";
}
