/* schema.c — every key a scenario may set, its type, unit, default and range,
 * and the walk that checks a declared table against it.
 *
 * docs/scenarios.md documents the same table for users; keep them together. */
#include <lauxlib.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "algos/comm/protocol.h"
#include "scenarios/links.h"
#include "scenarios/loader.h"
#include "scenarios/loader_internal.h"
#include "scenarios/peer_lua.h"
#include "scenarios/profile.h"
#include "scenarios/gpu_defaults.h"
#include "scenarios/nccl_versions.h"
#include "scenarios/net_transport.h"
#include "scenarios/sandbox.h"
#include "scenarios/units.h"

/* F_LATENCY: a time that is 0 or at least HS_LATENCY_MIN. */
/* F_MAP: a table whose keys something else names (a profile's options),
 * checked where it is read. */
typedef enum { F_INT, F_LONG, F_NUM, F_BOOL, F_STR, F_ENUM, F_BYTES, F_TIME, F_LATENCY, F_BW, F_FLOPS, F_TABLE, F_LIST, F_MAP } ftype;
/* MIN_ZERO_OR: 0, or at least min. */
typedef enum { MIN_NONE, MIN_GE, MIN_GT, MIN_ZERO_OR } min_rule;

typedef struct field {
  const char *key;
  ftype type;
  size_t off;        /* into the struct being filled */
  const char *def;   /* NULL: required (unless a table or list) */
  min_rule rule;
  double min;
  double max;        /* 0: the type's own bound (type_max) */
  const char *choices;        /* F_ENUM: "a|b|c", stored as its index */
  const struct field *sub;    /* F_TABLE: fields of the nested table */
} field;

#define END {NULL, F_INT, 0, NULL, MIN_NONE, 0, 0, NULL, NULL}
#define OFF(member) offsetof(hs_scenario, member)

static const field gpu_fields[] = {
    {"flops", F_FLOPS, OFF(cluster.gpu_flops), NULL, MIN_GE, 1, 1e18, NULL, NULL},
    /* above 1 where cuDNN's Winograd convolutions do fewer multiplies than
     * a layer's nominal count: F(4x4,3x3) does 4x fewer (Lavin & Gray 2016) */
    {"efficiency", F_NUM, OFF(cluster.gpu_efficiency), "1", MIN_GE, 1e-6, 4, NULL, NULL},
    {"arch", F_ENUM, OFF(cluster.gpu_arch), "ampere", MIN_NONE, 0, 0, "pascal|volta|ampere|hopper|blackwell", NULL},
    /* absent: the generation's (resolve_published_defaults) */
    {"memory_bandwidth", F_BW, OFF(cluster.gpu_memory_bandwidth), "1TBps", MIN_GE, HS_BW_MIN, HS_BW_MAX, NULL, NULL},
    /* absent: hs_gpu_launch_overhead_default's, which this states */
    {"launch_overhead", F_LATENCY, OFF(cluster.gpu_launch_overhead), "4us", MIN_GE, 0, HS_LATENCY_MAX, NULL, NULL},
    /* absent: the generation's x16 link (resolve_published_defaults) */
    {"pcie_bandwidth", F_BW, OFF(cluster.gpu_pcie_bandwidth), "1GBps", MIN_GE, HS_BW_MIN, HS_BW_MAX, NULL, NULL},
    /* absent: the generation's (resolve_published_defaults); 0: collectives hold none */
    {"sms", F_INT, OFF(cluster.gpu_sms), "0", MIN_GE, 0, 1024, NULL, NULL},
    /* Sinha et al. (arXiv 2208.11035v3): 8% among GPUs of one SKU (gpu_spread.h) */
    {"variability", F_NUM, OFF(cluster.gpu_variability), "0.08", MIN_GE, 0, 1, NULL, NULL},
    END};
static const field intra_fields[] = {
    {"bandwidth", F_BW, OFF(cluster.intra.bandwidth), "300GBps", MIN_GE, HS_BW_MIN, HS_BW_MAX, NULL, NULL},
    {"latency", F_LATENCY, OFF(cluster.intra.latency), "0", MIN_GE, 0, HS_LATENCY_MAX, NULL, NULL},
    {"link", F_ENUM, OFF(cluster.intra_link), "nvlink", MIN_NONE, 0, 0, "nvlink|pcie", NULL},
    /* absent: the generation's (resolve_published_defaults) */
    {"efficiency", F_NUM, OFF(cluster.intra_efficiency), "1", MIN_GE, 1e-3, 1, NULL, NULL},
    {"nvls_efficiency", F_NUM, OFF(cluster.nvls_efficiency), "1", MIN_GE, 1e-3, 1, NULL, NULL},
    /* a PCIe node's switches and sockets (scenarios/links.h); checked against
     * gpus_per_node in hs_schema_validate */
    {"pcie_switches", F_INT, OFF(cluster.pcie_switches), "1", MIN_GE, 1, HS_GPUS_PER_NODE_MAX, NULL, NULL},
    {"sockets", F_INT, OFF(cluster.sockets), "1", MIN_GE, 1, 2, NULL, NULL},
    /* -1: the NIC on socket 0's root; checked against pcie_switches below */
    {"nic_switch", F_INT, OFF(cluster.nic_switch), "-1", MIN_GE, -1, HS_GPUS_PER_NODE_MAX, NULL, NULL},
    {"nic_per_switch", F_BOOL, OFF(cluster.nic_per_switch), "false", MIN_NONE, 0, 0, NULL, NULL},
    /* absent: the CPU's, as NCCL rates it (resolve_published_defaults) */
    {"socket_bandwidth", F_BW, OFF(cluster.socket_bandwidth), "10GBps", MIN_GE, HS_BW_MIN, HS_BW_MAX, NULL, NULL},
    /* false: through host memory (NCCL's SHM); checked against link below */
    {"p2p", F_BOOL, OFF(cluster.intra_p2p), "true", MIN_NONE, 0, 0, NULL, NULL},
    /* nccl: NCCL's default for sim.nccl_version and the CPU (resolved in
     * hs_schema_validate); the others as NCCL_P2P_LEVEL names them */
    {"p2p_level", F_ENUM, OFF(cluster.p2p_level), "nccl", MIN_NONE, 0, 0, "nccl|pxb|phb|sys", NULL},
    END};
