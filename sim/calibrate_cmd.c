/* calibrate_cmd.c — `hearsay calibrate NCCL_TESTS_OUTPUT... --scenario S`.
 *
 * Reads nccl-tests output measured on a cluster (nccltests.h), fits the
 * link and transport parameters of the scenario's machine to it
 * (calibrate_fit.h), writes the machine with the fitted values as a system
 * file (system_file.h), and prints, per run and size, the measured time
 * beside what hearsay simulates with the scenario's values and with the
 * fitted file: the residuals a user judges the fit by.
 *
 * Bad input (an unreadable or foreign file, a bad scenario or --set) is
 * reported and exits 2 before anything is written. The file is written
 * under a temporary name, loaded back with the scenario (so that the
 * residuals are what the scenario gets from it), and renamed into place
 * only when every simulation ran. */
#define _DEFAULT_SOURCE /* realpath */
#include "sim/calibrate_cmd.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenarios/loader.h"
#include "scenarios/units.h"
#include "sim/calibrate_fit.h"
#include "sim/collective_cmd.h"
#include "sim/platform.h"
#include "sim/system_file.h"

enum { MAX_RUNS = 64, MAX_SETS = 256 };
/* Fits on the tuner corrected by the simulation (calibrate_fit.h): the
 * first is the tuner's alone; two more have sufficed on every case tried. */
enum { FIT_ROUNDS = 4 };

typedef struct {
  const char *scenario, *out, *name;
  const char *files[MAX_RUNS];
  int n_files;
  const char *sets[MAX_SETS];
  int n_sets;
  int quiet;
  int check; /* --check: the scenario's residuals only, nothing fitted or written */
} options;

static void usage(FILE *f) {
  fputs("usage: hearsay calibrate NCCL_TESTS_OUTPUT[@NODESxGPUS]... --scenario S [--set k=v]... [--out FILE.lua] [--name NAME]\n"
        "                         [--check] [--quiet]\n"
        "Fits the scenario's link and transport parameters (intra/inter efficiency and latency, a TCP\n"
        "message's cost, what a socket thread moves, and a kernel launch's cost where a thread drove\n"
        "several GPUs, nccl-tests -g) to what nccl-tests measured, writes the machine\n"
        "as a system file (default calibrated.lua) and prints the measured time per size beside the\n"
        "simulated one, before and after the fit. FILE@2x8 gives 2 nodes of 8 GPUs for output printed\n"
        "without its rank lines.\n"
        "docs/fidelity.md, \"Calibrating from nccl-tests\".\n",
        f);
}

static int parse(int argc, char **argv, options *o) {
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0) {
      usage(stdout);
      return 1;
    } else if (strcmp(a, "--scenario") == 0 && i + 1 < argc) {
      o->scenario = argv[++i];
    } else if (strcmp(a, "--out") == 0 && i + 1 < argc) {
      o->out = argv[++i];
    } else if (strcmp(a, "--name") == 0 && i + 1 < argc) {
      o->name = argv[++i];
    } else if (strcmp(a, "--set") == 0 && i + 1 < argc) {
      if (o->n_sets == MAX_SETS - 3) {
        fprintf(stderr, "hearsay calibrate: too many --set (max %d)\n", MAX_SETS - 3);
        return 2;
      }
      o->sets[o->n_sets++] = argv[++i];
    } else if (strcmp(a, "--quiet") == 0) {
      o->quiet = 1;
    } else if (strcmp(a, "--check") == 0) {
      o->check = 1;
    } else if (a[0] == '-') {
      fprintf(stderr, "hearsay calibrate: unexpected argument '%s'\n", a);
      usage(stderr);
      return 2;
    } else {
      if (o->n_files == MAX_RUNS) {
        fprintf(stderr, "hearsay calibrate: more than %d nccl-tests outputs\n", MAX_RUNS);
        return 2;
      }
      o->files[o->n_files++] = a;
    }
  }
  if (!o->n_files || !o->scenario) {
    fprintf(stderr, "hearsay calibrate: %s\n", !o->n_files ? "which nccl-tests outputs? (all_reduce_perf's, ...)"
                                                           : "which scenario? --scenario S gives the machine to fit");
    usage(stderr);
    return 2;
  }
  size_t k = strlen(o->out);
  if (k < 5 || strcmp(o->out + k - 4, ".lua") != 0) {
    fprintf(stderr, "hearsay calibrate: --out %s: a system file's name ends in .lua\n", o->out);
    return 2;
  }
  return 0;
}

