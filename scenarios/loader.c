/* loader.c — runs a scenario file in Lua and validates what it declared.
 *
 * Declarations are stored as Lua tables with the line they were made on;
 * validation walks each against a schema (scenarios/schema.c) and fills the
 * plain-C hs_scenario. Errors name FILE:LINE and the dotted key. Lua tables
 * do not remember where a key was written, so the line of a bad key is found
 * by looking for "key =" in the file from the declaration's line onwards. */
#include "scenarios/loader.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenarios/loader_internal.h"
#include "scenarios/peer_lua.h"
#include "scenarios/profile.h"
#include "scenarios/sandbox.h"

static const char *const declaration_names[] = {"cluster", "workload", "algorithm", "run", "sim", "real",
                                                "stragglers", "network", "failures", NULL};
static const char *const required_declarations[] = {"cluster", "workload", "algorithm", "run", NULL};

static char models_dir[HS_PATH_MAX] = HS_DEFAULT_MODELS_DIR;

void hs_scenario_set_models_dir(const char *dir) { snprintf(models_dir, sizeof models_dir, "%s", dir); }
const char *hs_loader_models_dir(void) { return models_dir; }

/* ---- error reporting ------------------------------------------------------ */

static int file_exists(const char *p) {
  FILE *f = fopen(p, "r");
  if (f) fclose(f);
  return f != NULL;
}

/* snprintf that reports truncation, so an over-long path is "not found". */
#define FITS(call, len) ((size_t)(call) < (len))

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

int hs_loader_lua_names(const char *dir, char names[][HS_NAME_MAX], int max) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) && n < max;) {
    size_t k = strlen(e->d_name);
    if (k > 4 && k - 4 < HS_NAME_MAX && strcmp(e->d_name + k - 4, ".lua") == 0)
      snprintf(names[n++], HS_NAME_MAX, "%.*s", (int)(k - 4), e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof names[0], by_name);
  return n;
}

int hs_loader_find_file(const hs_loader *ld, const char *name, const char *subdir, const char *shipped, char *out,
                        size_t len) {
  char dir[HS_PATH_MAX];
  if (!FITS(snprintf(dir, sizeof dir, "%s", ld->path), sizeof dir)) return 0;
  char *slash = strrchr(dir, '/');
  if (slash) *slash = '\0';
  else snprintf(dir, sizeof dir, ".");
  if (strchr(name, '/') || strstr(name, ".lua")) {
    const char *sep = name[0] == '/' ? "" : "/";
    return FITS(snprintf(out, len, "%s%s%s", name[0] == '/' ? "" : dir, sep, name), len) && file_exists(out);
  }
  if (FITS(snprintf(out, len, "%s/%s/%s.lua", dir, subdir, name), len) && file_exists(out)) return 1;
  return FITS(snprintf(out, len, "%s/%s.lua", shipped, name), len) && file_exists(out);
}

void hs_loader_read_lines(const char *path, char ***lines, size_t *n_lines) {
  FILE *f = fopen(path, "r");
  if (!f) return;
  size_t cap = 0;
  char buf[4096];
  while (fgets(buf, sizeof buf, f)) {
    if (*n_lines == cap) {
      cap = cap ? cap * 2 : 64;
      *lines = realloc(*lines, cap * sizeof **lines);
    }
    (*lines)[(*n_lines)++] = strdup(buf);
  }
  fclose(f);
}

/* First line at or after `from` (1-based) where `key` appears as "key =". */
static int find_key_line(const hs_loader *ld, const char *key, int from) {
  size_t klen = strlen(key);
  if (klen == 0) return from; /* strstr(p + 1, "") would walk past the line's end */
  for (size_t i = from > 0 ? (size_t)from - 1 : 0; i < ld->n_lines; i++) {
    const char *s = ld->lines[i];
    for (const char *p = strstr(s, key); p; p = strstr(p + 1, key)) {
      int starts = p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
      const char *q = p + klen;
      while (*q == ' ' || *q == '\t') q++;
      if (starts && *q == '=' && q[1] != '=') return (int)i + 1;
    }
  }
  return from;
}

