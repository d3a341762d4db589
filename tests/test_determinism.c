/* test_determinism.c — the same scenario and seed give byte-identical
 * metrics.csv, for a numeric and two timing-only runs (one with CPU
 * processes beside the GPUs); another seed does not. */
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "tests/tap.h"

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  rewind(f);
  char *buf = malloc(*len + 1);
  *len = fread(buf, 1, *len, f);
  fclose(f);
  return buf;
}

static int run(const char *scenario, const char *out, const char *extra) {
  char cmd[2048], err[2048];
  snprintf(cmd, sizeof cmd, "%s run %s/scenarios/%s --out %s --quiet --set run.iterations=30 %s", HEARSAY_BIN,
           HS_SOURCE_DIR, scenario, out, extra);
  int rc = hs_test_command(cmd, err, sizeof err);
  if (rc) tap_diag("%s failed: %s", cmd, err);
  return rc;
}

static void same_twice(const char *scenario, const char *extra) {
  const char *dir = hs_test_tmpdir();
  char a[600], b[600], c[600], fa[700], fb[700], fc[700];
  snprintf(a, sizeof a, "%s/a", dir);
  snprintf(b, sizeof b, "%s/b", dir);
  snprintf(c, sizeof c, "%s/c", dir);
  char other[256];
  snprintf(other, sizeof other, "%s --set run.seed=12345", extra);
  int rc = run(scenario, a, extra) | run(scenario, b, extra) | run(scenario, c, other);
  snprintf(fa, sizeof fa, "%s/metrics.csv", a);
  snprintf(fb, sizeof fb, "%s/metrics.csv", b);
  snprintf(fc, sizeof fc, "%s/metrics.csv", c);
  size_t la = 0, lb = 0, lc = 0;
  char *x = slurp(fa, &la), *y = slurp(fb, &lb), *z = slurp(fc, &lc);
  tap_ok(rc == 0 && x && y && la == lb && la > 0 && memcmp(x, y, la) == 0,
         "%s: two runs, byte-identical metrics.csv (%zu bytes)", scenario, la);
  if (strstr(scenario, "quickstart"))
    tap_ok(z && (lc != la || memcmp(x, z, la) != 0), "%s: another seed gives other metrics", scenario);
  free(x), free(y), free(z);
  char cmd[1024], err[1024];
  snprintf(cmd, sizeof cmd, "python3 -m json.tool %s/summary.json", a);
  tap_ok(hs_test_command(cmd, err, sizeof err) == 0, "%s: summary.json is valid JSON %s", scenario, err);
  if (strstr(extra, "run.trace")) {
    snprintf(cmd, sizeof cmd, "python3 -m json.tool %s/trace.json", a);
    tap_ok(hs_test_command(cmd, err, sizeof err) == 0, "%s: trace.json is valid JSON %s", scenario, err);
  }
}

int main(void) {
  same_twice("quickstart.lua", "--set cluster.nodes=2");
  same_twice("resnet50-16x8.lua", "--set cluster.nodes=4 --set run.trace=2");
  same_twice("byteps-pcie.lua", ""); /* CPU processes: server machines and host aggregators */
  return tap_done(0);
}
