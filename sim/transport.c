/* transport.c — point-to-point messages as SimGrid communications.
 *
 * Every message is one SimGrid comm of its real size between the two GPUs'
 * hosts, so the network model sees each byte and each latency. Payloads are
 * copied at send time (MPI semantics: the sender's buffer is free once the
 * call returns) and freed by the receiver; timing-only messages carry a
 * static token because SimGrid refuses NULL payloads. While it waits, an
 * exchange is registered with the world so that a failure can complete it
 * (failures.c); it then reports the failure to its stream.
 *
 * Posting and completing are separate (hs_sim_post, hs_sim_complete) so
 * that a rank can post its gossip itself and compute while it flies
 * (stream.c); hs_sim_exchange does both for the lowering. */
#include <math.h>
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenarios/net_transport.h"
#include "sim/sg_latency.h"
#include "sim/sg_rate.h"
#include "sim/sim_internal.h"

static char timing_only_token;

/* ---- mailboxes ------------------------------------------------------------------
 * A mailbox is named "tag:src>dst" (world ranks). Building the name and
 * looking it up in SimGrid's table cost as much as posting the comm, and a
 * rank talks to the same few peers every iteration: each communicator keeps
 * the ones it used, up to a bound (an alltoall's n peers are not kept). */

enum { MAILBOX_CACHE_MAX = 64 };

typedef struct {
  const char *tag; /* the group's tag, compared by content */
  int src, dst;
  sg_mailbox_t mb;
} mailbox_entry;

struct sim_mailbox_cache {
  int n, cap; /* open addressing, cap a power of two */
  mailbox_entry *slot;
  char (*tags)[48]; /* the distinct tags seen, owned here */
  int n_tags;
};

static const char *intern_tag(sim_mailbox_cache *mc, const char *tag) {
  for (int i = 0; i < mc->n_tags; i++)
    if (strcmp(mc->tags[i], tag) == 0) return mc->tags[i];
  return NULL;
}

/* Writes n in decimal at p; returns the end. */
static char *put_decimal(char *p, int n) {
  char digits[12];
  int k = 0;
  if (n < 0) *p++ = '-'; /* no rank or switch id is negative; kept distinct all the same */
  unsigned u = n < 0 ? 0u - (unsigned)n : (unsigned)n;
  do digits[k++] = (char)('0' + u % 10), u /= 10;
  while (u > 0);
  while (k > 0) *p++ = digits[--k];
  return p;
}

/* "tag:src>dst" into name (96 bytes: a group's tag is at most 48, two
 * ranks at most 11 characters each). By hand, not snprintf: a peer scheme that changes peers
 * every step (shift_one) names a new mailbox for every message, and
 * snprintf's parsing of the format was 4% of such a 1024-GPU run. */
static void mailbox_name(char name[96], const hs_lower_group *g, int src, int dst) {
  size_t len = strnlen(g->tag, sizeof g->tag);
  memcpy(name, g->tag, len);
  char *p = name + len;
  *p++ = ':';
  p = put_decimal(p, src);
  *p++ = '>';
  p = put_decimal(p, dst);
  *p = '\0';
}

static unsigned hash_pair(int src, int dst) { return (unsigned)src * 2654435761u ^ (unsigned)dst * 40503u; }

