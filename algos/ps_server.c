/* ps_server.c — parameter_server's servers (ps_state.h): a synchronous
 * server sums every pusher's slice of a unit and answers it; an
 * asynchronous one serves each worker on a thread of its own. */
#include <stdlib.h>
#include <string.h>

#include "algos/ps_state.h"
#include "algos/train/gpu_kernel.h"
#include "kernels/kernels.h"

void hs_ps_server_kernel(ps_state *s, hs_worker *w, double bytes, int launches) {
  const hs_cluster_spec *c = &s->ctx->sc->cluster;
  hs_gpu_busy(w, s->cpu ? bytes / c->host_memory_bandwidth : hs_gpu_kernel_seconds(c, bytes, launches));
}

/* The optimizer on the server's slice [o, o + len) of the model: 12 or 20
 * bytes a parameter (sgd.h), grad being the slice's gradient. */
static void apply(ps_state *s, hs_worker *w, size_t o, size_t len, const float *grad, float lr) {
  hs_model *m = s->ctx->model;
  const hs_workload_spec *wl = &s->ctx->sc->workload;
  hs_ps_server_kernel(s, w, (double)len * (wl->momentum > 0 ? 20 : 12), 1);
  if (!m->params) return;
  hs_k_sgd_momentum_f32(m->params + o, grad, s->momentum ? s->momentum + o : NULL, len, lr, (float)wl->momentum,
                        (float)wl->weight_decay);
}

/* Unit after unit, the pushes of u on push_c, then their answer on pull_c,
 * which is left on the wire while the pushes of u + 1 come in (one each
 * way on the server's NIC, as BytePS's server answers a partition while
 * the next arrives): up to IN_FLIGHT answers are out, each from a buffer
 * of its own. */
void hs_ps_serve_sync(ps_state *s, hs_worker *w) {
  hs_model *m = s->ctx->model;
  int me = my_server(s, w), P = s->n_pushers;
  size_t most = 0;
  for (int u = 0; u < s->units; u++) {
    size_t o, len;
    slice(s, u, me, &o, &len);
    if (len > most) most = len;
  }
  hs_p2p *ops = calloc((size_t)P, sizeof *ops);
  if (m->params) s->gsum = malloc((size_t)P * most * sizeof(float));
  float *avg[IN_FLIGHT] = {NULL};
  for (int i = 0; i < IN_FLIGHT && m->params; i++) avg[i] = malloc(most * sizeof(float));
  hs_request *answering[IN_FLIGHT] = {NULL}; /* the answers out, one a buffer */
  int k = 0;                                  /* units served, for the buffers */
  /* After a failure the survivors resume at ctx->iteration. */
  for (int it = s->ctx->iteration; it < s->ctx->sc->run.iterations; it++) {
    for (int u = 0; u < s->units; u++, k++) {
      size_t o, len;
      slice(s, u, me, &o, &len);
      for (int p = 0; p < P; p++) ops[p] = (hs_p2p){HS_P2P_RECV, s->pushers[p], fbuf(s->gsum, (size_t)p * len, len)};
      if (hs_group_p2p_wait(w, s->push_c, ops, P)) goto out;
      /* the average of every worker's gradient from the P pushes (a node's
       * sum when aggregated): read each, write the average */
      hs_ps_server_kernel(s, w, 4.0 * (P + 1) * (double)len, 2);
      if (answering[k % IN_FLIGHT] && hs_wait(w, &answering[k % IN_FLIGHT])) goto out;
      float *mine = avg[k % IN_FLIGHT];
      if (mine) {
        memcpy(mine, s->gsum, len * sizeof(float));
        for (int p = 1; p < P; p++) hs_k_axpy_f32(mine, s->gsum + (size_t)p * len, 1.0f, len);
        hs_k_divide(HS_K_F32, mine, len, s->workers);
      }
      if (!s->worker_update) apply(s, w, o, len, mine, (float)s->ctx->sc->workload.lr);
      for (int p = 0; p < P; p++)
        ops[p] = (hs_p2p){HS_P2P_SEND, s->pushers[p], s->worker_update ? fbuf(mine, 0, len) : fbuf(m->params, o, len)};
      if (hs_group_p2p(w, s->pull_c, ops, P, &answering[k % IN_FLIGHT])) goto out;
    }
  }
out:
  for (int i = 0; i < IN_FLIGHT; i++) {
    if (answering[(k + i) % IN_FLIGHT]) hs_wait(w, &answering[(k + i) % IN_FLIGHT]); /* oldest first */
    free(avg[i]);
  }
  free(ops);
}

