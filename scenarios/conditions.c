/* conditions.c — the scenario's stragglers { }, network { } and failures { }:
 * the conditions a cluster runs under, each a list of small entries.
 *
 * Every entry is checked here, once, with the file, the line of the entry
 * and the key at fault; the evaluators (algos/train/straggler.c, sim/conditions.c)
 * can then trust what they read. docs/stragglers.md documents the keys. */
#include <lauxlib.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenarios/loader.h"
#include "scenarios/loader_internal.h"
#include "scenarios/units.h"

typedef struct {
  hs_loader *ld;
  char kp[96]; /* "stragglers[2]" */
  int line;    /* the entry's own line */
} entry_ctx;

enum { U_NONE = -1 };

/* The largest slowdown factor: compute a million times slower than
 * nominal is a GPU that has stopped (failures { } says that). */
#define HS_SLOWDOWN_MAX 1e6

/* Reads key into *out when present (returns 1), 0 when absent, -1 on error.
 * unit: an hs_unit_kind, or U_NONE for a plain number. */
static int get_num(entry_ctx *e, const char *key, int unit, double *out) {
  lua_State *L = e->ld->L;
  char k[160], err[256];
  snprintf(k, sizeof k, "%s.%s", e->kp, key);
  lua_getfield(L, -1, key);
  int rc = 1;
  if (lua_isnil(L, -1)) rc = 0;
  else if (lua_type(L, -1) == LUA_TNUMBER) *out = lua_tonumber(L, -1);
  else if (unit != U_NONE && lua_type(L, -1) == LUA_TSTRING) {
    if (hs_parse_unit(lua_tostring(L, -1), (hs_unit_kind)unit, out, err, sizeof err))
      rc = -1, hs_loader_fail(e->ld, k, e->line, "%s", err);
  } else {
    rc = -1;
    hs_loader_fail(e->ld, k, e->line, "expected %s, got %s", unit == U_NONE ? "a number" : hs_unit_kind_name((hs_unit_kind)unit),
                   luaL_typename(L, -1));
  }
  lua_pop(L, 1);
  if (rc == 1 && !isfinite(*out)) {
    hs_loader_fail(e->ld, k, e->line, "must be a finite number");
    rc = -1;
  }
  /* Times and sizes within what the simulator's clock and memory hold;
   * plain numbers are bounded by the reader that knows what they mean. */
  double max = unit == HS_UNIT_TIME ? HS_TIME_MAX : unit == HS_UNIT_BYTES ? 1099511627776.0 : INFINITY;
  if (rc == 1 && fabs(*out) > max) {
    hs_loader_fail(e->ld, k, e->line, "must be at most %g (got %g)", max, *out);
    rc = -1;
  }
  return rc;
}

/* An upper bound for a number that get_num or need read. */
static int at_most(entry_ctx *e, const char *key, double v, double max, const char *why) {
  if (v <= max) return 0;
  char k[160];
  snprintf(k, sizeof k, "%s.%s", e->kp, key);
  return hs_loader_fail(e->ld, k, e->line, "must be at most %g (got %g): %s", max, v, why);
}

static int fail(entry_ctx *e, const char *key, const char *fmt, double v) {
  char k[160];
  snprintf(k, sizeof k, "%s%s%s", e->kp, key ? "." : "", key ? key : "");
  return hs_loader_fail(e->ld, k, e->line, fmt, v);
}

/* A required number that must be > lo (or >= lo when ge). */
static int need(entry_ctx *e, const char *key, int unit, double lo, int ge, double *out, int required) {
  int got = get_num(e, key, unit, out);
  if (got < 0) return -1;
  if (!got) return required ? fail(e, key, "required for this entry%.0s", 0) : 0;
  if (ge ? !(*out >= lo) : !(*out > lo))
    return fail(e, key, ge ? "must be at least %g" : "must be greater than %g", lo);
  return 0;
}

