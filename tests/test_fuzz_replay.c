/* test_fuzz_replay.c — every case of the fuzz corpus (tests/fuzz/corpus/,
 * tests/fuzz/README.md) through `hearsay run`, each with a time bound.
 *
 * A case is a scenario file whose first line may carry its arguments
 * ("-- hearsay-args: --set k=v ..."). It runs as
 *     hearsay run DIR/case/NAME.lua ARGS --out DIR/parent/out
 * from an empty working directory DIR/cwd with TMPDIR=DIR/tmp, and passes
 * when:
 *  - it ends within CASE_TIMEOUT_S and is not killed by a signal;
 *  - its exit code is 0 or 2;
 *  - exit 2: stderr names the scenario file and a line ("PATH:NUMBER:"), or
 *    the override ("--set");
 *  - exit != 0: stderr is not empty, and nothing is left: DIR/parent,
 *    DIR/cwd and DIR/tmp are empty and DIR/case holds the scenario alone;
 *  - exit 0: DIR/parent/out/summary.json is strict JSON (no NaN, Infinity
 *    or number beyond a double) and metrics.csv has at least one data row;
 *    DIR/cwd and DIR/tmp are empty.
 * One TAP line per case, naming every property it broke. Cases run two at a
 * time (the CI machine has 2 cores); each in its own process group, sent
 * SIGTERM at the bound and SIGKILL TERM_GRACE_S later (what a SIGKILL
 * interrupted is not held against the files check). Every temporary
 * directory is removed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/harness.h"
#include "tests/tap.h"

/* The campaign (scripts/fuzz) bounds a run at 10 s on an idle machine; here
 * the suite runs two tests at a time on 2 cores beside this test's own two
 * cases, so a case gets twice that. A fixed hearsay refuses or finishes
 * most cases in well under a second; the slowest are stopped by the
 * sandbox: about a second of Lua instructions, or 4 s of CPU for a pattern
 * match that backtracks (observed up to 15 s of wall time on a loaded
 * machine). */
#define CASE_TIMEOUT_S 20
#define PARALLEL 2
#define MAX_CASES 4096
#define MAX_ARGS 600 /* hearsay takes up to 256 --set */
#define ERR_MAX 16384
#define TERM_GRACE_S 2

typedef struct {
  char name[256];
  char dir[512];     /* the case's own temporary directory */
  char path[1024];   /* dir/case/NAME.lua, as given to hearsay */
  char *args[MAX_ARGS];
  int n_args;
  int has_set;
  pid_t pid;
  int errfd;
  char err[ERR_MAX];
  size_t errlen;
  double start, elapsed;
  int status, timed_out; /* timed_out: 1 sent SIGTERM, 2 sent SIGKILL too */
  size_t said;           /* stderr bytes before the bound */
  char verdict[2048]; /* empty when every property holds */
  char summary[160];
} run_case;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void note(run_case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(run_case *c, const char *fmt, ...) {
  size_t n = strlen(c->verdict);
  if (n && n + 2 < sizeof c->verdict) strcat(c->verdict, "; "), n += 2;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->verdict + n, sizeof c->verdict - n, fmt, ap);
  va_end(ap);
}

/* ---- files ------------------------------------------------------------------ */

static void remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st)) return;
  if (S_ISDIR(st.st_mode)) {
    chmod(path, 0700); /* a run could have left a directory we cannot list */
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char sub[4096];
      snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
      remove_tree(sub);
    }
    if (d) closedir(d);
    rmdir(path);
  } else {
    unlink(path);
  }
}

/* Appends up to a few entries of dir (except `except`) to list; returns how many. */
static int list_dir(const char *dir, const char *label, const char *except, char *list, size_t len) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int k = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || (except && !strcmp(e->d_name, except))) continue;
    if (k++ < 3) {
      size_t n = strlen(list);
      snprintf(list + n, len - n, "%s%s/%s", n ? ", " : "", label, e->d_name);
    }
  }
  closedir(d);
  return k;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap + 1);
  for (size_t got; (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap) buf = realloc(buf, (cap *= 2) + 1);
  }
  fclose(f);
  buf[n] = '\0';
  if (len) *len = n;
  return buf;
}

static int write_file(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t w = fwrite(data, 1, len, f);
  return fclose(f) || w != len ? -1 : 0;
}

/* ---- the first line: "-- hearsay-args: WORDS" (POSIX shell words) -------- */