/* "FILE@NODESxGPUS": the file, and the layout given for output printed
 * without rank lines; else the argument is the file. */
static void layout_of(const char *arg, char *path, size_t len, int *nodes, int *gpn) {
  const char *at = strrchr(arg, '@');
  int a = 0, b = 0, used = 0;
  if (at && sscanf(at + 1, "%dx%d%n", &a, &b, &used) == 2 && at[1 + used] == '\0' && a >= 1 && b >= 1 &&
      a <= HS_NODES_MAX && b <= HS_GPUS_PER_NODE_MAX) {
    snprintf(path, len, "%.*s", (int)(at - arg), arg);
    *nodes = a, *gpn = b;
  } else {
    snprintf(path, len, "%s", arg);
  }
}

/* The scenario on a run's nodes and GPUs, with `extra` --sets after the user's. */
static int load_case(const options *o, const hs_nccltests_run *r, const char *extra, hs_scenario *sc) {
  char nodes[64], gpn[64];
  snprintf(nodes, sizeof nodes, "cluster.nodes=%d", r->nodes);
  snprintf(gpn, sizeof gpn, "cluster.gpus_per_node=%d", r->gpus_per_node);
  const char *sets[MAX_SETS];
  int n = 0;
  if (extra) sets[n++] = extra;
  for (int i = 0; i < o->n_sets; i++) sets[n++] = o->sets[i];
  sets[n++] = nodes;
  sets[n++] = gpn;
  return hs_scenario_load(o->scenario, sets, n, sc);
}

/* Every row of a run, simulated, as nccl-tests would time it on the
 * run's threads (its -g: hs_nccltests_iteration); the collectives' own
 * times into `raw` where not NULL. Seconds. 0, or -1 when one failed. */
static int simulate_run(const hs_scenario *sc, const hs_nccltests_run *r, double *t, double *raw) {
  char platform[HS_PLATFORM_TEMP_LEN];
  if (hs_platform_write_temp(&sc->cluster, "hearsay calibrate", platform)) return -1;
  int rc = 0;
  for (int i = 0; i < r->n_rows && rc == 0; i++) {
    if (hs_collective_simulate(sc, platform, r->kind, r->rows[i].bytes, &t[i])) {
      /* fewer bytes than shares: nccl-tests times them (each rank sends
       * nothing), hearsay's sweep skips them */
      t[i] = NAN;
    }
    if (raw) raw[i] = t[i];
    if (!isnan(t[i]))
      t[i] = hs_nccltests_iteration(t[i], hs_nccltests_launching_gpus(r), sc->cluster.gpu_launch_overhead);
  }
  hs_platform_temp_release(platform);
  return rc;
}

typedef struct {
  double median, worst, worst_bytes;
} error_summary;

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* |simulated / measured - 1| over a run's rows: median and worst. */
static error_summary summarise(const hs_nccltests_run *r, const double *t) {
  double *e = malloc((size_t)r->n_rows * sizeof *e);
  error_summary s = {0, 0, 0};
  int n = 0;
  for (int i = 0; i < r->n_rows; i++) {
    if (isnan(t[i])) continue;
    double x = fabs(t[i] / (r->rows[i].time_us * 1e-6) - 1);
    if (x > s.worst) s.worst = x, s.worst_bytes = r->rows[i].bytes;
    e[n++] = x;
  }
  qsort(e, (size_t)n, sizeof *e, by_value);
  if (n) s.median = n % 2 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2;
  free(e);
  return s;
}

/* The fit's objective on simulated times: the mean over runs of the mean
 * over rows of the penalty of ln(simulated / measured). */
static double simulated_loss(const hs_nccltests_run *runs, double *const *t, int n) {
  double sum = 0;
  for (int i = 0; i < n; i++) {
    double s = 0;
    int rows = 0;
    for (int r = 0; r < runs[i].n_rows; r++) {
      if (isnan(t[i][r])) continue;
      double e = log(t[i][r] / (runs[i].rows[r].time_us * 1e-6));
      s += hs_calib_penalty(e), rows++;
    }
    sum += rows ? s / rows : 0;
  }
  return n ? sum / n : 0;
}

