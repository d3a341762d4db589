/* peers_cmd.c — `hearsay peers`: validate and characterise a scenario's
 * peer-selection scheme without training.
 *
 * It checks every step (pairing symmetry, ranges, weights), reports the
 * mixing matrices (stochastic or not, so push-sum is needed or not), the
 * spectral rate of consensus next to the decay measured by gossiping random
 * vectors, the degree and bytes per worker, and the simulated time of the
 * first gossip rounds on the scenario's network. Writes peers.json. */
#include "sim/peers_cmd.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/report/outdir.h"
#include "algos/report/report.h"
#include "scenarios/units.h"
#include "sim/guard.h"
#include "sim/peer_analysis.h"
#include "sim/peer_round.h"

int hs_cmd_peers_list(void) {
  const char *names = hs_peer_builtin_names();
  char name[64];
  for (const char *p = names; *p;) {
    size_t k = strcspn(p, ",");
    snprintf(name, sizeof name, "%.*s", (int)k, p);
    printf("%-16s %s\n", name, hs_peer_builtin_summary(name));
    p += k;
    while (*p == ',' || *p == ' ') p++;
  }
  printf("\nEach has a Lua twin in scenarios/peers/NAME.lua to copy as a template;\n"
         "hearsay.scheme(\"NAME\") in a scenario returns it.\n");
  return 0;
}

static double model_bytes(const hs_scenario *sc) {
  double p = 0;
  for (int i = 0; i < sc->workload.n_layers; i++) p += sc->workload.layers[i].params;
  return p * sc->workload.dtype_bytes;
}

static void json_num(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, "%.17g", v);
  else fputs("null", f);
}

/* A JSON string: names come from the scenario (its file name, a Lua
 * scheme's `name`) and may hold quotes or any byte. */
static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20 || c >= 0x80) fprintf(f, "\\u%04x", c); /* bytes as Latin-1: always valid */
    else fputc(c, f);
  }
  fputc('"', f);
}

