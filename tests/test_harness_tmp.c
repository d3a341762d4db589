/* test_harness_tmp.c — a test program leaves no temporary files behind
 * (tests/harness.c, docs/development.md):
 *
 *  - every folder hs_test_tmpdir made, in the program itself and in the
 *    children hs_test_in_child forked, is gone once the program exited;
 *  - a forked child that ends with exit() rather than _exit() does not
 *    remove the folders of the program that forked it (they still exist
 *    after it ended);
 *  - with HS_KEEP_TMP=1 they are all kept, the program says where (and
 *    this test removes them).
 *
 * It runs itself as the program under test (argv[0] --make), which prints
 * the folders it made. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/harness.h"
#include "tests/tap.h"

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static void touch(const char *dir, const char *name) {
  char path[700];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (f) fputs("x\n", f), fclose(f);
}

static void in_child(void *arg, FILE *report) {
  (void)arg;
  const char *d = hs_test_tmpdir();
  touch(d, "child.txt");
  printf("dir %s\n", d);
  fflush(stdout);
  hs_report(report, 1, "child made %s", d);
}

/* The program under test: folders in the parent and in a child, and a
 * child that calls exit(). */
static int make(void) {
  char mine[512];
  snprintf(mine, sizeof mine, "%s", hs_test_tmpdir());
  touch(mine, "parent.txt");
  printf("dir %s\n", mine);
  hs_test_in_child("harness child", in_child, NULL, 30);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    hs_test_tmpdir();
    exit(0); /* runs the atexit handlers inherited from the parent */
  }
  waitpid(pid, NULL, 0);
  printf("alive %d\n", exists(mine));
  return tap_done(0);
}

typedef struct {
  char dirs[8][1024];
  int n, alive;
  int noted; /* printed where HS_KEEP_TMP kept them */
} made;

static int run_make(const char *self, made *m) {
  char cmd[1024], line[1024];
  snprintf(cmd, sizeof cmd, "%s --make 2>&1", self);
  memset(m, 0, sizeof *m);
  m->alive = -1;
  fflush(stdout);
  FILE *p = popen(cmd, "r");
  while (p && fgets(line, sizeof line, p)) {
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "dir ", 4) == 0 && m->n < 8) snprintf(m->dirs[m->n++], sizeof m->dirs[0], "%s", line + 4);
    if (strncmp(line, "alive ", 6) == 0) m->alive = atoi(line + 6);
    if (strstr(line, "HS_KEEP_TMP: this test's temporary files are kept in ")) m->noted = 1;
  }
  return p ? pclose(p) : -1;
}

/* Removes a kept folder and, when it is one, the hearsay-test-* folder
 * holding it; nothing else. */
static void remove_kept(const char *dir) {
  char copy[1024], cmd[1200];
  snprintf(copy, sizeof copy, "%s", dir);
  const char *parent = dirname(copy);
  const char *base = strrchr(parent, '/');
  const char *target = base && strncmp(base + 1, "hearsay-test-", 13) == 0 ? parent : dir;
  if (!strstr(target, "hearsay-test-")) return;
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", target);
  if (system(cmd) != 0) tap_diag("could not remove %s", target);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--make") == 0) return make();
  unsetenv("HS_KEEP_TMP");
  made m;
  int rc = run_make(argv[0], &m);
  tap_ok(rc == 0 && m.n == 2, "the program ran and made %d folders (one of its own, one in a child)", m.n);
  tap_ok(m.alive == 1, "a child ending with exit() left the program's folders in place");
  int left = 0;
  for (int i = 0; i < m.n; i++)
    if (exists(m.dirs[i])) left++, tap_diag("left behind: %s", m.dirs[i]);
  tap_ok(m.n > 0 && left == 0, "after it exited, none of its %d folders is left", m.n);
  for (int i = 0; i < m.n; i++) remove_kept(m.dirs[i]); /* before the fix they were all left */

  setenv("HS_KEEP_TMP", "1", 1);
  rc = run_make(argv[0], &m);
  int kept = 0;
  for (int i = 0; i < m.n; i++) kept += exists(m.dirs[i]);
  tap_ok(rc == 0 && m.n == 2 && kept == m.n && m.noted, "HS_KEEP_TMP=1 keeps them (%d of %d) and says where", kept,
         m.n);
  for (int i = 0; i < m.n; i++) remove_kept(m.dirs[i]);
  return tap_done(0);
}