static sg_mailbox_t mailbox(hs_comm *c, const hs_lower_group *g, int src_idx, int dst_idx) {
  int src = g->members[src_idx], dst = g->members[dst_idx];
  sim_mailbox_cache *mc = c->mailboxes;
  if (!mc) mc = c->mailboxes = calloc(1, sizeof *mc);
  const char *tag = intern_tag(mc, g->tag);
  if (tag && mc->cap)
    for (unsigned h = hash_pair(src, dst) & (unsigned)(mc->cap - 1);; h = (h + 1) & (unsigned)(mc->cap - 1)) {
      mailbox_entry *e = &mc->slot[h];
      if (!e->tag) break;
      if (e->src == src && e->dst == dst && e->tag == tag) return e->mb;
    }
  char name[96];
  mailbox_name(name, g, src, dst);
  sg_mailbox_t mb = sg_mailbox_by_name(name);
  if (mc->n >= MAILBOX_CACHE_MAX) return mb;
  if (!tag) {
    if (mc->n_tags == 8) return mb; /* a handful of sub-groups at most */
    if (!mc->tags) mc->tags = malloc(8 * sizeof *mc->tags);
    snprintf(mc->tags[mc->n_tags], sizeof mc->tags[0], "%s", g->tag);
    tag = mc->tags[mc->n_tags++];
  }
  if (2 * (mc->n + 1) > mc->cap) {
    /* grow to keep the table at most half full */
    int cap = mc->cap ? 2 * mc->cap : 8;
    mailbox_entry *old = mc->slot, *slot = calloc((size_t)cap, sizeof *slot);
    for (int i = 0; i < mc->cap; i++)
      if (old[i].tag) {
        unsigned h = hash_pair(old[i].src, old[i].dst) & (unsigned)(cap - 1);
        while (slot[h].tag) h = (h + 1) & (unsigned)(cap - 1);
        slot[h] = old[i];
      }
    free(old);
    mc->slot = slot;
    mc->cap = cap;
  }
  unsigned h = hash_pair(src, dst) & (unsigned)(mc->cap - 1);
  while (mc->slot[h].tag) h = (h + 1) & (unsigned)(mc->cap - 1);
  mc->slot[h] = (mailbox_entry){tag, src, dst, mb};
  mc->n++;
  return mb;
}

void hs_sim_mailbox_cache_free(sim_mailbox_cache *mc) {
  if (!mc) return;
  free(mc->slot);
  free(mc->tags);
  free(mc);
}

/* ---- the protocol ------------------------------------------------------------------
 * A collective's protocol (protocol.h) puts `wire` bytes on the links per
 * payload byte (`switch_wire` on a message to or from a switch that reduces),
 * and its messages leave `hop` seconds after they are posted: SimGrid has
 * no per-message latency, so the send itself waits. */

static long wire_size(const sim_world *w, const hs_lower_group *g, int peer, size_t bytes) {
  int by_switch = g->switch_wire > 0 &&
                  (hs_sim_is_switch(w, g->members[g->me]) || hs_sim_is_switch(w, g->members[peer]));
  double wire = by_switch ? g->switch_wire : g->wire;
  return wire > 1 ? (long)ceil((double)bytes * wire) : (long)bytes;
}

/* ---- posting and completing ------------------------------------------------------ */

/* Bytes from rank `from` to `to` that leave from's node (hs_sim_stats.nic_sent). */
static void count_nic(sim_world *w, int from, int to, size_t bytes) {
  int a = hs_sim_node_of(w, from), b = hs_sim_node_of(w, to);
  if (from < w->n && to < w->n && a != b && a < HS_SIM_NIC_TRACKED) w->nic_sent[a] += (double)bytes;
}

/* What one flow from the group's member `me` to member `peer` moves at
 * most, in bytes on the wire per second: the group's protocol bound (and
 * between two nodes its bound there, lowering.h's net_rate) and the
 * transport's bound on a connection between their nodes, one of
 * `concurrent` that leave this GPU across nodes at once
 * (net_transport.h); 0: the links alone. */
static double flow_rate(const sim_world *w, const hs_lower_group *g, int peer, int concurrent) {
  int a = g->members[g->me], b = g->members[peer], na = hs_sim_node_of(w, a), nb = hs_sim_node_of(w, b);
  double cap = hs_net_hop_cap(&w->sc->cluster, a, b, na, nb, w->channels, g->spread, concurrent);
  double rate = g->rate;
  if (na != nb && g->net_rate > 0 && (rate <= 0 || g->net_rate < rate)) rate = g->net_rate;
  if (!isfinite(cap)) return rate;
  return rate > 0 ? fmin(rate, cap) : cap;
}

/* How many of this post's flows cross nodes at once, as the busier
 * direction counts them (its sends or its receives): what a GPU's proxy
 * thread divides itself among (hs_net_flow_cap_concurrent), for one GPU's
 * own exchange (shares_proxy: point-to-point, alltoall) and 1 for a
 * collective's schedule, as fast counts them. Peers are ranks (a switch
 * that reduces is no GPU's connection). */
