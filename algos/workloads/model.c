/* model.c — flat layout of a model's layers and its cut into buckets. */
#include "algos/workloads/model.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

static hs_dtype wire_dtype(const hs_workload_spec *wl) {
  return wl->dtype_bytes == 2 ? HS_F16 : HS_F32;
}

/* Which cut each layer falls in, counting cuts in the order they are made
 * (from the last layer, or with from_input from the first), into cut[];
 * returns the number of cuts. A layer without parameters (attention
 * scores, pooling) opens no cut of its own: it goes with the cut that the
 * next layer with parameters fills (backward reaches that layer's hook
 * after it), and ones at the very end with the last cut. */
static int cut_layers(const hs_workload_spec *wl, const hs_bucket_layout *layout, size_t elem, int *cut) {
  int n = wl->n_layers, cuts = 0, closed = 1;
  double open_bytes = 0;
  for (int i = 0; i < n; i++) {
    int l = layout->from_input ? i : n - 1 - i;
    if (closed) {
      cuts++;
      closed = 0;
    }
    cut[l] = cuts - 1;
    open_bytes += (double)wl->layers[l].params * (double)elem;
    double limit = cuts == 1 && layout->first_bytes > 0 ? layout->first_bytes : layout->bytes;
    if (limit > 0 && open_bytes >= limit) {
      closed = 1;
      open_bytes = 0;
    }
  }
  /* trailing layers without parameters: with the last cut that has some */
  if (!closed && open_bytes == 0 && cuts > 1) {
    cuts--;
    for (int l = 0; l < n; l++)
      if (cut[l] == cuts) cut[l] = cuts - 1;
  }
  return cuts;
}

hs_model *hs_model_create_layout(const hs_workload_spec *wl, const hs_bucket_layout *layout) {
  hs_model *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->n_layers = wl->n_layers;
  m->layers = calloc(wl->n_layers, sizeof *m->layers);
  m->buckets = calloc(wl->n_layers, sizeof *m->buckets); /* at most one per layer */
  int *cut = calloc(wl->n_layers > 0 ? wl->n_layers : 1, sizeof *cut);
  m->dtype = wire_dtype(wl);
  if (!m->layers || !m->buckets || !cut) {
    free(cut);
    hs_model_free(m);
    return NULL;
  }
  size_t elem = hs_dtype_size(m->dtype);
  int cuts = cut_layers(wl, layout, elem, cut);
  size_t offset = 0;
  /* Walk layers last to first: that is both the flat layout and the order
   * in which backward makes gradients ready. Buckets are numbered in that
   * order too: cut from the input, the last cut is the first ready. */
  for (int l = wl->n_layers - 1; l >= 0; l--) {
    hs_layer *L = &m->layers[l];
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
    int b = layout->from_input ? cuts - 1 - cut[l] : cut[l];
    if (b == m->n_buckets) {
      m->buckets[b].offset = offset;
      m->n_buckets++;
    }
    m->buckets[b].count += L->count;
    m->buckets[b].first_layer = l;
    L->bucket = b;
    offset += L->count;
  }
  free(cut);
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