static const field inter_fields[] = {
    {"bandwidth", F_BW, OFF(cluster.inter.bandwidth), NULL, MIN_GE, HS_BW_MIN, HS_BW_MAX, NULL, NULL},
    {"latency", F_LATENCY, OFF(cluster.inter.latency), "0", MIN_GE, 0, HS_LATENCY_MAX, NULL, NULL},
    {"nics_per_node", F_INT, OFF(cluster.nics_per_node), "1", MIN_GE, 1, 64, NULL, NULL},
    {"topology", F_ENUM, OFF(cluster.topology), "flat", MIN_NONE, 0, 0, "flat|fat_tree", NULL},
    {"rack_size", F_INT, OFF(cluster.rack_size), "8", MIN_GE, 1, HS_NODES_MAX, NULL, NULL},
    {"oversubscription", F_NUM, OFF(cluster.oversubscription), "1", MIN_GE, 1, 1e6, NULL, NULL},
    {"uplink_latency", F_LATENCY, OFF(cluster.uplink_latency), "1us", MIN_GE, 0, HS_LATENCY_MAX, NULL, NULL},
    {"in_network_reduction", F_BOOL, OFF(cluster.in_network_reduction), "false", MIN_NONE, 0, 0, NULL, NULL},
    /* NVIDIA/nccl#320 (maintainer, 2023-01): "~20 GB/s per NIC" through
     * SHARP on HDR, whose NICs carry NCCL's rings 24 GB/s (docs/fidelity.md) */
    {"in_network_efficiency", F_NUM, OFF(cluster.in_network_efficiency), "0.83", MIN_GE, 1e-3, 1, NULL, NULL},
    {"transport", F_ENUM, OFF(cluster.transport.kind), "rdma", MIN_NONE, 0, 0, "rdma|tcp", NULL},
    /* absent: the transport's (resolve_published_defaults) */
    {"efficiency", F_NUM, OFF(cluster.transport.efficiency), "1", MIN_GE, 1e-3, 1, NULL, NULL},
    {"stream_bandwidth", F_BW, OFF(cluster.transport.stream_bandwidth), "0", MIN_ZERO_OR, HS_BW_MIN, HS_BW_MAX, NULL,
     NULL},
    {"socket_threads", F_INT, OFF(cluster.transport.socket_threads), "0", MIN_GE, 0, 16, NULL, NULL},
    {"message_cost", F_LATENCY, OFF(cluster.transport.message_cost), "0", MIN_GE, 0, HS_LATENCY_MAX, NULL, NULL},
    /* false: the NICs' bytes staged in host memory (host.staging_bandwidth) */
    {"gpudirect", F_BOOL, OFF(cluster.gpudirect), "true", MIN_NONE, 0, 0, NULL, NULL},
    END};
static const field host_fields[] = {
    /* absent: the CPU's and the PCIe generation's (resolve_published_defaults) */
    {"memory_bandwidth", F_BW, OFF(cluster.host_memory_bandwidth), "1GBps", MIN_GE, HS_BW_MIN, HS_BW_MAX, NULL, NULL},
    {"bandwidth", F_BW, OFF(cluster.host_bandwidth), "1GBps", MIN_GE, HS_BW_MIN, HS_BW_MAX, NULL, NULL},
    /* the socket transport's published figures (docs/scenarios.md): one
     * thread of NCCL 2.3.7's moved 2.06 GB/s (NVIDIA/nccl#209); a message
     * between two hosts' stacks cost 34 us (NVIDIA/nccl-tests#82) */
    {"tcp_stream_bandwidth", F_BW, OFF(cluster.host_tcp_stream_bandwidth), "2.06GBps", MIN_GE, HS_BW_MIN, HS_BW_MAX,
     NULL, NULL},
    {"tcp_message_cost", F_LATENCY, OFF(cluster.host_tcp_message_cost), "34us", MIN_GE, 0, HS_LATENCY_MAX, NULL, NULL},
    /* NVIDIA/nccl#384: allreduce between two GPUs through NCCL's SHM on
     * PCIe Gen3 x16 (NCCL 2.4.8): 3.9 GB/s (docs/scenarios.md) */
    {"staging_bandwidth", F_BW, OFF(cluster.host_staging_bandwidth), "3.9GBps", MIN_GE, HS_BW_MIN, HS_BW_MAX, NULL,
     NULL},
    /* measured on an H200's host with PyTorch 2.11 (docs/validation.md,
     * "DDP and its hooks on one GPU") */
    {"op_overhead", F_LATENCY, OFF(cluster.host_op_overhead), "10us", MIN_GE, 0, HS_LATENCY_MAX, NULL, NULL},
    {"collective_overhead", F_LATENCY, OFF(cluster.host_collective_overhead), "200us", MIN_GE, 0, HS_LATENCY_MAX, NULL,
     NULL},
    {"sync_overhead", F_LATENCY, OFF(cluster.host_sync_overhead), "850us", MIN_GE, 0, HS_LATENCY_MAX, NULL, NULL},
    END};
static const field cluster_fields[] = {
    {"nodes", F_INT, OFF(cluster.nodes), NULL, MIN_GE, 1, HS_NODES_MAX, NULL, NULL},
    {"system", F_STR, OFF(cluster.system), "", MIN_NONE, 0, 0, NULL, NULL}, /* merged in before (system.c) */
    {"gpus_per_node", F_INT, OFF(cluster.gpus_per_node), "1", MIN_GE, 1, HS_GPUS_PER_NODE_MAX, NULL, NULL},
    {"cpu", F_ENUM, OFF(cluster.cpu), "intel", MIN_NONE, 0, 0, "intel|amd", NULL},
    {"nvls", F_BOOL, OFF(cluster.nvls), "false", MIN_NONE, 0, 0, NULL, NULL},
    {"gpu", F_TABLE, 0, NULL, MIN_NONE, 0, 0, NULL, gpu_fields},
    {"intra", F_TABLE, 0, NULL, MIN_NONE, 0, 0, NULL, intra_fields},
    {"inter", F_TABLE, 0, NULL, MIN_NONE, 0, 0, NULL, inter_fields},
    {"host", F_TABLE, 0, NULL, MIN_NONE, 0, 0, NULL, host_fields},
    {"overrides", F_LIST, 0, NULL, MIN_NONE, 0, 0, NULL, NULL},
    {"gpu_speed", F_LIST, 0, NULL, MIN_NONE, 0, 0, NULL, NULL},
    END};
static const field dataset_fields[] = {
    {"kind", F_ENUM, 0, "gaussian_mixture", MIN_NONE, 0, 0, "gaussian_mixture", NULL},
    {"classes", F_INT, OFF(workload.classes), "10", MIN_GE, 2, 1024, NULL, NULL},
    {"features", F_INT, OFF(workload.features), "64", MIN_GE, 1, 1e7, NULL, NULL},
    {"samples", F_LONG, OFF(workload.samples), "20000", MIN_GE, 1, 1e10, NULL, NULL},
    {"test_samples", F_LONG, OFF(workload.test_samples), "2000", MIN_GE, 1, 1e10, NULL, NULL},
    {"separation", F_NUM, OFF(workload.separation), "4", MIN_GT, 0, 1e6, NULL, NULL},
    {"noise", F_NUM, OFF(workload.noise), "1", MIN_GT, 0, 1e6, NULL, NULL},
    {"partition", F_ENUM, OFF(workload.partition), "iid", MIN_NONE, 0, 0, "iid|dirichlet", NULL},
    {"alpha", F_NUM, OFF(workload.alpha), "0.5", MIN_GE, 1e-3, 1e6, NULL, NULL},
    END};
static const field workload_fields[] = {
    {"model", F_STR, OFF(workload.model), NULL, MIN_NONE, 0, 0, NULL, NULL},
    {"dataset", F_TABLE, 0, NULL, MIN_NONE, 0, 0, NULL, dataset_fields},
    {"model_options", F_MAP, 0, NULL, MIN_NONE, 0, 0, NULL, NULL},
    {"batch", F_INT, OFF(workload.batch), "32", MIN_GE, 1, 1e7, NULL, NULL},
    {"accumulation_steps", F_INT, OFF(workload.accumulation_steps), "1", MIN_GE, 1, 4096, NULL, NULL},
    {"lr", F_NUM, OFF(workload.lr), "0.1", MIN_GE, 0, 1e6, NULL, NULL},
    {"momentum", F_NUM, OFF(workload.momentum), "0.9", MIN_GE, 0, 1, NULL, NULL},
    {"fused_optimizer", F_BOOL, OFF(workload.fused_optimizer), "true", MIN_NONE, 0, 0, NULL, NULL},
    {"weight_decay", F_NUM, OFF(workload.weight_decay), "0", MIN_GE, 0, 1e3, NULL, NULL},
    {"init_noise", F_NUM, OFF(workload.init_noise), "0", MIN_GE, 0, 1e6, NULL, NULL},
    {"precision", F_ENUM, OFF(workload.precision), "fp32", MIN_NONE, 0, 0, "fp32|fp16|bf16", NULL},
    END};
