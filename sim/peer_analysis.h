/* peer_analysis.h — what a peer-selection scheme does to consensus, without
 * training: its mixing matrices, their spectrum and the decay they produce.
 *
 * The mixing matrix of step t is W_t with x_{t+1} = W_t x_t (see
 * algos/peers/peer_scheme.h for how undirected and directed schemes define it).
 * Consensus is governed by
 *   rho = sigma_max(P - 11^T/n)  for a doubly stochastic P,
 *   rho = |lambda_2(P)|          otherwise (push-sum),
 * where P = W_0 for a static scheme, the product over one period for a
 * periodic one, or over a window of steps for one that never repeats; the
 * per-step rate is rho^(1/steps in P). GSL computes both. */
#ifndef HS_PEER_ANALYSIS_H
#define HS_PEER_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "algos/peers/peer_scheme.h"

typedef struct {
  int n;
  long steps; /* checked and gossiped */
  /* mixing matrices, over every checked step */
  bool nonnegative, rows_stochastic;
  double row_min, row_max, col_min, col_max;
  bool doubly_stochastic;
  /* shape of the schedule */
  int period;       /* 1: static, p: repeats every p steps, 0: did not repeat within the steps kept */
  int product_steps; /* how many matrices the spectral product spans */
  int deg_out_max, deg_in_max;
  double deg_out_mean; /* messages sent per rank per step, averaged */
  int busiest_nic;     /* most messages leaving one node in one step */
  /* spectrum */
  bool spectral_done; /* false when n is above HS_PEER_SPECTRAL_MAX */
  bool rho_is_sigma;  /* sigma_max(P - J) (doubly stochastic) or |lambda_2(P)| */
  double rho_product; /* of the product */
  double rho_step;    /* per step: rho_product^(1/product_steps) */
  double asymptotic_step; /* per step, from the spectral radius of P - J: the rate a
                             long decay settles at (equals rho_step for one
                             symmetric or circulant W) */
  /* measured: random vectors gossiped for `steps` steps (push-sum when directed) */
  double *error; /* steps + 1 entries: ||z_t - mean|| / ||x_0 - mean|| */
  double measured_rate;   /* per-step factor fitted on the decaying part; NAN if it converged too fast */
  long fit_from, fit_to;  /* the steps the fit used */
  long exact_step;        /* first step with error < 1e-12, or -1 */
} hs_peer_report;

#define HS_PEER_SPECTRAL_MAX 1024

/* Checks and characterises `steps` steps of the scheme over n ranks, of
 * which `per_node` share a node (its NIC). Returns 0, or -1 with err naming
 * the step, ranks and problem. */
int hs_peer_analyze(hs_peer_scheme *s, int n, int per_node, long steps, uint64_t seed, hs_peer_report *out, char *err,
                    size_t len);
void hs_peer_report_free(hs_peer_report *r);

#endif
