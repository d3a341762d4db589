/* peer_round.c — simulated gossip rounds (peer_round.h). */
#include "sim/peer_round.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/platform.h"
#include "sim/sim.h"

typedef struct {
  const hs_scenario *sc;
  int rounds;
  size_t count; /* float elements per message */
  double *start, *end;
} round_job;

static void round_main(hs_worker *w, void *arg) {
  round_job *j = arg;
  hs_peer_scheme *s = j->sc->algorithm.peers;
  bool hier = s->hierarchical || hs_opt_bool(&j->sc->algorithm.options, "hierarchical");
  int leader = !hier || w->local_rank == 0;
  hs_comm *c = NULL;
  hs_request *q = NULL;
  if (hs_comm_split(w, w->world, leader ? 0 : 1, w->rank, &c)) return;
  if (leader) {
    int me = hs_comm_rank(w, c), n = hs_comm_size(w, c);
    hs_peer_schedule *sched = hs_peer_scheme_schedule(s, n);
    hs_buf msg = hs_buf_virtual(j->count, HS_F32);
    hs_p2p *ops = NULL;
    for (int r = 0; r < j->rounds; r++) {
      hs_barrier(w, c, &q);
      hs_wait(w, &q);
      double t0 = hs_now(w);
      if (s->allreduce) {
        hs_allreduce(w, c, msg, msg, HS_AVG, &q);
      } else {
        const hs_peer_step *st = hs_peer_schedule_get_or_exit(sched, r);
        int k = 0, deg = st->out_off[me + 1] - st->out_off[me] + st->in_off[me + 1] - st->in_off[me];
        ops = realloc(ops, (deg ? deg : 1) * sizeof *ops);
        for (int e = st->out_off[me]; e < st->out_off[me + 1]; e++) ops[k++] = (hs_p2p){HS_P2P_SEND, st->out[e].peer, msg};
        for (int e = st->in_off[me]; e < st->in_off[me + 1]; e++) ops[k++] = (hs_p2p){HS_P2P_RECV, st->in[e].peer, msg};
        hs_group_p2p(w, c, ops, k, &q);
      }
      hs_wait(w, &q);
      double t1 = hs_now(w);
      if (t0 < j->start[r]) j->start[r] = t0;
      if (t1 > j->end[r]) j->end[r] = t1;
    }
    free(ops);
  }
  hs_comm_free(w, c);
}

int hs_peer_rounds_simulate(const hs_scenario *sc, int rounds, double bytes, hs_peer_rounds *out) {
  out->rounds = rounds;
  out->time = calloc(rounds ? rounds : 1, sizeof(double));
  char platform[HS_PLATFORM_TEMP_LEN];
  if (hs_platform_write_temp(&sc->cluster, "hearsay peers", platform)) return 1;
  round_job j = {.sc = sc, .rounds = rounds, .count = (size_t)ceil(bytes / 4)};
  j.start = malloc(rounds * sizeof(double));
  j.end = malloc(rounds * sizeof(double));
  for (int r = 0; r < rounds; r++) j.start[r] = INFINITY, j.end[r] = -INFINITY;
  hs_sim_config cfg = {.sc = sc, .platform_file = platform, .main = round_main, .arg = &j};
  hs_sim_stats st = {0};
  hs_sim_run(&cfg, &st);
  hs_platform_temp_release(platform);
  for (int r = 0; r < rounds; r++) out->time[r] = j.end[r] - j.start[r];
  out->wall_time = st.wall_time;
  free(j.start), free(j.end);
  return 0;
}
