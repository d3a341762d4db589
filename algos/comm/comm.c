/* comm.c — backend-independent helpers of the comm-op interface. */
#include "algos/comm/comm.h"

#include <stdlib.h>
#include <string.h>

size_t hs_dtype_size(hs_dtype t) {
  static const size_t sizes[HS_DTYPE_COUNT] = {4, 8, 4, 8, 1, 2, 2};
  return t < HS_DTYPE_COUNT ? sizes[t] : 0;
}

const char *hs_dtype_name(hs_dtype t) {
  static const char *const names[HS_DTYPE_COUNT] = {"f32", "f64", "i32", "i64", "u8", "f16", "bf16"};
  return t < HS_DTYPE_COUNT ? names[t] : "?";
}

hs_buf hs_buf_slice(hs_buf b, size_t offset, size_t count) {
  hs_buf s = b;
  s.count = count;
  if (b.data) s.data = (char *)b.data + offset * hs_dtype_size(b.dtype);
  return s;
}

const char *hs_op_name(hs_op_kind k) {
  static const char *const names[HS_OP_KINDS] = {"allreduce", "reduce_scatter", "allgather", "broadcast",
                                                 "reduce",    "alltoall",       "barrier",   "send/recv"};
  return k < HS_OP_KINDS ? names[k] : "?";
}

/* AVG divides, so it needs a floating-point type (timing-only: no data, no division). */
static int redop_ok(hs_buf b, hs_redop op) {
  return op != HS_AVG || b.dtype == HS_F32 || b.dtype == HS_F64 || b.dtype == HS_F16 || b.dtype == HS_BF16 || !b.data;
}

int hs_op_check(const hs_op *o, int size) {
  if (size <= 0 || o->kind >= HS_OP_KINDS) return HS_EINVAL;
  size_t n = (size_t)size;
  int both_or_none = !o->send.data == !o->recv.data;
  int ok = 1;
  switch (o->kind) {
  case HS_OP_ALLREDUCE: ok = o->send.count == o->recv.count && redop_ok(o->recv, o->redop) && both_or_none; break;
  case HS_OP_REDUCE_SCATTER:
    ok = o->send.count == o->recv.count * n && redop_ok(o->recv, o->redop) && both_or_none;
    break;
  case HS_OP_ALLGATHER: ok = o->recv.count == o->send.count * n && both_or_none; break;
  case HS_OP_BROADCAST: ok = o->root >= 0 && o->root < size && o->send.count == o->recv.count; break;
  case HS_OP_REDUCE:
    ok = o->root >= 0 && o->root < size && redop_ok(o->send, o->redop) && o->send.count == o->recv.count;
    break;
  case HS_OP_ALLTOALL: ok = o->send.count == o->recv.count && o->send.count % n == 0 && both_or_none; break;
  case HS_OP_BARRIER: break;
  case HS_OP_P2P:
    ok = o->n_p2p >= 0 && (o->p2p || o->n_p2p == 0);
    for (int i = 0; i < o->n_p2p && ok; i++) ok = o->p2p[i].peer >= 0 && o->p2p[i].peer < size;
    break;
  case HS_OP_KINDS: ok = 0; break;
  }
  return ok ? HS_OK : HS_EINVAL;
}

int hs_post(hs_worker *w, hs_comm *c, const hs_op *o, hs_request **q) {
  *q = NULL;
  if (!c || hs_op_check(o, w->be->comm_size(c))) return HS_EINVAL;
  return w->be->post(c, o, q);
}

int hs_op_keep(hs_op *dst, const hs_op *o) {
  *dst = *o;
  dst->p2p = NULL;
  if (o->kind != HS_OP_P2P || o->n_p2p == 0) return HS_OK;
  hs_p2p *copy = malloc((size_t)o->n_p2p * sizeof *copy);
  if (!copy) return HS_ENOMEM;
  memcpy(copy, o->p2p, (size_t)o->n_p2p * sizeof *copy);
  dst->p2p = copy;
  return HS_OK;
}

void hs_op_release(hs_op *o) {
  free((void *)o->p2p);
  o->p2p = NULL;
}
