/* test_stragglers.c — stragglers { } and network { }: the sampled noise has
 * its distribution's moments, an iteration of gradient_allreduce lasts the
 * slowest rank's compute plus the collective, rank by rank, windows and
 * hiccups change exactly the iterations they cover, a link event slows the
 * iterations inside it, and impossible descriptions are refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/train/straggler.h"
#include "scenarios/gpu_spread.h"
#include "tests/harness.h"
#include "tests/run_csv.h"
#include "tests/tap.h"

/* ---- sampled noise ---------------------------------------------------------------- */

#define ITERS 10000
#define GPUS 8

static const char *noise_fmt =
    "cluster { nodes = 2, gpus_per_node = 4, gpu = { flops = '1TF' }, inter = { bandwidth = '10Gbps' } }\n"
    "workload { model = 'resnet50' }\nalgorithm { name = 'gradient_allreduce' }\nrun { iterations = 1, seed = 11 }\n"
    "stragglers { { noise = '%s', %s } }\n";

static void test_noise(void) {
  struct {
    const char *name, *params;
    double mean, var;
  } d[] = {
      {"lognormal", "mu = 0.1, sigma = 0.5", exp(0.1 + 0.125), (exp(0.25) - 1) * exp(0.2 + 0.25)},
      {"exponential", "mean = 0.3", 1.3, 0.09},
      {"pareto", "shape = 10, scale = 1.2", 10 * 1.2 / 9, 1.44 * 10 / (81.0 * 8)},
      {"uniform", "min = 0.8, max = 1.6", 1.2, 0.64 / 12},
  };
  for (size_t k = 0; k < sizeof d / sizeof *d; k++) {
    char lua[1024];
    snprintf(lua, sizeof lua, noise_fmt, d[k].name, d[k].params);
    hs_scenario sc;
    if (hs_test_load(lua, &sc)) {
      tap_ok(0, "%s scenario loads", d[k].name);
      continue;
    }
    /* Every GPU's stream is independent: 8 GPUs x 10 000 iterations pooled. */
    double sum = 0, sq = 0, first[GPUS];
    for (int r = 0; r < GPUS; r++) {
      hs_straggler *s = hs_straggler_create(&sc, r);
      for (int i = 0; i < ITERS; i++) {
        double x = hs_straggler_factor(s, i, 0, NULL, 0);
        if (i == 0) first[r] = x;
        sum += x, sq += x * x;
      }
      hs_straggler_free(s);
    }
    double n = (double)GPUS * ITERS, mean = sum / n, var = (sq - n * mean * mean) / (n - 1);
    /* 3% (the bound): at 80 000 draws the standard error of the
     * sample variance is at most 1.5% of it for these (excess kurtosis <= 15,
     * Pareto's with shape 10; SE = sqrt((kurtosis + 2) / n)). */
    tap_ok(fabs(mean / d[k].mean - 1) < 0.03 && fabs(var / d[k].var - 1) < 0.03,
           "%s(%s): mean %.5f (exact %.5f), variance %.5f (exact %.5f), within 3%%", d[k].name, d[k].params, mean,
           d[k].mean, var, d[k].var);
    tap_ok(first[0] != first[1] && first[1] != first[2], "%s: each GPU draws its own stream", d[k].name);
    hs_straggler *again = hs_straggler_create(&sc, 0);
    tap_ok(hs_straggler_factor(again, 0, 0, NULL, 0) == first[0], "%s: the same seed draws the same", d[k].name);
    hs_straggler_free(again);
    hs_scenario_free(&sc);
  }
  /* per = "node": a node's GPUs share each draw. */
  char lua[1024];
  snprintf(lua, sizeof lua, noise_fmt, "lognormal", "sigma = 0.5, per = 'node'");
  hs_scenario sc;
  if (hs_test_load(lua, &sc) == 0) {
    hs_straggler *s[GPUS];
    for (int r = 0; r < GPUS; r++) s[r] = hs_straggler_create(&sc, r);
    int same = 1, differ = 0;
    for (int i = 0; i < 100; i++) {
      double x[GPUS];
      for (int r = 0; r < GPUS; r++) x[r] = hs_straggler_factor(s[r], i, 0, NULL, 0);
      same &= x[0] == x[1] && x[0] == x[3] && x[4] == x[5] && x[4] == x[7];
      differ += x[0] != x[4];
    }
    tap_ok(same && differ == 100, "per = 'node': GPUs of a node share every draw, nodes differ");
    for (int r = 0; r < GPUS; r++) hs_straggler_free(s[r]);
    hs_scenario_free(&sc);
  }
  /* draws = "once": a GPU keeps its first draw for the run (GPUs that
   * differ for good), the first draw of its per-iteration stream */
  snprintf(lua, sizeof lua, noise_fmt, "uniform", "min = 1, max = 1.1, draws = 'once'");
  char lua_it[1024];
  snprintf(lua_it, sizeof lua_it, noise_fmt, "uniform", "min = 1, max = 1.1");
  hs_scenario it_sc;
  if (hs_test_load(lua, &sc) == 0 && hs_test_load(lua_it, &it_sc) == 0) {
    int constant = 1, first_draw = 1, spread = 0;
    double prev = 0;
    for (int r = 0; r < GPUS; r++) {
      hs_straggler *s = hs_straggler_create(&sc, r), *t = hs_straggler_create(&it_sc, r);
      double x0 = hs_straggler_factor(s, 0, 0, NULL, 0);
      for (int i = 1; i < 1000; i++) constant &= hs_straggler_factor(s, i, 0.001 * i, NULL, 0) == x0;
      first_draw &= hs_straggler_factor(t, 0, 0, NULL, 0) == x0 && x0 >= 1 && x0 <= 1.1;
      spread += r > 0 && x0 != prev;
      prev = x0;
      hs_straggler_free(s);
      hs_straggler_free(t);
    }
    tap_ok(constant && first_draw && spread == GPUS - 1,
           "draws = 'once': each GPU keeps its first draw for 1000 iterations, GPUs differ");
    hs_scenario_free(&sc);
    hs_scenario_free(&it_sc);
  } else {
    tap_ok(0, "draws = 'once' scenarios load");
  }
}

