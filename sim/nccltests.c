/* nccltests.c — reads nccl-tests output (nccltests.h). */
#include "sim/nccltests.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenarios/scenario.h"

static const struct {
  const char *name;
  hs_op_kind kind;
} binaries[] = {
    {"all_reduce_perf", HS_OP_ALLREDUCE}, {"reduce_scatter_perf", HS_OP_REDUCE_SCATTER},
    {"all_gather_perf", HS_OP_ALLGATHER}, {"broadcast_perf", HS_OP_BROADCAST},
    {"reduce_perf", HS_OP_REDUCE},        {"alltoall_perf", HS_OP_ALLTOALL},
    {"sendrecv_perf", HS_OP_P2P}, /* each rank to the next, `hearsay collective --op sendrecv` */
};
enum { BINARIES = sizeof binaries / sizeof binaries[0] };

const char *hs_nccltests_name(hs_op_kind k) {
  for (int i = 0; i < BINARIES; i++)
    if (binaries[i].kind == k) return binaries[i].name;
  return "?";
}

/* The file's name, searched for a binary's name with or without its
 * underscores; the longer names first, so that all_reduce is not taken for
 * reduce. */
static int kind_from_path(const char *path, hs_op_kind *k) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  char plain[256];
  size_t n = 0;
  for (const char *s = base; *s && n + 1 < sizeof plain; s++)
    if (*s != '_' && *s != '-') plain[n++] = (char)tolower((unsigned char)*s);
  plain[n] = '\0';
  static const struct {
    const char *stem;
    hs_op_kind kind;
  } stems[] = {{"allreduce", HS_OP_ALLREDUCE}, {"reducescatter", HS_OP_REDUCE_SCATTER},
               {"allgather", HS_OP_ALLGATHER}, {"alltoall", HS_OP_ALLTOALL},
               {"sendrecv", HS_OP_P2P},        {"broadcast", HS_OP_BROADCAST},
               {"reduce", HS_OP_REDUCE}};
  for (size_t i = 0; i < sizeof stems / sizeof stems[0]; i++)
    if (strstr(plain, stems[i].stem)) {
      *k = stems[i].kind;
      return 1;
    }
  return 0;
}

static int fail(char *err, size_t len, const char *path, int line, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (line > 0) snprintf(err, len, "%s:%d: %s", path, line, msg);
  else snprintf(err, len, "%s: %s", path, msg);
  return -1;
}

enum { TOKENS = 48 };

static int split(char *s, char **tok) {
  int n = 0;
  for (char *t = strtok(s, " \t\r\n"); t && n < TOKENS; t = strtok(NULL, " \t\r\n")) tok[n++] = t;
  return n;
}

static int numeric(const char *t, double *v) {
  if (strcmp(t, "N/A") == 0) { /* #wrong without validation (-c 0) */
    *v = 0;
    return 1;
  }
  char *end;
  errno = 0;
  *v = strtod(t, &end);
  return end != t && *end == '\0' && errno == 0;
}

typedef struct {
  char **hosts; /* distinct, in order of appearance */
  int *per_host;
  int n_hosts;
  unsigned char *seen; /* ranks already listed */
  int ranks;
} rank_table;

/* "#  Rank  3 Group  0 Pid  1234 on   node1 device  3 [0000:07:00] NVIDIA A100-SXM4-80GB"
 * (older versions: no Group, "[0x07]"). */