static int is_ident_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* The line where the dotted keypath ("cluster.inter.latency") is written,
 * following the nesting of `name = {` tables from the declaration on
 * decl_line, so that inter.latency is not found at intra's `latency =`.
 * 0 when the text does not show it (built by code, or a list entry). */
static int line_of_path(const hs_loader *ld, const char *keypath, int decl_line) {
  if (decl_line <= 0 || strchr(keypath, '[')) return 0;
  char names[8][HS_NAME_MAX], path[256];
  int depth = -1; /* -1: before the declaration's opening brace */
  char last[HS_NAME_MAX] = "", pending[HS_NAME_MAX] = "";
  for (size_t l = (size_t)decl_line - 1; l < ld->n_lines; l++) {
    for (const char *p = ld->lines[l]; *p; p++) {
      if (*p == '"' || *p == '\'') {
        char q = *p;
        for (p++; *p && *p != q; p++)
          if (*p == '\\' && p[1]) p++;
        if (!*p) break;
        continue;
      }
      if (p[0] == '-' && p[1] == '-') break;
      if (is_ident_char(*p) && (p == ld->lines[l] || !is_ident_char(p[-1]))) {
        size_t n = 0;
        while (is_ident_char(p[n])) n++;
        snprintf(last, sizeof last, "%.*s", (int)(n < HS_NAME_MAX ? n : HS_NAME_MAX - 1), p);
        const char *q = p + n;
        while (*q == ' ' || *q == '\t') q++;
        if (*q == '=' && q[1] != '=' && depth >= 0) {
          snprintf(pending, sizeof pending, "%s", last);
          size_t used = 0;
          path[0] = '\0';
          for (int i = 0; i <= depth && i < 8; i++)
            used += (size_t)snprintf(path + used, used < sizeof path ? sizeof path - used : 0, "%s%s",
                                     i ? "." : "", names[i]);
          if (used < sizeof path) snprintf(path + used, sizeof path - used, ".%s", last);
          if (strcmp(path, keypath) == 0) return (int)l + 1;
        }
        p += n - 1;
        continue;
      }
      if (*p == '{') {
        depth++;
        /* Level 0 is the declaration itself, named as keypath names it. */
        if (depth == 0) snprintf(names[0], sizeof names[0], "%.*s", (int)strcspn(keypath, "."), keypath);
        else if (depth < 8) snprintf(names[depth], sizeof names[depth], "%s", pending);
        pending[0] = '\0';
      } else if (*p == '}') {
        if (--depth < 0) return 0; /* the declaration ended */
        pending[0] = '\0';
      }
    }
  }
  return 0;
}

/* The line of keypath in the declaration on decl_line: by its nesting,
 * else the first `name =` of its last part, else decl_line. */
static int key_line(const hs_loader *ld, const char *keypath, int decl_line) {
  if (decl_line <= 0) return 0;
  int line = line_of_path(ld, keypath, decl_line);
  if (line > 0) return line;
  const char *last = strrchr(keypath, '.');
  return find_key_line(ld, last ? last + 1 : keypath, decl_line);
}

int hs_loader_entry_line(const hs_loader *ld, int decl_line, int i) {
  if (decl_line <= 0) return decl_line;
  int depth = 0, seen = 0;
  for (size_t l = (size_t)decl_line - 1; l < ld->n_lines; l++) {
    int in_string = 0;
    for (const char *p = ld->lines[l]; *p; p++) {
      if (*p == '"' || *p == '\'') in_string = !in_string;
      if (in_string) continue;
      if (p[0] == '-' && p[1] == '-') break; /* a comment runs to the end of the line */
      if (*p == '{' && ++depth == 2 && ++seen == i) return (int)l + 1;
      if (*p == '}' && --depth == 0) return decl_line;
    }
  }
  return decl_line;
}

