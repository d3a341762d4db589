/* peer_lua.c — peer-selection schemes written in Lua (peer_lua.h). */
#include "scenarios/peer_lua.h"

#include <lauxlib.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/peers/peers.h"
#include "scenarios/sandbox.h"

#define SEED_KEY "hearsay.seed"
#define PEERS_DIR_KEY "hearsay.peers_dir"

typedef struct {
  lua_State *L;
  int fn_ref;
} lua_scheme;

/* ---- the hearsay helper table ----------------------------------------------- */

static uint64_t seed_of(lua_State *L) {
  lua_getfield(L, LUA_REGISTRYINDEX, SEED_KEY);
  uint64_t s = (uint64_t)lua_tointeger(L, -1);
  lua_pop(L, 1);
  return s;
}

/* hearsay.permutation(n, round): a 0-based permutation of 0..n-1 drawn from
 * (run seed, round), identical to the one the C built-ins draw. */
static int l_permutation(lua_State *L) {
  lua_Integer n = luaL_checkinteger(L, 1);
  lua_Integer round = luaL_checkinteger(L, 2);
  luaL_argcheck(L, n >= 1 && n <= (1 << 26), 1, "n must be in 1..2^26");
  int *perm = malloc((size_t)n * sizeof(int));
  hs_peer_permutation((int)n, seed_of(L), (long)round, perm);
  lua_createtable(L, (int)n, 0);
  for (lua_Integer i = 0; i < n; i++) {
    lua_pushinteger(L, perm[i]);
    lua_rawseti(L, -2, i + 1);
  }
  free(perm);
  return 1;
}

static int l_log2(lua_State *L) {
  lua_pushinteger(L, hs_peer_log2((long)luaL_checkinteger(L, 1)));
  return 1;
}

/* hearsay.scheme(NAME): the value returned by scenarios/peers/NAME.lua, the
 * Lua twin of a built-in, to use as is or to wrap. */
static int l_scheme(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, PEERS_DIR_KEY);
  const char *dir = lua_tostring(L, -1);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.lua", dir ? dir : ".", name);
  if (hs_sandbox_loadfile(L, path) != LUA_OK) return luaL_error(L, "hearsay.scheme('%s'): %s", name, lua_tostring(L, -1));
  lua_call(L, 0, 1);
  return 1;
}

/* Metropolis-Hastings weights for an undirected scheme that returns plain
 * peer lists: w_ij = 1 / (max(d_i, d_j) + 1), the degrees taken from the
 * same function at the same step. Written in Lua so users can read it. */
static const char metropolis_lua[] =
    "return function(fn)\n"
    "  return function(rank, n, step)\n"
    "    local mine = fn(rank, n, step)\n"
    "    local out = {}\n"
    "    for i, p in ipairs(mine) do\n"
    "      local d = math.max(#mine, #fn(p, n, step))\n"
    "      out[i] = { peer = p, weight = 1 / (d + 1) }\n"
    "    end\n"
    "    return out\n"
    "  end\n"
    "end\n";

void hs_peer_lua_open(lua_State *L, const char *peers_dir) {
  lua_pushstring(L, peers_dir);
  lua_setfield(L, LUA_REGISTRYINDEX, PEERS_DIR_KEY);
  lua_pushinteger(L, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, SEED_KEY);
  lua_newtable(L);
  lua_pushcfunction(L, l_permutation);
  lua_setfield(L, -2, "permutation");
  lua_pushcfunction(L, l_log2);
  lua_setfield(L, -2, "log2");
  lua_pushcfunction(L, l_scheme);
  lua_setfield(L, -2, "scheme");
  if (luaL_loadbuffer(L, metropolis_lua, sizeof metropolis_lua - 1, "=hearsay.metropolis") == LUA_OK &&
      lua_pcall(L, 0, 1, 0) == LUA_OK)
    lua_setfield(L, -2, "metropolis");
  else
    lua_pop(L, 1);
  lua_pushinteger(L, 1);
  lua_setfield(L, -2, "seed");
  lua_setglobal(L, "hearsay");
}

