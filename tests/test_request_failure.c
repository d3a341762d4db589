/* test_request_failure.c — a failure that strikes an operation is reported
 * by hs_test exactly as by hs_wait (HS_EPEER), never dropped as a clean
 * completion: an algorithm polling with hs_test would otherwise use the
 * results of a collective that a dead rank never contributed to. */
#include "algos/comm/comm.h"
#include "tests/harness.h"
#include "tests/tap.h"

static FILE *out;

static void rank_main(hs_worker *w, void *arg) {
  (void)arg;
  /* 64 MiB over 25 Gbps: tens of milliseconds, and node 1 dies after 1 ms. */
  hs_buf b = hs_buf_virtual((size_t)16 << 20, HS_F32);
  hs_request *q = NULL;
  int posted = hs_allreduce(w, w->world, b, b, HS_SUM, &q);
  int rc = 0, polls = 0;
  while ((rc = hs_test(w, &q)) == 0 && polls < 100000) {
    hs_sleep(w, 1e-4);
    polls++;
  }
  if (w->rank == 0)
    hs_report(out, posted == HS_OK && rc == HS_EPEER && q == NULL,
              "hs_test on an allreduce a failure struck: %d (HS_EPEER = %d) after %d polls at %.4g s, request "
              "released", rc, HS_EPEER, polls, hs_now(w));
  /* On the revoked communicator, a later operation completes at once with
   * HS_EPEER, and test says so as wait would. */
  posted = hs_barrier(w, w->world, &q);
  rc = 0;
  for (polls = 0; (rc = hs_test(w, &q)) == 0 && polls < 1000; polls++) hs_sleep(w, 1e-4);
  if (w->rank == 0)
    hs_report(out, posted == HS_OK && rc == HS_EPEER && q == NULL,
              "hs_test on a barrier posted after the failure: %d (HS_EPEER = %d)", rc, HS_EPEER);
  posted = hs_barrier(w, w->world, &q);
  rc = hs_wait(w, &q);
  if (w->rank == 0)
    hs_report(out, posted == HS_OK && rc == HS_EPEER && q == NULL, "hs_wait says the same: %d", rc);
}

static void child(void *arg, FILE *report) {
  (void)arg;
  out = report;
  hs_scenario sc;
  if (hs_test_load("cluster { nodes = 2, gpus_per_node = 2, gpu = { flops = '100TF' }, inter = { bandwidth = '25Gbps' } }\n"
                   "workload { model = 'resnet50' }\nalgorithm { name = 'gradient_allreduce' }\n"
                   "run { iterations = 1, on_failure = 'shrink' }\nfailures { { node = 1, at = 0.001 } }\n",
                   &sc)) {
    hs_report(report, 0, "scenario loads");
    return;
  }
  hs_test_simulate(&sc, 0, rank_main, NULL, NULL, NULL);
}

int main(void) {
  hs_test_in_child("a failed peer through hs_test", child, NULL, 120);
  return tap_done(0);
}
