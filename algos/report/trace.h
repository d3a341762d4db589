/* trace.h — a timeline of what each rank did, as Chrome/Perfetto JSON.
 *
 * Spans (compute, communication, waiting) are recorded by the training loop
 * and by the backend into one sink per process, then written as a Trace
 * Event file: open it at ui.perfetto.dev or chrome://tracing. Each GPU is a
 * process row; its lanes are the compute thread, the waits, and one lane
 * per communicator stream. Only the first `run.trace` iterations are kept,
 * so a trace stays small at 1024 ranks. */
#ifndef HS_TRACE_H
#define HS_TRACE_H

#include <stddef.h>

typedef enum { HS_LANE_COMPUTE = 0, HS_LANE_WAIT = 1, HS_LANE_COMM = 2 } hs_trace_lane;

typedef struct hs_trace hs_trace;

hs_trace *hs_trace_create(void);
void hs_trace_free(hs_trace *t);
/* One span on rank's lane (HS_LANE_COMM + k for communicator k). The name
 * is copied. Times in seconds. */
void hs_trace_span(hs_trace *t, int rank, int lane, const char *name, double start, double end);
size_t hs_trace_count(const hs_trace *t);
/* The i-th span recorded (for tests and tools). */
void hs_trace_get(const hs_trace *t, size_t i, int *rank, int *lane, const char **name, double *start, double *end);
/* Writes the Trace Event JSON; returns 0 or -1. */
int hs_trace_write(const hs_trace *t, const char *path);

#endif