static const field run_fields[] = {
    {"iterations", F_INT, OFF(run.iterations), NULL, MIN_GE, 1, 1e8, NULL, NULL},
    {"warmup_iterations", F_INT, OFF(run.warmup_iterations), "0", MIN_GE, 0, 1e8, NULL, NULL},
    {"seed", F_LONG, OFF(run.seed), "1", MIN_GE, 0, 9007199254740991.0, NULL, NULL},
    {"eval_every", F_INT, OFF(run.eval_every), "0", MIN_GE, 0, 1e8, NULL, NULL},
    {"trace", F_INT, OFF(run.trace), "0", MIN_GE, 0, 1e5, NULL, NULL},
    {"on_failure", F_ENUM, OFF(run.on_failure), "abort", MIN_NONE, 0, 0, "abort|shrink", NULL},
    /* 0: a day of simulated time per iteration (sim/watchdog.c) */
    {"max_simulated_time", F_TIME, OFF(run.max_simulated_time), "0", MIN_GE, 0, 0, NULL, NULL},
    END};
static const field sim_fields[] = {
    {"network_model", F_STR, OFF(sim.network_model), "CM02", MIN_NONE, 0, 0, NULL, NULL},
    {"crosstraffic", F_BOOL, OFF(sim.crosstraffic), "false", MIN_NONE, 0, 0, NULL, NULL},
    /* 0 or a size of at least 1 B; factors 0 or at least 1e-6: SimGrid's
     * configuration refuses subnormal numbers. */
    {"tcp_gamma", F_BYTES, OFF(sim.tcp_gamma), "0", MIN_ZERO_OR, 1, 1099511627776.0, NULL, NULL},
    {"latency_factor", F_NUM, OFF(sim.latency_factor), "0", MIN_ZERO_OR, 1e-6, 1e6, NULL, NULL},
    {"bandwidth_factor", F_NUM, OFF(sim.bandwidth_factor), "0", MIN_ZERO_OR, 1e-6, 1e6, NULL, NULL},
    {"collectives", F_ENUM, OFF(sim.collectives), "auto", MIN_NONE, 0, 0, "ring|hierarchical|halving_doubling|recursive_doubling|tree|nvls|collnet|nvls_tree|auto", NULL},
    {"tuner", F_ENUM, OFF(sim.tuner), "nccl", MIN_NONE, 0, 0, "nccl|hearsay", NULL},
    {"nccl_version", F_STR, OFF(sim.nccl_version), "2.30", MIN_NONE, 0, 0, NULL, NULL},
    {"library", F_ENUM, OFF(sim.library), "nccl", MIN_NONE, 0, 0, "nccl|gloo", NULL},
    {"gloo_staging", F_BOOL, OFF(sim.gloo_staging), "true", MIN_NONE, 0, 0, NULL, NULL},
    {"channels", F_INT, OFF(sim.channels), "0", MIN_GE, 0, 64, NULL, NULL},
    {"protocol", F_ENUM, OFF(sim.protocol), "auto", MIN_NONE, 0, 0, "ll|ll128|simple|none|auto", NULL},
    {"slice", F_BYTES, OFF(sim.slice), "0", MIN_ZERO_OR, 1, 1099511627776.0, NULL, NULL},
    {"slices_in_flight", F_INT, OFF(sim.slices_in_flight), "8", MIN_GE, 0, 64, NULL, NULL},
    {"switch_slices", F_INT, OFF(sim.switch_slices), "1", MIN_GE, 1, 64, NULL, NULL},
    {"fidelity", F_ENUM, OFF(sim.fidelity), "auto", MIN_NONE, 0, 0, "auto|step|fast", NULL},
    {"stack_size", F_BYTES, OFF(sim.stack_size), "256KiB", MIN_GE, 16384, 67108864.0, NULL, NULL},
    END};

static const field real_fields[] = {
    {"transport", F_ENUM, OFF(real.transport), "auto", MIN_NONE, 0, 0, "auto|mpi|nccl", NULL},
    {"emulate", F_BOOL, OFF(real.emulate), "false", MIN_NONE, 0, 0, NULL, NULL},
    {"lowering", F_ENUM, OFF(real.lowering), "auto", MIN_NONE, 0, 0, "auto|hearsay|mpi", NULL},
    END};

/* SimGrid's network models that route flows over links. Its "Constant"
 * model has no links (network_constant.cpp refuses every link of a
 * platform, and the run dies of SIGABRT), and every platform hearsay
 * builds has them: it is refused here. */
static const char *const network_models[] = {"CM02", "LV08", "SMPI", NULL};

/* ---- the schema as a list (tests/test_docs_reference.c checks the
 * reference in docs/scenarios.md against it) -------------------------------- */

static void each_field(const char *block, const char *prefix, const field *fields, hs_schema_visit fn, void *ctx) {
  for (const field *f = fields; f->key; f++) {
    char key[128];
    snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", f->key);
    if (f->type == F_TABLE && f->sub) each_field(block, key, f->sub, fn, ctx);
    int required = !f->def && f->type != F_TABLE && f->type != F_LIST && f->type != F_MAP;
    fn(ctx, block, key, f->def, f->choices, required, f->type == F_TABLE);
  }
}

void hs_schema_each(hs_schema_visit fn, void *ctx) {
  static const struct {
    const char *block;
    const field *fields;
  } blocks[] = {{"cluster", cluster_fields}, {"workload", workload_fields}, {"run", run_fields},
                {"sim", sim_fields},         {"real", real_fields}};
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) each_field(blocks[i].block, "", blocks[i].fields, fn, ctx);
}

/* ---- generic walk ------------------------------------------------------------ */

static const char *lua_kind(lua_State *L, int idx) { return luaL_typename(L, idx); }

static int enum_index(const char *choices, const char *s) {
  int i = 0;
  for (const char *p = choices; *p; i++) {
    const char *bar = strchr(p, '|');
    size_t n = bar ? (size_t)(bar - p) : strlen(p);
    if (strlen(s) == n && strncmp(p, s, n) == 0) return i;
    if (!bar) break;
    p = bar + 1;
  }
  return -1;
}

static hs_unit_kind unit_of(ftype t) {
  switch (t) {
  case F_BYTES: return HS_UNIT_BYTES;
  case F_TIME:
  case F_LATENCY: return HS_UNIT_TIME;
  case F_BW: return HS_UNIT_BANDWIDTH;
  default: return HS_UNIT_FLOPS;
  }
}

/* The bound of a key that names none: what the value is stored in, or
 * what SimGrid and the models can honour (docs/scenarios.md, "Ranges"). */
static double type_max(ftype t) {
  switch (t) {
  case F_INT: return INT_MAX;
  case F_LONG: return 9007199254740991.0; /* 2^53 - 1: every integer up to it is exact in a double */
  case F_BYTES: return 1125899906842624.0; /* 1 PiB */
  case F_TIME: return HS_TIME_MAX;
  case F_LATENCY: return HS_LATENCY_MAX;
  case F_BW: return HS_BW_MAX;
  case F_FLOPS: return 1e18;
  default: return 1e15;
  }
}

