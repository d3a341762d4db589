/* harness.c — child processes, temporary files and commands for the tests. */
/* nftw is an XSI extension beyond POSIX. */
#define _XOPEN_SOURCE 700
#include "tests/harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <math.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scenarios/loader.h"
#include "sim/platform.h"
#include "tests/tap.h"

/* Every temporary folder of a test program lives in one root folder, made
 * by the program itself (before it forks any child) and removed with all it
 * holds when the program exits, unless HS_KEEP_TMP is set. Children write
 * into it too, and a forked child never removes it: children end with
 * _exit, which skips atexit handlers, and the handler checks the pid in
 * case one calls exit. */
static char tmp_root[480];
static pid_t tmp_owner;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

static void remove_tmp_root(void) {
  if (getpid() == tmp_owner) nftw(tmp_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A test stopped by a signal (a timeout's SIGTERM, ^C) removes its
 * folder too, then dies of the signal as it would have. nftw is not
 * async-signal-safe; the process is about to end and does nothing else,
 * which is what makes this acceptable for a test. A child of
 * hs_test_in_child still running is killed first. */
static pid_t running_child;   /* hs_test_in_child's, while it runs */
static pid_t running_command; /* command_open's, the leader of its own process group, while it runs */

static void remove_tmp_root_and_die(int sig) {
  /* the children first, or they would go on writing into the folder */
  if (getpid() == tmp_owner) {
    if (running_child > 0) kill(running_child, SIGKILL), waitpid(running_child, NULL, 0);
    if (running_command > 0) kill(-running_command, SIGKILL), waitpid(running_command, NULL, 0);
  }
  remove_tmp_root();
  signal(sig, SIG_DFL);
  raise(sig);
}

static int keep_tmp(void) {
  const char *k = getenv("HS_KEEP_TMP");
  return k && *k && strcmp(k, "0") != 0;
}

static const char *tmp_root_dir(void) {
  if (tmp_root[0]) return tmp_root;
  const char *base = getenv("TMPDIR");
  snprintf(tmp_root, sizeof tmp_root, "%s/hearsay-test-XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(tmp_root)) {
    perror("mkdtemp");
    exit(99);
  }
  tmp_owner = getpid();
  if (keep_tmp()) fprintf(stderr, "# HS_KEEP_TMP: this test's temporary files are kept in %s\n", tmp_root);
  else {
    atexit(remove_tmp_root);
    const int stops[] = {SIGTERM, SIGINT, SIGHUP};
    for (int i = 0; i < 3; i++) signal(stops[i], remove_tmp_root_and_die);
  }
  return tmp_root;
}

const char *hs_test_tmpdir(void) {
  static char dir[512];
  snprintf(dir, sizeof dir, "%s/XXXXXX", tmp_root_dir());
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

int hs_test_size_class(double bytes) {
  if (!(bytes >= 1)) return 0;
  int c = 1 + ilogb(bytes);
  return c < 64 ? c : 63;
}

double hs_test_class_middle(int cls) { return cls == 0 ? 0 : ldexp(1.4142135623730951, cls - 1); }

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

/* The collective checks allocate, fill and free buffers of up to 68 MB a
 * rank (17 ranks, a million floats each, allgathered), many times in one
 * child. glibc serves allocations above its mmap threshold (128 KiB, raised
 * on free to at most 32 MiB) with fresh mappings and returns freed heap
 * above its trim threshold to the kernel, so every such buffer came back
 * as new pages the kernel had to zero: half of test_collectives' time was
 * the kernel's clear_page (perf, 2026-11-28). A child keeps what it frees
 * for its next allocation instead; it is short-lived, so nothing is lost. */
static void keep_freed_memory(void) {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

int hs_test_in_child(const char *what, void (*fn)(void *arg, FILE *report), void *arg, int timeout_s) {
  int fds[2];
  if (pipe(fds)) return tap_ok(0, "%s: pipe failed", what), 1;
  tmp_root_dir(); /* made here, so the child's temporary folders go where this process removes them */
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    keep_freed_memory();
    FILE *report = fdopen(fds[1], "w");
    alarm(timeout_s); /* a hang becomes a SIGALRM death, reported below */
    fn(arg, report);
    fclose(report);
    _exit(0);
  }
  running_child = pid;
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
  running_child = 0;
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
  const char *dir = hs_test_tmpdir();
  snprintf(path, sizeof path, "%s/platform.xml", dir);
  FILE *f = fopen(path, "w");
  hs_platform_write(&sc->cluster, &sc->network, dir, f);
  fclose(f);
  hs_sim_config cfg = {.sc = sc, .platform_file = path, .main = main, .arg = arg, .n_ranks = n_ranks,
                       .trace = trace};
  hs_sim_run(&cfg, stats);
}

/* popen(cmd, "r"), but the shell leads a process group of its own, so
 * that a test stopped by a signal stops the command and all it started
 * (remove_tmp_root_and_die) before it removes the folder they write in. */
static FILE *command_open(const char *cmd) {
  int fds[2];
  if (pipe(fds)) return NULL;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]), close(fds[1]);
    return NULL;
  }
  if (pid == 0) {
    setpgid(0, 0);
    /* out of the terminal's foreground group, reading it would stop the
     * command (SIGTTIN): no command of a test reads its input */
    int null_in = open("/dev/null", O_RDONLY);
    if (null_in > 0) dup2(null_in, STDIN_FILENO), close(null_in);
    close(fds[0]);
    if (fds[1] != STDOUT_FILENO) dup2(fds[1], STDOUT_FILENO), close(fds[1]);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  setpgid(pid, pid); /* as the child does: whichever runs first */
  running_command = pid;
  close(fds[1]);
  return fdopen(fds[0], "r");
}

/* pclose: the command's wait status. */
static int command_close(FILE *p) {
  fclose(p);
  int status = -1;
  while (waitpid(running_command, &status, 0) < 0 && errno == EINTR) {
  }
  running_command = 0;
  return status;
}

int hs_test_command(const char *cmd, char *err, size_t errlen) {
  char full[8192];
  snprintf(full, sizeof full, "%s 2>&1 >/dev/null", cmd);
  return hs_test_output(full, err, errlen);
}

int hs_test_collective(const char *scenario, const char *args, char *result, size_t len, int *warned) {
  char cmd[2048], line[1024];
  snprintf(cmd, sizeof cmd, "timeout -k 5 300 %s collective %s %s 2>&1", HEARSAY_BIN, scenario, args);
  FILE *p = command_open(cmd);
  int found = 0;
  if (warned) *warned = 0;
  while (p && fgets(line, sizeof line, p)) {
    if (warned && strstr(line, "WARNING")) {
      if (!*warned) fprintf(stderr, "# %s", line);
      *warned = 1;
    }
    if (strncmp(line, "result ", 7) == 0) {
      snprintf(result, len, "%s", line);
      found = 1;
    }
  }
  return (p ? command_close(p) : -1) == 0 && found ? 0 : -1;
}

double hs_test_result_value(const char *result, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, " %s=", key);
  const char *at = strstr(result, pat);
  return at ? strtod(at + strlen(pat), NULL) : NAN;
}

int hs_test_output(const char *cmd, char *out, size_t len) {
  FILE *p = command_open(cmd);
  if (!p) return -1;
  size_t n = fread(out, 1, len - 1, p);
  out[n] = '\0';
  int status = command_close(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int hs_test_run_text(const char *name, const char *lua, char *out_dir, size_t dir_len, char *text, size_t len) {
  char path[1024], cmd[3000];
  snprintf(path, sizeof path, "%s/%s.lua", hs_test_tmpdir(), name);
  snprintf(out_dir, dir_len, "%s/%s.out", hs_test_tmpdir(), name);
  FILE *f = fopen(path, "w");
  if (!f || fputs(lua, f) < 0 || fclose(f)) return -1;
  snprintf(cmd, sizeof cmd, "%s run %s --out %s 2>&1", HEARSAY_BIN, path, out_dir);
  return hs_test_output(cmd, text, len);
}

double hs_test_output_value(const char *out, const char *key) {
  const char *line = strncmp(out, "result ", 7) == 0 ? out : strstr(out, "\nresult ");
  if (!line) return NAN;
  char copy[4096]; /* the line alone, so that a key on a later line is not taken */
  snprintf(copy, sizeof copy, "%.*s", (int)strcspn(line + 1, "\n") + 1, line);
  return hs_test_result_value(copy, key);
}

double hs_test_json_number(const char *json, const char *key) {
  char pat[128];
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  const char *at = strstr(json, pat);
  if (!at || strncmp(at + strlen(pat), "null", 4) == 0) return NAN;
  return strtod(at + strlen(pat), NULL);
}

const char *hs_test_mpirun(int np) {
  /* mpirun refuses root without these (CI runs as root); oversubscribe:
   * tests start more ranks than the machine has cores. */
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  static char cmd[512];
  snprintf(cmd, sizeof cmd, "%s --oversubscribe --bind-to none -np %d", HS_MPIEXEC, np);
  return cmd;
}

int hs_test_mpirun_checks(const char *what, int np, const char *args, int timeout_s) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "timeout -k 5 %d %s %s", timeout_s, hs_test_mpirun(np), args);
  FILE *p = command_open(cmd);
  if (!p) return tap_ok(0, "%s: cannot start mpirun", what), 1;
  char line[4096];
  int failed = 0, lines = 0;
  while (fgets(line, sizeof line, p)) {
    line[strcspn(line, "\n")] = '\0';
    if ((line[0] != '0' && line[0] != '1') || line[1] != ' ') continue; /* not a check line */
    lines++;
    failed += !tap_ok(line[0] == '1', "%s: %s", what, line + 2);
  }
  int status = command_close(p);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || lines == 0) {
    failed++;
    tap_ok(0, "%s: mpirun exited with %d after %d checks%s", what, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
           lines, WIFEXITED(status) && WEXITSTATUS(status) == 124 ? " (timed out)" : "");
  }
  return failed;
}

size_t hs_test_slurp(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, len - 1, f) : 0;
  buf[n] = '\0';
  if (f) fclose(f);
  return n;
}

int hs_test_count(const char *text, const char *needle) {
  int k = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) k++;
  return k;
}

int hs_test_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}
