/* models_cmd.c — `hearsay models SCENARIO.lua`: the totals of the
 * scenario's timing profile, as the loader resolved it (options and
 * --set applied), beside what one GPU of the cluster would spend on its
 * FLOPs. Counts are exact: a user compares them with a framework's own
 * (e.g. torchvision's parameter count). */
#include "sim/models_cmd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* n with a comma every three digits (n a whole number below 1e18) */
static const char *grouped(double n, char *buf, size_t len) {
  char digits[32];
  snprintf(digits, sizeof digits, "%.0f", n);
  size_t d = strlen(digits), k = 0;
  for (size_t i = 0; i < d && k + 2 < len; i++) {
    if (i > 0 && (d - i) % 3 == 0) buf[k++] = ',';
    buf[k++] = digits[i];
  }
  buf[k] = '\0';
  return buf;
}

/* x with an SI prefix (k, M, G, T, P) and 3 significant digits */
static const char *si(double x, char *buf, size_t len) {
  static const char *prefix[] = {"", " k", " M", " G", " T", " P", " E"};
  int p = 0;
  /* rounded to 3 digits first, so 999.7 k reads 1 M, not 1e+03 k */
  while (fabs(strtod((snprintf(buf, len, "%.3g", x), buf), NULL)) >= 1000 && p < 6) x /= 1000, p++;
  snprintf(buf, len, "%.3g%s", x, prefix[p]);
  return buf;
}

static void options_line(const hs_workload_spec *w, FILE *out) {
  if (w->n_model_options == 0) {
    fputs("  options     none (the profile takes none)\n", out);
    return;
  }
  fputs("  options    ", out);
  for (int i = 0; i < w->n_model_options; i++) {
    const hs_model_option *o = &w->model_options[i];
    if (o->is_string) fprintf(out, "%s %s = \"%s\"", i ? "," : "", o->name, o->string);
    else fprintf(out, "%s %s = %.15g", i ? "," : "", o->name, o->number);
  }
  fputc('\n', out);
}

int hs_cmd_models(const hs_scenario *sc, FILE *out) {
  const hs_workload_spec *w = &sc->workload;
  char a[64], b[64], c[64];
  fprintf(out, "hearsay: %s's workload\n", sc->name);
  if (w->numeric) {
    /* softmax regression: a weight a class and feature, a bias a class */
    double params = (double)w->classes * (w->features + 1);
    fprintf(out, "  model       softmax (numeric: computed for real, not a timing profile)\n");
    fprintf(out, "  parameters  %s (%d classes x (%d features + 1))\n", grouped(params, a, sizeof a), w->classes,
            w->features);
    return 0;
  }
  double params = 0, fwd = 0, bwd = 0, buffer_bytes = 0;
  long tensors = 0, buffers = 0, fwd_kernels = 0, bwd_kernels = 0;
  for (int l = 0; l < w->n_layers; l++) {
    const hs_layer_spec *L = &w->layers[l];
    params += L->params;
    fwd += L->fwd_flops;
    bwd += L->bwd_flops;
    tensors += L->tensors;
    buffers += L->buffers;
    buffer_bytes += L->buffer_bytes;
    fwd_kernels += L->fwd_kernels;
    bwd_kernels += L->bwd_kernels;
  }
  fprintf(out, "  model       %s (timing profile: layers' FLOPs and bytes)\n", w->model);
  options_line(w, out);
  fprintf(out, "  layers      %d, with %ld parameter tensors, %ld kernels forward and %ld backward a micro-batch\n",
          w->n_layers, tensors, fwd_kernels, bwd_kernels);
  fprintf(out, "  parameters  %s; gradient %s%sB at %d bytes a parameter (workload.precision)\n",
          grouped(params, a, sizeof a), si(params * w->dtype_bytes, b, sizeof b),
          params * w->dtype_bytes < 1000 ? " " : "", w->dtype_bytes);
  fprintf(out, "  buffers     %ld (%s bytes: state that is not a parameter, e.g. batch-norm statistics)\n", buffers,
          grouped(buffer_bytes, c, sizeof c));
  fprintf(out, "  FLOPs       %s forward and %s backward a sample (a multiply-add counts 2)\n", si(fwd, a, sizeof a),
          si(bwd, b, sizeof b));
  double samples = (double)w->batch * w->accumulation_steps;
  double flops = (fwd + bwd) * samples, speed = sc->cluster.gpu_flops * sc->cluster.gpu_efficiency;
  fprintf(out, "  iteration   %sFLOP for %d x %d samples (batch x accumulation_steps)", si(flops, a, sizeof a),
          w->batch, w->accumulation_steps);
  if (speed > 0)
    fprintf(out, ": %.4g ms on one GPU at %sFLOP/s x %.3g (gpu.flops x gpu.efficiency), before launches and "
                 "memory-bound kernels\n",
            1e3 * flops / speed, si(sc->cluster.gpu_flops, b, sizeof b), sc->cluster.gpu_efficiency);
  else
    fputc('\n', out);
  return 0;
}
