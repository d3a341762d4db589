/* options.c — lookups into a validated option set. */
#include "algos/options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const hs_option_value *hs_opt_find(const hs_options *o, const char *key) {
  for (int i = 0; i < o->n; i++)
    if (strcmp(o->v[i].key, key) == 0) return &o->v[i];
  return NULL;
}

static const hs_option_value *must_find(const hs_options *o, const char *key) {
  const hs_option_value *v = hs_opt_find(o, key);
  if (!v) {
    fprintf(stderr, "hearsay: internal error: option '%s' was not declared\n", key);
    abort();
  }
  return v;
}

double hs_opt_num(const hs_options *o, const char *key) { return must_find(o, key)->num; }
long hs_opt_int(const hs_options *o, const char *key) { return (long)must_find(o, key)->num; }
bool hs_opt_bool(const hs_options *o, const char *key) { return must_find(o, key)->num != 0; }
const char *hs_opt_str(const hs_options *o, const char *key) { return must_find(o, key)->str; }