/* An optional integer index into 0..limit-1; -1 when absent. */
static int get_index(entry_ctx *e, const char *key, int limit, int *out) {
  double v;
  *out = -1;
  int got = get_num(e, key, U_NONE, &v);
  if (got < 0) return -1;
  if (!got) return 0;
  char k[160];
  snprintf(k, sizeof k, "%s.%s", e->kp, key);
  if (v != floor(v)) return hs_loader_fail(e->ld, k, e->line, "expected an integer index, got %g", v);
  if (v < 0 || v >= limit) return hs_loader_fail(e->ld, k, e->line, "%g is out of range 0..%d", v, limit - 1);
  *out = (int)v;
  return 0;
}

/* Optional string key among choices ("a|b"); *out its index, def when absent. */
static int get_choice(entry_ctx *e, const char *key, const char *const *choices, int def, int *out) {
  lua_State *L = e->ld->L;
  char k[160];
  snprintf(k, sizeof k, "%s.%s", e->kp, key);
  lua_getfield(L, -1, key);
  *out = def;
  int rc = 0;
  if (!lua_isnil(L, -1)) {
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    int i = 0;
    while (s && choices[i] && strcmp(choices[i], s)) i++;
    if (s && choices[i]) *out = i;
    else {
      char list[256] = "";
      for (int j = 0; choices[j]; j++) {
        strncat(list, choices[j], sizeof list - strlen(list) - 1);
        if (choices[j + 1]) strncat(list, ", ", sizeof list - strlen(list) - 1);
      }
      rc = hs_loader_fail(e->ld, k, e->line, "'%s' is not one of %s", s ? s : luaL_typename(L, -1), list);
    }
  }
  lua_pop(L, 1);
  return rc;
}

/* Unknown keys are the most common mistake: refused first, by name. */
static int only_keys(entry_ctx *e, const char *const *allowed) {
  lua_State *L = e->ld->L;
  int t = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pop(L, 1);
    const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    int ok = 0;
    for (int i = 0; k && allowed[i]; i++) ok |= strcmp(allowed[i], k) == 0;
    if (!ok) {
      char full[200], keys[400] = "";
      for (int i = 0; allowed[i]; i++) {
        strncat(keys, allowed[i], sizeof keys - strlen(keys) - 1);
        if (allowed[i + 1]) strncat(keys, ", ", sizeof keys - strlen(keys) - 1);
      }
      snprintf(full, sizeof full, "%s.%s", e->kp, k ? k : "?");
      lua_pop(L, 1);
      return hs_loader_fail(e->ld, full, e->line, "unknown key in this entry (accepted: %s)", keys);
    }
  }
  return 0;
}

static int has(entry_ctx *e, const char *key) {
  lua_getfield(e->ld->L, -1, key);
  int present = !lua_isnil(e->ld->L, -1);
  lua_pop(e->ld->L, 1);
  return present;
}

/* "gpu5", "node3", "rack1": a link of the cluster. */
static int get_link(entry_ctx *e, const char *key, hs_netlink_kind *kind, int *index) {
  const hs_cluster_spec *c = &e->ld->out->cluster;
  lua_State *L = e->ld->L;
  char k[160];
  snprintf(k, sizeof k, "%s.%s", e->kp, key);
  lua_getfield(L, -1, key);
  const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
  char word[16] = "";
  int i = -1, used = 0;
  int ok = sscanf(s, "%15[a-z]%d%n", word, &i, &used) == 2 && s[used] == '\0';
  lua_pop(L, 1);
  int racks = c->topology == HS_TOPO_FAT_TREE ? (c->nodes + c->rack_size - 1) / c->rack_size : 0;
  int limit = 0;
  if (ok && strcmp(word, "gpu") == 0) *kind = HS_NETLINK_GPU, limit = c->nodes * c->gpus_per_node;
  else if (ok && strcmp(word, "node") == 0) *kind = HS_NETLINK_NIC, limit = c->nodes;
  else if (ok && strcmp(word, "rack") == 0) *kind = HS_NETLINK_UPLINK, limit = racks;
  else
    return hs_loader_fail(e->ld, k, e->line, "'%s' names no link: write \"gpuN\" (its NVLink), \"nodeN\" (its NIC) "
                          "or \"rackN\" (its uplink in a fat tree)", s);
  if (limit == 0)
    return hs_loader_fail(e->ld, k, e->line, "'%s': this cluster has no racks (inter.topology is \"flat\")", s);
  if (i < 0 || i >= limit)
    return hs_loader_fail(e->ld, k, e->line, "'%s' is out of range (%s0..%s%d)", s, word, word, limit - 1);
  *index = i;
  return 0;
}

