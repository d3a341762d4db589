/* ps_state.h — parameter_server's state and the helpers its three roles
 * share: the workers (parameter_server.c), the servers (ps_server.c) and
 * the nodes' host aggregators of BytePS's host path (ps_host.c). Internal
 * to algos/: what the algorithm shows the rest is its descriptor. */
#ifndef HS_PS_STATE_H
#define HS_PS_STATE_H

#include "algos/algorithm.h"
#include "algos/comm_stream.h"

#define STALENESS_POLL 50e-6 /* s between two checks of the staleness bound */

/* Units a pusher (a worker, a host aggregator) and a server keep out at
 * once (parameter_server.c, unit_start). */
enum { IN_FLIGHT = 4 };

enum { CTL_UPDATE = 0, CTL_BYE = 1 }; /* an asynchronous worker's control word */
typedef struct ps_state ps_state;

typedef struct { /* one worker as seen by an asynchronous server */
  ps_state *s;
  int worker;
  hs_thread *thread;
  float *grad, *out; /* shard-sized buffers */
} ps_link;

struct ps_state {
  hs_algo_ctx *ctx;
  int servers, workers, async, staleness;
  int ready;          /* init finished: a worker has its servers to say goodbye to */
  int *server_rank;   /* world rank of server j */
  int host;           /* sync, aggregate: BytePS's host path (pcie_switch_size > 0) */
  int aggregator;     /* this rank is its node's host aggregator */
  int group_root;     /* host path: this worker is its group's first, which copies to and from the host */
  int n_roots;        /* aggregator: its node's group roots (ranks 1.. of d2h_c and h2d_c) */
  hs_comm *d2h_c, *h2d_c; /* host path: the node's aggregator (rank 0) and its group roots, a copy each
                             way (a communicator's operations run in order: the answers apart) */
  int first_cpu, cpn; /* the world's first CPU process; CPU processes a node */
  int cpu;            /* this rank is a CPU server: its kernels run at host memory bandwidth */
  int overlap;        /* sync: per bucket on the communication stream, as backward produces them */
  int by_bucket;      /* sync: per bucket (overlap, or pipeline: all of them after backward) */
  int units;          /* what is exchanged: the buckets (by_bucket) or the whole model */
  /* sync */
  int *pushers, n_pushers; /* world ranks that push: every worker, or each node's first */
  int pusher;          /* this worker pushes */
  hs_comm *node;       /* aggregate: this node's workers (NULL elsewhere) */
  hs_comm *node_bc;    /* aggregate: the same, for the broadcasts back */
  hs_request **bcast;  /* per unit: its broadcast back, out until the step */
  hs_comm *push_c, *pull_c; /* world's copies: pushes, and the pulls that answer them */
  hs_request **pushed, **pulled; /* per unit: the pusher's posted push and pull */
  int first_out, next;  /* units [first_out, next) are started and not finished */
  hs_comm_stream *stream;
  int failed;          /* a failure struck an exchange of this iteration */
  int worker_update;   /* sync: servers return the average gradient, workers take the step */
  hs_comm **pair;     /* async: per worker, {worker, servers}; a worker keeps its own */
  float *momentum;    /* servers: model-sized, their slices' entries used; workers: unused */
  /* worker side */
  int *stopped_by;    /* async: which servers said stop */
  int stop;
  /* server side */
  hs_mutex *lock;
  long applied;
  long *clock;        /* async: pushes applied per worker */
  ps_link *links;
  float *gsum;        /* sync: pushers x the largest slice */
};

static inline int my_server(const ps_state *s, const hs_worker *w) {
  for (int j = 0; j < s->servers; j++)
    if (s->server_rank[j] == w->rank) return j;
  return -1;
}
static inline hs_buf fbuf(float *base, size_t offset, size_t count) {
  return base ? hs_buf_host(base + offset, count, HS_F32) : hs_buf_virtual(count, HS_F32);
}

/* Unit u of what is exchanged, [*o, *o + *len) of the model: bucket u
 * with overlap, else the whole model (u = 0; always so in async mode). */
static inline void unit(const ps_state *s, int u, size_t *o, size_t *len) {
  const hs_model *m = s->ctx->model;
  *o = s->by_bucket ? m->buckets[u].offset : 0, *len = s->by_bucket ? m->buckets[u].count : m->n_params;
}

/* Server j's slice of unit u: its j-th of `servers` equal parts. */
static inline void slice(const ps_state *s, int u, int j, size_t *o, size_t *len) {
  size_t uo, ul;
  unit(s, u, &uo, &ul);
  size_t a = ul * (size_t)j / (size_t)s->servers, b = ul * (size_t)(j + 1) / (size_t)s->servers;
  *o = uo + a, *len = b - a;
}

/* What a server's memory-bound kernel touching `bytes` costs on it: a CPU
 * server's at the host's memory bandwidth (its summation threads stream
 * through CPU memory), a GPU server's as any GPU kernel. */
void hs_ps_server_kernel(ps_state *s, hs_worker *w, double bytes, int launches);

/* A server's loop (ps_server.c): every worker's pushes summed a unit at a
 * time (sync), or each worker served on its own (async). */
void hs_ps_serve_sync(ps_state *s, hs_worker *w);
void hs_ps_serve_async(ps_state *s, hs_worker *w);
/* A node's host aggregator's loop (ps_host.c). */
void hs_ps_serve_host(ps_state *s, hs_worker *w);

#endif
