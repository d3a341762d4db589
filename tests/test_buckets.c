/* test_buckets.c — how the model is cut into buckets (algos/workloads/
 * model.c, algos/ddp_buckets.h): a bucket closes once it holds its limit,
 * DDP's first bucket closes at 1 MiB, and PyTorch 1.4's cut from the input
 * layers leaves the remainder in the output layer's bucket where the
 * rebuilt buckets of PyTorch 1.5 and later leave it in the input layers'.
 * Exact layer-to-bucket maps on a six-layer model, the options' defaults
 * and refusals, and the allreduces a traced run posts (the training loop
 * cuts the model as the options say). Under Horovod's loop (cycle_time)
 * nothing is cut in advance: each cycle fuses what is ready, up to the
 * fusion threshold, and the traced allreduces show it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "algos/report/metrics.h"
#include "algos/report/trace.h"
#include "algos/train/train.h"
#include "algos/workloads/model.h"
#include "scenarios/units.h"
#include "tests/harness.h"
#include "tests/tap.h"

/* Layer sizes in bytes (fp32, 4 a parameter), first layer first: a small
 * input layer, four of 10 MB, a small output layer. */
static const double six_layers[6] = {0.5e6, 10e6, 10e6, 10e6, 10e6, 0.2e6};
/* With layers that have no parameters (attention scores, pooling): l0
 * and l5 have none, nor has l3, between two of 10 MB. */
static const double with_empty[6] = {0, 10e6, 10e6, 0, 10e6, 0};
#define MIB 1048576.0

static hs_workload_spec model_of(const double *bytes, hs_layer_spec *layers) {
  hs_workload_spec wl;
  memset(&wl, 0, sizeof wl);
  for (int l = 0; l < 6; l++) {
    memset(&layers[l], 0, sizeof layers[l]);
    snprintf(layers[l].name, sizeof layers[l].name, "l%d", l);
    layers[l].params = bytes[l] / 4;
  }
  wl.layers = layers;
  wl.n_layers = 6;
  wl.dtype_bytes = 4;
  return wl;
}

/* want[b] lists bucket b's layers (forward indices) as a string: "54" is
 * layers 5 and 4. Buckets are in the order backward readies them. */
static void check_cut(const char *what, const double *bytes, const hs_bucket_layout *layout, const char *const *want,
                      int n_want) {
  hs_layer_spec layers[6];
  hs_workload_spec wl = model_of(bytes, layers);
  hs_model *m = hs_model_create_layout(&wl, layout);
  if (!m) {
    tap_ok(0, "%s: model created", what);
    return;
  }
  char got[6][8] = {{0}};
  for (int l = 5; l >= 0; l--) {
    int b = m->layers[l].bucket;
    if (b >= 0 && b < 6) snprintf(got[b] + strlen(got[b]), sizeof got[b] - strlen(got[b]), "%d", l);
  }
  int same = m->n_buckets == n_want;
  for (int b = 0; same && b < n_want; b++) same = strcmp(got[b], want[b]) == 0;
  char shown[64] = "";
  for (int b = 0; b < m->n_buckets && b < 6; b++)
    snprintf(shown + strlen(shown), sizeof shown - strlen(shown), "%s[%s]", b ? " " : "", got[b]);
  tap_ok(same, "%s: buckets %s", what, shown);
  /* Each bucket is one slice of the flat buffers, in ready order, and is
   * completed by its lowest layer's backward. */
  int slices = 1;
  size_t offset = 0;
  for (int b = 0; b < m->n_buckets; b++) {
    slices &= m->buckets[b].offset == offset;
    offset += m->buckets[b].count;
    int lowest = 5;
    for (int l = 0; l < 6; l++)
      if (m->layers[l].bucket == b && l < lowest) lowest = l;
    slices &= m->buckets[b].first_layer == lowest;
  }
  tap_ok(slices && offset == m->n_params, "%s: buckets are consecutive slices, each completed by its lowest layer",
         what);
  hs_model_free(m);
}

static hs_metrics *metrics;
static const hs_scenario *scenario;

static void train_rank(hs_worker *w, void *arg) {
  (void)arg;
  hs_train_job job = {.sc = scenario, .metrics = metrics, .stragglers = 1};
  hs_train_worker(w, &job);
}

typedef struct {
  const char *options; /* more keys of algorithm */
  const char *want;    /* rank 0's allreduces of one iteration, in order, sizes in bytes, '|'-separated */
  double bwd_flops;    /* each layer's backward, per sample */
  const char *more;    /* more of the scenario (stragglers { }), or NULL */
} traced_job;

/* Runs two ranks for one traced iteration and reports the sizes of rank
 * 0's allreduces in the order they started. */
