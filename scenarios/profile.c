/* profile.c — workload.model: the numeric model, or a timing profile found
 * by name or path, run in the sandbox with workload.model_options, a
 * variant resolved to its family, its options checked and recorded, its
 * layers copied into the scenario (profile.h). */
#define _POSIX_C_SOURCE 200809L
#include "scenarios/profile.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenarios/loader_internal.h"
#include "scenarios/sandbox.h"

static const char *lua_kind(lua_State *L, int idx) { return luaL_typename(L, idx); }

/* The known models, the numeric one first, for a message. */
static void list_models(char *buf, size_t len) {
  snprintf(buf, len, "softmax");
  char names[128][HS_NAME_MAX];
  int n = hs_loader_lua_names(hs_loader_models_dir(), names, 128);
  for (int i = 0; i < n; i++) {
    strncat(buf, ", ", len - strlen(buf) - 1);
    strncat(buf, names[i], len - strlen(buf) - 1);
  }
}

/* What heads a shipped profile: its first comment's text after the dash
 * ("-- resnet50.lua — ResNet (...)"), to its first sentence's end or about
 * a line; and what it is: a variant of another (variant_of) or a profile
 * with options (its `local options = { ... }` line). Read as text: running
 * a profile takes a scenario. */
static void describe_model(const char *path, char *what, size_t wlen, char *kind, size_t klen) {
  what[0] = kind[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[512], text[1024] = "";
  int in_head = 1;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    if (in_head && strncmp(line, "-- ", 3) == 0) {
      const char *t = line + 3, *dash = text[0] ? NULL : strstr(t, "\xe2\x80\x94 ");
      if (!text[0] && dash) t = dash + 4;
      if (text[0] || dash) snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s", text[0] ? " " : "", t);
    } else {
      in_head = 0;
    }
    const char *v = strstr(line, "variant_of"), *o = strstr(line, "local options = {");
    if (v && !kind[0]) {
      const char *q = strpbrk(v, "\"'");
      const char *e = q ? strchr(q + 1, *q) : NULL;
      if (q && e) snprintf(kind, klen, "variant of %.*s", (int)(e - q - 1), q + 1);
    } else if (o && !kind[0]) {
      const char *e = strchr(o, '}');
      const char *b = o + 17;
      while (e && b < e && *b == ' ') b++;
      while (e && e > b && e[-1] == ' ') e--;
      if (e) snprintf(kind, klen, "model_options: %.*s", (int)(e - b), b);
    }
  }
  fclose(f);
  /* the first sentence ("et al." ends none), or about a line of it */
  for (char *stop = strstr(text, ". "); stop; stop = strstr(stop + 1, ". "))
    if (!(stop - text >= 3 && strncmp(stop - 3, " al", 3) == 0)) {
      stop[1] = '\0';
      break;
    }
  size_t n = strlen(text);
  if (n > 100) {
    size_t cut = 100;
    while (cut > 60 && text[cut] != ' ') cut--;
    if (text[cut] != ' ') /* no space to cut at: at least not inside a UTF-8 character */
      for (cut = 100; cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80;) cut--;
    snprintf(text + cut, sizeof text - cut, " ...");
  }
  snprintf(what, wlen, "%s", text);
}

int hs_profile_catalog(FILE *out) {
  char names[128][HS_NAME_MAX];
  int n = hs_loader_lua_names(hs_loader_models_dir(), names, 128);
  fprintf(out, "%-18s numeric: softmax regression on workload.dataset (computed for real)\n", "softmax");
  for (int i = 0; i < n; i++) {
    char path[HS_PATH_MAX + 300], what[1100], kind[256];
    snprintf(path, sizeof path, "%s/%.63s.lua", hs_loader_models_dir(), names[i]);
    describe_model(path, what, sizeof what, kind, sizeof kind);
    fprintf(out, "%-18s %s\n", names[i], what);
    if (kind[0]) fprintf(out, "%-18s   %s\n", "", kind);
  }
  fprintf(out, "\nworkload { model = \"NAME\", model_options = { ... } } takes one (timing only: layers' FLOPs and\n"
               "bytes); docs/scenarios.md, \"Timing profiles\", gives each one's counts and sources.\n");
  return 0;
}

