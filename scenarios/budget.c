/* budget.c — what a scenario will ask of the machine's memory, checked
 * before anything is allocated.
 *
 * A run that needs more memory than the machine has does not fail cleanly:
 * it is killed by the OOM killer, or swaps for hours. The estimate below is
 * an upper bound of the big allocations, each tied to the key that sizes
 * it, so the refusal can name the key to change. docs/scenarios.md
 * ("Memory") states the same figures. */
#include <lua.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "algos/algorithm.h"
#include "scenarios/loader.h"
#include "scenarios/loader_internal.h"
#include "scenarios/units.h"

/* Simulator state per rank: its actor, the stack pages it touches, its
 * mailboxes and requests, its host and links in SimGrid. Measured at
 * 116 KiB per rank at 4096 ranks (scripts/bench-scale, case D, peak RSS);
 * rounded up. */
#define RANK_BYTES (160.0 * 1024)
/* Copies of a numeric replica's parameters a rank may hold: weights,
 * gradients, momentum, and up to five buffers of the algorithms
 * (compression residuals, peers' models, Adam moments, staging). */
#define REPLICA_COPIES 8
/* A trace span (name, rank, start, end). */
#define SPAN_BYTES 64.0

static int ranks_per_process; /* 0: every rank in this process */

void hs_scenario_set_process_ranks(int n) { ranks_per_process = n; }

typedef struct {
  const char *key;
  const char *decl;
  double bytes;
} part;

/* The memory this process may use: the machine's, or less where a cgroup
 * says so (resident memory); and the address space an rlimit allows
 * (virtual memory, where every actor's whole stack counts). 0 if unknown
 * or unlimited. */
static double memory_available(void) {
  double total = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
  FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
  if (f) {
    double v;
    if (fscanf(f, "%lf", &v) == 1 && v > 0 && (total <= 0 || v < total)) total = v;
    fclose(f);
  }
  return total > 0 ? total : 0;
}

static double address_space_available(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) return (double)rl.rlim_cur;
  return 0;
}

/* Of the keys that size one part, the one furthest above its default: the
 * one most likely to have been set too large. */
static const char *largest_of(const hs_workload_spec *w, int dataset) {
  double f = w->features / 64.0, c = w->classes / 10.0, s = w->samples / 20000.0, t = w->test_samples / 2000.0;
  if (!dataset) return f >= c ? "workload.dataset.features" : "workload.dataset.classes";
  if (f >= c && f >= s && f >= t) return "workload.dataset.features";
  if (c >= s && c >= t) return "workload.dataset.classes";
  return s >= t ? "workload.dataset.samples" : "workload.dataset.test_samples";
}

double hs_scenario_memory(const hs_scenario *sc, int ranks_in_process, const char **key, const char **decl,
                          const char **what) {
  const hs_workload_spec *w = &sc->workload;
  double n = ranks_in_process > 0 ? ranks_in_process : hs_scenario_gpus(sc);
  double params = 0;
  for (int l = 0; l < w->n_layers; l++) params += w->layers[l].params;
  part parts[5] = {
      {"cluster.nodes", "cluster", n * RANK_BYTES},
      {largest_of(w, 0), "workload", w->numeric ? n * params * 4 * REPLICA_COPIES : 0},
      {largest_of(w, 1), "workload",
       w->numeric ? ((double)w->samples + (double)w->test_samples) * ((double)w->features * 4 + 12) +
                        (double)hs_scenario_gpus(sc) * w->classes * 8 * 2 + (double)w->classes * w->features * 8
                  : 0},
      /* metrics.c: ~100 bytes per iteration, plus the model sum per iteration of a numeric run */
      {"run.iterations", "run", (double)sc->run.iterations * HS_ASYNC_SLACK * (100 + (w->numeric ? params * 8 : 0))},
      {"run.trace", "run", (double)sc->run.trace * n * (2.0 * w->n_layers + 16) * SPAN_BYTES},
  };
  static const char *const names[] = {"simulator state of the ranks", "model replicas", "data set",
                                      "per-iteration metrics", "trace"};
  int big = 0;
  double sum = 0;
  for (int i = 0; i < 5; i++) {
    sum += parts[i].bytes;
    if (parts[i].bytes > parts[big].bytes) big = i;
  }
  if (key) *key = parts[big].key;
  if (decl) *decl = parts[big].decl;
  if (what) *what = names[big];
  return sum;
}

int hs_budget_check(hs_loader *ld) {
  const hs_scenario *sc = ld->out;
  const char *key, *decl, *what;
  double need = hs_scenario_memory(sc, ranks_per_process, &key, &decl, &what);
  double have = memory_available();
  /* Under ulimit -v, SimGrid maps each actor's whole stack (sim.stack_size)
   * up front: a rank's actor and, at most, its communicator streams' and
   * threads' (counted as one more per rank); the libraries take about
   * 200 MiB of address space. */
  double ranks = ranks_per_process > 0 ? ranks_per_process : hs_scenario_gpus(sc);
  double vneed = need + 2 * ranks * sc->sim.stack_size + 200.0 * 1024 * 1024;
  double vhave = address_space_available();
  if (vhave > 0 && vneed > vhave && (have <= 0 || need <= have)) {
    char need_s[32], have_s[32];
    hs_format_bytes(vneed, need_s, sizeof need_s);
    hs_format_bytes(vhave, have_s, sizeof have_s);
    int line = hs_loader_push_decl(ld, "cluster");
    lua_pop(ld->L, 1);
    return hs_loader_fail(ld, "cluster.nodes", line,
                          "this run needs about %s of address space (up to two %.0f KiB stacks per simulated GPU, "
                          "sim.stack_size) and ulimit -v allows %s (docs/scenarios.md, \"Memory\")",
                          need_s, sc->sim.stack_size / 1024, have_s);
  }
  if (have <= 0 || need <= have) return 0;
  char need_s[32], have_s[32];
  hs_format_bytes(need, need_s, sizeof need_s);
  hs_format_bytes(have, have_s, sizeof have_s);
  int line = hs_loader_push_decl(ld, decl);
  lua_pop(ld->L, 1);
  return hs_loader_fail(ld, key, line,
                        "this run needs about %s of memory, most of it for the %s, and this machine has %s "
                        "(docs/scenarios.md, \"Memory\")",
                        need_s, what, have_s);
}
