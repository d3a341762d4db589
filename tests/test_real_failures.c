/* test_real_failures.c — hearsay-real fails cleanly: a rank count that does
 * not match the scenario, a bad scenario and a rank that dies each end the
 * whole job with a non-zero exit, one clear message, no hang (each run has
 * a deadline) and no output files. */
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

static int exists(const char *dir, const char *name) {
  char path[1200];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &st) == 0;
}

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void mismatch(void) {
  char dir[600], cmd[8192], err[8192];
  snprintf(dir, sizeof dir, "%s/out", hs_test_tmpdir());
  snprintf(cmd, sizeof cmd, "timeout -k 5 60 %s %s %s/scenarios/emulated-4.lua --out %s", hs_test_mpirun(3),
           HEARSAY_REAL_BIN, HS_SOURCE_DIR, dir);
  double t0 = now();
  int rc = hs_test_command(cmd, err, sizeof err);
  tap_ok(rc != 0 && rc != 124, "rank mismatch: job exits non-zero without hanging (%d, %.1f s)", rc, now() - t0);
  tap_ok(count(err, "cluster has 4 GPUs") == 1 && strstr(err, "3 ranks were started"),
         "rank mismatch: one message naming both counts");
  tap_ok(!exists(dir, "metrics.csv") && !exists(dir, "summary.json"), "rank mismatch: nothing written");
}

static void bad_scenario(void) {
  const char *tmp = hs_test_tmpdir();
  char path[600], dir[600], cmd[8192], err[8192];
  snprintf(path, sizeof path, "%s/bad.lua", tmp);
  snprintf(dir, sizeof dir, "%s/out", tmp);
  FILE *f = fopen(path, "w");
  fputs("cluster { nodes = 2, gpus_per_node = 1, gpu = { flops = \"10TF\" },\n  inter = { bandwidth = \"-1Gbps\" } }\n"
        "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\nrun { iterations = 1 }\n",
        f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "timeout -k 5 60 %s %s %s --out %s", hs_test_mpirun(2), HEARSAY_REAL_BIN, path, dir);
  int rc = hs_test_command(cmd, err, sizeof err);
  tap_ok(rc != 0 && rc != 124, "bad scenario: job exits non-zero (%d)", rc);
  char want[700];
  snprintf(want, sizeof want, "%s:2: cluster.inter.bandwidth", path);
  tap_ok(count(err, want) == 1, "bad scenario: FILE:LINE: key reported once (%s)", want);
  tap_ok(!exists(dir, "summary.json"), "bad scenario: nothing written");
}

/* Kills one rank of a running job; mpirun must bring the others down. */
static void dead_rank(void) {
  char dir[600], cmd[8192];
  snprintf(dir, sizeof dir, "%s/dead-rank-out", hs_test_tmpdir());
  snprintf(cmd, sizeof cmd, "exec timeout -k 5 120 %s %s %s/scenarios/emulated-4.lua --set run.iterations=2000 "
           "--out %s >/dev/null 2>&1", hs_test_mpirun(4), HEARSAY_REAL_BIN, HS_SOURCE_DIR, dir);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  /* Wait until the ranks are training (the job is at least 3 s long). */
  char pattern[1400], kill_cmd[1600];
  snprintf(pattern, sizeof pattern, "^%s .*%s", HEARSAY_REAL_BIN, dir);
  snprintf(kill_cmd, sizeof kill_cmd, "pkill -KILL -n -f '%s'", pattern);
  sleep(3);
  int killed = system(kill_cmd) == 0;
  double t0 = now();
  int status = 0, done = 0;
  while (!done && now() - t0 < 60) {
    done = waitpid(pid, &status, WNOHANG) == pid;
    if (!done) nanosleep(&(struct timespec){0, 100000000}, NULL);
  }
  double took = now() - t0;
  if (!done) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  tap_ok(killed, "dead rank: one rank killed with SIGKILL");
  tap_ok(done && WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 124,
         "dead rank: the job ends non-zero within 60 s (%.1f s, status %d)", took,
         WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  tap_ok(!exists(dir, "summary.json") && !exists(dir, "metrics.csv"), "dead rank: no outputs written");
  char left[1700];
  snprintf(left, sizeof left, "pgrep -f '%s' >/dev/null", pattern);
  tap_ok(system(left) != 0, "dead rank: no rank is left running");
}

int main(void) {
  mismatch();
  bad_scenario();
  dead_rank();
  return tap_done(0);
}
