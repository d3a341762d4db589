/* test_docs_reference.c — the scenario reference in docs/scenarios.md says
 * what the loader does: every key of cluster { }, workload { }, run { },
 * sim { } and real { } (scenarios/schema.c, hs_schema_each) has a row
 * "| `key` | type | default | meaning |"; a key a scenario must give says
 * "required"; a default written as one word is the schema's; every choice
 * of a key that takes one of several is named in its row. And every
 * option of every algorithm (algos/registry.c) is named in its section of
 * docs/algorithms.md, with the option's default where a row of its own
 * gives one. And every top-level field of summary.json and every column of
 * metrics.csv a run writes is named in docs/outputs.md, and every key an
 * entry of stragglers { }, network { } or failures { } takes is named in
 * docs/stragglers.md. A key added
 * without its row, a default changed in one place only, a choice or an
 * output field left out of the reference fails here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "algos/algorithm.h"
#include "scenarios/loader_internal.h"
#include "tests/harness.h"
#include "tests/tap.h"

enum { MAX_ROWS = 2048 };

typedef struct {
  char key[96];
  char def[256];  /* the third cell, backticks removed, trimmed */
  char text[4096]; /* the whole row */
} row;

static row rows[MAX_ROWS];
static int n_rows;

static void trim(char *s) {
  size_t n = strlen(s), a = 0;
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\n')) s[--n] = '\0';
  while (s[a] == ' ') a++;
  memmove(s, s + a, n - a + 1);
}

/* The next cell's bar at or after s; "\\|" is a bar inside a cell. */
static const char *next_bar(const char *s) {
  for (; *s; s++)
    if (*s == '|' && s[-1] != '\\') return s;
  return NULL;
}

/* The reference's rows: lines "| `key` | ... | default | ... |". */
static void read_rows(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[4096];
  while (fgets(line, sizeof line, f) && n_rows < MAX_ROWS) {
    if (strncmp(line, "| `", 3) != 0) continue;
    row *r = &rows[n_rows];
    snprintf(r->text, sizeof r->text, "%s", line);
    const char *k = line + 3, *end = strchr(k, '`');
    if (!end || (size_t)(end - k) >= sizeof r->key) continue;
    memcpy(r->key, k, (size_t)(end - k));
    r->key[end - k] = '\0';
    /* the third cell: between the third bar and the fourth */
    const char *c = line;
    for (int bars = 0; bars < 2 && c; bars++) c = next_bar(c + 1);
    const char *e = c ? next_bar(c + 1) : NULL;
    if (!c || !e) continue;
    size_t j = 0;
    for (const char *p = c + 1; p < e && j + 1 < sizeof r->def; p++)
      if (*p != '`') r->def[j++] = *p;
    r->def[j] = '\0';
    trim(r->def);
    n_rows++;
  }
  fclose(f);
}

/* The reference's name for a key: the dataset's keys have a table of their
 * own, by their own names. */
static const char *doc_key(const char *key) { return strncmp(key, "dataset.", 8) == 0 ? key + 8 : key; }

static void check(void *ctx, const char *block, const char *key, const char *def, const char *choices, int required,
                  int table) {
  (void)ctx;
  const char *k = doc_key(key);
  int found = 0, nested = 0, def_ok = 0, choices_ok = 0, literal = 0;
  char seen[256] = "";
  size_t klen = strlen(k);
  for (int i = 0; i < n_rows; i++) {
    if (strncmp(rows[i].key, k, klen) == 0 && rows[i].key[klen] == '.') nested = 1;
    if (strcmp(rows[i].key, k) != 0) continue;
    found = 1;
    const char *d = rows[i].def;
    /* a one-word default is compared; prose ("by gpu.arch: ...") is not */
    int word = d[0] && !strchr(d, ' ');
    literal |= word;
    if (required) def_ok |= strstr(d, "required") != NULL;
    else if (!word || !def) def_ok = 1;
    else if (!def[0]) def_ok |= strcmp(d, "none") == 0; /* an empty string: "none" */
    else def_ok |= strcasecmp(d, def) == 0;
    if (!def_ok && !seen[0]) snprintf(seen, sizeof seen, "%s", d);
    int all = 1;
    for (const char *p = choices; p && *p;) {
      const char *bar = strchr(p, '|');
      size_t n = bar ? (size_t)(bar - p) : strlen(p);
      char choice[64];
      snprintf(choice, sizeof choice, "`%.*s`", (int)n, p); /* `ll` is not `ll128` */
      all &= strstr(rows[i].text, choice) != NULL;
      p = bar ? bar + 1 : p + n;
    }
    choices_ok |= all;
  }
  if (!found && nested && table) return; /* a table documented by its keys, each checked on its own */
  tap_ok(found, "%s.%s: a row of its own in docs/scenarios.md", block, key);
  if (!found) return;
  if (required)
    tap_ok(def_ok, "%s.%s: said to be required", block, key);
  else if (literal && def)
    tap_ok(def_ok, "%s.%s: its default is the schema's %s%s%s%s", block, key, def, seen[0] ? " (the row says " : "",
           seen[0] ? seen : "", seen[0] ? ")" : "");
  if (choices) {
    tap_ok(choices_ok, "%s.%s: its row names every choice (%s)", block, key, choices);
  }
}

