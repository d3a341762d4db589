/* test_validate.c — scripts/validate --smoke: three published collective
 * cases and one end-to-end training case run as scenarios and print a row
 * each with a finite prediction and its error (correctness only; whether
 * the targets are met is the script's full run, docs/validation.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "tests/tap.h"

/* The text after the k-th '|' from s, or "" when there are fewer. */
static const char *after_bars(const char *s, int k) {
  for (; s && k > 0; k--) s = strchr(s, '|') ? strchr(s, '|') + 1 : NULL;
  return s ? s : "";
}

int main(void) {
  static char out[1 << 16];
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "HEARSAY_BIN=%s timeout -k 5 600 %s/scripts/validate --smoke 2>&1", HEARSAY_BIN,
           HS_SOURCE_DIR);
  int rc = hs_test_output(cmd, out, sizeof out);
  tap_ok(rc == 0, "scripts/validate --smoke exits 0 (%d)", rc);
  static const char *const cases[] = {"dgx-a100-1node-allreduce", "a100-3nodes-4hdr", "2nodes-tcp-25g-8B-broadcast",
                                      "horovod-16-rdma-resnet101"};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *row = strstr(out, cases[i]);
    double predicted = 0, published = 0;
    char unit[16] = "";
    /* | case | what | published | predicted | ... */
    int ok = row && sscanf(after_bars(row, 2), " %lf %15s | %lf", &published, unit, &predicted) == 3;
    tap_ok(ok && predicted > 0 && predicted < 1e9, "%s: published %g %s, predicted %g", cases[i], published, unit,
           predicted);
  }
  /* the end-to-end row also names the efficiency one GPU was calibrated to:
   * | case | what | published | predicted | error | target | verdict | efficiency | */
  const char *row = strstr(out, "horovod-16-rdma-resnet101");
  double eff = 0;
  int read = row && sscanf(after_bars(row, 7), " %lf", &eff) == 1;
  tap_ok(read && eff > 0 && eff <= 4,
         "the end-to-end row's gpu.efficiency, set from the published single-GPU throughput: %g", eff);
  tap_ok(strstr(out, "checks met") != NULL && strstr(out, "end-to-end cases within their target") != NULL,
         "the summary lines print");
  if (rc) tap_diag("%s", out);
  return tap_done(0);
}
