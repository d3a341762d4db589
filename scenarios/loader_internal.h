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
  int lua_kept; /* a Lua peer scheme owns L now: hs_scenario_free closes it */
} hs_loader;

/* Prints "FILE:LINE: keypath: message" (or names the --set that gave the
 * key) and returns HS_SCENARIO_EBAD. */
int hs_loader_fail(hs_loader *ld, const char *keypath, int decl_line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int hs_loader_push_decl(hs_loader *ld, const char *name);
int hs_schema_validate(hs_loader *ld);
const char *hs_loader_models_dir(void);

#endif
