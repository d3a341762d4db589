/* loader_internal.h — shared between loader.c (Lua side) and schema.c. */
#ifndef HS_LOADER_INTERNAL_H
#define HS_LOADER_INTERNAL_H

#include <lua.h>
#include <stddef.h>

#include "scenarios/scenario.h"

typedef struct {
  lua_State *L;
  const char *path;
  const char *const *sets;
  int n_sets;
  char **lines; /* the scenario's source, to find the line of a key */
  size_t n_lines;
  hs_scenario *out;
  int failed;
  int lua_kept; /* a Lua peer scheme or slowdown function needs L: the scenario keeps it */
  /* The key being read and its declaration's line, to name them when a
   * metamethod of the scenario's tables raises an error while it is read. */
  char where[256];
  int where_line;
  /* cluster { system = NAME }: the system file (system.c), its source
   * and its opening line, and the key paths its values filled in, so that
   * a bad one is reported at the system file's line. */
  char system_path[HS_PATH_MAX];
  char **system_lines;
  size_t n_system_lines;
  int system_decl_line;
  char (*system_keys)[128];
  int n_system_keys;
} hs_loader;

/* Prints "FILE:LINE: keypath: message" (or names the --set that gave the
 * key) and returns HS_SCENARIO_EBAD. */
int hs_loader_fail(hs_loader *ld, const char *keypath, int decl_line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int hs_loader_push_decl(hs_loader *ld, const char *name);
/* The --set that gave keypath (or a table holding it) its value, or NULL. */
const char *hs_loader_override_for(const hs_loader *ld, const char *keypath);
/* Notes the key about to be read (see hs_loader.where). */
void hs_loader_at(hs_loader *ld, const char *keypath, int line);
int hs_schema_validate(hs_loader *ld);
/* Every key of the declarations' schema (cluster, workload, run, sim,
 * real), nested ones as "gpu.flops": its default as written (NULL where it
 * has none), its choices ("a|b") where it is one of several, whether a
 * scenario must give it, whether it is a table of keys. Tables are visited
 * after their keys. */
typedef void (*hs_schema_visit)(void *ctx, const char *block, const char *key, const char *def, const char *choices,
                                int required, int table);
void hs_schema_each(hs_schema_visit fn, void *ctx);
/* Every key an entry of stragglers { }, network { } or failures { } may
 * hold (conditions.c). */
void hs_conditions_each_key(void (*fn)(void *ctx, const char *decl, const char *key), void *ctx);
/* stragglers { }, network { }, failures { } (conditions.c). */
int hs_conditions_validate(hs_loader *ld);
/* Refuses a scenario needing more memory than the machine has (budget.c). */
int hs_budget_check(hs_loader *ld);
/* The line of the i-th (1-based) { ... } entry of the list declared on
 * decl_line, found by counting braces in the source; decl_line if unsure. */
int hs_loader_entry_line(const hs_loader *ld, int decl_line, int i);
/* A Lua slowdown function (slowdown_lua.c); the scenario keeps L. */
hs_slowdown_fn *hs_slowdown_lua_create(lua_State *L, int idx, char *err, size_t len);
const char *hs_loader_models_dir(void);
/* A model, system, ... file named in a scenario: a name with a slash or
 * ending in .lua is a path from the scenario's folder; else SUBDIR/NAME.lua
 * beside the scenario, then SHIPPED/NAME.lua. 1 when found (path in out). */
int hs_loader_find_file(const hs_loader *ld, const char *name, const char *subdir, const char *shipped, char *out,
                        size_t len);
/* Reads a file's lines (for reporting a key's line); NULL lines if unreadable. */
void hs_loader_read_lines(const char *path, char ***lines, size_t *n_lines);
/* The NAMEs of dir's NAME.lua files, sorted (readdir's order is the file
 * system's; messages and listings must read the same on every machine),
 * at most max; a name too long for HS_NAME_MAX is skipped. How many. */
int hs_loader_lua_names(const char *dir, char names[][HS_NAME_MAX], int max);
/* cluster { system = NAME } fills in what the scenario leaves out (system.c). */
int hs_system_apply(hs_loader *ld);
/* Registers hearsay.system(NAME) (system.c), creating `hearsay` if absent. */
void hs_system_lua_open(lua_State *L);

#endif