static void traced(void *arg, FILE *report) {
  traced_job *j = arg;
  char profile[600], lua[2048];
  snprintf(profile, sizeof profile, "%s/six.lua", hs_test_tmpdir());
  FILE *f = fopen(profile, "w");
  fprintf(f,
          "local layers = {}\nlocal bytes = { 0.5e6, 10e6, 10e6, 10e6, 10e6, 0.2e6 }\n"
          "for i = 1, 6 do layers[i] = { name = 'l' .. i, params = bytes[i] / 4,\n"
          "  fwd_flops = 1e9, bwd_flops = %.17g } end\nreturn { layers = layers }\n",
          j->bwd_flops);
  fclose(f);
  snprintf(lua, sizeof lua,
           "cluster { nodes = 2, gpus_per_node = 1, gpu = { flops = \"100TF\" },\n"
           "  inter = { bandwidth = \"100Gbps\", latency = \"5us\" } }\n"
           "workload { model = \"%s\", batch = 1 }\n"
           "algorithm { name = \"gradient_allreduce\", broadcast_buffers = false%s }\n"
           "run { iterations = 1, trace = 1 }\n%s",
           profile, j->options, j->more ? j->more : "");
  hs_scenario sc;
  if (hs_test_load(lua, &sc)) {
    hs_report(report, 0, "scenario loads");
    return;
  }
  scenario = &sc;
  metrics = hs_metrics_create(1, 0);
  hs_trace *trace = hs_trace_create();
  hs_test_simulate(&sc, 0, train_rank, NULL, NULL, trace);
  char got[2][256] = {"", ""}, four[16];
  hs_format_bytes(4, four, sizeof four);
  double last[2] = {-1, -1};
  for (size_t i = 0; i < hs_trace_count(trace); i++) {
    int rank, lane;
    const char *name;
    double s, e;
    hs_trace_get(trace, i, &rank, &lane, &name, &s, &e);
    /* Horovod's negotiation is an allreduce of one 4-byte integer a cycle */
    if (rank > 1 || strncmp(name, "allreduce ", 10) != 0 || strcmp(name + 10, four) == 0) continue;
    char *g = got[rank];
    if (s < last[rank]) snprintf(g + strlen(g), sizeof got[rank] - strlen(g), "(out of order)");
    last[rank] = s;
    snprintf(g + strlen(g), sizeof got[rank] - strlen(g), "%s%s", *g ? "|" : "", name + 10);
  }
  /* the expected sizes, written as the trace writes them */
  char want[256] = "", one[32];
  const char *p = j->want;
  while (*p) {
    double bytes = strtod(p, (char **)&p);
    hs_format_bytes(bytes, one, sizeof one);
    snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", *want ? "|" : "", one);
    if (*p == '|') p++;
  }
  hs_report(report, strcmp(got[0], want) == 0, "traced allreduces%s%s: %s (want %s)", j->options,
            j->more ? " with a straggler" : "", got[0], want);
  hs_report(report, strcmp(got[1], got[0]) == 0, "rank 1 posts the same allreduces as rank 0 (%s)", got[1]);
  hs_trace_free(trace);
}

/* Cut at tensors (hs_bucket_layout.tensors): l0 holds a 1000 x 1000
 * matrix and two vectors sharing the other 1000 parameters, l1 two
 * vectors of 1000 (no matrices), l2 3000 parameters in 2 tensors whose
 * profile names no matrices (kept whole). Ready order walks l2, l1's
 * tensors, then l0's vectors and its matrix last. Each expected bucket:
 * parameters, tensors, the layer that completes it. */
