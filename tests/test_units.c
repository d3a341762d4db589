/* test_units.c — unit suffixes convert to base units exactly. */
#include <string.h>

#include "scenarios/units.h"
#include "tests/tap.h"

static void check(const char *text, hs_unit_kind k, double want) {
  double v = -1;
  char err[256];
  int rc = hs_parse_unit(text, k, &v, err, sizeof err);
  tap_ok(rc == 0 && v == want, "'%s' = %.17g (got %.17g)", text, want, v);
}

static void reject(const char *text, hs_unit_kind k) {
  double v;
  char err[256] = "";
  int rc = hs_parse_unit(text, k, &v, err, sizeof err);
  tap_ok(rc != 0 && strstr(err, text), "'%s' rejected as %s: %s", text, hs_unit_kind_name(k), err);
}

int main(void) {
  check("100Gbps", HS_UNIT_BANDWIDTH, 12.5e9);
  check("300GBps", HS_UNIT_BANDWIDTH, 300e9);
  check("1 Mbps", HS_UNIT_BANDWIDTH, 125e3);
  check("25MiB", HS_UNIT_BYTES, 25.0 * 1048576);
  check("1KB", HS_UNIT_BYTES, 1000);
  check("2GiB", HS_UNIT_BYTES, 2.0 * 1073741824);
  check("4096", HS_UNIT_BYTES, 4096);
  check("5us", HS_UNIT_TIME, 5e-6);
  check("1.5ms", HS_UNIT_TIME, 1.5e-3);
  check("10ns", HS_UNIT_TIME, 10e-9);
  check("125TF", HS_UNIT_FLOPS, 125e12);
  check("1Gf", HS_UNIT_FLOPS, 1e9);
  reject("100Gb", HS_UNIT_BANDWIDTH); /* a size, not a rate */
  reject("fast", HS_UNIT_BANDWIDTH);
  reject("5 parsecs", HS_UNIT_TIME);
  reject("10mb", HS_UNIT_BYTES); /* millibits: case matters */
  reject("0x10Gbps", HS_UNIT_BANDWIDTH); /* strtod reads hex: 16 Gbps nobody wrote */
  reject("-0X1p3us", HS_UNIT_TIME);
  reject("infGbps", HS_UNIT_BANDWIDTH);
  check(".5us", HS_UNIT_TIME, 0.5e-6);
  check("1e3MB", HS_UNIT_BYTES, 1e9);
  return tap_done(0);
}
