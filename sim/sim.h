/* sim.h — run ranks on the SimGrid backend.
 *
 * hs_sim_run starts SimGrid with the scenario's network model, loads the
 * platform, gives each GPU one actor running `main`, and runs the
 * simulation to its end. SimGrid allows one simulation per process: callers
 * that need several (tests, sweeps) run each in a child process. */
#ifndef HS_SIM_H
#define HS_SIM_H

#include "algos/comm/comm.h"
#include "scenarios/scenario.h"

typedef void (*hs_rank_main)(hs_worker *w, void *arg);

typedef struct {
  const hs_scenario *sc;
  const char *platform_file; /* written by hs_platform_write */
  hs_rank_main main;
  void *arg;
  int n_ranks; /* ranks on GPUs 0..n_ranks-1; 0: one per GPU */
  hs_trace *trace; /* where ranks record timeline spans, or NULL */
} hs_sim_config;

#define HS_SIM_FAILURES_MAX 16

typedef struct {
  double simulated_time; /* clock at the end */
  double wall_time;      /* seconds the simulation took */
  long messages;         /* point-to-point messages simulated */
  long fast_collectives; /* collectives timed without messages (fidelity fast) */
  long collectives[HS_COLL_ALGOS]; /* collectives run, by the schedule the selector chose */
  long protocols[HS_PROTOS + 1];   /* and by the protocol that carried them (hs_proto, HS_PROTO_NONE) */
  long unmodelled[HS_UNMODELLED_KINDS]; /* of them, where NCCL's model picks an algorithm hearsay does not run
                                          (hs_unmodelled; [0] unused): NCCL's NVLS tree, PAT */
  long by_messages;      /* of those, run message by message (step, or fast's fallbacks) */
  long actors;           /* SimGrid actors started: ranks, the stream actors needed, threads */
  /* failures { } that struck before the end (the first HS_SIM_FAILURES_MAX) */
  int n_failures;
  double failure_time[HS_SIM_FAILURES_MAX];
  char failure_what[HS_SIM_FAILURES_MAX][48]; /* "node 3", "link rack1" */
  int ranks_lost;
  int aborted; /* run.on_failure = "abort" and a failure struck */
  /* Bytes each node (then each server machine) sent to other nodes, as the
   * message-level transport put them on the wire: every point-to-point
   * message and every collective run message by message (step), but not
   * the collectives fidelity fast times as flows. The first
   * HS_SIM_NIC_TRACKED nodes; what the placement tests count. */
#define HS_SIM_NIC_TRACKED 64
  double nic_sent[HS_SIM_NIC_TRACKED];
} hs_sim_stats;

int hs_sim_run(const hs_sim_config *cfg, hs_sim_stats *stats);

/* "step" or "fast": how collectives are timed for this scenario over n
 * ranks (sim.fidelity; auto is step up to HS_FIDELITY_AUTO_STEP_MAX). Fast
 * needs CM02 without crosstraffic and links that stay put (no failures, no
 * network events); otherwise it is step. */
const char *hs_sim_fidelity(const hs_scenario *sc, int n);

/* The route between ranks a and b of the running simulation, as SimGrid
 * has it (w: any of its workers): its latency (s) and its narrowest
 * bandwidth (bytes/s). */
void hs_sim_route(const hs_worker *w, int a, int b, double *latency, double *bandwidth);

/* The comm-op table of this backend. */
extern const hs_backend hs_sim_backend;

#endif
