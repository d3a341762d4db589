/* emulator.c — the shared link table and the arrival-time model (emulator.h). */
#include "real/emulator.h"

#include "real/clock.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/comm/protocol.h"
#include "scenarios/links.h"
#include "scenarios/net_transport.h"

/* Lives in shared memory; the mutex is process-shared. */
typedef struct {
  pthread_mutex_t lock;
  int n_links;
  double busy_until[]; /* per directed link, hs_clock_now seconds */
} shared_table;

struct hs_emulator {
  const hs_cluster_spec *cluster;
  double latency_factor, bandwidth_factor;
  int channels; /* NCCL channels a connection carries: the transport's bound per flow (net_transport.h) */
  MPI_Win win;
  MPI_Comm node;
  shared_table *table;
};

/* SimGrid's defaults when the scenario leaves a factor at 0: CM02 applies
 * none, LV08 the factors of its paper (sim/engine.c passes the same). */
static void model_factors(const hs_sim_spec *s, double *lat, double *bw) {
  int lv08 = strcmp(s->network_model, "LV08") == 0;
  *lat = s->latency_factor > 0 ? s->latency_factor : lv08 ? 13.01 : 1;
  *bw = s->bandwidth_factor > 0 ? s->bandwidth_factor : lv08 ? 0.97 : 1;
}

hs_emulator *hs_emulator_create(const hs_scenario *sc, MPI_Comm world, char *err, size_t errlen) {
  MPI_Comm node;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size, world_size, node_rank;
  MPI_Comm_size(node, &node_size);
  MPI_Comm_size(world, &world_size);
  MPI_Comm_rank(node, &node_rank);
  int all_here = node_size == world_size, everywhere = 0;
  MPI_Allreduce(&all_here, &everywhere, 1, MPI_INT, MPI_MIN, world);
  if (!everywhere) {
    snprintf(err, errlen, "real.emulate needs every rank on one machine (%d of %d share this one)", node_size,
             world_size);
    MPI_Comm_free(&node);
    return NULL;
  }
  hs_emulator *e = calloc(1, sizeof *e);
  e->cluster = &sc->cluster;
  e->channels = hs_channels_of(sc);
  e->node = node;
  model_factors(&sc->sim, &e->latency_factor, &e->bandwidth_factor);
  int n_links = hs_links_count(&sc->cluster);
  MPI_Aint bytes = node_rank == 0 ? (MPI_Aint)(sizeof(shared_table) + (size_t)n_links * sizeof(double)) : 0;
  void *base;
  if (MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, node, &base, &e->win) != MPI_SUCCESS) {
    snprintf(err, errlen, "cannot allocate the emulator's shared link table");
    MPI_Comm_free(&node);
    free(e);
    return NULL;
  }
  MPI_Aint size;
  int disp;
  MPI_Win_shared_query(e->win, 0, &size, &disp, &e->table);
  if (node_rank == 0) {
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutex_init(&e->table->lock, &a);
    pthread_mutexattr_destroy(&a);
    e->table->n_links = n_links;
    for (int i = 0; i < n_links; i++) e->table->busy_until[i] = 0;
  }
  MPI_Barrier(node); /* nobody uses the table before it is initialised */
  return e;
}

void hs_emulator_free(hs_emulator *e) {
  if (!e) return;
  MPI_Barrier(e->node); /* nobody uses the table any more */
  MPI_Win_free(&e->win);
  MPI_Comm_free(&e->node);
  free(e);
}

int hs_emulator_concurrent(const hs_emulator *e, int src, const int *dst, int ns, const int *from, int nr) {
  const hs_cluster_spec *c = e->cluster;
  int node = hs_cluster_rank_node(c, src), out = 0, in = 0;
  for (int i = 0; i < ns; i++) out += hs_cluster_rank_node(c, dst[i]) != node;
  for (int i = 0; i < nr; i++) in += hs_cluster_rank_node(c, from[i]) != node;
  return out > in ? out : in;
}

double hs_emulator_post(hs_emulator *e, int src, int dst, size_t bytes, double depart, double rate, int gpus,
                        int concurrent) {
  hs_hop hop[HS_ROUTE_MAX];
  int k = hs_links_route(e->cluster, src, dst, hop);
  double now = fmax(hs_clock_now(), depart);
  if (k == 0) return now;
  double latency = 0, narrowest = INFINITY;
  for (int i = 0; i < k; i++) {
    latency += hop[i].latency;
    narrowest = fmin(narrowest, hop[i].bandwidth);
  }
  latency *= e->latency_factor;
  double b = (double)bytes;
  pthread_mutex_lock(&e->table->lock);
  double start = now;
  for (int i = 0; i < k; i++) start = fmax(start, e->table->busy_until[hop[i].id]);
  for (int i = 0; i < k; i++) e->table->busy_until[hop[i].id] = start + b / (hop[i].bandwidth * e->bandwidth_factor);
  pthread_mutex_unlock(&e->table->lock);
  double flow = narrowest * e->bandwidth_factor;
  if (rate > 0 && rate < flow) flow = rate;
  const hs_cluster_spec *c = e->cluster;
  flow = fmin(flow, hs_net_hop_cap(c, src, dst, hs_cluster_rank_node(c, src), hs_cluster_rank_node(c, dst), e->channels,
                                   gpus, concurrent));
  return start + latency + b / flow;
}