/* docs/algorithms.md's section of algorithm `name`: from its "### " heading
 * (which may name several, "### fp16_compress, bf16_compress") to the next
 * heading; NULL where there is none. Returns a copy to free. */
static char *section_of(const char *doc, const char *name) {
  size_t n = strlen(name);
  for (const char *h = strstr(doc, "\n### "); h; h = strstr(h + 1, "\n### ")) {
    const char *eol = strchr(h + 1, '\n');
    if (!eol) break;
    int named = 0;
    /* each occurrence of name on the heading's line (strstr past the
     * last one gives NULL, which ends the search: a name the document
     * never mentions once crashed it) */
    for (const char *p = strstr(h + 5, name); p && p < eol; p = strstr(p + 1, name))
      if ((p[-1] == ' ' || p[-1] == ',') && (p + n == eol || p[n] == ',' || p[n] == ' ')) {
        named = 1;
        break;
      }
    if (!named) continue;
    const char *end = strstr(eol, "\n#");
    size_t len = end ? (size_t)(end - eol) : strlen(eol);
    char *out = malloc(len + 1);
    memcpy(out, eol, len);
    out[len] = '\0';
    return out;
  }
  return NULL;
}

static void check_algorithms(void) {
  FILE *f = fopen(HS_SOURCE_DIR "/docs/algorithms.md", "r");
  static char doc[1 << 20];
  size_t len = f ? fread(doc, 1, sizeof doc - 1, f) : 0;
  if (f) fclose(f);
  doc[len] = '\0';
  for (const hs_algorithm_desc *const *a = hs_algorithm_list(); *a; a++) {
    char *sec = section_of(doc, (*a)->name);
    if (!tap_ok(sec != NULL, "algorithm %s: a section of docs/algorithms.md", (*a)->name)) continue;
    for (const hs_option_spec *o = (*a)->options; o && o->key; o++) {
      char quoted[96], row_start[100];
      snprintf(quoted, sizeof quoted, "`%s`", o->key);
      snprintf(row_start, sizeof row_start, "\n| `%s` |", o->key);
      tap_ok(strstr(sec, quoted) != NULL, "algorithm %s: option %s named in its section", (*a)->name, o->key);
      const char *r = strstr(sec, row_start);
      if (!r || !o->def) continue;
      /* a row of its own: its second cell is the default */
      char cell[128] = "";
      const char *c = next_bar(r + 2), *e = c ? next_bar(c + 1) : NULL;
      size_t j = 0;
      for (const char *p = c ? c + 1 : NULL; p && p < e && j + 1 < sizeof cell; p++)
        if (*p != '`') cell[j++] = *p;
      cell[j] = '\0';
      trim(cell);
      if (!strchr(cell, ' '))
        tap_ok(strcasecmp(cell, o->def) == 0, "algorithm %s: option %s's default is %s (its row says %s)", (*a)->name,
               o->key, o->def, cell);
    }
    free(sec);
  }
}

/* The text of docs/outputs.md from `heading` to the next "## ". */
static char *outputs_section(const char *doc, const char *heading) {
  const char *a = strstr(doc, heading);
  if (!a) return NULL;
  const char *e = strstr(a + 1, "\n## ");
  size_t len = e ? (size_t)(e - a) : strlen(a);
  char *out = malloc(len + 1);
  memcpy(out, a, len);
  out[len] = '\0';
  return out;
}

/* The keys of the JSON object in text at depth 1, each "key" in turn. */
static int top_keys(const char *json, char keys[][64], int max) {
  int depth = 0, n = 0;
  for (const char *p = json; *p; p++) {
    if (*p == '"') {
      const char *q = p + 1;
      while (*q && !(*q == '"' && q[-1] != '\\')) q++;
      if (!*q) break;
      const char *r = q + 1;
      while (*r == ' ') r++;
      if (depth == 1 && *r == ':' && n < max && q - p - 1 < 64) snprintf(keys[n++], 64, "%.*s", (int)(q - p - 1), p + 1);
      p = q;
    } else if (*p == '{' || *p == '[') {
      depth++;
    } else if (*p == '}' || *p == ']') {
      depth--;
    }
  }
  return n;
}

