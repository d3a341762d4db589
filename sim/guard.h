/* guard.h — runs a command's work in a child process, so that whatever
 * happens to it (a crash inside SimGrid, a signal, a kill at a timeout)
 * the command itself survives to say so and to leave the output folder as
 * it was (algos/report/outdir.h).
 *
 * SimGrid runs one simulation per process and aborts the process on what
 * it cannot handle; a child per command costs one fork (milliseconds). */
#ifndef HS_SIM_GUARD_H
#define HS_SIM_GUARD_H

/* Exit code of a child that died of a signal other than one forwarded to
 * it (EX_SOFTWARE: an internal error). */
#define HS_GUARD_CRASHED 70

/* Runs fn(arg) in a child and returns its exit code. SIGINT, SIGTERM and
 * SIGHUP received meanwhile are passed on to the child; if it dies of one
 * of those, 128 + the signal is returned. A child killed by any other
 * signal is reported on stderr (naming `what`), and HS_GUARD_CRASHED is
 * returned. HS_NO_GUARD=1 runs fn in this process (for debuggers). */
int hs_guard_run(int (*fn)(void *arg), void *arg, const char *what);

/* A command's whole output step: stages the folder `target`
 * (algos/report/outdir.h), runs fn(arg, stage, target) under hs_guard_run, and
 * puts the folder in place when fn's exit code is 0 or `keep_too` (pass
 * -1 for none; `hearsay run` keeps an aborted run's outputs, exit 3),
 * removing it otherwise. Returns the exit code. */
int hs_guard_run_staged(const char *target, int (*fn)(void *arg, const char *stage, const char *target), void *arg,
                        const char *what, int keep_too);

#endif
