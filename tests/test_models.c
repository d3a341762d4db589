/* test_models.c — each timing profile's parameter total matches the
 * published count within 2% (the bound; published figures are
 * rounded), and its FLOPs are plausible. */
#include <stdio.h>

#include "tests/harness.h"
#include "tests/tap.h"

int main(void) {
  /* published: ResNet-50 25.6M (He et al.), VGG-16 138M, BERT-Large 340M
   * (Devlin et al.), GPT-2 XL 1542M (Radford et al. 2019, Table 2; "1.5B"),
   * ResNet-101 44.5M (torchvision: 44,549,160), Inception V3 with its
   * auxiliary head 27.16M (torchvision: 27,161,264). */
  const struct { const char *model; double params; double fwd_lo, fwd_hi; } m[] = {
      {"resnet50", 25.6e6, 7.5e9, 8.5e9},  /* 4.1 GMACs per 224x224 image */
      {"vgg16", 138e6, 30e9, 32e9},        /* 15.5 GMACs */
      {"bert-large", 340e6, 80e9, 95e9},   /* ~2 * params * 128 tokens + attention */
      {"gpt2-xl", 1542e6, 3.2e12, 3.8e12}, /* ~2 * params * 1024 tokens + attention */
      {"resnet101", 44.5e6, 15.2e9, 15.8e9},  /* 7.6 GMACs (He et al., Table 1); torchvision 7.80 */
      {"inception_v3", 27.16e6, 11.2e9, 11.6e9}, /* 5.71 GMACs a 299x299 image (torchvision) */
  };
  for (size_t i = 0; i < sizeof m / sizeof *m; i++) {
    char lua[512];
    snprintf(lua, sizeof lua,
             "cluster { nodes = 1, gpu = { flops = \"1TF\" }, inter = { bandwidth = \"1Gbps\" } }\n"
             "workload { model = \"%s\" }\nalgorithm { name = \"gradient_allreduce\" }\nrun { iterations = 1 }\n",
             m[i].model);
    hs_scenario sc;
    if (hs_test_load(lua, &sc)) {
      tap_ok(0, "%s loads", m[i].model);
      continue;
    }
    double p = 0, f = 0;
    for (int l = 0; l < sc.workload.n_layers; l++) {
      p += sc.workload.layers[l].params;
      f += sc.workload.layers[l].fwd_flops;
    }
    tap_close(p, m[i].params, 0.02, m[i].model);
    tap_ok(f >= m[i].fwd_lo && f <= m[i].fwd_hi, "%s forward %.3g FLOPs per sample in [%.2g, %.2g]", m[i].model, f,
           m[i].fwd_lo, m[i].fwd_hi);
    hs_scenario_free(&sc);
  }
  return tap_done(0);
}
