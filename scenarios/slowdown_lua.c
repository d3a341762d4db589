/* slowdown_lua.c — stragglers { slowdown = function(rank, iteration, time) }.
 *
 * The function returns the factor by which rank's compute is slowed in that
 * iteration (1: nominal). It runs in the scenario's own Lua state, under the
 * same guard as Lua peer schemes (a Lua line on errors, a stop on endless
 * loops), so closures over the scenario's locals work. */
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "scenarios/loader_internal.h"
#include "scenarios/peer_lua.h"

typedef struct {
  hs_slowdown_fn base;
  lua_State *L;
  int fn_ref;
} lua_slowdown;

static double call(hs_slowdown_fn *f, int rank, int iteration, double time, char *err, size_t len) {
  lua_slowdown *ls = (lua_slowdown *)f;
  lua_State *L = ls->L;
  int top = lua_gettop(L);
  lua_pushinteger(L, rank);
  lua_pushinteger(L, iteration);
  lua_pushnumber(L, time);
  double v = -1;
  if (hs_lua_call_bounded(L, ls->fn_ref, 3) != LUA_OK) {
    snprintf(err, len, "Lua error: %s", lua_tostring(L, -1));
  } else if (lua_isnil(L, -1)) {
    v = 1; /* nothing to say about this rank: nominal speed */
  } else if (lua_type(L, -1) != LUA_TNUMBER) {
    snprintf(err, len, "returned a %s; expected a number (the slowdown factor, 1 = nominal)", luaL_typename(L, -1));
  } else if (!(lua_tonumber(L, -1) >= 1e-6 && lua_tonumber(L, -1) <= 1e6)) {
    /* The same range as a slowdown entry's factor (conditions.c). */
    snprintf(err, len, "returned %g; a slowdown factor must be a number in [1e-6, 1e6]", lua_tonumber(L, -1));
  } else {
    v = lua_tonumber(L, -1);
  }
  lua_settop(L, top);
  return v;
}

static void destroy(hs_slowdown_fn *f) {
  lua_slowdown *ls = (lua_slowdown *)f;
  luaL_unref(ls->L, LUA_REGISTRYINDEX, ls->fn_ref);
  free(ls);
}

hs_slowdown_fn *hs_slowdown_lua_create(lua_State *L, int idx, char *err, size_t len) {
  if (!lua_isfunction(L, idx)) {
    snprintf(err, len, "expected function(rank, iteration, time) returning a factor, got a %s", luaL_typename(L, idx));
    return NULL;
  }
  lua_slowdown *ls = calloc(1, sizeof *ls);
  ls->base.call = call;
  ls->base.destroy = destroy;
  ls->L = L;
  lua_pushvalue(L, idx);
  ls->fn_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return &ls->base;
}
