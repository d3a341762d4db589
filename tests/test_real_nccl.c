/* test_real_nccl.c — hearsay-real's NCCL transport against its MPI
 * transport, where a GPU is visible and the build has NCCL (a TAP skip
 * elsewhere, as test_kernels_cuda is).
 *
 * The two transports run the same lowering (real.lowering = "hearsay") and
 * the NCCL transport's reductions are the C reference's CUDA twins, bit for
 * bit (test_kernels_cuda), so a run's losses, evaluations and bytes sent
 * must be the MPI transport's exactly: any difference is a staging or
 * ordering bug in real/nccl_backend.c, not rounding.
 *  - every algorithm that runs on the ranks at hand, numeric (softmax);
 *  - a timing-only profile (device scratch, no data): runs to the end,
 *    bytes as MPI's;
 *  - `hearsay-real collective --op all` over NCCL prints nccl-tests' table
 *    for every operation and size;
 *  - with fewer GPUs than ranks, transport = "nccl" is refused (exit 2,
 *    the reason on stderr) and "auto" falls back to MPI.
 * Ranks: as many as GPUs, at most 4; one GPU gives one rank, where the
 * algorithms that need two (decentralized's shift_one, a parameter server
 * and its worker) are left out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "real/nccl_backend.h"
#include "tests/harness.h"
#include "tests/run_csv.h"
#include "tests/tap.h"

#define CHECKS_PLANNED 84 /* the skip's count: what one GPU runs */

static const char *scenario_fmt =
    "cluster { nodes = 1, gpus_per_node = %d, gpu = { flops = \"1GF\" }, inter = { bandwidth = \"10Gbps\" } }\n"
    "workload { model = \"softmax\", dataset = { classes = 10, features = 32, samples = 4000 },\n"
    "           batch = 16, lr = 0.05, momentum = 0.9 }\n"
    "algorithm { name = \"%s\" %s }\n"
    "run { iterations = 20, seed = 8, eval_every = 10 }\n"
    "real { lowering = \"hearsay\" }\n";

/* Columns that must agree exactly; "time_s" and the like are wall clock. */
static const char *const exact_cols[] = {"loss", "test_loss", "accuracy", "bytes_sent", "workers"};

static int same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

static void compare_runs(const char *what, const hs_csv_run *mpi, const hs_csv_run *nccl) {
  int ran = mpi->rc == 0 && nccl->rc == 0 && mpi->rows > 0 && mpi->rows == nccl->rows;
  tap_ok(ran, "%s: both transports run to the end (mpi exit %d, %d rows; nccl exit %d, %d rows)%s%.300s", what,
         mpi->rc, mpi->rows, nccl->rc, nccl->rows, nccl->rc ? ": " : "", nccl->rc ? nccl->err : "");
  for (size_t c = 0; c < sizeof exact_cols / sizeof *exact_cols; c++) {
    /* a column missing from both would compare NAN with NAN */
    int present = 0;
    for (int h = 0; h < nccl->cols; h++) present |= strcmp(nccl->header[h], exact_cols[c]) == 0;
    int differ = present ? -1 : 0;
    for (int i = 0; ran && i < mpi->rows && differ < 0; i++)
      if (!same(hs_csv(mpi, i, exact_cols[c]), hs_csv(nccl, i, exact_cols[c]))) differ = i;
    tap_ok(ran && differ < 0, "%s: %s equal on every row%s", what, exact_cols[c], present ? "" : " (no such column)");
    if (differ >= 0)
      tap_diag("row %d: mpi %.17g, nccl %.17g", differ, hs_csv(mpi, differ, exact_cols[c]),
               hs_csv(nccl, differ, exact_cols[c]));
  }
}

static void algorithms(int ranks) {
  for (const hs_algorithm_desc *const *d = hs_algorithm_list(); *d; d++) {
    const char *name = (*d)->name, *options = "";
    if (ranks < 2 && (strcmp(name, "parameter_server") == 0 || strcmp(name, "decentralized") == 0)) continue;
    if (strcmp(name, "parameter_server") == 0) continue; /* its server is a rank without a GPU's work */
    if (strcmp(name, "async_model_average") == 0) options = ", sync_interval = \"2ms\"";
    if (strcmp(name, "qadam") == 0 || strcmp(name, "onebit_adam") == 0) options = ", warmup_steps = 5";
    /* asynchronous algorithms follow wall-clock timing on several ranks */
    if ((*d)->asynchronous && ranks > 1) continue;
    char lua[2048], what[128];
    snprintf(lua, sizeof lua, scenario_fmt, ranks, name, options);
    static hs_csv_run mpi, nccl;
    hs_csv_run_real(name, lua, ranks, "--set real.transport=mpi", &mpi);
    hs_csv_run_real(name, lua, ranks, "--set real.transport=nccl", &nccl);
    snprintf(what, sizeof what, "%s on %d rank%s", name, ranks, ranks > 1 ? "s" : "");
    compare_runs(what, &mpi, &nccl);
  }
}

