/* protocol.c — the protocols' costs (protocol.h), from NCCL's constants. */
#include "algos/comm/protocol.h"

#include "algos/comm/nccl_model.h"

/* Payload bytes per step (NCCL 2.30.7, src/init.cc and src/include/device.h):
 *  LL:     NCCL_LL_LINES_PER_THREAD 8 x NCCL_LL_MAX_NTHREADS 512 x 16-byte
 *          lines = 64 KiB per step, half of it data;
 *  LL128:  NCCL_LL128_ELEMS_PER_THREAD 120 x NCCL_LL128_MAX_NTHREADS 640 x
 *          8 bytes = 600 KiB per step, 15 of every 16 words data;
 *  Simple: DEFAULT_BUFFSIZE 4 MiB / NCCL_STEPS 8 = 512 KiB. */
static const double step_payload[HS_PROTOS] = {8.0 * 512 * 16 / 2, 120.0 * 640 * 8 * 15 / 16, 4194304.0 / 8};
/* Wire bytes per payload byte: LL 16/8, LL128 128/120, Simple 1. */
static const double wire_factor[HS_PROTOS] = {2.0, 128.0 / 120.0, 1.0};

hs_proto_cost hs_proto_cost_of(int p, hs_proto_family f, int multi_node, int cpu_amd) {
  hs_proto_cost c = {.wire = 1, .slice = step_payload[HS_PROTO_SIMPLE]};
  if (p < 0 || p >= HS_PROTOS) return c; /* none: the links alone */
  hs_nccl_algo a = f == HS_PROTO_FOR_TREE ? HS_NCCL_TREE : HS_NCCL_RING;
  c.wire = wire_factor[p];
  c.slice = step_payload[p];
  c.launch = hs_nccl_base_latency(a, (hs_proto)p);
  /* hearsay's nodes are NVSwitch nodes (sim/platform.c): NVLink inside. */
  c.hop_intra = hs_nccl_hop_latency(HS_NCCL_HW_NVLINK, a, (hs_proto)p);
  /* NCCL charges the proxy's overhead on a multi-node ring's every step
   * (tuning.cc, "inter-node rings still have to launch nsteps * net
   * overhead"), not on a tree's chain hops. */
  if (multi_node && f == HS_PROTO_FOR_RING) {
    double proxy = hs_nccl_net_overhead((hs_proto)p, cpu_amd);
    if (c.hop_intra < proxy) c.hop_intra = proxy;
  }
  c.hop_net = hs_nccl_hop_latency(HS_NCCL_HW_NET, a, (hs_proto)p);
  return c;
}

const char *hs_proto_name(int p) {
  static const char *const names[HS_PROTOS + 2] = {"ll", "ll128", "simple", "none", "auto"};
  return p >= 0 && p <= HS_PROTO_AUTO ? names[p] : "?";
}
