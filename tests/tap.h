/* tap.h — a small Test Anything Protocol emitter for hearsay's tests.
 *
 * Each test program prints one "ok"/"not ok" line per check and a plan
 * ("1..N") at the end; prove and ctest read the result. Checks never abort
 * the program, so one failure does not hide the rest. The counters live in
 * tap.c so that checks made from helper files count too. */
#ifndef HS_TAP_H
#define HS_TAP_H

/* Prints one check; returns cond. */
int tap_ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A comment line. */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* n checks skipped, with the reason (e.g. no GPU). */
void tap_skip(int n, const char *why);
/* |got - want| <= rel * |want| (or <= rel when want is 0). */
int tap_close(double got, double want, double rel, const char *what);
/* Prints the plan; returns the exit code (0 when every check passed). */
int tap_done(int unused);

#endif
