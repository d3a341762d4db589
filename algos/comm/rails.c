/* rails.c — see rails.h. */
#include <stdlib.h>
#include <string.h>

#include "algos/comm/rails.h"

void hs_rails_free(hs_rails *L) {
  free(L->member_of);
  free(L->node_id);
  L->member_of = L->node_id = NULL;
}

int hs_rails_build(const hs_lower_group *g, int n, hs_rails *L) {
  int gpn = g->gpus_per_node > 0 ? g->gpus_per_node : 1, top = 0;
  *L = (hs_rails){0, 0, NULL, NULL};
  for (int j = 0; j < n; j++) top = g->members[j] / gpn > top ? g->members[j] / gpn : top;
  int *index = malloc(((size_t)top + 1) * sizeof(int)), *count = calloc((size_t)n + 1, sizeof(int));
  L->node_id = malloc((size_t)n * sizeof(int));
  for (int x = 0; x <= top; x++) index[x] = -1;
  for (int j = 0; j < n; j++) {
    int *x = &index[g->members[j] / gpn];
    if (*x < 0) L->node_id[L->nodes] = g->members[j] / gpn, *x = L->nodes++;
    count[*x]++;
  }
  int ok = L->nodes >= 2;
  L->k = count[0];
  for (int a = 0; a < L->nodes && ok; a++) ok = count[a] == L->k;
  if (ok) {
    L->member_of = malloc((size_t)n * sizeof(int));
    memset(count, 0, (size_t)L->nodes * sizeof(int));
    for (int j = 0; j < n; j++) { /* a node's members by GPU, so member i of every node is one rail */
      int a = index[g->members[j] / gpn], *at = L->member_of + a * L->k, i = count[a]++;
      for (; i > 0 && g->members[at[i - 1]] > g->members[j]; i--) at[i] = at[i - 1];
      at[i] = j;
    }
  }
  free(index);
  free(count);
  if (!ok) hs_rails_free(L);
  return ok;
}

void hs_rails_part(size_t count, int k, size_t units, int b, size_t x, size_t *off, size_t *cnt) {
  size_t boff, bcnt, poff;
  hs_lower_part(count, (size_t)b, (size_t)k, &boff, &bcnt);
  hs_lower_part(bcnt, x, units, &poff, cnt);
  *off = boff + poff;
}
