/* ps_host.c — BytePS's host path (ps_state.h): a node's host aggregator
 * takes its groups' sums in host memory, adds them, pushes and pulls from
 * there, and copies the answers back. */
#include <stdlib.h>
#include <string.h>

#include "algos/ps_state.h"
#include "kernels/kernels.h"

/* One unit on the host, in flight in its slot: what the servers return
 * (or, with none, the node's average) goes back to the groups' firsts. */
typedef struct {
  int unit;                /* -1: free */
  float *buf;              /* the unit's sum, then the answer (numeric runs) */
  hs_request *push, *pull; /* to and from the servers */
  hs_request *h2d;         /* the answer's copies to the groups */
} host_slot;

/* The answer of the slot's unit is in: COPYH2D to every group's first. */
static int host_answer(ps_state *s, hs_worker *w, host_slot *h) {
  size_t uo, ul;
  unit(s, h->unit, &uo, &ul);
  hs_p2p *ops = calloc((size_t)s->n_roots, sizeof *ops);
  for (int r = 0; r < s->n_roots; r++) ops[r] = (hs_p2p){HS_P2P_SEND, 1 + r, fbuf(h->buf, 0, ul)};
  int rc = hs_group_p2p(w, s->h2d_c, ops, s->n_roots, &h->h2d);
  free(ops);
  h->unit = -1;
  return rc;
}

/* Waits for the servers' answer of the slot's unit and sends it on. */
static int host_finish(ps_state *s, hs_worker *w, host_slot *h) {
  int rc = h->push ? hs_wait(w, &h->push) : 0, prc = h->pull ? hs_wait(w, &h->pull) : 0;
  rc = rc ? rc : prc;
  return rc ? rc : host_answer(s, w, h);
}

/* Unit after unit: the groups' copies in (COPYD2H), their sum on the CPU
 * (PCIE_REDUCE, with several groups), the unit's slices pushed to the
 * servers and their answers pulled, as the node's first worker does
 * without the host path, with up to IN_FLIGHT units out; each answer is
 * copied back to the groups (COPYH2D) as it comes. */
void hs_ps_serve_host(ps_state *s, hs_worker *w) {
  hs_model *m = s->ctx->model;
  int R = s->n_roots;
  size_t most = 0;
  for (int u = 0; u < s->units; u++) {
    size_t o, len;
    unit(s, u, &o, &len);
    if (len > most) most = len;
  }
  float *parts = m->params && R > 0 ? malloc((size_t)R * most * sizeof(float)) : NULL;
  host_slot slot[IN_FLIGHT];
  for (int i = 0; i < IN_FLIGHT; i++)
    slot[i] = (host_slot){.unit = -1, .buf = m->params ? malloc(most * sizeof(float)) : NULL};
  hs_p2p *ops = calloc((size_t)(R + 2 * s->servers) + 1, sizeof *ops);
  int k = 0, oldest = 0; /* units taken in; the oldest still out */
  for (int it = s->ctx->iteration; R > 0 && it < s->ctx->sc->run.iterations; it++) {
    for (int u = 0; u < s->units; u++, k++) {
      size_t uo, ul;
      unit(s, u, &uo, &ul);
      for (; k - oldest >= IN_FLIGHT; oldest++)
        if (slot[oldest % IN_FLIGHT].unit >= 0 && host_finish(s, w, &slot[oldest % IN_FLIGHT])) goto out;
      for (int r = 0; r < R; r++) ops[r] = (hs_p2p){HS_P2P_RECV, 1 + r, fbuf(parts, (size_t)r * ul, ul)};
      if (hs_group_p2p_wait(w, s->d2h_c, ops, R)) goto out;
      host_slot *h = &slot[k % IN_FLIGHT];
      if (h->h2d && hs_wait(w, &h->h2d)) goto out; /* its buffer's last answer has left */
      /* the groups' sums added on the CPU: read each, write one */
      if (R > 1) hs_ps_server_kernel(s, w, 4.0 * (R + 1) * (double)ul, 1);
      if (h->buf) {
        memcpy(h->buf, parts, ul * sizeof(float));
        for (int r = 1; r < R; r++) hs_k_axpy_f32(h->buf, parts + (size_t)r * ul, 1.0f, ul);
      }
      h->unit = u;
      if (s->servers == 0) { /* one machine: the host's sum is the answer */
        hs_ps_server_kernel(s, w, 8.0 * (double)ul, 1);
        if (h->buf) hs_k_divide(HS_K_F32, h->buf, ul, s->workers);
        if (host_answer(s, w, h)) goto out;
        continue;
      }
      hs_p2p *push = ops + R, *pull = ops + R + s->servers;
      for (int j = 0; j < s->servers; j++) {
        size_t o, len;
        slice(s, u, j, &o, &len);
        push[j] = (hs_p2p){HS_P2P_SEND, s->server_rank[j], fbuf(h->buf, o - uo, len)};
        pull[j] = (hs_p2p){HS_P2P_RECV, s->server_rank[j], fbuf(h->buf, o - uo, len)};
      }
      if (hs_group_p2p(w, s->pull_c, pull, s->servers, &h->pull) ||
          hs_group_p2p(w, s->push_c, push, s->servers, &h->push))
        goto out;
    }
    for (; oldest < k; oldest++) /* the iteration's last answers */
      if (slot[oldest % IN_FLIGHT].unit >= 0 && host_finish(s, w, &slot[oldest % IN_FLIGHT])) goto out;
  }
out:
  for (int i = 0; i < IN_FLIGHT; i++) {
    host_slot *h = &slot[(k + i) % IN_FLIGHT]; /* oldest first */
    if (h->push) hs_wait(w, &h->push);
    if (h->pull) hs_wait(w, &h->pull);
    if (h->h2d) hs_wait(w, &h->h2d);
    free(h->buf);
  }
  free(ops), free(parts);
}
