/* main.c — the `hearsay` command. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algorithm.h"
#include "scenarios/loader.h"
#include "scenarios/units.h"
#include "sim/calibrate_cmd.h"
#include "sim/collective_cmd.h"
#include "sim/models_cmd.h"
#include "sim/peers_cmd.h"
#include "sim/run.h"

#define MAX_SETS 256

static void usage(FILE *f) {
  fputs("usage: hearsay run SCENARIO.lua [--set key.path=value]... [--out DIR] [--quiet]\n"
        "       hearsay collective SCENARIO.lua [--op allreduce|...|all] [--bytes 100MiB | --bytes MIN:MAX]\n"
        "                          [--factor 2 | --step SIZE] [--gpus-per-thread G] [--model nccl] [--csv FILE]\n"
        "                          [--set k=v]...\n"
        "       hearsay peers SCENARIO.lua [--steps 200] [--rounds R] [--set k=v]... [--out DIR]\n"
        "       hearsay peers --list\n"
        "       hearsay calibrate NCCL_TESTS_OUTPUT... --scenario S [--set k=v]... [--out FILE.lua]\n"
        "       hearsay models SCENARIO.lua [--set k=v]...\n"
        "       hearsay algorithms | systems | models\n"
        "       hearsay --help\n"
        "\n"
        "Simulates the training job a Lua scenario describes on the cluster it\n"
        "describes (SimGrid: one actor per GPU, every message of every collective\n"
        "simulated), prints a summary and writes into DIR (default out/NAME):\n"
        "  metrics.csv    one row per iteration: simulated time, iteration time,\n"
        "                 compute, exposed communication, loss, accuracy, bytes\n"
        "  summary.json   throughput, time per iteration, communication share,\n"
        "                 final loss/accuracy and the resolved configuration\n"
        "  platform.xml   the SimGrid platform generated from cluster { }\n"
        "\n"
        "  --set k=v   override one scenario field, e.g. --set cluster.nodes=4\n"
        "              --set cluster.inter.bandwidth=25Gbps --set algorithm.overlap=false\n"
        "  --out DIR   where to write the outputs\n"
        "  --quiet     print nothing on success\n"
        "\n"
        "`hearsay collective` times one timing-only collective over every GPU of\n"
        "the scenario's cluster and prints the simulated time, the schedule that\n"
        "ran, algbw/busbw, the ring bound, and the wall time and memory the\n"
        "simulation took. With --bytes MIN:MAX (or --op all) it sweeps sizes by\n"
        "--factor (or adds --step, nccl-tests' -i) and prints nccl-tests' table\n"
        "with its average bus bandwidth; --csv FILE writes the rows;\n"
        "--model nccl adds what NCCL's own cost model predicts for the cluster;\n"
        "--gpus-per-thread G times it as nccl-tests -g G does, one host thread\n"
        "launching each collective on G GPUs in turn.\n"
        "\n"
        "`hearsay peers` checks the scenario's peer-selection scheme at every step\n"
        "(pairing, weights), reports its mixing matrices, spectral rate, measured\n"
        "consensus decay, degree and bytes, and simulates its first gossip rounds\n"
        "on the cluster; writes DIR/peers.json (docs/peer-selection.md).\n"
        "\n"
        "`hearsay calibrate` reads what nccl-tests printed on a real cluster, fits\n"
        "the scenario's link and transport parameters to it, writes the machine\n"
        "as a system file (default calibrated.lua) and prints the measured time\n"
        "per size beside the simulated one, before and after the fit.\n"
        "\n"
        "`hearsay algorithms`, `hearsay systems` and `hearsay models` list the\n"
        "algorithms with their options, the named machines (cluster.system) and\n"
        "the timing profiles (workload.model) with their options; `hearsay models\n"
        "SCENARIO.lua` prints what the scenario's model amounts to: its layers,\n"
        "parameters, tensors, buffers, FLOPs and gradient bytes, as resolved.\n"
        "\n"
        "A scenario declares cluster{}, workload{}, algorithm{}, run{} and optionally\n"
        "sim{}; docs/scenarios.md lists every key, its unit and default. A bad\n"
        "scenario is reported as FILE:LINE: key: problem, exit code 2, and nothing\n"
        "is written.\n",
        f);
}

static int cmd_algorithms(void) {
  for (const hs_algorithm_desc *const *a = hs_algorithm_list(); *a; a++) {
    printf("%s — %s\n", (*a)->name, (*a)->summary);
    for (const hs_option_spec *o = (*a)->options; o && o->key; o++)
      printf("    %-16s default %-8s %s\n", o->key, o->def, o->help);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (strcmp(argv[1], "algorithms") == 0) return cmd_algorithms();
  if (strcmp(argv[1], "systems") == 0) return hs_system_catalog(stdout);
  if (strcmp(argv[1], "models") == 0 && argc == 2) return hs_profile_catalog(stdout);
  if (strcmp(argv[1], "calibrate") == 0) return hs_cmd_calibrate(argc, argv);
  int collective = strcmp(argv[1], "collective") == 0;
  int peers = strcmp(argv[1], "peers") == 0;
  int models = strcmp(argv[1], "models") == 0;
  if (peers && argc == 3 && strcmp(argv[2], "--list") == 0) return hs_cmd_peers_list();
  if (strcmp(argv[1], "run") != 0 && !collective && !peers && !models) {
    fprintf(stderr, "hearsay: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
  }
  const char *scenario = NULL;
  const char *sets[MAX_SETS];
  int n_sets = 0;
  hs_run_options opt = {0};
  const char *bytes_text = "100MiB", *step_text = NULL;
  hs_collective_options copt = {.op = "allreduce", .factor = 2};
  hs_peers_options popt = {.steps = 200};
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
      if (n_sets == MAX_SETS) {
        fprintf(stderr, "hearsay: too many --set (max %d)\n", MAX_SETS);
        return 2;
      }
      sets[n_sets++] = argv[++i];
    } else if (strncmp(argv[i], "--set=", 6) == 0 && n_sets < MAX_SETS) {
      sets[n_sets++] = argv[i] + 6;
    } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
      opt.out_dir = argv[++i];
    } else if (collective && strcmp(argv[i], "--op") == 0 && i + 1 < argc) {
      copt.op = argv[++i];
    } else if (collective && strcmp(argv[i], "--bytes") == 0 && i + 1 < argc) {
      bytes_text = argv[++i];
    } else if (collective && strcmp(argv[i], "--step") == 0 && i + 1 < argc) {
      step_text = argv[++i];
    } else if (collective && strcmp(argv[i], "--factor") == 0 && i + 1 < argc) {
      char *end;
      copt.factor = strtod(argv[++i], &end);
      if (*end || !(copt.factor > 1 && copt.factor <= 1024)) {
        fprintf(stderr, "hearsay collective: --factor %s: expected a number above 1 (at most 1024)\n", argv[i]);
        return 2;
      }
    } else if (collective && strcmp(argv[i], "--model") == 0 && i + 1 < argc) {
      if (strcmp(argv[++i], "nccl") != 0) {
        fprintf(stderr, "hearsay collective: --model %s: the reference model is 'nccl'\n", argv[i]);
        return 2;
      }
      copt.model_nccl = 1;
    } else if (collective && strcmp(argv[i], "--gpus-per-thread") == 0 && i + 1 < argc) {
      char *end;
      long g = strtol(argv[++i], &end, 10);
      if (*end || g < 1 || g > 1024) {
        fprintf(stderr, "hearsay collective: --gpus-per-thread %s: expected an integer in 1..1024 (nccl-tests' -g)\n",
                argv[i]);
        return 2;
      }
      copt.gpus_per_thread = (int)g;
    } else if (collective && strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
      copt.csv = argv[++i];
    } else if (peers && (strcmp(argv[i], "--steps") == 0 || strcmp(argv[i], "--rounds") == 0) && i + 1 < argc) {
      char *end;
      long v = strtol(argv[i + 1], &end, 10);
      if (*end || v < 1 || v > 100000) {
        fprintf(stderr, "hearsay peers: %s %s: expected an integer in 1..100000\n", argv[i], argv[i + 1]);
        return 2;
      }
      if (argv[i][2] == 's') popt.steps = v;
      else popt.rounds = (int)v;
      i++;
    } else if (strcmp(argv[i], "--quiet") == 0) {
      opt.quiet = 1;
    } else if (strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (argv[i][0] == '-' || scenario) {
      fprintf(stderr, "hearsay: unexpected argument '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    } else {
      scenario = argv[i];
    }
  }
  if (!scenario) {
    fprintf(stderr, "hearsay %s: which scenario? (e.g. scenarios/quickstart.lua)\n", argv[1]);
    return 2;
  }
  if (models && (opt.out_dir || opt.quiet)) { /* it prints, and writes nothing */
    fprintf(stderr, "hearsay models: %s does not apply (it prints the model and writes nothing); only --set does\n",
            opt.out_dir ? "--out" : "--quiet");
    return 2;
  }
  hs_scenario sc;
  int rc = hs_scenario_load(scenario, sets, n_sets, &sc);
  if (rc) return rc;
  if (models) {
    rc = hs_cmd_models(&sc, stdout);
  } else if (peers) {
    popt.out_dir = opt.out_dir;
    popt.quiet = opt.quiet;
    rc = hs_cmd_peers(&sc, &popt);
  } else if (collective) {
    char err[256] = "";
    if (hs_collective_parse_bytes(bytes_text, &copt.min_bytes, &copt.max_bytes, err, sizeof err)) {
      fprintf(stderr, "hearsay collective: --bytes %s\n", err);
      rc = 2;
    } else if (step_text && hs_collective_parse_bytes(step_text, &copt.step, &copt.step, err, sizeof err)) {
      fprintf(stderr, "hearsay collective: --step %s\n", err);
      rc = 2;
    } else {
      rc = hs_cmd_collective(&sc, &copt);
    }
  } else {
    rc = hs_cmd_run(&sc, &opt);
  }
  hs_scenario_free(&sc);
  return rc;
}
