/* test_harness_tmp.c — a test program leaves no temporary files behind
 * (tests/harness.c, docs/development.md):
 *
 *  - every folder hs_test_tmpdir made, in the program itself and in the
 *    children hs_test_in_child forked, is gone once the program exited;
 *  - a forked child that ends with exit() rather than _exit() does not
 *    remove the folders of the program that forked it (they still exist
 *    after it ended);
 *  - with HS_KEEP_TMP=1 they are all kept, the program says where (and
 *    this test removes them);
 *  - a program stopped by SIGTERM or SIGINT (a timeout, ^C) while a child
 *    writes into its folder and a command it started runs removes the
 *    folder, stops the command, and dies of the signal.
 *
 * It runs itself as the program under test (argv[0] --make), which prints
 * the folders it made. */
/* kill, nanosleep: POSIX beyond C11 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/harness.h"
#include "tests/tap.h"

static void pause_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static void touch(const char *dir, const char *name) {
  char path[700];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (f) fputs("x\n", f), fclose(f);
}

static void in_child(void *arg, FILE *report) {
  (void)arg;
  const char *d = hs_test_tmpdir();
  touch(d, "child.txt");
  printf("dir %s\n", d);
  fflush(stdout);
  hs_report(report, 1, "child made %s", d);
}

/* The program under test: folders in the parent and in a child, and a
 * child that calls exit(). */
static int make(void) {
  char mine[512];
  snprintf(mine, sizeof mine, "%s", hs_test_tmpdir());
  touch(mine, "parent.txt");
  printf("dir %s\n", mine);
  hs_test_in_child("harness child", in_child, NULL, 30);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    hs_test_tmpdir();
    exit(0); /* runs the atexit handlers inherited from the parent */
  }
  waitpid(pid, NULL, 0);
  printf("alive %d\n", exists(mine));
  return tap_done(0);
}

/* A child of hs_test_in_child that goes on writing into the program's
 * folder until it is stopped. */
static void writing_child(void *arg, FILE *report) {
  (void)arg, (void)report;
  const char *d = hs_test_tmpdir();
  printf("dir %s\n", d);
  fflush(stdout);
  for (int i = 0;; i++) {
    char name[32];
    snprintf(name, sizeof name, "f%d", i % 100);
    touch(d, name);
    pause_ms(1);
  }
}

/* The programs to be stopped: a folder of their own, then a writing
 * child, or a command that writes into the folder too (hs_test_output
 * waits for it). Each says "ready" once its writer runs. */
static int stopped(const char *what) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s", hs_test_tmpdir());
  printf("dir %s\n", dir);
  fflush(stdout);
  if (strcmp(what, "child") == 0) {
    printf("ready\n");
    fflush(stdout);
    hs_test_in_child("writing child", writing_child, NULL, 300);
  } else {
    char cmd[1024], out[64];
    /* its lines on stderr, which the test reads; hs_test_output keeps stdout */
    snprintf(cmd, sizeof cmd, "echo command $$ >&2; echo ready >&2; while :; do touch '%s/x'; sleep 0.01; done", dir);
    hs_test_output(cmd, out, sizeof out);
  }
  return 0;
}

typedef struct {
  char dirs[8][1024];
  int n, alive;
  int noted; /* printed where HS_KEEP_TMP kept them */
} made;

static int run_make(const char *self, made *m) {
  char cmd[1024], line[1024];
  snprintf(cmd, sizeof cmd, "%s --make 2>&1", self);
  memset(m, 0, sizeof *m);
  m->alive = -1;
  fflush(stdout);
  FILE *p = popen(cmd, "r");
  while (p && fgets(line, sizeof line, p)) {
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "dir ", 4) == 0 && m->n < 8) snprintf(m->dirs[m->n++], sizeof m->dirs[0], "%s", line + 4);
    if (strncmp(line, "alive ", 6) == 0) m->alive = atoi(line + 6);
    if (strstr(line, "HS_KEEP_TMP: this test's temporary files are kept in ")) m->noted = 1;
  }
  return p ? pclose(p) : -1;
}

/* Removes a kept folder and, when it is one, the hearsay-test-* folder
 * holding it; nothing else. */
