/* model.c — flat layout of a model's layers and its cut into buckets. */
#include "algos/workloads/model.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

static hs_dtype wire_dtype(const hs_workload_spec *wl) {
  return wl->dtype_bytes == 2 ? HS_F16 : HS_F32;
}

/* What the cut walks: a layer whole, or one of its parameter tensors
 * (hs_bucket_layout.tensors), in forward order. */
typedef struct {
  int layer;
  size_t count;  /* parameters */
  int tensors;   /* parameter tensors it stands for */
} piece;

/* The pieces of layer l into out (at most max(tensors, 1)); returns how
 * many. Split only where the profile says which tensors are matrices and
 * they fit the layer's parameters: the matrices, then the vectors sharing
 * what is left alike (the first ones one more where it does not divide). */
static int layer_pieces(const hs_layer_spec *ls, int l, int split, piece *out) {
  size_t params = (size_t)ls->params;
  int tensors = ls->tensors > 0 ? ls->tensors : params > 0;
  size_t in_matrices = 0;
  for (int k = 0; k < ls->n_matrices; k++) in_matrices += (size_t)(ls->matrices[k][0] * ls->matrices[k][1]);
  int vectors = tensors - ls->n_matrices;
  int ok = split && tensors > 1 && ls->matrices_given && vectors >= 0 && in_matrices <= params &&
           (vectors > 0 ? params - in_matrices >= (size_t)vectors : in_matrices == params);
  if (!ok) {
    out[0] = (piece){l, params, tensors};
    return 1;
  }
  int n = 0;
  for (int k = 0; k < ls->n_matrices; k++)
    out[n++] = (piece){l, (size_t)(ls->matrices[k][0] * ls->matrices[k][1]), 1};
  size_t rest = params - in_matrices;
  for (int k = 0; k < vectors; k++)
    out[n++] = (piece){l, rest / (size_t)vectors + ((size_t)k < rest % (size_t)vectors), 1};
  return n;
}

/* Which cut each piece falls in, counting cuts in the order they are made
 * (from the last piece, or with from_input from the first), into cut[];
 * returns the number of cuts. A layer without parameters (attention
 * scores, pooling) opens no cut of its own: it goes with the cut that the
 * next layer with parameters fills (backward reaches that layer's hook
 * after it), and ones at the very end with the last cut. */
static int cut_pieces(const piece *pc, int n, const hs_bucket_layout *layout, size_t elem, int *cut) {
  int cuts = 0, closed = 1;
  double open_bytes = 0;
  for (int i = 0; i < n; i++) {
    int p = layout->from_input ? i : n - 1 - i;
    if (closed) {
      cuts++;
      closed = 0;
    }
    cut[p] = cuts - 1;
    open_bytes += (double)pc[p].count * (double)elem;
    double limit = cuts == 1 && layout->first_bytes > 0 ? layout->first_bytes : layout->bytes;
    if (limit > 0 && open_bytes >= limit) {
      closed = 1;
      open_bytes = 0;
    }
  }
  /* trailing layers without parameters: with the last cut that has some */
  if (!closed && open_bytes == 0 && cuts > 1) {
    cuts--;
    for (int p = 0; p < n; p++)
      if (cut[p] == cuts) cut[p] = cuts - 1;
  }
  return cuts;
}