/* hearsay.option(given, options, name [, lo, hi [, why]]): a profile's
 * option, the scenario's (given) over the profile's default (options);
 * with lo and hi it must be a whole number in lo..hi, else the profile
 * stops with "model_options.NAME must be a whole number in LO..HI (WHY),
 * got V", which the loader reports against the line or --set that set it.
 * One check for every family (scenarios/models/) instead of one each. */
static int l_option(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  const char *name = luaL_checkstring(L, 3);
  int checked = !lua_isnoneornil(L, 4);
  luaL_argcheck(L, checked || lua_isnoneornil(L, 5), 5, "a range needs its lower end");
  lua_Integer lo = checked ? luaL_checkinteger(L, 4) : 0, hi = checked ? luaL_checkinteger(L, 5) : 0;
  const char *why = luaL_optstring(L, 6, NULL);
  lua_settop(L, 6);
  /* every option has its default in the profile's options: a name that
   * has none is the profile's mistake (a misspelling reads nil) */
  if (lua_getfield(L, 2, name) == LUA_TNIL) return luaL_error(L, "hearsay.option: '%s' has no default in options", name);
  if (lua_getfield(L, 1, name) == LUA_TNIL) lua_pop(L, 1);
  else lua_remove(L, -2);
  if (!checked) return 1;
  int whole = 0;
  lua_Integer v = lua_tointegerx(L, -1, &whole);
  if (!whole || lua_type(L, -1) != LUA_TNUMBER || v < lo || v > hi) { /* no position: the option is to blame */
    int text = lua_type(L, -1) == LUA_TSTRING; /* "12" is not 12: say it is a string */
    lua_pushfstring(L, "model_options.%s must be a whole number in %I..%I%s%s%s, got %s%s%s", name, lo, hi,
                    why ? " (" : "", why ? why : "", why ? ")" : "", text ? "\"" : "", luaL_tolstring(L, -1, NULL),
                    text ? "\"" : "");
    return lua_error(L);
  }
  lua_pushinteger(L, v);
  return 1;
}

void hs_profile_lua_open(lua_State *L) {
  if (lua_getglobal(L, "hearsay") == LUA_TTABLE) {
    lua_pushcfunction(L, l_option);
    lua_setfield(L, -2, "option");
  }
  lua_pop(L, 1);
}

static int find_profile(hs_loader *ld, const char *model, char *out, size_t len) {
  return hs_loader_find_file(ld, model, "models", hs_loader_models_dir(), out, len);
}

