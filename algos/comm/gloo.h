/* gloo.h — collectives as Gloo runs them (sim.library = "gloo").
 *
 * torch.distributed's "gloo" backend runs its collectives on the hosts,
 * not the GPUs (pytorch/gloo; PyTorch's ProcessGroupGloo):
 *  - a GPU tensor is first copied to pinned host memory and the result
 *    copied back afterwards (ProcessGroupGloo's CUDA work): each way, the
 *    bytes over the GPU's PCIe link (gpu.pcie_bandwidth), before and after
 *    the collective (sim.gloo_staging; false: tensors already on the host,
 *    as gloo's own benchmark runs); a send or a receive too (Gloo's send
 *    hands TCP the tensor's pointer: a GPU tensor goes to the host first);
 *  - every process has a TCP connection of its own to each peer, inside a
 *    node too (loopback): one flow a process, whatever the node's GPUs
 *    share, each moved by one host thread through the kernel's stack at
 *    most host.tcp_stream_bandwidth (a process's concurrent flows
 *    sharing its thread: lowering.c, share_host_thread), each message paying
 *    host.tcp_message_cost (less what the NICs already charge a message
 *    across nodes, inter.message_cost on a TCP cluster);
 *  - allreduce is gloo's ring (gloo/allreduce.cc, the default algorithm):
 *    reduce-scatter then allgather, each rank's chunk cut into segments of
 *    at most 1 MiB (kMaxSegmentSize, gloo/allreduce.h), two in flight, the
 *    reduction of one on the CPU overlapping the transfer of the next; it
 *    is not charged beyond the transfer (a core sums faster than it moves
 *    TCP);
 *  - nothing is held on the GPU while it runs: no SMs beside backward.
 *  - broadcast is gloo's binomial tree of whole vectors
 *    (gloo/broadcast.cc): hearsay's recursive_doubling broadcast.
 * Allgather and reduce-scatter run hearsay's ring at the same costs,
 * reduce its chain (gloo's reduce, a ring reduce-scatter whose chunks
 * then go to the root, moves the vector once over each link, as the
 * chain does). */
#ifndef HS_GLOO_H
#define HS_GLOO_H

#include "algos/comm/protocol.h"
#include "scenarios/scenario.h"

/* Gloo's segment, at most (gloo/allreduce.h: kMaxSegmentSize), and the
 * segments its ring keeps in flight (gloo/allreduce.cc: "we pipeline send
 * and receive operations (we issue send/recv operations on iterations 0
 * and 1 and wait for them to complete on iterations 2 and 3)"). */
#define HS_GLOO_SEGMENT 1048576.0
#define HS_GLOO_IN_FLIGHT 2

/* What every message and flow of a collective costs through Gloo on sc's
 * cluster. */
hs_proto_cost hs_gloo_cost(const hs_scenario *sc);

#endif
