/* test_algorithm_bytes.c — what each algorithm puts on the wire, as counted
 * by the simulator's backend, equals the formula docs/algorithms.md gives.
 *
 * 16 ranks (4 nodes x 4 GPUs), softmax with P = 330 parameters (32 features
 * x 10 classes + 10 biases), 12 iterations; every row of metrics.csv (bytes
 * summed over ranks) is compared with the formula, exactly: both are byte
 * counts. ring(x) is what the ring lowering makes one rank send for an
 * allreduce of x bytes (hs_lower_ring_bytes, itself tested by
 * test_ring_bytes), so n ring(x) = 2 (n-1) x. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algos/comm/lowering.h"
#include "tests/harness.h"
#include "tests/tap.h"
#include "tests/train_run.h"

#define P 330.0
#define ITERS 12

static const char *scenario_fmt =
    "cluster { nodes = %d, gpus_per_node = %d, gpu = { flops = \"1GF\" }, inter = { bandwidth = \"10Gbps\" } }\n"
    "workload { model = \"softmax\", dataset = { classes = 10, features = 32, samples = 8000 },\n"
    "           batch = 16, lr = 0.05 }\n"
    "algorithm { name = \"%s\" %s }\n"
    "run { iterations = %d, seed = 2 }\n"
    "sim { collectives = \"ring\" }\n"; /* the formulas below count the ring's bytes */

static double ring(int n, double bytes) { return n * hs_lower_ring_bytes(HS_OP_ALLREDUCE, n, bytes, 0); }
static double ceil_div(double a, double b) { return ceil(a / b); }

/* Expected bytes of row `it`, summed over ranks, for n ranks. */
typedef double (*formula)(int it, int n, const hs_run_result *r);

static double f_allreduce(int it, int n, const hs_run_result *r) { (void)it, (void)r; return ring(n, 4 * P); }
static double f_half(int it, int n, const hs_run_result *r) { (void)it, (void)r; return ring(n, 2 * P); }
static double f_bytegrad(int it, int n, const hs_run_result *r) {
  (void)it, (void)r;
  return n * 2.0 * (n - 1) * (8 + ceil_div(P, n));
}
static double f_qadam(int it, int n, const hs_run_result *r) { return it < 5 ? f_allreduce(it, n, r) : f_bytegrad(it, n, r); }
static double f_onebit_sign(int it, int n, const hs_run_result *r) {
  (void)it, (void)r;
  return n * 2.0 * (n - 1) * (4 + ceil_div(ceil_div(P, n), 8));
}
static double f_onebit(int it, int n, const hs_run_result *r) { return it < 5 ? f_allreduce(it, n, r) : f_onebit_sign(it, n, r); }
/* PowerSGD tensor by tensor: softmax's weight (10 classes x 32 features)
 * pays ((10 + 32) x 2 x 2 < 320) and is compressed, its bias (10) goes as
 * it is: three allreduces, the bias, P (10 x r) and Q (32 x r). */
static double f_powersgd(int it, int n, const hs_run_result *r) {
  (void)it, (void)r;
  double rows = 10, cols = 32, rank = 2;
  return ring(n, 4 * 10) + ring(n, 4 * rows * rank) + ring(n, 4 * cols * rank);
}
static double f_powersgd_warm(int it, int n, const hs_run_result *r) { return it < 5 ? f_allreduce(it, n, r) : f_powersgd(it, n, r); }
/* batched_powerSGD_hook: the bucket's 330 elements as one square of side
 * ceil(sqrt(330)) = 19 (361 cells, 31 of them padding), always
 * compressed: P and Q, 19 x r each, and nothing else. */
static double f_powersgd_batched(int it, int n, const hs_run_result *r) {
  (void)it, (void)r;
  double side = 19, rank = 2;
  return 2 * ring(n, 4 * side * rank);
}
static double f_shift_one(int it, int n, const hs_run_result *r) { (void)it, (void)r; return n * 4 * P; }
static double f_ring(int it, int n, const hs_run_result *r) { (void)it, (void)r; return n * 2 * 4 * P; }
static double f_lpd(int it, int n, const hs_run_result *r) { (void)it, (void)r; return n * 2 * (8 + P); }
/* hierarchical, 4 nodes of 4: each node's average onto its leader (a
 * reduce: every other GPU sends the model, 4P), the leaders' ring of
 * compressed differences, the leader's result back (a broadcast, 3 x 4P
 * counted at the root) */
