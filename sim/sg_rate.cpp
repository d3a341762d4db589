// sg_rate.cpp — the C binding SimGrid 3.32 lacks (sg_rate.h). It does what
// SimGrid's own sg_mailbox_put_async does (src/s4u/s4u_Mailbox.cpp: the
// comm's reference handed to the C caller), with set_rate before start.
#include "sim/sg_rate.h"

#include <simgrid/mailbox.h>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Mailbox.hpp>

extern "C" sg_comm_t hs_sg_put_async_at_most(sg_mailbox_t mailbox, void *payload, long bytes, double rate) {
  if (!(rate > 0)) return sg_mailbox_put_async(mailbox, payload, bytes);
  simgrid::s4u::CommPtr comm = mailbox->put_init(payload, static_cast<uint64_t>(bytes));
  comm->set_rate(rate);
  comm->start();
  comm->add_ref();
  return comm.get();
}
