/* test_systems.c — cluster { system = NAME }: every shipped system loads
 * with the values its file states, the scenario's keys and --set win over
 * the system's one table deep, a system beside the scenario is found, and
 * bad systems are refused with FILE:LINE: key: message and exit 2 (the line
 * of the system file where the bad value is). */
#include <dirent.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "scenarios/loader.h"
#include "tests/harness.h"
#include "tests/tap.h"

static const char *tail =
    "workload { model = \"resnet50\", batch = 64 }\n"
    "algorithm { name = \"gradient_allreduce\" }\n"
    "run { iterations = 2 }\n";

/* One folder for the scenario and the systems beside it. */
static char dir[600];

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static int load(const char *cluster, const char *const *sets, int n_sets, hs_scenario *sc) {
  char lua[2048], path[700];
  snprintf(lua, sizeof lua, "%s\n%s", cluster, tail);
  snprintf(path, sizeof path, "%s/scenario.lua", dir);
  write_file(path, lua);
  return hs_scenario_load(path, sets, n_sets, sc);
}

/* Runs `hearsay run` on the scenario text; its exit code, stderr in err. */
static int run_scenario(const char *cluster, const char *extra, char *err, size_t len) {
  char path[700], cmd[2048], out[700];
  snprintf(path, sizeof path, "%s/scenario.lua", dir);
  snprintf(out, sizeof out, "%s/out", dir);
  char lua[2048];
  snprintf(lua, sizeof lua, "%s\n%s", cluster, tail);
  write_file(path, lua);
  snprintf(cmd, sizeof cmd, "%s run %s --out %s --quiet %s", HEARSAY_BIN, path, out, extra ? extra : "");
  int rc = hs_test_command(cmd, err, len);
  struct stat st;
  tap_ok(stat(out, &st) != 0 || rc == 0, "exit %d, and an output folder only on success", rc);
  return rc;
}

static void refused(const char *what, const char *cluster, const char *extra, const char *const expect[3]) {
  char err[4096];
  int rc = run_scenario(cluster, extra, err, sizeof err);
  int ok = rc == 2;
  for (int i = 0; i < 3 && expect[i]; i++) ok = ok && strstr(err, expect[i]) != NULL;
  tap_ok(ok, "%s: exit %d, message: %s", what, rc, err);
}