/* from/to window: 0 and +inf when absent; to must come after from. */
static int get_window(entry_ctx *e, double *from, double *to) {
  *from = 0;
  *to = INFINITY;
  if (need(e, "from", HS_UNIT_TIME, 0, 1, from, 0)) return -1;
  int got = get_num(e, "to", HS_UNIT_TIME, to);
  if (got < 0) return -1;
  if (got && !(*to > *from)) {
    char k[160];
    snprintf(k, sizeof k, "%s.to", e->kp);
    return hs_loader_fail(e->ld, k, e->line, "the window ends (%g s) before it starts (from = %g s)", *to, *from);
  }
  return 0;
}

/* Iterates over the list entries of the declaration on top of the stack. */
typedef int (*entry_reader)(entry_ctx *e, int i);

static int each_entry(hs_loader *ld, const char *decl, int line, entry_reader read, const char *const *extra_keys) {
  lua_State *L = ld->L;
  int t = lua_gettop(L);
  int n = (int)lua_rawlen(L, t);
  /* Keys that are neither list positions nor allowed extras. */
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pop(L, 1);
    int ok = lua_type(L, -1) == LUA_TNUMBER && lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1 &&
             lua_tointeger(L, -1) <= n;
    for (int i = 0; !ok && extra_keys && extra_keys[i]; i++)
      ok = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), extra_keys[i]) == 0;
    if (!ok) {
      char k[160];
      snprintf(k, sizeof k, "%s.%s", decl, lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?");
      lua_pop(L, 1);
      return hs_loader_fail(ld, k, line, "unknown key: %s { } holds a list of { ... } entries%s", decl,
                            extra_keys ? " and slowdown = function(rank, iteration, time)" : "");
    }
  }
  for (int i = 1; i <= n; i++) {
    entry_ctx e = {.ld = ld, .line = hs_loader_entry_line(ld, line, i)};
    snprintf(e.kp, sizeof e.kp, "%s[%d]", decl, i);
    hs_loader_at(ld, e.kp, e.line);
    lua_rawgeti(L, t, i);
    int rc = lua_istable(L, -1) ? read(&e, i - 1) : hs_loader_fail(ld, e.kp, e.line, "expected a { ... } entry");
    lua_pop(L, 1);
    if (rc) return rc;
  }
  return 0;
}

/* ---- stragglers ---------------------------------------------------------------- */

/* Each declaration's entry keys (hs_conditions_each_key lists them). */
static const char *const straggler_keys[] = {"gpu",   "node",  "rack", "slowdown", "from",  "to",    "noise",
                                             "mu",    "sigma", "mean", "shape",    "scale", "min",   "max",
                                             "per",   "draws", "pause", "every",   "start", "jitter", NULL};
static const char *const net_keys[] = {"link", "bandwidth", "latency", "from",    "to",
                                       "every", "src",      "dst",     "streams", "chunk", NULL};
static const char *const failure_keys[] = {"gpu", "node", "link", "at", "mtbf", "per", NULL};

void hs_conditions_each_key(void (*fn)(void *ctx, const char *decl, const char *key), void *ctx) {
  static const struct {
    const char *decl;
    const char *const *keys;
  } lists[] = {{"stragglers", straggler_keys}, {"network", net_keys}, {"failures", failure_keys}};
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
    for (int k = 0; lists[i].keys[k]; k++) fn(ctx, lists[i].decl, lists[i].keys[k]);
}

