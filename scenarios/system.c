/* system.c — cluster { system = "dgx-a100", nodes = 16 }: a named machine.
 *
 * A system file (scenarios/systems/NAME.lua, or one beside the scenario)
 * returns a table shaped like cluster { } without what only a scenario
 * knows (how many nodes, which of them differ): the GPU, its links inside
 * the node and the node's NICs, each value with its public source. Its
 * keys fill in what the scenario leaves out, one table deep: a scenario
 * that sets inter = { latency = "3us" } keeps the system's inter.bandwidth.
 * --set overrides apply before, so they win too. The merged table then
 * goes through the schema like any scenario's, and a bad value the system
 * gave is reported at the system file's line (hs_loader_fail). */
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenarios/loader_internal.h"
#include "scenarios/sandbox.h"

/* What a system file may hold besides cluster keys: its description. */
static const char *const metadata_keys[] = {"name", "description", "sources", NULL};
/* Cluster keys that describe a job's cluster, not a kind of machine. */
static const char *const scenario_only_keys[] = {"nodes", "system", "overrides", "gpu_speed", NULL};

static int listed(const char *const *list, const char *key) {
  for (int i = 0; list[i]; i++)
    if (strcmp(list[i], key) == 0) return 1;
  return 0;
}

static void list_systems(char *buf, size_t len) {
  buf[0] = '\0';
  char names[64][HS_NAME_MAX];
  int n = hs_loader_lua_names(HS_DEFAULT_SYSTEMS_DIR, names, 64);
  for (int i = 0; i < n; i++) {
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
  }
}

static void note_key(hs_loader *ld, const char *a, const char *b) {
  ld->system_keys = realloc(ld->system_keys, (size_t)(ld->n_system_keys + 1) * sizeof *ld->system_keys);
  snprintf(ld->system_keys[ld->n_system_keys++], sizeof ld->system_keys[0], "cluster.%s%s%s", a, b ? "." : "",
           b ? b : "");
}

/* The first line whose code opens a table: the one the file returns. */
static int opening_line(const hs_loader *ld) {
  for (size_t l = 0; l < ld->n_system_lines; l++) {
    const char *s = ld->system_lines[l], *comment = strstr(s, "--"), *brace = strchr(s, '{');
    if (brace && (!comment || brace < comment)) return (int)l + 1;
  }
  return 1;
}

/* Copies every string key of the table at `from` that the table at `to`
 * lacks (both absolute indices). */
static int fill_in(hs_loader *ld, int to, int from, const char *outer) {
  lua_State *L = ld->L;
  lua_pushnil(L);
  while (lua_next(L, from)) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      lua_pop(L, 2);
      return hs_loader_fail(ld, NULL, 0, "%s: %s%skeys must be names", ld->system_path, outer ? outer : "",
                            outer ? ": " : "");
    }
    const char *key = lua_tostring(L, -2);
    lua_getfield(L, to, key);
    int absent = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (absent) {
      lua_pushvalue(L, -2);
      lua_pushvalue(L, -2);
      lua_settable(L, to);
      note_key(ld, outer ? outer : key, outer ? key : NULL);
    }
    lua_pop(L, 1);
  }
  return 0;
}

/* hearsay.system(NAME): a fresh copy of the shipped system NAME's table,
 * for a system file that is another with a few keys changed (a cloud's VM
 * of a vendor's node): `local s = hearsay.system("dgx-h100")`, then its
 * own name, description, sources and differences, `return s`. Only the
 * shipped systems, by name; a chain of at most HS_SYSTEM_BASES_MAX (a
 * system based on itself stops there). */
#define HS_SYSTEM_BASES_MAX 4
#define SYSTEM_DEPTH_KEY "hearsay.system_depth"
static int l_system(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  char path[HS_PATH_MAX + HS_NAME_MAX + 8];
  int ok = name[0] != '\0' && strlen(name) < HS_NAME_MAX;
  for (const char *c = name; ok && *c; c++)
    ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_';
  snprintf(path, sizeof path, "%s/%s.lua", HS_DEFAULT_SYSTEMS_DIR, name);
  FILE *f = ok ? fopen(path, "r") : NULL;
  if (f) fclose(f);
  if (!f) {
    char known[1024];
    list_systems(known, sizeof known);
    return luaL_error(L, "hearsay.system: no shipped system '%s' (known: %s)", name, known);
  }
  lua_getfield(L, LUA_REGISTRYINDEX, SYSTEM_DEPTH_KEY);
  lua_Integer depth = lua_tointeger(L, -1);
  lua_pop(L, 1);
  if (depth >= HS_SYSTEM_BASES_MAX)
    return luaL_error(L, "hearsay.system: more than %d systems based on one another (a loop?)", HS_SYSTEM_BASES_MAX);
  if (hs_sandbox_loadfile(L, path) != LUA_OK) return lua_error(L);
  lua_pushinteger(L, depth + 1);
  lua_setfield(L, LUA_REGISTRYINDEX, SYSTEM_DEPTH_KEY);
  int status = lua_pcall(L, 0, 1, 0);
  lua_pushinteger(L, depth); /* back, even where the file that asked catches the error */
  lua_setfield(L, LUA_REGISTRYINDEX, SYSTEM_DEPTH_KEY);
  if (status != LUA_OK) return lua_error(L); /* goes on to the file that asked, and stops its load */
  if (!lua_istable(L, -1)) return luaL_error(L, "hearsay.system: %s does not return a table", path);
  return 1;
}

