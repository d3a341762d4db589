/* test_nccl_model.c — the port of NCCL's cost model (algos/comm/nccl_model.c)
 * against values worked out by hand from NCCL 2.30.7's src/graph/tuning.cc.
 *
 * Each expected value below is the arithmetic of tuning.cc written out in
 * the comment beside it (constants named as NCCL names them), not a rerun
 * of the code under test. Tolerance 1e-9 relative: both sides compute
 * in double (NCCL itself uses float, 7 digits), so only rounding differs;
 * a wrong constant or term moves the value by far more. */
#include <math.h>
#include <stdio.h>

#include "algos/comm/nccl_model.h"
#include "tests/tap.h"

static void near(double got_s, double want_us, const char *what) {
  double got = got_s * 1e6;
  tap_ok(fabs(got - want_us) <= 1e-9 * want_us, "%s: %.6f us (hand: %.6f us, error %.2e)", what, got, want_us,
         fabs(got - want_us) / want_us);
}

int main(void) {
  const double GiB = 1073741824.0;
  /* 16 nodes x 8 Ampere GPUs over NVLink, Intel hosts, 2 channels of
   * 12.5 GB/s (one 200 Gb/s NIC per node), 5 us of network latency. */
  hs_nccl_topo t = {.ranks = 128, .nodes = 16, .channels = 2, .bw_intra_gbs = 12.5, .bw_inter_gbs = 12.5,
                    .latency_inter_us = 5, .nvlink = 1, .arch = HS_GPU_AMPERE};
  hs_nccl_model m;
  hs_nccl_model_init(&m, &t);
  /* Ring/Simple allreduce: nsteps 2*127 = 254, nInterSteps 2*15 = 30;
   * intraLat max(hwLat[NVLINK][RING][SIMPLE] 3.4, netOverhead 1.0*3) = 3.4;
   * interLat hwLat[NET][RING][SIMPLE] 14 + latencyInter 5 + flush 5 = 24;
   * lat = 8.4 + 224*3.4 + 30*24 = 1490, x1.4 plateau (Ampere) = 2086;
   * busBw 2*12.5 = 25, algBw 25*128/254; time = 2086 + 2^30/(1000*algBw). */
  near(hs_nccl_time(&m, HS_OP_ALLREDUCE, HS_NCCL_RING, HS_PROTO_SIMPLE, GiB), 87314.25728, "16x8 ring/simple 1 GiB");
  /* Tree/LL allreduce: lat = 6.8 + 2*((8-1)*0.6 + log2(16)*(5.0 + 5)) = 95.2;
   * the 2 running channels are 1 of NCCL's search graph across nodes
   * (hs_graph_channels): busBw min(25*.92, 1*17.8) = 17.8, LL:
   * min(17.8/3.8, llMaxBw[0][2] 20.4), algBw x.5; 8 B is below 64 B: no
   * tree correction. */
  near(hs_nccl_time(&m, HS_OP_ALLREDUCE, HS_NCCL_TREE, HS_PROTO_LL, 8), 95.2 + 8 / (1000 * 17.8 / 3.8 * .5),
       "16x8 tree/LL 8 B");
  /* Tree/Simple: lat = 8.4 + 2*(7*4.0 + 4*(14+5+5)) = 256.4, algBw 17.8*.5
   * (the tree's cap); log2(2^30/64) = 24: past the correction table. */
  near(hs_nccl_time(&m, HS_OP_ALLREDUCE, HS_NCCL_TREE, HS_PROTO_SIMPLE, GiB), 256.4 + GiB / (1000 * 17.8 * .5),
       "16x8 tree/simple 1 GiB");
  hs_nccl_algo a;
  hs_proto p;
  double s;
  int picked = hs_nccl_pick(&m, HS_OP_ALLREDUCE, 8, &a, &p, &s);
  tap_ok(picked == 0 && a == HS_NCCL_TREE && p == HS_PROTO_LL,
         "16x8, 8 B: NCCL's model picks tree/LL (got %s/%s)", hs_nccl_algo_name(a), hs_proto_name(p));
  picked = hs_nccl_pick(&m, HS_OP_ALLREDUCE, GiB, &a, &p, &s);
  tap_ok(picked == 0 && a == HS_NCCL_RING && p == HS_PROTO_SIMPLE,
         "16x8, 1 GiB: NCCL's model picks ring/simple (got %s/%s)", hs_nccl_algo_name(a), hs_proto_name(p));
  /* The same cluster over PCIe inside its nodes: no LL128 (NCCL enables it
   * over NVLink only), and a ring's intra-node steps pay PCI's hop
   * latency, hwLat[PCI][RING][SIMPLE] 5.7 in place of NVLink's 3.4:
   * 224 steps x 2.3 us more, x1.4 plateau. */
  hs_nccl_topo tp = t;
  tp.nvlink = 0;
  hs_nccl_model mp;
  hs_nccl_model_init(&mp, &tp);
  tap_ok(hs_nccl_time(&mp, HS_OP_ALLREDUCE, HS_NCCL_RING, HS_PROTO_LL128, GiB) < 0, "PCIe: no LL128");
  near(hs_nccl_time(&mp, HS_OP_ALLREDUCE, HS_NCCL_RING, HS_PROTO_SIMPLE, GiB), 87314.25728 + 224 * 2.3 * 1.4,
       "16x8 over PCIe, ring/simple 1 GiB");
  tap_ok(hs_nccl_time(&m, HS_OP_ALLGATHER, HS_NCCL_TREE, HS_PROTO_SIMPLE, GiB) < 0 &&
             hs_nccl_time(&m, HS_OP_ALLTOALL, HS_NCCL_RING, HS_PROTO_SIMPLE, GiB) < 0 &&
             hs_nccl_time(&m, HS_OP_ALLREDUCE, HS_NCCL_NVLS, HS_PROTO_SIMPLE, GiB) < 0,
         "no tree allgather, no tuned alltoall, no NVLS without the switch");

  /* One node of 8 Hopper GPUs, 2 channels of 150 GB/s. Ring/LL128
   * allreduce: nsteps 14, no network; lat = 14.0 + 14*1.9 = 40.6; busBw
   * min(300*.92, 2*perChMaxRingLL128Bw 36.7) = 73.4, algBw x8/14. */
  hs_nccl_topo h = {.ranks = 8, .nodes = 1, .channels = 2, .bw_intra_gbs = 150, .bw_inter_gbs = 150, .nvlink = 1,
                    .arch = HS_GPU_HOPPER};
  hs_nccl_model mh;
  hs_nccl_model_init(&mh, &h);
  near(hs_nccl_time(&mh, HS_OP_ALLREDUCE, HS_NCCL_RING, HS_PROTO_LL128, 1048576), 65.6001089918256,
       "1x8 Hopper ring/LL128 1 MiB");
  tap_ok(hs_nccl_time(&mh, HS_OP_ALLREDUCE, HS_NCCL_NVLS, HS_PROTO_SIMPLE, GiB) < 0, "NVLS absent when not declared");
  /* With NVLS (the graph's 8 channels, one per GPU, sharing its 300 GB/s
   * of NVLink): per channel min(300/8*.85*7/8*2, inter 150), x8 channels
   * = 446.25, algBw x8/14; lat = NVLINK NVLS Simple 25. The 1 GiB time:
   * 25 + 2^30/(1000*446.25*8/14). */
  h.nvls_channels = 8;
  hs_nccl_model_init(&mh, &h);
  near(hs_nccl_time(&mh, HS_OP_ALLREDUCE, HS_NCCL_NVLS, HS_PROTO_SIMPLE, GiB), 25 + GiB / (1000 * 446.25 * 8 / 14),
       "1x8 Hopper NVLS/simple 1 GiB");
  picked = hs_nccl_pick(&mh, HS_OP_ALLREDUCE, GiB, &a, &p, &s);
  tap_ok(picked == 0 && a == HS_NCCL_NVLS,
         "1x8 Hopper with NVLS, 1 GiB: NCCL's model picks NVLS (got %s/%s)", hs_nccl_algo_name(a),
         hs_proto_name(p));
  /* The NVLS graph as NCCL's search settles it (search.cc): each of 8
   * channels pulls through every GPU's link once and its head's twice, so
   * 9 x bwIntra fit a GPU's NVLink, 370.8 GB/s on Hopper (18 x 20.6):
   * 60 and 50 of the intra speeds do not, 40 does; pass 2 raises bwInter
   * while below twice that, to the array's top, 60. Across nodes the
   * inter speeds, under a NIC's 50 GB/s: 48, 45, 42 do not fit the link,
   * 40 does, bwInter rises to 48. Blackwell's 721.8 (18 x 40.1): 9 x 80
   * = 720 fits, bwInter 90; across nodes 96, 86, 80 exceed the NIC, 48. */
  double gi, ge;
  hs_nccl_nvls_graph(HS_GPU_HOPPER, 1, 8, 370.8, 50, &gi, &ge);
  tap_ok(gi == 40 && ge == 60, "NVLS graph, one node of 8 H100: bwIntra 40, bwInter 60 (got %g, %g)", gi, ge);
  hs_nccl_nvls_graph(HS_GPU_HOPPER, 2, 8, 370.8, 50, &gi, &ge);
  tap_ok(gi == 40 && ge == 48, "NVLS graph, 2 nodes of 8 H100, 8 NDR NICs: 40, 48 (got %g, %g)", gi, ge);
  hs_nccl_nvls_graph(HS_GPU_BLACKWELL, 1, 8, 721.8, 50, &gi, &ge);
  tap_ok(gi == 80 && ge == 90, "NVLS graph, one node of 8 B200: 80, 90 (got %g, %g)", gi, ge);
  hs_nccl_nvls_graph(HS_GPU_BLACKWELL, 2, 8, 721.8, 50, &gi, &ge);
  tap_ok(gi == 48 && ge == 48, "NVLS graph, 2 nodes of 8 B200: 48, 48 (got %g, %g)", gi, ge);
  hs_nccl_nvls_graph(HS_GPU_AMPERE, 1, 8, 240, 25, &gi, &ge);
  tap_ok(gi == 0 && ge == 0, "no NVLS graph before Hopper");
  /* One DGX H100 as NCCL runs it: 16 ring channels of 370.8/16, the NVLS
   * graph's 8 at (40, 60). NVLS: busBw 8 x min(40 x .85 x 7/8 x 2 = 59.5,
   * 60) = 476, algBw x8/14, lat 25; the ring's 370.8 loses: NCCL's model
   * picks NVLS, as NCCL runs it (480 GB/s measured, docs/validation.md).
   * Rated on the ring graph's channel speed (until 2026-11-28) NVLS had
   * 8 x 23.2 and lost to the ring. */
  hs_nccl_topo dgx = {.ranks = 8, .nodes = 1, .channels = 16, .bw_intra_gbs = 370.8 / 16, .bw_inter_gbs = 370.8 / 16,
                      .nvlink = 1, .arch = HS_GPU_HOPPER, .nvls_channels = 8, .nvls_bw_intra_gbs = 40,
                      .nvls_bw_inter_gbs = 60};
  hs_nccl_model md;
  hs_nccl_model_init(&md, &dgx);
  near(hs_nccl_time(&md, HS_OP_ALLREDUCE, HS_NCCL_NVLS, HS_PROTO_SIMPLE, GiB), 25 + GiB / (1000 * 476.0 * 8 / 14),
       "1x8 H100, 16 ring channels: NVLS/simple 1 GiB on the NVLS graph");
  picked = hs_nccl_pick(&md, HS_OP_ALLREDUCE, GiB, &a, &p, &s);
  tap_ok(picked == 0 && a == HS_NCCL_NVLS, "1x8 H100, 16 ring channels, 1 GiB: NCCL's model picks NVLS (got %s/%s)",
         hs_nccl_algo_name(a), hs_proto_name(p));
  /* Two of them: NVLS tree busBw 8 x min(59.5, 2 x 48, perChMaxNVLSTreeBw
   * 57.7) = 461.6; Oracle measured 464.57 (docs/validation.md). */
  dgx.ranks = 16, dgx.nodes = 2, dgx.nvls_bw_inter_gbs = 48, dgx.bw_intra_gbs = dgx.bw_inter_gbs = 384.0 / 16;
  hs_nccl_model_init(&md, &dgx);
  double lat, xfer;
  hs_nccl_time_parts(&md, HS_OP_ALLREDUCE, HS_NCCL_NVLS_TREE, HS_PROTO_SIMPLE, GiB, &lat, &xfer);
  near(xfer, GiB / (1000 * 461.6 * 16 / 30), "2x8 H100: NVLS tree's transfer at 8 x 57.7 GB/s busBw");
  /* Broadcast, ring/Simple, 16x8: nsteps = nranks 128, latency one hop:
   * lat = 8.4 + hwLat[NET][RING][SIMPLE] 14 = 22.4; algBw 25*128/128. */
  near(hs_nccl_time(&m, HS_OP_BROADCAST, HS_NCCL_RING, HS_PROTO_SIMPLE, GiB), 22.4 + GiB / 25000.0,
       "16x8 broadcast ring/simple 1 GiB");
  /* Two nodes of 8 Ampere GPUs, 16 NICs of 100 Gb/s (192 GB/s a node), 32
   * channels: the ring's graph runs at the network's 6 GB/s a channel,
   * the tree's intra speed raised to min(NVLink's 240/32 = 7.5, 2 x 6)
   * (search.cc, pass 2, "increase bwIntra for trees (2 nodes or
   * collnet)"), which tuning.cc uses on two nodes. Tree/Simple: busBw
   * 32*7.5*.92 = 220.8 (under 16 graph channels x perChMaxTreeBw 23.6),
   * algBw x.5 = 110.4; lat = 8.4 + 2*(7*4.0 + 1*(14+5+5)) = 112.4. The
   * ring's algBw is 32*6*16/30 = 102.4: NCCL's model picks the tree. */
  hs_nccl_topo two = {.ranks = 16, .nodes = 2, .channels = 32, .bw_intra_gbs = 6, .bw_inter_gbs = 6,
                      .bw_tree_intra_gbs = 7.5, .latency_inter_us = 5, .nvlink = 1, .arch = HS_GPU_AMPERE};
  hs_nccl_model m2;
  hs_nccl_model_init(&m2, &two);
  near(hs_nccl_time(&m2, HS_OP_ALLREDUCE, HS_NCCL_TREE, HS_PROTO_SIMPLE, GiB), 112.4 + GiB / (1000 * 110.4),
       "2x8, tree/simple 1 GiB at the tree graph's raised intra speed");
  picked = hs_nccl_pick(&m2, HS_OP_ALLREDUCE, GiB, &a, &p, &s);
  tap_ok(picked == 0 && a == HS_NCCL_TREE && p == HS_PROTO_SIMPLE,
         "2x8, 16 NICs, 1 GiB: NCCL's model picks tree/simple (got %s/%s)", hs_nccl_algo_name(a), hs_proto_name(p));
  /* On three nodes tuning.cc takes every graph's bwInter: the tree moves
   * 32*6*.92*.5 = 88.3 GB/s, the ring 32*6*24/46 = 100.2: the ring. */
  two.ranks = 24, two.nodes = 3;
  hs_nccl_model_init(&m2, &two);
  picked = hs_nccl_pick(&m2, HS_OP_ALLREDUCE, GiB, &a, &p, &s);
  tap_ok(picked == 0 && a == HS_NCCL_RING && p == HS_PROTO_SIMPLE,
         "3x8, 1 GiB: the raised intra speed is not used, NCCL's model picks ring/simple (got %s/%s)",
         hs_nccl_algo_name(a), hs_proto_name(p));
  /* One rank: nothing moves. */
  hs_nccl_topo one = {.ranks = 1, .nodes = 1, .channels = 2, .bw_intra_gbs = 1, .bw_inter_gbs = 1, .nvlink = 1};
  hs_nccl_model m1;
  hs_nccl_model_init(&m1, &one);
  tap_ok(hs_nccl_time(&m1, HS_OP_ALLREDUCE, HS_NCCL_RING, HS_PROTO_SIMPLE, GiB) == 0, "one rank: 0 s");
  return tap_done(0);
}
