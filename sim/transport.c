/* transport.c — point-to-point messages as SimGrid communications.
 *
 * Every message is one SimGrid comm of its real size between the two GPUs'
 * hosts, so the network model sees each byte and each latency. Payloads are
 * copied at send time (MPI semantics: the sender's buffer is free once the
 * call returns) and freed by the receiver; timing-only messages carry a
 * static token because SimGrid refuses NULL payloads. While it waits, an
 * exchange is registered with the world so that a failure can complete it
 * (failures.c); it then reports the failure to its stream. */
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
  hs_comm *c = g->ctx; /* sub-groups of a lowering keep their communicator's ctx */
  sim_rank *self = c->self;
  sim_world *world = self->world;
  hs_sim_freeze_if_dead(self);
  /* A revoked communicator (a failure struck): fail at once, post nothing. */
  if (c->ctx < world->revoke_floor) {
    if (c->stream) hs_sim_stream_failed(c->stream);
    return;
  }
  enum { STACK = 8 };
  sg_comm_t stack_comms[STACK];
  sg_mailbox_t stack_mb[STACK];
  char stack_recv[STACK];
  void *stack_got[STACK];
  int total = ns + nr;
  sg_comm_t *comms = total <= STACK ? stack_comms : malloc(total * sizeof *comms);
  sg_mailbox_t *mb = total <= STACK ? stack_mb : malloc(total * sizeof *mb);
  char *is_recv = total <= STACK ? stack_recv : malloc(total);
  void **got = nr <= STACK ? stack_got : malloc(nr * sizeof *got);
  for (int i = 0; i < ns; i++) {
    void *payload = &timing_only_token;
    if (s[i].data) {
      payload = malloc(s[i].bytes ? s[i].bytes : 1);
      memcpy(payload, s[i].data, s[i].bytes);
    }
    mb[i] = mailbox(g, g->me, s[i].peer);
    is_recv[i] = 0;
    comms[i] = sg_mailbox_put_async(mb[i], payload, (long)s[i].bytes);
    self->w.bytes_sent += s[i].bytes;
    world->messages++;
  }
  for (int i = 0; i < nr; i++) {
    mb[ns + i] = mailbox(g, r[i].peer, g->me);
    is_recv[ns + i] = 1;
    comms[ns + i] = sg_mailbox_get_async(mb[ns + i], &got[i]);
  }
  /* Registered while waiting, so that a failure can complete it. Each
   * put/get above is a simcall, and a failure may have struck during one of
   * them, after the check at the top: then this exchange revokes itself. */
  sim_pending pending = {.mailbox = mb, .is_recv = is_recv, .n = total};
  hs_sim_pending_add(world, &pending);
  if (c->ctx < world->revoke_floor) hs_sim_pending_revoke(&pending);
  sg_comm_wait_all(comms, total);
  hs_sim_pending_remove(world, &pending);
  int failed = c->ctx < world->revoke_floor;
  for (int i = 0; i < nr; i++) {
    if (got[i] == &hs_sim_poison) failed = 1;
    if (got[i] == &timing_only_token || got[i] == &hs_sim_poison) continue;
    if (!failed) hs_lower_deliver(&r[i], got[i]);
    free(got[i]);
  }
  if (failed && c->stream) hs_sim_stream_failed(c->stream);
  if (comms != stack_comms) free(comms);
  if (mb != stack_mb) free(mb);
  if (is_recv != stack_recv) free(is_recv);
  if (got != stack_got) free(got);
}