/* ---- iterations by hand ------------------------------------------------------------- */

/* No overlap, one bucket: compute, then one allreduce. 1 Tflop/s GPUs make
 * ResNet-50's compute milliseconds long, far above rounding. The links
 * alone (sim.protocol = "none"): with a protocol, a message leaves its
 * hop's latency after its sender posts it, so a late rank finds its first
 * message waiting, and how much that saves depends on whether that hop
 * crosses nodes: the collective's time after the last arrival would differ
 * by a few microseconds with the late rank's place in the ring. The ring
 * is pinned: the tree the tuner picks here (two nodes: each NIC carries M,
 * not the ring's 1.5 M) forwards on arrival, so ranks that arrive early
 * already move their first slices, and what is left after the last
 * arrival depends on where in the trees the late rank sits. DDP's buffer
 * broadcast before forward is off: the closed form is compute then one
 * allreduce (test_kernel_costs times the broadcast). */
static const char *base_lua =
    "cluster { nodes = 2, gpus_per_node = 2, gpu = { flops = '20TF', variability = %s }, inter = { bandwidth = '25Gbps' } }\n"
    "workload { model = 'resnet50', batch = 16 }\n"
    "algorithm { name = 'gradient_allreduce', overlap = false, bucket_size = '1GiB', broadcast_buffers = false }\n"
    "run { iterations = %d, seed = 5 } sim { protocol = 'none', collectives = 'ring' }\n%s";

/* Identical GPUs (variability 0): the closed forms below are of one
 * compute time c on every GPU but the stragglers'. */
static void run_spread(const char *name, int iters, const char *variability, const char *extra, hs_csv_run *r) {
  char lua[4096];
  snprintf(lua, sizeof lua, base_lua, variability, iters, extra);
  hs_csv_run_lua(name, lua, NULL, r);
}