void hs_system_lua_open(lua_State *L) {
  if (lua_getglobal(L, "hearsay") != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setglobal(L, "hearsay");
  }
  lua_pushcfunction(L, l_system);
  lua_setfield(L, -2, "system");
  lua_pop(L, 1);
}

int hs_system_apply(hs_loader *ld) {
  lua_State *L = ld->L;
  int line = hs_loader_push_decl(ld, "cluster");
  if (!lua_istable(L, -1)) { /* missing or not a table: the schema says so */
    lua_pop(L, 1);
    return 0;
  }
  int cluster = lua_gettop(L);
  lua_getfield(L, cluster, "system");
  if (lua_isnil(L, -1)) {
    lua_pop(L, 2);
    return 0;
  }
  char known[1024];
  list_systems(known, sizeof known);
  if (lua_type(L, -1) != LUA_TSTRING) {
    lua_pop(L, 2);
    return hs_loader_fail(ld, "cluster.system", line, "expected a system's name (known: %s)", known);
  }
  char name[HS_NAME_MAX * 4];
  snprintf(name, sizeof name, "%s", lua_tostring(L, -1));
  lua_pop(L, 1);
  if (!hs_loader_find_file(ld, name, "systems", HS_DEFAULT_SYSTEMS_DIR, ld->system_path, sizeof ld->system_path)) {
    lua_pop(L, 1);
    return hs_loader_fail(ld, "cluster.system", line, "unknown system '%s' (known: %s; or a file: systems/NAME.lua "
                          "beside the scenario, or a path ending in .lua)", name, known);
  }
  hs_loader_read_lines(ld->system_path, &ld->system_lines, &ld->n_system_lines);
  ld->system_decl_line = opening_line(ld);
  if (hs_sandbox_loadfile(L, ld->system_path) != LUA_OK || hs_sandbox_pcall(L, 0, 1) != LUA_OK) {
    int rc = hs_loader_fail(ld, "cluster.system", line, "system '%s' failed to load: %s", name, lua_tostring(L, -1));
    lua_pop(L, 2);
    return rc;
  }
  if (!lua_istable(L, -1)) {
    lua_pop(L, 2);
    return hs_loader_fail(ld, "cluster.system", line, "%s must return a table of cluster keys", ld->system_path);
  }
  int sys = lua_gettop(L), rc = 0;
  /* top level: scenario-only keys refused, tables merged one deep */
  lua_pushnil(L);
  while (!rc && lua_next(L, sys)) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      rc = hs_loader_fail(ld, NULL, 0, "%s: keys must be names", ld->system_path);
      lua_pop(L, 2);
      break;
    }
    const char *key = lua_tostring(L, -2);
    if (listed(metadata_keys, key)) {
      lua_pop(L, 1);
      continue;
    }
    if (listed(scenario_only_keys, key)) {
      char kp[128];
      snprintf(kp, sizeof kp, "cluster.%s", key);
      note_key(ld, key, NULL); /* so the message names the system file's line */
      rc = hs_loader_fail(ld, kp, 0, "a system describes a kind of node and its fabric; %s belongs in the scenario",
                          key);
      lua_pop(L, 2);
      break;
    }
    lua_getfield(L, cluster, key);
    if (lua_isnil(L, -1) && lua_istable(L, -2)) { /* a table the scenario leaves out: a copy, not the system's own */
      lua_pop(L, 1);
      lua_newtable(L);
      lua_pushvalue(L, -1);
      lua_setfield(L, cluster, key);
    }
    if (lua_isnil(L, -1)) { /* a value the scenario leaves out */
      lua_pushvalue(L, -2);
      lua_setfield(L, cluster, key);
      note_key(ld, key, NULL);
    } else if (lua_istable(L, -1) && lua_istable(L, -2)) { /* both tables: fill in what the scenario's lacks */
      rc = fill_in(ld, lua_gettop(L), lua_gettop(L) - 1, key);
    } /* else the scenario's value stands */
    lua_pop(L, 2);
  }
  lua_pop(L, 2);
  return rc;
}

int hs_system_catalog(FILE *out) {
  char names[64][HS_NAME_MAX];
  int n = hs_loader_lua_names(HS_DEFAULT_SYSTEMS_DIR, names, 64), bad = 0;
  for (int i = 0; i < n; i++) {
    char path[HS_PATH_MAX + HS_NAME_MAX + 8];
    snprintf(path, sizeof path, "%s/%s.lua", HS_DEFAULT_SYSTEMS_DIR, names[i]);
    lua_State *L = hs_sandbox_new();
    const char *description = NULL;
    if (L) hs_system_lua_open(L); /* a system may be based on another */
    int loads = L && hs_sandbox_loadfile(L, path) == LUA_OK && hs_sandbox_pcall(L, 0, 1) == LUA_OK && lua_istable(L, -1);
    if (loads) {
      lua_getfield(L, -1, "description");
      description = lua_tostring(L, -1);
    }
    bad |= !loads;
    fprintf(out, "%-18s %s\n", names[i],
            description ? description : loads ? "(no description)" : "(its file does not load)");
    hs_sandbox_close(L);
  }
  fprintf(out, "\ncluster { system = \"NAME\", nodes = N } takes one; any cluster key set beside it wins.\n"
               "Each file (%s/NAME.lua) gives the source of every value.\n",
          HS_DEFAULT_SYSTEMS_DIR);
  return bad;
}
