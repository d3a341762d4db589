/* link_profiles.h — network { link = ... } events as SimGrid link profiles.
 *
 * A link event changes one link's bandwidth (a fraction of its nominal one)
 * and/or latency for a window of simulated time, once or periodically.
 * SimGrid plays such changes itself from profile files named by the link's
 * bandwidth_file / latency_file attributes, so every flow crossing the link
 * slows down exactly while the window holds, contention included. */
#ifndef HS_SIM_LINK_PROFILES_H
#define HS_SIM_LINK_PROFILES_H

#include <stddef.h>

#include "scenarios/scenario.h"

/* The extra XML attributes of link (kind, index), whose nominal bandwidth
 * and latency (as written in the platform) are given: "" when no event
 * touches it, else ` bandwidth_file="..." latency_file="..."` after writing
 * those files into dir, which must be the platform file's own folder
 * (SimGrid resolves them from there). 0, or -1 if one could not be written. */
int hs_link_profile_attrs(const hs_network_spec *net, hs_netlink_kind kind, int index, double bandwidth,
                          double latency, const char *dir, char *attrs, size_t len);

#endif
