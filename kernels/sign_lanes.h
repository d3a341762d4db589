/* sign_lanes.h — the reduction shape shared by sign.c and its CUDA twin.
 * A chunk's sum of squares is cut into tiles of HS_K_SIGN_TILE elements,
 * one CUDA block each, so a large chunk fills the GPU; in a tile, lane j
 * (one thread, one C loop) sums elements j, j + LANES, ... in order and the
 * lanes are combined by halving strides; the tiles' sums are then added in
 * order. Both sides round the same operations in the same order. */
#ifndef HS_SIGN_LANES_H
#define HS_SIGN_LANES_H
#define HS_K_SIGN_LANES 256
#define HS_K_SIGN_TILE (HS_K_SIGN_LANES * 64)
#endif
