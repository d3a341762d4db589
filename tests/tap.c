/* tap.c — state and output of the TAP emitter (see tap.h). */
#include "tests/tap.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

static int tap_count;
static int tap_failed;

int tap_ok(int cond, const char *fmt, ...) {
  va_list ap;
  tap_count++;
  if (!cond) tap_failed++;
  printf("%sok %d - ", cond ? "" : "not ", tap_count);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
  return cond;
}

void tap_diag(const char *fmt, ...) {
  va_list ap;
  printf("# ");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}

void tap_skip(int n, const char *why) {
  for (int i = 0; i < n; i++) printf("ok %d # skip %s\n", ++tap_count, why);
  fflush(stdout);
}

int tap_close(double got, double want, double rel, const char *what) {
  double err = fabs(got - want);
  int ok = err <= rel * fabs(want) || (want == 0 && err <= rel);
  return tap_ok(ok, "%s: got %.9g want %.9g (rel err %.3g, tol %.3g)", what, got, want,
                want != 0 ? err / fabs(want) : err, rel);
}

int tap_done(int unused) {
  (void)unused;
  printf("1..%d\n", tap_count);
  fflush(stdout);
  return tap_failed || tap_count == 0 ? 1 : 0;
}
