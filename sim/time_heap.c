/* time_heap.c — a min-heap of events by (time, posting order) (time_heap.h). */
#include "sim/time_heap.h"

#include <stdlib.h>
#include <string.h>

static const hs_time_key *key(const hs_time_heap *h, long i) {
  return (const hs_time_key *)(const void *)(h->entries + (size_t)i * h->size);
}

static int before(const hs_time_key *a, const hs_time_key *b) {
  return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void put(hs_time_heap *h, long i, const void *entry) { memcpy(h->entries + (size_t)i * h->size, entry, h->size); }

void hs_time_heap_init(hs_time_heap *h, size_t entry_size) {
  *h = (hs_time_heap){.size = entry_size};
  h->scratch = malloc(entry_size);
}

void hs_time_heap_free(hs_time_heap *h) {
  free(h->entries);
  free(h->scratch);
  *h = (hs_time_heap){0};
}

void hs_time_heap_push(hs_time_heap *h, const void *entry) {
  if (h->n == h->cap) {
    h->cap = h->cap ? 2 * h->cap : 64;
    h->entries = realloc(h->entries, (size_t)h->cap * h->size);
  }
  memcpy(h->scratch, entry, h->size);
  ((hs_time_key *)(void *)h->scratch)->seq = h->pushed++;
  const hs_time_key *k = (const hs_time_key *)(const void *)h->scratch;
  long i = h->n++;
  while (i > 0 && before(k, key(h, (i - 1) / 2))) {
    put(h, i, key(h, (i - 1) / 2));
    i = (i - 1) / 2;
  }
  put(h, i, h->scratch);
}

const void *hs_time_heap_top(const hs_time_heap *h) { return h->n > 0 ? h->entries : NULL; }

void hs_time_heap_pop(hs_time_heap *h, void *out) {
  memcpy(out, h->entries, h->size);
  if (--h->n == 0) return;
  memcpy(h->scratch, h->entries + (size_t)h->n * h->size, h->size); /* the last, sifted down from the top */
  const hs_time_key *last = (const hs_time_key *)(const void *)h->scratch;
  long i = 0;
  for (;;) {
    long c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && before(key(h, c + 1), key(h, c))) c++;
    if (!before(key(h, c), last)) break;
    put(h, i, key(h, c));
    i = c;
  }
  put(h, i, h->scratch);
}
