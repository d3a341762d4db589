/* system_file.h — writes a cluster's machine as a system file
 * (scenarios/systems/, docs/scenarios.md "Systems"), the inverse of what
 * cluster { system = ... } reads: every key that describes a kind of node
 * and its NICs, none that describes one job's cluster (nodes, racks,
 * overrides, the workload's gpu.efficiency). */
#ifndef HS_SIM_SYSTEM_FILE_H
#define HS_SIM_SYSTEM_FILE_H

#include <stdio.h>

#include "scenarios/scenario.h"

typedef struct {
  const char *name, *description;
  const char *const *header; /* comment lines put above `return`, without "-- " */
  int n_header;
  const char *const *sources; /* the file's sources = { } */
  int n_sources;
  const char *const *marked_keys; /* "intra.efficiency", ...: keys to mark with marks[i] */
  const char *const *marks;
  int n_marked;
} hs_system_file;

/* Writes c's machine to f as a system file. Returns 0, or -1 on a write error. */
int hs_system_file_write(FILE *f, const hs_cluster_spec *c, const hs_system_file *s);

#endif
