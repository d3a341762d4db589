/* transport.c — point-to-point messages as SimGrid communications.
 *
 * Every message is one SimGrid comm of its real size between the two GPUs'
 * hosts, so the network model sees each byte and each latency. Payloads are
 * copied at send time (MPI semantics: the sender's buffer is free once the
 * call returns) and freed by the receiver; timing-only messages carry a
 * static token because SimGrid refuses NULL payloads. */
#include <simgrid/comm.h>
#include <simgrid/mailbox.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

static char timing_only_token;

static sg_mailbox_t mailbox(const hs_lower_group *g, int src_idx, int dst_idx) {
  char name[96];
  snprintf(name, sizeof name, "%s:%d>%d", g->tag, g->members[src_idx], g->members[dst_idx]);
  return sg_mailbox_by_name(name);
}

void hs_sim_exchange(const hs_lower_group *g, const hs_lower_send *s, int ns, hs_lower_recv *r, int nr) {
  sg_comm_t stack_comms[8];
  void *stack_got[8];
  int total = ns + nr;
  sg_comm_t *comms = total <= 8 ? stack_comms : malloc(total * sizeof *comms);
  void **got = nr <= 8 ? stack_got : malloc(nr * sizeof *got);
  sim_rank *self = g->ctx;
  sim_world *world = self->world;
  for (int i = 0; i < ns; i++) {
    void *payload = &timing_only_token;
    if (s[i].data) {
      payload = malloc(s[i].bytes ? s[i].bytes : 1);
      memcpy(payload, s[i].data, s[i].bytes);
    }
    comms[i] = sg_mailbox_put_async(mailbox(g, g->me, s[i].peer), payload, (long)s[i].bytes);
    self->w.bytes_sent += s[i].bytes;
    world->messages++;
  }
  for (int i = 0; i < nr; i++) comms[ns + i] = sg_mailbox_get_async(mailbox(g, r[i].peer, g->me), &got[i]);
  sg_comm_wait_all(comms, total);
  for (int i = 0; i < nr; i++) {
    if (got[i] == &timing_only_token) continue;
    hs_lower_deliver(&r[i], got[i]);
    free(got[i]);
  }
  if (comms != stack_comms) free(comms);
  if (got != stack_got) free(got);
}