/* If keypath (or a prefix of it) came from --set, the override to name. */
const char *hs_loader_override_for(const hs_loader *ld, const char *keypath) {
  for (int i = 0; i < ld->n_sets; i++) {
    const char *eq = strchr(ld->sets[i], '=');
    size_t n = eq ? (size_t)(eq - ld->sets[i]) : strlen(ld->sets[i]);
    if (strncmp(ld->sets[i], keypath, n) == 0 && (keypath[n] == '\0' || keypath[n] == '.'))
      return ld->sets[i];
    /* A key the override created on its way down (--set stragglers.1.gpu=3
     * makes a table at stragglers["1"]). */
    size_t k = strlen(keypath);
    if (k < n && strncmp(ld->sets[i], keypath, k) == 0 && ld->sets[i][k] == '.') return ld->sets[i];
  }
  return NULL;
}

/* If keypath (or a table holding it) was filled in by the system file. */
static const char *system_key(const hs_loader *ld, const char *keypath) {
  for (int i = 0; i < ld->n_system_keys; i++) {
    size_t n = strlen(ld->system_keys[i]);
    if (strncmp(ld->system_keys[i], keypath, n) == 0 && (keypath[n] == '\0' || keypath[n] == '.'))
      return ld->system_keys[i];
  }
  return NULL;
}

int hs_loader_fail(hs_loader *ld, const char *keypath, int decl_line, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *set = keypath ? hs_loader_override_for(ld, keypath) : NULL;
  /* A declaration that only --set made (none in the file): name the --set. */
  if (!set && keypath && decl_line <= 0) {
    size_t n = strcspn(keypath, ".");
    for (int i = 0; i < ld->n_sets && !set; i++)
      if (strncmp(ld->sets[i], keypath, n) == 0 && ld->sets[i][n] == '.') set = ld->sets[i];
  }
  const char *from_system = set || !keypath ? NULL : system_key(ld, keypath);
  if (set) {
    fprintf(stderr, "%s: --set %s: %s: %s\n", ld->path, set, keypath, msg);
  } else if (from_system) {
    /* The value came from the system file: its line there. */
    hs_loader sys = {.path = ld->system_path, .lines = ld->system_lines, .n_lines = ld->n_system_lines};
    int line = key_line(&sys, keypath, ld->system_decl_line);
    if (line > 0) fprintf(stderr, "%s:%d: %s: %s\n", ld->system_path, line, keypath, msg);
    else fprintf(stderr, "%s: %s: %s\n", ld->system_path, keypath, msg);
  } else if (keypath) {
    int line = key_line(ld, keypath, decl_line);
    if (line > 0) fprintf(stderr, "%s:%d: %s: %s\n", ld->path, line, keypath, msg);
    else fprintf(stderr, "%s: %s: %s\n", ld->path, keypath, msg);
  } else {
    fprintf(stderr, "%s: %s\n", ld->path, msg);
  }
  ld->failed = 1;
  return HS_SCENARIO_EBAD;
}

void hs_loader_at(hs_loader *ld, const char *keypath, int line) {
  snprintf(ld->where, sizeof ld->where, "%s", keypath);
  ld->where_line = line;
}

/* ---- declarations --------------------------------------------------------- */

#define DECLS_KEY "hearsay.declarations"

static int declare(lua_State *L) {
  const char *name = lua_tostring(L, lua_upvalueindex(1));
  lua_Debug ar;
  int line = 0;
  if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "l", &ar)) line = ar.currentline;
  if (lua_gettop(L) != 1 || !lua_istable(L, 1))
    return luaL_error(L, "%s expects one table: %s { key = value, ... }", name, name);
  lua_getfield(L, LUA_REGISTRYINDEX, DECLS_KEY);
  lua_getfield(L, -1, name);
  if (!lua_isnil(L, -1)) {
    lua_getfield(L, -1, "line");
    return luaL_error(L, "%s is declared twice (first on line %d)", name, (int)lua_tointeger(L, -1));
  }
  lua_pop(L, 1);
  lua_createtable(L, 0, 2);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "table");
  lua_pushinteger(L, line);
  lua_setfield(L, -2, "line");
  lua_setfield(L, -2, name);
  return 0;
}

