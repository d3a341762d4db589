/* nccl_absent.c — the NCCL transport's entry points in a build without
 * CUDA or NCCL: it is never available, and hearsay-real says so. */
#include <stddef.h>

#include "real/nccl_backend.h"

int hs_nccl_built(void) { return 0; }
int hs_nccl_gpus(void) { return 0; }
int hs_nccl_device(char *name, size_t name_len, char *bus, size_t bus_len) {
  (void)name, (void)name_len, (void)bus, (void)bus_len;
  return -1;
}
hs_worker *hs_nccl_worker_create(const hs_scenario *sc, int emulate_compute) {
  (void)sc;
  (void)emulate_compute;
  return NULL;
}
void hs_nccl_worker_start_clock(hs_worker *w) { (void)w; }
void hs_nccl_worker_free(hs_worker *w) { (void)w; }
