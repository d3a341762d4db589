/* nccl_versions.c — what each NCCL release could run (nccl_versions.h). */
#include "scenarios/nccl_versions.h"

#include "scenarios/scenario.h"

#include <ctype.h>
#include <stdlib.h>

/* Digits at *p, advancing past them; -1 if none. */
static long number(const char **p) {
  if (!isdigit((unsigned char)**p)) return -1;
  long v = 0;
  while (isdigit((unsigned char)**p) && v < 100000) v = 10 * v + (*(*p)++ - '0');
  return isdigit((unsigned char)**p) ? -1 : v;
}

int hs_nccl_version_parse(const char *text) {
  if (!text) return -1;
  const char *p = text;
  long major = number(&p);
  if (major < 0 || *p++ != '.') return -1;
  long minor = number(&p);
  if (minor < 0) return -1;
  if (*p == '.') { /* a patch, then perhaps a build */
    p++;
    if (number(&p) < 0) return -1;
    if (*p == '-') {
      p++;
      if (number(&p) < 0) return -1;
    }
  }
  if (*p) return -1;
  if (major == 1) return 100; /* NCCL 1: rings and Simple, as 2.0 */
  if (major != 2 || minor > 99) return -1;
  return (int)(200 + minor);
}

int hs_nccl_has_ll(int version) { return version >= 203; }
int hs_nccl_has_tree(int version) { return version >= 204; }
int hs_nccl_has_ll128(int version) { return version >= 205; }
int hs_nccl_has_collnet(int version) { return version >= 206; }
int hs_nccl_has_nvls(int version) { return version >= 217; }
int hs_nccl_has_nvls_tree(int version) { return version >= 218; }

/* ncclTopoCheckP2p's default p2pLevel by release (src/graph/paths.cc;
 * before 2.6 p2pCanConnect in src/transport/p2p.cc, which compares with
 * `<`): 2.3 below PATH_SOC and 2.4 below PATH_NODE, so across a socket
 * link no P2P; 2.5 on one socket below PATH_PHB, on two below PATH_NODE;
 * 2.6 PATH_SYS (PXB on Broadwell, which hearsay cannot tell); 2.7 and 2.8
 * PHB on Intel, SYS on AMD; 2.9 to 2.22 PXB on Intel, SYS on AMD; since
 * 2.23 PXB, SYS on AMD only where the node has at most 2 GPUs. */
int hs_nccl_p2p_level(int version, int amd, int sockets, int gpus_per_node) {
  if (version < 205) return HS_PCIE_PHB;
  if (version < 206) return sockets > 1 ? HS_PCIE_PHB : HS_PCIE_PXB;
  if (version < 207) return HS_PCIE_SYS;
  if (version < 209) return amd ? HS_PCIE_SYS : HS_PCIE_PHB;
  if (version < 223) return amd ? HS_PCIE_SYS : HS_PCIE_PXB;
  return amd && gpus_per_node <= 2 ? HS_PCIE_SYS : HS_PCIE_PXB;
}
