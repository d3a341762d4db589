/* sg_rate.h — a SimGrid communication with a rate of its own, and when
 * communications ended.
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

/* As sg_comm_test, and when it ended in *ended (once it has). */
int hs_sg_comm_test_ended(sg_comm_t comm, double *ended);

/* As sg_comm_wait_all; returns when the last of them ended (simulated s):
 * what a point-to-point group's cost beyond its links counts from (a
 * rank that waits after they ended does not pay it again). */
double hs_sg_comm_wait_all_ended(sg_comm_t *comms, size_t count);

#ifdef __cplusplus
}
#endif

#endif