static int check_range(hs_loader *ld, const char *kp, int line, const field *f, double v) {
  if (!isfinite(v)) return hs_loader_fail(ld, kp, line, "must be a finite number (got %g)", v);
  if (f->rule == MIN_GT && !(v > f->min))
    return hs_loader_fail(ld, kp, line, "must be greater than %g (got %g)", f->min, v);
  if (f->rule == MIN_GE && !(v >= f->min))
    return hs_loader_fail(ld, kp, line, "must be at least %g (got %g)", f->min, v);
  if (f->rule == MIN_ZERO_OR && v != 0 && !(v >= f->min))
    return hs_loader_fail(ld, kp, line, "must be 0 (the default) or at least %g (got %g)", f->min, v);
  double max = f->max != 0 ? f->max : type_max(f->type);
  if (v > max) return hs_loader_fail(ld, kp, line, "must be at most %.17g (got %g)", max, v);
  if (f->type == F_LATENCY && v > 0 && v < HS_LATENCY_MIN)
    return hs_loader_fail(ld, kp, line, "%g s is below SimGrid's time resolution: write 0 for no latency, or at "
                          "least %g s", v, HS_LATENCY_MIN);
  return 0;
}

/* Converts the Lua value at idx (or the default when it is nil) and stores it. */
static int store_field(hs_loader *ld, const char *kp, int line, const field *f, int idx, char *base) {
  lua_State *L = ld->L;
  int is_default = lua_isnil(L, idx);
  if (is_default && !f->def) return hs_loader_fail(ld, kp, line, "required but missing");
  char err[256];
  double v = 0;
  switch (f->type) {
  case F_INT:
  case F_LONG:
  case F_NUM:
    if (is_default) v = strtod(f->def, NULL);
    else if (lua_type(L, idx) == LUA_TNUMBER) v = lua_tonumber(L, idx);
    else return hs_loader_fail(ld, kp, line, "expected a number, got %s", lua_kind(L, idx));
    if ((f->type == F_INT || f->type == F_LONG) && v != floor(v))
      return hs_loader_fail(ld, kp, line, "expected an integer, got %g", v);
    if (check_range(ld, kp, line, f, v)) return HS_SCENARIO_EBAD;
    if (f->type == F_INT) {
      *(int *)(base + f->off) = (int)v;
    } else if (f->type == F_LONG) {
      *(long *)(base + f->off) = (long)v;
    } else {
      *(double *)(base + f->off) = v;
    }
    return 0;
  case F_BOOL:
    if (is_default) *(bool *)(base + f->off) = strcmp(f->def, "true") == 0;
    else if (lua_isboolean(L, idx)) *(bool *)(base + f->off) = lua_toboolean(L, idx);
    else return hs_loader_fail(ld, kp, line, "expected true or false, got %s", lua_kind(L, idx));
    return 0;
  case F_STR:
  case F_ENUM: {
    const char *s = is_default ? f->def : NULL;
    if (!is_default) {
      if (lua_type(L, idx) != LUA_TSTRING) {
        /* --set reads 2.8 as a number: say how to pass it as a string */
        int quote = lua_type(L, idx) == LUA_TNUMBER && hs_loader_override_for(ld, kp);
        return hs_loader_fail(ld, kp, line, "expected a string, got %s%s%s%s", lua_kind(L, idx),
                              quote ? " (a --set value that reads as a number is one: quote it, --set '" : "",
                              quote ? kp : "", quote ? "=\"...\"')" : "");
      }
      s = lua_tostring(L, idx);
    }
    if (f->type == F_STR) {
      if (strlen(s) >= HS_NAME_MAX) return hs_loader_fail(ld, kp, line, "too long (max %d)", HS_NAME_MAX - 1);
      snprintf(base + f->off, HS_NAME_MAX, "%s", s);
      return 0;
    }
    int i = enum_index(f->choices, s);
    if (i < 0) return hs_loader_fail(ld, kp, line, "'%s' is not one of %s", s, f->choices);
    if (f->off) *(int *)(base + f->off) = i;
    return 0;
  }
  case F_BYTES:
  case F_TIME:
  case F_LATENCY:
  case F_BW:
  case F_FLOPS:
    if (is_default) {
      hs_parse_unit(f->def, unit_of(f->type), &v, err, sizeof err);
    } else if (lua_type(L, idx) == LUA_TNUMBER) {
      v = lua_tonumber(L, idx);
    } else if (lua_type(L, idx) == LUA_TSTRING) {
      if (hs_parse_unit(lua_tostring(L, idx), unit_of(f->type), &v, err, sizeof err))
        return hs_loader_fail(ld, kp, line, "%s", err);
    } else {
      return hs_loader_fail(ld, kp, line, "expected %s, got %s", hs_unit_kind_name(unit_of(f->type)),
                            lua_kind(L, idx));
    }
    if (check_range(ld, kp, line, f, v)) return HS_SCENARIO_EBAD;
    *(double *)(base + f->off) = v;
    return 0;
  case F_TABLE:
  case F_LIST:
  case F_MAP:
    return 0;
  }
  return 0;
}

static void list_keys(const field *fields, char *buf, size_t len) {
  buf[0] = '\0';
  for (const field *f = fields; f->key; f++) {
    strncat(buf, f->key, len - strlen(buf) - 1);
    if (f[1].key) strncat(buf, ", ", len - strlen(buf) - 1);
  }
}

/* Validates the table on top of the stack against fields; leaves it there. */
static int walk_table(hs_loader *ld, const char *prefix, int line, const field *fields, char *base) {
  lua_State *L = ld->L;
  char kp[256];
  int t = lua_gettop(L);
  /* Unknown keys first: a typo is the most common mistake. */
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) {
      lua_pop(L, 1);
      return hs_loader_fail(ld, prefix, line, "has a non-name key; write key = value");
    }
    const char *k = lua_tostring(L, -1);
    const field *f = fields;
    while (f->key && strcmp(f->key, k) != 0) f++;
    if (!f->key) {
      char keys[512];
      list_keys(fields, keys, sizeof keys);
      snprintf(kp, sizeof kp, "%s.%s", prefix, k);
      lua_pop(L, 1);
      /* system files that `hearsay calibrate` wrote before 2026-11-26 */
      if (fields == inter_fields && strcmp(k, "sockets") == 0)
        return hs_loader_fail(ld, kp, line,
                              "replaced by socket_threads (NCCL_SOCKET_NTHREADS; 0: each GPU's proxy thread moves its "
                              "connections, NCCL's default on a generic NIC), docs/scenarios.md");
      return hs_loader_fail(ld, kp, line, "unknown key (accepted: %s)", keys);
    }
  }
  for (const field *f = fields; f->key; f++) {
    snprintf(kp, sizeof kp, "%s.%s", prefix, f->key);
    hs_loader_at(ld, kp, line);
    lua_getfield(L, t, f->key);
    int rc;
    if (f->type == F_TABLE) {
      if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L); /* all defaults */
      } else if (!lua_istable(L, -1)) {
        rc = hs_loader_fail(ld, kp, line, "expected a table, got %s", lua_kind(L, -1));
        lua_pop(L, 1);
        return rc;
      }
      rc = walk_table(ld, kp, line, f->sub, base);
    } else if (f->type == F_LIST) {
      rc = lua_isnil(L, -1) || lua_istable(L, -1)
               ? 0
               : hs_loader_fail(ld, kp, line, "expected a list of tables, got %s", lua_kind(L, -1));
    } else if (f->type == F_MAP) {
      rc = lua_isnil(L, -1) || lua_istable(L, -1)
               ? 0
               : hs_loader_fail(ld, kp, line, "expected a table of name = value, got %s", lua_kind(L, -1));
    } else {
      rc = store_field(ld, kp, line, f, -1, base);
    }
    lua_pop(L, 1);
    if (rc) return rc;
  }
  return 0;
}