void hs_peer_lua_set_seed(lua_State *L, uint64_t seed) {
  lua_pushinteger(L, (lua_Integer)seed);
  lua_setfield(L, LUA_REGISTRYINDEX, SEED_KEY);
  if (lua_getglobal(L, "hearsay") == LUA_TTABLE) {
    lua_pushinteger(L, (lua_Integer)seed);
    lua_setfield(L, -2, "seed");
  }
  lua_pop(L, 1);
}

/* ---- calling the function ------------------------------------------------------ */

static int integer_value(lua_State *L, int idx, long *out) {
  int ok = 0;
  lua_Integer i = lua_tointegerx(L, idx, &ok);
  if (ok) *out = (long)i;
  return ok;
}

/* Reads the returned list at the top of the stack. */
static int read_list(lua_State *L, hs_peer_edge *out, int max, char *err, size_t len) {
  if (lua_isnil(L, -1)) return 0;
  if (!lua_istable(L, -1)) {
    snprintf(err, len, "the peers function returned a %s; expected a list of ranks or of { peer = P, weight = W }",
             luaL_typename(L, -1));
    return -1;
  }
  int k = (int)lua_rawlen(L, -1);
  for (int i = 1; i <= k; i++) {
    lua_rawgeti(L, -1, i);
    long peer = -1;
    double weight = -1;
    if (lua_type(L, -1) == LUA_TNUMBER) {
      if (!integer_value(L, -1, &peer)) {
        snprintf(err, len, "entry %d of the returned list is %g, not an integer rank", i, lua_tonumber(L, -1));
        lua_pop(L, 1);
        return -1;
      }
    } else if (lua_istable(L, -1)) {
      /* Raw reads: the list is read outside the protected call, where a
       * metamethod's error would have nothing to catch it. */
      lua_pushliteral(L, "peer");
      lua_rawget(L, -2);
      int ok = lua_type(L, -1) == LUA_TNUMBER && integer_value(L, -1, &peer);
      lua_pop(L, 1);
      if (!ok) {
        snprintf(err, len, "entry %d of the returned list has no integer `peer`", i);
        lua_pop(L, 1);
        return -1;
      }
      lua_pushliteral(L, "weight");
      lua_rawget(L, -2);
      if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TNUMBER || !(lua_tonumber(L, -1) > 0) || lua_tonumber(L, -1) > 1) {
          if (lua_type(L, -1) == LUA_TNUMBER)
            snprintf(err, len, "entry %d (peer %ld): weight %g must be a number in (0, 1]", i, peer,
                     lua_tonumber(L, -1));
          else
            snprintf(err, len, "entry %d (peer %ld): weight is a %s; it must be a number in (0, 1]", i, peer,
                     luaL_typename(L, -1));
          lua_pop(L, 2);
          return -1;
        }
        weight = lua_tonumber(L, -1);
      }
      lua_pop(L, 1);
    } else {
      snprintf(err, len, "entry %d of the returned list is a %s; expected a rank or { peer = P, weight = W }", i,
               luaL_typename(L, -1));
      lua_pop(L, 1);
      return -1;
    }
    lua_pop(L, 1);
    if (peer < -1 || peer > 1L << 30) peer = 1L << 30; /* out of range either way; reported by the schedule */
    if (i <= max) out[i - 1] = (hs_peer_edge){(int)peer, weight};
  }
  return k;
}

int hs_lua_call_bounded(lua_State *L, int fn_ref, int nargs) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, fn_ref);
  lua_insert(L, -nargs - 1);
  return hs_sandbox_pcall(L, nargs, 1);
}

static int lua_select(hs_peer_scheme *s, int rank, int n, long step, hs_peer_edge *out, int max, char *err,
                      size_t len) {
  lua_scheme *ls = s->impl;
  lua_State *L = ls->L;
  int top = lua_gettop(L);
  lua_pushinteger(L, rank);
  lua_pushinteger(L, n);
  lua_pushinteger(L, step);
  int rc = hs_lua_call_bounded(L, ls->fn_ref, 3);
  int k;
  if (rc != LUA_OK) {
    snprintf(err, len, "Lua error: %s", lua_tostring(L, -1));
    k = -1;
  } else {
    k = read_list(L, out, max, err, len);
  }
  lua_settop(L, top);
  return k;
}