static const char *where(const hs_nccltests_run *r) {
  static char buf[160];
  int g = r->gpus_per_thread;
  snprintf(buf, sizeof buf, "%d ranks on %d node%s", r->ranks, r->nodes, r->nodes == 1 ? "" : "s");
  if (g > 1) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ", %d GPUs a thread", g);
  if (r->graph > 0) snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ", CUDA graphs of %d", r->graph);
  return buf;
}

static void format_value(const hs_calib_result *p, double v, char *buf, size_t len) {
  if (strstr(p->key, "latency") || strstr(p->key, "message_cost") || strstr(p->key, "launch"))
    hs_format_time(v, buf, len);
  else if (strstr(p->key, "bandwidth")) hs_format_bandwidth(v, buf, len);
  else snprintf(buf, len, "%.4g", v);
}

/* Writes the system file to path; 0 or -1. */
static int write_system(const char *path, const hs_cluster_spec *c, const options *o, const hs_nccltests_run *runs,
                        const hs_calib_result *res, char **header, int n_header) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  const char *sources[MAX_RUNS + 1];
  char buf[MAX_RUNS + 1][512];
  snprintf(buf[0], sizeof buf[0], "line rates and everything not fitted: scenario %s%s%s", o->scenario,
           c->system[0] ? ", system " : "", c->system);
  sources[0] = buf[0];
  for (int i = 0; i < o->n_files; i++) {
    snprintf(buf[i + 1], sizeof buf[i + 1], "fitted to nccl-tests output %s: %s, %s%s%s", runs[i].path, runs[i].name,
             where(&runs[i]), runs[i].device[0] ? ", " : "", runs[i].device);
    sources[i + 1] = buf[i + 1];
  }
  const char *keys[HS_CALIB_PARAMS], *marks[HS_CALIB_PARAMS];
  char mark[HS_CALIB_PARAMS][96];
  int n_marked = 0;
  for (int p = 0; p < HS_CALIB_PARAMS; p++) {
    if (res[p].status != HS_CALIB_FITTED) continue;
    char before[32];
    format_value(&res[p], res[p].before, before, sizeof before);
    snprintf(mark[n_marked], sizeof mark[0], "fitted (was %s)", before);
    keys[n_marked] = res[p].key + strlen("cluster.");
    marks[n_marked] = mark[n_marked];
    n_marked++;
  }
  char description[256];
  snprintf(description, sizeof description, "%s, calibrated by hearsay calibrate from %d nccl-tests run%s",
           c->system[0] ? c->system : "the scenario's machine", o->n_files, o->n_files == 1 ? "" : "s");
  hs_system_file s = {o->name, description, (const char *const *)header, n_header, sources, o->n_files + 1,
                      keys, marks, n_marked};
  int rc = hs_system_file_write(f, c, &s);
  return (fclose(f) || rc) ? -1 : 0;
}

/* --check: the scenario's simulated time against the measured, per size. */
static void print_check(const hs_nccltests_run *r, const double *t) {
  error_summary e = summarise(r, t);
  printf("\n# %s, %s: %s\n#   |error| median %.1f%%, worst %.1f%% at %.0f B\n", r->name, where(r), r->path,
         100 * e.median, 100 * e.worst, e.worst_bytes);
  printf("#%13s %13s %13s %8s %12s %12s\n", "size(B)", "measured(us)", "simulated(us)", "error", "busbw(meas)",
         "busbw(sim)");
  for (int i = 0; i < r->n_rows; i++) {
    const hs_nccltests_row *w = &r->rows[i];
    if (isnan(t[i])) {
      printf(" %13.0f %13.2f  (fewer bytes than ranks: not simulated)\n", w->bytes, w->time_us);
      continue;
    }
    printf(" %13.0f %13.2f %13.2f %+7.1f%% %12.2f %12.2f\n", w->bytes, w->time_us, t[i] * 1e6,
           100 * (t[i] / (w->time_us * 1e-6) - 1), w->busbw, w->busbw * (w->time_us * 1e-6) / t[i]);
  }
}