static const char *const noise_names[] = {"lognormal", "exponential", "pareto", "uniform", NULL};
static const char *const per_names[] = {"gpu", "node", NULL};
static const char *const draws_names[] = {"iteration", "once", NULL};

static int read_straggler(entry_ctx *e, int i) {
  hs_scenario *s = e->ld->out;
  const hs_cluster_spec *c = &s->cluster;
  hs_straggler_entry *x = &s->stragglers.entries[i];
  x->index = i;
  x->line = e->line;
  int racks = (c->nodes + c->rack_size - 1) / c->rack_size;
  if (only_keys(e, straggler_keys) || get_index(e, "gpu", c->nodes * c->gpus_per_node, &x->gpu) ||
      get_index(e, "node", c->nodes, &x->node) || get_index(e, "rack", racks, &x->rack))
    return HS_SCENARIO_EBAD;
  if ((x->gpu >= 0) + (x->node >= 0) + (x->rack >= 0) > 1)
    return fail(e, NULL, "name at most one of gpu, node or rack (none: every GPU)%.0s", 0);
  int kinds = has(e, "slowdown") + has(e, "noise") + has(e, "pause");
  if (kinds != 1)
    return fail(e, NULL, "give exactly one of slowdown = F, noise = \"lognormal\"|\"exponential\"|\"pareto\"|"
                "\"uniform\", or pause = D (a periodic hiccup)%.0s", 0);
  if (get_window(e, &x->from, &x->to)) return HS_SCENARIO_EBAD;
  /* Keys of the other kinds would be silently ignored: refuse them. */
  static const char *const noise_keys[] = {"mu", "sigma", "mean", "shape", "scale", "min", "max", NULL};
  static const char *const hiccup_keys[] = {"every", "start", "jitter", NULL};
  if (has(e, "slowdown")) {
    x->kind = HS_STRAGGLE_SLOWDOWN;
    if (need(e, "slowdown", U_NONE, 0, 0, &x->factor, 1) ||
        at_most(e, "slowdown", x->factor, HS_SLOWDOWN_MAX, "a GPU a million times slower has stopped"))
      return HS_SCENARIO_EBAD;
    if (x->factor < 1 / HS_SLOWDOWN_MAX)
      return fail(e, "slowdown", "must be at least 1e-6 (got %g)", x->factor);
    if (has(e, "per")) return fail(e, "per", "only noise and hiccups are drawn per GPU or per node%.0s", 0);
  }
  if (!has(e, "noise")) {
    for (int k = 0; noise_keys[k]; k++)
      if (has(e, noise_keys[k])) return fail(e, noise_keys[k], "belongs to a noise = ... entry%.0s", 0);
    if (has(e, "draws")) return fail(e, "draws", "belongs to a noise = ... entry%.0s", 0);
  }
  if (!has(e, "pause"))
    for (int k = 0; hiccup_keys[k]; k++)
      if (has(e, hiccup_keys[k])) return fail(e, hiccup_keys[k], "belongs to a pause = ... (hiccup) entry%.0s", 0);
  int per = 0;
  if (get_choice(e, "per", per_names, 0, &per)) return HS_SCENARIO_EBAD;
  x->per_node = per == 1;
  if (has(e, "noise")) {
    int d;
    x->kind = HS_STRAGGLE_NOISE;
    if (get_choice(e, "noise", noise_names, 0, &d)) return HS_SCENARIO_EBAD;
    x->noise = (hs_noise_kind)d;
    int once = 0;
    if (get_choice(e, "draws", draws_names, 0, &once)) return HS_SCENARIO_EBAD;
    x->once = once == 1;
    static const char *const allowed[][2] = {{"mu", "sigma"}, {"mean", NULL}, {"shape", "scale"}, {"min", "max"}};
    for (int k = 0; noise_keys[k]; k++) {
      int fits = (allowed[d][0] && !strcmp(allowed[d][0], noise_keys[k])) ||
                 (allowed[d][1] && !strcmp(allowed[d][1], noise_keys[k]));
      if (!fits && has(e, noise_keys[k])) {
        char msg[128];
        snprintf(msg, sizeof msg, "is not a parameter of the %s distribution%%.0s", noise_names[d]);
        return fail(e, noise_keys[k], msg, 0);
      }
    }
    switch (x->noise) {
    case HS_NOISE_LOGNORMAL:
      x->p1 = 0;
      if (get_num(e, "mu", U_NONE, &x->p1) < 0 || need(e, "sigma", U_NONE, 0, 1, &x->p2, 1) ||
          at_most(e, "mu", fabs(x->p1), 10, "exp(mu) is the median factor; |mu| <= 10 keeps it within e^10") ||
          at_most(e, "sigma", x->p2, 3, "draws of exp(3 N(0,1)) already span a factor of 10^7"))
        return HS_SCENARIO_EBAD;
      break;
    case HS_NOISE_EXPONENTIAL:
      if (need(e, "mean", U_NONE, 0, 0, &x->p1, 1) ||
          at_most(e, "mean", x->p1, 1000, "a mean slowdown of 1000 is a stopped GPU"))
        return HS_SCENARIO_EBAD;
      break;
    case HS_NOISE_PARETO:
      x->p2 = 1;
      /* Below shape 1 the mean factor is infinite and single draws reach
       * 10^(9/shape): no physical straggler. */
      if (need(e, "shape", U_NONE, 1, 1, &x->p1, 1) || need(e, "scale", U_NONE, 0, 0, &x->p2, 0) ||
          at_most(e, "shape", x->p1, 1e3, "a larger shape is no noise at all") ||
          at_most(e, "scale", x->p2, 1000, "the scale is the smallest factor drawn"))
        return HS_SCENARIO_EBAD;
      break;
    case HS_NOISE_UNIFORM:
      if (need(e, "min", U_NONE, 0, 1, &x->p1, 1) || need(e, "max", U_NONE, 0, 0, &x->p2, 1) ||
          at_most(e, "max", x->p2, HS_SLOWDOWN_MAX, "a GPU a million times slower has stopped"))
        return HS_SCENARIO_EBAD;
      if (!(x->p2 > x->p1)) return fail(e, "max", "must be greater than min (%g)", x->p1);
      break;
    }
  }
  if (has(e, "pause")) {
    x->kind = HS_STRAGGLE_HICCUP;
    x->jitter = 0;
    if (need(e, "pause", HS_UNIT_TIME, 0, 0, &x->pause, 1) || need(e, "every", HS_UNIT_TIME, 0, 0, &x->every, 1) ||
        need(e, "jitter", HS_UNIT_TIME, 0, 1, &x->jitter, 0))
      return HS_SCENARIO_EBAD;
    x->start = x->every;
    if (need(e, "start", HS_UNIT_TIME, 0, 1, &x->start, 0)) return HS_SCENARIO_EBAD;
    /* Pauses that could overlap would make "a pause of d every p" ambiguous. */
    if (!(x->pause + x->jitter < x->every))
      return fail(e, "every", "must be longer than pause + jitter (%g s), or the pauses would overlap",
                  x->pause + x->jitter);
  }
  return 0;
}

