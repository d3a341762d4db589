/* test_models.c — each timing profile's parameter total matches the
 * published count within 2% (the bound; published figures are
 * rounded), its FLOPs are plausible, and its parameter tensors are the
 * reference implementation's, exactly (what a per-tensor framework
 * launches a kernel for: DDP's bucket copies, a per-tensor optimizer). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "scenarios/loader.h"
#include "tests/harness.h"
#include "tests/tap.h"

/* Loads a scenario that trains `model` with the workload keys `extra`
 * (", model_options = {...}" or ""): 0 and sc filled, or the refusal. */
static int load_model(const char *model, const char *extra, hs_scenario *sc) {
  char lua[1024];
  snprintf(lua, sizeof lua,
           "cluster { nodes = 1, gpu = { flops = \"1TF\" }, inter = { bandwidth = \"1Gbps\" } }\n"
           "workload { model = \"%s\"%s }\nalgorithm { name = \"gradient_allreduce\" }\nrun { iterations = 1 }\n",
           model, extra);
  return hs_test_load(lua, sc);
}

/* Writes a profile of the given text to the test's folder and loads a
 * scenario that trains it: 0 and sc filled, or the loader's refusal. */
static int load_profile_with(const char *file, const char *text, const char *extra, hs_scenario *sc) {
  char profile[600];
  snprintf(profile, sizeof profile, "%s/%s", hs_test_tmpdir(), file);
  FILE *f = fopen(profile, "w");
  fputs(text, f);
  fclose(f);
  return load_model(profile, extra, sc);
}

static int load_profile(const char *file, const char *text, hs_scenario *sc) {
  return load_profile_with(file, text, "", sc);
}

/* Writes TMP/name/sub/file_a (and file_b where given) and TMP/name/s.lua,
 * a scenario of `model`, and loads it. */
static int load_folder(const char *name, const char *sub, const char *file_a, const char *text_a, const char *file_b,
                       const char *text_b, const char *model, hs_scenario *sc) {
  char dir[700], path[900];
  snprintf(dir, sizeof dir, "%s/%s", hs_test_tmpdir(), name);
  mkdir(dir, 0700);
  snprintf(path, sizeof path, "%s/%s", dir, sub);
  mkdir(path, 0700);
  const char *files[2] = {file_a, file_b}, *texts[2] = {text_a, text_b};
  for (int i = 0; i < 2 && files[i]; i++) {
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, files[i]);
    FILE *f = fopen(path, "w");
    fputs(texts[i], f);
    fclose(f);
  }
  snprintf(path, sizeof path, "%s/s.lua", dir);
  FILE *f = fopen(path, "w");
  fprintf(f, "cluster { nodes = 1, gpu = { flops = \"1TF\" }, inter = { bandwidth = \"1Gbps\" } }\n"
             "workload { model = \"%s\" }\nalgorithm { name = \"gradient_allreduce\" }\nrun { iterations = 1 }\n",
          model);
  fclose(f);
  return hs_scenario_load(path, NULL, 0, sc);
}

/* The fwd FLOPs of the profile's layer named `name`, or -1. */
static double layer_flops(const hs_scenario *sc, const char *name) {
  for (int l = 0; l < sc->workload.n_layers; l++)
    if (strcmp(sc->workload.layers[l].name, name) == 0) return sc->workload.layers[l].fwd_flops;
  return -1;
}

/* The recorded value of option `name` (NAN if none, or a string). */
static double option_of(const hs_scenario *sc, const char *name) {
  for (int i = 0; i < sc->workload.n_model_options; i++)
    if (strcmp(sc->workload.model_options[i].name, name) == 0 && !sc->workload.model_options[i].is_string)
      return sc->workload.model_options[i].number;
  return NAN;
}

/* workload.model_options: what a profile declares in `options` it reads
 * from its argument; anything else, and values of the wrong kind, are
 * refused; the record is the declared options, sorted, the scenario's
 * values over the defaults. */
