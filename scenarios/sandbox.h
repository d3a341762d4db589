/* sandbox.h — a Lua state that scenario code can run in safely.
 *
 * A scenario is a program, and a program can loop forever, allocate without
 * end, call os.exit, open files or load bytecode that crashes the VM. The
 * sandbox makes each of those a Lua error the loader reports with the file
 * and line, instead of a hang, a kill by the OOM killer or a crash:
 *  - the libraries a scenario may use: base (without dofile, loadfile and
 *    binary chunks), string, table, math (math.random seeded with a fixed
 *    seed, so a scenario draws the same numbers every run), utf8 and
 *    coroutine. No io, os, debug, package or require;
 *  - memory: at most HS_SANDBOX_MEMORY bytes for the whole state;
 *  - time: every protected call stops after HS_SANDBOX_INSTRUCTIONS Lua
 *    instructions (counted by a hook, so the limit is the same on every
 *    machine and a run is reproducible), and the process after
 *    HS_SANDBOX_CPU_SECONDS of CPU in one call (C code Lua called);
 *  - no __gc finalizers (they would run outside any budget).
 * docs/scenarios.md ("What a scenario can do") lists the same. */
#ifndef HS_SANDBOX_H
#define HS_SANDBOX_H

#include <lua.h>
#include <stddef.h>

/* 1 GiB: far above any scenario, peer scheme or profile (the largest
 * shipped scenario uses under 1 MiB); a hearsay.permutation of 2^26 ranks
 * (its largest) fits. */
#define HS_SANDBOX_MEMORY ((size_t)1 << 30)
/* 200 million instructions per call: about a second of Lua; a peer scheme
 * call at 4096 ranks takes under 10 000. */
#define HS_SANDBOX_INSTRUCTIONS 200000000L
/* And 4 s of CPU per call (the instruction budget takes about 1), for C code Lua calls that the instruction
 * count cannot see (sandbox.c: cpu_exhausted): the process stops, exit 2. */
#define HS_SANDBOX_CPU_SECONDS 4
#define HS_SANDBOX_CPU_TEXT "4"

/* A new sandboxed state, or NULL when out of memory. */
lua_State *hs_sandbox_new(void);
/* Closes the state and frees its accounting (not lua_close alone). */
void hs_sandbox_close(lua_State *L);

/* lua_pcall with the sandbox's instruction budget and a message handler
 * that prefixes C-raised errors with the innermost Lua line. The function
 * and its nargs arguments are on top of the stack, as for lua_pcall. */
int hs_sandbox_pcall(lua_State *L, int nargs, int nresults);

/* The scenario's path, for the message of the CPU-time stop. */
void hs_sandbox_name(const char *path);

/* luaL_loadfilex in text mode: bytecode is refused (it can crash the VM). */
int hs_sandbox_loadfile(lua_State *L, const char *path);

#endif