/* Pushes the declared table of `name` (or nil) and returns its line. */
int hs_loader_push_decl(hs_loader *ld, const char *name) {
  lua_State *L = ld->L;
  lua_getfield(L, LUA_REGISTRYINDEX, DECLS_KEY);
  lua_getfield(L, -1, name);
  if (lua_isnil(L, -1)) {
    lua_remove(L, -2);
    return 0;
  }
  lua_getfield(L, -1, "line");
  int line = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, -1, "table");
  lua_remove(L, -2);
  lua_remove(L, -2);
  return line;
}

/* ---- --set overrides -------------------------------------------------------- */

/* A value in matching quotes is the string between them: the way to pass
 * a string that would read as a number (--set 'sim.nccl_version="2.10"',
 * which unquoted would become the number 2.1). */
static void push_override_value(lua_State *L, const char *v) {
  size_t len = strlen(v);
  if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
    lua_pushlstring(L, v + 1, len - 2);
    return;
  }
  char *end;
  double d = strtod(v, &end);
  if (*v && *end == '\0') {
    long long i = strtoll(v, &end, 10);
    if (*end == '\0') lua_pushinteger(L, i);
    else lua_pushnumber(L, d);
  } else if (strcmp(v, "true") == 0) {
    lua_pushboolean(L, 1);
  } else if (strcmp(v, "false") == 0) {
    lua_pushboolean(L, 0);
  } else {
    lua_pushstring(L, v);
  }
}

/* Splits "a.b.c" into at most max non-empty names; -1 for an empty part
 * ("a..b", ".a", "a.") or too many. */
static int split_path(char *path, char **parts, int max) {
  int n = 0;
  for (char *p = path;;) {
    char *dot = strchr(p, '.');
    if (dot) *dot = '\0';
    if (!*p || n == max) return -1;
    parts[n++] = p;
    if (!dot) return n;
    p = dot + 1;
  }
}

static int apply_override(hs_loader *ld, const char *set) {
  lua_State *L = ld->L;
  const char *eq = strchr(set, '=');
  if (!eq || eq == set) {
    fprintf(stderr, "%s: --set %s: %s: expected key.path=value\n", ld->path, set,
            eq ? "the key is missing before '='" : "no '=' between key and value");
    return HS_SCENARIO_EBAD;
  }
  char path[512], *parts[8];
  if ((size_t)(eq - set) >= sizeof path) {
    fprintf(stderr, "%s: --set %s: the key path is longer than %zu characters\n", ld->path, set, sizeof path - 1);
    return HS_SCENARIO_EBAD;
  }
  snprintf(path, sizeof path, "%.*s", (int)(eq - set), set);
  /* No scenario key is deeper than four names (cluster.inter.bandwidth). */
  int n = split_path(path, parts, 8);
  if (n < 0) {
    fprintf(stderr, "%s: --set %s: a key path is names joined by single dots, at most 8 of them "
            "(e.g. cluster.inter.bandwidth)\n", ld->path, set);
    return HS_SCENARIO_EBAD;
  }
  int known = 0;
  for (int i = 0; declaration_names[i]; i++) known |= strcmp(declaration_names[i], parts[0]) == 0;
  if (!known) {
    fprintf(stderr, "%s: --set %s: '%s' is not a declaration (cluster, workload, algorithm, run, sim, real, "
            "stragglers, network, failures)\n", ld->path, set, parts[0]);
    return HS_SCENARIO_EBAD;
  }
  if (n < 2) {
    fprintf(stderr, "%s: --set %s: name a field, e.g. %s.key=value\n", ld->path, set, parts[0]);
    return HS_SCENARIO_EBAD;
  }
  /* Make sure the declaration exists, then walk down creating tables; only
   * the current table stays on the stack. */
  lua_getfield(L, LUA_REGISTRYINDEX, DECLS_KEY);
  lua_getfield(L, -1, parts[0]);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_createtable(L, 0, 2);
    lua_newtable(L);
    lua_setfield(L, -2, "table");
    lua_pushinteger(L, 0);
    lua_setfield(L, -2, "line");
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, parts[0]);
  }
  lua_getfield(L, -1, "table");
  lua_replace(L, -3);
  lua_pop(L, 1); /* [table] */
  for (int i = 1; i + 1 < n; i++) {
    lua_getfield(L, -1, parts[i]);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      lua_newtable(L);
      lua_pushvalue(L, -1);
      lua_setfield(L, -3, parts[i]);
    } else if (!lua_istable(L, -1)) {
      lua_pop(L, 2);
      fprintf(stderr, "%s: --set %s: '%s' is not a table\n", ld->path, set, parts[i]);
      return HS_SCENARIO_EBAD;
    }
    lua_replace(L, -2);
  }
  push_override_value(L, eq + 1);
  lua_setfield(L, -2, parts[n - 1]);
  lua_pop(L, 1);
  return 0;
}

