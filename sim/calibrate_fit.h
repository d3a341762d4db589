/* calibrate_fit.h — fits a cluster's link and transport parameters to
 * nccl-tests measurements (`hearsay calibrate`, docs/fidelity.md
 * "Calibrating from nccl-tests").
 *
 * What is fitted is what a system file can honestly hold, one value for
 * the whole machine whatever the size or the collective: what NCCL's
 * copies reach of a GPU link's line rate and a GPU link's latency (from the
 * runs on one node), what the switch's reductions reach (NVLS nodes), and
 * what a transfer across nodes gets of the NIC's line rate and what every
 * message across nodes pays beyond NCCL's own per-hop latencies (from the
 * runs across nodes, with the node's values held); on TCP also what one
 * socket thread moves (inter.stream_bandwidth), which bounds a GPU's
 * connections where the NIC does not; and, from runs whose threads drive
 * several GPUs (nccl-tests -g), what a kernel launch costs the host
 * (gpu.launch_overhead), which paces them at small sizes
 * (hs_nccltests_iteration). The line rates
 * themselves stay the system's: they are datasheet facts.
 *
 * The model fitted is hearsay's tuner (tuner.h): the schedule and protocol
 * the run would pick for each size, timed by its closed form, corrected
 * row by row by the simulation (hs_calib_case). The fit minimises the
 * mean penalty (hs_calib_penalty) of the log ratio of predicted to
 * measured time, each run weighing the same, so that a 8 B row and a 1 GiB
 * row count alike (latency and bandwidth both matter), with GSL's
 * Nelder-Mead simplex over bounded parameters. A parameter the measurements do not depend on (a node's
 * links under a NIC-bound ring) is kept and said so. */
#ifndef HS_SIM_CALIBRATE_FIT_H
#define HS_SIM_CALIBRATE_FIT_H

#include "scenarios/scenario.h"
#include "sim/nccltests.h"

typedef enum {
  HS_CALIB_INTRA_EFFICIENCY,
  HS_CALIB_INTRA_LATENCY,
  HS_CALIB_NVLS_EFFICIENCY,
  HS_CALIB_INTER_EFFICIENCY,
  HS_CALIB_INTER_LATENCY, /* inter.latency on RDMA, inter.message_cost on TCP */
  HS_CALIB_STREAM_BANDWIDTH, /* inter.stream_bandwidth: TCP only (RDMA has no streams) */
  HS_CALIB_IN_NETWORK_EFFICIENCY, /* inter.in_network_efficiency: SHARP's share, from runs through the fabric */
  HS_CALIB_LAUNCH_OVERHEAD,  /* gpu.launch_overhead: only from runs whose threads drive several GPUs (-g) */
  HS_CALIB_STAGING_BANDWIDTH, /* host.staging_bandwidth: from runs on one node without peer access (intra.p2p) */
  HS_CALIB_PARAMS
} hs_calib_param;

/* One measured run and the scenario on its nodes and GPUs. correction[i]
 * (or 1 where NULL) multiplies the tuner's prediction of row i: the ratio
 * of the simulated time to the tuner's at the previous fit, so that the
 * fit, repeated, converges on what the simulation gives (the tuner's closed
 * forms ignore some of the overlap the pipelined ring gets across
 * channels: up to 28% above the simulated time at 2-8 MiB over 2 nodes). */
typedef struct {
  const hs_nccltests_run *run;
  hs_scenario *sc;
  const double *correction;
} hs_calib_case;

typedef enum {
  HS_CALIB_FITTED,
  HS_CALIB_NO_DATA,     /* no run on one node (intra) or across nodes (inter); no -g run (launch) */
  HS_CALIB_NO_EFFECT,   /* the runs' predicted times do not depend on it */
  HS_CALIB_HELD,        /* intra.efficiency where the node has no peer access (host.staging_bandwidth is fitted);
                           inter.efficiency where every run across nodes goes through the fabric
                           (sim.collectives = collnet): those runs fit SHARP's share instead */
} hs_calib_status;

typedef struct {
  const char *key; /* "cluster.intra.efficiency", ... */
  double before, after;
  hs_calib_status status;
  int at_bound; /* the fit ended at its range's end: the model cannot reach the data there */
} hs_calib_result;

/* The penalty of a row whose log ratio of predicted to measured time is e:
 * e^2 within HS_CALIB_SCALE (5%), growing linearly beyond (soft-L1), so
 * that a size where the protocol or the schedule switches at a slightly
 * different size than on the measured machine (nccl-tests tables show such
 * steps; so does the model, where its tuner's pick flips) pulls the fit
 * less than a square would let it. */
#define HS_CALIB_SCALE 0.05
double hs_calib_penalty(double e);

/* Predicted seconds of collective k of `bytes` (the whole vector) over
 * every GPU of sc: the selector's pick for that size, timed by the tuner. */
double hs_calib_predict(const hs_scenario *sc, hs_op_kind k, double bytes);

/* The fit's objective for the cases as they stand: mean over cases of the
 * mean over rows of the penalty of ln(predicted / measured). */
double hs_calib_loss(const hs_calib_case *cases, int n);

/* Fits every parameter the cases can tell, writing the fitted values into
 * every case's scenario (all cases share them). out[p] says what became of
 * parameter p. The values are rounded as the system file writes them:
 * efficiencies to 4 significant digits, latencies to 10 ns. */
void hs_calib_fit(hs_calib_case *cases, int n, hs_calib_result out[HS_CALIB_PARAMS]);

/* The parameter's field in a scenario, and its key. */
double *hs_calib_field(hs_scenario *sc, hs_calib_param p);
const char *hs_calib_key(const hs_scenario *sc, hs_calib_param p);

#endif