static int concurrent_across(const sim_world *w, const hs_lower_group *g, const hs_lower_send *s, int ns,
                             const hs_lower_recv *r, int nr) {
  if (!g->shares_proxy || (ns <= 1 && nr <= 1)) return 1;
  int me = hs_sim_node_of(w, g->members[g->me]), out = 0, in = 0;
  for (int i = 0; i < ns; i++) {
    int peer = g->members[s[i].peer];
    out += peer < w->n && hs_sim_node_of(w, peer) != me;
  }
  for (int i = 0; i < nr; i++) {
    int peer = g->members[r[i].peer];
    in += peer < w->n && hs_sim_node_of(w, peer) != me;
  }
  return out > in ? out : in;
}

void hs_sim_post(hs_comm *c, const hs_lower_group *g, const hs_lower_send *s, int ns, const hs_lower_recv *r,
                 int nr, sim_posted *p) {
  sim_rank *self = c->self;
  int total = ns + nr;
  p->n = total;
  p->ended = simgrid_get_clock();
  p->ns = ns;
  p->nr = nr;
  int small = total <= SIM_POSTED_INLINE;
  p->comms = small ? p->comms_in : malloc((size_t)total * sizeof *p->comms);
  p->mailbox = small ? p->mailbox_in : malloc((size_t)total * sizeof *p->mailbox);
  p->is_recv = small ? p->is_recv_in : malloc((size_t)total);
  p->got = small ? p->got_in : malloc((size_t)(nr + 1) * sizeof *p->got);
  p->recv = small ? p->recv_in : malloc((size_t)(nr + 1) * sizeof *p->recv);
  /* Receives first: with a protocol the sends wait out its hop below, and
   * a message matches the same receive whenever it is posted. */
  for (int i = 0; i < nr; i++) {
    p->recv[i] = r[i];
    p->mailbox[ns + i] = mailbox(c, g, r[i].peer, g->me);
    p->is_recv[ns + i] = 1;
    p->comms[ns + i] = sg_mailbox_get_async(p->mailbox[ns + i], &p->got[i]);
  }
  /* Sends by when they leave (the protocol's hop: same node first), in
   * posting order among equals, so that pairs still match in order. */
  double t0 = simgrid_get_clock();
  int concurrent = concurrent_across(self->world, g, s, ns, r, nr);
  int deferred = ns > 0 && (g->hop_intra > 0 || g->hop_net > 0);
  int *order = deferred ? malloc((size_t)ns * sizeof *order) : NULL;
  for (int i = 0; i < ns && deferred; i++) {
    int k = i;
    double h = hs_lower_hop(g, g->me, s[i].peer);
    while (k > 0 && hs_lower_hop(g, g->me, s[order[k - 1]].peer) > h) order[k] = order[k - 1], k--;
    order[k] = i;
  }
  for (int x = 0; x < ns; x++) {
    int i = deferred ? order[x] : x;
    if (deferred) {
      double due = t0 + hs_lower_hop(g, g->me, s[i].peer);
      if (due > simgrid_get_clock()) sg_actor_sleep_until(due);
    }
    void *payload = &timing_only_token;
    if (s[i].data) {
      payload = malloc(s[i].bytes ? s[i].bytes : 1);
      memcpy(payload, s[i].data, s[i].bytes);
    }
    p->mailbox[i] = mailbox(c, g, g->me, s[i].peer);
    p->is_recv[i] = 0;
    p->comms[i] = hs_sg_put_async_at_most(p->mailbox[i], payload, wire_size(self->world, g, s[i].peer, s[i].bytes),
                                              flow_rate(self->world, g, s[i].peer, concurrent));
    self->w.bytes_sent += s[i].bytes;
    count_nic(self->world, g->members[g->me], g->members[s[i].peer], s[i].bytes);
    self->world->messages++;
  }
  free(order);
}

void hs_sim_wait_posted(sim_posted *p) {
  int k = 0; /* a test may have seen (and released) some end already */
  for (int i = 0; i < p->n; i++)
    if (p->comms[i]) p->comms[k++] = p->comms[i];
  if (k > 0) {
    double ended = hs_sg_comm_wait_all_ended(p->comms, (size_t)k);
    if (ended > p->ended) p->ended = ended;
  }
  p->n = 0;
}

