/* nccl_legacy.c — NCCL 2.3's and 2.4's thresholds (nccl_legacy.h). Each
 * function follows the NCCL source it names, constant for constant, in
 * NCCL's integer and float arithmetic: a pick differs from NCCL's only
 * where the communicator's description (channels, nodes) does. */
#include "algos/comm/nccl_legacy.h"

#include <math.h>

/* src/include/core.h at v2.3.7-1, enqueue.h and devcomm.h at v2.4.8-1 */
enum {
  LL_MIN_NTHREADS = 64,          /* NCCL_LL_MIN_NTHREADS */
  LL_MAX_NTHREADS = 256,         /* min(NCCL_LL_MAX_NTHREADS = MAXTHREADS, comm->nThreads = getDefaultThreads()):
                                    256 both, Kepler's 128 aside */
  LL_CHANNEL_THRESHOLD = 8,      /* NCCL_LL_RING_THRESHOLD (2.3), NCCL_LL_CHANNEL_THRESHOLD (2.4) */
  THREAD_THRESHOLD = 64,         /* NCCL_THREAD_THRESHOLD: per-thread bytes before Simple, Volta on */
  THREAD_THRESHOLD_PREVOLTA = 32 /* NCCL_THREAD_THRESHOLD_PREVOLTA */
};

int hs_nccl_legacy(int version) { return version >= 203 && version < 205; }

static long long divup(long long a, long long b) { return (a + b - 1) / b; }

/* ncclThreadThreshold (init.cu at v2.3.7-1, init.cc at v2.4.8-1): by the
 * lowest compute capability (Pascal is 6.x), doubled across nodes. */
static long long thread_threshold(const hs_nccl_topo *t) {
  long long th = t->arch == HS_GPU_PASCAL ? THREAD_THRESHOLD_PREVOLTA : THREAD_THRESHOLD;
  return t->nodes > 1 ? 2 * th : th;
}

/* The per-thread bytes while channels are added: the lesser of that and
 * LL_CHANNEL_THRESHOLD (both versions' std::min). */
static long long per_thread_ll(long long thread_th) {
  return thread_th < LL_CHANNEL_THRESHOLD ? thread_th : LL_CHANNEL_THRESHOLD;
}

static long long channels_of(const hs_nccl_topo *t) { return t->channels > 0 ? t->channels : 1; }

/* ncclGetCollResource (common_coll.h at v2.3.7-1), NCCL_LL_THRESHOLD unset:
 * the fewest threads, then rings, at which the bytes fit LL. */
static int ll_23(const hs_nccl_topo *t, long long nbytes) {
  long long nranks = t->ranks, nrings = channels_of(t), thread_th = thread_threshold(t);
  long long max_rings = nranks <= 4 ? 1 : LL_MAX_NTHREADS / LL_MIN_NTHREADS, threshold = per_thread_ll(thread_th);
  long long nt = LL_MIN_NTHREADS, nr;
  int ll = 0;
  while (nt < LL_MAX_NTHREADS && !ll) {
    nr = divup(nbytes, LL_CHANNEL_THRESHOLD * nt * nranks);
    if (nr <= max_rings) {
      nr = nr == 0 ? 1 : nr > nrings ? nrings : nr;
      ll = nbytes > nranks * nr * nt * threshold ? 0 : 1;
    }
    if (!ll) nt <<= 1;
  }
  if (ll) return 1;
  nr = divup(nbytes, LL_CHANNEL_THRESHOLD * LL_MAX_NTHREADS * nranks);
  nr = nr == 0 ? 1 : nr > nrings ? nrings : nr;
  return nbytes > nranks * nr * LL_MAX_NTHREADS * thread_th ? 0 : 1;
}

/* getKernelInfo (enqueue.cc at v2.4.8-1), NCCL_LL_THRESHOLD unset:
 * chunks is the pattern's nchunksPerLoop (the ranks for the ring's
 * patterns, 1 for the tree's and the pipelines'); a tree's per-thread
 * threshold is four times the ring's. */
static int ll_24(const hs_nccl_topo *t, long long nbytes, long long chunks, int tree) {
  long long thread_th = thread_threshold(t), per_thread_chan = per_thread_ll(thread_th);
  long long nt = LL_MIN_NTHREADS;
  while (divup(nbytes, nt * chunks) > per_thread_chan && nt * 2 <= LL_MAX_NTHREADS) nt *= 2;
  long long nc = divup(nbytes, nt * chunks * per_thread_chan);
  if (nc == 0) nc = 1;
  if (nc > channels_of(t)) nc = channels_of(t);
  long long per_thread = tree ? 4 * thread_th : thread_th;
  return nbytes <= nc * nt * chunks * per_thread;
}

/* ncclTreeThreshold (init.cc at v2.4.8-1; the same in 2.4.2's init.cu):
 * NCCL's own rough rates, 5000 B/us a ring channel over NVLink and 5000
 * in all over PCI, 6 us a ring hop, 15 us a tree level across nodes and 4
 * a hop inside one; nnodes is its nMasters. */
long long hs_nccl24_tree_threshold(const hs_nccl_topo *t) {
  int nnodes = t->nodes > 0 ? t->nodes : 1, nranks = t->ranks, nvlink = t->nvlink;
  float ringbw = nvlink ? 5000 * (int)channels_of(t) : 5000;
  float ringlatinter = 6, treelatintra = 4, treelatinter = 15, treebw;
  if (!nvlink) {
    treebw = ringbw * 2 / 3;
  } else {
    treebw = ringbw * 3 / 4;
    if (nnodes == 2) treebw *= 2;
  }
  float ringlat = ringlatinter * (nranks - 1);
  float treelat = treelatinter * log2(nnodes) + treelatintra * (nranks / nnodes - 1);
  if (nnodes < 2 || ringlat <= treelat) return 0;
  if (treebw > ringbw) return HS_NCCL_TREE_ALWAYS;
  return (long long)((ringbw * treebw / (ringbw - treebw)) * (ringlat - treelat));
}

int hs_nccl_legacy_pick(int version, const hs_nccl_topo *t, hs_op_kind k, double bytes, int may_ring, int may_tree,
                        int *tree, int *ll) {
  if (!hs_nccl_legacy(version)) return 0;
  if (k != HS_OP_ALLREDUCE && k != HS_OP_REDUCE_SCATTER && k != HS_OP_ALLGATHER && k != HS_OP_BROADCAST &&
      k != HS_OP_REDUCE)
    return 0;
  /* only an allreduce has a tree; a schedule forced that is neither
   * NCCL's ring nor its tree leaves the pick to the caller */
  if (k != HS_OP_ALLREDUCE) may_tree = 0;
  if (!may_ring && !may_tree) return 0;
  long long nbytes = (long long)bytes;
  /* getPatternInfo (2.4): the tree for an allreduce up to treeThreshold,
   * the ring twice above it; rings for allgather and reduce-scatter, the
   * pipelines for broadcast and reduce. 2.3 has rings only. */
  int want_tree = version >= 204 && k == HS_OP_ALLREDUCE && nbytes <= hs_nccl24_tree_threshold(t);
  *tree = may_tree && (want_tree || !may_ring);
  if (version < 204) {
    *ll = ll_23(t, nbytes);
    return 1;
  }
  long long chunks = *tree || k == HS_OP_BROADCAST || k == HS_OP_REDUCE ? 1 : t->ranks;
  *ll = ll_24(t, nbytes, chunks > 0 ? chunks : 1, *tree);
  return 1;
}
