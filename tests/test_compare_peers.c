/* test_compare_peers.c — scripts/compare-peers end to end on a small
 * cluster: two built-in schemes and one Lua file give one table row each
 * (with the same number of iterations and a finite loss) and an SVG plot
 * with one curve per scheme and panel; a broken scheme file makes it exit 2
 * with the scheme's message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "tests/tap.h"

static const char *scenario =
    "cluster { nodes = 2, gpus_per_node = 4, gpu = { flops = \"1GF\" }, inter = { bandwidth = \"10Gbps\" } }\n"
    "workload { model = \"softmax\", dataset = { classes = 4, features = 8, samples = 2000 }, batch = 8,\n"
    "           init_noise = 0.5 }\n"
    "algorithm { name = \"decentralized\" }\n"
    "run { iterations = 30, seed = 2 }\n";

int main(void) {
  char path[512], bad[512], out[512], cmd[4096], err[4096], md[8192], svg[1 << 16], file[700];
  snprintf(path, sizeof path, "%s/small.lua", hs_test_tmpdir());
  snprintf(bad, sizeof bad, "%s/bad.lua", hs_test_tmpdir());
  snprintf(out, sizeof out, "%s/cmp", hs_test_tmpdir());
  FILE *f = fopen(path, "w");
  fputs(scenario, f);
  fclose(f);
  f = fopen(bad, "w");
  fputs("return function(rank, n, step) return { rank + 100 } end\n", f);
  fclose(f);
  setenv("HEARSAY_BIN", HEARSAY_BIN, 1);
  snprintf(cmd, sizeof cmd, "timeout -k 5 120 %s/scripts/compare-peers %s ring exp2_one_peer %s/scenarios/peers/torus2d.lua "
           "--out %s", HS_SOURCE_DIR, path, HS_SOURCE_DIR, out);
  int rc = hs_test_command(cmd, err, sizeof err);
  tap_ok(rc == 0, "compare-peers with ring, exp2_one_peer and torus2d.lua exits 0 (%d) %s", rc, err);
  snprintf(file, sizeof file, "%s/compare.md", out);
  hs_test_slurp(file, md, sizeof md);
  tap_ok(strstr(md, "| ring |") && strstr(md, "| exp2_one_peer |") && strstr(md, "| torus2d (lua) |") &&
             strstr(md, "30 iterations, 8 ranks") && !strstr(md, "nan"),
         "compare.md has one row per scheme, the run's size, and no missing figure");
  snprintf(file, sizeof file, "%s/compare.svg", out);
  hs_test_slurp(file, svg, sizeof svg);
  tap_ok(hs_test_count(svg, "<polyline") == 6 && strstr(svg, "</svg>"), "compare.svg draws loss and consensus for each of "
         "the 3 schemes (%d curves)", hs_test_count(svg, "<polyline"));
  snprintf(cmd, sizeof cmd, "timeout -k 5 120 %s/scripts/compare-peers %s ring %s --out %s-bad", HS_SOURCE_DIR, path,
           bad, out);
  rc = hs_test_command(cmd, err, sizeof err);
  tap_ok(rc == 2 && strstr(err, "outside 0..7"), "a broken scheme file: exit %d (2) with its message", rc);
  return tap_done(0);
}