static void check_outputs(void) {
  static char doc[1 << 18], json[1 << 20], csv[4096];
  size_t len = hs_test_slurp(HS_SOURCE_DIR "/docs/outputs.md", doc, sizeof doc);
  doc[len < sizeof doc ? len : sizeof doc - 1] = '\0';
  char *summary = outputs_section(doc, "## summary.json"), *metrics = outputs_section(doc, "## metrics.csv");
  if (!tap_ok(summary && metrics, "docs/outputs.md has its summary.json and metrics.csv sections")) return;
  char scenario[1024], out[1024], cmd[3000], err[512];
  snprintf(scenario, sizeof scenario, "%s/outputs.lua", hs_test_tmpdir());
  snprintf(out, sizeof out, "%s/outputs-run", hs_test_tmpdir());
  FILE *f = fopen(scenario, "w");
  if (!tap_ok(f != NULL, "the scenario is written (%s)", scenario)) return;
  fputs("cluster { nodes = 2, gpus_per_node = 2, gpu = { flops = \"10TF\" }, inter = { bandwidth = \"10Gbps\" } }\n"
        "workload { model = \"softmax\" }\nalgorithm { name = \"decentralized\" }\n"
        "run { iterations = 3, eval_every = 1 }\n",
        f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s run %s --out %s --quiet", HEARSAY_BIN, scenario, out);
  if (!tap_ok(hs_test_command(cmd, err, sizeof err) == 0, "a run writes its outputs (%s)", err)) return;
  char path[1100];
  snprintf(path, sizeof path, "%s/summary.json", out);
  size_t jl = hs_test_slurp(path, json, sizeof json);
  json[jl < sizeof json ? jl : sizeof json - 1] = '\0';
  char keys[128][64];
  int n = top_keys(json, keys, 128), missing = 0;
  char first[128] = "";
  for (int i = 0; i < n; i++) {
    char quoted[80];
    snprintf(quoted, sizeof quoted, "`%.63s`", keys[i]);
    if (!strstr(summary, quoted) && !missing++) snprintf(first, sizeof first, " (first missing: %.63s)", keys[i]);
  }
  /* floors (27 fields, 15 columns today): a parse that found next to
   * nothing must not pass as "every one named" */
  tap_ok(n > 20 && missing == 0, "summary.json's %d top-level fields are each named in docs/outputs.md%s", n, first);
  snprintf(path, sizeof path, "%s/metrics.csv", out);
  size_t cl = hs_test_slurp(path, csv, sizeof csv);
  csv[cl < sizeof csv ? cl : sizeof csv - 1] = '\0';
  csv[strcspn(csv, "\n")] = '\0';
  int cols = 0;
  missing = 0;
  first[0] = '\0';
  for (char *c = strtok(csv, ","); c; c = strtok(NULL, ",")) {
    char quoted[80];
    snprintf(quoted, sizeof quoted, "`%.64s`", c);
    cols++;
    if (!strstr(metrics, quoted) && !missing++) snprintf(first, sizeof first, " (first missing: %.64s)", c);
  }
  tap_ok(cols > 8 && missing == 0, "metrics.csv's %d columns are each named in docs/outputs.md%s", cols, first);
  free(summary);
  free(metrics);
}

static char stragglers_doc[1 << 17];

/* Whether text assigns key ("key = ...") with key a word of its own, not
 * the end of another ("upper = " is not per's). */
static int assigns(const char *text, const char *key) {
  size_t n = strlen(key);
  for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
    int before = p == text || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= '0' && p[-1] <= '9'));
    if (before && strncmp(p + n, " = ", 3) == 0) return 1;
  }
  return 0;
}

static void check_condition_key(void *ctx, const char *decl, const char *key) {
  (void)ctx;
  /* in the declaration's own section: "## stragglers { }" to the next "## " */
  char heading[64];
  snprintf(heading, sizeof heading, "\n## %s {", decl);
  const char *a = strstr(stragglers_doc, heading), *e = a ? strstr(a + 1, "\n## ") : NULL;
  char section[1 << 15];
  size_t len = a ? (e ? (size_t)(e - a) : strlen(a)) : 0;
  if (len >= sizeof section) len = sizeof section - 1;
  memcpy(section, a ? a : "", len);
  section[len] = '\0';
  char quoted[80];
  snprintf(quoted, sizeof quoted, "`%s`", key);
  tap_ok(a && (strstr(section, quoted) || assigns(section, key)),
         "%s { }: its entries' key %s is named in its section of docs/stragglers.md", decl, key);
}

int main(void) {
  read_rows(HS_SOURCE_DIR "/docs/scenarios.md");
  /* a floor (90 rows today): a reference the parse could not read must
   * fail, not leave every key unchecked */
  if (!tap_ok(n_rows > 80, "docs/scenarios.md has the reference's rows (%d)", n_rows)) return tap_done(0);
  hs_schema_each(check, NULL);
  check_algorithms();
  check_outputs();
  size_t sl = hs_test_slurp(HS_SOURCE_DIR "/docs/stragglers.md", stragglers_doc, sizeof stragglers_doc);
  stragglers_doc[sl < sizeof stragglers_doc ? sl : sizeof stragglers_doc - 1] = '\0';
  hs_conditions_each_key(check_condition_key, NULL);
  return tap_done(0);
}
