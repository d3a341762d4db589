/* test_dependency_rule.c — algos/ cannot include backend headers: the build
 * refuses a file that tries (the probe target), and no file in algos/ does;
 * algos/comm/, which every backend shares, includes no other room. */
#include <string.h>

#include "tests/harness.h"
#include "tests/tap.h"

int main(void) {
  char out[8192];
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "cmake --build %s --target hs_algos_rule_probe 2>&1 1>&2", HS_BUILD_DIR);
  int rc = hs_test_command(cmd, out, sizeof out);
  tap_ok(rc != 0, "a file compiled with algos/ include flags that includes <simgrid/actor.h> fails to build (exit %d)", rc);
  tap_ok(strstr(out, "algos/ must not include simgrid/actor.h") != NULL, "with a message that says why");
  snprintf(cmd, sizeof cmd,
           "grep -rlE '#include[[:space:]]*[<\"](simgrid/|mpi\\.h|cuda|nccl\\.h)' %s/algos --include='*.c' "
           "--include='*.h' 1>&2",
           HS_SOURCE_DIR);
  rc = hs_test_command(cmd, out, sizeof out);
  tap_ok(rc == 1 && out[0] == '\0', "no algos/ source includes a backend header %s", out);
  /* comm/ is what backends share: it stands on kernels/ and the scenario
   * structs only, never on the algorithms or the other rooms. */
  snprintf(cmd, sizeof cmd,
           "grep -rnE '#include[[:space:]]*\"algos/' %s/algos/comm | grep -v '\"algos/comm/' 1>&2", HS_SOURCE_DIR);
  rc = hs_test_command(cmd, out, sizeof out);
  tap_ok(rc == 1 && out[0] == '\0', "algos/comm/ includes nothing from the rest of algos/ %s", out);
  return tap_done(0);
}
