// sg_occupancy.cpp — a bounded execution held by reference (sg_occupancy.h).
#include "sim/sg_occupancy.h"

#include <cmath>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>

struct hs_sg_occupancy {
  simgrid::s4u::ExecPtr exec;
};

extern "C" hs_sg_occupancy *hs_sg_occupy(sg_host_t host, double rate, double until) {
  double now = simgrid::s4u::Engine::get_clock();
  if (!(rate > 0) || !(until > now)) return nullptr;
  // An open-ended hold is an execution too long to end: 1e300 flops.
  double amount = std::isinf(until) ? 1e300 : rate * (until - now);
  auto *o = new hs_sg_occupancy;
  o->exec = simgrid::s4u::Exec::init();
  o->exec->set_name("sm-occupancy");
  o->exec->set_host(host);
  o->exec->set_flops_amount(amount);
  o->exec->set_bound(rate);
  o->exec->start();
  return o;
}

extern "C" void hs_sg_release(hs_sg_occupancy *o) {
  if (!o) return;
  if (o->exec->get_state() != simgrid::s4u::Activity::State::FINISHED) o->exec->cancel();
  delete o;
}
