// sg_latency.cpp — messages whose latency the receiver pays (sg_latency.h).
#include "sim/sg_latency.h"

#include <simgrid/comm.h>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <xbt/config.hpp>

#include <cstdint>
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

// Not 0: a flow with no latency is one SimGrid never weighs by its route's
// latency, where every other flow is (network_cm02.cpp, sharing_penalty_).
constexpr double kSliver = 1e-12;

}  // namespace

extern "C" int hs_sg_latency_hook_install(double factor, double *in_use) {
  if (!(factor > 0)) factor = simgrid::config::get_value<double>("network/latency-factor");
  *in_use = factor;
  auto *model = simgrid::s4u::Engine::get_instance()->get_netzone_root()->get_network_model();
  if (model == nullptr) return 0;
  try {
    model->set_lat_factor_cb([factor](double size, const simgrid::s4u::Host *src, const simgrid::s4u::Host *dst,
                                      const std::vector<simgrid::s4u::Link *> &,
                                      const std::unordered_set<simgrid::s4u::NetZone *> &) {
      if (awaiting.empty()) return factor;
      auto it = awaiting.find(Key{src, dst, static_cast<uint64_t>(size)});
      if (it == awaiting.end()) return factor;
      if (--it->second == 0) awaiting.erase(it);
      return kSliver;
    });
  } catch (const std::exception &) {  // a configured factor, or a model without factors
    return 0;
  }
  return 1;
}

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
