/* test_summary_warmup.c — the printed summary says when an algorithm's
 * warm-up (its warmup_steps) is in the iterations it reports: all of them
 * (qadam's default 100 over a short run, which then never times qadam's
 * compressed phase), some of them, or none. */
#include <stdio.h>
#include <string.h>

#include "tests/harness.h"
#include "tests/tap.h"

static const char *lua_fmt = "cluster { nodes = 2, gpus_per_node = 2, gpu = { flops = '10TF' },\n"
                             "          inter = { bandwidth = '10Gbps' } }\n"
                             "workload { model = 'resnet18', batch = 8 }\n"
                             "algorithm { name = '%s'%s }\n"
                             "run { iterations = 3 }\n";

static void summary(const char *what, const char *algorithm, const char *options, const char *want) {
  char lua[1024], out[800], text[8192];
  snprintf(lua, sizeof lua, lua_fmt, algorithm, options);
  int rc = hs_test_run_text(what, lua, out, sizeof out, text, sizeof text);
  int lines = hs_test_count(text, "\n  warm-up     ");
  int ok = rc == 0 && (want ? lines == 1 && strstr(text, want) : lines == 0);
  tap_ok(ok, "%s: exit %d, %s", what, rc, want ? want : "no warm-up line");
  if (!ok) fprintf(stderr, "# %s\n", text);
}

int main(void) {
  summary("qadam-default", "qadam", "",
          "all 3 iterations are qadam's warm-up (warmup_steps = 100), none its own phase");
  summary("onebit-two", "onebit_adam", ", warmup_steps = 2",
          "the first 2 of the 3 iterations are onebit_adam's warm-up (warmup_steps)");
  summary("qadam-none", "qadam", ", warmup_steps = 0", NULL);
  summary("allreduce", "gradient_allreduce", "", NULL);
  return tap_done(0);
}
