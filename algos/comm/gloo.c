/* gloo.c — what a collective costs through Gloo (gloo.h). */
#include "algos/comm/gloo.h"

hs_proto_cost hs_gloo_cost(const hs_scenario *sc) {
  const hs_cluster_spec *c = &sc->cluster;
  hs_proto_cost g = {.wire = 1, .slice = HS_GLOO_SEGMENT, .host = 1, .window = HS_GLOO_IN_FLIGHT};
  g.rate = c->host_tcp_stream_bandwidth;
  g.hop_intra = c->host_tcp_message_cost;
  /* a message between nodes already pays the NICs' own per-message cost
   * on the links (inter.message_cost: the kernel's stack on a TCP
   * cluster); Gloo's stack is that same one, not a second */
  double charged = c->transport.message_cost;
  g.hop_net = c->host_tcp_message_cost > charged ? c->host_tcp_message_cost - charged : 0;
  if (sc->sim.gloo_staging && c->gpu_pcie_bandwidth > 0) g.stage = 1 / c->gpu_pcie_bandwidth;
  return g;
}
