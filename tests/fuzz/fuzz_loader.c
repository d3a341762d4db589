/* fuzz_loader.c — libFuzzer target on the scenario loader (scripts/fuzz
 * libfuzzer; built only with -DHS_FUZZ=ON and clang).
 *
 * Each input is a scenario file. A first line "-- hearsay-args: --set k=v
 * ..." (the replay corpus' format, tests/fuzz/README.md) also gives --set
 * overrides, so corpus cases are good seeds. The input is written to a
 * private temporary directory and loaded with hs_scenario_load; when it
 * loads, its platform is generated into /dev/null (hs_platform_write, with
 * the link profiles of network { } written in that directory), then
 * hs_scenario_free. The directory, hs-fuzz-PID, is made under $TMPDIR
 * (scripts/fuzz points it at a folder it removes afterwards), else /dev/shm,
 * else /tmp; those of crashed processes are removed at the next start. The loader's messages are silenced (stdio's stderr and
 * stdout point at /dev/null during the call); sanitizer reports still go to
 * file descriptor 2.
 *
 * A scenario is a program: inputs that reach the operating system (os, io,
 * package, require, debug, load, dofile, _G, _ENV, /dev/, /proc/) are
 * skipped, so a mutation cannot remove files or block on a device whatever
 * the loader lets through. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scenarios/loader.h"
#include "sim/platform.h"

#define MAX_SETS 16
#define MAX_INPUT (64 * 1024)
/* Platforms beyond this many GPUs take longer to write than a fuzz input
 * should (the command-line campaign covers them). */
#define MAX_PLATFORM_GPUS (1 << 16)

static char dir[256];
static char path[300];
static FILE *devnull;

static void cleanup_dir(int keep_scenario) {
  DIR *d = opendir(dir);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (keep_scenario && !strcmp(e->d_name, "scenario.lua")) continue;
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    unlink(p);
  }
  closedir(d);
}

static void at_exit(void) {
  cleanup_dir(0);
  rmdir(dir);
}

/* A crash (or a kill at a timeout) skips at_exit: the next start removes the
 * directories hs-fuzz-PID of processes that are gone. */
static void remove_stale(const char *base) {
  DIR *d = opendir(base);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    char *end;
    if (strncmp(e->d_name, "hs-fuzz-", 8)) continue;
    long pid = strtol(e->d_name + 8, &end, 10);
    if (*end || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
    snprintf(dir, sizeof dir, "%s/%s", base, e->d_name);
    at_exit();
  }
  closedir(d);
  dir[0] = '\0';
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  const char *bases[] = {getenv("TMPDIR"), "/dev/shm", "/tmp"};
  for (int i = 0; i < 3 && !dir[0]; i++) {
    if (!bases[i] || !*bases[i]) continue;
    remove_stale(bases[i]);
    snprintf(dir, sizeof dir, "%s/hs-fuzz-%ld", bases[i], (long)getpid());
    if (mkdir(dir, 0700)) dir[0] = '\0';
  }
  if (!dir[0]) {
    perror("fuzz_loader: mkdir");
    exit(1);
  }
  snprintf(path, sizeof path, "%s/scenario.lua", dir);
  atexit(at_exit);
  devnull = fopen("/dev/null", "w");
  return 0;
}

static int name_char(char c) { return c == '_' || isalnum((unsigned char)c); }

/* w appears at s[i] as a whole Lua name. */
static int word_at(const char *s, size_t n, size_t i, const char *w) {
  size_t k = strlen(w);
  if (i + k > n || memcmp(s + i, w, k)) return 0;
  return (i == 0 || !name_char(s[i - 1])) && (i + k == n || !name_char(s[i + k]));
}

static int reaches_the_system(const char *s, size_t n) {
  static const char *const words[] = {"os", "io", "package", "require", "debug", "load", "loadfile", "dofile",
                                      "loadstring", "_G", "_ENV", "collectgarbage", NULL};
  for (size_t i = 0; i < n; i++) {
    for (int w = 0; words[w]; w++)
      if (word_at(s, n, i, words[w])) return 1;
    if (i + 5 <= n && (!memcmp(s + i, "/dev/", 5) || !memcmp(s + i, "/proc", 5) || !memcmp(s + i, "/sys/", 5)))
      return 1;
  }
  return 0;
}

/* "-- hearsay-args: --set a=b --set c=d": the values after each --set,
 * split at blanks (no quoting: fuzz inputs need none). */
static int parse_sets(char *line, const char **sets) {
  const char *prefix = "-- hearsay-args:";
  if (strncmp(line, prefix, strlen(prefix))) return 0;
  int n = 0, want = 0;
  for (char *w = strtok(line + strlen(prefix), " \t\r"); w && n < MAX_SETS; w = strtok(NULL, " \t\r")) {
    if (want) sets[n++] = w, want = 0;
    else if (!strcmp(w, "--set")) want = 1;
    else if (!strncmp(w, "--set=", 6)) sets[n++] = w + 6;
  }
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > MAX_INPUT) return -1;
  if (reaches_the_system((const char *)data, size)) return -1;
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  fwrite(data, 1, size, f);
  fclose(f);

  size_t first = 0;
  while (first < size && data[first] != '\n' && data[first] != '\0') first++;
  char *line = malloc(first + 1);
  memcpy(line, data, first);
  line[first] = '\0';
  const char *sets[MAX_SETS];
  int n_sets = parse_sets(line, sets);

  FILE *saved_err = stderr, *saved_out = stdout;
  stderr = devnull;
  stdout = devnull;
  hs_scenario sc;
  int rc = hs_scenario_load(path, sets, n_sets, &sc);
  if (rc == 0) {
    long gpus = (long)sc.cluster.nodes * sc.cluster.gpus_per_node;
    if (gpus > 0 && gpus <= MAX_PLATFORM_GPUS) hs_platform_write(&sc.cluster, &sc.network, dir, devnull);
    hs_scenario_free(&sc);
  }
  fflush(devnull);
  stderr = saved_err;
  stdout = saved_out;
  free(line);
  cleanup_dir(1);
  return 0;
}