static void run(const char *name, int iters, const char *extra, hs_csv_run *r) {
  run_spread(name, iters, "0", extra, r);
}

/* 1e-9 relative: both sides are sums of a few dozen doubles (SimGrid's clock,
 * our compute and collective times), whose rounding stays near 1e-15; any
 * modelling difference is larger than 1e-6 of an iteration. */
static int close_to(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(1, fabs(b)); }

static void test_by_hand(hs_csv_run *base) {
  double c = hs_csv(base, 0, "compute_s"), T = hs_csv(base, 0, "iter_time_s") - c;
  tap_ok(base->rc == 0 && c > 1e-3 && T > 1e-4, "baseline: compute %.6f s, collective %.6f s per iteration", c, T);
  static hs_csv_run r;
  for (int rank = 0; rank < 4; rank++) {
    char extra[256], name[32];
    snprintf(extra, sizeof extra, "stragglers { { gpu = %d, slowdown = 3 } }\n", rank);
    snprintf(name, sizeof name, "slow%d", rank);
    run(name, 3, extra, &r);
    int ok = r.rc == 0 && r.rows == 3;
    for (int i = 0; i < r.rows; i++)
      ok &= hs_csv(&r, i, "slowest_rank") == rank && close_to(hs_csv(&r, i, "slowest_compute_s"), 3 * c) &&
            close_to(hs_csv(&r, i, "iter_time_s"), 3 * c + T);
    tap_ok(ok, "GPU %d 3x slower: every iteration = 3 x %.6f + %.6f = %.6f s (got %.6f), slowest rank %g", rank, c, T,
           3 * c + T, hs_csv(&r, 0, "iter_time_s"), hs_csv(&r, 0, "slowest_rank"));
  }
  run("two", 3, "stragglers { { gpu = 1, slowdown = 2 }, { node = 1, slowdown = 1.5 }, { gpu = 3, slowdown = 2 } }\n",
      &r);
  tap_ok(r.rc == 0 && hs_csv(&r, 1, "slowest_rank") == 3 && close_to(hs_csv(&r, 1, "iter_time_s"), 3 * c + T),
         "combined: GPU 3 is 2 x 1.5 = 3x (node 1's and its own), the slowest; iteration %.6f s = 3c + T",
         hs_csv(&r, 1, "iter_time_s"));
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* ---- identical GPUs that differ ------------------------------------------------------- */

/* cluster.gpu.variability (scenarios/gpu_spread.h): the 4 GPUs run at the
 * quantiles 1/5 ... 4/5 of a spread of v around a typical GPU's speed,
 * rounded to v/16: -0.3 and -0.1 of v (x 16: -4.8, -1.6) to -5/16 and
 * -2/16, so 0.975, 0.99, 1.01, 1.025, placed by (3r + 2) mod 4 (3: the
 * first number from 0.618 x 4 up that is prime to 4): GPU 2 is the
 * slowest, and rank 0 is not. The spread's factors average 1 (a typical
 * GPU is what one GPU's measurement calibrates) and the slowest of n is
 * 1 - v/2 + v/(n + 1), rounded so, for any n. */
static void test_spread(void) {
  /* launches cost nothing here: they are the host's, and do not scale
   * with a GPU's speed as its FLOPs do */
  static hs_csv_run same, r;
  run_spread("spread_none", 3, "0, launch_overhead = 0", "", &same);
  double c = hs_csv(&same, 0, "compute_s"), T = hs_csv(&same, 0, "iter_time_s") - c;
  run_spread("spread", 3, "0.08, launch_overhead = 0", "", &r);
  /* GPU 2 is the slowest; its compute is its FLOPs at 0.975 of the speed
   * plus what does not scale with it (DDP's copies into the buckets are
   * memory-bound: c < its compute <= c / 0.975; the platform's speeds
   * themselves are checked exactly in test_platform). The iteration is
   * that compute and then the allreduce, less what the three faster GPUs,
   * which arrive one after the other (unlike one straggler's three equal
   * peers above), already moved among themselves of the ring's first
   * steps: at most the slices that do not need GPU 2's data. The bound,
   * 1e-4 of the iteration, is what was observed (4 us of 72 ms), not
   * derived. */
  int ok = same.rc == 0 && r.rc == 0 && r.rows == 3;
  for (int i = 0; i < r.rows; i++) {
    double it = hs_csv(&r, i, "iter_time_s"), slow = hs_csv(&r, i, "slowest_compute_s");
    ok &= hs_csv(&r, i, "slowest_rank") == 2 && slow > c * (1 + 1e-3) && slow <= c / 0.975 * (1 + 1e-9) &&
          it <= (slow + T) * (1 + 1e-9) && it >= (slow + T) * (1 - 1e-4);
  }
  tap_ok(ok, "variability 0.08 on 4 GPUs: GPU 2 the slowest, its compute %.9f s in (c, c / 0.975] = (%.9f, %.9f], "
         "every iteration that and the allreduce's %.9f s (got %.9f, slowest rank %g)",
         hs_csv(&r, 0, "slowest_compute_s"), c, c / 0.975, T, hs_csv(&r, 0, "iter_time_s"),
         hs_csv(&r, 0, "slowest_rank"));
  double want = hs_csv(&r, 0, "iter_time_s");
  run_spread("spread_default", 3, "nil, launch_overhead = 0", "", &r);
  tap_ok(r.rc == 0 && close_to(hs_csv(&r, 0, "iter_time_s"), want),
         "by default the spread is Sinha et al.'s 8%%: the same %.9f s", hs_csv(&r, 0, "iter_time_s"));
  const int sizes[][2] = {{1, 1}, {1, 2}, {7, 1}, {1, 6}, {1, 8}, {3, 5}, {5, 6}, {128, 8}};
  int all = 1;
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    hs_cluster_spec cl = {.nodes = sizes[k][0], .gpus_per_node = sizes[k][1], .gpu_variability = 0.08};
    int n = cl.nodes * cl.gpus_per_node;
    /* every quantile once (the placement a bijection): the factors, sorted,
     * are the quantiles rounded to 1/16, sorted */
    double *got = malloc((size_t)n * sizeof *got), *want = malloc((size_t)n * sizeof *want), sum = 0;
    for (int g = 0; g < n; g++) {
      got[g] = hs_gpu_spread_factor(&cl, g), sum += got[g];
      want[g] = n == 1 ? 1 : 1 + 0.08 * round(16 * ((g + 1.0) / (n + 1) - 0.5)) / 16;
    }
    qsort(got, (size_t)n, sizeof *got, by_value);
    qsort(want, (size_t)n, sizeof *want, by_value);
    int same = 1;
    for (int g = 0; g < n; g++) same &= fabs(got[g] - want[g]) < 1e-15;
    double exact = n == 1 ? 1 : 1 - 0.04 + 0.08 / (n + 1);
    int ok_n = same && fabs(sum / n - 1) < 1e-12 && fabs(got[0] - hs_gpu_spread_slowest(&cl)) < 1e-15 &&
               fabs(got[0] - exact) <= 0.08 / 32 + 1e-15 &&
               (n == 1 || fabs(hs_gpu_spread_factor(&cl, 0) - 1) <= 0.08 / (n + 1) + 0.08 / 32 + 1e-15);
    if (!ok_n) tap_diag("%d GPUs: quantiles %d, mean %.15g, slowest %.15g (exact %.15g)", n, same, sum / n, got[0], exact);
    all &= ok_n;
    free(got);
    free(want);
  }
  tap_ok(all, "the spread on 1 to 1024 GPUs: each rounded quantile once, factors averaging 1, the slowest 1 - v/2 + "
         "v/(n + 1) within the rounding (v/32), rank 0 a typical GPU");
}