/* ---- cluster lists ------------------------------------------------------------ */

/* Reads an optional non-negative integer selector (node, rack, gpu). */
static int read_selector(hs_loader *ld, const char *kp, int line, const char *key, int limit, int *out) {
  lua_State *L = ld->L;
  char k[256];
  snprintf(k, sizeof k, "%s.%s", kp, key);
  lua_getfield(L, -1, key);
  *out = -1;
  int rc = 0;
  if (!lua_isnil(L, -1)) {
    if (!lua_isinteger(L, -1)) rc = hs_loader_fail(ld, k, line, "expected an integer index");
    else {
      lua_Integer v = lua_tointeger(L, -1);
      if (v < 0 || v >= limit) rc = hs_loader_fail(ld, k, line, "%lld is out of range 0..%d", (long long)v, limit - 1);
      else *out = (int)v;
    }
  }
  lua_pop(L, 1);
  return rc;
}

static int read_optional_unit(hs_loader *ld, const char *kp, int line, const char *key, ftype t, double *out) {
  char k[256];
  snprintf(k, sizeof k, "%s.%s", kp, key);
  field f = {key, t, 0, "0", MIN_GE, t == F_BW ? HS_BW_MIN : 0, 0, NULL, NULL};
  lua_getfield(ld->L, -1, key);
  int rc = 0;
  if (!lua_isnil(ld->L, -1)) rc = store_field(ld, k, line, &f, -1, (char *)out);
  lua_pop(ld->L, 1);
  return rc;
}

static int check_keys(hs_loader *ld, const char *kp, int line, const char *const *allowed) {
  lua_State *L = ld->L;
  int t = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, t)) {
    lua_pop(L, 1);
    const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
    int ok = 0;
    for (int i = 0; allowed[i]; i++) ok |= strcmp(allowed[i], k) == 0;
    if (!ok) {
      char full[256];
      snprintf(full, sizeof full, "%s.%s", kp, k);
      lua_pop(L, 1);
      return hs_loader_fail(ld, full, line, "unknown key in this entry");
    }
  }
  return 0;
}

/* The length of the list on top of the stack, read raw (a __len cannot
 * claim 2^31 entries) and bounded: one entry per node or GPU at most. */
static int list_length(hs_loader *ld, const char *kp, int line, int *n) {
  if (!lua_istable(ld->L, -1)) return hs_loader_fail(ld, kp, line, "expected a list of tables, got %s", lua_kind(ld->L, -1));
  size_t len = lua_rawlen(ld->L, -1);
  if (len > HS_RANKS_MAX) return hs_loader_fail(ld, kp, line, "has %zu entries; at most %d", len, HS_RANKS_MAX);
  *n = (int)len;
  return 0;
}

/* An override's transport = "rdma" | "tcp": that transport's published
 * values for the node's (or rack's) NICs. The entry is on top. */
static int read_override_transport(hs_loader *ld, const char *kp, int line, hs_net_override *o) {
  lua_State *L = ld->L;
  lua_getfield(L, -1, "transport");
  int rc = 0;
  if (!lua_isnil(L, -1)) {
    char k[96];
    snprintf(k, sizeof k, "%s.transport", kp);
    const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (v && (strcmp(v, "rdma") == 0 || strcmp(v, "tcp") == 0)) {
      o->has_transport = 1;
      o->transport = hs_net_transport_default(strcmp(v, "tcp") == 0 ? HS_NET_TCP : HS_NET_RDMA);
    } else {
      rc = hs_loader_fail(ld, k, line, "expected \"rdma\" or \"tcp\"");
    }
  }
  lua_pop(L, 1);
  return rc;
}

/* The keys of inter { }, intra { } and gpu { } a scenario leaves out take
 * the transport's and the GPU generation's published values
 * (scenarios/net_transport.c, scenarios/gpu_defaults.c). The cluster's
 * table is on top. */
/* Whether the scenario leaves cluster.TABLE.KEY out (the cluster's table
 * on top of L's stack, left there). */
static int absent(lua_State *L, const char *table, const char *key) {
  lua_getfield(L, -1, table);
  int none = 1;
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, key);
    none = lua_isnil(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return none;
}

static void resolve_published_defaults(hs_loader *ld) {
  lua_State *L = ld->L;
  hs_cluster_spec *c = &ld->out->cluster;
  hs_net_transport d = hs_net_transport_default(c->transport.kind);
  if (absent(L, "inter", "efficiency")) c->transport.efficiency = d.efficiency;
  if (absent(L, "inter", "stream_bandwidth")) c->transport.stream_bandwidth = d.stream_bandwidth;
  if (absent(L, "inter", "socket_threads")) c->transport.socket_threads = d.socket_threads;
  if (absent(L, "inter", "message_cost")) c->transport.message_cost = d.message_cost;
  if (absent(L, "intra", "efficiency")) c->intra_efficiency = hs_intra_efficiency_default(c->gpu_arch, c->intra_link);
  if (absent(L, "intra", "nvls_efficiency"))
    c->nvls_efficiency = hs_nvls_efficiency_default(c->gpu_arch, c->gpus_per_node);
  if (absent(L, "gpu", "memory_bandwidth")) c->gpu_memory_bandwidth = hs_gpu_memory_bandwidth_default(c->gpu_arch);
  if (absent(L, "gpu", "launch_overhead")) c->gpu_launch_overhead = hs_gpu_launch_overhead_default();
  if (absent(L, "gpu", "pcie_bandwidth")) c->gpu_pcie_bandwidth = hs_host_bandwidth_default(c->gpu_arch);
  if (absent(L, "gpu", "sms")) c->gpu_sms = hs_gpu_sms_default(c->gpu_arch);
  if (absent(L, "host", "memory_bandwidth")) c->host_memory_bandwidth = hs_host_memory_bandwidth_default(c->cpu);
  if (absent(L, "host", "bandwidth")) c->host_bandwidth = hs_host_bandwidth_default(c->gpu_arch);
  if (absent(L, "intra", "socket_bandwidth")) c->socket_bandwidth = hs_socket_bandwidth_default(c->cpu);
}

