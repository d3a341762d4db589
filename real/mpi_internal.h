/* mpi_internal.h — state shared by the files of the MPI transport. */
#ifndef HS_REAL_MPI_INTERNAL_H
#define HS_REAL_MPI_INTERNAL_H

#include <mpi.h>
#include <pthread.h>

#include "algos/comm/comm.h"
#include "algos/comm/lowering.h"
#include "algos/comm/select.h"
#include "real/clock.h"
#include "real/emulator.h"
#include "scenarios/scenario.h"

typedef struct mpi_op mpi_op;

/* One process's rank: the worker the algorithm sees and what its streams
 * share. Requests of every stream signal completion on one condition. */
typedef struct {
  hs_worker w;
  const hs_scenario *sc;
  hs_emulator *emu;     /* NULL: messages go at the machine's own speed */
  double compute_speed; /* flops/s when compute is emulated; 0: compute is real */
  double t0;            /* hs_clock_now() at the start of the run */
  hs_offer offer;       /* what its communicators can run (select.h) */
  pthread_mutex_t lock;
  pthread_cond_t done;
} mpi_rank;

/* A communicator: its members and a stream, a thread that runs the posted
 * operations in order, as a CUDA stream runs NCCL calls. Messages of the
 * stream travel on `data`; splits, called by the owner's threads, use
 * `ctl`, so the two never interleave on one MPI communicator. */
struct hs_comm {
  hs_lower_group g; /* members: world ranks; ctx: this hs_comm */
  mpi_rank *self;
  MPI_Comm data, ctl;
  int *members;        /* world rank of each member */
  int *local_of_world; /* member index of each world rank, -1 if absent */
  pthread_t thread;
  pthread_mutex_t qlock;
  pthread_cond_t qcv;
  mpi_op *head, *tail;
  int stopping;
  /* Scratch for timing-only messages and for reductions: grown, reused. */
  void *scratch;
  size_t scratch_bytes;
  hs_plan plan; /* how each kind of operation runs on it */
};

/* mpi_native.c: runs o with the MPI library's own collectives. */
void hs_mpi_native_run(hs_comm *c, const hs_op *o);

/* mpi_exchange.c: the lowering's exchange primitive over MPI (ctx is the hs_comm). */
void hs_mpi_exchange(const hs_lower_group *g, const hs_lower_send *s, int ns, hs_lower_recv *r, int nr);

#endif