static void test_model_options(void) {
  hs_scenario sc;
  /* BERT-Large at pre-training's second phase: its layers' FLOPs at 512
   * tokens, exactly (2 per weight per token; the attention scores 2 x 2 x
   * seq^2 x hidden), the parameters unchanged. */
  int rc = load_model("bert-large", ", model_options = { seq = 512 }", &sc);
  tap_ok(rc == 0, "bert-large takes model_options.seq = 512");
  if (rc == 0) {
    tap_ok(layer_flops(&sc, "encoder.0.attention.scores") == 2.0 * 2 * 512 * 512 * 1024 &&
               layer_flops(&sc, "encoder.0.attention.qkv") == 2.0 * 3 * 1024 * 1024 * 512,
           "bert-large at seq 512: scores %.6g, qkv %.6g FLOPs a sample",
           layer_flops(&sc, "encoder.0.attention.scores"), layer_flops(&sc, "encoder.0.attention.qkv"));
    hs_scenario base;
    double p = 0, p128 = -1;
    for (int l = 0; l < sc.workload.n_layers; l++) p += sc.workload.layers[l].params;
    if (load_model("bert-large", "", &base) == 0) {
      p128 = 0;
      for (int l = 0; l < base.workload.n_layers; l++) p128 += base.workload.layers[l].params;
      hs_scenario_free(&base);
    }
    tap_ok(p == p128, "bert-large at seq 512 keeps the %.0f parameters it has at 128", p128);
    tap_ok(sc.workload.n_model_options == 4 && option_of(&sc, "seq") == 512 && option_of(&sc, "layers") == 24 &&
               option_of(&sc, "hidden") == 1024 && strcmp(sc.workload.model_options[0].name, "ffn") == 0,
           "the record: every option of its family, sorted, seq = 512 and bert-large's sizes");
    hs_scenario_free(&sc);
  }
  rc = load_model("gpt2", "", &sc);
  tap_ok(rc == 0 && option_of(&sc, "seq") == 1024 && layer_flops(&sc, "h.0.attn.scores") == 2.0 * 2 * 1024 * 1024 * 768,
         "gpt2 without options: seq 1024, recorded as its default");
  if (rc == 0) hs_scenario_free(&sc);
  rc = load_model("gpt2", ", model_options = { seq = 256 }", &sc);
  tap_ok(rc == 0 && layer_flops(&sc, "h.0.attn.scores") == 2.0 * 2 * 256 * 256 * 768 &&
             layer_flops(&sc, "h.0.mlp.c_proj") == 2.0 * 4 * 768 * 768 * 256,
         "gpt2 at seq 256: its layers' FLOPs at 256 tokens");
  if (rc == 0) hs_scenario_free(&sc);
  const struct { const char *model, *extra, *why; } bad[] = {
      {"bert-large", ", model_options = { seq = 1024 }", "beyond BERT's 512 positions"},
      {"gpt2", ", model_options = { seq = 2048 }", "beyond GPT-2's 1024 positions"},
      {"bert-base", ", model_options = { seq = 100.5 }", "a fraction of a token"},
      {"bert-base", ", model_options = { seq = \"512\" }", "a string where the profile reads a number"},
      {"bert-base", ", model_options = { sq = 512 }", "an option the profile does not declare"},
      {"resnet50", ", model_options = { seq = 512 }", "an option the family does not declare"},
      {"inception_v3", ", model_options = { seq = 512 }", "a profile that declares none"},
      {"resnet50", ", model_options = { depth = 42 }", "a depth ResNet has not"},
      {"resnet50", ", model_options = { stem = \"tiny\" }", "a stem it has not"},
      {"resnet50", ", model_options = { depth = 18, groups = 32 }", "grouped basic blocks (torchvision has none)"},
      {"resnet50", ", model_options = { groups = 0 }", "no groups"},
      {"softmax", ", model_options = { seq = 512 }", "the numeric model"},
      {"bert-base", ", model_options = 512", "not a table"},
      {"bert-base", ", model_options = { 512 }", "a key that is not a name"},
      {"bert-base", ", model_options = { seq = {} }", "a value that is neither a number nor a string"},
      {"bert-base", ", model_options = { seq = 1/0 }", "an infinite value"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    rc = load_model(bad[i].model, bad[i].extra, &sc);
    tap_ok(rc != 0, "%s with%s refused: %s", bad[i].model, bad[i].extra, bad[i].why);
    if (rc == 0) hs_scenario_free(&sc);
  }
  /* A profile of one's own: its argument is the options given, its
   * `options` the defaults; the record is sorted by name. */
  const char *own = "local o = ... or {}\n"
                    "return { layers = { { name = 'l', params = 10, fwd_flops = o.width or 3 } },\n"
                    "         options = { width = 3, act = 'relu' } }\n";
  rc = load_profile_with("own.lua", own, ", model_options = { width = 7 }", &sc);
  tap_ok(rc == 0 && sc.workload.layers[0].fwd_flops == 7 && sc.workload.n_model_options == 2 &&
             strcmp(sc.workload.model_options[0].name, "act") == 0 && sc.workload.model_options[0].is_string &&
             strcmp(sc.workload.model_options[0].string, "relu") == 0 &&
             strcmp(sc.workload.model_options[1].name, "width") == 0 && sc.workload.model_options[1].number == 7,
         "a profile of one's own reads width = 7; the record: act = relu (its default), width = 7");
  if (rc == 0) hs_scenario_free(&sc);
  rc = load_profile_with("own-bad.lua", "return { layers = { { name = 'l', params = 10, fwd_flops = 1 } }, options = 3 }\n",
                         "", &sc);
  tap_ok(rc != 0, "a profile whose options are not a table is refused");
  if (rc == 0) hs_scenario_free(&sc);

  /* Variants: a family's profile run with the variant's options, the
   * scenario's over them; the record is the family's options as it ran. */
  rc = load_model("gpt2-medium", "", &sc);
  tap_ok(rc == 0 && option_of(&sc, "layers") == 24 && option_of(&sc, "d_model") == 1024 &&
             option_of(&sc, "seq") == 1024 && sc.workload.n_layers == 2 + 24 * 5,
         "gpt2-medium is gpt2 at 24 layers of 1024 (%d profile layers)", rc == 0 ? sc.workload.n_layers : -1);
  if (rc == 0) hs_scenario_free(&sc);
  rc = load_model("gpt2-medium", ", model_options = { layers = 2, seq = 64 }", &sc);
  tap_ok(rc == 0 && option_of(&sc, "layers") == 2 && option_of(&sc, "d_model") == 1024 &&
             layer_flops(&sc, "h.1.attn.scores") == 2.0 * 2 * 64 * 64 * 1024 && sc.workload.n_layers == 2 + 2 * 5,
         "the scenario's options over the variant's: 2 layers of gpt2-medium's 1024 at seq 64");
  if (rc == 0) hs_scenario_free(&sc);
  rc = load_profile_with("mine.lua", "return { variant_of = 'gpt2', options = { layers = 3, d_model = 64 } }\n", "", &sc);
  double p = 0;
  for (int l = 0; rc == 0 && l < sc.workload.n_layers; l++) p += sc.workload.layers[l].params;
  /* 50257 x 64 + 1024 x 64 (embeddings) + 3 x (12 x 64^2 + 13 x 64) + 2 x 64 */
  tap_ok(rc == 0 && p == 50257.0 * 64 + 1024 * 64 + 3 * (12.0 * 64 * 64 + 13 * 64) + 2 * 64,
         "a variant of one's own: gpt2 at 3 layers of 64, %.0f parameters", p);
  if (rc == 0) hs_scenario_free(&sc);
  const struct { const char *text, *why; } bad_variant[] = {
      {"return { variant_of = 'no-such-model' }\n", "a family that is not there"},
      {"return { variant_of = 'gpt2', options = { depth = 3 } }\n", "an option the family does not declare"},
      {"return { variant_of = 'gpt2', options = 3 }\n", "options that are not a table"},
      {"return { variant_of = 3 }\n", "a family that is not a name"},
  };
  for (size_t i = 0; i < sizeof bad_variant / sizeof *bad_variant; i++) {
    rc = load_profile_with("variant.lua", bad_variant[i].text, "", &sc);
    tap_ok(rc != 0, "a variant with %s is refused", bad_variant[i].why);
    if (rc == 0) hs_scenario_free(&sc);
  }
  /* a variant of a variant: its options checked against the family at the
   * end (resnet50's), the scenario's over both */
  rc = load_profile_with("r18-10.lua", "return { variant_of = 'resnet18', options = { classes = 10 } }\n",
                         ", model_options = { image = 32 }", &sc);
  tap_ok(rc == 0 && option_of(&sc, "depth") == 18 && option_of(&sc, "classes") == 10 &&
             option_of(&sc, "image") == 32 && sc.workload.layers[sc.workload.n_layers - 1].params == 512 * 10 + 10,
         "a variant of resnet18: depth 18 from resnet18, 10 classes from it, image 32 from the scenario");
  if (rc == 0) hs_scenario_free(&sc);
  /* a shipped variant's family is the shipped one: a scenario's own
   * models/resnet50.lua does not turn resnet18 into it */
  rc = load_folder("own-family", "models", "resnet50.lua",
                   "return { layers = { { name = 'one', params = 10, fwd_flops = 1 } }, options = { depth = 50 } }\n",
                   NULL, NULL, "resnet18", &sc);
  tap_ok(rc == 0 && sc.workload.n_layers == 21, "resnet18 beside a models/resnet50.lua of one's own: %d layers "
         "(want the shipped family's 21)", rc == 0 ? sc.workload.n_layers : -1);
  if (rc == 0) hs_scenario_free(&sc);
  /* a user's variant finds its family beside it: a folder of profiles
   * (lib/mine.lua, a variant of lib/base.lua) named by path, the family
   * by name or by a path relative to the variant (variant_of =
   * "base.lua", as #include "..." reads from the including file's folder;
   * until 2026-11-27 such a path was read from the scenario's folder,
   * where there is none) */
  const struct { const char *folder, *variant_of; int width; } fam[] = {{"beside", "base", 7},
                                                                      {"beside-path", "base.lua", 5}};
  for (size_t i = 0; i < sizeof fam / sizeof *fam; i++) {
    char variant[200];
    snprintf(variant, sizeof variant, "return { variant_of = '%s', options = { width = %d } }\n", fam[i].variant_of,
             fam[i].width);
    rc = load_folder(fam[i].folder, "lib", "base.lua",
                     "local o = ... or {}\nreturn { options = { width = 4 }, layers = { { name = 'only', params = "
                     "o.width, fwd_flops = 1 } } }\n",
                     "mine.lua", variant, "lib/mine.lua", &sc);
    tap_ok(rc == 0 && sc.workload.n_layers == 1 && sc.workload.layers[0].params == fam[i].width,
           "lib/mine.lua with variant_of = '%s' finds lib/base.lua (width %d)", fam[i].variant_of, fam[i].width);
    if (rc == 0) hs_scenario_free(&sc);
  }
  /* ... but not from the scenario's own folder, which holds scenarios: a
   * variant there (model = "mine.lua") finds gpt2 as a scenario's model
   * is found (models/, then the shipped one), not the gpt2.lua beside it */
  {
    char dir[700], path[900];
    snprintf(dir, sizeof dir, "%s/own-folder", hs_test_tmpdir());
    mkdir(dir, 0700);
    const char *files[3][2] = {
        {"gpt2.lua", "error('a scenario, not a profile')\n"},
        {"mine.lua", "return { variant_of = 'gpt2', options = { layers = 2 } }\n"},
        {"s.lua", "cluster { nodes = 1, gpu = { flops = \"1TF\" }, inter = { bandwidth = \"1Gbps\" } }\n"
                  "workload { model = \"mine.lua\" }\nalgorithm { name = \"gradient_allreduce\" }\n"
                  "run { iterations = 1 }\n"}};
    for (int i = 0; i < 3; i++) {
      snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
      FILE *f = fopen(path, "w");
      fputs(files[i][1], f);
      fclose(f);
    }
    rc = hs_scenario_load(path, NULL, 0, &sc);
    tap_ok(rc == 0 && option_of(&sc, "layers") == 2 && option_of(&sc, "d_model") == 768,
           "a variant in the scenario's own folder takes the shipped gpt2, not the gpt2.lua beside it");
    if (rc == 0) hs_scenario_free(&sc);
  }
  /* hearsay models: every shipped profile, a variant with its family, a
   * family with its options */
  {
    static char out[32768];
    int rc = hs_test_output(HEARSAY_BIN " models 2>&1", out, sizeof out), files = 0, listed = 0;
    DIR *d = opendir(HS_SOURCE_DIR "/scenarios/models");
    for (struct dirent *e; d && (e = readdir(d));) {
      size_t k = strlen(e->d_name);
      if (k <= 4 || strcmp(e->d_name + k - 4, ".lua") != 0) continue;
      char head[96];
      snprintf(head, sizeof head, "\n%-18.*s ", (int)(k - 4), e->d_name);
      files++;
      listed += strstr(out, head) != NULL;
    }
    if (d) closedir(d);
    tap_ok(rc == 0 && files > 0 && listed == files && strstr(out, "variant of resnet50") &&
               strstr(out, "model_options: depth = 50, image = 224, classes = 1000, stem = \"imagenet\""),
           "hearsay models lists the %d shipped profiles (%d listed), variants and options (exit %d)", files, listed,
           rc);
  }
  /* hearsay models SCENARIO: the scenario's profile as resolved (its
   * --set included), counts exact; the numeric model's parameters; what
   * does not apply refused */
  {
    static char out[8192];
    int rc = hs_test_output(HEARSAY_BIN " models " HS_SOURCE_DIR "/scenarios/bench-1024.lua"
                            " --set workload.model=resnext101_32x8d 2>&1", out, sizeof out);
    tap_ok(rc == 0 && strstr(out, "parameters  88,791,336;") && strstr(out, "with 314 parameter tensors") &&
               strstr(out, "groups = 32") && strstr(out, "width_per_group = 8") &&
               strstr(out, "buffers     312 (812,352 bytes") && strstr(out, "FLOPs       32.8 G forward and 65.7 G backward"),
           "hearsay models SCENARIO --set workload.model=resnext101_32x8d: torchvision's counts (exit %d)", rc);
    rc = hs_test_output(HEARSAY_BIN " models " HS_SOURCE_DIR "/scenarios/quickstart.lua 2>&1", out, sizeof out);
    tap_ok(rc == 0 && strstr(out, "parameters  650 (10 classes x (64 features + 1))"),
           "hearsay models on the numeric model: classes x (features + 1) parameters (exit %d)", rc);
    rc = hs_test_output(HEARSAY_BIN " models " HS_SOURCE_DIR "/scenarios/quickstart.lua --out nowhere 2>&1", out,
                        sizeof out);
    tap_ok(rc == 2 && strstr(out, "--out does not apply"), "hearsay models with --out: refused, exit 2 (got %d)", rc);
    rc = hs_test_output(HEARSAY_BIN " models " HS_SOURCE_DIR "/scenarios/quickstart.lua stray 2>&1", out, sizeof out);
    tap_ok(rc == 2 && strstr(out, "unexpected argument 'stray'"), "hearsay models with a stray argument: exit 2 (got %d)",
           rc);
    rc = hs_test_output(HEARSAY_BIN " models " HS_SOURCE_DIR "/scenarios/bench-1024.lua"
                        " --set workload.model_options.depth=42 2>&1", out, sizeof out);
    tap_ok(rc == 2 && strstr(out, "--set workload.model_options.depth=42"),
           "hearsay models with a depth ResNet has not: the --set named, exit 2 (got %d)", rc);
  }
  /* hearsay.option: the scenario's value over the default, a whole number
   * in its range where a range is given, a string as it is */
  {
    const char *text = "local o = ... or {}\nlocal options = { width = 4, kind = 'wide' }\n"
                       "local w = hearsay.option(o, options, 'width', 1, 8, 'a test')\n"
                       "local k = hearsay.option(o, options, 'kind')\n"
                       "return { options = options, layers = { { name = k, params = w, fwd_flops = 1 } } }\n";
    const struct { const char *extra; int ok; double params; } c[] = {
        {"", 1, 4},
        {", model_options = { width = 8, kind = 'narrow' }", 1, 8},
        {", model_options = { width = 9 }", 0, 0},
        {", model_options = { width = 2.5 }", 0, 0},
        {", model_options = { width = 'four' }", 0, 0},
        {", model_options = { width = '4' }", 0, 0},
        {", model_options = { width = 0 }", 0, 0},
    };
    rc = load_profile_with("misspelt.lua",
                           "local options = { width = 4 }\nlocal w = hearsay.option(... or {}, options, 'widht')\n"
                           "return { options = options, layers = { { name = 'a', params = 1, fwd_flops = 1 } } }\n",
                           "", &sc);
    tap_ok(rc != 0, "hearsay.option of a name without a default (a misspelling) is refused");
    if (rc == 0) hs_scenario_free(&sc);
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
      rc = load_profile_with("opt.lua", text, c[i].extra, &sc);
      tap_ok(c[i].ok ? rc == 0 && sc.workload.layers[0].params == c[i].params &&
                           strcmp(sc.workload.layers[0].name, i == 1 ? "narrow" : "wide") == 0
                     : rc != 0,
             "hearsay.option, width in 1..8%s: %s", c[i].extra, c[i].ok ? "read" : "refused");
      if (rc == 0) hs_scenario_free(&sc);
    }
  }
  /* one that names itself: refused after 4 in a row, not looping */
  char self[1200];
  snprintf(self, sizeof self, "return { variant_of = '%s/loop.lua' }\n", hs_test_tmpdir());
  rc = load_profile_with("loop.lua", self, "", &sc);
  tap_ok(rc != 0, "a variant of itself is refused");
  if (rc == 0) hs_scenario_free(&sc);
}

