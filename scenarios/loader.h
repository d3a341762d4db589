/* loader.h — turn a Lua scenario file into a validated hs_scenario.
 *
 * The file is a Lua 5.4 program that calls the declaration functions
 * cluster{}, workload{}, algorithm{}, run{} and, optionally, sim{}. The
 * loader runs it, applies `--set key.path=value` overrides, checks every
 * field (unknown key, wrong type, missing, out of range, unknown algorithm
 * or model) and converts units. On error it prints one message naming the
 * file, the line and the key to stderr and returns HS_SCENARIO_EBAD (2),
 * the exit code the commands use; nothing is written anywhere. */
#ifndef HS_LOADER_H
#define HS_LOADER_H

#include <stdio.h>

#include "scenarios/scenario.h"

#define HS_SCENARIO_EBAD 2

/* sets: n strings "key.path=value". */
int hs_scenario_load(const char *path, const char *const *sets, int n_sets, hs_scenario *out);

/* `hearsay systems` and `hearsay models`: every shipped system with its
 * description, every shipped timing profile with the line that heads it
 * (read as text). The systems' 1 where a system file would not load, else
 * 0; the models' always 0. */
int hs_system_catalog(FILE *out);
int hs_profile_catalog(FILE *out);

/* Where profile files (scenarios/models/NAME.lua) are looked up, after the
 * scenario's own directory and its models/ subdirectory. */
void hs_scenario_set_models_dir(const char *dir);

/* The memory check assumes every rank runs in this process (the
 * simulator); hearsay-real, one rank per process, sets 1. */
void hs_scenario_set_process_ranks(int n);
/* An upper bound of the memory a run of sc needs with that many ranks in
 * one process (0: all); the part needing most (*what), and the key (and
 * its declaration) most likely to have made it large. Any pointer may be NULL. */
double hs_scenario_memory(const hs_scenario *sc, int ranks_in_process, const char **key, const char **decl,
                          const char **what);

#endif