int hs_sim_test_posted(sim_posted *p) {
  int left = 0;
  for (int i = 0; i < p->n; i++) {
    double ended;
    if (p->comms[i] && hs_sg_comm_test_ended(p->comms[i], &ended)) { /* released */
      p->comms[i] = NULL;
      if (ended > p->ended) p->ended = ended;
    } else {
      left += p->comms[i] != NULL;
    }
  }
  return left == 0;
}

int hs_sim_finish_posted(sim_posted *p, int failed) {
  for (int i = 0; i < p->nr; i++) {
    void *got = p->got[i];
    if (got == &hs_sim_poison) failed = 1;
    if (got == &timing_only_token || got == &hs_sim_poison) continue;
    if (!failed) hs_lower_deliver(&p->recv[i], got);
    free(got);
  }
  if (p->comms != p->comms_in) {
    free(p->comms);
    free(p->mailbox);
    free(p->is_recv);
    free(p->got);
    free(p->recv);
  }
  return failed;
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
  sim_posted p;
  hs_sim_post(c, g, s, ns, r, nr, &p);
  /* Registered while waiting, so that a failure can complete it. Each
   * put/get above is a simcall, and a failure may have struck during one of
   * them, after the check at the top: then this exchange revokes itself. */
  sim_pending pending = {.mailbox = p.mailbox, .is_recv = p.is_recv, .n = p.n};
  hs_sim_pending_add(world, &pending);
  if (c->ctx < world->revoke_floor) hs_sim_pending_revoke(&pending);
  hs_sim_wait_posted(&p);
  hs_sim_pending_remove(world, &pending);
  int failed = hs_sim_finish_posted(&p, c->ctx < world->revoke_floor);
  if (failed && c->stream) hs_sim_stream_failed(c->stream);
}

/* ---- one message at a time ----------------------------------------------------------
 * For schedules that forward on arrival (the pipelined ring): each send
 * or receive is posted alone and completed later, in any order. The
 * communicator keeps the ones not yet complete in one registration with
 * the world (sim_pending), so that a failure completes them as it does an
 * exchange's.
 *
 * What a rank sends to one peer is a connection, served first in, first
 * out, latency overlapped (sg_latency.h): a send goes on the wire when the
 * one before it is off, with no latency before its bytes, and a message is
 * done for both ends one route latency after its bytes end. Without that
 * (a network model whose latency cannot be moved: SMPI, Constant) sends go
 * on the wire when due and SimGrid charges their latency as usual.
 *
 * The rank moves its connections itself: whenever it waits
 * (hs_sim_complete_one), it wakes when one of its messages leaves the
 * wire (the next send of that connection goes on), when a send falls due
 * (the protocol's hop, protocol.h) and when what it waits for is done, as
 * NCCL's proxy thread drives its network sends between progress checks.
 * Not a helper actor per connection: a rank then waited on comms another
 * actor had started, and SimGrid 3.32 keeps one waiter's timeout action per
 * side of a comm, so a sender rank and its receiver waiting on one comm
 * leaked an action, which SimGrid reported as a "probable bug" at the end
 * of the run (dozens per collective). */

/* A connection: a peer this rank talks to on the communicator, under
 * one tag (the pipelined tree's two trees are two connections, NCCL's
 * channels). */
typedef struct sim_peer {
  int rank;                         /* in the world */
  char tag[48];                     /* the group's */
  sg_host_t host;
  double lat_out, lat_in;           /* paid after the bytes, each way (fifo connections) */
  struct sim_async *flying;         /* my send on the wire to it, if any */
  struct sim_async *queue, *q_tail; /* my sends due, waiting for the wire */
} sim_peer;

typedef struct sim_async {
  sg_comm_t comm; /* while on the wire; NULL before (a send deferred or queued) and after */
  int is_recv, slot;
  int landed;    /* its bytes are all there */
  long seq;      /* posting order */
  int on_wire;   /* its index among the set's comms on the wire, while there */
  double done;   /* when it is done for the rank (landed + the latency paid after) */
  int peer;      /* its slot in the set's peers */
  hs_lower_recv recv;
  void *got;
  /* a send before the wire: what goes on it, where, when due */
  sg_mailbox_t mb;
  double due;
  void *payload;
  long size;
  double rate;
  struct sim_async *next;
} sim_async;

