/* background.c — network { src = A, dst = B } traffic: another job's flows.
 *
 * Each entry runs `streams` sender actors on node A's background host, each
 * sending `chunk`-byte messages back to back to a receiver on node B's,
 * from `from` until `to` (a chunk under way at `to` finishes), repeating
 * every `every` seconds when set. They are SimGrid flows like the job's own,
 * so they share the NICs and the fabric by SimGrid's flow model. All are
 * daemons: they end with the job. */
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/sim_internal.h"

static char background_token;

typedef struct {
  const hs_net_event *e;
  char mailbox[64];
  int sender;
} flow;

/* The next time >= now at which the entry's window is open, and its end. */
static int next_window(const hs_net_event *e, double now, double *from, double *to) {
  double len = e->to - e->from;
  if (e->every <= 0) {
    *from = e->from;
    *to = e->to;
    return now < e->to;
  }
  double k = floor((now - e->from) / e->every);
  if (k < 0) k = 0;
  *from = e->from + k * e->every;
  *to = *from + len;
  if (now >= *to) *from += e->every, *to += e->every;
  return 1;
}

static void flow_main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  flow *fl = sg_actor_self_get_data();
  sg_actor_daemonize(sg_actor_self());
  sg_mailbox_t mb = sg_mailbox_by_name(fl->mailbox);
  if (!fl->sender) {
    for (;;) sg_mailbox_get(mb);
  }
  double from, to;
  while (next_window(fl->e, simgrid_get_clock(), &from, &to)) {
    if (from > simgrid_get_clock()) sg_actor_sleep_until(from);
    while (simgrid_get_clock() < to) sg_mailbox_put(mb, &background_token, (long)fl->e->chunk);
  }
}

void hs_sim_start_background(const hs_scenario *sc) {
  for (int i = 0; i < sc->network.n; i++) {
    const hs_net_event *e = &sc->network.events[i];
    if (!e->traffic) continue;
    char src[48], dst[48];
    snprintf(src, sizeof src, "node%d_background", e->src);
    snprintf(dst, sizeof dst, "node%d_background", e->dst);
    for (int s = 0; s < e->streams; s++)
      for (int side = 0; side < 2; side++) {
        flow *fl = calloc(1, sizeof *fl);
        fl->e = e;
        fl->sender = side == 0;
        snprintf(fl->mailbox, sizeof fl->mailbox, "background:%d:%d", i, s);
        char name[64];
        snprintf(name, sizeof name, "background-%d-%d-%s", i, s, side == 0 ? "send" : "recv");
        sg_actor_t a = sg_actor_init(name, sg_host_by_name(side == 0 ? src : dst));
        sg_actor_set_data(a, fl);
        sg_actor_start_(a, flow_main, 0, NULL);
      }
  }
}
