/* guard.c — a command's work in a child process (guard.h). */
#define _POSIX_C_SOURCE 200809L
#include "sim/guard.h"

#include "algos/report/outdir.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static sigset_t blocked_set, saved_set;
static int blocked;

/* Holds SIGINT, SIGTERM and SIGHUP back from before the output folder is
 * staged until hs_guard_run can pass them on, so that no stop signal can
 * land in between and leave the stage behind. hs_guard_run unblocks. */
static void hs_guard_block(void) {
  sigemptyset(&blocked_set);
  sigaddset(&blocked_set, SIGINT);
  sigaddset(&blocked_set, SIGTERM);
  sigaddset(&blocked_set, SIGHUP);
  sigprocmask(SIG_BLOCK, &blocked_set, &saved_set);
  blocked = 1;
}

static void hs_guard_unblock(void) {
  if (!blocked) return;
  blocked = 0;
  sigprocmask(SIG_SETMASK, &saved_set, NULL);
}

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t forwarded;

static void forward(int sig) {
  forwarded = sig;
  if (child_pid > 0) kill((pid_t)child_pid, sig);
}

int hs_guard_run(int (*fn)(void *arg), void *arg, const char *what) {
  const char *off = getenv("HS_NO_GUARD");
  if (off && strcmp(off, "1") == 0) {
    hs_guard_unblock();
    return fn(arg);
  }
  static const int passed[] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction sa = {0}, old[3];
  sa.sa_handler = forward;
  sigemptyset(&sa.sa_mask);
  fflush(NULL); /* or the child would print what the parent buffered, twice */
  forwarded = 0;
  /* Until the handlers are in place, the signals wait (hs_guard_block). */
  for (int i = 0; i < 3; i++) sigaction(passed[i], &sa, &old[i]);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "%s: cannot start its worker process: %s\n", what, strerror(errno));
    for (int i = 0; i < 3; i++) sigaction(passed[i], &old[i], NULL);
    hs_guard_unblock();
    return 1;
  }
  if (pid == 0) {
    for (int i = 0; i < 3; i++) sigaction(passed[i], &old[i], NULL);
    hs_guard_unblock();
    /* A parent killed outright (SIGKILL) takes its worker with it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) _exit(128 + SIGKILL);
    int rc = fn(arg);
    fflush(NULL);
    /* Skip the exit handlers: SimGrid's may run on a simulation stopped
     * half-way (a watchdog, a failure); everything is written by now. */
    _exit(rc);
  }
  child_pid = pid;
  hs_guard_unblock(); /* a signal that came meanwhile is forwarded now */
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) continue;
  child_pid = 0;
  for (int i = 0; i < 3; i++) sigaction(passed[i], &old[i], NULL);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  int sig = WTERMSIG(status);
  if (sig == forwarded || sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGKILL) {
    fprintf(stderr, "%s: stopped by signal %d (%s); the output folder was left as it was\n", what, sig,
            strsignal(sig));
    return 128 + sig;
  }
  if (sig == SIGXFSZ) {
    fprintf(stderr, "%s: a file grew past this shell's file-size limit (ulimit -f); the output folder was left as "
            "it was\n", what);
    return 1;
  }
  fprintf(stderr,
          "%s: the simulation died of signal %d (%s): a bug in hearsay or SimGrid, not in the scenario. The output "
          "folder was left as it was. Please report it with the scenario and the command line.\n",
          what, sig, strsignal(sig));
  return HS_GUARD_CRASHED;
}

typedef struct {
  int (*fn)(void *arg, const char *stage, const char *target);
  void *arg;
  const hs_outdir *od;
} staged_call;

static int run_staged_call(void *arg) {
  const staged_call *c = arg;
  return c->fn(c->arg, c->od->stage, c->od->target);
}

int hs_guard_run_staged(const char *target, int (*fn)(void *arg, const char *stage, const char *target), void *arg,
                        const char *what, int keep_too) {
  char err[HS_OUTDIR_PATH_MAX + 128];
  hs_outdir od;
  hs_guard_block();
  if (hs_outdir_open(&od, target, err, sizeof err)) {
    hs_guard_unblock();
    fprintf(stderr, "%s: %s\n", what, err);
    return 1;
  }
  staged_call call = {fn, arg, &od};
  int rc = hs_guard_run(run_staged_call, &call, what);
  if (rc == 0 || rc == keep_too) {
    if (hs_outdir_commit(&od)) {
      fprintf(stderr, "%s: cannot put the outputs in place at %s: %s\n", what, od.target, strerror(errno));
      rc = 1;
    }
  }
  if (rc != 0 && rc != keep_too) hs_outdir_discard(&od);
  return rc;
}