/* ---- Lua errors: where they were ------------------------------------------- */


static void path_of(char stack[][HS_NAME_MAX], int depth, const char *leaf, char *out, size_t len) {
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i <= depth && i < 8; i++)
    if (stack[i][0] && used < len)
      used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "." : "", stack[i]);
  if (leaf && leaf[0] && used < len) snprintf(out + used, len - used, "%s%s", used ? "." : "", leaf);
}

/* Keeps in acc the longest dotted prefix it shares with path; a path that
 * goes deeper into acc (`inter = { bandwidth = ...`) replaces it. */
static void common_prefix(char *acc, const char *path) {
  size_t n = strlen(acc);
  if (strncmp(acc, path, n) == 0 && path[n] == '.') {
    snprintf(acc, 256, "%s", path);
    return;
  }
  size_t i = 0, cut = 0;
  while (acc[i] && acc[i] == path[i]) {
    if (acc[i] == '.') cut = i;
    i++;
  }
  if (!(acc[i] == '\0' && (path[i] == '\0' || path[i] == '.'))) acc[cut] = '\0';
}

/* The dotted key a line of the scenario sets, found from the source: the
 * declaration the line is in and the `name = {` tables open around it, then
 * the `key =` on the line itself (their common part when the line sets
 * several). Lua does not know keys, only lines; this reads the text as a
 * person would. Empty when the line is outside every declaration. */
static void key_at_line(const hs_loader *ld, int line, char *out, size_t len) {
  out[0] = '\0';
  if (line <= 0 || (size_t)line > ld->n_lines) return;
  char stack[8][HS_NAME_MAX];
  int depth = -1, seen = 0; /* depth -1: outside a declaration */
  char last[HS_NAME_MAX] = "", leaf[HS_NAME_MAX] = "", path[256], around[256] = "";
  for (size_t l = 0; l < (size_t)line; l++) {
    const char *p = ld->lines[l];
    int here = l + 1 == (size_t)line;
    if (here && depth >= 0) path_of(stack, depth, NULL, around, sizeof around);
    for (char quote = 0; *p; p++) {
      if (quote) {
        if (*p == '\\' && p[1]) p++;
        else if (*p == quote) quote = 0;
        continue;
      }
      if (*p == '"' || *p == '\'') { quote = *p; continue; }
      if (p[0] == '-' && p[1] == '-') break;
      if (is_ident_char(*p) && (p == ld->lines[l] || !is_ident_char(p[-1]))) {
        size_t n = 0;
        while (is_ident_char(p[n])) n++;
        snprintf(last, sizeof last, "%.*s", (int)(n < HS_NAME_MAX ? n : HS_NAME_MAX - 1), p);
        const char *q = p + n;
        while (*q == ' ' || *q == '\t') q++;
        if (*q == '=' && q[1] != '=') {
          snprintf(leaf, sizeof leaf, "%s", last);
          if (here && depth >= 0) {
            path_of(stack, depth, leaf, path, sizeof path);
            if (!seen) snprintf(out, len, "%s", path);
            else common_prefix(out, path);
            seen = 1;
          }
        }
        p += n - 1;
        continue;
      }
      if (*p == '{') {
        if (depth < 0) {
          for (int i = 0; declaration_names[i]; i++)
            if (strcmp(declaration_names[i], last) == 0) {
              depth = 0;
              snprintf(stack[0], sizeof stack[0], "%s", last);
              if (here && !seen) snprintf(out, len, "%s", last), seen = 1;
            }
        } else {
          depth++;
          if (depth < 8) snprintf(stack[depth], sizeof stack[depth], "%s", leaf);
        }
        leaf[0] = last[0] = '\0';
      } else if (*p == '}' && depth >= 0) {
        depth--;
        leaf[0] = '\0';
      }
    }
  }
  /* No key on the line itself: the table it is inside. */
  if (!seen) snprintf(out, len, "%s", around);
}

