/* time_heap.h — a min-heap of events by time, ties in the order they were
 * pushed (same inputs, same order: the simulator's bytes do not depend on
 * how a heap breaks ties). Entries are fixed-size structs whose first
 * member is an hs_time_key; the heap copies them in and out. Used by the
 * SM holds' daemon (sm_hold.c) and by the rings timed together
 * (fast_ring_share.c). */
#ifndef HS_TIME_HEAP_H
#define HS_TIME_HEAP_H

#include <stddef.h>

typedef struct {
  double time;
  long seq; /* set by push: the posting order */
} hs_time_key;

typedef struct {
  unsigned char *entries, *scratch;
  size_t size; /* of an entry */
  long n, cap, pushed;
} hs_time_heap;

/* entry_size: sizeof the entries, whose first member is an hs_time_key */
void hs_time_heap_init(hs_time_heap *h, size_t entry_size);
void hs_time_heap_free(hs_time_heap *h);
/* Copies the entry in, its key's seq set to the posting order. */
void hs_time_heap_push(hs_time_heap *h, const void *entry);
/* The earliest entry, NULL when empty; valid until the next push or pop. */
const void *hs_time_heap_top(const hs_time_heap *h);
/* Copies the earliest entry out and removes it; the heap is not empty. */
void hs_time_heap_pop(hs_time_heap *h, void *out);

#endif
