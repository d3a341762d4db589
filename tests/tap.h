/* tap.h — a small Test Anything Protocol emitter for hearsay's tests.
 *
 * Each test program prints "1..N" (or a trailing plan), then one "ok"/"not ok"
 * line per check; prove and ctest read the result. Checks never abort the
 * program, so one failure does not hide the rest. */
#ifndef HS_TAP_H
#define HS_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_count_ = 0;
static int tap_failed_ = 0;

static inline void tap_plan(int n) { printf("1..%d\n", n); fflush(stdout); }

static inline int tap_ok(int cond, const char *fmt, ...) {
  va_list ap;
  tap_count_++;
  if (!cond) tap_failed_++;
  printf("%sok %d - ", cond ? "" : "not ", tap_count_);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
  return cond;
}

static inline void tap_diag(const char *fmt, ...) {
  va_list ap;
  printf("# ");
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}

static inline void tap_skip(int n, const char *why) {
  for (int i = 0; i < n; i++) {
    tap_count_++;
    printf("ok %d # skip %s\n", tap_count_, why);
  }
  fflush(stdout);
}

/* |got - want| <= rel * |want| (+ abs for values near zero). */
static inline int tap_close(double got, double want, double rel, const char *what) {
  double err = fabs(got - want);
  double tol = rel * fabs(want);
  int ok = err <= tol || (want == 0 && err <= rel);
  return tap_ok(ok, "%s: got %.9g want %.9g (rel err %.3g, tol %.3g)", what, got,
                want, want != 0 ? err / fabs(want) : err, rel);
}

/* Prints the trailing plan when none was given up front; returns exit code. */
static inline int tap_done(int planned) {
  if (!planned) printf("1..%d\n", tap_count_);
  fflush(stdout);
  return tap_failed_ ? 1 : 0;
}

#endif