/* Every shipped profile gives its layers' matrices, as many as the
 * reference's tensors of two or more dimensions (torchvision's, Hugging
 * Face's): resnet50 53 convs and fc; vgg16 13 convs and 3 fc; alexnet 5
 * and 3; resnet18 20 convs and fc; bert-base 3 embeddings, 6 a layer (q,
 * k, v, the attention's output, the FFN's two), the pooler and the MLM
 * head's transform (its decoder tied); gpt2 2 embeddings and 4 a layer;
 * vit_b_16 the patch conv, the class token and position embedding, 4 a
 * layer and the head; the LSTM its embedding and 2 a layer; inception_v3
 * its 96 convolutions, fc and the auxiliary head's fc. resnet50's
 * cells are its parameters less its batch-norms' weights and biases
 * (2 x 26,560) and fc's bias (1,000). */
static void test_matrices(void) {
  const struct { const char *model; int n; double cells; } m[] = {
      {"resnet50", 54, 25557032.0 - 2 * 26560 - 1000}, {"vgg16", 16, 0}, {"alexnet", 8, 0}, {"resnet18", 21, 0},
      {"bert-base", 3 + 12 * 6 + 2, 0}, {"gpt2", 2 + 12 * 4, 0}, {"vit_b_16", 3 + 12 * 4 + 1, 0},
      {"lstm-wikitext2", 7, 0}, {"inception_v3", 98, 0}, {"resnet20-cifar10", 20, 0},
  };
  for (size_t i = 0; i < sizeof m / sizeof *m; i++) {
    char lua[512];
    snprintf(lua, sizeof lua,
             "cluster { nodes = 1, gpu = { flops = \"1TF\" }, inter = { bandwidth = \"1Gbps\" } }\n"
             "workload { model = \"%s\" }\nalgorithm { name = \"powersgd\" }\nrun { iterations = 1 }\n",
             m[i].model);
    hs_scenario sc;
    if (hs_test_load(lua, &sc)) {
      tap_ok(0, "%s loads", m[i].model);
      continue;
    }
    int n = 0, all_given = 1;
    double cells = 0;
    for (int l = 0; l < sc.workload.n_layers; l++) {
      const hs_layer_spec *L = &sc.workload.layers[l];
      if (L->params > 0) all_given &= L->matrices_given;
      n += L->n_matrices;
      for (int k = 0; k < L->n_matrices; k++) cells += L->matrices[k][0] * L->matrices[k][1];
    }
    if (m[i].n)
      tap_ok(all_given && n == m[i].n, "%s: every layer with parameters gives its matrices, %d (want %d)", m[i].model,
             n, m[i].n);
    else
      tap_ok(all_given && n > 0, "%s: every layer with parameters gives its matrices (%d)", m[i].model, n);
    if (m[i].cells) tap_ok(cells == m[i].cells, "%s: %.0f cells in matrices (want %.0f)", m[i].model, cells, m[i].cells);
    hs_scenario_free(&sc);
  }
}