static int read_stragglers(hs_loader *ld) {
  int line = hs_loader_push_decl(ld, "stragglers");
  lua_State *L = ld->L;
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  hs_straggler_spec *st = &ld->out->stragglers;
  int n = (int)lua_rawlen(L, -1);
  st->entries = calloc(n > 0 ? n : 1, sizeof *st->entries);
  st->n = n;
  static const char *const extra[] = {"slowdown", NULL};
  int rc = each_entry(ld, "stragglers", line, read_straggler, extra);
  if (!rc) {
    lua_getfield(L, -1, "slowdown");
    if (!lua_isnil(L, -1)) {
      char err[256];
      st->fn = hs_slowdown_lua_create(L, -1, err, sizeof err);
      if (st->fn) ld->lua_kept = 1;
      else rc = hs_loader_fail(ld, "stragglers.slowdown", line, "%s", err);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return rc;
}

/* ---- network -------------------------------------------------------------------- */

static int read_net_event(entry_ctx *e, int i) {
  hs_scenario *s = e->ld->out;
  hs_net_event *x = &s->network.events[i];
  x->line = e->line;
  if (only_keys(e, net_keys)) return HS_SCENARIO_EBAD;
  int is_link = has(e, "link"), is_traffic = has(e, "src") || has(e, "dst");
  if (is_link == is_traffic)
    return fail(e, NULL, "give either link = \"nodeN\" (a link event) or src = A, dst = B (background traffic "
                "between nodes A and B)%.0s", 0);
  if (get_window(e, &x->from, &x->to)) return HS_SCENARIO_EBAD;
  if (need(e, "every", HS_UNIT_TIME, 0, 0, &x->every, 0)) return HS_SCENARIO_EBAD;
  if (x->every > 0 && !(isfinite(x->to) && x->every > x->to - x->from))
    return fail(e, "every", "a repeating window needs `to`, and must be longer than it (%g s)", x->to - x->from);
  if (is_link) {
    static const char *const other[] = {"streams", "chunk", NULL};
    for (int k = 0; other[k]; k++)
      if (has(e, other[k])) return fail(e, other[k], "belongs to a background traffic entry (src, dst)%.0s", 0);
    if (get_link(e, "link", &x->link, &x->index)) return HS_SCENARIO_EBAD;
    if (need(e, "bandwidth", U_NONE, 0, 0, &x->bandwidth, 0) || need(e, "latency", HS_UNIT_TIME, 0, 1, &x->latency, 0) ||
        at_most(e, "latency", x->latency, HS_LATENCY_MAX, "no network link takes an hour"))
      return HS_SCENARIO_EBAD;
    if (x->latency > 0 && x->latency < HS_LATENCY_MIN)
      return fail(e, "latency", "is below SimGrid's time resolution: write 0 or at least 2e-9 s (got %g)", x->latency);
    if (has(e, "bandwidth") && x->bandwidth < 1e-9)
      return fail(e, "bandwidth", "must be at least 1e-9 of the link's bandwidth (got %g)", x->bandwidth);
    if (x->bandwidth > 1)
      return fail(e, "bandwidth", "is a fraction of the link's nominal bandwidth, in (0, 1] (got %g)", x->bandwidth);
    if (!has(e, "bandwidth") && !has(e, "latency"))
      return fail(e, NULL, "a link event changes bandwidth = FRACTION, latency = TIME or both%.0s", 0);
    return 0;
  }
  x->traffic = true;
  static const char *const other[] = {"bandwidth", "latency", NULL};
  for (int k = 0; other[k]; k++)
    if (has(e, other[k])) return fail(e, other[k], "belongs to a link event (link = ...)%.0s", 0);
  int nodes = s->cluster.nodes;
  if (get_index(e, "src", nodes, &x->src) || get_index(e, "dst", nodes, &x->dst)) return HS_SCENARIO_EBAD;
  if (x->src < 0 || x->dst < 0) return fail(e, x->src < 0 ? "src" : "dst", "required for background traffic%.0s", 0);
  if (x->src == x->dst) return fail(e, "dst", "must differ from src (node %g): traffic inside a node does not "
                                    "cross the network", x->src);
  double streams = 1;
  x->chunk = 64.0 * 1024 * 1024;
  if (need(e, "streams", U_NONE, 1, 1, &streams, 0) || need(e, "chunk", HS_UNIT_BYTES, 0, 0, &x->chunk, 0))
    return HS_SCENARIO_EBAD;
  if (streams != floor(streams) || streams > 1024) return fail(e, "streams", "must be an integer in 1..1024 (got %g)", streams);
  x->streams = (int)streams;
  return 0;
}

static int read_network(hs_loader *ld) {
  int line = hs_loader_push_decl(ld, "network");
  if (lua_isnil(ld->L, -1)) {
    lua_pop(ld->L, 1);
    return 0;
  }
  int n = (int)lua_rawlen(ld->L, -1);
  ld->out->network.events = calloc(n > 0 ? n : 1, sizeof *ld->out->network.events);
  ld->out->network.n = n;
  int rc = each_entry(ld, "network", line, read_net_event, NULL);
  lua_pop(ld->L, 1);
  /* A link's profile loops as a whole: a repeating event cannot share it. */
  const hs_network_spec *net = &ld->out->network;
  for (int i = 0; i < net->n && !rc; i++)
    for (int j = 0; j < net->n && !rc; j++) {
      const hs_net_event *a = &net->events[i], *b = &net->events[j];
      if (i == j || a->traffic || b->traffic || a->every <= 0 || a->link != b->link || a->index != b->index) continue;
      char k[64];
      snprintf(k, sizeof k, "network[%d].every", i + 1);
      rc = hs_loader_fail(ld, k, a->line, "a repeating event must be the only event on its link (entry %d names "
                          "the same link)", j + 1);
    }
  return rc;
}

/* ---- failures -------------------------------------------------------------------- */

static int read_failure(entry_ctx *e, int i) {
  hs_scenario *s = e->ld->out;
  const hs_cluster_spec *c = &s->cluster;
  hs_failure_entry *x = &s->failures.entries[i];
  x->line = e->line;
  int gpu, node;
  if (only_keys(e, failure_keys) || get_index(e, "gpu", c->nodes * c->gpus_per_node, &gpu) ||
      get_index(e, "node", c->nodes, &node))
    return HS_SCENARIO_EBAD;
  int named = (gpu >= 0) + (node >= 0) + has(e, "link");
  if (named > 1) return fail(e, NULL, "name one of gpu, node or link%.0s", 0);
  if (has(e, "at") == has(e, "mtbf"))
    return fail(e, NULL, "give either at = TIME (a failure at that time) or mtbf = TIME (failures drawn at random)%.0s", 0);
  x->index = -1;
  if (has(e, "link")) {
    x->kind = HS_FAIL_LINK;
    if (get_link(e, "link", &x->link, &x->index)) return HS_SCENARIO_EBAD;
  } else if (gpu >= 0) {
    x->kind = HS_FAIL_GPU;
    x->index = gpu;
  } else if (node >= 0) {
    x->kind = HS_FAIL_NODE;
    x->index = node;
  }
  if (has(e, "at")) {
    if (!named) return fail(e, NULL, "a failure at a given time names its gpu, node or link%.0s", 0);
    if (has(e, "per")) return fail(e, "per", "only random failures (mtbf) are drawn per GPU or per node%.0s", 0);
    return need(e, "at", HS_UNIT_TIME, 0, 1, &x->at, 1) ? HS_SCENARIO_EBAD : 0;
  }
  if (need(e, "mtbf", HS_UNIT_TIME, 0, 0, &x->mtbf, 1)) return HS_SCENARIO_EBAD;
  int per = 1;
  if (get_choice(e, "per", per_names, 1, &per)) return HS_SCENARIO_EBAD;
  if (named && has(e, "per")) return fail(e, "per", "applies to failures of every GPU or node, not a named one%.0s", 0);
  if (!named) x->kind = per ? HS_FAIL_NODE : HS_FAIL_GPU;
  return 0;
}

static int read_failures(hs_loader *ld) {
  int line = hs_loader_push_decl(ld, "failures");
  if (lua_isnil(ld->L, -1)) {
    lua_pop(ld->L, 1);
    return 0;
  }
  int n = (int)lua_rawlen(ld->L, -1);
  ld->out->failures.entries = calloc(n > 0 ? n : 1, sizeof *ld->out->failures.entries);
  ld->out->failures.n = n;
  int rc = each_entry(ld, "failures", line, read_failure, NULL);
  lua_pop(ld->L, 1);
  return rc;
}

int hs_conditions_validate(hs_loader *ld) {
  int rc = read_stragglers(ld);
  if (!rc) rc = read_network(ld);
  if (!rc) rc = read_failures(ld);
  return rc;
}
