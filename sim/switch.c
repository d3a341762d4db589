/* switch.c — the switches that reduce (cluster.nvls, SHARP) as participants.
 *
 * An in-switch collective (algos/comm/inswitch.c) has a participant
 * without a rank: the node's NVSwitch, a host of its own between the GPUs'
 * links, or the fabric's reducing switch, a host beside the fabric's top
 * switch (platform.c). Ids follow the ranks': ranks + node for the nodes'
 * switches, then ranks + nodes + k for the fabric serving rail k (one
 * reduction per rail, all on the fabric's host), so mailboxes and fast's
 * routes tell them apart. In step fidelity its part
 * runs as a short-lived actor on that host, started by the collective's
 * first member, exchanging messages with the members as they do with each
 * other; its bytes count as no rank's. */
#include <simgrid/actor.h>
#include <simgrid/host.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

/* The GPU nodes the world spans (CPU ranks come after every GPU). */
static int nodes_of(const sim_world *w) {
  int gpus = hs_scenario_gpus(w->sc) < w->n ? hs_scenario_gpus(w->sc) : w->n;
  return w->gpus_per_node > 0 ? (gpus + w->gpus_per_node - 1) / w->gpus_per_node : gpus;
}

void hs_sim_switches_init(sim_world *w, const sg_host_t *nvswitch, sg_host_t fabric) {
  if (!w->offer.switches) return;
  int nodes = nodes_of(w), rails = w->gpus_per_node > 0 ? w->gpus_per_node : 1;
  w->n_switches = nodes + rails;
  w->switches = calloc((size_t)w->n_switches, sizeof *w->switches);
  for (int k = 0; k < w->n_switches; k++) {
    w->switches[k].host = k < nodes ? nvswitch[k] : fabric;
    w->switches[k].world = w;
    w->switches[k].w.rank = w->n + k;
  }
}

sg_host_t hs_sim_host_of(const sim_world *w, int id) {
  return id < w->n ? w->ranks[id].host : w->switches[id - w->n].host;
}

void hs_sim_switch_of(const sim_world *w, hs_lower_group *g) {
  g->run_switch = NULL;
  g->switch_id = g->fabric_switch_id = -1;
  g->node_switch_base = 0;
  if (!w->offer.switches || g->size < 2) return;
  int node = hs_sim_node_of(w, g->members[0]), one_node = 1, gpus = 1;
  /* a CPU process reduces in no switch */
  for (int i = 0; i < g->size; i++) {
    one_node &= hs_sim_node_of(w, g->members[i]) == node;
    gpus &= !hs_cluster_rank_is_cpu(&w->sc->cluster, g->members[i]);
  }
  one_node &= gpus;
  const hs_cluster_spec *c = &w->sc->cluster;
  if (one_node && c->nvls) g->switch_id = w->n + node;
  if (!one_node && c->in_network_reduction) g->fabric_switch_id = w->n + nodes_of(w);
  if (!one_node && gpus && c->nvls) g->node_switch_base = w->n;
  if (g->switch_id >= 0 || g->fabric_switch_id >= 0 || g->node_switch_base > 0) g->run_switch = hs_sim_run_switch;
}

int hs_sim_is_switch(const sim_world *w, int id) { return id >= w->n; }

typedef struct {
  hs_comm comm; /* the switch's view of the members' communicator */
  hs_switch_job job;
  int members[];
} switch_part;

static void switch_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  switch_part *p = sg_actor_self_get_data();
  hs_lower_switch_serve(&p->comm.g, &p->job);
  hs_sim_mailbox_cache_free(p->comm.mailboxes);
  free(p);
}

void hs_sim_run_switch(const hs_lower_group *sw, const hs_switch_job *job) {
  const hs_comm *c = sw->ctx;
  sim_world *w = c->self->world;
  sim_rank *self = &w->switches[sw->members[sw->me] - w->n];
  switch_part *p = calloc(1, sizeof *p + (size_t)sw->size * sizeof(int));
  p->comm.self = self;
  p->comm.ctx = c->ctx;
  p->comm.members = c->members;
  p->comm.g = *sw;
  memcpy(p->members, sw->members, (size_t)sw->size * sizeof(int));
  p->comm.g.members = p->members;
  p->comm.g.ctx = &p->comm;
  p->comm.g.run_switch = NULL;
  p->job = *job;
  char name[64];
  snprintf(name, sizeof name, "switch-%d-c%d", self->w.rank, c->ctx);
  sg_actor_t a = sg_actor_init(name, self->host);
  sg_actor_set_data(a, p);
  sg_actor_start_(a, switch_main, 0, NULL);
  w->actors++;
}
