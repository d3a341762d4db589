/* report.c — writes metrics.csv and summary.json, prints the summary. */
#include "algos/report/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "algos/algorithm.h"
#include "algos/comm/select.h"
#include "scenarios/gpu_spread.h"
#include "scenarios/net_transport.h"
#include "scenarios/units.h"

int hs_report_mkdir(const char *path) {
  char buf[4096];
  if ((size_t)snprintf(buf, sizeof buf, "%s", path) >= sizeof buf) return -1;
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0777) && errno != EEXIST) return -1;
    *p = '/';
  }
  return mkdir(buf, 0777) && errno != EEXIST ? -1 : 0;
}

static void csv_num(FILE *f, double v) {
  if (isnan(v)) fputs("", f);
  else fprintf(f, "%.9g", v);
}

static int write_metrics(FILE *f, const hs_scenario *sc, const hs_metrics *m) {
  fputs("iteration,time_s,iter_time_s,compute_s,exposed_comm_s,loss,test_loss,accuracy,bytes_sent,workers,"
        "consensus,wait_s,slowest_rank,slowest_compute_s,eval_time_s\n", f);
  double prev = 0;
  for (int i = 0, rows = hs_metrics_rows(m); i < rows; i++) {
    double iter = m->end_time[i] - prev;
    double compute = m->count[i] ? m->compute[i] / m->count[i] : 0;
    prev = m->end_time[i];
    fprintf(f, "%d,%.9g,%.9g,%.9g,%.9g,", i, m->end_time[i], iter, compute, fmax(0, iter - compute));
    csv_num(f, sc->workload.numeric && m->count[i] ? m->loss[i] / m->count[i] : NAN);
    fputc(',', f);
    csv_num(f, m->test_loss[i]);
    fputc(',', f);
    csv_num(f, m->accuracy[i]);
    fprintf(f, ",%.0f,%d,", m->bytes[i], m->count[i]);
    csv_num(f, hs_metrics_consensus(m, i));
    fputc(',', f);
    csv_num(f, m->count[i] ? m->wait[i] / m->count[i] : NAN);
    if (m->slow_rank[i] >= 0) fprintf(f, ",%d,%.9g,", m->slow_rank[i], m->slow1[i]);
    else fputs(",,,", f);
    csv_num(f, m->eval_time[i]);
    fputc('\n', f);
  }
  return ferror(f) ? -1 : 0;
}

/* Length of the valid UTF-8 sequence at s, 0 if it is not one. */
static int utf8_len(const unsigned char *s) {
  int n = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
  if (n == 2 && s[0] < 0xC2) return 0; /* overlong */
  for (int i = 1; i < n; i++)
    if ((s[i] & 0xC0) != 0x80) return 0;
  return n;
}

/* A JSON string; bytes that are not UTF-8 (a path can hold any) become
 * U+FFFD, so the file always parses. */
static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  while (*s) {
    int n = utf8_len((const unsigned char *)s);
    if (n == 0) {
      fputs("\\ufffd", f);
      s++;
    } else if (*s == '"' || *s == '\\') {
      fprintf(f, "\\%c", *s++);
    } else if ((unsigned char)*s < 0x20) {
      fprintf(f, "\\u%04x", *s++);
    } else {
      fwrite(s, 1, (size_t)n, f);
      s += n;
    }
  }
  fputc('"', f);
}

static void json_num(FILE *f, double v) {
  if (isnan(v) || isinf(v)) fputs("null", f);
  else fprintf(f, "%.9g", v);
}