static int is_identifier(const char *k) {
  if (!(*k == '_' || (*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z'))) return 0;
  for (; *k; k++)
    if (!(*k == '_' || (*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9'))) return 0;
  return 1;
}

/* With lua_next's key and value on top: sets dst[key] = value and leaves
 * the key for the next lua_next. */
static void set_entry(lua_State *L, int dst) {
  lua_pushvalue(L, -2);
  lua_insert(L, -2);
  lua_rawset(L, dst);
}

/* dst[k] = src[k] for every entry of the table at src (absolute indices). */
static void copy_into(lua_State *L, int src, int dst) {
  lua_pushnil(L);
  while (lua_next(L, src)) set_entry(L, dst);
}

/* Pushes a copy of the table at idx (a profile's argument must not change
 * what the loader checks it against afterwards). */
static void push_copy(lua_State *L, int idx) {
  lua_newtable(L);
  copy_into(L, idx, lua_gettop(L));
}

/* Pushes a copy of workload.model_options (the workload table is at wl),
 * each entry checked to be name = number or string: what the profile is
 * called with. A copy, so that the profile cannot change the scenario. */
static int push_model_options(hs_loader *ld, int line, int wl) {
  lua_State *L = ld->L;
  char kp[128];
  lua_getfield(L, wl, "model_options");
  int src = lua_gettop(L);
  lua_newtable(L);
  int copy = lua_gettop(L), n = 0, rc = 0;
  if (lua_istable(L, src)) {
    lua_pushnil(L);
    while (!rc && lua_next(L, src)) {
      const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
      snprintf(kp, sizeof kp, "workload.model_options.%s", k ? k : "?");
      int t = lua_type(L, -1);
      if (!k || strlen(k) >= sizeof ((hs_model_option *)0)->name || !is_identifier(k))
        rc = hs_loader_fail(ld, "workload.model_options", line, "keys are option names (a letter, then letters, "
                            "digits or _; at most 31)");
      else if (++n > HS_MODEL_OPTIONS_MAX)
        rc = hs_loader_fail(ld, "workload.model_options", line, "at most %d options", HS_MODEL_OPTIONS_MAX);
      else if (t == LUA_TNUMBER && !isfinite(lua_tonumber(L, -1)))
        rc = hs_loader_fail(ld, kp, line, "must be a finite number");
      else if (t == LUA_TSTRING && strlen(lua_tostring(L, -1)) >= HS_NAME_MAX)
        rc = hs_loader_fail(ld, kp, line, "too long (max %d)", HS_NAME_MAX - 1);
      else if (t != LUA_TNUMBER && t != LUA_TSTRING)
        rc = hs_loader_fail(ld, kp, line, "expected a number or a string, got %s", lua_kind(L, -1));
      if (rc) break;
      set_entry(L, copy);
    }
  }
  if (rc) {
    lua_settop(L, src - 1);
    return rc;
  }
  lua_remove(L, src);
  return 0;
}

static int compare_options(const void *a, const void *b) {
  return strcmp(((const hs_model_option *)a)->name, ((const hs_model_option *)b)->name);
}

/* Checks the options the scenario gave (table at given) against the ones
 * the profile (table at profile) declares in its `options` table, with
 * their defaults, and records each, sorted by name. */
static int resolve_model_options(hs_loader *ld, int line, const char *file, int given, int profile) {
  lua_State *L = ld->L;
  hs_workload_spec *w = &ld->out->workload;
  lua_getfield(L, profile, "options");
  int declared = lua_gettop(L), rc = 0;
  if (!lua_isnil(L, declared) && !lua_istable(L, declared)) {
    rc = hs_loader_fail(ld, "workload.model", line, "%s: options must be a table of name = default", file);
    goto out;
  }
  char names[256] = "";
  if (lua_istable(L, declared)) {
    lua_pushnil(L);
    while (lua_next(L, declared)) {
      int t = lua_type(L, -1);
      const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
      if (!k || !is_identifier(k) || strlen(k) >= sizeof w->model_options[0].name ||
          w->n_model_options == HS_MODEL_OPTIONS_MAX || (t != LUA_TNUMBER && t != LUA_TSTRING) ||
          (t == LUA_TNUMBER && !isfinite(lua_tonumber(L, -1))) ||
          (t == LUA_TSTRING && strlen(lua_tostring(L, -1)) >= HS_NAME_MAX)) {
        lua_pop(L, 2);
        rc = hs_loader_fail(ld, "workload.model", line, "%s: options must be at most %d name = a finite number or a string",
                            file, HS_MODEL_OPTIONS_MAX);
        goto out;
      }
      hs_model_option *o = &w->model_options[w->n_model_options++];
      snprintf(o->name, sizeof o->name, "%s", k);
      lua_getfield(L, given, k); /* the scenario's value over the default */
      int v = lua_isnil(L, -1) ? -2 : -1;
      o->is_string = lua_type(L, v) == LUA_TSTRING;
      if (o->is_string) snprintf(o->string, sizeof o->string, "%s", lua_tostring(L, v));
      else o->number = lua_tonumber(L, v);
      lua_pop(L, 2);
    }
  }
  qsort(w->model_options, w->n_model_options, sizeof *w->model_options, compare_options);
  for (int i = 0; i < w->n_model_options; i++) {
    strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
    strncat(names, w->model_options[i].name, sizeof names - strlen(names) - 1);
  }
  lua_pushnil(L);
  while (lua_next(L, given)) {
    const char *k = lua_tostring(L, -2);
    int known = 0;
    for (int i = 0; i < w->n_model_options; i++) known |= strcmp(w->model_options[i].name, k) == 0;
    if (!known) {
      char kp[128];
      snprintf(kp, sizeof kp, "workload.model_options.%s", k);
      lua_pop(L, 2);
      rc = hs_loader_fail(ld, kp, line, "'%s' has no such option (%s%s)", w->model, names[0] ? "its options: " : "it takes none",
                          names);
      goto out;
    }
    lua_pop(L, 1);
  }
out:
  lua_settop(L, declared - 1);
  return rc;
}

/* The key a profile's error is about: workload.model_options.NAME where
 * its message names model_options.NAME and the scenario set NAME (the
 * table at `scenario`), so that the message points at that line or that
 * --set; workload.model otherwise. */
static void blamed_key(lua_State *L, const char *msg, int scenario, char *kp, size_t len) {
  snprintf(kp, len, "workload.model");
  const char *at = msg ? strstr(msg, "model_options.") : NULL;
  if (!at) return;
  at += strlen("model_options.");
  char name[32];
  size_t n = 0;
  while (n + 1 < sizeof name && (at[n] == '_' || (at[n] >= 'a' && at[n] <= 'z') || (at[n] >= 'A' && at[n] <= 'Z') ||
                                 (at[n] >= '0' && at[n] <= '9')))
    name[n] = at[n], n++;
  name[n] = '\0';
  lua_getfield(L, scenario, name);
  if (n > 0 && !lua_isnil(L, -1)) snprintf(kp, len, "workload.model_options.%s", name);
  lua_pop(L, 1);
}

/* Runs profile `file` with a copy of the table at `args` as its argument;
 * leaves what it returned on top (a table), or fails with nothing pushed.
 * `scenario`: the options the scenario gave, for the error's key. */
static int run_profile(hs_loader *ld, int line, const char *file, int args, int scenario) {
  lua_State *L = ld->L;
  int top = lua_gettop(L), rc = 0;
  if (hs_sandbox_loadfile(L, file) != LUA_OK) {
    rc = hs_loader_fail(ld, "workload.model", line, "profile failed to load: %s", lua_tostring(L, -1));
  } else {
    push_copy(L, args);
    if (hs_sandbox_pcall(L, 1, 1) != LUA_OK) {
      char kp[96];
      blamed_key(L, lua_tostring(L, -1), scenario, kp, sizeof kp);
      rc = hs_loader_fail(ld, kp, line, "profile failed to load: %s", lua_tostring(L, -1));
    } else if (!lua_istable(L, -1)) {
      rc = hs_loader_fail(ld, "workload.model", line, "%s must return a table", file);
    }
  }
  if (rc) lua_settop(L, top);
  return rc;
}

/* out = DIR/REL SUFFIX where that file exists, DIR being the directory of
 * file (REL relative: a leading slash finds nothing here). */
static int in_dir_of(const char *file, const char *rel, const char *suffix, char *out, size_t len) {
  const char *slash = strrchr(file, '/');
  int dir = slash ? (int)(slash - file) : 1;
  if (rel[0] == '/' || snprintf(out, len, "%.*s/%s%s", dir, slash ? file : ".", rel, suffix) >= (int)len) return 0;
  FILE *f = fopen(out, "r");
  if (f) fclose(f);
  return f != NULL;
}

/* out = DIR/NAME.lua, a profile named NAME (not a path) beside file. */
static int beside(const char *file, const char *name, char *out, size_t len) {
  return !strchr(name, '/') && in_dir_of(file, name, ".lua", out, len);
}

/* Whether files a and b are in the same directory, as written (a file
 * without a slash being in "."). */
static int same_dir(const char *a, const char *b) {
  const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
  const char *da = sa ? a : ".", *db = sb ? b : ".";
  size_t la = sa ? (size_t)(sa - a) : 1, lb = sb ? (size_t)(sb - b) : 1;
  return la == lb && strncmp(da, db, la) == 0;
}

/* Where a variant's family is: beside the shipped profiles for a shipped
 * variant (a scenario's own models/ does not replace the family of
 * resnet18); beside the variant's own file for one of a user's (a folder
 * of profiles keeps its families with it) unless that folder is the
 * scenario's own, which holds scenarios, not profiles; else as a
 * scenario's model is found. A relative path (variant_of = "fam/x.lua")
 * is read from the variant's folder first, as #include "..." reads from
 * the including file's, then from the scenario's. */
static int find_family(hs_loader *ld, const char *variant_file, const char *name, char *out, size_t len) {
  const char *shipped = hs_loader_models_dir();
  size_t n = strlen(shipped);
  if ((strchr(name, '/') || strstr(name, ".lua")) && in_dir_of(variant_file, name, "", out, len)) return 1;
  if (strncmp(variant_file, shipped, n) == 0 && variant_file[n] == '/') return beside(variant_file, name, out, len);
  return (!same_dir(variant_file, ld->path) && beside(variant_file, name, out, len)) ||
         find_profile(ld, name, out, len);
}

/* A variant (a profile returning { variant_of = "FAMILY", options = {...} }:
 * gpt2-medium is gpt2 with its sizes) is its family's profile run with the
 * variant's options under the scenario's (and a variant's under those of
 * the variant naming it, up to 4 in a row). Replaces the variant's table
 * (on top) by the final profile's, and *given by the options that one ran
 * with; *file becomes its. Every option a variant sets must be one the
 * final profile declares. Nothing to do for a profile of its own. */
static int resolve_variant(hs_loader *ld, int line, char *file, size_t len, int *given, int scenario) {
  lua_State *L = ld->L;
  char first[HS_PATH_MAX];
  snprintf(first, sizeof first, "%s", file);
  lua_newtable(L); /* the names the variants set, below the variant */
  lua_insert(L, -2);
  int set = lua_gettop(L) - 1, rc = 0, variants = 0;
  for (;; variants++) {
    int variant = lua_gettop(L);
    lua_getfield(L, variant, "variant_of");
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    char family[HS_PATH_MAX];
    const char *name = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (!name || variants == 4 || !find_family(ld, file, name, family, sizeof family))
      rc = hs_loader_fail(ld, "workload.model", line, "%s: variant_of must name a profile (of no more than 4 "
                          "variants in a row)", file);
    lua_pop(L, 1);
    /* the variant's options (each a name = a finite number or a string),
     * then what is over them: the scenario's, or the variant's naming it */
    lua_getfield(L, variant, "options");
    int own = lua_gettop(L);
    if (!rc && !lua_isnil(L, own) && !lua_istable(L, own))
      rc = hs_loader_fail(ld, "workload.model", line, "%s: options must be a table of name = value", file);
    lua_newtable(L);
    int merged = lua_gettop(L);
    if (!rc && lua_istable(L, own)) {
      lua_pushnil(L);
      while (!rc && lua_next(L, own)) {
        int t = lua_type(L, -1);
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (!k || !is_identifier(k) || (t != LUA_TNUMBER && t != LUA_TSTRING) ||
            (t == LUA_TNUMBER && !isfinite(lua_tonumber(L, -1)))) {
          rc = hs_loader_fail(ld, "workload.model", line, "%s: options must be name = a finite number or a string",
                              file);
          lua_pop(L, 2);
          break;
        }
        lua_pushvalue(L, -2);
        lua_pushboolean(L, 1);
        lua_rawset(L, set);
        set_entry(L, merged);
      }
    }
    if (rc) {
      lua_settop(L, set - 1);
      return rc;
    }
    copy_into(L, *given, merged);
    rc = run_profile(ld, line, family, merged, scenario);
    if (rc) {
      lua_settop(L, set - 1);
      return rc;
    }
    /* ... set variant own merged profile -> ... set merged profile */
    lua_remove(L, own);
    lua_remove(L, variant);
    *given = lua_gettop(L) - 1;
    snprintf(file, len, "%s", family);
  }
  /* every option a variant set is one the profile at the end declares */
  if (variants > 0) {
    lua_getfield(L, -1, "options");
    int declared = lua_gettop(L);
    lua_pushnil(L);
    while (!rc && lua_next(L, set)) {
      lua_pop(L, 1);
      int known = 0;
      if (lua_istable(L, declared)) {
        lua_pushvalue(L, -1);
        lua_rawget(L, declared);
        known = !lua_isnil(L, -1);
        lua_pop(L, 1);
      }
      if (!known) {
        rc = hs_loader_fail(ld, "workload.model", line, "%s: option '%s' is not one %s declares", first,
                            lua_tostring(L, -1), file);
        lua_pop(L, 1);
      }
    }
    lua_pop(L, 1);
  }
  if (rc) {
    lua_settop(L, set - 1);
    return rc;
  }
  lua_remove(L, set);
  if (*given > set) (*given)--;
  return 0;
}

/* A layer's `matrices`, on the top of L: absent (not given), or a list
 * of {rows, cols}. Returns 1 if malformed. */
static int read_matrices(lua_State *L, hs_layer_spec *l) {
  lua_getfield(L, -1, "matrices");
  int bad = 0;
  l->matrices_given = !lua_isnil(L, -1);
  l->n_matrices = 0;
  if (l->matrices_given) {
    size_t n = lua_istable(L, -1) ? lua_rawlen(L, -1) : 0;
    bad = !lua_istable(L, -1) || n > HS_LAYER_MATRICES_MAX;
    for (size_t k = 1; !bad && k <= n; k++) {
      lua_rawgeti(L, -1, (lua_Integer)k);
      for (int d = 0; d < 2 && !bad; d++) {
        double v = NAN;
        if (lua_istable(L, -1) && lua_rawlen(L, -1) == 2) {
          lua_rawgeti(L, -1, d + 1);
          v = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : NAN;
          lua_pop(L, 1);
        }
        bad = !(v >= 1 && v < 1e12) || v != floor(v);
        l->matrices[k - 1][d] = v;
      }
      lua_pop(L, 1);
      if (!bad) l->n_matrices = (int)k;
    }
  }
  lua_pop(L, 1);
  return bad;
}

static double matrices_cells(const hs_layer_spec *l) {
  double cells = 0;
  for (int k = 0; k < l->n_matrices; k++) cells += l->matrices[k][0] * l->matrices[k][1];
  return cells;
}

/* Runs a profile file (which returns { layers = { {name=, params=,
 * fwd_flops=, bwd_flops=, tensors=, kernels=, bwd_kernels=}, ... },
 * options = { name = default, ... } }, or names the profile it is a
 * variant of) with workload.model_options as its argument, and copies its
 * layers. The workload table is on top. */
static int load_profile(hs_loader *ld, int line, const char *path) {
  lua_State *L = ld->L;
  hs_workload_spec *w = &ld->out->workload;
  char file[HS_PATH_MAX];
  snprintf(file, sizeof file, "%s", path);
  int base = lua_gettop(L);
  int rc = push_model_options(ld, line, base);
  if (rc) return rc;
  int given = lua_gettop(L);
  rc = run_profile(ld, line, file, given, given);
  if (rc) {
    lua_settop(L, base);
    return rc;
  }
  rc = resolve_variant(ld, line, file, sizeof file, &given, given);
  if (rc) {
    lua_settop(L, base);
    return rc;
  }
  rc = resolve_model_options(ld, line, file, given, lua_gettop(L));
  if (rc) goto out;
  lua_getfield(L, -1, "layers");
  size_t raw = lua_istable(L, -1) ? lua_rawlen(L, -1) : 0;
  int n = raw > 1000000 ? 0 : (int)raw; /* a profile of a million layers is not a model */
  if (n == 0) {
    lua_pop(L, 1);
    rc = hs_loader_fail(ld, "workload.model", line, "%s has no layers", file);
    goto out;
  }
  w->layers = calloc(n, sizeof *w->layers);
  w->n_layers = n;
  for (int i = 1; i <= n && !rc; i++) {
    hs_layer_spec *l = &w->layers[i - 1];
    lua_rawgeti(L, -1, i);
    lua_getfield(L, -1, "name");
    snprintf(l->name, sizeof l->name, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "?");
    lua_pop(L, 1);
    lua_getfield(L, -1, "params");
    l->params = lua_tonumber(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, -1, "fwd_flops");
    l->fwd_flops = lua_tonumber(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, -1, "bwd_flops");
    l->bwd_flops = lua_isnil(L, -1) ? 2 * l->fwd_flops : lua_tonumber(L, -1);
    lua_pop(L, 1);
    /* one tensor unless the profile says; a layer without parameters has none */
    lua_getfield(L, -1, "tensors");
    double tensors = lua_isnil(L, -1) ? (l->params > 0) : lua_tonumber(L, -1);
    lua_pop(L, 1);
    /* buffers: none unless the profile says */
    lua_getfield(L, -1, "buffers");
    double buffers = lua_isnil(L, -1) ? 0 : lua_tonumber(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, -1, "buffer_bytes");
    l->buffer_bytes = lua_isnil(L, -1) ? 0 : lua_tonumber(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, -1, "int64_buffers");
    double int64_buffers = lua_isnil(L, -1) ? 0 : lua_tonumber(L, -1);
    lua_pop(L, 1);
    /* Kernels a pass launches, unless the profile says: a layer that
     * computes launches one forward; backward one for its input's
     * gradient and, with parameters, one for theirs. A lower bound: a
     * convolution with its batch-norm and ReLU launches three forward. */
    lua_getfield(L, -1, "kernels");
    double fwd_kernels = lua_isnil(L, -1) ? (l->fwd_flops > 0) : lua_tonumber(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, -1, "bwd_kernels");
    double bwd_kernels = lua_isnil(L, -1) ? (l->bwd_flops > 0) + (l->params > 0) : lua_tonumber(L, -1);
    lua_pop(L, 1);
    int matrices_bad = read_matrices(L, l);
    lua_pop(L, 1);
    if (!(l->params >= 0) || !(l->fwd_flops >= 0) || !(l->bwd_flops >= 0))
      rc = hs_loader_fail(ld, "workload.model", line, "%s: layer %d (%s) has a negative or missing size",
                          file, i, l->name);
    else if (!(tensors >= 0 && tensors <= 1000) || tensors != (int)tensors || (tensors == 0) != (l->params == 0))
      rc = hs_loader_fail(ld, "workload.model", line,
                          "%s: layer %d (%s): tensors must be a whole number in 1..1000 (0 only without parameters)",
                          file, i, l->name);
    else if (!(buffers >= 0 && buffers <= 1000) || buffers != (int)buffers || !(l->buffer_bytes >= 0 && l->buffer_bytes < 1e15) ||
             l->buffer_bytes != floor(l->buffer_bytes) || (buffers == 0) != (l->buffer_bytes == 0))
      rc = hs_loader_fail(ld, "workload.model", line,
                          "%s: layer %d (%s): buffers must be a whole number in 0..1000 and buffer_bytes their whole "
                          "bytes (both 0 or both positive)",
                          file, i, l->name);
    else if (!(int64_buffers >= 0 && int64_buffers <= buffers) || int64_buffers != (int)int64_buffers ||
             8 * int64_buffers > l->buffer_bytes)
      rc = hs_loader_fail(ld, "workload.model", line,
                          "%s: layer %d (%s): int64_buffers must be a whole number of the layer's buffers, their 8 "
                          "bytes each within buffer_bytes",
                          file, i, l->name);
    else if (!(fwd_kernels >= 0 && fwd_kernels <= 1000) || fwd_kernels != (int)fwd_kernels ||
             !(bwd_kernels >= 0 && bwd_kernels <= 1000) || bwd_kernels != (int)bwd_kernels ||
             (l->fwd_flops > 0 && fwd_kernels == 0) || (l->bwd_flops > 0 && bwd_kernels == 0))
      rc = hs_loader_fail(ld, "workload.model", line,
                          "%s: layer %d (%s): kernels and bwd_kernels must be whole numbers in 0..1000, at least 1 "
                          "where the pass computes",
                          file, i, l->name);
    else if (matrices_bad || l->n_matrices > tensors || matrices_cells(l) > l->params)
      rc = hs_loader_fail(ld, "workload.model", line,
                          "%s: layer %d (%s): matrices must be a list of at most %d {rows, cols} pairs of whole "
                          "numbers from 1, no more than the layer's tensors, their cells no more than its params",
                          file, i, l->name, HS_LAYER_MATRICES_MAX);
    else
      l->tensors = (int)tensors, l->buffers = (int)buffers, l->int64_buffers = (int)int64_buffers,
      l->fwd_kernels = (int)fwd_kernels, l->bwd_kernels = (int)bwd_kernels;
  }
  lua_pop(L, 1);
out:
  lua_settop(L, base);
  return rc;
}

int hs_profile_resolve(hs_loader *ld, int line) {
  hs_workload_spec *w = &ld->out->workload;
  static const int precision_bytes[] = {4, 2, 2};
  w->dtype_bytes = precision_bytes[w->precision];
  if (strcmp(w->model, "softmax") == 0) {
    lua_getfield(ld->L, -1, "model_options");
    int has_options = !lua_isnil(ld->L, -1);
    lua_pop(ld->L, 1);
    if (has_options)
      return hs_loader_fail(ld, "workload.model_options", line, "the numeric model 'softmax' takes no options");
    w->numeric = true;
    /* Two layers, so buckets can split the model. The flat layout is in
     * reverse layer order, which puts the weight matrix first and the bias
     * after it: the layout algos/workloads/softmax.c computes on. */
    w->n_layers = 2;
    w->layers = calloc(2, sizeof *w->layers);
    snprintf(w->layers[0].name, sizeof w->layers[0].name, "linear.bias");
    w->layers[0].params = w->classes;
    w->layers[0].tensors = w->layers[1].tensors = 1;
    /* nn.Linear's weight, (out, in); the bias a vector */
    w->layers[0].matrices_given = w->layers[1].matrices_given = true;
    w->layers[1].n_matrices = 1;
    w->layers[1].matrices[0][0] = w->classes, w->layers[1].matrices[0][1] = w->features;
    snprintf(w->layers[1].name, sizeof w->layers[1].name, "linear.weight");
    w->layers[1].params = (double)w->classes * w->features;
    w->layers[1].fwd_flops = 2.0 * w->classes * w->features;
    w->layers[1].bwd_flops = 4.0 * w->classes * w->features;
    /* PyTorch's nn.Linear and F.cross_entropy, op by op: forward addmm
     * (bias fused), log_softmax, nll_loss; backward nll_loss's and
     * log_softmax's, mm for the weight's gradient, a sum for the bias's
     * (the input needs none). */
    w->layers[1].fwd_kernels = 3;
    w->layers[1].bwd_kernels = 3;
    w->layers[0].bwd_kernels = 1;
    if (w->dtype_bytes != 4)
      return hs_loader_fail(ld, "workload.precision", line, "the numeric softmax workload runs in fp32");
    return 0;
  }
  w->numeric = false;
  lua_State *L = ld->L;
  lua_getfield(L, -1, "dataset");
  int has_dataset = !lua_isnil(L, -1);
  lua_pop(L, 1);
  if (has_dataset)
    return hs_loader_fail(ld, "workload.dataset", line,
                          "only the numeric model 'softmax' takes a dataset; '%s' is a timing-only profile", w->model);
  char file[HS_PATH_MAX];
  if (!find_profile(ld, w->model, file, sizeof file)) {
    char models[1024];
    list_models(models, sizeof models);
    return hs_loader_fail(ld, "workload.model", line, "unknown model '%s' (known: %s)", w->model, models);
  }
  return load_profile(ld, line, file);
}