static void check_tensors(const char *what, double bytes, int split, int n_want, const size_t (*want)[3],
                          const int *layer_bucket) {
  hs_layer_spec layers[3];
  memset(layers, 0, sizeof layers);
  const double params[3] = {1e6 + 1000, 2000, 3000};
  const int tensors[3] = {3, 2, 2};
  for (int l = 0; l < 3; l++) {
    snprintf(layers[l].name, sizeof layers[l].name, "l%d", l);
    layers[l].params = params[l];
    layers[l].tensors = tensors[l];
  }
  layers[0].matrices_given = layers[1].matrices_given = true;
  layers[0].n_matrices = 1;
  layers[0].matrices[0][0] = layers[0].matrices[0][1] = 1000;
  hs_workload_spec wl;
  memset(&wl, 0, sizeof wl);
  wl.layers = layers;
  wl.n_layers = 3;
  wl.dtype_bytes = 4;
  hs_bucket_layout layout = {.bytes = bytes, .tensors = split};
  hs_model *m = hs_model_create_layout(&wl, &layout);
  if (!m) {
    tap_ok(0, "%s: model created", what);
    return;
  }
  int same = m->n_buckets == n_want && m->n_params == 1e6 + 6000 && m->n_tensors == 7;
  size_t offset = 0;
  char shown[160] = "";
  for (int b = 0; b < m->n_buckets; b++) {
    const hs_bucket *k = &m->buckets[b];
    snprintf(shown + strlen(shown), sizeof shown - strlen(shown), "%s[%zu, %d, l%d]", b ? " " : "", k->count,
             k->tensors, k->first_layer);
    same &= b < n_want && k->offset == offset && k->count == want[b][0] && (size_t)k->tensors == want[b][1] &&
            (size_t)k->first_layer == want[b][2];
    offset += k->count;
  }
  for (int l = 0; l < 3; l++) same &= m->layers[l].bucket == layer_bucket[l];
  tap_ok(same, "%s: buckets (parameters, tensors, completing layer) %s; layers in buckets %d, %d, %d", what, shown,
         m->layers[0].bucket, m->layers[1].bucket, m->layers[2].bucket);
  hs_model_free(m);
}

