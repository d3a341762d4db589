/* sg_occupancy.h — a share of a host's speed held by something else.
 *
 * NCCL runs each channel of a collective as one CUDA block that stays
 * resident on one SM from the kernel's launch to its end, spinning while
 * it waits for peers (NCCL 2.30.7, src/enqueue.cc: one block per channel).
 * Backward's kernels meanwhile get the GPU's other SMs. hearsay charges it
 * as an execution on the rank's host bounded at that share of the host's
 * speed: in SimGrid's max-min sharing, the training thread's computation
 * gets the rest while both run, and all of it when the collective is done.
 *
 * SimGrid 3.32's C API cannot start an execution on another actor's host
 * nor keep a reference to it across actors, so this is C++
 * (sg_occupancy.cpp), as sg_rate.cpp is. */
#ifndef HS_SG_OCCUPANCY_H
#define HS_SG_OCCUPANCY_H

#include <simgrid/forward.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hs_sg_occupancy hs_sg_occupancy;

/* Starts holding `rate` flop/s of host's speed, from now until `until`
 * (simulated seconds; INFINITY: until released). Callable from any actor.
 * NULL when there is nothing to hold (rate <= 0 or until <= now). */
hs_sg_occupancy *hs_sg_occupy(sg_host_t host, double rate, double until);
/* Stops holding (whatever is left of it) and frees it; NULL is a no-op. */
void hs_sg_release(hs_sg_occupancy *o);

#ifdef __cplusplus
}
#endif

#endif
