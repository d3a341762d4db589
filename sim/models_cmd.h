/* models_cmd.h — `hearsay models SCENARIO.lua`: what the scenario's
 * workload amounts to (its profile's layers, parameters, FLOPs and
 * bytes), so a profile can be checked against its publication before a
 * run. `hearsay models` without a scenario lists the profiles
 * (scenarios/profile.c). */
#ifndef HS_MODELS_CMD_H
#define HS_MODELS_CMD_H

#include <stdio.h>

#include "scenarios/scenario.h"

/* Writes the description to out; 0. */
int hs_cmd_models(const hs_scenario *sc, FILE *out);

#endif