hs_model *hs_model_create_layout(const hs_workload_spec *wl, const hs_bucket_layout *layout) {
  hs_model *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  int max_pieces = 0;
  for (int l = 0; l < wl->n_layers; l++) max_pieces += wl->layers[l].tensors > 1 ? wl->layers[l].tensors : 1;
  m->n_layers = wl->n_layers;
  m->layers = calloc(wl->n_layers, sizeof *m->layers);
  m->buckets = calloc(max_pieces > 0 ? max_pieces : 1, sizeof *m->buckets); /* at most one per piece */
  piece *pc = calloc(max_pieces > 0 ? max_pieces : 1, sizeof *pc);
  int *cut = calloc(max_pieces > 0 ? max_pieces : 1, sizeof *cut);
  m->dtype = wire_dtype(wl);
  if (!m->layers || !m->buckets || !pc || !cut) {
    free(pc), free(cut);
    hs_model_free(m);
    return NULL;
  }
  int n = 0;
  for (int l = 0; l < wl->n_layers; l++) n += layer_pieces(&wl->layers[l], l, layout->tensors, pc + n);
  size_t elem = hs_dtype_size(m->dtype);
  int cuts = cut_pieces(pc, n, layout, elem, cut);
  size_t offset = 0;
  /* Walk the pieces last to first: that is both the flat layout and the
   * order in which backward makes gradients ready. Buckets are numbered
   * in that order too: cut from the input, the last cut is the first
   * ready. A layer is laid out at its first piece. */
  for (int p = n - 1; p >= 0; p--) {
    int l = pc[p].layer;
    hs_layer *L = &m->layers[l];
    int b = layout->from_input ? cuts - 1 - cut[p] : cut[p];
    if (b == m->n_buckets) {
      m->buckets[b].offset = offset;
      m->n_buckets++;
    }
    m->buckets[b].count += pc[p].count;
    m->buckets[b].first_layer = l;
    m->buckets[b].tensors += pc[p].tensors;
    if (p == n - 1 || pc[p + 1].layer != l) { /* the layer's first piece */
      L->name = wl->layers[l].name;
      L->count = (size_t)wl->layers[l].params;
      L->offset = offset;
      L->fwd_flops = wl->layers[l].fwd_flops;
      L->bwd_flops = wl->layers[l].bwd_flops;
      /* layers built without a count (tests, the numeric model) have one */
      L->tensors = wl->layers[l].tensors > 0 ? wl->layers[l].tensors : L->count > 0;
      L->fwd_kernels = wl->layers[l].fwd_kernels;
      L->bwd_kernels = wl->layers[l].bwd_kernels;
      m->n_tensors += L->tensors;
      m->n_buffers += wl->layers[l].buffers;
      m->buffer_bytes += wl->layers[l].buffer_bytes;
      m->n_int64_buffers += wl->layers[l].int64_buffers;
      L->bucket = b;
    }
    offset += pc[p].count;
  }
  free(pc), free(cut);
  m->n_params = offset;
  if (wl->numeric) {
    m->params = calloc(m->n_params, sizeof(float));
    m->grads = calloc(m->n_params, sizeof(float));
    if (!m->params || !m->grads) {
      hs_model_free(m);
      return NULL;
    }
  }
  return m;
}

hs_model *hs_model_create(const hs_workload_spec *wl, double bucket_bytes) {
  hs_bucket_layout layout = {.bytes = bucket_bytes};
  return hs_model_create_layout(wl, &layout);
}

void hs_model_free(hs_model *m) {
  if (!m) return;
  free(m->layers);
  free(m->buckets);
  free(m->params);
  free(m->grads);
  free(m);
}

hs_buf hs_model_buf(const hs_model *m, float *base) {
  hs_buf whole = {base, m->n_params, m->dtype, HS_MEM_HOST};
  return whole;
}

hs_buf hs_model_bucket_buf(const hs_model *m, float *base, int b) {
  return hs_buf_slice(hs_model_buf(m, base), m->buckets[b].offset, m->buckets[b].count);
}

void hs_model_init_params(hs_model *m, const hs_workload_spec *wl, long seed, int rank) {
  if (!m->params) return;
  for (size_t i = 0; i < m->n_params; i++) m->params[i] = 0;
  if (wl->init_noise <= 0) return;
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, (unsigned long)seed * 1000003ul + (unsigned long)rank + 17);
  for (size_t i = 0; i < m->n_params; i++) m->params[i] = (float)gsl_ran_gaussian(r, wl->init_noise);
  gsl_rng_free(r);
}

size_t hs_model_tracked_params(const hs_workload_spec *wl) {
  size_t n = 0;
  if (!wl->numeric) return 0;
  for (int l = 0; l < wl->n_layers; l++) n += (size_t)wl->layers[l].params;
  return n;
}