static void remove_kept(const char *dir) {
  char copy[1024], cmd[1200];
  snprintf(copy, sizeof copy, "%s", dir);
  const char *parent = dirname(copy);
  const char *base = strrchr(parent, '/');
  const char *target = base && strncmp(base + 1, "hearsay-test-", 13) == 0 ? parent : dir;
  if (!strstr(target, "hearsay-test-")) return;
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", target);
  if (system(cmd) != 0) tap_diag("could not remove %s", target);
}

/* Runs `self --stop WHAT`, sends it `sig` once it is ready and its writer
 * has run a while; the folder it printed, the command's pid (0: none),
 * and its wait status. */
static int run_stopped(const char *self, const char *what, int sig, char *dir, size_t len, long *command) {
  int fds[2];
  if (pipe(fds)) return -1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], STDOUT_FILENO), dup2(fds[1], STDERR_FILENO), close(fds[1]);
    execl(self, self, "--stop", what, (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  FILE *in = fdopen(fds[0], "r");
  char line[1024];
  dir[0] = '\0', *command = 0;
  while (fgets(line, sizeof line, in)) {
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "dir ", 4) == 0 && !dir[0]) snprintf(dir, len, "%s", line + 4);
    if (strncmp(line, "command ", 8) == 0) *command = atol(line + 8);
    if (strcmp(line, "ready") == 0) break;
  }
  pause_ms(300); /* the writer at work */
  kill(pid, sig);
  int status = 0;
  waitpid(pid, &status, 0);
  fclose(in);
  return status;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--make") == 0) return make();
  if (argc > 2 && strcmp(argv[1], "--stop") == 0) return stopped(argv[2]);
  unsetenv("HS_KEEP_TMP");
  made m;
  int rc = run_make(argv[0], &m);
  tap_ok(rc == 0 && m.n == 2, "the program ran and made %d folders (one of its own, one in a child)", m.n);
  tap_ok(m.alive == 1, "a child ending with exit() left the program's folders in place");
  int left = 0;
  for (int i = 0; i < m.n; i++)
    if (exists(m.dirs[i])) left++, tap_diag("left behind: %s", m.dirs[i]);
  tap_ok(m.n > 0 && left == 0, "after it exited, none of its %d folders is left", m.n);
  for (int i = 0; i < m.n; i++) remove_kept(m.dirs[i]); /* before the fix they were all left */

  setenv("HS_KEEP_TMP", "1", 1);
  rc = run_make(argv[0], &m);
  int kept = 0;
  for (int i = 0; i < m.n; i++) kept += exists(m.dirs[i]);
  tap_ok(rc == 0 && m.n == 2 && kept == m.n && m.noted, "HS_KEEP_TMP=1 keeps them (%d of %d) and says where", kept,
         m.n);
  for (int i = 0; i < m.n; i++) remove_kept(m.dirs[i]);

  unsetenv("HS_KEEP_TMP");
  const char *whats[] = {"child", "command"};
  const int sigs[] = {SIGTERM, SIGINT};
  for (int w = 0; w < 2; w++)
    for (int k = 0; k < 2; k++) {
      char dir[1024];
      long command = 0;
      int status = run_stopped(argv[0], whats[w], sigs[k], dir, sizeof dir, &command);
      char root[1024]; /* the program's hearsay-test-* folder, which holds dir */
      snprintf(root, sizeof root, "%s", dir);
      int gone = dir[0] && !exists(dirname(root));
      int command_gone = command == 0 || (kill((pid_t)command, 0) < 0 && errno == ESRCH);
      tap_ok(WIFSIGNALED(status) && WTERMSIG(status) == sigs[k] && gone && command_gone &&
                 (w == 0 || command > 0),
             "stopped by %s while a %s writes into its folder: it died of the signal (%d), its folder (%s's) is %s, %s",
             sigs[k] == SIGTERM ? "SIGTERM" : "SIGINT", whats[w], WIFSIGNALED(status) ? WTERMSIG(status) : -1, dir,
             gone ? "gone" : "left",
             w == 0 ? "no command ran" : command_gone ? "the command was stopped" : "the command still runs");
      if (!gone) remove_kept(dir);
      if (!command_gone) kill(-(pid_t)command, SIGKILL);
    }
  return tap_done(0);
}