static long slowest_clock(ps_state *s) {
  long min = -1;
  for (int v = 0; v < s->workers; v++)
    if (s->clock[v] >= 0 && (min < 0 || s->clock[v] < min)) min = s->clock[v];
  return min;
}

static void serve_worker(void *arg) {
  ps_link *l = arg;
  ps_state *s = l->s;
  hs_worker *w = s->ctx->w;
  hs_model *m = s->ctx->model;
  hs_comm *c = s->pair[l->worker];
  int me = my_server(s, w);
  size_t o, len;
  slice(s, 0, me, &o, &len);
  long budget = (long)(s->ctx->sc->run.iterations - s->ctx->iteration) * s->workers;
  float lr = (float)(s->ctx->sc->workload.lr / s->workers);
  for (;;) {
    float ctl = 0;
    hs_p2p op = {HS_P2P_RECV, 0, hs_buf_host(&ctl, 1, HS_F32)};
    /* A failure: this worker is dropped (the job re-forms over survivors). */
    if (hs_group_p2p_wait(w, c, &op, 1) || ctl == CTL_BYE) break;
    op = (hs_p2p){HS_P2P_RECV, 0, fbuf(l->grad, 0, len)};
    if (hs_group_p2p_wait(w, c, &op, 1)) break;
    hs_mutex_lock(w, s->lock);
    apply(s, w, o, len, l->grad, lr);
    s->clock[l->worker]++;
    float stop = ++s->applied >= budget;
    if (m->params) memcpy(l->out, m->params + o, len * sizeof(float));
    hs_mutex_unlock(w, s->lock);
    /* Stale-synchronous: hold the reply while this worker leads too far. */
    while (s->staleness > 0 && !stop) {
      hs_mutex_lock(w, s->lock);
      long lead = s->clock[l->worker] - slowest_clock(s);
      hs_mutex_unlock(w, s->lock);
      if (lead <= s->staleness) break;
      hs_sleep(w, STALENESS_POLL);
    }
    hs_p2p back[2] = {{HS_P2P_SEND, 0, fbuf(l->out, 0, len)}, {HS_P2P_SEND, 0, hs_buf_host(&stop, 1, HS_F32)}};
    if (hs_group_p2p_wait(w, c, back, 1) || hs_group_p2p_wait(w, c, back + 1, 1) || stop) break;
  }
  /* Gone: it no longer holds anyone back. */
  hs_mutex_lock(w, s->lock);
  s->clock[l->worker] = -1;
  hs_mutex_unlock(w, s->lock);
}

void hs_ps_serve_async(ps_state *s, hs_worker *w) {
  hs_model *m = s->ctx->model;
  size_t o, len;
  slice(s, 0, my_server(s, w), &o, &len);
  s->lock = hs_mutex_create(w);
  s->clock = calloc((size_t)s->workers, sizeof *s->clock);
  s->links = calloc((size_t)s->workers, sizeof *s->links);
  for (int v = 0; v < s->workers; v++) {
    ps_link *l = &s->links[v];
    *l = (ps_link){.s = s, .worker = v};
    if (m->params) l->grad = malloc(len * sizeof(float)), l->out = malloc(len * sizeof(float));
    hs_thread_spawn(w, serve_worker, l, &l->thread);
  }
  for (int v = 0; v < s->workers; v++) {
    hs_thread_join(w, s->links[v].thread);
    free(s->links[v].grad), free(s->links[v].out);
  }
  hs_mutex_destroy(w, s->lock);
}
