/* test_fidelity_auto.c — sim.fidelity = "auto" at 128 ranks or fewer:
 * step, unless step would simulate more than HS_FIDELITY_AUTO_STEP_MESSAGES
 * messages over the run (sim/fidelity_auto.h); then fast, and the summary
 * says so. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/fidelity_auto.h"
#include "tests/harness.h"
#include "tests/tap.h"

/* 8 one-GPU nodes; a one-layer profile of P parameters, written beside. */
static char profile[600];
static const char *lua_fmt = "cluster { nodes = 8, gpus_per_node = 1, gpu = { flops = '10TF' }, inter = { bandwidth = '100Gbps' } }\n"
                             "workload { model = '%s', batch = 1, precision = '%s' }\n"
                             "algorithm { name = 'gradient_allreduce' }\n"
                             "run { iterations = %d }\n"
                             "sim { fidelity = '%s' }\n";

static void write_profile(double params) {
  snprintf(profile, sizeof profile, "%s/one-layer.lua", hs_test_tmpdir());
  FILE *f = fopen(profile, "w");
  fprintf(f, "return { layers = { { name = 'dense', params = %.17g, fwd_flops = 1e6 } } }\n", params);
  fclose(f);
}

static int load(const char *precision, int iterations, const char *fidelity, hs_scenario *sc) {
  char lua[1024];
  snprintf(lua, sizeof lua, lua_fmt, profile, precision, iterations, fidelity);
  return hs_test_load(lua, sc);
}

/* The estimate is the documented formula, exactly: iterations x ranks x
 * the larger of 2 x gradient bytes / 256 KiB and a ring's 2(n - 1). */
static void estimate(void) {
  write_profile(1 << 20); /* 4 MiB in fp32: 32 slices a rank an iteration, 2 MiB in fp16: 16 */
  hs_scenario sc;
  tap_ok(load("fp32", 10, "auto", &sc) == 0, "a one-layer scenario of 2^20 parameters loads");
  tap_ok(hs_fidelity_step_messages(&sc) == 10.0 * 8 * 32, "fp32: 10 iterations x 8 ranks x 32 slices = %g (2560)",
         hs_fidelity_step_messages(&sc));
  hs_scenario_free(&sc);
  int rc = load("fp16", 10, "auto", &sc);
  tap_ok(rc == 0 && hs_fidelity_step_messages(&sc) == 10.0 * 8 * 16, "fp16: the wire's bytes, half: %g (1280)",
         hs_fidelity_step_messages(&sc));
  hs_scenario_free(&sc);
  write_profile(1000); /* 8 KB: under one slice, so a ring's 2 x 7 messages */
  rc = load("fp32", 10, "auto", &sc);
  tap_ok(rc == 0 && hs_fidelity_step_messages(&sc) == 10.0 * 8 * 14, "a tiny gradient costs a ring's 2(n - 1): %g (1120)",
         hs_fidelity_step_messages(&sc));
  hs_scenario_free(&sc);
}

/* At the budget, auto steps; one iteration more, it runs fast; a fidelity
 * the scenario names is kept whatever the estimate. 2^27 parameters in
 * fp32: 4096 slices a rank an iteration, 32 768 messages an iteration on
 * 8 ranks, so 30 iterations are 983 040 (under 1e6) and 31 are 1 015 808. */
static void budget(void) {
  write_profile(1 << 27);
  hs_scenario sc;
  int rc = load("fp32", 30, "auto", &sc);
  tap_ok(rc == 0 && hs_fidelity_step_messages(&sc) == 983040 && !hs_fidelity_auto_fast(&sc),
         "30 iterations: %g messages, auto steps", hs_fidelity_step_messages(&sc));
  hs_scenario_free(&sc);
  rc = load("fp32", 31, "auto", &sc);
  tap_ok(rc == 0 && hs_fidelity_step_messages(&sc) == 1015808 && hs_fidelity_auto_fast(&sc),
         "31 iterations: %g messages, auto runs fast", hs_fidelity_step_messages(&sc));
  hs_scenario_free(&sc);
  rc = load("fp32", 31, "step", &sc);
  tap_ok(rc == 0 && !hs_fidelity_auto_fast(&sc), "sim.fidelity = \"step\" is kept over the budget");
  hs_scenario_free(&sc);
}

/* `hearsay run`: what ran (summary.json's fidelity and messages) and what
 * the summary says. */
static void run(const char *what, int iterations, const char *fidelity, const char *want, int says_why) {
  char lua[1024], path[1000], out[800], text[8192], json[16384];
  snprintf(lua, sizeof lua, lua_fmt, profile, "fp32", iterations, fidelity);
  int rc = hs_test_run_text(what, lua, out, sizeof out, text, sizeof text);
  snprintf(path, sizeof path, "%s/summary.json", out);
  hs_test_slurp(path, json, sizeof json);
  char field[64];
  snprintf(field, sizeof field, "\"fidelity\": \"%s\"", want);
  int said = hs_test_count(text, "fidelity    fast: step would have simulated") > 0;
  /* a simulated run's summary has its "simulation" line, never a real
   * run's "run N processes" */
  int lines = hs_test_count(text, "\n  simulation  ") == 1 && hs_test_count(text, "\n  run  ") == 0 &&
              hs_test_count(text, "\n  beside  ") == 0; /* an allreduce alone: no messages beside fast's */
  tap_ok(rc == 0 && strstr(json, field) && said == says_why && lines,
         "%s: exit %d, summary.json's fidelity %s%s, %s, %s", what, rc, want, strstr(json, field) ? "" : " (not so)",
         said ? "the summary says why" : "no word of the budget",
         lines ? "one simulation line" : "not one simulation line and no run line");
}

/* A parameter server's pushes and pulls are SimGrid's messages under fast
 * too, beside the node's reduce and broadcast that fast times: the
 * summary says they did not contend (docs/fidelity.md, "Not modelled by
 * fast"), and step says nothing of it. */
static void beside(void) {
  const char *fmt = "cluster { nodes = 2, gpus_per_node = 2, gpu = { flops = '10TF' }, inter = { bandwidth = '100Gbps' } }\n"
                    "workload { model = '%s', batch = 1 }\n"
                    "algorithm { name = 'parameter_server', placement = 'machines', servers = 2, aggregate = true,\n"
                    "  update = 'workers' }\n"
                    "run { iterations = 2 }\nsim { fidelity = '%s' }\n";
  const char *fids[] = {"fast", "step"};
  for (int i = 0; i < 2; i++) {
    char lua[1024], out[800], text[8192];
    snprintf(lua, sizeof lua, fmt, profile, fids[i]);
    int rc = hs_test_run_text(fids[i], lua, out, sizeof out, text, sizeof text);
    int said = hs_test_count(text, "\n  beside      ") == 1 &&
               hs_test_count(text, "messages ran in SimGrid beside") == 1;
    tap_ok(rc == 0 && said == (i == 0), "parameter server at %s: exit %d, %s", fids[i], rc,
           said ? "the summary says its messages did not contend with fast's collectives" : "no word of it");
  }
}

int main(void) {
  estimate();
  budget();
  /* 2^27 parameters: 31 iterations are over the budget; timing-only, so
   * fast takes a fraction of a second where step would take a minute. */
  write_profile(1 << 27);
  run("over", 31, "auto", "fast", 1);
  run("under", 2, "auto", "step", 0);
  run("fast-asked", 2, "fast", "fast", 0);
  write_profile(1 << 20);
  beside();
  return tap_done(0);
}