static void timing_only(int ranks) {
  char sets[256];
  snprintf(sets, sizeof sets,
           "--set cluster.nodes=1 --set cluster.gpus_per_node=%d --set run.iterations=3 --set real.emulate=false", ranks);
  char lua[4096];
  size_t n = hs_test_slurp(HS_SOURCE_DIR "/scenarios/resnet50-16x8.lua", lua, sizeof lua);
  tap_ok(n > 0, "resnet50-16x8.lua read");
  static hs_csv_run mpi, nccl;
  char args[512];
  snprintf(args, sizeof args, "%s --set real.transport=mpi", sets);
  hs_csv_run_real("resnet50-timing", lua, ranks, args, &mpi);
  snprintf(args, sizeof args, "%s --set real.transport=nccl", sets);
  hs_csv_run_real("resnet50-timing", lua, ranks, args, &nccl);
  int ran = mpi.rc == 0 && nccl.rc == 0 && nccl.rows == 3 && mpi.rows == 3;
  tap_ok(ran, "ResNet-50 timing-only: both transports run 3 iterations (nccl exit %d, %d rows)%s%.300s", nccl.rc,
         nccl.rows, nccl.rc ? ": " : "", nccl.rc ? nccl.err : "");
  int bytes_same = ran;
  for (int i = 0; ran && i < 3; i++) bytes_same &= same(hs_csv(&mpi, i, "bytes_sent"), hs_csv(&nccl, i, "bytes_sent"));
  tap_ok(bytes_same, "ResNet-50 timing-only: bytes sent as the MPI transport's");
  double wall = ran ? hs_csv(&nccl, 2, "iter_time_s") : 0;
  tap_ok(ran && wall > 0, "ResNet-50 timing-only on NCCL: wall-clock iteration time %.3g s > 0", wall);
}

static void collective_table(int ranks) {
  char lua_path[700], cmd[2048], out[1 << 16];
  snprintf(lua_path, sizeof lua_path, "%s/collective.lua", hs_test_tmpdir());
  FILE *f = fopen(lua_path, "w");
  fprintf(f, scenario_fmt, ranks, "gradient_allreduce", "");
  fclose(f);
  snprintf(cmd, sizeof cmd, "timeout -k 5 300 %s %s collective %s --set real.transport=nccl --op all "
           "--bytes 16:1MiB --factor 4 --iters 5 2>&1",
           hs_test_mpirun(ranks), HEARSAY_REAL_BIN, lua_path);
  int rc = hs_test_output(cmd, out, sizeof out);
  tap_ok(rc == 0, "hearsay-real collective --op all over NCCL: exit %d", rc);
  const char *ops[] = {"all_reduce_perf", "reduce_scatter_perf", "all_gather_perf", "broadcast_perf",
                       "reduce_perf",     "alltoall_perf",       "sendrecv_perf"};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
    /* each operation's table ends with nccl-tests' closing line once every
     * size from 8 B to 1 MiB has been timed on the transport */
    char needle[64];
    snprintf(needle, sizeof needle, "# Collective test concluded: %s", ops[i]);
    tap_ok(strstr(out, needle) != NULL, "collective table for %s concluded", ops[i]);
  }
  /* rows start with the size right-aligned in 12 columns */
  tap_ok(hs_test_count(out, "     1048576  ") == 7, "every operation has its 1 MiB row (%d)",
         hs_test_count(out, "     1048576  "));
  tap_ok(strstr(out, "NCCL transport") != NULL, "the table says it was timed over NCCL");
  tap_ok(hs_test_count(out, "#  Rank ") == 7 * ranks, "a rank line per rank and operation, naming its device (%d)",
         hs_test_count(out, "#  Rank "));
}

static void refusal(int gpus) {
  char lua[1024];
  snprintf(lua, sizeof lua, scenario_fmt, gpus + 1, "gradient_allreduce", "");
  static hs_csv_run r;
  hs_csv_run_real("nccl-refused", lua, gpus + 1, "--set real.transport=nccl", &r);
  tap_ok(r.rc == 2, "%d ranks on %d GPU%s, transport nccl: refused with exit 2 (got %d)", gpus + 1, gpus,
         gpus > 1 ? "s" : "", r.rc);
  tap_ok(strstr(r.err, "NCCL needs one GPU per rank") != NULL, "the refusal says why");
  hs_csv_run_real("nccl-auto", lua, gpus + 1, "--set real.transport=auto", &r);
  tap_ok(r.rc == 0 && r.rows == 20, "transport auto falls back to MPI there (exit %d, %d rows)", r.rc, r.rows);
}

int main(void) {
  int gpus = hs_nccl_built() ? hs_nccl_gpus() : 0;
  if (gpus < 1) {
    tap_skip(CHECKS_PLANNED, hs_nccl_built() ? "no CUDA GPU visible" : "built without CUDA and NCCL");
    return tap_done(0);
  }
  int ranks = gpus > 4 ? 4 : gpus;
  tap_diag("%d GPU%s visible: %d rank%s", gpus, gpus > 1 ? "s" : "", ranks, ranks > 1 ? "s" : "");
  algorithms(ranks);
  timing_only(ranks);
  collective_table(ranks);
  if (gpus <= 4) refusal(gpus);
  return tap_done(0);
}
