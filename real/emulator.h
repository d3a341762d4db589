/* emulator.h — delays real messages as the scenario's links would.
 *
 * With `real { emulate = true }` the MPI transport asks the emulator, for
 * every message it posts, when that message would arrive on the modelled
 * cluster, and does not let the message (nor the round it belongs to)
 * complete before then. The model is the simulator's: the route between
 * the two ranks' GPUs from scenarios/links.h, latency summed over the
 * route, bandwidth of the narrowest link, scaled by the scenario's
 * sim.latency_factor and sim.bandwidth_factor as SimGrid would.
 *
 * Links are shared: each directed link keeps the time until which it is
 * busy, in one table that every process on the machine sees (MPI shared
 * memory). A message starts when it is posted or when the last link on its
 * route frees up, whichever is later, and occupies each link for
 * size/bandwidth of that link, so concurrent messages over one link take
 * turns and their total never exceeds its bandwidth (SimGrid shares
 * bandwidth fairly instead; the totals are the same, the order is not).
 * Emulation therefore runs every rank on one machine. */
#ifndef HS_REAL_EMULATOR_H
#define HS_REAL_EMULATOR_H

#include <mpi.h>
#include <stddef.h>

#include "scenarios/scenario.h"

typedef struct hs_emulator hs_emulator;

/* Collective over world. Returns NULL and a message in err if the ranks do
 * not all share one machine or the shared table cannot be made. */
hs_emulator *hs_emulator_create(const hs_scenario *sc, MPI_Comm world, char *err, size_t errlen);
void hs_emulator_free(hs_emulator *e);

/* When a message of `bytes` posted now (hs_clock_now) from world rank src
 * to world rank dst, leaving no earlier than `depart` (a protocol's hop
 * after now), moving at most `rate` bytes/s (NCCL's channels' maxima,
 * protocol.h; 0: its links' rate), for the traffic of `gpus` GPUs of its
 * node (the schedule's spread, lowering.h: what the flow reaches of the
 * network, net_transport.h), arrives, in hs_clock_now seconds
 * (real/clock.h). Reserves the links, each for the bytes at its own rate:
 * a flow held below a link's rate leaves the rest to the next. One of
 * `concurrent` flows that src sends across nodes at once (its exchange's,
 * as the busier direction counts them): over TCP they share its proxy
 * thread (hs_net_flow_cap_concurrent). */
double hs_emulator_post(hs_emulator *e, int src, int dst, size_t bytes, double depart, double rate, int gpus,
                        int concurrent);
/* The flows of an exchange from src (world ranks: sends to dst[0..ns),
 * receives from from[0..nr)) that cross nodes, as its busier direction
 * counts them: what hs_emulator_post's `concurrent` is. */
int hs_emulator_concurrent(const hs_emulator *e, int src, const int *dst, int ns, const int *from, int nr);

#endif
