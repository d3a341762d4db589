/* run.h — what `hearsay-real` does once MPI is up (real/main.c parses). */
#ifndef HS_REAL_RUN_H
#define HS_REAL_RUN_H

typedef struct {
  const char *scenario;
  const char *const *sets; /* "key.path=value" */
  int n_sets;
  const char *out_dir; /* NULL: out/NAME-real or out/NAME-emulated */
  int quiet;
} hs_real_options;

/* Collective over MPI_COMM_WORLD; every rank returns the same exit code. */
int hs_real_run(const hs_real_options *opt);

#endif
