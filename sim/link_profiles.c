/* link_profiles.c — writes the profile files of link events (link_profiles.h). */
#include "sim/link_profiles.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {"gpu", "node", "rack"};

/* One profile of a link: `what` is 0 for bandwidth, 1 for latency. Windows
 * that overlap multiply (bandwidth) or the last one wins (latency); a
 * repeating event is alone on its link (the loader checks), and SimGrid
 * replays it with PERIODICITY = its period. */
static int write_profile(const hs_network_spec *net, hs_netlink_kind kind, int index, int what, double nominal,
                         double latency_scale, const char *path) {
  double times[256];
  int nt = 0;
  double every = 0;
  times[nt++] = 0;
  for (int i = 0; i < net->n; i++) {
    const hs_net_event *e = &net->events[i];
    if (e->traffic || e->link != kind || e->index != index || (what == 0 ? e->bandwidth : e->latency) <= 0) continue;
    if (e->every > 0) every = e->every;
    if (nt < 254) times[nt++] = e->from;
    if (nt < 254 && isfinite(e->to)) times[nt++] = e->to;
  }
  if (nt == 1) return 0;
  for (int i = 1; i < nt; i++) /* sort and drop duplicates */
    for (int j = i; j > 0 && times[j] < times[j - 1]; j--) {
      double t = times[j];
      times[j] = times[j - 1];
      times[j - 1] = t;
    }
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  if (every > 0) fprintf(f, "PERIODICITY %.17g\n", every);
  for (int k = 0; k < nt; k++) {
    if (k > 0 && times[k] == times[k - 1]) continue;
    double v = nominal;
    for (int i = 0; i < net->n; i++) {
      const hs_net_event *e = &net->events[i];
      double x = what == 0 ? e->bandwidth : e->latency;
      if (e->traffic || e->link != kind || e->index != index || x <= 0) continue;
      if (times[k] >= e->from && times[k] < e->to) v = what == 0 ? v * x : x * latency_scale;
    }
    fprintf(f, "%.17g %.17g\n", times[k], v);
  }
  return fclose(f) ? -1 : 0;
}

int hs_link_profile_attrs(const hs_network_spec *net, hs_netlink_kind kind, int index, double bandwidth,
                          double latency, const char *dir, char *attrs, size_t len) {
  attrs[0] = '\0';
  if (!net || net->n == 0) return 0;
  int touched[2] = {0, 0};
  for (int i = 0; i < net->n; i++) {
    const hs_net_event *e = &net->events[i];
    if (e->traffic || e->link != kind || e->index != index) continue;
    touched[0] |= e->bandwidth > 0;
    touched[1] |= e->latency > 0;
  }
  /* GPU links and NICs are written with half the latency a message sees
   * through them (one crossing each way); uplinks with all of it. */
  double scale = kind == HS_NETLINK_UPLINK ? 1 : 0.5;
  static const char *const suffix[] = {"bw", "lat"}, *const attr[] = {"bandwidth_file", "latency_file"};
  size_t used = 0;
  for (int what = 0; what < 2; what++) {
    if (!touched[what]) continue;
    char name[64], path[4400];
    snprintf(name, sizeof name, "%s%d.%s", kind_names[kind], index, suffix[what]);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (write_profile(net, kind, index, what, what == 0 ? bandwidth : latency, scale, path)) return -1;
    /* SimGrid looks for the file beside the platform file. */
    used += (size_t)snprintf(attrs + used, used < len ? len - used : 0, " %s=\"%s\"", attr[what], name);
  }
  return used < len ? 0 : -1;
}