static void json_config(FILE *f, const hs_scenario *sc) {
  const hs_cluster_spec *c = &sc->cluster;
  const hs_workload_spec *w = &sc->workload;
  fprintf(f, "  \"config\": {\n    \"cluster\": {\"system\": ");
  if (c->system[0]) json_str(f, c->system);
  else fputs("null", f);
  fprintf(f, ", \"nodes\": %d, \"gpus_per_node\": %d, ", c->nodes, c->gpus_per_node);
  fprintf(f, "\"gpu_flops\": %.9g, \"gpu_efficiency\": %.9g, \"gpu_variability\": %.9g, \"gpu_arch\": \"%s\", "
             "\"cpu\": \"%s\", \"nvls\": %s, ",
          c->gpu_flops, c->gpu_efficiency, c->gpu_variability, hs_gpu_arch_name(c->gpu_arch),
          c->cpu == HS_CPU_AMD ? "amd" : "intel", c->nvls ? "true" : "false");
  fprintf(f, "\"intra\": {\"bandwidth_Bps\": %.9g, \"latency_s\": %.9g, \"efficiency\": %.9g, \"nvls_efficiency\": %.9g}, ",
          c->intra.bandwidth, c->intra.latency, c->intra_efficiency, c->nvls_efficiency);
  fprintf(f, "\"inter\": {\"bandwidth_Bps\": %.9g, \"nics_per_node\": %d, \"latency_s\": %.9g, \"topology\": "
             "\"%s\", \"rack_size\": %d, \"oversubscription\": %.9g, \"uplink_latency_s\": %.9g, \"in_network_reduction\": %s, "
             "\"in_network_efficiency\": %.9g, ",
          c->inter.bandwidth, c->nics_per_node, c->inter.latency, c->topology == HS_TOPO_FLAT ? "flat" : "fat_tree", c->rack_size,
          c->oversubscription, c->uplink_latency, c->in_network_reduction ? "true" : "false",
          c->in_network_efficiency);
  /* what its transport gets of it (scenarios/net_transport.h) */
  fprintf(f, "\"transport\": \"%s\", \"efficiency\": %.9g, \"stream_bandwidth_Bps\": %.9g, \"socket_threads\": %d, "
             "\"message_cost_s\": %.9g}, ",
          hs_net_kind_name(c->transport.kind), c->transport.efficiency, c->transport.stream_bandwidth,
          c->transport.socket_threads, c->transport.message_cost);
  fprintf(f, "\"overrides\": [");
  for (int i = 0; i < c->n_overrides; i++) {
    const hs_net_override *o = &c->overrides[i];
    fprintf(f, "%s{\"%s\": %d, \"bandwidth_Bps\": %.9g, \"latency_s\": %.9g, \"intra_bandwidth_Bps\": %.9g, "
               "\"intra_latency_s\": %.9g, \"transport\": %s%s%s}",
            i ? ", " : "", o->node >= 0 ? "node" : "rack", o->node >= 0 ? o->node : o->rack, o->inter.bandwidth,
            o->inter.latency, o->intra.bandwidth, o->intra.latency, o->has_transport ? "\"" : "",
            o->has_transport ? hs_net_kind_name(o->transport.kind) : "null", o->has_transport ? "\"" : "");
  }
  fprintf(f, "], \"gpu_speed\": [");
  for (int i = 0; i < c->n_speed; i++)
    fprintf(f, "%s{\"%s\": %d, \"factor\": %.9g}", i ? ", " : "", c->speed[i].gpu >= 0 ? "gpu" : "node",
            c->speed[i].gpu >= 0 ? c->speed[i].gpu : c->speed[i].node, c->speed[i].factor);
  fprintf(f, "]},\n    \"workload\": {\"model\": ");
  json_str(f, w->model);
  fprintf(f, ", \"numeric\": %s, \"layers\": %d, \"batch\": %d, \"accumulation_steps\": %d, \"lr\": %.9g, "
             "\"momentum\": %.9g, \"weight_decay\": %.9g, \"bytes_per_param\": %d",
          w->numeric ? "true" : "false", w->n_layers, w->batch, w->accumulation_steps, w->lr, w->momentum,
          w->weight_decay, w->dtype_bytes);
  fprintf(f, ", \"model_options\": {");
  for (int i = 0; i < w->n_model_options; i++) {
    const hs_model_option *o = &w->model_options[i];
    fprintf(f, "%s", i ? ", " : "");
    json_str(f, o->name);
    fprintf(f, ": ");
    if (o->is_string) json_str(f, o->string);
    else fprintf(f, "%.17g", o->number);
  }
  fprintf(f, "}");
  if (w->numeric)
    fprintf(f, ", \"dataset\": {\"classes\": %d, \"features\": %d, \"samples\": %ld, \"test_samples\": %ld, "
               "\"separation\": %.9g, \"noise\": %.9g, \"partition\": \"%s\", \"alpha\": %.9g}",
            w->classes, w->features, w->samples, w->test_samples, w->separation, w->noise,
            w->partition == HS_PARTITION_IID ? "iid" : "dirichlet", w->alpha);
  fprintf(f, "},\n    \"algorithm\": {\"name\": ");
  json_str(f, sc->algorithm.name);
  for (int i = 0; i < sc->algorithm.options.n; i++) {
    const hs_option_value *v = &sc->algorithm.options.v[i];
    fprintf(f, ", ");
    json_str(f, v->key);
    fprintf(f, ": ");
    if (v->type == HS_OPT_STRING || v->type == HS_OPT_PEERS) json_str(f, v->str);
    else if (v->type == HS_OPT_BOOL) fputs(v->num ? "true" : "false", f);
    else json_num(f, v->num);
  }
  fprintf(f, "},\n    \"run\": {\"iterations\": %d, \"seed\": %ld, \"eval_every\": %d, \"trace\": %d, "
             "\"max_simulated_time_s\": %.9g},\n",
          sc->run.iterations, sc->run.seed, sc->run.eval_every, sc->run.trace, sc->run.max_simulated_time);
  fprintf(f, "    \"sim\": {\"network_model\": ");
  json_str(f, sc->sim.network_model);
  fprintf(f, ", \"crosstraffic\": %s, \"tcp_gamma_B\": %.9g, \"latency_factor\": %.9g, \"bandwidth_factor\": %.9g, "
             "\"collectives\": \"%s\", \"protocol\": \"%s\", \"tuner\": \"%s\", \"nccl_version\": ",
          sc->sim.crosstraffic ? "true" : "false", sc->sim.tcp_gamma, sc->sim.latency_factor, sc->sim.bandwidth_factor,
          hs_coll_algo_name(sc->sim.collectives), hs_proto_name(sc->sim.protocol),
          sc->sim.tuner == HS_TUNER_NCCL ? "nccl" : "hearsay");
  json_str(f, sc->sim.nccl_version);
  fprintf(f, ", \"library\": \"%s\", \"gloo_staging\": %s", sc->sim.library == HS_LIBRARY_GLOO ? "gloo" : "nccl",
          sc->sim.gloo_staging ? "true" : "false");
  fprintf(f, ", \"channels\": %d, \"slice_B\": %.9g, \"slices_in_flight\": %d, \"stack_size_B\": %.9g},\n",
          sc->sim.channels, sc->sim.slice, sc->sim.slices_in_flight, sc->sim.stack_size);
  static const char *const transports[] = {"auto", "mpi", "nccl"}, *const lowerings[] = {"auto", "hearsay", "mpi"};
  fprintf(f, "    \"real\": {\"transport\": \"%s\", \"emulate\": %s, \"lowering\": \"%s\"}\n  }\n",
          transports[sc->real.transport], sc->real.emulate ? "true" : "false", lowerings[sc->real.lowering]);
}

