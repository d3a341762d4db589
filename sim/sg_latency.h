/* sg_latency.h — messages whose latency the receiver pays after the bytes.
 *
 * A connection (a queue pair, NCCL's send/receive pair) puts its messages
 * on the wire one after another, first in, first out, and the next one's
 * bytes follow the last one's without waiting for them to land: its
 * latency overlaps the one before. SimGrid charges every communication its
 * route's latency before its bytes, and shares a link between every
 * communication on it, so a connection with several messages under way
 * either shares its bandwidth between them (posted together) or idles a
 * latency between them (posted one after the other). transport.c gets
 * first in, first out with overlapped latency this way: a connection's
 * sender starts a message when the one before is off the wire, with no
 * latency before its bytes, and both sides count it done one route latency
 * after the bytes end. Arrival = max(ready + latency, previous arrival) +
 * bytes / rate, the recurrence fast fidelity computes (fast.c).
 *
 * SimGrid 3.32 has no per-communication latency: its latency-factor
 * callback (NetworkModelIntf::set_lat_factor_cb) sees a message's size and
 * hosts, not the message. A message started here is noted by (source,
 * destination, size) until SimGrid asks for its factor, and gets a factor
 * of 1e-12 rather than 0, so that SimGrid still weighs it as a flow of its
 * route's latency once that sliver is paid, as it weighs every other flow;
 * every other message gets the model's factor. Two messages of the same
 * hosts and size started together, one through here and one not, could
 * swap factors; transport.c sends through here only a pipelined ring's
 * units, whose connections carry nothing else at the time.
 *
 * C bindings SimGrid 3.32 lacks, in C++ as sg_rate.cpp is. */
#ifndef HS_SG_LATENCY_H
#define HS_SG_LATENCY_H

#include <simgrid/forward.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Installs the callback; every other message gets `factor`, or where it
 * is <= 0 the model's own (CM02 1, LV08 13.01). fair_sharing: every flow
 * weighs the same in SimGrid's max-min sharing, where SimGrid weighs each
 * by its route's latency (CM02 too), TCP's bias against long round trips;
 * hearsay asks for it under CM02, whose sharing fast fidelity reproduces
 * (fast.c, share()), and keeps SimGrid's weights under LV08. Call once, after the
 * platform is loaded, with no network/latency-factor configured (SimGrid
 * refuses both), and only under CM02 or LV08: SMPI's piecewise factors
 * would be replaced. *in_use: the factor every other message gets, which
 * the caller multiplies a route's latency by. Returns 0 when SimGrid
 * refuses it: then there is no such send. */
int hs_sg_latency_hook_install(double factor, int fair_sharing, double *in_use);

/* Whether flows share plainly: asked for at install, and SimGrid laid out
 * as 3.32 so far (sg_latency.cpp checks every flow it resets; a SimGrid
 * laid out otherwise keeps its weights and says so on stderr once). */
int hs_sg_sharing_is_plain(void);

/* As hs_sg_put_async_at_most (sg_rate.h), the route's latency not charged
 * before the bytes: the caller charges it after them. src and dst are the
 * hosts of the mailbox's two ends. Only after a successful install. */
sg_comm_t hs_sg_put_async_latency_after(sg_mailbox_t mailbox, void *payload, long bytes, double rate, sg_host_t src,
                                        sg_host_t dst);

/* sg_comm_wait_any_for that keeps the references of the comms that did not
 * end, on a timeout too (SimGrid 3.32's drops them all then). Returns the
 * index of the comm that ended, whose reference it releases, or -1 on
 * timeout (timeout < 0: none). *ended_at: when it ended, which is earlier
 * than now where it ended before the wait began (a comm the caller did
 * not watch meanwhile). */
long hs_sg_wait_any_for(sg_comm_t *comms, size_t count, double timeout, double *ended_at);

#ifdef __cplusplus
}
#endif

#endif
