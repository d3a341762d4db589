/* sandbox.c — the Lua state scenario code runs in (sandbox.h). */
#include "scenarios/sandbox.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The hook runs every HOOK_EVERY instructions and counts. */
#define HOOK_EVERY 1000000

typedef struct {
  size_t used;  /* bytes the state holds */
  long ticks;   /* hook calls in the current outermost protected call */
  int depth;    /* protected calls under way: the outermost owns the budget */
} sandbox;

static sandbox *sandbox_of(lua_State *L) {
  void *ud = NULL;
  lua_getallocf(L, &ud);
  return ud;
}

/* A refused allocation becomes Lua's "not enough memory" error, which a
 * protected call catches like any other. */
static void *sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  sandbox *s = ud;
  if (!ptr) osize = 0; /* then osize encodes the object's type, not a size */
  if (nsize == 0) {
    free(ptr);
    s->used -= osize;
    return NULL;
  }
  if (nsize > osize && s->used - osize + nsize > HS_SANDBOX_MEMORY) return NULL;
  void *p = realloc(ptr, nsize);
  if (p) s->used = s->used - osize + nsize;
  return p;
}

static int panic(lua_State *L) {
  /* Only reached by a call outside any protected call: a bug of ours. */
  const char *msg = lua_tostring(L, -1);
  lua_writestringerror("hearsay: Lua error outside a protected call (a bug): %s\n", msg ? msg : "?");
  abort();
}

/* load() in text mode only: precompiled chunks are not checked by the VM. */
static int text_load(lua_State *L) {
  int n = lua_gettop(L);
  if (n < 3) lua_settop(L, 3);
  lua_pushliteral(L, "t");
  lua_replace(L, 3);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

static void open_libs(lua_State *L) {
  static const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base},       {LUA_STRLIBNAME, luaopen_string},
                                  {LUA_TABLIBNAME, luaopen_table}, {LUA_MATHLIBNAME, luaopen_math},
                                  {LUA_UTF8LIBNAME, luaopen_utf8}, {LUA_COLIBNAME, luaopen_coroutine},
                                  {NULL, NULL}};
  for (const luaL_Reg *l = libs; l->func; l++) {
    luaL_requiref(L, l->name, l->func, 1);
    lua_pop(L, 1);
  }
  /* Files are the loader's business (models, peer files): none from Lua. */
  lua_pushnil(L);
  lua_setglobal(L, "dofile");
  lua_pushnil(L);
  lua_setglobal(L, "loadfile");
  lua_getglobal(L, "load");
  lua_pushcclosure(L, text_load, 1);
  lua_setglobal(L, "load");
  /* Lua 5.4 seeds math.random from the clock and an address: a fixed seed
   * keeps "same scenario, same bytes" for scenarios that draw. */
  lua_getglobal(L, LUA_MATHLIBNAME);
  lua_getfield(L, -1, "randomseed");
  lua_pushinteger(L, 0);
  lua_call(L, 1, 0);
  lua_pop(L, 1);
}

static int protected_open(lua_State *L) {
  open_libs(L);
  return 0;
}

lua_State *hs_sandbox_new(void) {
  sandbox *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  lua_State *L = lua_newstate(sandbox_alloc, s);
  if (!L) {
    free(s);
    return NULL;
  }
  lua_atpanic(L, panic);
  lua_pushcfunction(L, protected_open);
  if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
    hs_sandbox_close(L);
    return NULL;
  }
  return L;
}

void hs_sandbox_close(lua_State *L) {
  if (!L) return;
  sandbox *s = sandbox_of(L);
  lua_close(L);
  free(s);
}

static void runaway_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  sandbox *s = sandbox_of(L);
  if (++s->ticks >= HS_SANDBOX_INSTRUCTIONS / HOOK_EVERY)
    luaL_error(L, "ran %d million Lua instructions without returning (an endless loop?)",
               (int)(HS_SANDBOX_INSTRUCTIONS / 1000000));
}

/* Message handler: Lua's message, prefixed with the innermost Lua line when
 * the error came from C (a bad argument to a library function, the hook). */
static int with_line(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) msg = "(error object is not a string)";
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); level++) {
    lua_getinfo(L, "Sl", &ar);
    if (ar.currentline > 0) {
      char where[256];
      snprintf(where, sizeof where, "%s:%d:", ar.short_src, ar.currentline);
      if (strncmp(msg, where, strlen(where)) != 0) {
        lua_pushfstring(L, "%s %s", where, msg);
        return 1;
      }
      break;
    }
  }
  lua_pushstring(L, msg);
  return 1;
}

int hs_sandbox_pcall(lua_State *L, int nargs, int nresults) {
  sandbox *s = sandbox_of(L);
  int base = lua_gettop(L) - nargs; /* the function's index */
  lua_pushcfunction(L, with_line);
  lua_insert(L, base);
  /* A protected call inside another shares the outer one's budget. */
  if (s->depth++ == 0) {
    s->ticks = 0;
    lua_sethook(L, runaway_hook, LUA_MASKCOUNT, HOOK_EVERY);
  }
  int rc = lua_pcall(L, nargs, nresults, base);
  if (--s->depth == 0) lua_sethook(L, NULL, 0, 0);
  lua_remove(L, base);
  return rc;
}

int hs_sandbox_loadfile(lua_State *L, const char *path) { return luaL_loadfilex(L, path, "t"); }
