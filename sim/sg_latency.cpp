// sg_latency.cpp — messages whose latency the receiver pays (sg_latency.h).
#include "sim/sg_latency.h"

#include <simgrid/comm.h>
#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <xbt/config.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace {

using Key = std::tuple<const simgrid::s4u::Host *, const simgrid::s4u::Host *, uint64_t>;

// Messages started here that SimGrid has not yet given a latency, by
// (source, destination, size): SimGrid asks when both ends are posted,
// which may be after the sender has started others. Runs in one OS thread
// (SimGrid's actors are coroutines), so no lock.
std::map<Key, long> awaiting;

// Not 0: SimGrid gives a flow whose latency is 0 the penalty 1 outright
// (network_cm02.cpp, comm_action_set_variable), so where its latency
// weights stay (LV08) a sliver keeps such a flow weighed as every other;
// under plain sharing (share_plainly below) every flow weighs 1 anyway.
constexpr double kSliver = 1e-12;

// ---- plain max-min sharing ----------------------------------------------
// SimGrid 3.32's CM02 gives each new flow its route's latency as its
// sharing penalty (NetworkCm02Model::communicate), and max-min then splits
// a bottleneck in inverse proportion to it: TCP's bias against long round
// trips. Where an intra-node flow (1 us) and an inter-node one (6 us)
// share a GPU's link, the first got six times the second's bandwidth, which
// no NVLink, PCIe or InfiniBand arbiter does, and which fast fidelity's
// sharing (fast.c, share()) never did: NCCL's tree on 2 x 2 A100 came out
// 21% slower in step than in fast. SimGrid has no setting for plain
// sharing, so the penalty is reset to 1 where it is kept: in
// NetworkAction's own sharing_penalty_ (src/kernel/resource/NetworkModel.hpp
// in SimGrid 3.32, a header SimGrid does not install), which follows
// Action's members as two host references, latency_ and lat_current_.
// The latency-factor callback runs inside communicate() after the new
// flow's action went to the back of the model's started actions
// (Action::Action) and before its max-min variable exists, with latency_,
// lat_current_ and sharing_penalty_ all equal to the route's latency: that
// is checked against the route before anything is written, so a SimGrid
// laid out otherwise keeps its weights and says so once.
struct network_action_tail {
  void *src, *dst;
  double latency, lat_current, sharing_penalty;
};

simgrid::kernel::resource::Model *fair_model = nullptr; // null: SimGrid's weights
bool layout_unexpected = false;

void warn_weights_kept() {
  std::fprintf(stderr, "hearsay: this SimGrid is not laid out as 3.32: its flows keep their latency weights "
                       "(step and fast fidelity may differ)\n");
}

void share_plainly(const std::vector<simgrid::s4u::Link *> &route) {
  if (fair_model == nullptr || layout_unexpected) return;
  auto *started = fair_model->get_started_action_set();
  if (started->empty()) return;
  simgrid::kernel::resource::Action &a = started->back();
  if (a.get_variable() != nullptr) return; // not the new flow: it failed at creation (failed set)
  double latency = 0;
  for (const auto *link : route) latency += link->get_latency();
  if (latency == 0) return; // no latency: SimGrid weighs it 1 already
  auto *tail = reinterpret_cast<network_action_tail *>(reinterpret_cast<char *>(&a) +
                                                       sizeof(simgrid::kernel::resource::Action));
  /* SimGrid sums a route's latencies zone by zone, in an order of its
   * own: the same sum to rounding, not to the bit (1e-9 relative). */
  if (tail->lat_current != tail->latency || tail->sharing_penalty != tail->latency ||
      std::fabs(tail->latency - latency) > 1e-9 * latency) {
    layout_unexpected = true;
    warn_weights_kept();
    return;
  }
  tail->sharing_penalty = 1.0;
}

}  // namespace

extern "C" int hs_sg_latency_hook_install(double factor, int fair_sharing, double *in_use) {
  if (!(factor > 0)) factor = simgrid::config::get_value<double>("network/latency-factor");
  *in_use = factor;
  auto *model = simgrid::s4u::Engine::get_instance()->get_netzone_root()->get_network_model();
  if (model == nullptr) return 0;
  fair_model = fair_sharing ? dynamic_cast<simgrid::kernel::resource::Model *>(model) : nullptr;
  layout_unexpected = false;
  if (fair_sharing && fair_model == nullptr) warn_weights_kept();
  try {
    model->set_lat_factor_cb([factor](double size, const simgrid::s4u::Host *src, const simgrid::s4u::Host *dst,
                                      const std::vector<simgrid::s4u::Link *> &route,
                                      const std::unordered_set<simgrid::s4u::NetZone *> &) {
      share_plainly(route);
      if (awaiting.empty()) return factor;
      auto it = awaiting.find(Key{src, dst, static_cast<uint64_t>(size)});
      if (it == awaiting.end()) return factor;
      if (--it->second == 0) awaiting.erase(it);
      return kSliver;
    });
  } catch (const std::exception &) {  // a configured factor, or a model without factors
    fair_model = nullptr;
    return 0;
  }
  return 1;
}

extern "C" int hs_sg_sharing_is_plain(void) { return fair_model != nullptr && not layout_unexpected; }

extern "C" sg_comm_t hs_sg_put_async_latency_after(sg_mailbox_t mailbox, void *payload, long bytes, double rate,
                                                   sg_host_t src, sg_host_t dst) {
  awaiting[Key{src, dst, static_cast<uint64_t>(bytes)}]++;
  simgrid::s4u::CommPtr comm = mailbox->put_init(payload, static_cast<uint64_t>(bytes));
  if (rate > 0) comm->set_rate(rate);
  comm->start();
  comm->add_ref();  // the C caller's reference, as sg_mailbox_put_async hands it
  return comm.get();
}

extern "C" long hs_sg_wait_any_for(sg_comm_t *comms, size_t count, double timeout, double *ended_at) {
  std::vector<simgrid::s4u::CommPtr> held;
  held.reserve(count);
  for (size_t i = 0; i < count; i++) held.emplace_back(comms[i], false);  // adopts the caller's references
  ssize_t pos = simgrid::s4u::Comm::wait_any_for(held, timeout);
  if (pos >= 0 && ended_at) *ended_at = held[static_cast<size_t>(pos)]->get_finish_time();
  for (size_t i = 0; i < count; i++)
    if (pos < 0 || static_cast<size_t>(pos) != i) held[i]->add_ref();  // handed back to the caller
  return static_cast<long>(pos);
}
