/* options.h — typed, unit-checked options of an algorithm.
 *
 * An algorithm declares its options as a table of hs_option_spec; the
 * scenario loader validates `algorithm { ... }` against it (unknown key,
 * wrong type, out of range, with file and line) and hands the algorithm an
 * hs_options holding every declared key, defaults filled in, in base units
 * (bytes, seconds, bytes/s, flop/s). */
#ifndef HS_OPTIONS_H
#define HS_OPTIONS_H

#include <stdbool.h>

typedef enum {
  HS_OPT_INT,
  HS_OPT_NUMBER,
  HS_OPT_BOOL,
  HS_OPT_STRING, /* one of spec.choices when that is set ("a|b|c") */
  HS_OPT_BYTES,
  HS_OPT_TIME,
  HS_OPT_BANDWIDTH,
  HS_OPT_FLOPS,
  HS_OPT_PEERS /* a peer-selection scheme: a built-in name, a .lua file, a Lua
                  function or scheme table; resolved into
                  hs_algorithm_spec.peers, its name kept in str */
} hs_opt_type;

typedef struct {
  const char *key;
  hs_opt_type type;
  const char *def;     /* default, written as in a scenario ("25MiB", "true") */
  double min;          /* smallest accepted value for numeric types */
  const char *choices; /* "ring|tree" for strings, or NULL for any */
  const char *help;
} hs_option_spec;

#define HS_MAX_OPTIONS 32
#define HS_OPT_STR_MAX 64

typedef struct {
  const char *key; /* points into the spec table */
  hs_opt_type type;
  double num; /* numeric value in base units; 0/1 for booleans */
  char str[HS_OPT_STR_MAX];
} hs_option_value;

typedef struct {
  hs_option_value v[HS_MAX_OPTIONS];
  int n;
} hs_options;

/* Getters abort with a message if the key was never declared: that is a
 * programming error in the algorithm, not a user error. */
double hs_opt_num(const hs_options *o, const char *key);
long hs_opt_int(const hs_options *o, const char *key);
bool hs_opt_bool(const hs_options *o, const char *key);
const char *hs_opt_str(const hs_options *o, const char *key);
const hs_option_value *hs_opt_find(const hs_options *o, const char *key);

#endif