struct sim_async_set {
  sim_pending pending; /* registered while n > 0 */
  sg_mailbox_t *mailbox;
  char *is_recv;
  sim_async **posted;
  int n, cap;
  sim_async *due_head, *due_tail; /* deferred sends, by due time */
  sim_peer *peers;
  int n_peers;
  sim_async **on_wire; /* those with a comm on the wire: what a wait may see end */
  int n_on_wire, cap_on_wire;
  sg_comm_t *wire; /* scratch for waiting: the comms waited for, and whose */
  sim_async **wire_of;
  int fifo;
  long posts; /* posted so far */
};

void hs_sim_async_free(sim_async_set *set) {
  if (!set) return;
  free(set->mailbox);
  free(set->is_recv);
  free(set->posted);
  free(set->peers);
  free(set->on_wire);
  free(set->wire);
  free(set->wire_of);
  free(set);
}

static double route_latency(const sim_rank *self, int from, int to) {
  double lat, bw;
  hs_sim_route(&self->w, from, to, &lat, &bw);
  return lat * self->world->latency_factor;
}

static int peer_of(sim_async_set *set, const hs_lower_group *g, int idx) {
  int rank = g->members[idx];
  for (int i = 0; i < set->n_peers; i++)
    if (set->peers[i].rank == rank && strcmp(set->peers[i].tag, g->tag) == 0) return i;
  /* a ring has two peers, an alltoall n: grown by one, found by a scan */
  set->peers = realloc(set->peers, (size_t)(set->n_peers + 1) * sizeof *set->peers);
  const sim_rank *self = ((hs_comm *)g->ctx)->self;
  sim_peer *p = &set->peers[set->n_peers];
  *p = (sim_peer){.rank = rank, .host = self->world->ranks[rank].host};
  memcpy(p->tag, g->tag, sizeof p->tag);
  if (set->fifo) {
    p->lat_out = route_latency(self, g->members[g->me], rank);
    p->lat_in = route_latency(self, rank, g->members[g->me]);
  }
  return set->n_peers++;
}

/* Deferred sends by due time (a stable insertion: equals keep their order,
 * so that a peer's messages still match its receives in order). */
static void defer_send(sim_async_set *set, sim_async *a) {
  sim_async **at = &set->due_head;
  if (set->due_tail && set->due_tail->due <= a->due) at = &set->due_tail->next;
  else
    while (*at && (*at)->due <= a->due) at = &(*at)->next;
  a->next = *at;
  *at = a;
  if (!a->next) set->due_tail = a;
}

static void wire_add(sim_async_set *set, sim_async *a) {
  if (set->n_on_wire == set->cap_on_wire) {
    set->cap_on_wire = set->cap_on_wire ? 2 * set->cap_on_wire : 16;
    set->on_wire = realloc(set->on_wire, (size_t)set->cap_on_wire * sizeof *set->on_wire);
    set->wire = realloc(set->wire, (size_t)set->cap_on_wire * sizeof *set->wire);
    set->wire_of = realloc(set->wire_of, (size_t)set->cap_on_wire * sizeof *set->wire_of);
  }
  a->on_wire = set->n_on_wire;
  set->on_wire[set->n_on_wire++] = a;
}

static void wire_remove(sim_async_set *set, sim_async *a) {
  sim_async *last = set->on_wire[--set->n_on_wire];
  set->on_wire[a->on_wire] = last;
  last->on_wire = a->on_wire;
}

static void put_on_wire(sim_async_set *set, const hs_comm *c, sim_async *a) {
  sim_peer *p = &set->peers[a->peer];
  if (set->fifo) {
    a->comm = hs_sg_put_async_latency_after(a->mb, a->payload, a->size, a->rate, c->self->host, p->host);
    p->flying = a;
  } else {
    a->comm = hs_sg_put_async_at_most(a->mb, a->payload, a->size, a->rate);
  }
  wire_add(set, a);
}

/* Due sends join their connection's queue; an idle connection puts its
 * next one on the wire (without fifo connections: every one at once). */
