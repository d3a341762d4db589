/* sg_rate.h — a SimGrid communication with a rate of its own.
 *
 * A connection that cannot reach its links' rate by itself (an NCCL
 * channel: one CUDA block copying, protocol.h) is a flow with a bound of
 * its own in SimGrid's max-min sharing: s4u::Comm::set_rate. SimGrid 3.32
 * has no C binding for it, so this is C++
 * (sg_rate.cpp): sg_mailbox_put_async with the bound set before the
 * communication starts (SimGrid allows it only then). */
#ifndef HS_SG_RATE_H
#define HS_SG_RATE_H

#include <simgrid/forward.h>

#ifdef __cplusplus
extern "C" {
#endif

/* As sg_mailbox_put_async, the flow bounded at `rate` bytes per second
 * (rate <= 0: unbounded, which is sg_mailbox_put_async itself). */
sg_comm_t hs_sg_put_async_at_most(sg_mailbox_t mailbox, void *payload, long bytes, double rate);

#ifdef __cplusplus
}
#endif

#endif