/* Why a figure of summary.json is null (docs/outputs.md). */
static const char *null_reason(const hs_scenario *sc, const char *key, const hs_metrics *m) {
  int model_figure = strncmp(key, "final_", 6) == 0 && strcmp(key, "final_consensus_distance") != 0;
  if (model_figure && !sc->workload.numeric) return "timing-only workload: no model is trained";
  if (hs_metrics_rows(m) == 0) return "no iteration was measured";
  if ((!strcmp(key, "final_test_loss") || !strcmp(key, "final_accuracy")) && sc->run.eval_every == 0 &&
      sc->workload.numeric)
    return "no evaluation ran";
  if (!strcmp(key, "final_consensus_distance")) return "no replica was tracked";
  return "not a finite number (a diverging loss, or no time elapsed)";
}

static int write_summary(FILE *f, const hs_scenario *sc, const hs_metrics *m, const hs_run_info *info) {
  hs_metrics_summary s;
  hs_metrics_summarize(m, sc->workload.batch * sc->workload.accumulation_steps, sc->run.warmup_iterations, &s);
  /* A timing-only run has no loss: its zeros are not a loss of zero. */
  if (!sc->workload.numeric) s.final_loss = s.final_test_loss = s.final_accuracy = NAN;
  fprintf(f, "{\n  \"scenario\": ");
  json_str(f, sc->path);
  fprintf(f, ",\n  \"mode\": \"%s\",\n  \"backend\": \"%s\",\n  \"fidelity\": \"%s\",\n", info->mode, info->backend,
          info->fidelity);
  fprintf(f, "  \"ranks\": %d,\n  \"iterations\": %d,\n  \"warmup_iterations\": %d,\n", info->ranks, hs_metrics_rows(m),
          s.warmup);
  /* Which schedules ran the collectives, and how often (every algorithm's
   * collectives, counted once per call, not per rank). */
  if (info->collectives) {
    fprintf(f, "  \"collectives\": {");
    for (int a = 0; a < HS_COLL_ALGOS; a++)
      fprintf(f, "%s\"%s\": %ld", a ? ", " : "", hs_coll_algo_name((hs_coll_algo)a), info->collectives[a]);
    fprintf(f, "},\n");
  }
  if (info->protocols) {
    fprintf(f, "  \"protocols\": {");
    for (int p = 0; p <= HS_PROTOS; p++)
      fprintf(f, "%s\"%s\": %ld", p ? ", " : "", hs_proto_name(p), info->protocols[p]);
    fprintf(f, "},\n");
  }
  /* Of them, those where NCCL's model picks an algorithm hearsay does not
   * run (the fastest it runs by that model ran instead). */
  if (info->nccl_unmodelled) {
    fprintf(f, "  \"nccl_picks_not_modelled\": {");
    for (int u = HS_UNMODELLED_FIRST; u < HS_UNMODELLED_KINDS; u++)
      fprintf(f, "%s\"%s\": %ld", u > HS_UNMODELLED_FIRST ? ", " : "", hs_unmodelled_name((hs_unmodelled)u),
              info->nccl_unmodelled[u]);
    fprintf(f, "},\n");
  }
  const struct {
    const char *key;
    double value;
  } figures[] = {
      {"total_time_s", s.total_time},
      {"measured_time_s", s.measured_time},
      {"time_per_iteration_s", s.time_per_iter},
      {"compute_per_iteration_s", s.compute_per_iter},
      {"throughput_samples_per_s", s.samples_per_s},
      {"comm_share", s.comm_share},
      {"bytes_per_iteration", s.bytes_per_iter},
      {"final_loss", s.final_loss},
      {"final_test_loss", s.final_test_loss},
      {"final_accuracy", s.final_accuracy},
      {"final_consensus_distance", s.final_consensus},
      {"wait_per_iteration_s", s.wait_per_iter},
      {"messages", (double)info->messages},
      {"actors", (double)info->actors},
      {"wall_time_s", info->wall_time},
  };
  for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++) {
    fprintf(f, "  \"%s\": ", figures[i].key);
    json_num(f, figures[i].value);
    fprintf(f, ",\n");
  }
  fprintf(f, "  \"null_because\": {");
  for (size_t i = 0, k = 0; i < sizeof figures / sizeof figures[0]; i++) {
    if (isfinite(figures[i].value)) continue;
    fprintf(f, "%s\"%s\": ", k++ ? ", " : "", figures[i].key);
    json_str(f, null_reason(sc, figures[i].key, m));
  }
  fprintf(f, "},\n");
  if (info->n_failures > 0 || sc->failures.n > 0) {
    fprintf(f, "  \"failures\": {\"on_failure\": \"%s\", \"struck\": %d, \"ranks_lost\": %d, \"aborted\": %s, \"events\": [",
            sc->run.on_failure == HS_ON_FAILURE_SHRINK ? "shrink" : "abort", info->n_failures, info->ranks_lost,
            info->aborted ? "true" : "false");
    for (int i = 0; i < info->listed; i++) {
      fprintf(f, "%s{\"time_s\": ", i ? ", " : "");
      json_num(f, info->failure_time[i]);
      fprintf(f, ", \"what\": ");
      json_str(f, info->failure_what[i]);
      fputc('}', f);
    }
    fprintf(f, "]},\n");
  }
  fprintf(f, "  \"costliest_ranks\": [");
  for (int k = 0; k < s.n_costly; k++) {
    fprintf(f, "%s{\"rank\": %d, \"seconds\": ", k ? ", " : "", s.costly_rank[k]);
    json_num(f, s.costly_seconds[k]);
    fprintf(f, ", \"share_of_run\": ");
    json_num(f, s.total_time > 0 ? s.costly_seconds[k] / s.total_time : 0);
    fprintf(f, ", \"slowest_in_iterations\": %d}", s.costly_iterations[k]);
  }
  fprintf(f, "],\n");
  const hs_peer_scheme *ps = sc->algorithm.peers;
  if (ps) {
    /* What asking the scheme cost this process (in a simulation, every rank). */
    fprintf(f, "  \"peer_scheme\": {\"name\": ");
    json_str(f, ps->name);
    fprintf(f, ", \"calls\": %ld, \"seconds\": ", ps->select_calls);
    json_num(f, ps->select_seconds);
    fprintf(f, "},\n");
  }
  json_config(f, sc);
  fprintf(f, "}\n");
  return ferror(f) ? -1 : 0;
}

