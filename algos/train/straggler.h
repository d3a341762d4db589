/* straggler.h — how much slower one rank computes, iteration by iteration.
 *
 * Evaluates the scenario's stragglers { } for one rank: fixed slowdowns and
 * their time windows, random noise drawn per iteration (GSL, seeded by the
 * run's seed, the entry and the rank or node, so the same seed gives the
 * same draws in every mode and whatever the other ranks do), periodic
 * hiccups, and the Lua slowdown function. The training loop (train.c)
 * applies it the same way on every backend: compute costs factor x its
 * FLOPs, and hiccup pauses stall it. docs/stragglers.md is the reference. */
#ifndef HS_STRAGGLER_H
#define HS_STRAGGLER_H

#include <stddef.h>

#include "scenarios/scenario.h"

typedef struct hs_straggler hs_straggler;

/* rank's view of the scenario's stragglers; NULL when none applies to it. */
hs_straggler *hs_straggler_create(const hs_scenario *sc, int rank);
void hs_straggler_free(hs_straggler *s);

/* The compute-time factor of the iteration that starts at time t (1 is
 * nominal). Draws that iteration's noise, so call it once per iteration, in
 * order. Returns a negative number with err filled when the Lua function
 * fails. */
double hs_straggler_factor(hs_straggler *s, int iteration, double t, char *err, size_t len);

/* Compute that starts at t0 and needs `busy` seconds of running time stops
 * during hiccup pauses: the seconds those pauses add to it. */
double hs_straggler_stall(const hs_straggler *s, double t0, double busy);

#endif
