/* mpi_native.c — collectives by the MPI library itself (real.lowering = "mpi").
 *
 * The stream thread calls MPI_Allreduce, MPI_Reduce_scatter_block, ... on
 * the communicator's data channel: whatever algorithm the MPI library picks
 * for the size, at its speed. Results are exact but may be summed in
 * another order than the simulator's lowering (a last-bit difference), and
 * messages cannot be delayed, so emulation always uses the shared lowering
 * instead. Grouped send/recv still goes through hs_mpi_exchange. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "real/mpi_internal.h"

static MPI_Datatype mpi_type(hs_dtype t) {
  switch (t) {
  case HS_F32: return MPI_FLOAT;
  case HS_F64: return MPI_DOUBLE;
  case HS_I32: return MPI_INT32_T;
  case HS_I64: return MPI_INT64_T;
  case HS_U8: return MPI_UINT8_T;
  default: return MPI_UINT16_T; /* 2-byte types travel timing-only: any 2-byte type sums */
  }
}

static MPI_Op mpi_redop(hs_redop op) { return op == HS_MIN ? MPI_MIN : op == HS_MAX ? MPI_MAX : MPI_SUM; }

/* Timing-only buffers get scratch: the receive side at offset 0, the send
 * side after it. Grown once per operation, before any pointer is taken. */
static void reserve_scratch(hs_comm *c, hs_buf s, hs_buf r) {
  size_t need = hs_buf_bytes(r) + hs_buf_bytes(s) + 128;
  if ((s.data && r.data) || need <= c->scratch_bytes) return;
  free(c->scratch);
  c->scratch = calloc(1, need);
  if (!c->scratch) abort();
  c->scratch_bytes = need;
}

static void *recv_ptr(hs_comm *c, hs_buf r) { return r.data ? r.data : c->scratch; }
static void *send_ptr(hs_comm *c, hs_buf s, hs_buf r) {
  return s.data ? s.data : (char *)c->scratch + ((hs_buf_bytes(r) + 63) & ~(size_t)63);
}

static void divide_if_avg(hs_buf b, hs_redop op, int n) {
  if (op == HS_AVG && b.data) hs_k_divide((hs_k_type)b.dtype, b.data, b.count, n);
}

void hs_mpi_native_run(hs_comm *c, const hs_op *o) {
  int n = c->g.size, me = c->g.me;
  hs_buf s = o->send, r = o->recv;
  size_t sb = hs_buf_bytes(s);
  MPI_Datatype t = mpi_type(s.dtype);
  double counted = 0;
  reserve_scratch(c, s, r);
  switch (o->kind) {
  case HS_OP_ALLREDUCE: {
    void *rp = recv_ptr(c, r);
    const void *sp = s.data && s.data == r.data ? MPI_IN_PLACE : send_ptr(c, s, r);
    MPI_Allreduce(sp, rp, (int)s.count, t, mpi_redop(o->redop), c->data);
    divide_if_avg(r, o->redop, n);
    counted = hs_lower_ring_bytes(o->kind, n, (double)sb, 0);
    break;
  }
  case HS_OP_REDUCE_SCATTER: {
    void *rp = recv_ptr(c, r);
    void *sp = send_ptr(c, s, r);
    MPI_Reduce_scatter_block(sp, rp, (int)r.count, t, mpi_redop(o->redop), c->data);
    divide_if_avg(r, o->redop, n);
    counted = hs_lower_ring_bytes(o->kind, n, (double)sb, 0);
    break;
  }
  case HS_OP_ALLGATHER: {
    void *rp = recv_ptr(c, r);
    void *sp = send_ptr(c, s, r);
    MPI_Allgather(sp, (int)s.count, t, rp, (int)s.count, t, c->data);
    counted = hs_lower_ring_bytes(o->kind, n, (double)hs_buf_bytes(r), 0);
    break;
  }
  case HS_OP_BROADCAST: {
    void *rp = recv_ptr(c, r);
    if (me == o->root && s.data && s.data != r.data) memcpy(rp, s.data, sb);
    MPI_Bcast(rp, (int)r.count, t, o->root, c->data);
    counted = hs_lower_ring_bytes(o->kind, n, (double)sb, me == o->root);
    break;
  }
  case HS_OP_REDUCE: {
    int root = me == o->root;
    void *rp = root ? recv_ptr(c, r) : NULL;
    const void *sp = root && s.data && s.data == r.data ? MPI_IN_PLACE : send_ptr(c, s, r);
    MPI_Reduce(sp, rp, (int)s.count, t, mpi_redop(o->redop), o->root, c->data);
    if (root) divide_if_avg(r, o->redop, n);
    counted = hs_lower_ring_bytes(o->kind, n, (double)sb, root);
    break;
  }
  case HS_OP_ALLTOALL: {
    void *rp = recv_ptr(c, r);
    void *sp = send_ptr(c, s, r);
    int block = (int)(s.count / (size_t)n);
    MPI_Alltoall(sp, block, t, rp, block, t, c->data);
    counted = hs_lower_ring_bytes(o->kind, n, (double)sb, 0);
    break;
  }
  case HS_OP_BARRIER: MPI_Barrier(c->data); break;
  case HS_OP_P2P: /* the selector lowers point-to-point: never here */
  case HS_OP_KINDS: return;
  }
  __atomic_fetch_add(&c->self->w.bytes_sent, (uint64_t)counted, __ATOMIC_RELAXED);
}