static void print_residuals(const hs_nccltests_run *r, const double *before, const double *after) {
  printf("\n# %s, %s: %s\n", r->name, where(r), r->path);
  printf("#%13s %13s %12s %8s %12s %8s %12s %12s\n", "size(B)", "measured(us)", "before(us)", "error", "fitted(us)",
         "error", "busbw(meas)", "busbw(fit)");
  for (int i = 0; i < r->n_rows; i++) {
    const hs_nccltests_row *w = &r->rows[i];
    if (isnan(after[i])) {
      printf(" %13.0f %13.2f  (fewer bytes than ranks: not simulated)\n", w->bytes, w->time_us);
      continue;
    }
    double sim_busbw = w->busbw * (w->time_us * 1e-6) / after[i];
    printf(" %13.0f %13.2f %12.2f %+7.1f%% %12.2f %+7.1f%% %12.2f %12.2f\n", w->bytes, w->time_us, before[i] * 1e6,
           100 * (before[i] / (w->time_us * 1e-6) - 1), after[i] * 1e6, 100 * (after[i] / (w->time_us * 1e-6) - 1),
           w->busbw, sim_busbw);
  }
}

int hs_cmd_calibrate(int argc, char **argv) {
  options o = {.out = "calibrated.lua"};
  int rc = parse(argc, argv, &o);
  if (rc) return rc == 1 ? 0 : rc;
  char name[HS_NAME_MAX];
  if (!o.name) { /* the file's stem */
    const char *base = strrchr(o.out, '/');
    base = base ? base + 1 : o.out;
    snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - 4), base);
    o.name = name;
  }

  hs_nccltests_run runs[MAX_RUNS];
  int n = 0;
  for (; n < o.n_files; n++) {
    char err[1024], path[4096];
    int nodes = 0, gpn = 0;
    layout_of(o.files[n], path, sizeof path, &nodes, &gpn);
    if (hs_nccltests_read(path, nodes, gpn, &runs[n], err, sizeof err)) {
      fprintf(stderr, "%s\n", err);
      rc = 2;
      break;
    }
  }
  hs_scenario base, plain[MAX_RUNS], fitted[MAX_RUNS];
  int n_plain = 0, n_fitted = 0, have_base = 0;
  if (!rc) {
    rc = hs_scenario_load(o.scenario, o.sets, o.n_sets, &base);
    have_base = rc == 0;
    /* nccl-tests measures NCCL: a fit through Gloo's costs would hold
     * nothing of the cluster */
    if (!rc && base.sim.library == HS_LIBRARY_GLOO) {
      fprintf(stderr, "hearsay calibrate: %s: sim.library: the scenario runs Gloo, and nccl-tests measures NCCL: "
                      "calibrate with sim.library = \"nccl\" (--set sim.library=nccl)\n", o.scenario);
      rc = 2;
    }
  }
  for (; !rc && n_plain < n; n_plain++)
    if ((rc = load_case(&o, &runs[n_plain], NULL, &plain[n_plain]))) break;

  double *before[MAX_RUNS] = {0}, *after[MAX_RUNS] = {0};
  hs_calib_result res[HS_CALIB_PARAMS];
  char tmp[PATH_MAX + 32] = "", system_set[PATH_MAX + 64];
  double loss_before = 0, loss_after = 0;
  if (!rc) {
    if (!o.quiet)
      printf("hearsay calibrate: %d run%s on %s%s%s\n", n, n == 1 ? "" : "s", o.scenario,
             base.cluster.system[0] ? ", system " : "", base.cluster.system);
    for (int i = 0; i < n && !o.quiet; i++)
      printf("  %s: %s, %s%s%s, %d sizes\n", runs[i].path, runs[i].name, where(&runs[i]),
             runs[i].device[0] ? ", " : "", runs[i].device, runs[i].n_rows);
    for (int i = 0; i < n && !rc; i++) {
      before[i] = malloc((size_t)runs[i].n_rows * sizeof **before);
      if (simulate_run(&plain[i], &runs[i], before[i], NULL)) rc = 1;
    }
    for (int i = 0; i < n && !rc && o.check && !o.quiet; i++) print_check(&runs[i], before[i]);
  }
  if (!rc && !o.check) {
    /* The fit on the tuner's closed forms, then again with each row's
     * prediction scaled by what the simulation gave at the last fit, until
     * the simulated error stops falling; the best simulated fit is kept. */
    hs_calib_case cases[MAX_RUNS];
    double *corr[MAX_RUNS], *sim[MAX_RUNS], *raw[MAX_RUNS], best = INFINITY, kept[HS_CALIB_PARAMS];
    hs_calib_result first[HS_CALIB_PARAMS], best_res[HS_CALIB_PARAMS];
    for (int i = 0; i < n; i++) {
      corr[i] = malloc((size_t)runs[i].n_rows * sizeof **corr);
      sim[i] = malloc((size_t)runs[i].n_rows * sizeof **sim);
      raw[i] = malloc((size_t)runs[i].n_rows * sizeof **raw);
      cases[i] = (hs_calib_case){&runs[i], &plain[i], NULL};
    }
    loss_before = simulated_loss(runs, before, n);
    for (int round_ = 0; round_ < FIT_ROUNDS && !rc; round_++) {
      hs_calib_fit(cases, n, res);
      if (round_ == 0) memcpy(first, res, sizeof res);
      for (int i = 0; i < n && !rc; i++)
        if (simulate_run(&plain[i], &runs[i], sim[i], raw[i])) rc = 1;
      double loss = simulated_loss(runs, sim, n);
      if (loss < best) {
        best = loss;
        memcpy(best_res, res, sizeof res);
        for (int p = 0; p < HS_CALIB_PARAMS; p++) kept[p] = *hs_calib_field(&plain[0], (hs_calib_param)p);
      } else {
        break;
      }
      for (int i = 0; i < n; i++) {
        for (int r = 0; r < runs[i].n_rows; r++) {
          double t = hs_calib_predict(&plain[i], runs[i].kind, runs[i].rows[r].bytes);
          /* the collective's own time against the tuner's: the
           * launches are charged on top, in the fit as here */
          corr[i][r] = isnan(raw[i][r]) || !(t > 0) ? 1 : raw[i][r] / t;
        }
        cases[i].correction = corr[i];
      }
    }
    for (int p = 0; p < HS_CALIB_PARAMS; p++) {
      res[p] = best_res[p];
      res[p].before = first[p].before;
      /* A parameter an earlier round moved (the tuner's closed forms
       * depended on it) but the kept round found no effect of goes back
       * to the scenario's value, as the summary says it is kept. */
      if (res[p].status != HS_CALIB_FITTED) kept[p] = res[p].after = res[p].before;
      for (int i = 0; i < n; i++) *hs_calib_field(&plain[i], (hs_calib_param)p) = kept[p];
    }
    for (int i = 0; i < n; i++) free(corr[i]), free(sim[i]), free(raw[i]);
    for (int p = 0; p < HS_CALIB_PARAMS; p++) *hs_calib_field(&base, (hs_calib_param)p) = res[p].after;
    /* under a temporary name beside the destination, absolute so that
     * the scenario finds it whatever its folder */
    char dir[PATH_MAX];
    const char *slash = strrchr(o.out, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - o.out) : 1, slash ? o.out : ".");
    char absdir[PATH_MAX];
    if (!realpath(dir[0] ? dir : "/", absdir)) {
      fprintf(stderr, "hearsay calibrate: --out %s: %s\n", o.out, strerror(errno));
      rc = 2;
    } else {
      snprintf(tmp, sizeof tmp, "%s/.%s.%ld.tmp.lua", absdir, o.name, (long)getpid());
      if (write_system(tmp, &base.cluster, &o, runs, res, NULL, 0)) {
        fprintf(stderr, "hearsay calibrate: %s: could not be written: %s\n", tmp, strerror(errno));
        rc = 1;
      }
    }
  }
  /* the scenario with the file, as a user will run it */
  snprintf(system_set, sizeof system_set, "cluster.system=%s", tmp);
  for (; !rc && !o.check && n_fitted < n; n_fitted++)
    if ((rc = load_case(&o, &runs[n_fitted], system_set, &fitted[n_fitted]))) break;
  for (int i = 0; i < n && !rc && !o.check; i++) {
    for (int p = 0; p < HS_CALIB_PARAMS; p++)
      if (res[p].status == HS_CALIB_FITTED && i == 0 &&
          fabs(*hs_calib_field(&fitted[i], (hs_calib_param)p) - res[p].after) > 1e-9 * fabs(res[p].after))
        fprintf(stderr, "hearsay calibrate: warning: %s sets %s itself, which overrides the fitted value; the "
                "residuals below are with the scenario's\n", o.scenario, res[p].key);
    after[i] = malloc((size_t)runs[i].n_rows * sizeof **after);
    if (simulate_run(&fitted[i], &runs[i], after[i], NULL)) rc = 1;
  }
  if (!rc && !o.check) {
    /* the objective as the file written gives it (a parameter reset to
     * the scenario's after the fit moves it from the kept round's) */
    loss_after = simulated_loss(runs, after, n);
    /* the fit and the residual summaries, atop the file and on stdout */
    char lines[8 + HS_CALIB_PARAMS + 2 * MAX_RUNS][320];
    int k = 0;
    snprintf(lines[k++], sizeof lines[0], "%s.lua: written by `hearsay calibrate` (docs/fidelity.md, \"Calibrating "
             "from nccl-tests\").", o.name);
    snprintf(lines[k++], sizeof lines[0], "The fit's objective on simulated times: %.4g before, %.4g after (mean "
             "over runs and sizes of soft-L1 of ln(simulated/measured), scale 5%%).", loss_before, loss_after);
    for (int p = 0; p < HS_CALIB_PARAMS; p++) {
      if (p == HS_CALIB_STREAM_BANDWIDTH && base.cluster.transport.kind != HS_NET_TCP) continue; /* no streams */
      char b[32], a[32];
      format_value(&res[p], res[p].before, b, sizeof b);
      format_value(&res[p], res[p].after, a, sizeof a);
      if (res[p].status == HS_CALIB_FITTED)
        snprintf(lines[k++], sizeof lines[0], "  %-30s %10s -> %-10s fitted%s", res[p].key, b, a,
                 res[p].at_bound ? ", at the end of its range: the model cannot follow the data there" : "");
      else
        snprintf(lines[k++], sizeof lines[0], "  %-30s %10s    kept: %s", res[p].key, b,
                 res[p].status == HS_CALIB_NO_DATA
                     ? (p == HS_CALIB_LAUNCH_OVERHEAD ? "no run of several GPUs a thread (nccl-tests -g)"
                        : p <= HS_CALIB_NVLS_EFFICIENCY || p == HS_CALIB_STAGING_BANDWIDTH ? "no run on one node"
                                                                                            : "no run across nodes")
                 : res[p].status == HS_CALIB_HELD
                     ? (p == HS_CALIB_INTRA_EFFICIENCY
                            ? "the node's GPUs have no peer access (intra.p2p = false, or NCCL's P2P level on its "
                              "PCIe tree): its hops are staged in host memory, and host.staging_bandwidth is fitted "
                              "in its place"
                            : "the runs across nodes went through the fabric (sim.collectives = collnet): they fit "
                              "SHARP's share; the NIC's rate comes from ring runs")
                     : "these runs' times do not depend on it");
    }
    snprintf(lines[k++], sizeof lines[0], "Simulated against measured time, |error| per run (median, worst):");
    for (int i = 0; i < n; i++) {
      error_summary b = summarise(&runs[i], before[i]), a = summarise(&runs[i], after[i]);
      snprintf(lines[k++], sizeof lines[0], "  %.160s (%s, %s): before %.1f%%, %.1f%% at %.0f B; fitted %.1f%%, %.1f%% "
               "at %.0f B", runs[i].path, runs[i].name, where(&runs[i]), 100 * b.median, 100 * b.worst,
               b.worst_bytes, 100 * a.median, 100 * a.worst, a.worst_bytes);
    }
    char *header[8 + HS_CALIB_PARAMS + 2 * MAX_RUNS];
    for (int i = 0; i < k; i++) header[i] = lines[i];
    if (write_system(tmp, &base.cluster, &o, runs, res, header, k) || rename(tmp, o.out)) {
      fprintf(stderr, "hearsay calibrate: %s: could not be written: %s\n", o.out, strerror(errno));
      rc = 1;
    } else if (!o.quiet) {
      for (int i = 1; i < k; i++) printf("%s\n", lines[i]);
      char abs[PATH_MAX];
      printf("wrote %s: cluster { system = \"%s\" } or --set cluster.system=%s uses it\n", o.out,
             realpath(o.out, abs) ? abs : o.out, realpath(o.out, abs) ? abs : o.out);
      for (int i = 0; i < n; i++) print_residuals(&runs[i], before[i], after[i]);
    }
  }
  if (tmp[0]) remove(tmp); /* gone already when renamed */
  for (int i = 0; i < n; i++) free(before[i]), free(after[i]), hs_nccltests_free(&runs[i]);
  for (int i = 0; i < n_plain; i++) hs_scenario_free(&plain[i]);
  for (int i = 0; i < n_fitted; i++) hs_scenario_free(&fitted[i]);
  if (have_base) hs_scenario_free(&base);
  return rc;
}