/* ---- windows and hiccups ------------------------------------------------------------ */

/* The end of compute that starts at t and needs c seconds of running, with
 * pauses [s_k, s_k + d) (written independently of algos/train/straggler.c). */
static double compute_end(double t, double c, double start, double every, double d) {
  double left = c;
  for (long k = 0;; k++) {
    double s = start + k * every, e = s + d;
    if (e <= t) continue;
    if (s >= t + left) return t + left;
    if (s > t) left -= s - t;
    t = e;
  }
}

static void test_window_hiccup(hs_csv_run *base) {
  double c = hs_csv(base, 0, "compute_s"), T = hs_csv(base, 0, "iter_time_s") - c, it = c + T;
  static hs_csv_run r;
  /* The window opens mid-iteration 5 and lasts about three iterations. */
  double from = 5.5 * it, to = from + 3 * it;
  char extra[512];
  snprintf(extra, sizeof extra, "stragglers { { gpu = 2, slowdown = 4, from = %.17g, to = %.17g } }\n", from, to);
  run("window", 20, extra, &r);
  int ok = r.rc == 0 && r.rows == 20, changed = 0;
  double t = 0;
  for (int i = 0; i < r.rows; i++) {
    int inside = t >= from && t < to;
    double expect = inside ? 4 * c + T : it;
    ok &= close_to(hs_csv(&r, i, "iter_time_s"), expect);
    changed += inside;
    t += expect;
  }
  tap_ok(ok && changed >= 2, "a 4x window from %.4f s to %.4f s slows exactly the %d iterations starting inside it",
         from, to, changed);

  /* Pauses of 0.3c every 2.5 iterations from mid-iteration 2: some land in
   * compute, some in the collective (and delay the next compute). */
  double d = 0.3 * c, every = 2.5 * it, start = 2 * it + 0.5 * c;
  snprintf(extra, sizeof extra, "stragglers { { gpu = 1, pause = %.17g, every = %.17g, start = %.17g } }\n", d, every,
           start);
  run("hiccup", 20, extra, &r);
  ok = r.rc == 0 && r.rows == 20;
  int hit = 0;
  t = 0;
  for (int i = 0; i < r.rows; i++) {
    double end = compute_end(t, c, start, every, d) + T, expect = end - t;
    if (!close_to(hs_csv(&r, i, "iter_time_s"), expect))
      tap_diag("row %d: iteration %.9f s, expected %.9f s", i, hs_csv(&r, i, "iter_time_s"), expect);
    ok &= close_to(hs_csv(&r, i, "iter_time_s"), expect);
    hit += !close_to(expect, it);
    t = end;
  }
  tap_ok(ok && hit >= 3, "hiccups (%.2g s every %.2g s) change exactly the %d iterations whose compute they stall", d,
         every, hit);
}