typedef int (*writer_fn)(FILE *, const hs_scenario *, const hs_metrics *, const hs_run_info *);

static int write_atomically(const char *dir, const char *name, writer_fn fn, const hs_scenario *sc,
                            const hs_metrics *m, const hs_run_info *info) {
  char tmp[4200], final[4200];
  snprintf(final, sizeof final, "%s/%s", dir, name);
  snprintf(tmp, sizeof tmp, "%s/.%s.partial", dir, name);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    fprintf(stderr, "hearsay: cannot write %s\n", tmp);
    return -1;
  }
  int rc = fn(f, sc, m, info);
  rc |= fclose(f);
  if (rc == 0) rc = rename(tmp, final);
  if (rc) {
    remove(tmp);
    fprintf(stderr, "hearsay: failed writing %s\n", final);
  }
  return rc;
}

static int metrics_writer(FILE *f, const hs_scenario *sc, const hs_metrics *m, const hs_run_info *info) {
  (void)info;
  return write_metrics(f, sc, m);
}

int hs_report_write(const char *dir, const hs_scenario *sc, const hs_metrics *m, const hs_run_info *info) {
  if (write_atomically(dir, "metrics.csv", metrics_writer, sc, m, info)) return -1;
  return write_atomically(dir, "summary.json", write_summary, sc, m, info);
}