static int parse_args(run_case *c, const char *text) {
  static const char prefix[] = "-- hearsay-args:";
  if (strncmp(text, prefix, sizeof prefix - 1)) return 0;
  const char *p = text + sizeof prefix - 1;
  const char *eol = strchr(p, '\n');
  if (!eol) eol = p + strlen(p);
  char word[8192];
  while (p < eol) {
    while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
    if (p >= eol) break;
    size_t n = 0;
    while (p < eol && *p != ' ' && *p != '\t' && *p != '\r') {
      if (*p == '\'') {
        for (p++; p < eol && *p != '\''; p++)
          if (n + 1 < sizeof word) word[n++] = *p;
        if (p < eol) p++;
      } else if (*p == '"') {
        for (p++; p < eol && *p != '"'; p++) {
          if (*p == '\\' && p + 1 < eol && strchr("\"\\$`", p[1])) p++;
          if (n + 1 < sizeof word) word[n++] = *p;
        }
        if (p < eol) p++;
      } else {
        if (*p == '\\' && p + 1 < eol) p++;
        if (n + 1 < sizeof word) word[n++] = *p;
        p++;
      }
    }
    word[n] = '\0';
    if (c->n_args == MAX_ARGS) return errno = E2BIG, -1;
    c->args[c->n_args++] = strdup(word);
    if (!strcmp(word, "--set") || !strncmp(word, "--set=", 6)) c->has_set = 1;
  }
  return 0;
}

/* ---- strict JSON (RFC 8259): NaN, Infinity and overflowing numbers fail --- */

typedef struct {
  const char *p;
  const char *why;
} json_in;

static void skip_ws(json_in *j) {
  while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r') j->p++;
}

static int json_value(json_in *j, int depth);

static int json_string(json_in *j) {
  if (*j->p != '"') return j->why = "expected a string", 0;
  for (j->p++; *j->p != '"'; j->p++) {
    unsigned char ch = (unsigned char)*j->p;
    if (ch == '\0') return j->why = "unterminated string", 0;
    if (ch < 0x20) return j->why = "control character in a string", 0;
    if (ch == '\\') {
      j->p++;
      if (*j->p == 'u') {
        for (int k = 1; k <= 4; k++)
          if (!strchr("0123456789abcdefABCDEF", j->p[k]) || !j->p[k]) return j->why = "bad \\u escape", 0;
        j->p += 4;
      } else if (!*j->p || !strchr("\"\\/bfnrt", *j->p)) {
        return j->why = "bad escape", 0;
      }
    }
  }
  j->p++;
  return 1;
}

static int json_number(json_in *j) {
  const char *s = j->p;
  if (*j->p == '-') j->p++;
  if (*j->p == '0') j->p++;
  else if (*j->p >= '1' && *j->p <= '9') while (*j->p >= '0' && *j->p <= '9') j->p++;
  else return j->why = "bad value (NaN or Infinity?)", 0;
  if (*j->p == '.') {
    j->p++;
    if (!(*j->p >= '0' && *j->p <= '9')) return j->why = "bad number", 0;
    while (*j->p >= '0' && *j->p <= '9') j->p++;
  }
  if (*j->p == 'e' || *j->p == 'E') {
    j->p++;
    if (*j->p == '+' || *j->p == '-') j->p++;
    if (!(*j->p >= '0' && *j->p <= '9')) return j->why = "bad exponent", 0;
    while (*j->p >= '0' && *j->p <= '9') j->p++;
  }
  if (!isfinite(strtod(s, NULL))) return j->why = "number beyond a double", 0;
  return 1;
}

static int json_value(json_in *j, int depth) {
  if (depth > 256) return j->why = "nested too deep", 0;
  skip_ws(j);
  char ch = *j->p;
  if (ch == '{' || ch == '[') {
    char close = ch == '{' ? '}' : ']';
    j->p++;
    skip_ws(j);
    if (*j->p == close) return j->p++, 1;
    for (;;) {
      if (ch == '{') {
        skip_ws(j);
        if (!json_string(j)) return 0;
        skip_ws(j);
        if (*j->p != ':') return j->why = "expected ':'", 0;
        j->p++;
      }
      if (!json_value(j, depth + 1)) return 0;
      skip_ws(j);
      if (*j->p == ',') {
        j->p++;
        continue;
      }
      if (*j->p == close) return j->p++, 1;
      return j->why = "expected ',' or a closing bracket", 0;
    }
  }
  if (ch == '"') return json_string(j);
  if (!strncmp(j->p, "true", 4)) return j->p += 4, 1;
  if (!strncmp(j->p, "false", 5)) return j->p += 5, 1;
  if (!strncmp(j->p, "null", 4)) return j->p += 4, 1;
  return json_number(j);
}

