/* units.c — unit suffixes of scenario quantities and their pretty-printing. */
#include "scenarios/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* value = number * factor / divisor: sub-units divide so that "5us" is the
 * double nearest to 5e-6, exactly as the literal 5e-6 would be. */
typedef struct {
  const char *suffix;
  double factor;
  double divisor;
} unit_entry;

/* Decimal prefixes are powers of 1000, binary ones powers of 1024; bits are
 * divided by 8 to give bytes. Case matters: b is a bit, B a byte. */
static const unit_entry byte_units[] = {
    {"B", 1, 1}, {"KB", 1e3, 1}, {"MB", 1e6, 1}, {"GB", 1e9, 1}, {"TB", 1e12, 1},
    {"KiB", 1024.0, 1}, {"MiB", 1048576.0, 1}, {"GiB", 1073741824.0, 1}, {"TiB", 1099511627776.0, 1},
    {NULL, 0, 0}};
static const unit_entry bandwidth_units[] = {
    {"bps", 1, 8}, {"Kbps", 1e3, 8}, {"Mbps", 1e6, 8}, {"Gbps", 1e9, 8}, {"Tbps", 1e12, 8},
    {"Bps", 1, 1}, {"KBps", 1e3, 1}, {"MBps", 1e6, 1}, {"GBps", 1e9, 1}, {"TBps", 1e12, 1},
    {"KiBps", 1024.0, 1}, {"MiBps", 1048576.0, 1}, {"GiBps", 1073741824.0, 1},
    {NULL, 0, 0}};
static const unit_entry time_units[] = {
    {"s", 1, 1}, {"ms", 1, 1e3}, {"us", 1, 1e6}, {"ns", 1, 1e9}, {"min", 60, 1}, {"h", 3600, 1}, {NULL, 0, 0}};
static const unit_entry flops_units[] = {
    {"F", 1, 1}, {"KF", 1e3, 1}, {"MF", 1e6, 1}, {"GF", 1e9, 1}, {"TF", 1e12, 1}, {"PF", 1e15, 1},
    {"f", 1, 1}, {"Kf", 1e3, 1}, {"Mf", 1e6, 1}, {"Gf", 1e9, 1}, {"Tf", 1e12, 1}, {"Pf", 1e15, 1},
    {NULL, 0, 0}};

static const unit_entry *table_for(hs_unit_kind kind) {
  switch (kind) {
  case HS_UNIT_BYTES: return byte_units;
  case HS_UNIT_BANDWIDTH: return bandwidth_units;
  case HS_UNIT_TIME: return time_units;
  case HS_UNIT_FLOPS: return flops_units;
  }
  return byte_units;
}

const char *hs_unit_kind_name(hs_unit_kind kind) {
  switch (kind) {
  case HS_UNIT_BYTES: return "a size (B, KB, MB, GB, KiB, MiB, GiB)";
  case HS_UNIT_BANDWIDTH: return "a bandwidth (bps, Kbps, Mbps, Gbps, Bps, KBps, MBps, GBps)";
  case HS_UNIT_TIME: return "a time (s, ms, us, ns)";
  case HS_UNIT_FLOPS: return "a compute speed (F, KF, MF, GF, TF, PF)";
  }
  return "a quantity";
}

/* Whether text starts with a decimal number (strtod also reads hex,
 * "0x10" = 16, and "inf"/"nan", which no scenario means). */
static int decimal(const char *text) {
  const char *p = text;
  while (isspace((unsigned char)*p)) p++;
  if (*p == '+' || *p == '-') p++;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) return 0;
  return isdigit((unsigned char)p[0]) || (p[0] == '.' && isdigit((unsigned char)p[1]));
}

int hs_parse_unit(const char *text, hs_unit_kind kind, double *out, char *err, size_t errlen) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || errno != 0 || !isfinite(v) || !decimal(text)) {
    snprintf(err, errlen, "'%s' is not %s", text, hs_unit_kind_name(kind));
    return -1;
  }
  while (isspace((unsigned char)*end)) end++;
  if (*end == '\0') {
    *out = v;
    return 0;
  }
  size_t len = strlen(end);
  while (len > 0 && isspace((unsigned char)end[len - 1])) len--;
  for (const unit_entry *u = table_for(kind); u->suffix; u++) {
    if (strlen(u->suffix) == len && strncmp(u->suffix, end, len) == 0) {
      *out = v * u->factor / u->divisor;
      return 0;
    }
  }
  snprintf(err, errlen, "'%s' is not %s", text, hs_unit_kind_name(kind));
  return -1;
}

static void format_scaled(double v, const char *const *names, const double *steps, int n,
                          char *buf, size_t len) {
  int i = 0;
  while (i + 1 < n && fabs(v) >= steps[i + 1]) i++;
  snprintf(buf, len, "%.3g %s", v / steps[i], names[i]);
}

void hs_format_bytes(double bytes, char *buf, size_t len) {
  static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  static const double steps[] = {1, 1024.0, 1048576.0, 1073741824.0, 1099511627776.0};
  format_scaled(bytes, names, steps, 5, buf, len);
}

void hs_format_time(double s, char *buf, size_t len) {
  if (s == 0) { snprintf(buf, len, "0 s"); return; }
  static const char *const names[] = {"ns", "us", "ms", "s"};
  static const double steps[] = {1e-9, 1e-6, 1e-3, 1};
  format_scaled(s, names, steps, 4, buf, len);
}

void hs_format_bandwidth(double bps, char *buf, size_t len) {
  static const char *const names[] = {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
  static const double steps[] = {1, 1e3, 1e6, 1e9, 1e12};
  format_scaled(bps, names, steps, 5, buf, len);
}
