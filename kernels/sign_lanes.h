/* sign_lanes.h — the reduction shape shared by sign.c and its CUDA twin:
 * one CUDA block of this many threads per chunk, one C loop lane per thread. */
#ifndef HS_SIGN_LANES_H
#define HS_SIGN_LANES_H
#define HS_K_SIGN_LANES 256
#endif