int main(void) {
  /* published: ResNet-50 25.6M (He et al.; torchvision 25,557,032), VGG-16
   * 138M (torchvision 138,357,544), BERT-Large 340M
   * (Devlin et al.), GPT-2 XL 1542M (Radford et al. 2019, Table 2; "1.5B"),
   * ResNet-101 44.5M (torchvision: 44,549,160), Inception V3 with its
   * auxiliary head 27.16M (torchvision: 27,161,264).
   * Tensors: len(list(model.parameters())) of torchvision's resnet50 (53
   * convs with a batch-norm, 3 each, fc 2), vgg16 (16 layers x weight and
   * bias), resnet101 (104 x 3 + 2), inception_v3 with its auxiliary head
   * (96 BasicConv2d x 3, two fc x 2); Hugging Face's BertForPreTraining
   * without its next-sentence head (embeddings 5, 24 x 16, pooler 2, MLM
   * head 5) and GPT2LMHeadModel (2 + 48 x 12 + 2).
   * Since: torchvision's resnet18 (11,689,512; 20 convs x 3 + fc 2),
   * resnet152 (60,192,808; 155 x 3 + 2), vgg19 (143,667,240; 19 x 2),
   * alexnet (61,100,840; 8 x 2), vit_b_16 (86,567,656: conv_proj 2,
   * class token, position embedding, 12 layers x 12, final norm 2, head
   * 2) and vit_l_16 (304,326,632; 24 layers); the CIFAR ResNet-18 of
   * kuangliu/pytorch-cifar (resnet18 less the 7x7 stem's and the 1000-way
   * head's difference: 11,173,962) and He et
   * al.'s ResNet-20 (0.27M, Table 6; 19 convs x 3 + fc 2, option-A
   * shortcuts without parameters); BERT-Base 110M (Devlin et al.;
   * 5 + 12 x 16 + 2 + 5 tensors); GPT-2 small, medium and large counted
   * in full (openai/gpt-2's 124M, 355M, 774M; 2 + L x 12 + 2 tensors);
   * PowerSGD's LSTM (28,949,319 in the paper's table of its tasks: tied
   * embedding 1, 3 layers x 4, decoder bias 1).
   * Buffers: torchvision's batch-norms, 3 each (running_mean and
   * running_var, fp32 of the layer's channels, num_batches_tracked, int64):
   * the state_dict's entries that are not parameters, 159 of resnet50's
   * 320. Their bytes: 8 x the channels of all batch-norms + 8 each;
   * channels summed from the architectures (resnet50 26,560: 64 + 1,408 +
   * 3,584 + 10,240 + 11,264 by stage; resnet101 52,672, its third stage 23
   * blocks; inception_v3 18,112 over its 96 BasicConv2d; resnet18 and its
   * CIFAR form 4,800: 64 + 256 + 640 + 1,280 + 2,560; resnet152 75,712:
   * 64 + 1,408 + 6,656 + 56,320 + 11,264; resnet20 688: 16 + 6 x (16 + 32
   * + 64)). VGG and AlexNet have no batch-norm; the transformers' buffers (position ids, attention masks)
   * vary with the library's version and are not counted. */
  const struct {
    const char *model;
    const char *options; /* the workload's model_options, or NULL */
    double params;
    double fwd_lo, fwd_hi;
    int tensors, buffers;
    double buffer_bytes;
    int int64_buffers; /* one num_batches_tracked a batch-norm */
  } m[] = {
      {"resnet50", NULL, 25557032, 7.5e9, 8.5e9, 161, 159, 8 * 26560 + 53 * 8, 53},     /* 4.1 GMACs per 224x224 image */
      {"vgg16", NULL, 138357544, 30e9, 32e9, 32, 0, 0, 0},                              /* 15.5 GMACs */
      {"bert-large", NULL, 340e6, 80e9, 95e9, 396, 0, 0, 0},                        /* ~2 * params * 128 tokens + attention */
      {"gpt2-xl", NULL, 1542e6, 3.2e12, 3.8e12, 580, 0, 0, 0},                      /* ~2 * params * 1024 tokens + attention */
      {"resnet101", NULL, 44549160, 15.2e9, 15.8e9, 314, 312, 8 * 52672 + 104 * 8, 104}, /* 7.6 GMACs (He et al.); torchvision 7.80 */
      {"inception_v3", NULL, 27161264, 11.2e9, 11.6e9, 292, 288, 8 * 18112 + 96 * 8, 96}, /* 5.71 GMACs a 299x299 image */
      {"resnet18", NULL, 11689512, 3.5e9, 3.7e9, 62, 60, 8 * 4800 + 20 * 8, 20},        /* 1.81 GMACs */
      {"resnet152", NULL, 60192808, 22.5e9, 23.5e9, 467, 465, 8 * 75712 + 155 * 8, 155}, /* 11.51 GMACs */
      {"resnet18-cifar10", NULL, 11173962, 1.08e9, 1.14e9, 62, 60, 8 * 4800 + 20 * 8, 20}, /* 0.56 GMACs a 32x32 image */
      {"resnet20-cifar10", NULL, 0.27e6, 7.8e7, 8.4e7, 59, 57, 8 * 688 + 19 * 8, 19},     /* 41M MACs */
      {"vgg19", NULL, 143667240, 38.5e9, 40e9, 38, 0, 0, 0},                              /* 19.63 GMACs */
      {"alexnet", NULL, 61100840, 1.40e9, 1.46e9, 16, 0, 0, 0},                           /* 0.714 GMACs */
      {"bert-base", NULL, 110e6, 26e9, 31e9, 204, 0, 0, 0},       /* ~2 * params * 128 tokens + attention + MLM head */
      {"gpt2", NULL, 124439808, 2.8e11, 3.0e11, 148, 0, 0, 0},    /* ~2 * params * 1024 tokens + attention */
      {"gpt2-medium", NULL, 354823168, 8.0e11, 8.5e11, 292, 0, 0, 0},
      {"gpt2-large", NULL, 774030080, 1.72e12, 1.83e12, 436, 0, 0, 0},
      {"vit_b_16", NULL, 86567656, 34.5e9, 35.5e9, 152, 0, 0, 0}, /* 17.56 GMACs */
      {"vit_l_16", NULL, 304326632, 122e9, 124e9, 296, 0, 0, 0},  /* 61.55 GMACs */
      /* torchvision's resnet34: 36 convs, each with a batch-norm (64 + 384 +
       * 1,152 + 3,328 + 3,584 = 8,512 channels), 3.66 GMACs */
      {"resnet50", "depth = 34", 21797672, 7.2e9, 7.5e9, 110, 108, 8 * 8512 + 36 * 8, 36},
      /* torchvision's resnext50_32x4d and resnext101_32x8d: resnet50's and
       * resnet101's tensors and buffers, their bottlenecks' first two convs
       * 2 and 4 times as wide, the 3x3 grouped by 32 (batch-norm channels 64 + 1,792 + 4,608 + 13,312 +
       * 14,336 = 34,112 and 64 + 2,560 + 6,656 + 71,680 + 20,480 =
       * 101,440); 4.23 and 16.41 GMACs */
      {"resnext50_32x4d", NULL, 25028904, 8.3e9, 8.6e9, 161, 159, 8 * 34112 + 53 * 8, 53},
      {"resnext101_32x8d", NULL, 88791336, 32.4e9, 33.2e9, 314, 312, 8 * 101440 + 104 * 8, 104},
      {"lstm-wikitext2", NULL, 28949319, 1.70e9, 1.77e9, 14, 0, 0, 0}, /* 30 tokens x (3 layers + decoder) */
  };
  for (size_t i = 0; i < sizeof m / sizeof *m; i++) {
    char lua[512], name[96];
    snprintf(name, sizeof name, "%s%s%s", m[i].model, m[i].options ? " " : "", m[i].options ? m[i].options : "");
    snprintf(lua, sizeof lua,
             "cluster { nodes = 1, gpu = { flops = \"1TF\" }, inter = { bandwidth = \"1Gbps\" } }\n"
             "workload { model = \"%s\"%s%s%s }\nalgorithm { name = \"gradient_allreduce\" }\nrun { iterations = 1 }\n",
             m[i].model, m[i].options ? ", model_options = { " : "", m[i].options ? m[i].options : "",
             m[i].options ? " }" : "");
    hs_scenario sc;
    if (hs_test_load(lua, &sc)) {
      tap_ok(0, "%s loads", name);
      continue;
    }
    double p = 0, f = 0, buffer_bytes = 0;
    int tensors = 0, buffers = 0, int64_buffers = 0;
    for (int l = 0; l < sc.workload.n_layers; l++) {
      p += sc.workload.layers[l].params;
      f += sc.workload.layers[l].fwd_flops;
      tensors += sc.workload.layers[l].tensors;
      buffers += sc.workload.layers[l].buffers;
      buffer_bytes += sc.workload.layers[l].buffer_bytes;
      int64_buffers += sc.workload.layers[l].int64_buffers;
    }
    tap_ok(tensors == m[i].tensors, "%s: %d parameter tensors (want %d)", name, tensors, m[i].tensors);
    tap_ok(buffers == m[i].buffers && buffer_bytes == m[i].buffer_bytes && int64_buffers == m[i].int64_buffers,
           "%s: %d buffers of %.0f bytes, %d of them int64 (want %d, %.0f, %d)", name, buffers, buffer_bytes,
           int64_buffers, m[i].buffers, m[i].buffer_bytes, m[i].int64_buffers);
    /* a count given to the parameter (not a multiple of 10 000, as the
     * published round figures are) is the reference's: exact */
    if (fmod(m[i].params, 1e4) != 0)
      tap_ok(p == m[i].params, "%s: %.0f parameters, the reference's %.0f exactly", name, p, m[i].params);
    else
      tap_close(p, m[i].params, 0.02, name);
    tap_ok(f >= m[i].fwd_lo && f <= m[i].fwd_hi, "%s forward %.3g FLOPs per sample in [%.2g, %.2g]", name, f,
           m[i].fwd_lo, m[i].fwd_hi);
    hs_scenario_free(&sc);
  }
  /* A profile's own tensors: absent, one a layer with parameters (none
   * without); a fraction, none where there are parameters, or some where
   * there are none, refused. */
  const struct { const char *tensors, *free_layer; int ok, want; } t[] = {
      {"", "", 1, 2},
      {", tensors = 4", "", 1, 8},
      {", tensors = 2.5", "", 0, 0},
      {", tensors = 0", "", 0, 0},
      {", tensors = 1001", "", 0, 0},
      {"", ", tensors = 2", 0, 0},
  };
  for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
    char text[600];
    snprintf(text, sizeof text,
             "return { layers = { { name = 'a', params = 10, fwd_flops = 1%s },\n"
             "  { name = 'free', params = 0, fwd_flops = 1%s }, { name = 'b', params = 10, fwd_flops = 1%s } } }\n",
             t[i].tensors, t[i].free_layer, t[i].tensors);
    hs_scenario sc;
    int rc = load_profile("two.lua", text, &sc), n = 0;
    if (rc == 0) {
      for (int l = 0; l < sc.workload.n_layers; l++) n += sc.workload.layers[l].tensors;
      hs_scenario_free(&sc);
    }
    tap_ok(t[i].ok ? rc == 0 && n == t[i].want : rc != 0,
           "profile with layers {params = 10%s}, {params = 0%s}: %s (%d tensors)", t[i].tensors, t[i].free_layer,
           rc == 0 ? "loads" : "refused", n);
  }
  /* Buffers: a whole count with its bytes, both or neither. */
  const struct { const char *buffers; int ok; } b[] = {
      {", buffers = 3, buffer_bytes = 24", 1},   {", buffers = 3", 0},                   {", buffer_bytes = 24", 0},
      {", buffers = 1.5, buffer_bytes = 24", 0}, {", buffers = -1, buffer_bytes = 8", 0}, {", buffers = 2, buffer_bytes = -8", 0},
      {", buffers = 1, buffer_bytes = 12.5", 0},
      {", buffers = 3, buffer_bytes = 24, int64_buffers = 4", 0},
      {", buffers = 3, buffer_bytes = 12, int64_buffers = 2", 0},
      {", buffers = 3, buffer_bytes = 24, int64_buffers = 1", 1},
  };
  for (size_t i = 0; i < sizeof b / sizeof *b; i++) {
    char text[300];
    snprintf(text, sizeof text, "return { layers = { { name = 'bn', params = 10, fwd_flops = 1%s } } }\n", b[i].buffers);
    hs_scenario sc;
    int rc = load_profile("buffers.lua", text, &sc);
    int got = rc == 0 ? sc.workload.layers[0].buffers : -1;
    if (rc == 0) hs_scenario_free(&sc);
    tap_ok(b[i].ok ? rc == 0 && got == 3 : rc != 0, "a layer with%s: %s", b[i].buffers, rc == 0 ? "loads" : "refused");
  }
  /* Kernels a pass launches (each charged cluster.gpu.launch_overhead):
   * by default one forward where the layer computes, backward one for
   * its input's gradient and one for its parameters'; a profile's own
   * whole counts, at least one where the pass computes. */
  const struct { const char *layer; int ok, fwd, bwd; } k[] = {
      {"params = 10, fwd_flops = 1", 1, 1, 2},
      {"params = 0, fwd_flops = 1", 1, 1, 1},
      {"params = 10, fwd_flops = 0, bwd_flops = 0", 1, 0, 1},
      {"params = 10, fwd_flops = 1, kernels = 3, bwd_kernels = 4", 1, 3, 4},
      {"params = 10, fwd_flops = 1, kernels = 0", 0, 0, 0},
      {"params = 10, fwd_flops = 1, bwd_kernels = 0", 0, 0, 0},
      {"params = 10, fwd_flops = 1, kernels = 1.5", 0, 0, 0},
      {"params = 10, fwd_flops = 1, bwd_kernels = 1001", 0, 0, 0},
  };
  for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
    char text[300];
    snprintf(text, sizeof text, "return { layers = { { name = 'l', %s } } }\n", k[i].layer);
    hs_scenario sc;
    int rc = load_profile("kernels.lua", text, &sc), fwd = -1, bwd = -1;
    if (rc == 0) fwd = sc.workload.layers[0].fwd_kernels, bwd = sc.workload.layers[0].bwd_kernels, hs_scenario_free(&sc);
    tap_ok(k[i].ok ? rc == 0 && fwd == k[i].fwd && bwd == k[i].bwd : rc != 0, "a layer {%s}: %s (%d and %d kernels)",
           k[i].layer, rc == 0 ? "loads" : "refused", fwd, bwd);
  }
  /* Matrices (PowerSGD's view of the tensors of two or more dimensions):
   * absent (not given), a list of whole {rows, cols}, no more than the
   * layer's tensors, their cells within its params. */
  const struct { const char *layer; int ok, given, n; } mx[] = {
      {"params = 12, tensors = 2", 1, 0, 0},
      {"params = 12, tensors = 2, matrices = {}", 1, 1, 0},
      {"params = 12, tensors = 2, matrices = { { 2, 5 } }", 1, 1, 1},
      {"params = 12, tensors = 2, matrices = { { 2, 3 }, { 3, 2 } }", 1, 1, 2},
      {"params = 12, tensors = 2, matrices = { { 3, 5 } }", 0, 0, 0},
      {"params = 12, tensors = 1, matrices = { { 2, 3 }, { 3, 2 } }", 0, 0, 0},
      {"params = 12, tensors = 2, matrices = { { 2.5, 2 } }", 0, 0, 0},
      {"params = 12, tensors = 2, matrices = { { 0, 2 } }", 0, 0, 0},
      {"params = 12, tensors = 2, matrices = { { 2 } }", 0, 0, 0},
      {"params = 12, tensors = 2, matrices = { 2, 3 }", 0, 0, 0},
      {"params = 12, tensors = 2, matrices = 'x'", 0, 0, 0},
  };
  for (size_t i = 0; i < sizeof mx / sizeof *mx; i++) {
    char text[300];
    snprintf(text, sizeof text, "return { layers = { { name = 'l', fwd_flops = 1, %s } } }\n", mx[i].layer);
    hs_scenario sc;
    int rc = load_profile("matrices.lua", text, &sc), given = -1, n = -1;
    if (rc == 0) given = sc.workload.layers[0].matrices_given, n = sc.workload.layers[0].n_matrices, hs_scenario_free(&sc);
    tap_ok(mx[i].ok ? rc == 0 && given == mx[i].given && n == mx[i].n : rc != 0, "a layer {%s}: %s (%d matrices)",
           mx[i].layer, rc == 0 ? "loads" : "refused", n);
  }
  test_matrices();
  test_model_options();
  return tap_done(0);
}
