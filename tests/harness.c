/* harness.c — child processes, temporary files and commands for the tests. */
#include "tests/harness.h"

#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scenarios/loader.h"
#include "sim/platform.h"
#include "tests/tap.h"

const char *hs_test_tmpdir(void) {
  static char dir[512];
  const char *base = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/hearsay-test-XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    exit(99);
  }
  return dir;
}

int hs_test_load_sets(const char *lua, const char *const *sets, int n_sets, hs_scenario *sc) {
  char path[600];
  snprintf(path, sizeof path, "%s/scenario.lua", hs_test_tmpdir());
  FILE *f = fopen(path, "w");
  fputs(lua, f);
  fclose(f);
  return hs_scenario_load(path, sets, n_sets, sc);
}

int hs_test_load(const char *lua, hs_scenario *sc) { return hs_test_load_sets(lua, NULL, 0, sc); }

void hs_report(FILE *report, int ok, const char *fmt, ...) {
  va_list ap;
  fprintf(report, "%d ", ok ? 1 : 0);
  va_start(ap, fmt);
  vfprintf(report, fmt, ap);
  va_end(ap);
  fputc('\n', report);
  fflush(report);
}

int hs_test_in_child(const char *what, void (*fn)(void *arg, FILE *report), void *arg, int timeout_s) {
  int fds[2];
  if (pipe(fds)) return tap_ok(0, "%s: pipe failed", what), 1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    FILE *report = fdopen(fds[1], "w");
    alarm(timeout_s); /* a hang becomes a SIGALRM death, reported below */
    fn(arg, report);
    fclose(report);
    _exit(0);
  }
  close(fds[1]);
  FILE *in = fdopen(fds[0], "r");
  char line[4096];
  int failed = 0, lines = 0;
  while (fgets(line, sizeof line, in)) {
    line[strcspn(line, "\n")] = '\0';
    lines++;
    failed += !tap_ok(line[0] == '1', "%s: %s", what, line + 2);
  }
  fclose(in);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    failed++;
    tap_ok(0, "%s: child %s %d after %d checks", what, WIFSIGNALED(status) ? "killed by signal" : "exited with",
           WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), lines);
  }
  return failed;
}

void hs_test_simulate(const hs_scenario *sc, int n_ranks, hs_rank_main main, void *arg, hs_sim_stats *stats,
                      hs_trace *trace) {
  char path[600];
  snprintf(path, sizeof path, "%s/platform.xml", hs_test_tmpdir());
  FILE *f = fopen(path, "w");
  hs_platform_write(&sc->cluster, f);
  fclose(f);
  hs_sim_config cfg = {.sc = sc, .platform_file = path, .main = main, .arg = arg, .n_ranks = n_ranks,
                       .trace = trace};
  hs_sim_run(&cfg, stats);
}

int hs_test_command(const char *cmd, char *err, size_t errlen) {
  char full[8192];
  snprintf(full, sizeof full, "%s 2>&1 >/dev/null", cmd);
  FILE *p = popen(full, "r");
  if (!p) return -1;
  size_t n = fread(err, 1, errlen - 1, p);
  err[n] = '\0';
  int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
