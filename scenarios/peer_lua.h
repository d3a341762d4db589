/* peer_lua.h — peer-selection schemes written in Lua, in a scenario.
 *
 *   algorithm { name = "decentralized", peers = function(rank, n, step) ... end }
 *   algorithm { name = "decentralized", peers = { directed = true, peers = function ... end } }
 *
 * The function returns the peers of `rank` (0-based) at gossip step `step`
 * (0-based): a list of ranks, or of { peer = P, weight = W }. The scheme keeps
 * the scenario's Lua state alive (it owns it once created) so closures over
 * the scenario's locals work; the simulator and hearsay-real call it through
 * algos/peers/peer_scheme.h like any built-in. */
#ifndef HS_PEER_LUA_H
#define HS_PEER_LUA_H

#include <lua.h>
#include <stddef.h>
#include <stdint.h>

#include "algos/peers/peer_scheme.h"

/* Installs the `hearsay` helper table (permutation, log2, scheme, metropolis,
 * seed) as a global; `peers_dir` is where hearsay.scheme(NAME) looks. */
void hs_peer_lua_open(lua_State *L, const char *peers_dir);
/* Sets hearsay.seed (the run's seed) for randomised schemes. */
void hs_peer_lua_set_seed(lua_State *L, uint64_t seed);

/* A scheme from the function or scheme table at `idx`. NULL on a malformed
 * table: err says what, and *bad_key names the field at fault ("peers",
 * "directed", ...). The scheme then owns L: hs_peer_scheme_free closes it. */
hs_peer_scheme *hs_peer_lua_create(lua_State *L, int idx, const char *default_name, char *err, size_t len,
                                   const char **bad_key);

/* Calls the function registered at fn_ref with the nargs values on top of
 * the stack, under an error handler that adds the Lua line and a hook that
 * stops endless loops. Leaves one result (or the error message) in place
 * of the arguments; returns lua_pcall's code. */
int hs_lua_call_bounded(lua_State *L, int fn_ref, int nargs);

#endif