/* Reports a Lua error (syntax or run time) of the scenario file as
 * "FILE:LINE: key: message": Lua's own "chunk:LINE:" prefix names a path
 * it may have shortened, so the line is taken from it and the path is the
 * one the user gave. */
static int report_lua_error(hs_loader *ld, const char *what, const char *msg) {
  if (!msg) msg = "(error object is not a string)";
  int line = 0;
  const char *rest = msg;
  for (const char *p = strchr(msg, ':'); p; p = strchr(p + 1, ':')) {
    char *end;
    long v = strtol(p + 1, &end, 10);
    if (end > p + 1 && *end == ':' && v > 0 && v < 1 << 30) {
      /* Only a prefix naming this scenario gives its line; a model or
       * peer file's line is left inside the message. */
      const char *base = strrchr(ld->path, '/');
      base = base ? base + 1 : ld->path;
      size_t n = (size_t)(p - msg), b = strlen(base);
      if (n >= b && strncmp(p - b, base, b) == 0) {
        line = (int)v;
        rest = end + 1;
        while (*rest == ' ') rest++;
      }
      break;
    }
  }
  /* Lua names no line for what concerns the file as a whole (a binary
   * chunk, nesting too deep for the parser): its first line. */
  if (line == 0) line = 1;
  char key[256];
  key_at_line(ld, line, key, sizeof key);
  if (line > 0)
    fprintf(stderr, "%s:%d: %s: %s: %s\n", ld->path, line, key[0] ? key : "scenario", what, rest);
  else
    fprintf(stderr, "%s: scenario: %s: %s\n", ld->path, what, rest);
  ld->failed = 1;
  return HS_SCENARIO_EBAD;
}

/* ---- entry point ------------------------------------------------------------ */

static void loader_close(hs_loader *ld) {
  if (ld->L && ld->lua_kept) ld->out->lua = ld->L;
  else if (ld->L) hs_sandbox_close(ld->L);
  for (size_t i = 0; i < ld->n_lines; i++) free(ld->lines[i]);
  free(ld->lines);
  for (size_t i = 0; i < ld->n_system_lines; i++) free(ld->system_lines[i]);
  free(ld->system_lines);
  free(ld->system_keys);
}

/* What a scenario may not use: a clear message instead of "attempt to
 * index a nil value". */
static int unavailable(lua_State *L) {
  const char *what = lua_tostring(L, lua_upvalueindex(1));
  if (lua_type(L, 2) == LUA_TSTRING && lua_type(L, 1) == LUA_TTABLE)
    return luaL_error(L, "%s.%s is not available in a scenario (docs/scenarios.md, \"What a scenario can do\")", what,
                      lua_tostring(L, 2));
  return luaL_error(L, "%s is not available in a scenario (docs/scenarios.md, \"What a scenario can do\")", what);
}