void hs_report_print(FILE *out, const hs_scenario *sc, const hs_metrics *m, const hs_run_info *info,
                     const char *dir) {
  hs_metrics_summary s;
  hs_metrics_summarize(m, sc->workload.batch * sc->workload.accumulation_steps, sc->run.warmup_iterations, &s);
  const hs_cluster_spec *c = &sc->cluster;
  char t1[32], t2[32], t3[32], b1[32], bw[32];
  hs_format_time(s.time_per_iter, t1, sizeof t1);
  hs_format_time(s.compute_per_iter, t2, sizeof t2);
  hs_format_time(s.total_time, t3, sizeof t3);
  hs_format_bytes(s.bytes_per_iter / (info->ranks ? info->ranks : 1), b1, sizeof b1);
  hs_format_bandwidth(c->inter.bandwidth, bw, sizeof bw);
  fprintf(out, "hearsay: %s (%s, %s backend, %s collectives)\n", sc->name, info->mode, info->backend, info->fidelity);
  /* CPU processes (parameter servers on the nodes' CPUs or on server
   * machines, a parameter server's host aggregators) are ranks too */
  char cpus[64] = "";
  int n_cpu = c->nodes * c->cpu_ranks_per_node + c->server_machines;
  if (n_cpu > 0) snprintf(cpus, sizeof cpus, " + %d CPU process%s", n_cpu, n_cpu == 1 ? "" : "es");
  /* identical GPUs that differ (scenarios/gpu_spread.h): the slowest paces a synchronous job */
  char spread[96] = "";
  if (hs_gpu_spread_slowest(c) < 1)
    snprintf(spread, sizeof spread, ", GPUs %.3g%% apart (the slowest at %.4g of a typical one)",
             100 * c->gpu_variability, hs_gpu_spread_slowest(c));
  /* a PCIe node's tree (scenarios/links.h): what a ring inside the node crosses */
  char tree[112] = "", nic_at[48] = "";
  if (c->nic_switch >= 0) snprintf(nic_at, sizeof nic_at, ", the NIC under switch %d", c->nic_switch);
  if (c->nic_per_switch) snprintf(nic_at, sizeof nic_at, ", NICs under every switch");
  if (c->pcie_switches > 1)
    snprintf(tree, sizeof tree, ", PCIe switches %d on %d socket%s%s", c->pcie_switches, c->sockets,
             c->sockets == 1 ? "" : "s", nic_at);
  fprintf(out, "  cluster     %d nodes x %d GPUs%s = %d ranks%s%s%s%s, inter-node %s NICs over %s, %s%s\n", c->nodes,
          c->gpus_per_node, cpus, info->ranks, c->system[0] ? " (" : "", c->system, c->system[0] ? ")" : "", tree, bw,
          hs_net_kind_name(c->transport.kind), c->topology == HS_TOPO_FLAT ? "flat switch" : "fat tree", spread);
  char accum[48] = "";
  if (sc->workload.accumulation_steps > 1)
    snprintf(accum, sizeof accum, " x %d micro-batches", sc->workload.accumulation_steps);
  char options[256] = "";
  for (int i = 0; i < sc->workload.n_model_options; i++) {
    const hs_model_option *o = &sc->workload.model_options[i];
    size_t at = strlen(options);
    if (o->is_string) snprintf(options + at, sizeof options - at, ", %s %s", o->name, o->string);
    else snprintf(options + at, sizeof options - at, ", %s %.6g", o->name, o->number);
  }
  fprintf(out, "  workload    %s (%s%s), batch %d%s per worker; algorithm %s\n", sc->workload.model,
          sc->workload.numeric ? "numeric" : "timing-only", options, sc->workload.batch, accum, sc->algorithm.name);
  int simulated = strcmp(info->mode, "simulated") == 0;
  fprintf(out, "  iterations  %d in %s %s time\n", hs_metrics_rows(m), t3, simulated ? "simulated" : "wall-clock");
  /* An algorithm's warm-up (its warmup_steps: plain allreduce, or
   * synchronous steps, before its own phase) is in what the figures below
   * average, and a run no longer than it never times the algorithm itself:
   * qadam's and onebit_adam's 100 by default, where a study runs a few. */
  const hs_option_value *warmup = hs_opt_find(&sc->algorithm.options, "warmup_steps");
  int rows = hs_metrics_rows(m);
  if (warmup && warmup->num >= 1 && rows > 0) {
    if (warmup->num >= rows)
      fprintf(out, "  warm-up     all %d iterations are %s's warm-up (warmup_steps = %.0f), none its own phase: "
                   "--set algorithm.warmup_steps=0 times that\n", rows, sc->algorithm.name, warmup->num);
    else if (s.warmup >= warmup->num) /* run.warmup_iterations leaves them out */
      fprintf(out, "  warm-up     the first %.0f of the %d iterations are %s's warm-up (warmup_steps), which the "
                   "figures below leave out with the run's %d warm-up iterations\n", warmup->num, rows,
              sc->algorithm.name, s.warmup);
    else
      fprintf(out, "  warm-up     the first %.0f of the %d iterations are %s's warm-up (warmup_steps), and the "
                   "figures below include %s\n", warmup->num, rows, sc->algorithm.name,
              s.warmup > 0 ? "those after the run's warm-up iterations" : "them");
  }
  char measured[64] = "";
  if (s.warmup > 0) snprintf(measured, sizeof measured, ", after %d warm-up iteration%s", s.warmup, s.warmup == 1 ? "" : "s");
  fprintf(out, "  per iter    %s (compute %s, exposed communication %.1f%%%s)\n", t1, t2, 100 * s.comm_share, measured);
  double tput = isnan(s.samples_per_s) ? 0 : s.samples_per_s;
  fprintf(out, "  throughput  %.4g %ssamples/s\n", tput >= 1e6 ? tput / 1e6 : tput >= 1e3 ? tput / 1e3 : tput,
          tput >= 1e6 ? "M " : tput >= 1e3 ? "k " : "");
  fprintf(out, "  traffic     %s sent per rank per iteration\n", b1);
  char tw[32];
  hs_format_time(s.wait_per_iter, tw, sizeof tw);
  fprintf(out, "  waiting     %s per rank per iteration blocked on others\n", tw);
  if (s.n_costly > 0 && (sc->stragglers.n > 0 || sc->stragglers.fn || sc->cluster.n_speed > 0)) {
    fprintf(out, "  stragglers ");
    for (int k = 0; k < s.n_costly; k++) {
      char tc[32];
      hs_format_time(s.costly_seconds[k], tc, sizeof tc);
      fprintf(out, "%s rank %d cost %s (%.1f%%, slowest in %d of %d iterations)", k ? ";" : "", s.costly_rank[k], tc,
              s.measured_time > 0 ? 100 * s.costly_seconds[k] / s.measured_time : 0, s.costly_iterations[k],
              hs_metrics_rows(m) - s.warmup);
    }
    fputc('\n', out);
  }
  if (sc->workload.numeric) {
    fprintf(out, "  final       training loss %.4f, held-out loss %.4f, accuracy %.2f%%\n", s.final_loss,
            s.final_test_loss, 100 * s.final_accuracy);
    if (s.final_consensus > 0) fprintf(out, "  consensus   mean squared distance to the mean model %.3g\n", s.final_consensus);
  }
  if (info->n_failures > 0) {
    fprintf(out, "  failures    ");
    for (int i = 0; i < info->listed; i++) {
      char tf[32];
      hs_format_time(info->failure_time[i], tf, sizeof tf);
      fprintf(out, "%s%s at %s", i ? ", " : "", info->failure_what[i], tf);
    }
    int shrink = sc->run.on_failure == HS_ON_FAILURE_SHRINK;
    fprintf(out, "; %d ranks lost, %s\n", info->ranks_lost,
            !info->aborted ? "survivors went on (shrink)"
            : shrink       ? "the run stopped (run.on_failure = \"shrink\")"
                           : "run aborted (run.on_failure = \"abort\")");
  }
  if (info->collectives) {
    long total = 0;
    for (int a = 0; a < HS_COLL_ALGOS; a++) total += info->collectives[a];
    if (total > 0) {
      fprintf(out, "  collectives");
      for (int a = 0, k = 0; a < HS_COLL_ALGOS; a++)
        if (info->collectives[a]) fprintf(out, "%s %s %ld", k++ ? "," : "", hs_coll_algo_name((hs_coll_algo)a), info->collectives[a]);
      if (sc->sim.library == HS_LIBRARY_GLOO)
        fprintf(out, " (Gloo over TCP)"); /* its own transport, no NCCL protocol */
      else if (info->protocols) {
        fprintf(out, " (protocol");
        for (int p = 0, k = 0; p <= HS_PROTOS; p++)
          if (info->protocols[p]) fprintf(out, "%s %s %ld", k++ ? "," : "", hs_proto_name(p), info->protocols[p]);
        fputc(')', out);
      }
      fputc('\n', out);
    }
  }
  long untold = 0;
  for (int u = HS_UNMODELLED_FIRST; info->nccl_unmodelled && u < HS_UNMODELLED_KINDS; u++)
    untold += info->nccl_unmodelled[u];
  if (untold) {
    fprintf(out, "  not modelled");
    for (int u = HS_UNMODELLED_FIRST, k = 0; u < HS_UNMODELLED_KINDS; u++)
      if (info->nccl_unmodelled[u])
        fprintf(out, "%s NCCL's model picks %s for %ld of them", k++ ? "," : "", hs_unmodelled_name((hs_unmodelled)u),
                info->nccl_unmodelled[u]);
    fprintf(out, ", which hearsay does not run: the fastest it runs by that model ran instead (docs/fidelity.md, "
                 "\"The tuner\")\n");
  }
  if (simulated)
    fprintf(out, "  simulation  %ld messages, %ld actors, %.2f s wall\n", info->messages, info->actors, info->wall_time);
  else fprintf(out, "  run         %d processes, %.2f s wall in all\n", info->ranks, info->wall_time);
  if (simulated && info->auto_fast > 0)
    fprintf(out, "  fidelity    fast: step would have simulated some %.2g million messages (auto runs step up to "
                 "%.2g million); --set sim.fidelity=step runs them\n",
            info->auto_fast / 1e6, HS_FIDELITY_AUTO_STEP_MESSAGES / 1e6);
  if (simulated && info->fast_beside > 0)
    fprintf(out, "  beside      %ld messages ran in SimGrid beside %ld collectives timed by fast, and did not contend "
                 "with them for links (docs/fidelity.md, \"Not modelled by fast\"); --set sim.fidelity=step lets them\n",
            info->fast_beside, info->fast_collectives);
  const hs_peer_scheme *ps = sc->algorithm.peers;
  if (ps && ps->select_calls)
    fprintf(out, "  peers       %s: %ld calls, %.3f s (%.1f%% of the wall time)\n", ps->name, ps->select_calls,
            ps->select_seconds, info->wall_time > 0 ? 100 * ps->select_seconds / info->wall_time : 0);
  if (dir)
    fprintf(out, "  outputs     %s/{metrics.csv,summary.json%s%s}\n", dir, simulated ? ",platform.xml" : "",
            simulated && sc->run.trace > 0 ? ",trace.json" : "");
}
