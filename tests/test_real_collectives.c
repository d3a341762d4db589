/* test_real_collectives.c — the MPI transport gives the exact results the
 * simulator gives: the checks of collective_checks.h (every collective,
 * grouped send/recv, sub-communicators, hs_test, a second thread) under
 * mpirun for 1, 2, 3, 4 and 5 ranks, with the MPI library's collectives
 * and with each of hearsay's lowerings (ring, hierarchical, halving-
 * doubling, recursive doubling: real.lowering = "hearsay"), ranks placed
 * 4 per node so hierarchical meets ragged nodes (5 ranks) and the
 * doubling schedules meet sizes that are not powers of two (3, 5).
 * And emulation (real.emulate) charges a collective's protocol as the
 * simulator does (its launch, each message's hop and wire bytes): one
 * emulated 32 MiB ring allreduce over four 1 Gbps nodes takes what the
 * step fidelity gives, within 25% (wall-clock time on a shared machine),
 * with no protocol and with LL, whose wire bytes double the time. The
 * emulator holds a message to its flow's rate (NCCL's channels' caps,
 * which no wall clock here could show: the machine copies bytes slower
 * than a channel moves them): one message of 1 MB at 10 MB/s takes 0.1 s
 * where the 400 GB/s links alone take microseconds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "tests/tap.h"

static const char *lua =
    "cluster { nodes = 5, gpus_per_node = 4, gpu = { flops = \"50TF\" },\n"
    "  inter = { bandwidth = \"100Gbps\" } }\n"
    "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\nrun { iterations = 1 }\n";

int main(void) {
  hs_scenario sc;
  if (hs_test_load(lua, &sc)) return tap_ok(0, "scenario loads"), tap_done(0);
  const char *algos[] = {"ring", "hierarchical", "halving_doubling", "recursive_doubling", "tree", NULL};
  for (int a = 0; a < 6; a++)
    for (int n = 1; n <= 5; n++) {
      char what[64], args[8192];
      if (algos[a]) {
        snprintf(what, sizeof what, "mpi n=%d hearsay's %s", n, algos[a]);
        snprintf(args, sizeof args, "%s %s --set sim.collectives=%s --set real.lowering=hearsay", HS_MPI_CHECKS_BIN,
                 sc.path, algos[a]);
      } else {
        snprintf(what, sizeof what, "mpi n=%d the library's collectives", n);
        snprintf(args, sizeof args, "%s %s --set real.lowering=mpi", HS_MPI_CHECKS_BIN, sc.path);
      }
      hs_test_mpirun_checks(what, n, args, 300);
    }
  hs_scenario_free(&sc);

  static const char *slow =
      "cluster { nodes = 4, gpus_per_node = 1, gpu = { flops = \"50TF\" },\n"
      "  inter = { bandwidth = \"1Gbps\", latency = \"50us\" } }\n"
      "workload { model = \"resnet50\" }\nalgorithm { name = \"gradient_allreduce\" }\nrun { iterations = 1 }\n"
      "sim { collectives = \"ring\" }\nreal { transport = \"mpi\", emulate = true, lowering = \"hearsay\" }\n";
  if (hs_test_load(slow, &sc)) return tap_ok(0, "slow scenario loads"), tap_done(0);
  const char *protos[] = {"none", "ll"};
  for (int p = 0; p < 2; p++) {
    char cmd[8192], out[8192], err[256] = "";
    snprintf(cmd, sizeof cmd,
             "timeout -k 5 120 %s collective %s --op allreduce --bytes 32MiB --set sim.fidelity=step "
             "--set sim.protocol=%s 2>&1",
             HEARSAY_BIN, sc.path, protos[p]);
    hs_test_output(cmd, out, sizeof out);
    double simulated = hs_test_output_value(out, "sim_s");
    if (!(simulated > 0)) snprintf(err, sizeof err, " (hearsay collective gave no time)");
    char what[128], args[8192];
    snprintf(what, sizeof what, "emulated ring allreduce 32 MiB, protocol %s, against step%s", protos[p], err);
    snprintf(args, sizeof args, "%s %s 33554432 %.9g 0.25 --set sim.protocol=%s", HS_MPI_EMULATED_TIME_BIN, sc.path,
             simulated, protos[p]);
    hs_test_mpirun_checks(what, 4, args, 120);
  }
  char post[8192]; /* on links fast enough to take microseconds */
  snprintf(post, sizeof post, "%s %s post 1e6 1e7 --set cluster.inter.bandwidth=400GBps", HS_MPI_EMULATED_TIME_BIN,
           sc.path);
  hs_test_mpirun_checks("emulator, a flow's rate", 1, post, 60);
  /* and over TCP: a GPU's flows across nodes at once share its proxy
   * thread, as in the simulator (hs_net_flow_cap_concurrent) */
  snprintf(post, sizeof post, "%s %s post 1e6 1e7 --set cluster.inter.bandwidth=400GBps --set cluster.inter.transport=tcp "
           "--set cluster.nodes=4", HS_MPI_EMULATED_TIME_BIN, sc.path);
  hs_test_mpirun_checks("emulator over TCP, a GPU's flows across nodes sharing its thread", 1, post, 60);
  /* and inside a node of GPUs without peer access: a hop staged in host
   * memory at host.staging_bandwidth (10 MB/s here: 0.1 s for 1 MB) */
  snprintf(post, sizeof post, "%s %s post 1e6 1e7 --set cluster.nodes=1 --set cluster.gpus_per_node=4 "
           "--set cluster.intra.link=pcie --set cluster.intra.p2p=false --set cluster.host.staging_bandwidth=10MBps",
           HS_MPI_EMULATED_TIME_BIN, sc.path);
  hs_test_mpirun_checks("emulator, GPUs without peer access: a hop staged in host memory", 1, post, 60);
  /* and with peer access, between GPUs under two PCIe switches of one
   * Intel socket, which today's NCCL does not join peer to peer (its P2P
   * level stops at the switch): staged alike */
  snprintf(post, sizeof post, "%s %s post 1e6 1e7 --set cluster.nodes=1 --set cluster.gpus_per_node=4 "
           "--set cluster.intra.link=pcie --set cluster.intra.pcie_switches=4 "
           "--set cluster.host.staging_bandwidth=10MBps", HS_MPI_EMULATED_TIME_BIN, sc.path);
  hs_test_mpirun_checks("emulator, GPUs of two PCIe switches past NCCL's P2P level: a hop staged in host memory", 1,
                        post, 60);
  hs_scenario_free(&sc);
  return tap_done(0);
}
