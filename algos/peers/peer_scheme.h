/* peer_scheme.h — a decentralized peer-selection scheme, and the schedule
 * built from it one step at a time.
 *
 * A scheme answers one question: at gossip step `step`, with whom does
 * `rank` (of n) exchange, and with what weight? Schemes are written in C
 * (peer_builtin.c) or as Lua functions in a scenario (scenarios/peer_lua.c);
 * the algorithms see only this interface, never Lua.
 *
 * Two kinds:
 *   undirected  rank lists its neighbours; i lists j exactly when j lists i.
 *               Each sends its weights to each neighbour and receives theirs;
 *               x_i <- w_ii x_i + sum_j w_ij x_j with w_ij the weight i gave
 *               j (rows of W sum to 1 by construction, the self weight is
 *               the rest).
 *   directed    rank lists whom it sends to ("send-to" lists, SGP style) and
 *               the share of its mass each one gets; receivers are whoever
 *               is targeted. Columns of W sum to 1; push-sum de-biasing
 *               makes the average come out right when rows do not.
 * A weight left out (negative) means uniform: 1/(degree + 1). */
#ifndef HS_PEER_SCHEME_H
#define HS_PEER_SCHEME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HS_PEER_NAME_MAX 64
#define HS_PEER_ERR_MAX 512

typedef struct {
  int peer;
  double weight; /* < 0: uniform (1/(degree + 1)) */
} hs_peer_edge;

typedef struct hs_peer_scheme hs_peer_scheme;

typedef struct {
  /* Writes the peers of `rank` at `step` into out[0..max) and returns how
   * many there are (that may exceed max: the caller then asks again with
   * room for all). Returns -1 and fills err when the scheme fails (a Lua
   * error, a value that is not a peer list). */
  int (*select)(hs_peer_scheme *s, int rank, int n, long step, hs_peer_edge *out, int max, char *err, size_t len);
  void (*destroy)(hs_peer_scheme *s);
} hs_peer_scheme_ops;

struct hs_peer_scheme {
  const hs_peer_scheme_ops *ops;
  char name[HS_PEER_NAME_MAX]; /* as the user named it: "exp2", "function at file:12" */
  bool directed;               /* send-to lists, push-sum */
  bool allreduce;              /* "all": every rank averages with every rank, run as an allreduce */
  bool hierarchical;           /* a machine-level scheme: among node leaders, after an intra-node average */
  uint64_t seed;               /* the run's seed, for randomised schemes */
  void *impl;
  struct hs_peer_schedule *shared; /* hs_peer_scheme_schedule's cache */
  struct hs_peer_graph *graph;     /* hs_peer_scheme_graph's cache (peer_graph.h) */
  double select_seconds;       /* wall time spent inside select(), for the cost report */
  long select_calls;
};

/* The built-in schemes, by name (peer_builtin.c); NULL when unknown. The
 * caller owns the result (hs_peer_scheme_free). */
hs_peer_scheme *hs_peer_builtin(const char *name);
/* "all, ring, ..." for messages; one line about a built-in, or NULL. */
const char *hs_peer_builtin_names(void);
const char *hs_peer_builtin_summary(const char *name);
void hs_peer_scheme_free(hs_peer_scheme *s);

/* One step of a schedule, validated: for each rank its out-edges (whom it
 * sends to, and the weight the receiver applies) and in-edges (whom it
 * receives from, and the weight it applies), in CSR form, plus self weights.
 * Weights are those of the mixing matrix W: x_new[i] = W[i][i] x[i] +
 * sum over in-edges (j, W[i][j]) x[j]. */
typedef struct {
  long step;
  int n;
  int *out_off, *in_off; /* n + 1 offsets */
  hs_peer_edge *out, *in;
  double *self; /* W[i][i] */
} hs_peer_step;

typedef struct hs_peer_schedule hs_peer_schedule;

/* A cache of recent steps of `scheme` over n ranks; shared by every rank of a
 * simulation (they ask for the same steps at about the same time). */
hs_peer_schedule *hs_peer_schedule_create(hs_peer_scheme *scheme, int n);
void hs_peer_schedule_free(hs_peer_schedule *ps);
/* The step, built and validated on first use. NULL when the scheme is broken
 * at that step: err names the step, the ranks and what is wrong (and, for a
 * Lua scheme, the Lua error with its line). */
const hs_peer_step *hs_peer_schedule_get(hs_peer_schedule *ps, long step, char *err, size_t len);
/* The same, for a caller that cannot recover: prints err and exits 2 (the
 * exit code of a bad scenario), so a scheme that breaks at step 500 of a run
 * ends it with a message instead of a hang. */
const hs_peer_step *hs_peer_schedule_get_or_exit(hs_peer_schedule *ps, long step);

/* The schedule every rank of this process shares for this scheme over n
 * ranks (created on first use, freed with the scheme). */
hs_peer_schedule *hs_peer_scheme_schedule(hs_peer_scheme *s, int n);

/* Checks steps [0, steps) over n ranks: 0, or -1 with err filled. */
int hs_peer_scheme_check(hs_peer_scheme *scheme, int n, long steps, char *err, size_t len);

#endif
