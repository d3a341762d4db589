/* profile.h — resolving workload.model (profile.c): the numeric model's
 * two layers, or a timing profile's layers (scenarios/models/, beside the
 * scenario, or a path), run with workload.model_options; docs/scenarios.md,
 * "Timing profiles". */
#ifndef HS_SCENARIOS_PROFILE_H
#define HS_SCENARIOS_PROFILE_H

#include "scenarios/loader_internal.h"

/* With the workload table on top of the loader's Lua stack (left there):
 * fills ld->out->workload's layers, numeric flag, bytes per parameter and
 * model options. 0, or the loader's failure. */
int hs_profile_resolve(hs_loader *ld, int line);

/* Adds hearsay.option, the profiles' reader of their options, to the
 * state's hearsay table (after hs_peer_lua_open made it). */
void hs_profile_lua_open(lua_State *L);

#endif
