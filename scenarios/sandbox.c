/* sandbox.c — the Lua state scenario code runs in (sandbox.h). */
#define _POSIX_C_SOURCE 200809L
#include "scenarios/sandbox.h"

#include <lauxlib.h>
#include <lualib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* The hook runs every HOOK_EVERY instructions and counts. */
#define HOOK_EVERY 1000000

typedef struct {
  size_t used;  /* bytes the state holds */
  long ticks;   /* hook calls in the current outermost protected call */
  int depth;    /* protected calls under way: the outermost owns the budget */
  lua_State *L; /* to find the line an allocation was refused on */
  char oom_where[256]; /* "file:line:" of the last refused allocation */
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
  if (nsize > osize && s->used - osize + nsize > HS_SANDBOX_MEMORY) {
    /* Lua reports "not enough memory" without a line (it calls no message
     * handler for it): note the innermost Lua line now. lua_getstack and
     * lua_getinfo("Sl") read the call stack without allocating. */
    s->oom_where[0] = '\0';
    lua_Debug ar;
    for (int level = 0; s->L && lua_getstack(s->L, level, &ar); level++) {
      lua_getinfo(s->L, "Sl", &ar);
      if (ar.currentline > 0) {
        snprintf(s->oom_where, sizeof s->oom_where, "%s:%d:", ar.short_src, ar.currentline);
        break;
      }
    }
    return NULL;
  }
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

/* setmetatable without finalizers: a __gc runs whenever the collector
 * decides, outside any protected call and its budget (an endless one would
 * hang the run at exit). */
static int no_gc_setmetatable(lua_State *L) {
  if (lua_type(L, 2) == LUA_TTABLE) {
    lua_pushliteral(L, "__gc");
    if (lua_rawget(L, 2) != LUA_TNIL)
      return luaL_error(L, "__gc finalizers are not available in a scenario (docs/scenarios.md, \"What a scenario "
                           "can do\")");
    lua_pop(L, 1);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
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
  lua_getglobal(L, "setmetatable");
  lua_pushcclosure(L, no_gc_setmetatable, 1);
  lua_setglobal(L, "setmetatable");
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
  s->L = L;
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

/* The instruction budget cannot stop C code that Lua called: a pattern
 * match that backtracks for ever (string.find(("a"):rep(4000),
 * ("a-"):rep(60) .. "b")) runs in one instruction. A CPU-time alarm does:
 * nothing has been written when it strikes in the loader, and the run's
 * guard (sim/guard.c) leaves the output folder as it was otherwise. */
#define HS_SANDBOX_PATH_MAX 4096
static lua_State *running; /* the state of the outermost protected call under way */
static char scenario_path[HS_SANDBOX_PATH_MAX] = "hearsay";

void hs_sandbox_name(const char *path) { snprintf(scenario_path, sizeof scenario_path, "%s", path); }

static void put(const char *s) {
  ssize_t w = write(2, s, strlen(s));
  (void)w;
}

static void cpu_exhausted(int sig) {
  (void)sig;
  /* The line of the innermost Lua frame: the signal lands inside the C
   * function that runs away (a pattern match), where the Lua stack is
   * settled; reading it allocates nothing, and the process ends here. */
  lua_Debug ar;
  int line = 0;
  for (int level = 0; running && line == 0 && lua_getstack(running, level, &ar); level++) {
    lua_getinfo(running, "l", &ar);
    if (ar.currentline > 0) line = ar.currentline;
  }
  put(scenario_path);
  if (line > 0) {
    char num[16];
    int k = (int)sizeof num - 1;
    num[k] = '\0';
    do num[--k] = (char)('0' + line % 10), line /= 10;
    while (line > 0 && k > 0);
    put(":");
    put(num + k);
  }
  put(": scenario: a Lua call (the file, a peer scheme, a slowdown function) ran for more than "
      HS_SANDBOX_CPU_TEXT " s of CPU inside a library function (a pattern match that backtracks without end?); "
      "stopped\n");
  _exit(2);
}

/* Replaces Lua's bare "not enough memory" with where it happened. */
static int oom_message(lua_State *L) {
  sandbox *s = sandbox_of(L);
  lua_pushfstring(L, "%s not enough memory (a scenario's Lua state may hold at most %d MiB)", s->oom_where,
                  (int)(HS_SANDBOX_MEMORY >> 20));
  return 1;
}

int hs_sandbox_pcall(lua_State *L, int nargs, int nresults) {
  static int handler_set;
  if (!handler_set) {
    struct sigaction sa = {0};
    sa.sa_handler = cpu_exhausted;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGVTALRM, &sa, NULL);
    handler_set = 1;
  }
  sandbox *s = sandbox_of(L);
  int base = lua_gettop(L) - nargs; /* the function's index */
  lua_pushcfunction(L, with_line);
  lua_insert(L, base);
  /* A protected call inside another shares the outer one's budget. */
  if (s->depth++ == 0) {
    s->ticks = 0;
    lua_sethook(L, runaway_hook, LUA_MASKCOUNT, HOOK_EVERY);
  }
  struct itimerval cpu = {{0, 0}, {HS_SANDBOX_CPU_SECONDS, 0}}, off = {{0, 0}, {0, 0}};
  if (s->depth == 1) {
    running = L;
    setitimer(ITIMER_VIRTUAL, &cpu, NULL);
  }
  int rc = lua_pcall(L, nargs, nresults, base);
  /* Lua calls no message handler for a memory error. */
  if (rc == LUA_ERRMEM) {
    lua_pushcfunction(L, oom_message);
    if (lua_pcall(L, 0, 1, 0) == LUA_OK) lua_replace(L, -2);
    else lua_pop(L, 1);
  }
  if (--s->depth == 0) {
    setitimer(ITIMER_VIRTUAL, &off, NULL);
    running = NULL;
    lua_sethook(L, NULL, 0, 0);
  }
  lua_remove(L, base);
  return rc;
}

int hs_sandbox_loadfile(lua_State *L, const char *path) { return luaL_loadfilex(L, path, "t"); }
