/* harness.h — helpers shared by hearsay's TAP tests.
 *
 * SimGrid runs one simulation per process, so every simulated check runs in
 * a forked child that writes one line per check ("1 text" or "0 text") into
 * a pipe; the parent turns each into a TAP line. A child that crashes or
 * hangs past its deadline is itself a failed check. */
#ifndef HS_TEST_HARNESS_H
#define HS_TEST_HARNESS_H

#include <stdio.h>

#include "scenarios/scenario.h"
#include "sim/sim.h"

/* Size classes, as the tuner picked until it picked per size (2026-11-28):
 * 0 for empty operations, c >= 1 for [2^(c-1), 2^c) bytes; and a class's
 * geometric middle, 2^(c-1) x sqrt 2 (0 for class 0), where the tests ask
 * the tuner for a class's pick (hs_plan_tuned_at). */
int hs_test_size_class(double bytes);
double hs_test_class_middle(int cls);
/* The tuner's pick for kind k at class cls's middle (needs algos/comm/select.h). */
#define hs_test_tuned_class(plan, k, cls) hs_plan_tuned_at((plan), (k), hs_test_class_middle(cls))

/* Writes lua to a fresh temporary file and loads it; returns the loader's
 * code (0 on success). The file's path is kept in sc->path. */
int hs_test_load(const char *lua, hs_scenario *sc);
/* Same, with --set overrides. */
int hs_test_load_sets(const char *lua, const char *const *sets, int n_sets, hs_scenario *sc);

/* Runs fn(arg, report) in a child; each line the child writes to report
 * becomes a TAP check in the parent. Returns the number of failed checks. */
int hs_test_in_child(const char *what, void (*fn)(void *arg, FILE *report), void *arg, int timeout_s);

/* In a child: writes the scenario's platform and runs the simulation
 * (recording a timeline into trace when it is not NULL). */
void hs_test_simulate(const hs_scenario *sc, int n_ranks, hs_rank_main main, void *arg, hs_sim_stats *stats,
                      hs_trace *trace);

/* Runs `hearsay collective SCENARIO ARGS` (5 minutes at most) and copies
 * its "result ..." line into `result`: 0 when it exited 0 with one, else
 * -1. *warned (NULL: not asked) tells whether SimGrid printed a WARNING,
 * whose first line goes to stderr as a TAP comment. */
int hs_test_collective(const char *scenario, const char *args, char *result, size_t len, int *warned);

/* The number after " key=" in a result line; NAN when absent. */
double hs_test_result_value(const char *result, const char *key);

/* Runs a shell command (its own redirections, e.g. 2>&1), capturing its
 * standard output into out (truncated); returns the exit status, or -1
 * if it could not run. Flushes stdout first, so TAP lines keep order. */
int hs_test_output(const char *cmd, char *out, size_t len);

/* Writes lua as NAME.lua in this program's temporary folder and runs
 * `hearsay run` on it into NAME.out there (its path in out_dir), capturing
 * what it prints, stdout and stderr, into text; returns the exit status
 * (-1: it could not run). */
int hs_test_run_text(const char *name, const char *lua, char *out_dir, size_t dir_len, char *text, size_t len);

/* The number after " key=" on the "result ..." line of a command's
 * output (hs_test_output); NAN when there is none. */
double hs_test_output_value(const char *out, const char *key);
/* The number after "key": in a JSON text (summary.json, peers.json): the
 * first such key's; NAN where it is absent or null. */
double hs_test_json_number(const char *json, const char *key);

/* Runs a shell command, capturing stderr into err (truncated); returns the
 * exit status, or -1 if it could not run. */
int hs_test_command(const char *cmd, char *err, size_t errlen);

/* Reads a whole file into buf (NUL-terminated, truncated to len-1); returns
 * its length, 0 if it cannot be read. */
size_t hs_test_slurp(const char *path, char *buf, size_t len);
/* Occurrences of needle in text. */
int hs_test_count(const char *text, const char *needle);

/* "mpirun --oversubscribe -np N" (the MPI found by CMake), with the
 * environment mpirun needs to run as root. */
const char *hs_test_mpirun(int np);

/* Runs `mpirun -np np ARGS`; each stdout line "1 text" / "0 text" becomes
 * a TAP check; a non-zero exit, a timeout or no check line at all is a
 * failed check. Returns the number of failed checks. */
int hs_test_mpirun_checks(const char *what, int np, const char *args, int timeout_s);

/* Entries of a directory besides . and .. (-1 if it cannot be read): a
 * staging folder left beside an output folder shows in it. */
int hs_test_entries(const char *dir);

/* A fresh empty directory inside this test program's own folder under
 * $TMPDIR (or /tmp), hearsay-test-XXXXXX, which is removed with everything
 * in it when the program exits; HS_KEEP_TMP=1 keeps it (and says where). */
const char *hs_test_tmpdir(void);

/* Reports a check from inside a child. */
void hs_report(FILE *report, int ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