/* The Lua state is the scenario's (hs_scenario_free closes it). */
static void lua_destroy(hs_peer_scheme *s) {
  lua_scheme *ls = s->impl;
  luaL_unref(ls->L, LUA_REGISTRYINDEX, ls->fn_ref);
  free(ls);
  free(s);
}

static const hs_peer_scheme_ops lua_ops = {lua_select, lua_destroy};

/* ---- creation ---------------------------------------------------------------- */

static void describe_function(lua_State *L, int idx, char *out, size_t len) {
  lua_Debug ar;
  lua_pushvalue(L, idx);
  lua_getinfo(L, ">S", &ar);
  const char *src = strrchr(ar.short_src, '/');
  char where[HS_PEER_NAME_MAX - 8];
  /* Long paths are cut from the left: the file name and line are what matter. */
  snprintf(where, sizeof where, "%.40s:%d", src ? src + 1 : ar.short_src, ar.linedefined % 1000000);
  snprintf(out, len, "lua:%s", where);
}

static const char *const table_keys[] = {"peers", "directed", "hierarchical", "name", NULL};

hs_peer_scheme *hs_peer_lua_create(lua_State *L, int idx, const char *default_name, char *err, size_t len,
                                   const char **bad_key) {
  idx = lua_absindex(L, idx);
  *bad_key = "peers";
  hs_peer_scheme *s = calloc(1, sizeof *s);
  int fn = idx;
  if (lua_istable(L, idx)) {
    lua_pushnil(L);
    while (lua_next(L, idx)) {
      lua_pop(L, 1);
      int known = 0;
      if (lua_type(L, -1) == LUA_TSTRING)
        for (int i = 0; table_keys[i]; i++) known |= strcmp(table_keys[i], lua_tostring(L, -1)) == 0;
      if (!known) {
        snprintf(err, len, "unknown field '%s' of a peer scheme (accepted: peers, directed, hierarchical, name)",
                 luaL_tolstring(L, -1, NULL));
        lua_pop(L, 2);
        free(s);
        return NULL;
      }
    }
    lua_getfield(L, idx, "directed");
    s->directed = lua_toboolean(L, -1);
    int bad = !lua_isnil(L, -1) && !lua_isboolean(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, idx, "hierarchical");
    s->hierarchical = lua_toboolean(L, -1);
    bad |= (!lua_isnil(L, -1) && !lua_isboolean(L, -1)) << 1;
    lua_pop(L, 1);
    lua_getfield(L, idx, "name");
    if (lua_type(L, -1) == LUA_TSTRING) snprintf(s->name, sizeof s->name, "%s", lua_tostring(L, -1));
    else if (!lua_isnil(L, -1)) bad |= 4;
    lua_pop(L, 1);
    static const char *const keys[] = {"directed", "hierarchical", "name"};
    static const char *const what[] = {"a boolean", "a boolean", "a string"};
    for (int b = 0; b < 3; b++)
      if (bad & (1 << b)) {
        *bad_key = keys[b];
        snprintf(err, len, "the scheme's '%s' must be %s", keys[b], what[b]);
        free(s);
        return NULL;
      }
    lua_getfield(L, idx, "peers");
    fn = lua_gettop(L);
  }
  if (!lua_isfunction(L, fn)) {
    snprintf(err, len, "a peer scheme is a built-in name (%s), a .lua file, a function(rank, n, step), or a "
             "table { peers = function ... }; got a %s", hs_peer_builtin_names(), luaL_typename(L, fn));
    if (fn != idx) lua_pop(L, 1);
    free(s);
    return NULL;
  }
  if (!s->name[0]) {
    if (default_name) snprintf(s->name, sizeof s->name, "%s", default_name);
    else describe_function(L, fn, s->name, sizeof s->name);
  }
  lua_scheme *ls = calloc(1, sizeof *ls);
  ls->L = L;
  lua_pushvalue(L, fn);
  ls->fn_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  if (fn != idx) lua_pop(L, 1);
  s->ops = &lua_ops;
  s->impl = ls;
  return s;
}