static int read_overrides(hs_loader *ld, int line) {
  lua_State *L = ld->L;
  hs_cluster_spec *c = &ld->out->cluster;
  int racks = (c->nodes + c->rack_size - 1) / c->rack_size;
  lua_getfield(L, -1, "overrides");
  if (lua_isnil(L, -1)) { lua_pop(L, 1); return 0; }
  int n;
  if (list_length(ld, "cluster.overrides", line, &n)) { lua_pop(L, 1); return HS_SCENARIO_EBAD; }
  c->overrides = calloc(n > 0 ? n : 1, sizeof *c->overrides);
  static const char *const allowed[] = {"node",          "rack",          "bandwidth", "latency",
                                        "intra_bandwidth", "intra_latency", "transport", NULL};
  for (int i = 1; i <= n; i++) {
    char kp[64];
    snprintf(kp, sizeof kp, "cluster.overrides[%d]", i);
    lua_rawgeti(L, -1, i);
    hs_net_override *o = &c->overrides[c->n_overrides];
    int rc = !lua_istable(L, -1) ? hs_loader_fail(ld, kp, line, "expected a table")
             : check_keys(ld, kp, line, allowed) ? HS_SCENARIO_EBAD
             : read_selector(ld, kp, line, "node", c->nodes, &o->node) ? HS_SCENARIO_EBAD
             : read_selector(ld, kp, line, "rack", racks, &o->rack) ? HS_SCENARIO_EBAD
             : read_optional_unit(ld, kp, line, "bandwidth", F_BW, &o->inter.bandwidth) ? HS_SCENARIO_EBAD
             : read_optional_unit(ld, kp, line, "latency", F_LATENCY, &o->inter.latency) ? HS_SCENARIO_EBAD
             : read_optional_unit(ld, kp, line, "intra_bandwidth", F_BW, &o->intra.bandwidth) ? HS_SCENARIO_EBAD
             : read_optional_unit(ld, kp, line, "intra_latency", F_LATENCY, &o->intra.latency) ? HS_SCENARIO_EBAD
             : read_override_transport(ld, kp, line, o) ? HS_SCENARIO_EBAD
             : 0;
    if (!rc && (o->node < 0) == (o->rack < 0))
      rc = hs_loader_fail(ld, kp, line, "name exactly one of node = N or rack = R");
    o->line = line;
    lua_pop(L, 1);
    if (rc) { lua_pop(L, 1); return rc; }
    c->n_overrides++;
  }
  lua_pop(L, 1);
  return 0;
}

/* Factors naming one GPU multiply (links.h, hs_links_speed_products):
 * their product, not only each one, must stay a speed SimGrid can hold,
 * [1e-6, 1e6] (a thousand entries naming one node made an infinite speed,
 * and SimGrid aborted: scripts/fuzz, seed 4444, case 4698). */
static int check_speed_products(hs_loader *ld, const hs_cluster_spec *c, int line) {
  int n = c->nodes * c->gpus_per_node;
  if (c->n_speed == 0 || n <= 0) return 0;
  double *f = malloc((size_t)n * sizeof *f);
  if (!f) return hs_loader_fail(ld, "cluster.gpu_speed", line, "out of memory");
  hs_links_speed_products(c, f);
  int rc = 0;
  for (int g = 0; g < n && !rc; g++)
    if (!(f[g] >= 1e-6 && f[g] <= 1e6))
      rc = hs_loader_fail(ld, "cluster.gpu_speed", line,
                          "the factors naming GPU %d (itself or its node) multiply to %g, outside [1e-6, 1e6]: a "
                          "speed the simulation cannot hold",
                          g, f[g]);
  free(f);
  return rc;
}

static int read_gpu_speed(hs_loader *ld, int line) {
  lua_State *L = ld->L;
  hs_cluster_spec *c = &ld->out->cluster;
  lua_getfield(L, -1, "gpu_speed");
  if (lua_isnil(L, -1)) { lua_pop(L, 1); return 0; }
  int n;
  if (list_length(ld, "cluster.gpu_speed", line, &n)) { lua_pop(L, 1); return HS_SCENARIO_EBAD; }
  c->speed = calloc(n > 0 ? n : 1, sizeof *c->speed);
  static const char *const allowed[] = {"gpu", "node", "factor", NULL};
  for (int i = 1; i <= n; i++) {
    char kp[64], fk[80];
    snprintf(kp, sizeof kp, "cluster.gpu_speed[%d]", i);
    snprintf(fk, sizeof fk, "%s.factor", kp);
    lua_rawgeti(L, -1, i);
    hs_speed_override *s = &c->speed[c->n_speed];
    /* The GPU's speed times the factor must stay a speed SimGrid can hold. */
    field ff = {"factor", F_NUM, 0, NULL, MIN_GE, 1e-6, 1e6, NULL, NULL};
    int rc = !lua_istable(L, -1) ? hs_loader_fail(ld, kp, line, "expected a table")
             : check_keys(ld, kp, line, allowed) ? HS_SCENARIO_EBAD
             : read_selector(ld, kp, line, "gpu", c->nodes * c->gpus_per_node, &s->gpu) ? HS_SCENARIO_EBAD
             : read_selector(ld, kp, line, "node", c->nodes, &s->node) ? HS_SCENARIO_EBAD
             : 0;
    if (!rc) {
      lua_getfield(L, -1, "factor");
      rc = store_field(ld, fk, line, &ff, -1, (char *)&s->factor);
      lua_pop(L, 1);
    }
    if (!rc && (s->gpu < 0) == (s->node < 0))
      rc = hs_loader_fail(ld, kp, line, "name exactly one of gpu = G or node = N");
    s->line = line;
    lua_pop(L, 1);
    if (rc) { lua_pop(L, 1); return rc; }
    c->n_speed++;
  }
  lua_pop(L, 1);
  return check_speed_products(ld, c, line);
}

/* ---- algorithm ------------------------------------------------------------------ */

/* hs_opt_type -> field type, in hs_opt_type's order. */
static const ftype opt_field_types[] = {F_INT, F_NUM, F_BOOL, F_STR, F_BYTES, F_TIME, F_BW, F_FLOPS, F_STR};

/* The value on top of the stack names a peer scheme: a built-in, a Lua file
 * (relative to the scenario), a function or a scheme table. Fills
 * algorithm.peers and the option's display name. */
