/* model.h — a model as the training loop and the algorithms see it.
 *
 * Parameters, gradients (and any per-parameter optimizer state) live in flat
 * contiguous buffers laid out in *reverse* layer order: the last layer first.
 * Backward produces gradients from the last layer to the first, so a bucket,
 * which is a run of consecutive layers closed once it reaches the bucket
 * size, is one contiguous slice, ready as soon as its first layer's backward
 * is done. Kernels and compressors then work on whole buckets. */
#ifndef HS_MODEL_H
#define HS_MODEL_H

#include <stddef.h>

#include "algos/comm/comm.h"
#include "scenarios/scenario.h"

typedef struct {
  const char *name;
  size_t offset; /* first element in the flat buffers */
  size_t count;  /* parameters */
  double fwd_flops, bwd_flops; /* per sample */
  int tensors;   /* parameter tensors: a per-tensor framework runs a kernel on each */
  int fwd_kernels, bwd_kernels; /* kernels its forward and backward launch */
  int bucket;    /* bucket this layer belongs to */
} hs_layer;

typedef struct {
  size_t offset, count; /* slice of the flat buffers */
  int first_layer;      /* layer (forward index) whose backward completes it */
  int tensors;          /* parameter tensors in it, whole or a layer's share */
} hs_bucket;

typedef struct {
  hs_layer *layers; /* forward order */
  int n_layers;
  int n_tensors;    /* parameter tensors of all layers */
  int n_buffers;       /* state tensors that are not parameters (batch-norm statistics) */
  double buffer_bytes; /* their bytes */
  int n_int64_buffers; /* of them, 8-byte integers */
  size_t n_params;
  hs_bucket *buckets; /* in the order they become ready */
  int n_buckets;
  hs_dtype dtype;     /* element type on the wire */
  float *params;      /* NULL in timing-only runs */
  float *grads;
} hs_model;

/* How a framework cuts the model into buckets. A bucket is closed as soon
 * as it holds at least its limit (a layer, or with `tensors` a tensor, is
 * never split: one larger than the limit closes a bucket of its own), as PyTorch's
 * compute_bucket_assignment_by_size does.
 *  - bytes: the limit of every bucket (0: the whole model is one bucket);
 *  - first_bytes: the limit of the first bucket cut, when > 0 (DDP's
 *    _DEFAULT_FIRST_BUCKET_BYTES, 1 MiB); the others take bytes;
 *  - from_input: cut from the first layer forward, then take the buckets
 *    in the order backward readies them (DDP up to PyTorch 1.4, and every
 *    DDP before its buckets are rebuilt): the small first bucket is then
 *    the input layers', the last one ready, and the bucket holding the
 *    output layer is what is left over. 0: cut in the order backward
 *    readies the layers, from the last layer (DDP's rebuilt buckets since
 *    PyTorch 1.5, Bagua, Horovod's fusion by size).
 *  - tensors: cut at the layers' parameter tensors, not whole layers, as
 *    PyTorch's compute_bucket_assignment_by_size and Horovod's fusion
 *    take them: a layer's tensors may then fall in different buckets
 *    (all ready when its backward is done; the layer's `bucket` is the
 *    first of them), and under a limit smaller than a tensor each tensor
 *    is a bucket of its own (Horovod with HOROVOD_FUSION_THRESHOLD=0). A
 *    layer's tensors are its matrices (hs_layer_spec), then its vectors
 *    sharing the rest alike; a layer whose profile gives no matrices
 *    stays whole. */
typedef struct {
  double bytes;
  double first_bytes;
  int from_input;
  int tensors;
} hs_bucket_layout;

/* Lays out the scenario's layers and cuts them into buckets as layout says
 * (hs_model_create: every bucket bucket_bytes, cut from the last layer).
 * Allocates params and grads only when the workload is numeric. Returns
 * NULL on allocation failure. */
hs_model *hs_model_create_layout(const hs_workload_spec *wl, const hs_bucket_layout *layout);
hs_model *hs_model_create(const hs_workload_spec *wl, double bucket_bytes);
void hs_model_free(hs_model *m);
/* Parameters the metrics track per replica: the model's for numeric
 * workloads, 0 for timing-only ones. */
size_t hs_model_tracked_params(const hs_workload_spec *wl);
/* Initial weights of a numeric model: zeros, or with workload.init_noise > 0
 * Gaussian noise of that standard deviation drawn from (seed, rank), so
 * replicas start apart (consensus studies). */
void hs_model_init_params(hs_model *m, const hs_workload_spec *wl, long seed, int rank);

/* The whole model within a flat array (virtual when base is NULL). */
hs_buf hs_model_buf(const hs_model *m, float *base);
/* The buffer of bucket b within a flat array (virtual when base is NULL). */
hs_buf hs_model_bucket_buf(const hs_model *m, float *base, int b);

#endif
