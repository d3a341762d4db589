/* test_output_folder.c — a run's output folder appears whole or not at all.
 *
 * `hearsay run` stages its files beside the target and puts them in place
 * only when the run succeeded (algos/report/outdir.c), in a child process that
 * may crash or be stopped without the command losing track (sim/guard.c).
 * Checked: a success replaces an earlier run's folder; a failure at load,
 * a run stopped by SIGTERM, and a run the simulated-time watchdog stops
 * (sim/watchdog.c) all leave the target as it was and nothing beside it;
 * a staging folder orphaned by a SIGKILL is removed by the next run;
 * summary.json parses with no NaN or Infinity and says why a figure is
 * null; large clusters announce their set-up and long runs their progress. */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/harness.h"
#include "tests/tap.h"

static const char scenario[] =
    "cluster { nodes = 2, gpus_per_node = 2, gpu = { flops = \"10TF\" },\n"
    "  inter = { bandwidth = \"10Gbps\", latency = \"5us\" } }\n"
    "workload { model = \"softmax\", dataset = { samples = 400 }, batch = 8 }\n"
    "algorithm { name = \"gradient_allreduce\" }\n"
    "run { iterations = 3 }\n";

static char parent[600], file[700], target[700];


static int run(const char *sets, char *err, size_t len) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s run %s --out %s --quiet %s", HEARSAY_BIN, file, target, sets);
  return hs_test_command(cmd, err, len);
}

static int rows(void) {
  char path[800], buf[65536];
  snprintf(path, sizeof path, "%s/metrics.csv", target);
  size_t n = hs_test_slurp(path, buf, sizeof buf);
  return n ? hs_test_count(buf, "\n") - 1 : -1;
}

/* Starts a run in the background; returns its pid (stderr into errfile). */
static pid_t start(const char *sets, const char *errfile) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "exec %s run %s --out %s --quiet %s 2>%s >/dev/null", HEARSAY_BIN, file, target, sets,
             errfile);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  return pid;
}

/* Waits until the staging folder exists beside the scenario and the
 * earlier output (the run is under way), at most 20 s. */
static int wait_for_stage(void) {
  for (int i = 0; i < 400; i++) {
    if (hs_test_entries(parent) > 2) return 1;
    nanosleep(&(struct timespec){0, 50000000}, NULL);
  }
  return 0;
}