/* NULL when text is one strict JSON value, else why not. */
static const char *json_problem(const char *text) {
  json_in j = {text, NULL};
  if (!json_value(&j, 0)) return j.why;
  skip_ws(&j);
  return *j.p ? "text after the value" : NULL;
}

/* ---- running ---------------------------------------------------------------- */

static void child_limits(void) {
  struct rlimit none = {0, 0}, fsize = {1L << 30, 1L << 30};
  setrlimit(RLIMIT_CORE, &none);
  setrlimit(RLIMIT_FSIZE, &fsize); /* a runaway platform.xml stops at 1 GiB */
#if defined(__SANITIZE_ADDRESS__)
#define HS_NO_AS_LIMIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HS_NO_AS_LIMIT 1
#endif
#endif
#ifndef HS_NO_AS_LIMIT
  /* A case that allocates without end fails inside 8 GiB instead of taking
   * the machine (AddressSanitizer builds reserve more than that up front). */
  struct rlimit as = {8L << 30, 8L << 30};
  setrlimit(RLIMIT_AS, &as);
#endif
}

static int start_case(run_case *c, const char *corpus) {
  char src[1024], sub[700];
  snprintf(c->dir, sizeof c->dir, "%s", hs_test_tmpdir());
  const char *parts[] = {"case", "parent", "cwd", "tmp"};
  for (int i = 0; i < 4; i++) {
    snprintf(sub, sizeof sub, "%s/%s", c->dir, parts[i]);
    if (mkdir(sub, 0700)) return -1;
  }
  snprintf(src, sizeof src, "%s/%s", corpus, c->name);
  snprintf(c->path, sizeof c->path, "%s/case/%s", c->dir, c->name);
  size_t len;
  char *text = slurp(src, &len);
  if (!text) return -1;
  int rc = write_file(c->path, text, len);
  if (!rc) rc = parse_args(c, text);
  free(text);
  if (rc) return -1;

  char out[700], cwd[700], tmp[700];
  snprintf(out, sizeof out, "%s/parent/out", c->dir);
  snprintf(cwd, sizeof cwd, "%s/cwd", c->dir);
  snprintf(tmp, sizeof tmp, "%s/tmp", c->dir);
  char *argv[MAX_ARGS + 8];
  int n = 0;
  argv[n++] = (char *)HEARSAY_BIN;
  argv[n++] = (char *)"run";
  argv[n++] = c->path;
  for (int i = 0; i < c->n_args; i++) argv[n++] = c->args[i];
  argv[n++] = (char *)"--out";
  argv[n++] = out;
  argv[n] = NULL;

  int fds[2];
  if (pipe(fds)) return -1;
  fflush(stdout);
  c->start = now();
  c->pid = fork();
  if (c->pid < 0) return -1;
  if (c->pid == 0) {
    setpgid(0, 0);
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    if (chdir(cwd)) _exit(126);
    setenv("TMPDIR", tmp, 1);
    unsetenv("HEARSAY_UNIFORM");
    child_limits();
    execv(HEARSAY_BIN, argv);
    _exit(127);
  }
  setpgid(c->pid, c->pid); /* also here: no race with the kill below */
  close(fds[1]);
  c->errfd = fds[0];
  fcntl(c->errfd, F_SETFL, O_NONBLOCK);
  return 0;
}

/* Reads what stderr has; 0 at end of file. */
static int drain(run_case *c) {
  char buf[4096];
  for (;;) {
    ssize_t k = read(c->errfd, buf, sizeof buf);
    if (k > 0) {
      size_t room = sizeof c->err - 1 - c->errlen;
      size_t take = (size_t)k < room ? (size_t)k : room;
      memcpy(c->err + c->errlen, buf, take);
      c->errlen += take;
      c->err[c->errlen] = '\0';
      continue;
    }
    if (k == 0) return 0;
    return errno == EINTR ? 1 : errno == EAGAIN ? 1 : 0;
  }
}

/* Waits for c (the stderr pipe read as it comes) until it exits or its time
 * is up; returns 1 when it has finished. */
