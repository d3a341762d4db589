// sg_rate.cpp — the C binding SimGrid 3.32 lacks (sg_rate.h). It does what
// SimGrid's own sg_mailbox_put_async does (src/s4u/s4u_Mailbox.cpp: the
// comm's reference handed to the C caller), with set_rate before start.
#include "sim/sg_rate.h"

#include <simgrid/mailbox.h>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Mailbox.hpp>

extern "C" int hs_sg_comm_test_ended(sg_comm_t comm, double *ended) {
  bool finished = comm->test();
  if (finished) {
    *ended = comm->get_finish_time();
    comm->unref(); // as sg_comm_test releases a finished comm
  }
  return finished;
}

extern "C" double hs_sg_comm_wait_all_ended(sg_comm_t *comms, size_t count) {
  std::vector<simgrid::s4u::CommPtr> held;
  held.reserve(count);
  for (size_t i = 0; i < count; i++) held.emplace_back(comms[i], false); // adopts the caller's references
  simgrid::s4u::Comm::wait_all(held);
  double ended = 0;
  for (const auto &c : held)
    if (c->get_finish_time() > ended) ended = c->get_finish_time();
  return ended; // held releases them, as sg_comm_wait_all does
}

extern "C" sg_comm_t hs_sg_put_async_at_most(sg_mailbox_t mailbox, void *payload, long bytes, double rate) {
  if (!(rate > 0)) return sg_mailbox_put_async(mailbox, payload, bytes);
  simgrid::s4u::CommPtr comm = mailbox->put_init(payload, static_cast<uint64_t>(bytes));
  comm->set_rate(rate);
  comm->start();
  comm->add_ref();
  return comm.get();
}