static int rank_line(char *line, rank_table *t, char *device, size_t dlen, const char *path, int at, char *err,
                     size_t len) {
  char copy[1024];
  snprintf(copy, sizeof copy, "%s", line);
  char *tok[TOKENS];
  int n = split(copy, tok), r = -1, host = -1, dev = -1;
  for (int i = 0; i + 1 < n; i++) {
    if (strcmp(tok[i], "Rank") == 0 && r < 0) r = i + 1;
    else if (strcmp(tok[i], "on") == 0 && host < 0) host = i + 1;
    else if (strcmp(tok[i], "device") == 0 && dev < 0) dev = i + 1;
  }
  char *end;
  long rank = r > 0 ? strtol(tok[r], &end, 10) : -1;
  if (r < 0 || host < 0 || *end || rank < 0 || rank >= HS_RANKS_MAX)
    return fail(err, len, path, at, "cannot read this rank line: expected '#  Rank N ... on HOST device D ...'");
  unsigned char *seen = realloc(t->seen, (size_t)rank + 1 > (size_t)t->ranks ? (size_t)rank + 1 : (size_t)t->ranks);
  if (!seen) return fail(err, len, path, at, "out of memory");
  if (rank + 1 > t->ranks) memset(seen + t->ranks, 0, (size_t)(rank + 1 - t->ranks)), t->ranks = (int)rank + 1;
  t->seen = seen;
  if (seen[rank]) return fail(err, len, path, at, "rank %ld is listed twice", rank);
  seen[rank] = 1;
  int h = 0;
  while (h < t->n_hosts && strcmp(t->hosts[h], tok[host]) != 0) h++;
  if (h == t->n_hosts) {
    if (t->n_hosts == HS_NODES_MAX) return fail(err, len, path, at, "more than %d hosts", HS_NODES_MAX);
    t->hosts = realloc(t->hosts, (size_t)(t->n_hosts + 1) * sizeof *t->hosts);
    t->per_host = realloc(t->per_host, (size_t)(t->n_hosts + 1) * sizeof *t->per_host);
    t->hosts[h] = strdup(tok[host]);
    t->per_host[h] = 0;
    t->n_hosts++;
  }
  t->per_host[h]++;
  /* the device's name: what follows the "[bus id]" after "device D" */
  if (rank == 0 && dev > 0) {
    int first = dev + 1;
    if (first < n && tok[first][0] == '[') first++;
    device[0] = '\0';
    for (int i = first; i < n; i++) {
      size_t used = strlen(device);
      snprintf(device + used, dlen - used, "%s%s", i > first ? " " : "", tok[i]);
    }
  }
  return 0;
}

/* One table row: size count type [redop] [root] time algbw busbw #wrong
 * (out of place), then the same for in place. Columns are told apart by
 * what they hold: the redop is a word; the root, when printed, makes the
 * count of numbers after the type odd (the two halves hold four each, or
 * eight with per-iteration figures). */
typedef struct {
  double bytes, time_us, algbw, busbw;
  int root; /* -1 when absent or printed -1 */
  int has_redop, redop_none;
} parsed_row;

static int data_row(char *line, parsed_row *p) {
  char *tok[TOKENS];
  int n = split(line, tok);
  double v[TOKENS];
  if (n < 7) return 0;
  char *end;
  double size = strtod(tok[0], &end);
  if (*end || !(size >= 0)) return 0;
  double count = strtod(tok[1], &end);
  if (*end || !(count >= 0)) return 0;
  int i = 3, k = 0;
  double x;
  p->has_redop = p->redop_none = 0;
  if (i < n && !numeric(tok[i], &x)) {
    p->has_redop = 1;
    p->redop_none = strcmp(tok[i], "none") == 0;
    i++;
  }
  for (; i < n; i++) {
    if (!numeric(tok[i], &v[k])) return 0;
    k++;
  }
  int at = 0;
  p->root = -1;
  if (k % 2 == 1) p->root = (int)v[at++];
  if (k - at < 4) return 0;
  p->bytes = size;
  p->time_us = v[at];
  p->algbw = v[at + 1];
  p->busbw = v[at + 2];
  return 1;
}

/* The collective the table shows, where nothing names it. */
static int kind_from_table(const parsed_row *best, int ranks, hs_op_kind *k) {
  if (best->root >= 0) {
    *k = best->has_redop && best->redop_none ? HS_OP_BROADCAST : HS_OP_REDUCE;
    return best->has_redop;
  }
  if (!(best->algbw > 0)) return 0;
  /* sendrecv_perf prints busbw = algbw (and a redop): so does an
   * allreduce on 2 ranks, and a reduce-scatter on many ranks once both
   * are rounded to two decimals. Equal columns cannot name the test. */
  if (fabs(best->busbw - best->algbw) < 0.006) return 0;
  double ratio = best->busbw / best->algbw, all = 2.0 * (ranks - 1) / ranks, split_ = (ranks - 1.0) / ranks;
  /* both printed with two decimals: a row of 1 GB/s or more is within 1%
   * (on 2 ranks an allreduce's columns are equal, refused above) */
  if (fabs(ratio / all - 1) < 0.02) {
    *k = HS_OP_ALLREDUCE;
    return 1;
  }
  if (fabs(ratio / split_ - 1) < 0.02 && best->has_redop && !best->redop_none) {
    *k = HS_OP_REDUCE_SCATTER;
    return 1;
  }
  return 0; /* allgather and alltoall look alike */
}

/* The line without the launcher's tag: srun --label's "0: ", Open MPI
 * --tag-output's "[1,0]<stdout>:", and leading blanks. */