/* ---- network events ---------------------------------------------------------------- */

static void test_network(hs_csv_run *base) {
  double it = hs_csv(base, 0, "iter_time_s");
  static hs_csv_run r;
  char extra[512];
  snprintf(extra, sizeof extra, "network { { link = 'node1', bandwidth = 0.25, from = %.17g, to = %.17g } }\n",
           4.5 * it, 7.5 * it);
  run("degrade", 15, extra, &r);
  int slow = 0, ok = r.rc == 0 && r.rows == 15;
  for (int i = 0; i < r.rows; i++) {
    double x = hs_csv(&r, i, "iter_time_s");
    slow += x > it * 1.01;
    ok &= i < 4 ? close_to(x, it) : 1;
  }
  ok &= close_to(hs_csv(&r, 14, "iter_time_s"), it);
  tap_ok(ok && slow >= 2 && slow <= 5, "node 1's NIC at 25%% for three iterations' time slows %d iterations, the "
         "others unchanged", slow);
  snprintf(extra, sizeof extra, "network { { src = 0, dst = 1, streams = 4, from = %.17g, to = %.17g } }\n", 4.5 * it,
           7.5 * it);
  run("traffic", 15, extra, &r);
  slow = 0;
  for (int i = 0; i < r.rows; i++) slow += hs_csv(&r, i, "iter_time_s") > it * 1.01;
  /* At least one: four streams beside the ring's one flow leave it a fifth
   * of the NIC, so the iteration whose allreduce the window reaches may
   * stretch to the window's end, and the next then starts after it (how
   * many are slowed depends on the communication's share of an
   * iteration); at most the window's 3 iterations and their neighbours. */
  tap_ok(r.rc == 0 && slow >= 1 && slow <= 5 && close_to(hs_csv(&r, 0, "iter_time_s"), it) &&
             close_to(hs_csv(&r, 14, "iter_time_s"), it),
         "background traffic from node 0 to node 1 slows the %d iterations it overlaps", slow);
}