int main(void) {
  /* a tensor a bucket (Horovod without fusion): l0's vectors before its
   * matrix, l2 whole */
  const size_t each[][3] = {{3000, 2, 2}, {1000, 1, 1}, {1000, 1, 1}, {500, 1, 0}, {500, 1, 0}, {1000000, 1, 0}};
  check_tensors("cut at tensors, 1 B buckets", 1, 1, 6, each, (const int[]){3, 1, 0});
  /* 10 kB buckets: l2's 12 kB closes one; l1's 8 kB and l0's first
   * vector (2 kB) the next; l0's other vector and its matrix the last.
   * l0 is in buckets 1 and 2: its backward readies both. */
  const size_t ten_kb[][3] = {{3000, 2, 2}, {2500, 3, 0}, {1000500, 2, 0}};
  check_tensors("cut at tensors, 10 kB buckets", 10e3, 1, 3, ten_kb, (const int[]){1, 1, 0});
  /* whole layers: l1 and l0 together */
  const size_t whole_layers[][3] = {{3000, 2, 2}, {1003000, 5, 0}};
  check_tensors("whole layers, 10 kB buckets", 10e3, 0, 2, whole_layers, (const int[]){1, 1, 0});
  /* From the output layer, every bucket 25 MiB (Bagua, Horovod by size):
   * l5+l4+l3 is 20.2 MB, l2 takes it past 26.2 MB; l1 and l0 are left. */
  const char *ready_plain[] = {"5432", "10"};
  hs_bucket_layout plain = {.bytes = 25 * MIB};
  check_cut("ready order, no first bucket", six_layers, &plain, ready_plain, 2);
  /* DDP since 1.5: the first bucket closes at 1 MiB (l5 is 0.2 MB, l4
   * takes it past), then 25 MiB from l3, and l0 is the remainder. */
  const char *ready_ddp[] = {"54", "321", "0"};
  hs_bucket_layout ddp = {.bytes = 25 * MIB, .first_bytes = MIB};
  check_cut("ready order, 1 MiB first bucket (DDP since PyTorch 1.5)", six_layers, &ddp, ready_ddp, 3);
  /* DDP up to 1.4: cut from l0 (0.5 MB, then l1 past 1 MiB), then l2..l4
   * (30 MB), and l5 is the remainder: the first ready bucket is 0.2 MB,
   * the last 10.5 MB. */
  const char *definition_ddp[] = {"5", "432", "10"};
  hs_bucket_layout old = {.bytes = 25 * MIB, .first_bytes = MIB, .from_input = 1};
  check_cut("definition order, 1 MiB first bucket (DDP up to PyTorch 1.4)", six_layers, &old, definition_ddp, 3);
  /* No limit: one bucket, whichever way it is cut. */
  const char *whole[] = {"543210"};
  hs_bucket_layout one = {.from_input = 1};
  check_cut("no limit: the whole model", six_layers, &one, whole, 1);
  /* Layers without parameters never make a bucket of their own: 10 MB
   * buckets from the output, l5 (none) opens the first and l4 closes it;
   * l3 (none) goes with l2, whose hook backward reaches after it; the
   * trailing l0 (none) with the last bucket. Per layer (Horovod), the
   * same. */
  const char *empty_cut[] = {"54", "32", "10"};
  hs_bucket_layout ten = {.bytes = 10e6};
  check_cut("layers without parameters, 10 MB buckets", with_empty, &ten, empty_cut, 3);
  hs_bucket_layout per_layer = {.bytes = 1};
  check_cut("layers without parameters, a bucket a layer", with_empty, &per_layer, empty_cut, 3);
  /* From the input: l0 (none) opens the first cut and l1 closes it; l2;
   * l3 (none) opens the third and l4 closes it; l5 (none) at the end joins
   * it. Ready order: [5 4 3] [2] [1 0]. */
  const char *empty_from_input[] = {"543", "2", "10"};
  hs_bucket_layout ten_in = {.bytes = 10e6, .from_input = 1};
  check_cut("layers without parameters, cut from the input", with_empty, &ten_in, empty_from_input, 3);

  /* The options: DDP's defaults, on the algorithms that run on DDP's buckets. */
  const char *algos[] = {"gradient_allreduce", "fp16_compress", "powersgd"};
  for (int i = 0; i < 3; i++) {
    char lua[512];
    snprintf(lua, sizeof lua,
             "cluster { nodes = 2, gpus_per_node = 1, gpu = { flops = \"1TF\" }, inter = { bandwidth = \"1Gbps\" } }\n"
             "workload { model = \"resnet50\" }\nalgorithm { name = \"%s\" }\nrun { iterations = 1 }\n",
             algos[i]);
    hs_scenario sc;
    if (hs_test_load(lua, &sc)) {
      tap_ok(0, "%s loads", algos[i]);
      continue;
    }
    tap_ok(hs_opt_num(&sc.algorithm.options, "first_bucket_size") == MIB &&
               strcmp(hs_opt_str(&sc.algorithm.options, "bucket_order"), "ready") == 0,
           "%s: first_bucket_size 1 MiB, bucket_order \"ready\" by default", algos[i]);
    /* DDP's and Horovod's buckets take tensors (gradient_allreduce, and
     * the fp16 hook); powersgd still cuts whole layers (it finds a
     * layer's matrices in one bucket) */
    const hs_algorithm_desc *d = hs_algorithm_find(algos[i]);
    hs_bucket_layout layout = {.bytes = 25 * MIB};
    if (d && d->bucket_layout) d->bucket_layout(&sc.algorithm.options, &layout);
    int want = i < 2;
    tap_ok(d && layout.tensors == want, "%s: buckets cut at %s", algos[i], want ? "tensors" : "layers");
    hs_scenario_free(&sc);
  }
  {
    hs_scenario sc;
    int rc = hs_test_load("cluster { nodes = 2, gpus_per_node = 1, gpu = { flops = \"1TF\" },\n"
                          "  inter = { bandwidth = \"1Gbps\" } }\n"
                          "workload { model = \"resnet50\" }\n"
                          "algorithm { name = \"gradient_allreduce\", bucket_order = \"sideways\" }\n"
                          "run { iterations = 1 }\n",
                          &sc);
    tap_ok(rc != 0, "bucket_order = \"sideways\" is refused (the rest of the scenario is whole)");
    if (rc == 0) hs_scenario_free(&sc);
  }

  /* A run cuts the model as its options say: the allreduces rank 0 posts,
   * in the order they start. */
  traced_job jobs[] = {
      {", first_bucket_size = 0", "30200000|10500000", 2e9, NULL},
      {"", "10200000|30000000|500000", 2e9, NULL},
      {", bucket_order = \"definition\"", "200000|30000000|10500000", 2e9, NULL},
      /* Horovod fuses what is ready everywhere at each cycle, up to the
       * threshold: after backward, all six, l5..l3 (20.2 MB; l2 would
       * take it past 25 MiB), then l2..l0 (20.5 MB). */
      {", cycle_time = \"5ms\", overlap = false", "20200000|20500000", 2e9, NULL},
      /* With backward 3 ms a layer at 100 TF/s (plus its two 4 us
       * launches), the layers are ready at about 3.1, 6.1, 9.1, 12.1,
       * 15.1 and 18.1 ms: the cycles at 5, 10, 15 and 20 ms carry l5, then
       * l4 and l3, then l2, then l1 and l0. */
      {", cycle_time = \"5ms\"", "200000|20000000|10000000|10500000", 3e11, NULL},
      /* With GPU 1 twice as slow, its layers are ready at about 6.2,
       * 12.2, 18.2, 24.2, 30.3 and 36.3 ms, and a layer goes out only
       * once ready on both: one layer at each of the cycles at 10, 15, 20,
       * 25, 35 and 40 ms, where GPU 0 alone would have fused l4 and l3. */
      {", cycle_time = \"5ms\"", "200000|10000000|10000000|10000000|10000000|500000", 3e11,
       "stragglers { { gpu = 1, slowdown = 2 } }\n"},
  };
  for (int i = 0; i < 6; i++) hs_test_in_child("traced allreduces", traced, &jobs[i], 60);
  return tap_done(0);
}