static char *untagged(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  char *t = s;
  if (*t == '[') {
    t++;
    while (isdigit((unsigned char)*t) || *t == ',') t++;
    if (*t == ']') {
      t++;
      if (*t == '<') {
        while (*t && *t != '>') t++;
        if (*t == '>') t++;
      }
      if (*t == ':') s = t + 1;
    }
  } else if (isdigit((unsigned char)*t)) {
    while (isdigit((unsigned char)*t)) t++;
    if (*t == ':' && (t[1] == ' ' || t[1] == '\t')) s = t + 1;
  }
  while (*s == ' ' || *s == '\t') s++;
  return s;
}

static void free_table(rank_table *t) {
  for (int h = 0; t->hosts && h < t->n_hosts; h++) free(t->hosts[h]);
  free(t->hosts);
  free(t->per_host);
  free(t->seen);
}

int hs_nccltests_read(const char *path, int nodes, int gpus_per_node, hs_nccltests_run *run, char *err, size_t len) {
  memset(run, 0, sizeof *run);
  snprintf(run->path, sizeof run->path, "%s", path);
  FILE *f = fopen(path, "r");
  if (!f) return fail(err, len, path, 0, "%s", strerror(errno));
  rank_table t = {0};
  char *line = NULL;
  size_t cap = 0;
  int at = 0, rc = 0, named = 0, cap_rows = 0, best = -1, first_rank_line = 0, gpus_line = 0;
  run->gpus_per_thread = 1;
  parsed_row best_row = {0};
  while (rc == 0 && getline(&line, &cap, f) >= 0) {
    at++;
    char *s = untagged(line);
    if (*s == '#') {
      const char *start = strstr(s, "Collective test starting:");
      if (start && named) {
        rc = fail(err, len, path, at, "a second test starts here: hearsay calibrate reads one collective per file "
                  "(split it, or run each binary or `hearsay-real collective --op X` on its own)");
        break;
      }
      if (start) {
        char name[64] = "";
        sscanf(start + strlen("Collective test starting:"), "%63s", name);
        int i = 0;
        while (i < BINARIES && strcmp(binaries[i].name, name) != 0) i++;
        if (i == BINARIES) {
          rc = fail(err, len, path, at, "%s: hearsay times allreduce, reduce_scatter, allgather, broadcast, reduce, "
                    "alltoall and sendrecv (all_reduce_perf, reduce_scatter_perf, all_gather_perf, broadcast_perf, "
                    "reduce_perf, alltoall_perf, sendrecv_perf)", name);
          break;
        }
        run->kind = binaries[i].kind;
        named = 1;
      } else if (strstr(s, "nThread") && strstr(s, "nGpus")) {
        /* "# nThread 1 nGpus 8 minBytes 8 ...": G GPUs a thread (-g) */
        int g = 0;
        if (sscanf(strstr(s, "nGpus") + strlen("nGpus"), "%d", &g) != 1 || g < 1 || g > HS_GPUS_PER_NODE_MAX) {
          rc = fail(err, len, path, at, "cannot read nGpus here: expected '# nThread T nGpus G ...' with G in 1..%d",
                    HS_GPUS_PER_NODE_MAX);
          break;
        }
        run->gpus_per_thread = g;
        gpus_line = at;
        /* "... graph: 10": iterations captured in a CUDA graph (-G) */
        const char *graph = strstr(s, "graph:");
        if (graph && sscanf(graph + strlen("graph:"), "%d", &run->graph) != 1) run->graph = 0;
        if (run->graph < 0) run->graph = 0;
      } else if (strstr(s, "Rank") && strstr(s, " on ") && strstr(s, "device")) {
        if (!first_rank_line) first_rank_line = at;
        rc = rank_line(s + 1, &t, run->device, sizeof run->device, path, at, err, len);
      }
      continue;
    }
    parsed_row p;
    char copy[2048];
    snprintf(copy, sizeof copy, "%s", s);
    if (*s == '\0' || *s == '\n' || *s == '\r') continue;
    if (!isdigit((unsigned char)*s)) continue; /* NCCL's own INFO lines, warnings */
    if (!data_row(copy, &p)) {
      rc = fail(err, len, path, at, "cannot read this row: expected 'size count type [redop] [root] time algbw "
                "busbw #wrong ...' as nccl-tests prints it");
      break;
    }
    if (p.bytes == 0) continue; /* nccl-tests -b 0: nothing moved */
    if (!(p.time_us > 0) || !isfinite(p.time_us)) {
      rc = fail(err, len, path, at, "time %g us: expected a positive time", p.time_us);
      break;
    }
    if (run->n_rows == cap_rows) {
      cap_rows = cap_rows ? 2 * cap_rows : 32;
      run->rows = realloc(run->rows, (size_t)cap_rows * sizeof *run->rows);
    }
    run->rows[run->n_rows++] = (hs_nccltests_row){p.bytes, p.time_us, p.busbw, at};
    if (best < 0 || p.algbw > best_row.algbw) best = run->n_rows - 1, best_row = p;
  }
  free(line);
  fclose(f);
  if (rc == 0 && run->n_rows == 0)
    rc = fail(err, len, path, 0, "no result rows: not nccl-tests output (expected rows 'size count type ... time "
              "algbw busbw')");
  if (rc == 0 && t.n_hosts == 0 && nodes == 0)
    rc = fail(err, len, path, 0, "no '#  Rank N ... on HOST device D' lines: nccl-tests prints them under "
              "'# Using devices'; they tell how many GPUs ran on how many nodes (or give them: %s@NODESxGPUS)", path);
  if (rc == 0 && nodes > 0 && t.ranks > 0 && t.ranks != nodes * gpus_per_node)
    rc = fail(err, len, path, first_rank_line, "%d rank lines, but %dx%d given", t.ranks, nodes, gpus_per_node);
  if (rc == 0 && nodes > 0) { /* the layout given stands for the rank lines */
    free_table(&t);
    memset(&t, 0, sizeof t);
    t.ranks = nodes * gpus_per_node;
    t.n_hosts = nodes;
    t.per_host = malloc(sizeof *t.per_host);
    t.per_host[0] = gpus_per_node;
    t.seen = malloc((size_t)t.ranks);
    memset(t.seen, 1, (size_t)t.ranks);
  }
  for (int r = 0; rc == 0 && r < t.ranks; r++)
    if (!t.seen[r]) rc = fail(err, len, path, first_rank_line, "rank %d is missing from the rank lines", r);
  for (int h = 1; rc == 0 && h < t.n_hosts && t.hosts; h++)
    if (t.per_host[h] != t.per_host[0])
      rc = fail(err, len, path, first_rank_line, "host %s has %d ranks where %s has %d: hearsay's nodes hold "
                "equally many GPUs", t.hosts[h], t.per_host[h], t.hosts[0], t.per_host[0]);
  /* a thread's GPUs are on its host, and every thread of a node drives
   * as many (nccl-tests gives each process nThread x nGpus of them) */
  if (rc == 0 && t.per_host[0] % run->gpus_per_thread != 0)
    rc = fail(err, len, path, gpus_line, "nGpus %d: the %d GPUs a node (%s) are not threads of %d each",
              run->gpus_per_thread, t.per_host[0], nodes > 0 ? "as given" : "as the rank lines show",
              run->gpus_per_thread);
  if (rc == 0 && t.ranks < 2)
    rc = fail(err, len, path, first_rank_line, "one rank: nothing crosses a link, nothing to calibrate");
  if (rc == 0) {
    run->ranks = t.ranks;
    run->nodes = t.n_hosts;
    run->gpus_per_node = t.per_host[0];
    if (!named && !kind_from_path(path, &run->kind) && !kind_from_table(&best_row, t.ranks, &run->kind))
      rc = fail(err, len, path, 0, "which collective is this? nccl-tests before 2.14 does not say, and the table "
                "cannot tell allgather from alltoall, nor sendrecv (busbw = algbw) from an allreduce on 2 ranks: "
                "name the file after the binary (all_gather_perf.txt, sendrecv_perf.txt)");
  }
  if (rc == 0) snprintf(run->name, sizeof run->name, "%s", hs_nccltests_name(run->kind));
  free_table(&t);
  if (rc) hs_nccltests_free(run);
  return rc;
}

double hs_nccltests_iteration(double collective_s, int gpus_per_thread, double launch_s) {
  double host = (gpus_per_thread > 1 ? gpus_per_thread : 1) * launch_s;
  return collective_s > host ? collective_s : host;
}

int hs_nccltests_launching_gpus(const hs_nccltests_run *run) {
  return run->graph > 0 || run->gpus_per_thread < 1 ? 1 : run->gpus_per_thread;
}

void hs_nccltests_free(hs_nccltests_run *run) {
  free(run->rows);
  run->rows = NULL;
  run->n_rows = 0;
}
