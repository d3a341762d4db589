/* trace.c — span storage and Trace Event JSON output. */
#include "algos/report/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int rank, lane;
  double start, end;
  char name[40];
} span;

struct hs_trace {
  span *spans;
  size_t n, cap;
  int max_rank, max_lane;
};

hs_trace *hs_trace_create(void) { return calloc(1, sizeof(hs_trace)); }

void hs_trace_free(hs_trace *t) {
  if (!t) return;
  free(t->spans);
  free(t);
}

void hs_trace_span(hs_trace *t, int rank, int lane, const char *name, double start, double end) {
  if (t->n == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 1024;
    span *s = realloc(t->spans, cap * sizeof *s);
    if (!s) return; /* a trace is best effort: drop the span, not the run */
    t->spans = s;
    t->cap = cap;
  }
  span *s = &t->spans[t->n++];
  s->rank = rank;
  s->lane = lane;
  s->start = start;
  s->end = end;
  snprintf(s->name, sizeof s->name, "%s", name);
  if (rank > t->max_rank) t->max_rank = rank;
  if (lane > t->max_lane) t->max_lane = lane;
}

size_t hs_trace_count(const hs_trace *t) { return t->n; }

void hs_trace_get(const hs_trace *t, size_t i, int *rank, int *lane, const char **name, double *start, double *end) {
  const span *s = &t->spans[i];
  *rank = s->rank;
  *lane = s->lane;
  *name = s->name;
  *start = s->start;
  *end = s->end;
}

static void lane_name(int lane, char *buf, size_t len) {
  if (lane == HS_LANE_COMPUTE) snprintf(buf, len, "compute");
  else if (lane == HS_LANE_WAIT) snprintf(buf, len, "waiting");
  else snprintf(buf, len, "comm stream %d", lane - HS_LANE_COMM);
}

int hs_trace_write(const hs_trace *t, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fprintf(f, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
  int first = 1;
  /* Name each GPU's row and lanes that were used. */
  char *used = calloc((size_t)(t->max_rank + 1) * (t->max_lane + 1), 1);
  for (size_t i = 0; i < t->n; i++) used[t->spans[i].rank * (t->max_lane + 1) + t->spans[i].lane] = 1;
  for (int r = 0; r <= t->max_rank && t->n; r++) {
    fprintf(f, "%s{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"args\": {\"name\": \"GPU %d\"}}",
            first ? "" : ",\n", r, r);
    first = 0;
    for (int l = 0; l <= t->max_lane; l++) {
      if (!used[r * (t->max_lane + 1) + l]) continue;
      char name[32];
      lane_name(l, name, sizeof name);
      fprintf(f, ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %d, \"tid\": %d, \"args\": {\"name\": \"%s\"}}",
              r, l, name);
    }
  }
  free(used);
  for (size_t i = 0; i < t->n; i++) {
    const span *s = &t->spans[i];
    fprintf(f, "%s{\"ph\": \"X\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f}",
            first ? "" : ",\n", s->name, s->rank, s->lane, s->start * 1e6, (s->end - s->start) * 1e6);
    first = 0;
  }
  fprintf(f, "\n]}\n");
  return fclose(f) ? -1 : 0;
}