static int resolve_peers(hs_loader *ld, const char *kp, int line, const hs_option_spec *spec, hs_option_value *v) {
  lua_State *L = ld->L;
  hs_algorithm_spec *a = &ld->out->algorithm;
  char err[HS_PEER_ERR_MAX] = "";
  const char *bad = "peers";
  int t = lua_type(L, -1);
  if (t == LUA_TNIL || t == LUA_TSTRING) {
    const char *name = t == LUA_TNIL ? spec->def : lua_tostring(L, -1);
    if ((a->peers = hs_peer_builtin(name))) {
      snprintf(v->str, sizeof v->str, "%s", name);
    } else if (strchr(name, '/') || strstr(name, ".lua")) {
      char dir[HS_PATH_MAX], file[HS_PATH_MAX * 2];
      snprintf(dir, sizeof dir, "%s", ld->path);
      char *slash = strrchr(dir, '/');
      if (slash) *slash = '\0';
      else snprintf(dir, sizeof dir, ".");
      snprintf(file, sizeof file, "%s%s%s", name[0] == '/' ? "" : dir, name[0] == '/' ? "" : "/", name);
      if (hs_sandbox_loadfile(L, file) != LUA_OK || hs_sandbox_pcall(L, 0, 1) != LUA_OK) {
        int rc = hs_loader_fail(ld, kp, line, "peer scheme file failed to load: %s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return rc;
      }
      const char *base = strrchr(name, '/');
      char label[HS_PEER_NAME_MAX];
      snprintf(label, sizeof label, "%s", base ? base + 1 : name);
      a->peers = hs_peer_lua_create(L, -1, label, err, sizeof err, &bad);
      lua_pop(L, 1);
      if (a->peers) ld->lua_kept = 1;
    } else {
      return hs_loader_fail(ld, kp, line, "unknown peer scheme '%s' (built-in: %s; or a .lua file, or a "
                            "function(rank, n, step))", name, hs_peer_builtin_names());
    }
  } else {
    a->peers = hs_peer_lua_create(L, -1, NULL, err, sizeof err, &bad);
    if (a->peers) ld->lua_kept = 1;
  }
  if (!a->peers) {
    char key[300];
    snprintf(key, sizeof key, "%s%s%s", kp, strcmp(bad, "peers") ? "." : "", strcmp(bad, "peers") ? bad : "");
    return hs_loader_fail(ld, key, line, "%s", err);
  }
  if (ld->lua_kept) hs_peer_lua_set_seed(L, (uint64_t)ld->out->run.seed);
  a->peers->seed = (uint64_t)ld->out->run.seed;
  if (!v->str[0]) snprintf(v->str, sizeof v->str, "%s", a->peers->name);
  return 0;
}

static int validate_algorithm(hs_loader *ld) {
  lua_State *L = ld->L;
  int line = hs_loader_push_decl(ld, "algorithm");
  hs_algorithm_spec *a = &ld->out->algorithm;
  int rc = 0;
  lua_getfield(L, -1, "name");
  if (lua_type(L, -1) != LUA_TSTRING) {
    rc = hs_loader_fail(ld, "algorithm.name", line, lua_isnil(L, -1) ? "required but missing" : "expected a string");
    lua_pop(L, 2);
    return rc;
  }
  snprintf(a->name, sizeof a->name, "%s", lua_tostring(L, -1));
  lua_pop(L, 1);
  const hs_algorithm_desc *d = hs_algorithm_find(a->name);
  if (!d) {
    char names[512] = "";
    for (const hs_algorithm_desc *const *p = hs_algorithm_list(); *p; p++) {
      strncat(names, (*p)->name, sizeof names - strlen(names) - 1);
      if (p[1]) strncat(names, ", ", sizeof names - strlen(names) - 1);
    }
    rc = hs_loader_fail(ld, "algorithm.name", line, "unknown algorithm '%s' (known: %s)", a->name, names);
    lua_pop(L, 1);
    return rc;
  }
  /* Build a field table from the algorithm's option specs, plus "name". */
  field fields[HS_MAX_OPTIONS + 2];
  int n = 0;
  fields[n++] = (field){"name", F_STR, 0, "", MIN_NONE, 0, 0, NULL, NULL};
  for (const hs_option_spec *o = d->options; o && o->key; o++) {
    if (n > HS_MAX_OPTIONS) break;
    ftype ft = opt_field_types[o->type];
    /* Integer options are stored as doubles but read as int or long. */
    fields[n] = (field){o->key, ft, 0, o->def, MIN_GE, o->min, ft == F_INT ? INT_MAX : 0, NULL, NULL};
    if (ft == F_STR || ft == F_BOOL) fields[n].rule = MIN_NONE;
    n++;
  }
  fields[n] = (field)END;
  /* Unknown keys and types through the generic walk, into scratch values. */
  a->options.n = 0;
  for (int i = 1; i < n; i++) {
    hs_option_value *v = &a->options.v[a->options.n++];
    v->key = d->options[i - 1].key;
    v->type = d->options[i - 1].type;
  }
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pop(L, 1);
    const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "?";
    int known = 0;
    for (int i = 0; i < n; i++) known |= strcmp(fields[i].key, k) == 0;
    if (!known) {
      char kp[256], keys[512];
      snprintf(kp, sizeof kp, "algorithm.%s", k);
      list_keys(fields, keys, sizeof keys);
      lua_pop(L, 2);
      return hs_loader_fail(ld, kp, line, "unknown option of %s (accepted: %s)", a->name, keys);
    }
  }
  for (int i = 1; i < n && !rc; i++) {
    char kp[256];
    snprintf(kp, sizeof kp, "algorithm.%s", fields[i].key);
    hs_option_value *v = &a->options.v[i - 1];
    hs_loader_at(ld, kp, line);
    lua_getfield(L, -1, fields[i].key);
    if (d->options[i - 1].type == HS_OPT_PEERS) {
      rc = resolve_peers(ld, kp, line, &d->options[i - 1], v);
    } else if (fields[i].type == F_STR) {
      fields[i].off = offsetof(hs_option_value, str);
      rc = store_field(ld, kp, line, &fields[i], -1, (char *)v);
      const char *choices = d->options[i - 1].choices;
      if (!rc && choices && enum_index(choices, v->str) < 0)
        rc = hs_loader_fail(ld, kp, line, "'%s' is not one of %s", v->str, choices);
    } else if (fields[i].type == F_BOOL) {
      bool b = false;
      rc = store_field(ld, kp, line, &fields[i], -1, (char *)&b);
      v->num = b;
    } else if (fields[i].type == F_INT) {
      fields[i].type = F_NUM; /* stored as double; integrality checked here */
      rc = store_field(ld, kp, line, &fields[i], -1, (char *)&v->num);
      if (!rc && v->num != floor(v->num)) rc = hs_loader_fail(ld, kp, line, "expected an integer");
    } else {
      rc = store_field(ld, kp, line, &fields[i], -1, (char *)&v->num);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  if (!rc && d->validate) {
    char msg[512] = "";
    const char *key = d->validate(ld->out, msg, sizeof msg);
    if (key) {
      char kp[256];
      snprintf(kp, sizeof kp, "algorithm.%s", key);
      rc = hs_loader_fail(ld, kp, line, "%s", msg);
    }
  }
  return rc;
}

/* ---- top level ------------------------------------------------------------------ */

static int validate_block(hs_loader *ld, const char *name, const field *fields, int *line_out) {
  int line = hs_loader_push_decl(ld, name);
  if (lua_isnil(ld->L, -1)) {
    lua_pop(ld->L, 1);
    lua_newtable(ld->L);
  }
  int rc = walk_table(ld, name, line, fields, (char *)ld->out);
  if (line_out) *line_out = line;
  return rc; /* table stays on the stack */
}

int hs_schema_validate(hs_loader *ld) {
  lua_State *L = ld->L;
  int line, rc;
  hs_scenario *s = ld->out;

  rc = validate_block(ld, "cluster", cluster_fields, &line);
  if (!rc && (long)s->cluster.nodes * s->cluster.gpus_per_node > HS_RANKS_MAX)
    rc = hs_loader_fail(ld, "cluster.nodes", line, "%d nodes x %d GPUs is %ld GPUs; hearsay simulates at most %d",
                        s->cluster.nodes, s->cluster.gpus_per_node, (long)s->cluster.nodes * s->cluster.gpus_per_node,
                        HS_RANKS_MAX);
  /* NVLink SHARP reduces in an NVSwitch: there is none on PCIe. */
  if (!rc && s->cluster.nvls && s->cluster.intra_link == HS_INTRA_PCIE)
    rc = hs_loader_fail(ld, "cluster.nvls", line, "NVLink SHARP needs NVLink: intra.link is 'pcie'");
  /* The PCIe tree carries GPU-to-GPU traffic only where that goes over
   * PCIe; its groups are equal. */
  const hs_cluster_spec *cl = &s->cluster;
  if (!rc && (cl->pcie_switches > 1 || cl->sockets > 1) && cl->intra_link != HS_INTRA_PCIE)
    rc = hs_loader_fail(ld, cl->pcie_switches > 1 ? "cluster.intra.pcie_switches" : "cluster.intra.sockets", line,
                        "PCIe switches and sockets are a PCIe node's: set intra.link = 'pcie'");
  if (!rc && !cl->intra_p2p && cl->intra_link != HS_INTRA_PCIE)
    rc = hs_loader_fail(ld, "cluster.intra.p2p", line,
                        "GPUs without peer access reach each other through host memory over PCIe: set "
                        "intra.link = 'pcie'");
  if (!rc && cl->gpus_per_node % cl->pcie_switches)
    rc = hs_loader_fail(ld, "cluster.intra.pcie_switches", line,
                        "%d switches cannot hold %d GPUs a node in equal groups", cl->pcie_switches, cl->gpus_per_node);
  if (!rc && cl->pcie_switches % cl->sockets)
    rc = hs_loader_fail(ld, "cluster.intra.sockets", line,
                        "%d sockets cannot hold %d PCIe switches in equal groups (one switch a socket at least)",
                        cl->sockets, cl->pcie_switches);
  /* The NIC under a switch: one of the tree's (without a tree the node's
   * GPUs and NIC share its one switch already). */
  if (!rc && cl->nic_switch >= 0 && cl->pcie_switches < 2)
    rc = hs_loader_fail(ld, "cluster.intra.nic_switch", line,
                        "a NIC under a switch needs a PCIe tree: set intra.pcie_switches > 1");
  if (!rc && cl->nic_per_switch && cl->pcie_switches < 2)
    rc = hs_loader_fail(ld, "cluster.intra.nic_per_switch", line,
                        "NICs under the switches need a PCIe tree: set intra.pcie_switches > 1");
  if (!rc && cl->nic_per_switch && cl->nic_switch >= 0)
    rc = hs_loader_fail(ld, "cluster.intra.nic_per_switch", line,
                        "the NICs are under every switch or under switch %d (nic_switch), not both", cl->nic_switch);
  if (!rc && cl->nic_per_switch && cl->nics_per_node % cl->pcie_switches)
    rc = hs_loader_fail(ld, "cluster.intra.nic_per_switch", line,
                        "%d NICs a node (inter.nics_per_node) cannot sit under %d switches in equal groups",
                        cl->nics_per_node, cl->pcie_switches);
  if (!rc && cl->nic_switch >= cl->pcie_switches)
    rc = hs_loader_fail(ld, "cluster.intra.nic_switch", line, "there is no switch %d: the node's %d are 0 to %d",
                        cl->nic_switch, cl->pcie_switches, cl->pcie_switches - 1);
  if (!rc) resolve_published_defaults(ld);
  if (!rc) rc = read_overrides(ld, line);
  if (!rc) rc = read_gpu_speed(ld, line);
  lua_pop(L, 1);
  if (rc) return rc;

  rc = validate_block(ld, "workload", workload_fields, &line);
  if (!rc) rc = hs_profile_resolve(ld, line);
  lua_pop(L, 1);
  if (rc) return rc;

  rc = validate_block(ld, "run", run_fields, &line);
  if (!rc && s->run.warmup_iterations >= s->run.iterations)
    rc = hs_loader_fail(ld, "run.warmup_iterations", line,
                        "must be less than run.iterations (%d): at least one iteration is measured",
                        s->run.iterations);
  lua_pop(L, 1);
  if (rc) return rc;

  rc = validate_block(ld, "sim", sim_fields, &line);
  if (!rc) {
    int ok = 0;
    for (int i = 0; network_models[i]; i++) ok |= strcmp(network_models[i], s->sim.network_model) == 0;
    if (!ok)
      rc = hs_loader_fail(ld, "sim.network_model", line,
                          strcmp(s->sim.network_model, "Constant") == 0
                              ? "'%s' is SimGrid's model without links, and every platform hearsay builds has them: "
                                "use CM02, LV08 or SMPI"
                              : "'%s' is not one of CM02, LV08, SMPI",
                          s->sim.network_model);
  }
  if (!rc && (s->sim.nccl = hs_nccl_version_parse(s->sim.nccl_version)) < 0)
    rc = hs_loader_fail(ld, "sim.nccl_version", line,
                        "'%s' is not an NCCL version: MAJOR.MINOR, optionally .PATCH (\"2.4\", \"2.18.5\"), 1.x or 2.x",
                        s->sim.nccl_version);
  if (!rc) {
    hs_cluster_spec *cw = &s->cluster;
    cw->p2p_path = cw->p2p_level ? cw->p2p_level
                                 : hs_nccl_p2p_level(s->sim.nccl, cw->cpu == HS_CPU_AMD, cw->sockets, cw->gpus_per_node);
  }
  /* A switch that does not reduce cannot run the in-switch schedule. */
  if (!rc && s->sim.collectives == HS_COLL_NVLS && !s->cluster.nvls)
    rc = hs_loader_fail(ld, "sim.collectives", line,
                        "'nvls' needs a node switch that reduces: set cluster { nvls = true } (NVLink SHARP)");
  if (!rc && s->sim.collectives == HS_COLL_NVLS_TREE && !s->cluster.nvls)
    rc = hs_loader_fail(ld, "sim.collectives", line,
                        "'nvls_tree' needs node switches that reduce: set cluster { nvls = true } (NVLink SHARP)");
  if (!rc && s->sim.collectives == HS_COLL_COLLNET && !s->cluster.in_network_reduction)
    rc = hs_loader_fail(ld, "sim.collectives", line,
                        "'collnet' needs a fabric that reduces: set cluster { inter = { in_network_reduction = true } } "
                        "(SHARP)");
  /* Gloo runs its own ring over TCP on the hosts: NCCL's schedules and
   * protocols are not Gloo's to run (algos/comm/gloo.h). */
  if (!rc && s->sim.library == HS_LIBRARY_GLOO && s->sim.collectives != HS_COLL_AUTO &&
      s->sim.collectives != HS_COLL_RING)
    rc = hs_loader_fail(ld, "sim.collectives", line,
                        "Gloo (sim.library = \"gloo\") runs its own ring: leave sim.collectives \"auto\" or \"ring\"");
  if (!rc && s->sim.library == HS_LIBRARY_GLOO && s->sim.protocol != HS_PROTO_AUTO)
    rc = hs_loader_fail(ld, "sim.protocol", line,
                        "the protocols are NCCL's; Gloo (sim.library = \"gloo\") moves bytes over TCP: leave it \"auto\"");
  lua_pop(L, 1);
  if (rc) return rc;

  rc = validate_block(ld, "real", real_fields, &line);
  lua_pop(L, 1);
  if (rc) return rc;

  /* Before the algorithm: checking a peer scheme walks every rank. */
  rc = hs_budget_check(ld);
  if (rc) return rc;
  rc = validate_algorithm(ld);
  if (rc) return rc;
  /* The CPU processes the algorithm places its servers in (algorithm.h). */
  hs_server_layout lay;
  hs_algorithm_layout(s, &lay);
  s->cluster.cpu_ranks_per_node = lay.cpu_per_node;
  s->cluster.server_machines = lay.server_machines;
  /* A collective's channels, one SM each: what the platform's speed
   * levels step by. */
  s->cluster.collective_sms = hs_channels_of(s);
  /* Every worker needs a shard of the data set. */
  if (s->workload.numeric && s->workload.samples < hs_algorithm_workers(s)) {
    line = hs_loader_push_decl(ld, "workload");
    lua_pop(L, 1);
    return hs_loader_fail(ld, "workload.dataset.samples", line, "%ld samples are fewer than the %d workers",
                          s->workload.samples, hs_algorithm_workers(s));
  }
  return 0;
}
