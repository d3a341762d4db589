/* system_file.c — a cluster's machine as a system file (system_file.h). */
#include "sim/system_file.h"

#include <string.h>

/* A Lua string literal: quotes, backslashes and control characters escaped. */
static void quoted(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
    else if (ch < 0x20 || ch == 0x7f) fprintf(f, "\\%03u", ch);
    else fputc(ch, f);
  }
  fputc('"', f);
}

typedef struct {
  FILE *f;
  const hs_system_file *s;
  const char *table; /* the table being written, for marks */
  int first;
} writer;

static void key(writer *w, const char *k) {
  fprintf(w->f, "%s%s = ", w->first ? "" : ", ", k);
  w->first = 0;
}

/* The mark of table.k, if any: written as a comment after the table. */
static const char *mark_of(const writer *w, const char *k) {
  char full[128];
  snprintf(full, sizeof full, "%s%s%s", w->table ? w->table : "", w->table ? "." : "", k);
  for (int i = 0; i < w->s->n_marked; i++)
    if (strcmp(w->s->marked_keys[i], full) == 0) return w->s->marks[i];
  return NULL;
}

static void open_table(writer *w, const char *t) {
  w->table = t;
  w->first = 1;
  fprintf(w->f, "  %s = { ", t);
}

static void close_table(writer *w, const char *const *keys) {
  fputs(" },", w->f);
  /* the marks of this table's keys, in one comment */
  int any = 0;
  for (int i = 0; keys[i]; i++) {
    const char *m = mark_of(w, keys[i]);
    if (m) fprintf(w->f, "%s%s %s", any ? "; " : " -- ", keys[i], m), any = 1;
  }
  fputc('\n', w->f);
  w->table = NULL;
}

/* Units chosen so that a system's round numbers stay round: line rates in
 * GB/s, latencies in µs, peaks in TF. %.10g holds every digit a fit's
 * rounding leaves. */
static void bandwidth(writer *w, const char *k, double bytes_per_s) {
  key(w, k);
  fprintf(w->f, "\"%.10gGBps\"", bytes_per_s / 1e9);
}
static void latency(writer *w, const char *k, double s) {
  key(w, k);
  fprintf(w->f, "\"%.10gus\"", s * 1e6);
}
static void number(writer *w, const char *k, double v) {
  key(w, k);
  fprintf(w->f, "%.10g", v);
}

int hs_system_file_write(FILE *f, const hs_cluster_spec *c, const hs_system_file *s) {
  writer w = {f, s, NULL, 1};
  for (int i = 0; i < s->n_header; i++) fprintf(f, "--%s%s\n", s->header[i][0] ? " " : "", s->header[i]);
  fputs("return {\n  name = ", f);
  quoted(f, s->name);
  fputs(",\n  description = ", f);
  quoted(f, s->description);
  fputs(",\n  sources = {\n", f);
  for (int i = 0; i < s->n_sources; i++) {
    fputs("    ", f);
    quoted(f, s->sources[i]);
    fputs(",\n", f);
  }
  fputs("  },\n", f);
  fprintf(f, "  gpus_per_node = %d,\n  cpu = \"%s\",\n  nvls = %s,\n", c->gpus_per_node,
          c->cpu == HS_CPU_AMD ? "amd" : "intel", c->nvls ? "true" : "false");

  open_table(&w, "gpu");
  key(&w, "flops");
  fprintf(f, "\"%.10gTF\"", c->gpu_flops / 1e12);
  key(&w, "arch");
  fprintf(f, "\"%s\"", hs_gpu_arch_name(c->gpu_arch));
  bandwidth(&w, "memory_bandwidth", c->gpu_memory_bandwidth);
  latency(&w, "launch_overhead", c->gpu_launch_overhead);
  bandwidth(&w, "pcie_bandwidth", c->gpu_pcie_bandwidth);
  key(&w, "sms");
  fprintf(f, "%d", c->gpu_sms);
  key(&w, "variability");
  fprintf(f, "%.6g", c->gpu_variability);
  close_table(&w, (const char *const[]){"flops", "arch", "memory_bandwidth", "launch_overhead", "pcie_bandwidth", "sms",
                                        "variability", NULL});

  open_table(&w, "intra");
  bandwidth(&w, "bandwidth", c->intra.bandwidth);
  latency(&w, "latency", c->intra.latency);
  key(&w, "link");
  fprintf(f, "\"%s\"", c->intra_link == HS_INTRA_PCIE ? "pcie" : "nvlink");
  number(&w, "efficiency", c->intra_efficiency);
  number(&w, "nvls_efficiency", c->nvls_efficiency);
  number(&w, "pcie_switches", c->pcie_switches);
  number(&w, "sockets", c->sockets);
  bandwidth(&w, "socket_bandwidth", c->socket_bandwidth);
  if (c->nic_switch >= 0) number(&w, "nic_switch", c->nic_switch);
  if (c->nic_per_switch) {
    key(&w, "nic_per_switch");
    fputs("true", f);
  }
  key(&w, "p2p");
  fputs(c->intra_p2p ? "true" : "false", f);
  close_table(&w, (const char *const[]){"bandwidth", "latency", "link", "efficiency", "nvls_efficiency", "pcie_switches",
                                        "sockets", "socket_bandwidth", "nic_switch", "nic_per_switch", "p2p", NULL});

  open_table(&w, "inter");
  bandwidth(&w, "bandwidth", c->inter.bandwidth);
  latency(&w, "latency", c->inter.latency);
  number(&w, "nics_per_node", c->nics_per_node);
  key(&w, "transport");
  fprintf(f, "\"%s\"", c->transport.kind == HS_NET_TCP ? "tcp" : "rdma");
  number(&w, "efficiency", c->transport.efficiency);
  if (c->transport.stream_bandwidth > 0) bandwidth(&w, "stream_bandwidth", c->transport.stream_bandwidth);
  number(&w, "socket_threads", c->transport.socket_threads);
  latency(&w, "message_cost", c->transport.message_cost);
  key(&w, "in_network_reduction");
  fputs(c->in_network_reduction ? "true" : "false", f);
  number(&w, "in_network_efficiency", c->in_network_efficiency);
  key(&w, "gpudirect");
  fputs(c->gpudirect ? "true" : "false", f);
  close_table(&w, (const char *const[]){"bandwidth", "latency", "nics_per_node", "transport", "efficiency",
                                         "stream_bandwidth", "socket_threads", "message_cost", "in_network_efficiency",
                                         "gpudirect", NULL});

  open_table(&w, "host");
  bandwidth(&w, "memory_bandwidth", c->host_memory_bandwidth);
  bandwidth(&w, "bandwidth", c->host_bandwidth);
  bandwidth(&w, "staging_bandwidth", c->host_staging_bandwidth);
  close_table(&w, (const char *const[]){"memory_bandwidth", "bandwidth", "staging_bandwidth", NULL});
  fputs("}\n", f);
  return ferror(f) ? -1 : 0;
}