static double f_lpd_hier(int it, int n, const hs_run_result *r) {
  (void)it, (void)r;
  int nodes = 4, g = n / nodes;
  return nodes * (2.0 * (g - 1) * 4 * P + 2 * (8 + P));
}
static double f_choco_topk(int it, int n, const hs_run_result *r) { (void)it, (void)r; return n * 2 * 8 * floor(0.1 * P); }
static double f_choco_randk(int it, int n, const hs_run_result *r) { (void)it, (void)r; return n * 2 * 4 * floor(0.25 * P); }
static double f_choco_sign(int it, int n, const hs_run_result *r) { (void)it, (void)r; return n * 2 * (4 + ceil_div(P, 8)); }
static double f_local_sgd(int it, int n, const hs_run_result *r) { (void)r; return (it + 1) % 3 ? 0 : ring(n, 4 * P); }
/* Parameter server (17 ranks, the last a server): only workers report rows. */
static double f_ps_sync(int it, int n, const hs_run_result *r) { (void)it, (void)r; return (n - 1) * 4 * P; }
static double f_ps_async(int it, int n, const hs_run_result *r) { (void)n; return r->count[it] * (4 * P + 4); }

typedef struct {
  const char *name, *options;
  formula f;
  const char *in_words;
} bytes_case;

static const bytes_case cases[] = {
    {"gradient_allreduce", "", f_allreduce, "2(n-1) x 4P"},
    {"fp16_compress", "", f_half, "2(n-1) x 2P"},
    {"bf16_compress", "", f_half, "2(n-1) x 2P"},
    {"bytegrad", "", f_bytegrad, "n x 2(n-1)(8 + ceil(P/n)), about 1/4 of gradient_allreduce"},
    {"qadam", ", warmup_steps = 5", f_qadam, "gradient_allreduce for 5 steps, then bytegrad's"},
    {"onebit_adam", ", warmup_steps = 5", f_onebit, "gradient_allreduce for 5 steps, then n x 2(n-1)(4 + ceil(ceil(P/n)/8))"},
    {"qadam", ", warmup_steps = 0", f_bytegrad, "bytegrad's from the first step"},
    {"onebit_adam", ", warmup_steps = 0", f_onebit_sign, "n x 2(n-1)(4 + ceil(ceil(P/n)/8)) from the first step"},
    {"powersgd", ", rank = 2", f_powersgd, "ring allreduces of the bias (4 x 10), P (4 r x 10) and Q (4 r x 32)"},
    {"powersgd", ", rank = 2, warmup_steps = 5", f_powersgd_warm, "gradient_allreduce for 5 steps (the hook's start_powerSGD_iter), then the bias, P and Q"},
    {"powersgd", ", rank = 2, batched = true", f_powersgd_batched, "ring allreduces of P and Q (4 r x 19 each) of the bucket's padded square"},
    {"decentralized", ", peers = \"shift_one\"", f_shift_one, "one model (4P) per worker"},
    {"decentralized", ", peers = \"ring\"", f_ring, "two models per worker"},
    {"decentralized", ", peers = \"all\"", f_allreduce, "allreduce of the model"},
    {"low_precision_decentralized", "", f_lpd, "2 x (8 + P) per worker"},
    {"low_precision_decentralized", ", hierarchical = true", f_lpd_hier,
     "per node 2 x (8 + P) from its leader, and the model to and from its other GPUs"},
    {"choco", ", compressor = \"topk\", fraction = 0.1", f_choco_topk, "2 x 8k per worker, k = floor(0.1 P)"},
    {"choco", ", compressor = \"randomk\", fraction = 0.25", f_choco_randk, "2 x 4k per worker (values only)"},
    {"choco", ", compressor = \"minmax_uint8\"", f_lpd, "2 x (8 + P) per worker"},
    {"choco", ", compressor = \"sign\"", f_choco_sign, "2 x (4 + ceil(P/8)) per worker"},
    {"local_sgd", ", period = 3", f_local_sgd, "allreduce of the model every third step, nothing between"},
    {"parameter_server", ", mode = \"sync\"", f_ps_sync, "4P pushed per worker"},
    {"parameter_server", ", mode = \"async\"", f_ps_async, "4P + 4 control bytes per push"},
};

int main(void) {
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const bytes_case *k = &cases[c];
    int ps = strcmp(k->name, "parameter_server") == 0;
    int nodes = ps ? 17 : 4, gpn = ps ? 1 : 4, n = nodes * gpn;
    char lua[2048], what[256];
    snprintf(lua, sizeof lua, scenario_fmt, nodes, gpn, k->name, k->options, ITERS);
    snprintf(what, sizeof what, "%s%s", k->name, k->options);
    hs_run_result *r = hs_run_lua(what, lua, 120);
    if (!r) continue;
    int bad = -1;
    for (int it = 0; it < r->rows && bad < 0; it++)
      if (fabs(r->bytes[it] - k->f(it, n, r)) > 0.5) bad = it;
    if (bad < 0)
      tap_ok(r->ok && r->rows > 0, "%s: bytes per iteration == %s (%.0f B in row 0, %d rows)", what, k->in_words,
             r->bytes[0], r->rows);
    else
      tap_ok(0, "%s: bytes per iteration == %s: row %d has %.0f B, formula %.0f B", what, k->in_words, bad,
             r->bytes[bad], k->f(bad, n, r));
    hs_run_free(r);
  }
  return tap_done(0);
}
