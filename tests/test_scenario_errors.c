/* test_scenario_errors.c — every kind of bad scenario is refused by
 * `hearsay run` with FILE:LINE: key: message, exit code 2, and no output. */
#include <string.h>
#include <sys/stat.h>

#include "tests/harness.h"
#include "tests/tap.h"

/* A valid scenario, one declaration per line so each line number is known:
 * line 1 cluster, 2 gpu, 3 inter, 4 workload, 5 algorithm, 6 run. */
static const char *const good[] = {
    "cluster { nodes = 2, gpus_per_node = 2,",
    "  gpu = { flops = \"10TF\" },",
    "  inter = { bandwidth = \"10Gbps\", latency = \"5us\" } }",
    "workload { model = \"softmax\", dataset = { samples = 400 }, batch = 8 }",
    "algorithm { name = \"gradient_allreduce\" }",
    "run { iterations = 3 }",
    NULL};

typedef struct {
  const char *what;
  int line;               /* which line of `good` to replace (1-based), 0: none */
  const char *replacement;
  const char *set;        /* an extra --set, or NULL */
  const char *expect[3];  /* substrings the message must contain */
} bad_case;

static const bad_case cases[] = {
    {"unknown key", 3, "  inter = { bandwith = \"10Gbps\", latency = \"5us\" } }", NULL,
     {"scenario.lua:3:", "cluster.inter.bandwith", "unknown key"}},
    {"wrong type", 1, "cluster { nodes = \"two\", gpus_per_node = 2,", NULL,
     {"scenario.lua:1:", "cluster.nodes", "expected a number"}},
    {"missing required field", 6, "run { seed = 3 }", NULL,
     {"scenario.lua:6:", "run.iterations", "required but missing"}},
    {"zero bandwidth", 3, "  inter = { bandwidth = \"0Gbps\" } }", NULL,
     {"scenario.lua:3:", "cluster.inter.bandwidth", "at least 0.125"}},
    {"negative bandwidth", 3, "  inter = { bandwidth = \"-5Gbps\" } }", NULL,
     {"scenario.lua:3:", "cluster.inter.bandwidth", "at least 0.125"}},
    {"zero GPUs", 1, "cluster { nodes = 2, gpus_per_node = 0,", NULL,
     {"scenario.lua:1:", "cluster.gpus_per_node", "at least 1"}},
    {"unknown algorithm", 5, "algorithm { name = \"allreduce_magic\" }", NULL,
     {"scenario.lua:5:", "algorithm.name", "unknown algorithm 'allreduce_magic'"}},
    {"unknown model", 4, "workload { model = \"resnet51\" }", NULL,
     {"scenario.lua:4:", "workload.model", "unknown model 'resnet51'"}},
    {"unknown algorithm option", 5, "algorithm { name = \"gradient_allreduce\", bucket = \"1MiB\" }", NULL,
     {"scenario.lua:5:", "algorithm.bucket", "unknown option"}},
    {"bad unit", 3, "  inter = { bandwidth = \"10Gbps\", latency = \"5 parsecs\" } }", NULL,
     {"scenario.lua:3:", "cluster.inter.latency", "is not a time"}},
    {"Lua syntax error", 4, "workload { model = \"softmax\" ", NULL, {"scenario.lua:", "expected", NULL}},
    {"missing declaration", 6, "-- no run", NULL, {"scenario.lua", "missing declaration: run", NULL}},
    {"bad --set value", 0, NULL, "cluster.nodes=0", {"--set cluster.nodes=0", "cluster.nodes", "at least 1"}},
    {"--set of an unknown key", 0, NULL, "cluster.gpu.speed=3", {"--set cluster.gpu.speed=3", "unknown key", NULL}},
    {"impossible data partition", 4, "workload { model = \"softmax\", dataset = { samples = 2 }, batch = 8 }", NULL,
     {"scenario.lua:4:", "workload.dataset.samples", "2 samples are fewer than the 4 workers"}},
};

int main(void) {
  int n = sizeof cases / sizeof cases[0];
  for (int c = 0; c < n; c++) {
    const bad_case *bc = &cases[c];
    const char *dir = hs_test_tmpdir();
    char path[600], out[600], cmd[2048], err[4096];
    snprintf(path, sizeof path, "%s/scenario.lua", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    FILE *f = fopen(path, "w");
    for (int i = 0; good[i]; i++) fprintf(f, "%s\n", i + 1 == bc->line ? bc->replacement : good[i]);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s run %s --out %s%s%s", HEARSAY_BIN, path, out, bc->set ? " --set " : "",
             bc->set ? bc->set : "");
    int rc = hs_test_command(cmd, err, sizeof err);
    err[strcspn(err, "\n")] = '\0';
    int has = 1;
    for (int k = 0; k < 3 && bc->expect[k]; k++) has &= strstr(err, bc->expect[k]) != NULL;
    struct stat st;
    tap_ok(rc == 2, "%s: exit code 2 (got %d)", bc->what, rc);
    tap_ok(has, "%s: message names file, line and key: %s", bc->what, err);
    tap_ok(stat(out, &st) != 0, "%s: nothing written", bc->what);
  }
  /* And the good scenario runs, so the cases above fail for their own reason. */
  const char *dir = hs_test_tmpdir();
  char path[600], cmd[2048], err[4096];
  snprintf(path, sizeof path, "%s/scenario.lua", dir);
  FILE *f = fopen(path, "w");
  for (int i = 0; good[i]; i++) fprintf(f, "%s\n", good[i]);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s run %s --out %s/out --quiet", HEARSAY_BIN, path, dir);
  int rc = hs_test_command(cmd, err, sizeof err);
  tap_ok(rc == 0, "the unmodified scenario runs (exit %d) %s", rc, err);
  return tap_done(0);
}
