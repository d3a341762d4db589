/* peer_round.h — the simulated time of a scheme's gossip rounds on the
 * scenario's cluster: every message a SimGrid communication, so links that
 * many flows share slow them all down (contention included). */
#ifndef HS_PEER_ROUND_H
#define HS_PEER_ROUND_H

#include "scenarios/scenario.h"

typedef struct {
  int rounds;
  double *time;     /* per round: last receive done - first send posted */
  double wall_time; /* seconds the simulation took */
} hs_peer_rounds;

/* Simulates rounds 0..rounds-1 of the scenario's peer scheme, each after a
 * barrier, with messages of `bytes` (the model, plus the push-sum weight for
 * a directed scheme). A hierarchical scheme runs among node leaders (the
 * intra-node averaging is not included). Returns 0, or 1 when it cannot. */
int hs_peer_rounds_simulate(const hs_scenario *sc, int rounds, double bytes, hs_peer_rounds *out);

#endif