static int setup_state(lua_State *L) {
  hs_peer_lua_open(L, HS_DEFAULT_PEERS_DIR);
  hs_profile_lua_open(L);
  hs_system_lua_open(L);
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, DECLS_KEY);
  for (int i = 0; declaration_names[i]; i++) {
    lua_pushstring(L, declaration_names[i]);
    lua_pushcclosure(L, declare, 1);
    lua_setglobal(L, declaration_names[i]);
  }
  static const char *const blocked_libs[] = {"os", "io", "debug", "package", NULL};
  for (int i = 0; blocked_libs[i]; i++) {
    lua_newtable(L);
    if (i == 0) {
      /* os.getenv only: the environment is an input like --set (a sweep
       * script's switch); the clock and os.exit are not. */
      luaopen_os(L);
      lua_getfield(L, -1, "getenv");
      lua_setfield(L, -3, "getenv");
      lua_pop(L, 1);
    }
    lua_newtable(L);
    lua_pushstring(L, blocked_libs[i]);
    lua_pushcclosure(L, unavailable, 1);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_setglobal(L, blocked_libs[i]);
  }
  lua_pushliteral(L, "require");
  lua_pushcclosure(L, unavailable, 1);
  lua_setglobal(L, "require");
  return 0;
}

/* Keys a run may name in a message after loading (hs_scenario_where). */
static const char *const noted_keys[] = {
    "stragglers.slowdown", "algorithm.peers", "cluster.gpu.flops", "cluster.gpu.efficiency",
    "cluster.inter.bandwidth", "cluster.intra.bandwidth", "cluster.inter.latency", "cluster.intra.latency",
    "cluster.overrides", "cluster.nodes", "run.max_simulated_time", "run.iterations", "workload.dataset.partition",
    "workload.dataset.alpha", "workload.batch",
    /* the watchdog's other causes (sim/watchdog.c) */
    "cluster.gpu_speed", "cluster.gpu.pcie_bandwidth", "cluster.inter.stream_bandwidth",
    "cluster.intra.socket_bandwidth", NULL};

static void note_keys(hs_loader *ld) {
  hs_scenario *sc = ld->out;
  sc->n_where = 0;
  for (int i = 0; noted_keys[i] && sc->n_where < HS_WHERE_MAX; i++) {
    hs_key_where *w = &sc->where[sc->n_where++];
    snprintf(w->key, sizeof w->key, "%s", noted_keys[i]);
    const char *set = hs_loader_override_for(ld, noted_keys[i]);
    if (set) {
      snprintf(w->set, sizeof w->set, "%s", set);
      continue;
    }
    char decl[HS_NAME_MAX];
    snprintf(decl, sizeof decl, "%.*s", (int)strcspn(noted_keys[i], "."), noted_keys[i]);
    int line = hs_loader_push_decl(ld, decl);
    lua_pop(ld->L, 1);
    w->line = key_line(ld, noted_keys[i], line);
  }
}

/* Overrides, then every declaration against the schema. Runs as a
 * protected call: reading a declared table may run its metamethods, which
 * may raise an error or loop, like any scenario code. */
static int validate_protected(lua_State *L) {
  hs_loader *ld = lua_touserdata(L, 1);
  lua_settop(L, 0);
  int rc = 0;
  for (int i = 0; i < ld->n_sets && rc == 0; i++) rc = apply_override(ld, ld->sets[i]);
  for (int i = 0; required_declarations[i] && rc == 0; i++) {
    hs_loader_push_decl(ld, required_declarations[i]);
    int missing = lua_isnil(L, -1);
    lua_pop(L, 1);
    /* Named at the file's last line, where it would be added. */
    if (missing)
      rc = hs_loader_fail(ld, required_declarations[i], ld->n_lines > 0 ? (int)ld->n_lines : 1,
                          "missing declaration: %s { ... }", required_declarations[i]);
  }
  if (!rc) rc = hs_system_apply(ld);
  if (!rc) rc = hs_schema_validate(ld);
  if (!rc) rc = hs_conditions_validate(ld);
  if (!rc) note_keys(ld);
  lua_pushinteger(L, rc);
  return 1;
}

