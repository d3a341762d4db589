/* mpi_exchange.c — one round of the lowering as MPI messages.
 *
 * Each send and receive of the round is posted non-blocking on the
 * communicator's data channel, then all are awaited, then what arrived is
 * copied or reduced (hs_lower_deliver), exactly as the SimGrid transport
 * does, so both backends reduce in the same order and give the same bits.
 *
 * Timing-only buffers (data NULL) still move their bytes, from and into
 * scratch memory: a real run measures real traffic. Messages larger than
 * MPI's int count travel in pieces.
 *
 * Emulation: before each payload goes a small header holding the time the
 * emulator says it arrives on the modelled cluster; the round completes no
 * earlier than the latest arrival among what it sent and received (a
 * SimGrid round completes when its last transfer does, sends included). */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "real/mpi_internal.h"

enum { TAG_HEADER = 1, TAG_DATA = 2 };
#define PIECE ((size_t)1 << 30)

static size_t pieces(size_t bytes) { return bytes ? (bytes + PIECE - 1) / PIECE : 1; }

static void *scratch(hs_comm *c, size_t bytes) {
  if (bytes > c->scratch_bytes) {
    free(c->scratch);
    c->scratch = malloc(bytes);
    if (!c->scratch) abort(); /* a failed run is better than wrong traffic */
    c->scratch_bytes = bytes;
  }
  return c->scratch;
}

static void post_bytes(int send, void *buf, size_t bytes, int peer, MPI_Comm comm, MPI_Request *req, int *nreq) {
  size_t off = 0;
  do {
    size_t n = bytes - off < PIECE ? bytes - off : PIECE;
    if (send) MPI_Isend((char *)buf + off, (int)n, MPI_BYTE, peer, TAG_DATA, comm, &req[(*nreq)++]);
    else MPI_Irecv((char *)buf + off, (int)n, MPI_BYTE, peer, TAG_DATA, comm, &req[(*nreq)++]);
    off += n;
  } while (off < bytes);
}

void hs_mpi_exchange(const hs_lower_group *g, const hs_lower_send *s, int ns, hs_lower_recv *r, int nr) {
  hs_comm *c = g->ctx;
  mpi_rank *self = c->self;
  int emulate = self->emu != NULL;

  /* Scratch layout: one region all timing-only sends read (its content is
   * irrelevant), then one region per receive that needs its own. */
  size_t send_scratch = 0, total = 0, n_req = 0;
  for (int i = 0; i < ns; i++) {
    if (!s[i].data && s[i].bytes > send_scratch) send_scratch = s[i].bytes;
    n_req += pieces(s[i].bytes) + (size_t)emulate;
  }
  total = send_scratch;
  size_t *recv_off = malloc((size_t)(nr + 1) * sizeof *recv_off);
  for (int i = 0; i < nr; i++) {
    recv_off[i] = SIZE_MAX; /* straight into dst */
    if (!r[i].dst || r[i].reduce) {
      recv_off[i] = total;
      total += (r[i].bytes + 63) & ~(size_t)63;
    }
    n_req += pieces(r[i].bytes) + (size_t)emulate;
  }
  char *base = total ? scratch(c, total) : NULL;
  MPI_Request *req = malloc((n_req + 1) * sizeof *req);
  double *arrival = malloc((size_t)(ns + nr + 1) * sizeof *arrival);
  int k = 0;

  for (int i = 0; i < nr; i++) {
    int peer = c->local_of_world[g->members[r[i].peer]];
    if (emulate) MPI_Irecv(&arrival[ns + i], 1, MPI_DOUBLE, peer, TAG_HEADER, c->data, &req[k++]);
    void *dst = recv_off[i] == SIZE_MAX ? r[i].dst : base + recv_off[i];
    post_bytes(0, dst, r[i].bytes, peer, c->data, req, &k);
  }
  uint64_t sent = 0;
  int concurrent = 1; /* the exchange's flows across nodes, which share a GPU's proxy thread over TCP */
  if (emulate && g->shares_proxy && (ns > 1 || nr > 1)) {
    int *to = malloc((size_t)(ns + nr + 1) * sizeof *to), *from = to + ns;
    for (int i = 0; i < ns; i++) to[i] = g->members[s[i].peer];
    for (int i = 0; i < nr; i++) from[i] = g->members[r[i].peer];
    concurrent = hs_emulator_concurrent(self->emu, self->w.rank, to, ns, from, nr);
    free(to);
  }
  for (int i = 0; i < ns; i++) {
    int world_peer = g->members[s[i].peer], peer = c->local_of_world[world_peer];
    if (emulate) {
      /* the protocol's: the message leaves its hop after now, `wire`
       * times its bytes on the links, at most at `rate` (lowering.h), as
       * in the simulator */
      double wire = g->wire > 1 ? ceil((double)s[i].bytes * g->wire) : (double)s[i].bytes;
      arrival[i] = hs_emulator_post(self->emu, self->w.rank, world_peer, (size_t)wire,
                                    hs_clock_now() + hs_lower_hop(g, g->me, s[i].peer), g->rate, g->spread,
                                    concurrent);
      MPI_Isend(&arrival[i], 1, MPI_DOUBLE, peer, TAG_HEADER, c->data, &req[k++]);
    }
    post_bytes(1, s[i].data ? (void *)s[i].data : base, s[i].bytes, peer, c->data, req, &k);
    sent += s[i].bytes;
  }
  if (emulate) {
    /* The bytes land long before their emulated arrival: poll politely
     * instead of MPI's busy wait, which would take the CPU from the ranks
     * that have work to do (an emulated cluster shares a few cores). */
    int done = 0;
    MPI_Testall(k, req, &done, MPI_STATUSES_IGNORE);
    while (!done) {
      struct timespec pause = {0, 20000};
      nanosleep(&pause, NULL);
      MPI_Testall(k, req, &done, MPI_STATUSES_IGNORE);
    }
  } else {
    MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
  }
  __atomic_fetch_add(&self->w.bytes_sent, sent, __ATOMIC_RELAXED);

  for (int i = 0; i < nr; i++)
    if (recv_off[i] != SIZE_MAX && r[i].dst) hs_lower_deliver(&r[i], base + recv_off[i]);

  if (emulate) {
    double until = 0;
    for (int i = 0; i < ns + nr; i++)
      if (arrival[i] > until) until = arrival[i];
    hs_clock_sleep_until(until);
  }
  free(arrival);
  free(req);
  free(recv_off);
}
