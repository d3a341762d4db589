/* outdir.c — staged output folders (outdir.h). */
#define _GNU_SOURCE /* renameat2 */
#include "algos/report/outdir.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  return flag == FTW_DP ? rmdir(path) : unlink(path);
}

int hs_remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
  return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Creates the missing ancestors of path, remembering them (deepest first). */
static int make_parents(hs_outdir *o, const char *path) {
  char buf[HS_OUTDIR_PATH_MAX];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0777) == 0) {
      if (o->n_created < 8) snprintf(o->created[o->n_created++], sizeof o->created[0], "%s", buf);
    } else if (errno != EEXIST) {
      return -1;
    }
    *p = '/';
  }
  /* Deepest first, so discarding can rmdir them in order. */
  for (int i = 0, j = o->n_created - 1; i < j; i++, j--) {
    char tmp[HS_OUTDIR_PATH_MAX];
    memcpy(tmp, o->created[i], sizeof tmp);
    memcpy(o->created[i], o->created[j], sizeof tmp);
    memcpy(o->created[j], tmp, sizeof tmp);
  }
  return 0;
}

/* Staging folders of earlier runs that were killed outright (SIGKILL, a
 * power cut) have no one left to remove them: the next run does, when the
 * process named in the folder's name is gone. */
static void remove_orphans(const char *parent, const char *base) {
  DIR *d = opendir(parent[0] ? parent : ".");
  if (!d) return;
  char prefix[HS_OUTDIR_PATH_MAX + 16];
  snprintf(prefix, sizeof prefix, ".%s.partial-", base);
  size_t n = strlen(prefix);
  for (struct dirent *e; (e = readdir(d));) {
    if (strncmp(e->d_name, prefix, n) != 0) continue;
    char *end;
    long pid = strtol(e->d_name + n, &end, 10);
    if (pid <= 0 || (*end && strcmp(end, ".old") != 0)) continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
    char path[HS_OUTDIR_PATH_MAX * 2];
    snprintf(path, sizeof path, "%s%s", parent, e->d_name);
    hs_remove_tree(path);
  }
  closedir(d);
}

int hs_outdir_open(hs_outdir *o, const char *target, char *err, int errlen) {
  memset(o, 0, sizeof *o);
  size_t len = strlen(target);
  while (len > 1 && target[len - 1] == '/') len--;
  if (len == 0 || len >= sizeof o->target - 1) {
    errno = ENAMETOOLONG;
    snprintf(err, errlen, "%s: the output folder's name is empty or too long", target);
    return -1;
  }
  snprintf(o->target, sizeof o->target, "%.*s", (int)len, target);
  const char *slash = strrchr(o->target, '/');
  const char *base = slash ? slash + 1 : o->target;
  if (!strcmp(base, ".") || !strcmp(base, "..")) {
    errno = EINVAL;
    snprintf(err, errlen, "%s: name the output folder itself, not . or ..", target);
    return -1;
  }
  snprintf(o->stage, sizeof o->stage, "%.*s.%s.partial-%ld", slash ? (int)(slash - o->target + 1) : 0, o->target,
           base, (long)getpid());
  struct stat st;
  if (stat(o->target, &st) == 0 && !S_ISDIR(st.st_mode)) {
    errno = ENOTDIR;
    snprintf(err, errlen, "%s exists and is not a folder", o->target);
    return -1;
  }
  int rc = make_parents(o, o->target);
  if (rc == 0) {
    char parent[HS_OUTDIR_PATH_MAX];
    snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash - o->target + 1) : 0, o->target);
    remove_orphans(parent, base);
  }
  if (rc || (hs_remove_tree(o->stage), mkdir(o->stage, 0777))) {
    int e = errno;
    snprintf(err, errlen, "cannot create the output folder %s: %s", o->target, strerror(e));
    hs_outdir_discard(o);
    errno = e;
    return -1;
  }
  return 0;
}

int hs_outdir_commit(hs_outdir *o) {
  if (rename(o->stage, o->target) == 0) return 0;
  if (errno != EEXIST && errno != ENOTEMPTY) return -1;
  /* An earlier run's folder: swap the two in one step, so the target is
   * never missing nor half old and half new, then remove the old one. */
  if (renameat2(AT_FDCWD, o->stage, AT_FDCWD, o->target, RENAME_EXCHANGE) == 0) return hs_remove_tree(o->stage);
  if (errno != EINVAL && errno != ENOSYS) return -1;
  /* A file system without RENAME_EXCHANGE: move the old one aside first. */
  char old[sizeof o->stage + 8];
  snprintf(old, sizeof old, "%s.old", o->stage);
  if (rename(o->target, old)) return -1;
  if (rename(o->stage, o->target)) {
    int e = errno;
    rename(old, o->target);
    errno = e;
    return -1;
  }
  return hs_remove_tree(old);
}

void hs_outdir_discard(hs_outdir *o) {
  if (o->stage[0]) hs_remove_tree(o->stage);
  for (int i = 0; i < o->n_created; i++) rmdir(o->created[i]);
  o->n_created = 0;
}