static int poll_case(run_case *c) {
  int st;
  pid_t w = waitpid(c->pid, &st, WNOHANG);
  if (w == c->pid) {
    c->elapsed = now() - c->start;
    c->status = st;
    kill(-c->pid, SIGKILL); /* anything it started */
    int flags = fcntl(c->errfd, F_GETFL);
    fcntl(c->errfd, F_SETFL, flags & ~O_NONBLOCK);
    while (drain(c)) {
    }
    close(c->errfd);
    return 1;
  }
  drain(c);
  /* At the bound SIGTERM, as a user's Ctrl-C or a batch system would: hearsay
   * may clean up on it. SIGKILL if it is still there TERM_GRACE_S later. */
  double t = now() - c->start;
  if (!c->timed_out && t > CASE_TIMEOUT_S) {
    c->timed_out = 1;
    c->said = c->errlen;
    kill(-c->pid, SIGTERM);
  } else if (c->timed_out == 1 && t > CASE_TIMEOUT_S + TERM_GRACE_S) {
    c->timed_out = 2;
    kill(-c->pid, SIGKILL);
  }
  return 0;
}

/* ---- judging ------------------------------------------------------------------- */

static int names_line(const run_case *c) {
  size_t n = strlen(c->path);
  for (const char *p = strstr(c->err, c->path); p; p = strstr(p + 1, c->path)) {
    const char *q = p + n;
    if (*q != ':') continue;
    q++;
    if (!(*q >= '0' && *q <= '9')) continue;
    while (*q >= '0' && *q <= '9') q++;
    if (*q == ':') return 1;
  }
  return 0;
}

static void first_line(const char *err, char *out, size_t len) {
  while (*err == '\n' || *err == ' ') err++;
  size_t n = strcspn(err, "\n");
  if (n >= len) n = len - 1;
  memcpy(out, err, n);
  out[n] = '\0';
}