static void move_sends(sim_async_set *set, const hs_comm *c) {
  double now = simgrid_get_clock();
  while (set->due_head && set->due_head->due <= now) {
    sim_async *a = set->due_head;
    set->due_head = a->next;
    if (!set->due_head) set->due_tail = NULL;
    a->next = NULL;
    sim_peer *p = &set->peers[a->peer];
    if (p->q_tail) p->q_tail->next = a;
    else p->queue = a;
    p->q_tail = a;
  }
  for (int i = 0; i < set->n_peers; i++) {
    sim_peer *p = &set->peers[i];
    while (p->queue && !p->flying) {
      sim_async *a = p->queue;
      p->queue = a->next;
      if (!p->queue) p->q_tail = NULL;
      a->next = NULL;
      put_on_wire(set, c, a);
    }
  }
}

/* ended: when its bytes ended, which is before now for a receive that a
 * wait left out (settle) and found ended later. */
static void land(sim_async_set *set, sim_async *a, double ended) {
  sim_peer *p = &set->peers[a->peer];
  wire_remove(set, a);
  a->comm = NULL;
  a->landed = 1;
  a->done = ended + (set->fifo ? (a->is_recv ? p->lat_in : p->lat_out) : 0);
  if (p->flying == a) p->flying = NULL;
}

/* Waits until one of the n targets is done, moving the rank's
 * connections meanwhile; returns its index (the earliest done). */
static int settle_any(sim_async_set *set, const hs_comm *c, sim_async *const *t, int n) {
  /* per connection, the first receive among the targets (by posting order) */
  long first_in[16], *first = set->n_peers <= 16 ? first_in : malloc((size_t)set->n_peers * sizeof *first);
  for (;;) {
    move_sends(set, c);
    double now = simgrid_get_clock(), until = set->due_head ? set->due_head->due : INFINITY;
    int best = -1;
    for (int j = 0; j < n; j++)
      if (t[j]->landed && (best < 0 || t[j]->done < t[best]->done)) best = j;
    if (best >= 0 && t[best]->done <= now) {
      if (first != first_in) free(first);
      return best;
    }
    if (best >= 0 && t[best]->done < until) until = t[best]->done;
    /* What can end before a target, and whose end matters: the sends on
     * the wire (their connection's next goes on) and the receives that a
     * connection's order does not put after a target. A receive from a
     * target's peer posted after it lands after it (its sender puts it on
     * the wire after the target's unit), so it is left out: in a ring that
     * leaves the target and my one send. One left out may end unwatched;
     * land() then takes from SimGrid when its bytes ended, not when the
     * wait found it. */
    for (int p = 0; p < set->n_peers; p++) first[p] = -1;
    for (int j = 0; j < n && set->fifo; j++)
      if (t[j]->is_recv && !t[j]->landed && (first[t[j]->peer] < 0 || t[j]->seq < first[t[j]->peer]))
        first[t[j]->peer] = t[j]->seq;
    int k = 0;
    for (int i = 0; i < set->n_on_wire; i++) {
      sim_async *x = set->on_wire[i];
      if (set->fifo && x->is_recv && first[x->peer] >= 0 && x->seq > first[x->peer]) continue;
      set->wire[k] = x->comm;
      set->wire_of[k++] = x;
    }
    if (k == 0) { /* nothing on the wire: what a target waits for is a time (it landed, or a send is due) */
      sg_actor_sleep_until(until);
      continue;
    }
    double ended = now;
    long i = hs_sg_wait_any_for(set->wire, (size_t)k, isinf(until) ? -1.0 : until - now, &ended);
    if (i >= 0) land(set, set->wire_of[i], ended >= 0 ? ended : simgrid_get_clock());
  }
}