/* ---- refused descriptions ------------------------------------------------------------ */

static void test_refused(void) {
  struct {
    const char *what, *block, *expect;
  } bad[] = {
      {"a negative slowdown", "stragglers {\n  { gpu = 1, slowdown = 2 },\n  { gpu = 3, slowdown = -2 },\n}\n",
       ":7: stragglers[2].slowdown: must be greater than 0"},
      {"an unknown distribution", "stragglers {\n  { noise = 'gaussian', sigma = 1 },\n}\n",
       ":6: stragglers[1].noise: 'gaussian' is not one of lognormal"},
      {"a window that ends before it starts", "stragglers {\n  { gpu = 0, slowdown = 2, from = '3s', to = '1s' },\n}\n",
       ":6: stragglers[1].to: the window ends"},
      {"a parameter of another distribution", "stragglers {\n  { noise = 'exponential', sigma = 1 },\n}\n",
       "stragglers[1].sigma: is not a parameter of the exponential"},
      {"overlapping hiccups", "stragglers {\n  { pause = '1s', every = '1s' },\n}\n", "stragglers[1].every: must be longer"},
      {"a GPU out of range", "stragglers {\n  { gpu = 4, slowdown = 2 },\n}\n", "stragglers[1].gpu: 4 is out of range"},
      {"a misspelt key", "stragglers {\n  { gpu = 1, slowdwn = 2 },\n}\n", "stragglers[1].slowdwn: unknown key"},
      {"a bandwidth fraction above 1", "network {\n  { link = 'node0', bandwidth = 2 },\n}\n",
       "network[1].bandwidth: is a fraction"},
      {"a link that does not exist", "network {\n  { link = 'rack0', bandwidth = 0.5 },\n}\n",
       "network[1].link: 'rack0': this cluster has no racks"},
      {"a failure both at a time and random", "failures {\n  { node = 1, at = 1, mtbf = '1h' },\n}\n",
       "failures[1]: give either at = TIME"},
      {"a slowdown that is not a function", "stragglers { slowdown = 3 }\n", "stragglers.slowdown: expected function"},
      {"draws on a fixed slowdown", "stragglers {\n  { gpu = 1, slowdown = 2, draws = 'once' },\n}\n",
       "stragglers[1].draws: belongs to a noise"},
      {"draws neither once nor per iteration", "stragglers {\n  { noise = 'exponential', mean = 0.1, draws = 'twice' },\n}\n",
       "stragglers[1].draws: 'twice' is not one of iteration"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    static hs_csv_run r;
    char name[32];
    snprintf(name, sizeof name, "bad%zu", i);
    run(name, 2, bad[i].block, &r);
    char *nl = strchr(r.err, '\n');
    if (nl) *nl = '\0';
    tap_ok(r.rc == 2 && strstr(r.err, bad[i].expect) && strstr(r.err, ".lua") && r.rows == 0,
           "%s: exit %d (2), no metrics, says \"%s\"", bad[i].what, r.rc, r.err);
  }
  static hs_csv_run r;
  run("luafail", 3, "stragglers { slowdown = function(rank, it, t) if it == 2 then error('boom') end end }\n", &r);
  tap_ok(r.rc == 2 && strstr(r.err, "iteration 2") && strstr(r.err, "boom"),
         "a Lua slowdown that fails at iteration 2 ends the run with exit 2, naming the rank, iteration and error");
}

int main(void) {
  test_noise();
  static hs_csv_run base;
  run("base", 3, "", &base);
  test_by_hand(&base);
  test_spread();
  test_window_hiccup(&base);
  test_network(&base);
  test_refused();
  return tap_done(0);
}