int main(void) {
  snprintf(dir, sizeof dir, "%s", hs_test_tmpdir());
  hs_scenario sc;

  /* Each shipped system, as its file states it (scenarios/systems). */
  static const struct {
    const char *name;
    double flops, intra_bw, nic_bw;
    int nics, gpus;
    hs_gpu_arch arch;
    hs_cpu_vendor cpu;
    int nvls;
    hs_intra_link link;
  } shipped[] = {
      {"dgx1-v100", 125e12, 150e9, 100e9 / 8, 4, 8, HS_GPU_VOLTA, HS_CPU_INTEL, 0, HS_INTRA_NVLINK},
      {"dgx-a100", 312e12, 300e9, 200e9 / 8, 8, 8, HS_GPU_AMPERE, HS_CPU_AMD, 0, HS_INTRA_NVLINK},
      {"dgx-h100", 989e12, 450e9, 400e9 / 8, 8, 8, HS_GPU_HOPPER, HS_CPU_INTEL, 1, HS_INTRA_NVLINK},
      {"dgx-h200", 989e12, 450e9, 400e9 / 8, 8, 8, HS_GPU_HOPPER, HS_CPU_INTEL, 1, HS_INTRA_NVLINK},
      {"dgx-b200", 2250e12, 900e9, 400e9 / 8, 8, 8, HS_GPU_BLACKWELL, HS_CPU_INTEL, 1, HS_INTRA_NVLINK},
      {"dgx1-p100", 10.6e12, 80e9, 100e9 / 8, 4, 8, HS_GPU_PASCAL, HS_CPU_INTEL, 0, HS_INTRA_NVLINK},
      {"p100-pcie", 9.3e12, 15.754e9, 25e9 / 8, 1, 4, HS_GPU_PASCAL, HS_CPU_INTEL, 0, HS_INTRA_PCIE},
      {"aws-p3-16xlarge", 125e12, 150e9, 25e9 / 8, 1, 8, HS_GPU_VOLTA, HS_CPU_INTEL, 0, HS_INTRA_NVLINK},
      {"aws-p3dn-24xlarge", 125e12, 150e9, 100e9 / 8, 1, 8, HS_GPU_VOLTA, HS_CPU_INTEL, 0, HS_INTRA_NVLINK},
      {"dgx2", 125e12, 150e9, 100e9 / 8, 8, 16, HS_GPU_VOLTA, HS_CPU_INTEL, 0, HS_INTRA_NVLINK},
      {"azure-ndv4", 312e12, 300e9, 200e9 / 8, 8, 8, HS_GPU_AMPERE, HS_CPU_AMD, 0, HS_INTRA_NVLINK},
      {"azure-nd-h100-v5", 989e12, 450e9, 400e9 / 8, 8, 8, HS_GPU_HOPPER, HS_CPU_INTEL, 1, HS_INTRA_NVLINK},
      {"aws-p4d-24xlarge", 312e12, 300e9, 100e9 / 8, 4, 8, HS_GPU_AMPERE, HS_CPU_INTEL, 0, HS_INTRA_NVLINK},
      {"aws-p5-48xlarge", 989e12, 450e9, 400e9 / 8, 8, 8, HS_GPU_HOPPER, HS_CPU_AMD, 1, HS_INTRA_NVLINK},
  };
  int n_shipped = (int)(sizeof shipped / sizeof shipped[0]);
  for (int i = 0; i < n_shipped; i++) {
    char cluster[256];
    snprintf(cluster, sizeof cluster, "cluster { system = \"%s\", nodes = 4 }", shipped[i].name);
    int rc = load(cluster, NULL, 0, &sc);
    const hs_cluster_spec *c = &sc.cluster;
    tap_ok(rc == 0 && c->nodes == 4 && c->gpus_per_node == shipped[i].gpus && c->gpu_flops == shipped[i].flops &&
               c->intra.bandwidth == shipped[i].intra_bw && c->inter.bandwidth == shipped[i].nic_bw &&
               c->nics_per_node == shipped[i].nics && c->gpu_arch == shipped[i].arch && c->cpu == shipped[i].cpu &&
               c->nvls == shipped[i].nvls && c->intra_link == shipped[i].link && strcmp(c->system, shipped[i].name) == 0,
           "%s: %d GPUs of %g flop/s (%s), %g B/s each inside the node (%s), %d NICs of %g B/s, nvls %d",
           shipped[i].name, c->gpus_per_node, c->gpu_flops, hs_gpu_arch_name(c->gpu_arch), c->intra.bandwidth,
           c->intra_link == HS_INTRA_PCIE ? "pcie" : "nvlink", c->nics_per_node, c->inter.bandwidth, c->nvls);
    if (rc == 0) hs_scenario_free(&sc);
  }
  /* Memory bandwidth where a system's GPUs differ from their
   * architecture's default: the 80 GB A100's HBM2e (2039 GB/s, not the
   * 40 GB's 1555), HGX B200's HBM3e (7.7 TB/s, not 8), H200's HBM3e (4.8
   * TB/s, not the H100's 3.35) */
  const struct { const char *name; double bw; } memory[] = {
      {"azure-ndv4", 2039e9}, {"dgx-b200", 7.7e12}, {"dgx-h200", 4.8e12}, {"dgx-h100", 3.35e12}};
  for (size_t i = 0; i < sizeof memory / sizeof memory[0]; i++) {
    char cluster[256];
    snprintf(cluster, sizeof cluster, "cluster { system = \"%s\", nodes = 2 }", memory[i].name);
    int rc = load(cluster, NULL, 0, &sc);
    tap_ok(rc == 0 && sc.cluster.gpu_memory_bandwidth == memory[i].bw, "%s: its GPUs' memory at %g B/s (got %g)",
           memory[i].name, memory[i].bw, rc == 0 ? sc.cluster.gpu_memory_bandwidth : -1);
    if (rc == 0) hs_scenario_free(&sc);
  }
  /* EFA, taken as RDMA, with AWS's own figure for a network step: its
   * tuner's 20 us, NCCL's 5.0 for the tree's LL step already charged by
   * the protocol, so 15 us on the links (scenarios/systems/aws-p5-48xlarge.lua).
   * An 8 B allreduce on two nodes is then AWS's model's 55.2 us (checked
   * by scripts/validate, p5-2nodes-8B). */
  const char *efa[] = {"aws-p4d-24xlarge", "aws-p5-48xlarge"};
  for (size_t i = 0; i < sizeof efa / sizeof efa[0]; i++) {
    char cluster[256];
    snprintf(cluster, sizeof cluster, "cluster { system = \"%s\", nodes = 2 }", efa[i]);
    int rc = load(cluster, NULL, 0, &sc);
    tap_ok(rc == 0 && sc.cluster.transport.kind == HS_NET_RDMA && sc.cluster.transport.efficiency == 0.96 &&
               fabs(sc.cluster.inter.latency - 15e-6) < 1e-12,
           "%s: EFA as RDMA at 0.96, 15 us a step beside NCCL's hop (got %g s)", efa[i],
           rc == 0 ? sc.cluster.inter.latency : -1);
    if (rc == 0) hs_scenario_free(&sc);
  }
  /* The cloud instances run NCCL's socket transport with AWS's 2 threads a
   * connection: their TCP defaults but for that. */
  for (int i = 0; i < 2; i++) {
    char cluster[256];
    snprintf(cluster, sizeof cluster, "cluster { system = \"%s\", nodes = 2 }",
             i ? "aws-p3dn-24xlarge" : "aws-p3-16xlarge");
    int rc = load(cluster, NULL, 0, &sc);
    tap_ok(rc == 0 && sc.cluster.transport.kind == HS_NET_TCP && sc.cluster.transport.socket_threads == 2 &&
               sc.cluster.transport.stream_bandwidth == 2.06e9 && sc.cluster.transport.message_cost == 34e-6,
           "%s: NCCL over TCP, 2 socket threads a connection, the transport's 2.06 GB/s a thread and 34 us a message",
           i ? "aws-p3dn-24xlarge" : "aws-p3-16xlarge");
    if (rc == 0) hs_scenario_free(&sc);
  }
  /* hearsay systems lists each, with the description its file gives */
  {
    static char out[16384];
    int rc = hs_test_output(HEARSAY_BIN " systems 2>&1", out, sizeof out), listed = 0;
    for (int i = 0; i < n_shipped; i++) {
      char head[64];
      snprintf(head, sizeof head, "\n%-18s ", shipped[i].name);
      listed += (strncmp(out, head + 1, strlen(head) - 1) == 0 || strstr(out, head) != NULL);
    }
    tap_ok(rc == 0 && listed == n_shipped && strstr(out, "NVIDIA DGX-2: 16 V100 SXM3 32GB") != NULL,
           "hearsay systems lists the %d shipped systems with their descriptions (%d listed, exit %d)", n_shipped,
           listed, rc);
  }
  /* every file in the folder is one of the above: a new system gets its row */
  DIR *d = opendir(HS_SOURCE_DIR "/scenarios/systems");
  int files = 0;
  for (struct dirent *e; d && (e = readdir(d));) files += strstr(e->d_name, ".lua") != NULL;
  if (d) closedir(d);
  tap_ok(files == n_shipped, "scenarios/systems holds %d systems, each checked here (%d)", files, n_shipped);

  /* The scenario's keys win, one table deep: inter.latency set, the
   * system's inter.bandwidth and nics_per_node kept; gpu.efficiency set,
   * its flops kept. */
  int rc = load("cluster { system = \"dgx-a100\", nodes = 2, gpu = { efficiency = 0.4 },\n"
                "          inter = { latency = \"3us\", topology = \"fat_tree\", rack_size = 1 }, gpus_per_node = 4 }",
                NULL, 0, &sc);
  const hs_cluster_spec *c = &sc.cluster;
  tap_ok(rc == 0 && c->gpu_efficiency == 0.4 && c->gpu_flops == 312e12 && c->inter.latency == 3e-6 &&
             c->inter.bandwidth == 25e9 && c->nics_per_node == 8 && c->topology == HS_TOPO_FAT_TREE &&
             c->gpus_per_node == 4,
         "the scenario's keys win and the system fills in the rest of each table (efficiency %g, flops %g, latency %g, "
         "NIC %g B/s x %d, %d GPUs a node)", c->gpu_efficiency, c->gpu_flops, c->inter.latency, c->inter.bandwidth,
         c->nics_per_node, c->gpus_per_node);
  if (rc == 0) hs_scenario_free(&sc);

  /* --set wins over the system, and can name the system itself */
  const char *sets[] = {"cluster.system=dgx-h100", "cluster.intra.bandwidth=100GBps"};
  rc = load("cluster { nodes = 2, gpu = { flops = \"10TF\" }, inter = { bandwidth = \"10Gbps\" } }", sets, 2, &sc);
  tap_ok(rc == 0 && sc.cluster.intra.bandwidth == 100e9 && sc.cluster.gpu_flops == 10e12 &&
             sc.cluster.inter.bandwidth == 10e9 / 8 && sc.cluster.nvls && sc.cluster.gpus_per_node == 8 &&
             strcmp(sc.cluster.system, "dgx-h100") == 0,
         "--set cluster.system=dgx-h100 brings the system; --set and the scenario's keys win over it");
  if (rc == 0) hs_scenario_free(&sc);

  /* A system beside the scenario (systems/NAME.lua) and one named by path. */
  char systems[700], path[800];
  snprintf(systems, sizeof systems, "%s/systems", dir);
  mkdir(systems, 0755);
  snprintf(path, sizeof path, "%s/lab.lua", systems);
  write_file(path, "-- our lab's nodes\nreturn {\n  gpus_per_node = 2,\n  gpu = { flops = \"50TF\" },\n"
                   "  inter = { bandwidth = \"25Gbps\" },\n}\n");
  rc = load("cluster { system = \"lab\", nodes = 3 }", NULL, 0, &sc);
  tap_ok(rc == 0 && sc.cluster.gpus_per_node == 2 && sc.cluster.gpu_flops == 50e12 &&
             sc.cluster.inter.bandwidth == 25e9 / 8,
         "systems/lab.lua beside the scenario is found by name");
  if (rc == 0) hs_scenario_free(&sc);
  rc = load("cluster { system = \"systems/lab.lua\", nodes = 3 }", NULL, 0, &sc);
  tap_ok(rc == 0 && sc.cluster.gpu_flops == 50e12, "and by its path from the scenario's folder");
  if (rc == 0) hs_scenario_free(&sc);

  /* A system based on a shipped one (hearsay.system): the base's keys,
   * with the ones it changes */
  write_file(path, "local s = hearsay.system(\"dgx-a100\")\ns.name = \"lab-a100\"\n"
                   "s.inter = { bandwidth = \"100Gbps\", nics_per_node = 4 }\nreturn s\n");
  rc = load("cluster { system = \"lab\", nodes = 2 }", NULL, 0, &sc);
  tap_ok(rc == 0 && sc.cluster.gpu_flops == 312e12 && sc.cluster.gpus_per_node == 8 &&
             sc.cluster.intra.bandwidth == 300e9 && sc.cluster.inter.bandwidth == 100e9 / 8 &&
             sc.cluster.nics_per_node == 4,
         "hearsay.system(\"dgx-a100\") with 4 NICs of 100 Gb/s: the A100 node's GPUs and links, its own NICs");
  if (rc == 0) hs_scenario_free(&sc);

  /* Refusals: FILE:LINE: key: message, exit 2, nothing written. */
  write_file(path, "return hearsay.system(\"dgx-z100\")\n");
  refused("a system based on one that does not exist", "cluster { system = \"lab\", nodes = 2 }", NULL,
          (const char *const[3]){"cluster.system", "hearsay.system: no shipped system 'dgx-z100'", "dgx-a100"});
  write_file(path, "return hearsay.system(\"../systems/dgx-a100\")\n");
  refused("a system based on a path, not a shipped name", "cluster { system = \"lab\", nodes = 2 }", NULL,
          (const char *const[3]){"cluster.system", "no shipped system '../systems/dgx-a100'", NULL});
  refused("unknown system", "cluster { system = \"dgx-z100\", nodes = 2 }", NULL,
          (const char *const[3]){"scenario.lua:1:", "cluster.system", "unknown system 'dgx-z100' (known: "
                                                                      "aws-p3-16xlarge, aws-p3dn-24xlarge, aws-p4d-24xlarge, "
                                                                      "aws-p5-48xlarge, azure-nd-h100-v5, "
                                                                      "azure-ndv4, dgx-a100, dgx-b200, dgx-h100, dgx-h200, dgx1-p100, "
                                                                      "dgx1-v100, dgx2, p100-pcie"});
  refused("a system that is not a name", "cluster { system = 3, nodes = 2 }", NULL,
          (const char *const[3]){"scenario.lua:1:", "cluster.system", "expected a system's name"});
  refused("unknown system by --set", "cluster { nodes = 2, gpu = { flops = \"1TF\" }, inter = { bandwidth = \"1Gbps\" } }",
          "--set cluster.system=nope", (const char *const[3]){"--set cluster.system=nope", "unknown system 'nope'", NULL});
  write_file(path, "return {\n  gpus_per_node = 2,\n  gpu = { flops = \"50TF\" },\n"
                   "  inter = { bandwidth = \"-25Gbps\" },\n}\n");
  refused("a bad value in a system file: its line there", "cluster { system = \"lab\", nodes = 2 }", NULL,
          (const char *const[3]){"systems/lab.lua:4:", "cluster.inter.bandwidth", "at least"});
  write_file(path, "return {\n  gpus_per_node = 2,\n  gpu = { flops = \"50TF\", sped = 3 },\n"
                   "  inter = { bandwidth = \"25Gbps\" },\n}\n");
  refused("an unknown key in a system file", "cluster { system = \"lab\", nodes = 2 }", NULL,
          (const char *const[3]){"systems/lab.lua:3:", "cluster.gpu.sped", "unknown key"});
  write_file(path, "return {\n  gpus_per_node = 2,\n  nodes = 64,\n  gpu = { flops = \"50TF\" },\n"
                   "  inter = { bandwidth = \"25Gbps\" },\n}\n");
  refused("a system that says how many nodes", "cluster { system = \"lab\", nodes = 2 }", NULL,
          (const char *const[3]){"systems/lab.lua:3:", "cluster.nodes", "belongs in the scenario"});
  write_file(path, "return { gpus_per_node = 2, gpu = { flops = \"50TF\" } \n");
  refused("a system file Lua cannot read", "cluster { system = \"lab\", nodes = 2 }", NULL,
          (const char *const[3]){"scenario.lua:1:", "cluster.system", "failed to load"});
  write_file(path, "return 42\n");
  refused("a system file that returns no table", "cluster { system = \"lab\", nodes = 2 }", NULL,
          (const char *const[3]){"scenario.lua:1:", "cluster.system", "must return a table"});
  /* a bad value the scenario gave is still the scenario's line */
  write_file(path, "return { gpus_per_node = 2, gpu = { flops = \"50TF\" }, inter = { bandwidth = \"25Gbps\" } }\n");
  refused("a bad value of the scenario beside a good system", "cluster { system = \"lab\",\n nodes = 0 }", NULL,
          (const char *const[3]){"scenario.lua:2:", "cluster.nodes", "at least 1"});
  return tap_done(0);
}