void *hs_sim_post_one(const hs_lower_group *g, const hs_lower_send *s, const hs_lower_recv *r) {
  hs_comm *c = g->ctx;
  sim_rank *self = c->self;
  sim_world *world = self->world;
  hs_sim_freeze_if_dead(self);
  if (c->ctx < world->revoke_floor) { /* revoked: nothing more moves */
    if (c->stream) hs_sim_stream_failed(c->stream);
    return NULL;
  }
  sim_async_set *set = c->async;
  if (!set) {
    set = c->async = calloc(1, sizeof *c->async);
    set->fifo = world->fifo_connections;
  }
  if (set->n == set->cap) {
    set->cap = set->cap ? 2 * set->cap : 32;
    set->mailbox = realloc(set->mailbox, (size_t)set->cap * sizeof *set->mailbox);
    set->is_recv = realloc(set->is_recv, (size_t)set->cap);
    set->posted = realloc(set->posted, (size_t)set->cap * sizeof *set->posted);
    set->pending.mailbox = set->mailbox;
    set->pending.is_recv = set->is_recv;
  }
  sim_async *a = calloc(1, sizeof *a);
  a->seq = set->posts++;
  sg_mailbox_t mb;
  if (s) {
    a->peer = peer_of(set, g, s->peer);
    a->payload = &timing_only_token;
    if (s->data) {
      a->payload = malloc(s->bytes ? s->bytes : 1);
      memcpy(a->payload, s->data, s->bytes);
    }
    mb = a->mb = mailbox(c, g, g->me, s->peer);
    a->due = simgrid_get_clock() + hs_lower_hop(g, g->me, s->peer);
    a->size = wire_size(world, g, s->peer, s->bytes);
    a->rate = flow_rate(world, g, s->peer, 1); /* one at a time: a pipelined schedule's slices */
    defer_send(set, a);
    move_sends(set, c);
    self->w.bytes_sent += s->bytes;
    count_nic(world, g->members[g->me], g->members[s->peer], s->bytes);
    world->messages++;
  } else {
    a->is_recv = 1;
    a->peer = peer_of(set, g, r->peer);
    a->recv = *r;
    mb = mailbox(c, g, r->peer, g->me);
    a->comm = sg_mailbox_get_async(mb, &a->got);
    wire_add(set, a);
  }
  /* Registered after the simcall, which may have let a failure strike:
   * then it revokes itself, as an exchange does. */
  a->slot = set->n;
  set->mailbox[set->n] = mb;
  set->is_recv[set->n] = (char)a->is_recv;
  set->posted[set->n++] = a;
  set->pending.n = set->n;
  if (set->n == 1) hs_sim_pending_add(world, &set->pending);
  if (c->ctx < world->revoke_floor) {
    sim_pending one = {.mailbox = &set->mailbox[a->slot], .is_recv = &set->is_recv[a->slot], .n = 1};
    hs_sim_pending_revoke(&one);
  }
  return a;
}

/* Completes a (settled): forgets it, delivers a receive. */
static void finish_one(const hs_lower_group *g, sim_async *a) {
  hs_comm *c = g->ctx;
  sim_world *world = c->self->world;
  sim_async_set *set = c->async;
  int last = --set->n;
  set->mailbox[a->slot] = set->mailbox[last];
  set->is_recv[a->slot] = set->is_recv[last];
  set->posted[a->slot] = set->posted[last];
  set->posted[a->slot]->slot = a->slot;
  set->pending.n = set->n;
  if (set->n == 0) hs_sim_pending_remove(world, &set->pending);
  if (a->is_recv) {
    int failed = a->got == &hs_sim_poison || c->ctx < world->revoke_floor;
    if (!failed && a->got != &timing_only_token) hs_lower_deliver(&a->recv, a->got);
    if (a->got != &timing_only_token && a->got != &hs_sim_poison) free(a->got);
    if (failed && c->stream) hs_sim_stream_failed(c->stream);
  }
  free(a);
}

void hs_sim_complete_one(const hs_lower_group *g, void *posted) {
  if (!posted) return; /* posted after a revocation: nothing to wait for */
  hs_comm *c = g->ctx;
  sim_async *a = posted;
  settle_any(c->async, c, &a, 1);
  finish_one(g, a);
}

int hs_sim_complete_any(const hs_lower_group *g, void *const *posted, int n) {
  for (int j = 0; j < n; j++)
    if (!posted[j]) return j; /* posted after a revocation */
  hs_comm *c = g->ctx;
  sim_async *in[64] = {0}, **t = n <= 64 ? in : malloc((size_t)n * sizeof *t);
  for (int i = 0; i < n; i++) t[i] = posted[i];
  int j = settle_any(c->async, c, t, n);
  finish_one(g, t[j]);
  if (t != in) free(t);
  return j;
}