int hs_scenario_load(const char *path, const char *const *sets, int n_sets, hs_scenario *out) {
  memset(out, 0, sizeof *out);
  hs_loader ld = {0};
  ld.path = path;
  ld.sets = sets;
  ld.n_sets = n_sets;
  ld.out = out;
  snprintf(out->path, sizeof out->path, "%s", path);
  const char *base = strrchr(path, '/');
  snprintf(out->name, sizeof out->name, "%s", base ? base + 1 : path);
  char *dot = strrchr(out->name, '.');
  if (dot && strcmp(dot, ".lua") == 0) *dot = '\0';

  FILE *probe = fopen(path, "r");
  if (!probe) {
    fprintf(stderr, "%s: cannot open scenario file: %s\n", path, strerror(errno));
    return HS_SCENARIO_EBAD;
  }
  fclose(probe);
  if (strlen(path) >= HS_PATH_MAX) {
    fprintf(stderr, "%s: scenario path longer than %d bytes\n", path, HS_PATH_MAX - 1);
    return HS_SCENARIO_EBAD;
  }
  hs_loader_read_lines(path, &ld.lines, &ld.n_lines);

  hs_sandbox_name(path);
  lua_State *L = hs_sandbox_new();
  ld.L = L;
  int rc = 0;
  if (!L) {
    fprintf(stderr, "%s: out of memory starting Lua\n", path);
    rc = HS_SCENARIO_EBAD;
    goto done;
  }
  lua_pushcfunction(L, setup_state);
  if (hs_sandbox_pcall(L, 0, 0) != LUA_OK) {
    fprintf(stderr, "%s: cannot start Lua: %s\n", path, lua_tostring(L, -1));
    rc = HS_SCENARIO_EBAD;
    goto done;
  }
  if (hs_sandbox_loadfile(L, path) != LUA_OK) {
    rc = report_lua_error(&ld, "not a valid Lua scenario", lua_tostring(L, -1));
    goto done;
  }
  if (hs_sandbox_pcall(L, 0, 0) != LUA_OK) {
    rc = report_lua_error(&ld, "Lua error", lua_tostring(L, -1));
    goto done;
  }
  lua_pushcfunction(L, validate_protected);
  lua_pushlightuserdata(L, &ld);
  if (hs_sandbox_pcall(L, 1, 1) != LUA_OK) {
    /* A metamethod of a declared table failed or looped while it was read. */
    const char *msg = lua_tostring(L, -1);
    if (ld.where[0] && ld.where_line > 0)
      fprintf(stderr, "%s:%d: %s: Lua error while reading it: %s\n", path, ld.where_line, ld.where, msg ? msg : "?");
    else
      rc = report_lua_error(&ld, "Lua error while reading the declarations", msg);
    rc = HS_SCENARIO_EBAD;
    goto done;
  }
  rc = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);

done:
  loader_close(&ld);
  if (rc) hs_scenario_free(out);
  return rc;
}

void hs_scenario_free(hs_scenario *s) {
  free(s->cluster.overrides);
  free(s->cluster.speed);
  free(s->workload.layers);
  hs_peer_scheme_free(s->algorithm.peers);
  s->algorithm.peers = NULL;
  if (s->stragglers.fn) s->stragglers.fn->destroy(s->stragglers.fn);
  s->stragglers.fn = NULL;
  free(s->stragglers.entries);
  free(s->network.events);
  free(s->failures.entries);
  s->stragglers.entries = NULL;
  s->network.events = NULL;
  s->failures.entries = NULL;
  /* Last: the Lua schemes and functions above live in this state. */
  if (s->lua) hs_sandbox_close(s->lua);
  s->lua = NULL;
  s->cluster.overrides = NULL;
  s->cluster.speed = NULL;
  s->workload.layers = NULL;
}
