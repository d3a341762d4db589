/* outdir.h — an output folder that appears whole, or not at all.
 *
 * A run writes into a staging folder beside its target
 * (PARENT/.NAME.partial-PID) and the folder is put in place only when the
 * run succeeded: a failed, killed or crashed run leaves the target as it
 * was, old outputs included. Parent folders the run had to create are
 * removed again when it fails. */
#ifndef HS_OUTDIR_H
#define HS_OUTDIR_H

#define HS_OUTDIR_PATH_MAX 4096

typedef struct {
  char target[HS_OUTDIR_PATH_MAX];
  char stage[HS_OUTDIR_PATH_MAX + 64];
  /* Ancestors of the target this run created, deepest first. */
  char created[8][HS_OUTDIR_PATH_MAX];
  int n_created;
} hs_outdir;

/* Creates the staging folder (and the target's missing parents). 0, or -1
 * with errno set and a message in err. */
int hs_outdir_open(hs_outdir *o, const char *target, char *err, int errlen);
/* Puts the staging folder in place of the target (an existing target is
 * swapped out atomically, then removed). 0, or -1 with errno set. */
int hs_outdir_commit(hs_outdir *o);
/* Removes the staging folder and the parents hs_outdir_open created. */
void hs_outdir_discard(hs_outdir *o);

/* rm -rf path (no symbolic links followed); 0 or -1. */
int hs_remove_tree(const char *path);

#endif