static void judge(run_case *c) {
  char sub[700], left[600] = "";
  int signaled = WIFSIGNALED(c->status), code = WIFEXITED(c->status) ? WEXITSTATUS(c->status) : -1;
  int empty = 1;
  for (const char *p = c->err; *p; p++) empty &= *p == ' ' || *p == '\n' || *p == '\t' || *p == '\r';
  char first[120];
  first_line(c->err, first, sizeof first);

  if (c->timed_out) {
    int said = 0; /* a message before the bound, not the one SIGTERM brought */
    for (size_t i = 0; i < c->said; i++) said |= !strchr(" \t\r\n", c->err[i]);
    note(c, "ran past %d s (%s)", CASE_TIMEOUT_S, said ? "with a message before that" : "silent until then");
    snprintf(c->summary, sizeof c->summary, "timeout");
  } else if (signaled) {
    note(c, "killed by signal %d (%s)", WTERMSIG(c->status), strsignal(WTERMSIG(c->status)));
    snprintf(c->summary, sizeof c->summary, "signal %d", WTERMSIG(c->status));
  } else if (code != 0 && code != 2) {
    note(c, "exit %d (expected 0 or 2)", code);
    snprintf(c->summary, sizeof c->summary, "exit %d", code);
  } else {
    snprintf(c->summary, sizeof c->summary, code == 0 ? "ran, exit 0" : "refused, exit 2");
  }
  if (code == 2 && !c->timed_out && !signaled && !names_line(c) && !(c->has_set && strstr(c->err, "--set")))
    note(c, "the message names neither %s:LINE: nor the --set", c->name);

  int bad_exit = c->timed_out || signaled || code != 0;
  if (bad_exit) {
    if (empty && !c->timed_out) note(c, "stderr is empty");
    /* What a SIGKILL interrupted may stay: only a run that ended by itself or
     * on SIGTERM is held to leaving nothing. */
    int k = 0;
    snprintf(sub, sizeof sub, "%s/parent", c->dir);
    k += list_dir(sub, "parent", NULL, left, sizeof left);
    snprintf(sub, sizeof sub, "%s/cwd", c->dir);
    k += list_dir(sub, "cwd", NULL, left, sizeof left);
    snprintf(sub, sizeof sub, "%s/tmp", c->dir);
    k += list_dir(sub, "tmp", NULL, left, sizeof left);
    snprintf(sub, sizeof sub, "%s/case", c->dir);
    k += list_dir(sub, "case", c->name, left, sizeof left);
    if (k && c->timed_out != 2) note(c, "%d file(s) left: %s", k, left);
  } else {
    snprintf(sub, sizeof sub, "%s/parent/out/summary.json", c->dir);
    char *json = slurp(sub, NULL);
    const char *why = json ? json_problem(json) : "missing";
    if (why) note(c, "summary.json: %s", why);
    free(json);
    snprintf(sub, sizeof sub, "%s/parent/out/metrics.csv", c->dir);
    char *csv = slurp(sub, NULL);
    int rows = -1;
    for (char *line = csv ? strtok(csv, "\n") : NULL; line; line = strtok(NULL, "\n"))
      if (line[strspn(line, " \r\t")]) rows++;
    if (rows < 1) note(c, "metrics.csv: %s", csv ? "no data row" : "missing");
    free(csv);
    int k = 0;
    snprintf(sub, sizeof sub, "%s/cwd", c->dir);
    k += list_dir(sub, "cwd", NULL, left, sizeof left);
    snprintf(sub, sizeof sub, "%s/tmp", c->dir);
    k += list_dir(sub, "tmp", NULL, left, sizeof left);
    if (k) note(c, "%d file(s) left outside --out: %s", k, left);
  }
  if (c->verdict[0] && first[0]) note(c, "stderr: %s", first);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(void) {
  char corpus[600];
  snprintf(corpus, sizeof corpus, "%s/tests/fuzz/corpus", HS_SOURCE_DIR);
  DIR *d = opendir(corpus);
  if (!d) {
    tap_ok(0, "corpus %s: %s", corpus, strerror(errno));
    return tap_done(0);
  }
  static char *names[MAX_CASES];
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) && n < MAX_CASES;) {
    size_t len = strlen(e->d_name);
    if (len > 4 && !strcmp(e->d_name + len - 4, ".lua")) names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, by_name);
  tap_ok(n >= 100, "the corpus has %d cases", n);

  run_case *cases = calloc(n, sizeof *cases);
  run_case *running[PARALLEL] = {0};
  int next = 0, active = 0;
  double t0 = now();
  while (next < n || active) {
    while (active < PARALLEL && next < n) {
      run_case *c = &cases[next++];
      snprintf(c->name, sizeof c->name, "%s", names[next - 1]);
      if (start_case(c, corpus)) {
        note(c, "could not set the case up: %s", strerror(errno));
        c->pid = 0;
        continue;
      }
      for (int s = 0; s < PARALLEL; s++)
        if (!running[s]) {
          running[s] = c;
          break;
        }
      active++;
    }
    struct pollfd pfd[PARALLEL];
    int np = 0;
    for (int s = 0; s < PARALLEL; s++)
      if (running[s]) pfd[np++] = (struct pollfd){.fd = running[s]->errfd, .events = POLLIN};
    poll(pfd, np, 20);
    for (int s = 0; s < PARALLEL; s++) {
      if (running[s] && poll_case(running[s])) {
        judge(running[s]);
        remove_tree(running[s]->dir);
        running[s] = NULL;
        active--;
      }
    }
  }

  int failed = 0, timeouts = 0, signals = 0;
  int slowest[5] = {-1, -1, -1, -1, -1};
  for (int i = 0; i < n; i++) {
    run_case *c = &cases[i];
    failed += !tap_ok(!c->verdict[0], "%s: %s%s%s (%.2f s)", c->name, c->summary, c->verdict[0] ? ": " : "",
                      c->verdict, c->elapsed);
    timeouts += c->timed_out;
    signals += WIFSIGNALED(c->status) && !c->timed_out;
    for (int k = 0; k < 5; k++)
      if (slowest[k] < 0 || c->elapsed > cases[slowest[k]].elapsed) {
        memmove(slowest + k + 1, slowest + k, (4 - k) * sizeof *slowest);
        slowest[k] = i;
        break;
      }
    for (int a = 0; a < c->n_args; a++) free(c->args[a]);
    free(names[i]);
  }
  tap_diag("%d cases in %.1f s, %d failing (%d past %d s, %d killed by a signal)", n, now() - t0, failed, timeouts,
           CASE_TIMEOUT_S, signals);
  for (int k = 0; k < 5 && slowest[k] >= 0; k++)
    tap_diag("slowest: %s %.2f s", cases[slowest[k]].name, cases[slowest[k]].elapsed);
  free(cases);
  return tap_done(0);
}