static int write_json(const char *path, const hs_scenario *sc, const hs_peer_report *r, const hs_peer_rounds *rd,
                      double bytes, double bytes_per_step, bool hier) {
  char tmp[4300];
  snprintf(tmp, sizeof tmp, "%s.partial", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return 1;
  hs_peer_scheme *s = sc->algorithm.peers;
  fputs("{\n  \"scenario\": ", f);
  json_str(f, sc->name);
  fputs(",\n  \"scheme\": ", f);
  json_str(f, s->name);
  fputs(",\n", f);
  fprintf(f, "  \"ranks\": %d,\n  \"level\": \"%s\",\n  \"directed\": %s,\n  \"push_sum\": %s,\n", r->n,
          hier ? "nodes" : "gpus", s->directed ? "true" : "false", s->directed ? "true" : "false");
  fprintf(f, "  \"steps_checked\": %ld,\n  \"checks\": {\"pairing_symmetric\": %s, \"deadlock_free\": true},\n",
          r->steps, s->directed ? "null" : "true");
  fprintf(f, "  \"mixing\": {\"nonnegative\": %s, \"rows_stochastic\": %s, \"doubly_stochastic\": %s, ",
          r->nonnegative ? "true" : "false", r->rows_stochastic ? "true" : "false",
          r->doubly_stochastic ? "true" : "false");
  fprintf(f, "\"row_sum_min\": %.17g, \"row_sum_max\": %.17g, \"column_sum_min\": %.17g, \"column_sum_max\": %.17g},\n",
          r->row_min, r->row_max, r->col_min, r->col_max);
  fprintf(f, "  \"period\": %d,\n  \"product_steps\": %d,\n", r->period, r->product_steps);
  fprintf(f, "  \"spectral\": {\"computed\": %s, \"quantity\": \"%s\", \"rho_product\": ", r->spectral_done ? "true" : "false",
          r->rho_is_sigma ? "sigma_max(P - 11^T/n)" : "|lambda_2(P)|");
  json_num(f, r->spectral_done ? r->rho_product : NAN);
  fputs(", \"rho_per_step\": ", f);
  json_num(f, r->spectral_done ? r->rho_step : NAN);
  fputs(", \"asymptotic_per_step\": ", f);
  json_num(f, r->spectral_done ? r->asymptotic_step : NAN);
  fputs("},\n  \"measured\": {\"rate_per_step\": ", f);
  json_num(f, r->measured_rate);
  fprintf(f, ", \"fit_from\": %ld, \"fit_to\": %ld, \"exact_consensus_step\": %ld, \"error\": [", r->fit_from, r->fit_to,
          r->exact_step);
  for (long t = 0; t <= r->steps; t++) {
    if (t) fputs(", ", f);
    if (isfinite(r->error[t])) fprintf(f, "%.6g", r->error[t]);
    else fputs("null", f);
  }
  fprintf(f, "]},\n  \"degree\": {\"sends_max\": %d, \"receives_max\": %d, \"sends_mean\": %.17g},\n", r->deg_out_max,
          r->deg_in_max, r->deg_out_mean);
  fprintf(f, "  \"bytes\": {\"message\": %.17g, \"per_worker_per_step_mean\": %.17g, \"busiest_nic_messages\": %d},\n",
          bytes, bytes_per_step, r->busiest_nic);
  fprintf(f, "  \"gossip_round_s\": [");
  for (int i = 0; i < rd->rounds; i++) {
    fputs(i ? ", " : "", f);
    json_num(f, rd->time[i]);
  }
  fprintf(f, "]\n}\n");
  if (fclose(f)) return 1;
  return rename(tmp, path) ? 1 : 0;
}

static int peers_staged(const hs_scenario *sc, const hs_peers_options *opt, const char *dir, const char *shown);

typedef struct {
  const hs_scenario *sc;
  const hs_peers_options *opt;
} peers_ctx;

static int peers_child(void *arg, const char *stage, const char *target) {
  const peers_ctx *c = arg;
  return peers_staged(c->sc, c->opt, stage, target);
}

/* The output folder is staged and the work runs guarded, as `hearsay run`
 * does (sim/run.c): peers.json appears whole or not at all. */
int hs_cmd_peers(const hs_scenario *sc, const hs_peers_options *opt) {
  if (!sc->algorithm.peers) return peers_staged(sc, opt, NULL, NULL); /* refused before anything is written */
  char target[HS_OUTDIR_PATH_MAX];
  if (opt->out_dir) snprintf(target, sizeof target, "%s", opt->out_dir);
  else snprintf(target, sizeof target, "out/%s", sc->name);
  peers_ctx ctx = {sc, opt};
  return hs_guard_run_staged(target, peers_child, &ctx, "hearsay peers", -1);
}

static int peers_staged(const hs_scenario *sc, const hs_peers_options *opt, const char *stage, const char *shown) {
  hs_peer_scheme *s = sc->algorithm.peers;
  if (!s) {
    fprintf(stderr, "%s: algorithm '%s' has no peer scheme; `hearsay peers` studies the peers of the decentralized "
                    "algorithm (--set algorithm.name=decentralized)\n", sc->path, sc->algorithm.name);
    return 2;
  }
  bool hier = s->hierarchical || hs_opt_bool(&sc->algorithm.options, "hierarchical");
  int n = hier ? sc->cluster.nodes : hs_scenario_gpus(sc);
  int gpn = hier ? 1 : sc->cluster.gpus_per_node;
  hs_peer_report r;
  char err[HS_PEER_ERR_MAX];
  if (hs_peer_analyze(s, n, gpn, opt->steps, (uint64_t)sc->run.seed, &r, err, sizeof err)) {
    fprintf(stderr, "%s: algorithm.peers: scheme %s is broken: %s\n", sc->path, s->name, err);
    hs_peer_report_free(&r);
    return 2;
  }
  double bytes = model_bytes(sc) + (s->directed ? 8 : 0);
  double per_step = r.deg_out_mean * bytes;
  int rounds = opt->rounds > 0 ? opt->rounds : (r.period > 0 ? r.period : 8);
  if (rounds > opt->steps) rounds = (int)opt->steps;
  if (rounds < 1) rounds = 1;

  char path[HS_OUTDIR_PATH_MAX + 128], shown_path[HS_OUTDIR_PATH_MAX + 64];
  hs_peer_rounds rd = {0};
  if (hs_peer_rounds_simulate(sc, rounds, bytes, &rd)) {
    hs_peer_report_free(&r);
    return 1;
  }
  snprintf(path, sizeof path, "%s/peers.json", stage);
  snprintf(shown_path, sizeof shown_path, "%s/peers.json", shown);
  int rc = write_json(path, sc, &r, &rd, bytes, per_step, hier);
  if (rc) fprintf(stderr, "hearsay: cannot write %s\n", shown_path);

  if (!opt->quiet && !rc) {
    char b1[32], b2[32], t1[32], t2[32];
    printf("hearsay peers: %s over %d %s (%d nodes x %d GPUs), %s, %ld steps checked\n", s->name, n,
           hier ? "node leaders" : "workers", sc->cluster.nodes, sc->cluster.gpus_per_node,
           s->allreduce ? "one allreduce per step" : s->directed ? "directed (push-sum)" : "undirected", r.steps);
    printf("  pairing     %s\n", s->directed ? "send-to lists; receivers are whoever targets them"
                                             : "symmetric at every step (i lists j exactly when j lists i)");
    printf("  schedule    every send has its receive in the same step: deadlock-free\n");
    printf("  mixing W    entries >= 0: %s; row sums %.12g..%.12g; column sums %.12g..%.12g\n",
           r.nonnegative ? "yes" : "NO", r.row_min, r.row_max, r.col_min, r.col_max);
    printf("              %s\n", r.doubly_stochastic ? "doubly stochastic: plain averaging reaches the mean"
                               : s->directed ? "not doubly stochastic: push-sum de-biasing is what reaches the mean"
                                             : "rows only: the limit is a weighted mean, not the mean");
    if (r.period == 1) printf("  pattern     static (the same W every step)\n");
    else if (r.period > 1) printf("  pattern     periodic, period %d steps\n", r.period);
    else printf("  pattern     time-varying, no period within the steps kept\n");
    if (r.spectral_done)
    {
      printf("  spectrum    %s of the product of %d step%s = %.9g, per step %.9g\n",
             r.rho_is_sigma ? "rho = sigma_max(P - 11'/n)" : "rho = |lambda_2(P)|", r.product_steps,
             r.product_steps > 1 ? "s" : "", r.rho_product, r.rho_step);
      if (r.product_steps > 1 && r.rho_is_sigma)
        printf("              asymptotic rate (spectral radius of P - 11'/n) per step %.9g\n", r.asymptotic_step);
    }
    else
      printf("  spectrum    not computed above %d ranks (dense O(n^3)); the measured decay stands\n",
             HS_PEER_SPECTRAL_MAX);
    printf("  measured    error %.3g after %ld steps", r.error[r.steps], r.steps);
    if (isfinite(r.measured_rate)) {
      printf("; fitted rate %.6g per step (steps %ld..%ld)", r.measured_rate, r.fit_from, r.fit_to);
      if (r.spectral_done && r.asymptotic_step > 0)
        printf(", predicted %.6g, ratio %.4f", r.asymptotic_step, r.measured_rate / r.asymptotic_step);
    }
    if (r.exact_step >= 0) printf("; exact consensus (< 1e-12) at step %ld", r.exact_step);
    printf("\n");
    hs_format_bytes(bytes, b1, sizeof b1);
    hs_format_bytes(per_step, b2, sizeof b2);
    printf("  degree      sends per rank per step: max %d, mean %.2f; receives: max %d\n", r.deg_out_max,
           r.deg_out_mean, r.deg_in_max);
    printf("  traffic     %s per message, %s per worker per step; busiest NIC: %d messages out in one step\n", b1, b2,
           r.busiest_nic);
    double mean = 0, worst = 0;
    for (int i = 0; i < rd.rounds; i++) mean += rd.time[i] / rd.rounds, worst = fmax(worst, rd.time[i]);
    hs_format_time(mean, t1, sizeof t1);
    hs_format_time(worst, t2, sizeof t2);
    printf("  gossip      one round simulated on this cluster: mean %s, max %s over %d rounds (%.2f s wall)\n", t1,
           t2, rd.rounds, rd.wall_time);
    printf("  outputs     %s\n", shown_path);
  }
  free(rd.time);
  hs_peer_report_free(&r);
  return rc;
}