int main(void) {
  snprintf(parent, sizeof parent, "%s", hs_test_tmpdir());
  snprintf(file, sizeof file, "%s/scenario.lua", parent);
  snprintf(target, sizeof target, "%s/out", parent);
  FILE *f = fopen(file, "w");
  fputs(scenario, f);
  fclose(f);
  char err[8192];

  int rc = run("--set run.iterations=3", err, sizeof err);
  tap_ok(rc == 0 && rows() == 3, "a run writes its folder (exit %d, %d rows) %s", rc, rows(), err);
  rc = run("--set run.iterations=5", err, sizeof err);
  tap_ok(rc == 0 && rows() == 5, "a second run replaces it (exit %d, %d rows)", rc, rows());
  tap_ok(hs_test_entries(parent) == 2, "nothing else beside it (%d entries: scenario and out)", hs_test_entries(parent));

  /* Refused at load: the earlier run's files stay as they were. */
  rc = run("--set cluster.nodes=0", err, sizeof err);
  tap_ok(rc == 2 && rows() == 5 && hs_test_entries(parent) == 2, "a refused scenario leaves the earlier folder as it was "
         "(exit %d, %d rows, %d entries)", rc, rows(), hs_test_entries(parent));

  /* Stopped by the watchdog: a GPU of 1 flop/s computing 48 Mflop per
   * sample (a 10 x 100 000 softmax) takes 1.5 simulated years per iteration. */
  rc = run("--set cluster.gpu.flops=1 --set workload.dataset.features=100000", err, sizeof err);
  tap_ok(rc == 2, "a run past its simulated-time bound stops with exit 2 (got %d)", rc);
  tap_ok(strstr(err, "cluster.gpu.flops") && strstr(err, "a day per iteration") && strstr(err, file),
         "its message names the file, the bound and the key: %.300s", err);
  tap_ok(rows() == 5 && hs_test_entries(parent) == 2, "and leaves the earlier folder as it was (%d rows, %d entries)", rows(),
         hs_test_entries(parent));
  /* 4 MB of gradients (100 000 features) through a GPU's PCIe link of 1
   * B/s: the link named, not the NIC it sits under */
  rc = run("--set cluster.gpu.pcie_bandwidth=1 --set workload.dataset.features=100000", err, sizeof err);
  tap_ok(rc == 2 && strstr(err, "cluster.gpu.pcie_bandwidth") && !strstr(err, "cluster.inter.bandwidth ="),
         "a GPU's PCIe link of 1 B/s is named as the likely cause: %.300s", err);
  rc = run("--set cluster.inter.latency=3000 --set run.iterations=3", err, sizeof err);
  tap_ok(rc == 0 && rows() == 3, "an hour of latency over 4 GPUs stays under a day per iteration: it runs (exit %d)",
         rc);
  rc = run("--set cluster.inter.latency=3000 --set run.iterations=3 --set run.max_simulated_time=1e7", err, sizeof err);
  tap_ok(rc == 0 && rows() == 3, "run.max_simulated_time raises the bound: the same run completes (exit %d, %d rows)",
         rc, rows());
  rc = run("--set run.iterations=3 --set run.max_simulated_time=1e-6", err, sizeof err);
  tap_ok(rc == 2 && strstr(err, "run.max_simulated_time"), "and lowers it: exit %d, %.200s", rc, err);

  /* summary.json: timing-only runs have no loss (null, with the reason). */
  char sj[800], buf[65536];
  rc = run("--set run.iterations=3", err, sizeof err);
  snprintf(sj, sizeof sj, "%s/summary.json", target);
  hs_test_slurp(sj, buf, sizeof buf);
  tap_ok(rc == 0 && strstr(buf, "\"final_loss\": 0.") == NULL && strstr(buf, "\"final_loss\": null") == NULL,
         "a numeric run reports its loss (exit %d)", rc);
  f = fopen(file, "w");
  fputs("cluster { nodes = 2, gpus_per_node = 2, gpu = { flops = \"10TF\" },\n"
        "  inter = { bandwidth = \"10Gbps\", latency = \"5us\" } }\n"
        "workload { model = \"resnet50\" }\n"
        "algorithm { name = \"gradient_allreduce\" }\n"
        "run { iterations = 2 }\n",
        f);
  fclose(f);
  rc = run("", err, sizeof err);
  hs_test_slurp(sj, buf, sizeof buf);
  tap_ok(rc == 0 && strstr(buf, "\"final_loss\": null") && strstr(buf, "\"null_because\": {") &&
             strstr(buf, "\"final_loss\": \"timing-only workload"),
         "a timing-only run: final_loss is null and null_because says why (exit %d)", rc);
  tap_ok(!strstr(buf, "nan") && !strstr(buf, "inf,") && !strstr(buf, "Infinity"), "no NaN or Infinity in summary.json");
  f = fopen(file, "w");
  fputs(scenario, f);
  fclose(f);

  /* Failures that take every GPU under shrink end the run as an abort
   * does: exit 3, the folder in place and marked aborted (it was exit 1,
   * "only 0 of 4 ranks ran to the end", before; found by scripts/fuzz). */
  f = fopen(file, "w");
  fputs(scenario, f);
  fputs("failures { { mtbf = \"1ns\", per = \"gpu\" } }\n", f);
  fclose(f);
  rc = run("--set run.on_failure=shrink", err, sizeof err);
  hs_test_slurp(sj, buf, sizeof buf);
  tap_ok(rc == 3 && strstr(err, "took every rank") && strstr(buf, "\"aborted\": true"),
         "failures that take every rank under shrink: exit 3 (got %d), the folder marked aborted: %.200s", rc, err);
  f = fopen(file, "w");
  fputs(scenario, f);
  fclose(f);

  /* SIGTERM while it runs: the run stops, says so, and removes its stage. */
  char errfile[700];
  snprintf(errfile, sizeof errfile, "%s.stderr", parent);
  pid_t pid = start("--set run.iterations=200000", errfile);
  int staged = wait_for_stage();
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  hs_test_slurp(errfile, err, sizeof err);
  tap_ok(staged, "a long run stages its files beside the target while it runs");
  tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM && strstr(err, "stopped by signal"),
         "SIGTERM stops it with a message (exit %d): %.200s", WIFEXITED(status) ? WEXITSTATUS(status) : -1, err);
  tap_ok(hs_test_entries(parent) == 2, "and the stage is gone, the earlier folder kept (%d entries)", hs_test_entries(parent));

  /* SIGKILL cannot be caught: the next run removes the orphaned stage. */
  pid = start("--set run.iterations=200000", errfile);
  staged = wait_for_stage();
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  /* Its worker dies with it (PR_SET_PDEATHSIG): give it the moment, so
   * the next run finds the stage's owner gone. */
  nanosleep(&(struct timespec){0, 300000000}, NULL);
  int orphaned = hs_test_entries(parent) > 2;
  rc = run("--set run.iterations=3", err, sizeof err);
  tap_ok(staged && orphaned && rc == 0 && hs_test_entries(parent) == 2,
         "a stage orphaned by SIGKILL is removed by the next run (orphaned %d, exit %d, %d entries)", orphaned, rc,
         hs_test_entries(parent));
  /* A large cluster announces its set-up at once, and a run still going
   * after 5 s of wall time says so (sim/progress.c); both before any
   * iteration of 8192 GPUs is done. Stopped as soon as both were seen. */
  char big[1024];
  snprintf(big, sizeof big, "--set cluster.nodes=1024 --set cluster.gpus_per_node=8 --set workload.dataset.samples=8192 "
           "--set run.iterations=1000");
  pid = start(big, errfile);
  int announced = 0, progressed = 0;
  for (int i = 0; i < 600 && !(announced && progressed); i++) {
    nanosleep(&(struct timespec){0, 50000000}, NULL);
    hs_test_slurp(errfile, err, sizeof err);
    announced = strstr(err, "setting up 8192 simulated GPUs") != NULL;
    progressed = strstr(err, "s of wall time") != NULL;
  }
  kill(pid, SIGTERM);
  waitpid(pid, &status, 0);
  tap_ok(announced, "8192 GPUs: the set-up is announced on stderr");
  tap_ok(progressed, "a run past 5 s of wall time reports its progress: %.300s", err);
  tap_ok(hs_test_entries(parent) == 2, "stopped, it leaves nothing behind (%d entries)", hs_test_entries(parent));
  remove(errfile);
  return tap_done(0);
}
