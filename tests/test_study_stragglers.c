/* test_study_stragglers.c — scripts/study-stragglers --smoke end to end
 * (2 x 4 GPUs, a few iterations): every algorithm x severity ran, both
 * tables have a row per algorithm and a column per severity, the synchronous
 * allreduce loses throughput to a 5x GPU (it waits for it every iteration:
 * the ratio is far below 1), and the plot has one line per algorithm and
 * panel. The study's numbers themselves are in docs/stragglers.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "tests/tap.h"

int main(void) {
  static char md[16384], svg[1 << 16];
  char out[600], cmd[2048], err[4096], file[700];
  snprintf(out, sizeof out, "%s/study", hs_test_tmpdir());
  setenv("HEARSAY_BIN", HEARSAY_BIN, 1);
  snprintf(cmd, sizeof cmd, "timeout -k 5 300 %s/scripts/study-stragglers --smoke --jobs 2 --out %s >/dev/null",
           HS_SOURCE_DIR, out);
  int rc = hs_test_command(cmd, err, sizeof err);
  tap_ok(rc == 0, "study-stragglers --smoke exits 0 (%d): every simulation ran %s", rc, rc ? err : "");
  snprintf(file, sizeof file, "%s/study.md", out);
  hs_test_slurp(file, md, sizeof md);
  static const char *const algorithms[] = {"gradient_allreduce", "decentralized shift_one", "async_model_average",
                                           "adpsgd", "local_sgd H=4", "parameter_server async"};
  int rows = 0;
  for (int i = 0; i < 6; i++) {
    char row[64];
    snprintf(row, sizeof row, "| %s |", algorithms[i]);
    rows += hs_test_count(md, row);
  }
  tap_ok(rows == 12 && hs_test_count(md, "| algorithm | none | one GPU 2x | one GPU 5x | lognormal σ=0.5, all |") == 2 &&
             !strstr(md, "error"),
         "study.md: two tables, a row per algorithm (%d of 12) and a column per severity, no error", rows);
  /* gradient_allreduce's throughput with a 5x GPU, relative to none: the
   * fourth cell of its first row, "(0.xx)". A synchronous allreduce runs at
   * the straggler's pace, so it is well under 0.5 (about 0.2). */
  const char *row = strstr(md, "| gradient_allreduce |");
  double ratio = 1;
  if (row) {
    const char *cell = row;
    for (int k = 0; k < 3 && cell; k++) cell = strchr(cell + 1, '|'); /* past name, none, 2x */
    const char *paren = cell ? strchr(cell, '(') : NULL;
    if (paren) ratio = strtod(paren + 1, NULL);
  }
  tap_ok(ratio < 0.5, "gradient_allreduce keeps %.2f of its throughput with one GPU 5x slower (< 0.5: it waits for "
         "it every iteration)", ratio);
  snprintf(file, sizeof file, "%s/study.svg", out);
  hs_test_slurp(file, svg, sizeof svg);
  tap_ok(hs_test_count(svg, "<polyline") == 12 && strstr(svg, "</svg>"),
         "study.svg: throughput and time-to-accuracy lines for the 6 algorithms (%d lines)", hs_test_count(svg, "<polyline"));
  return tap_done(0);
}
