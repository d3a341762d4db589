/* peers_cmd.h — `hearsay peers`: a peer-selection scheme checked and
 * characterised without training (docs/peer-selection.md). */
#ifndef HS_PEERS_CMD_H
#define HS_PEERS_CMD_H

#include "scenarios/scenario.h"

typedef struct {
  long steps;  /* steps checked and gossiped */
  int rounds;  /* gossip rounds simulated; 0: one period, or 8 */
  const char *out_dir;
  int quiet;
} hs_peers_options;

/* 0; 2 when the scheme is broken (the message names step and ranks); 1 when
 * the outputs cannot be written. */
int hs_cmd_peers(const hs_scenario *sc, const hs_peers_options *opt);
/* Prints the built-in schemes. */
int hs_cmd_peers_list(void);

#endif
