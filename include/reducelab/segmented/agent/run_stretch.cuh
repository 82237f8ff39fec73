// One warp of reduce_by_key's stream path (kernels/stream_runs.cuh): it streams one contiguous stretch of keys and
// values, 32 x Items items a chunk (Items consecutive items a lane, 4 or 8, read as 16-byte vectors of keys and of
// values), Chunks chunks loaded before any is used, and hands out each run's key at its head and each run's value
// where the run closes.
//
// Why a warp and a stretch rather than the one-pass kernel's tiles (kernels/reduce_runs.cuh): a chunk in which no run
// starts costs one combine a lane, and the runs' positions need one look-back per block-wide stretch, not one per tile
// with a block scan before it. On the H200 (scripts/harness/by_key_stream_proxy.cu, 2^26 int32 keys and values, plus)
// a resident grid of such warps read runs of 256 at 81-85 % of peak where the one-pass kernel reads them at 48 %; at
// runs of one the chunks are all heads and the one-pass kernel is two to four times faster, which is why the kernel
// probes the keys first (block/run_density.cuh) and leaves dense keys to it.
//
// For a commutative functor a lane adds its items of chunk after chunk into its own accumulator, and the lanes'
// accumulators are joined only when a run closes, so the items of a run are not joined in input order. A functor that
// is not commutative joins each chunk without heads onto the run in lane order as it comes (a warp reduction a chunk):
// every other step of the walk already joins pieces in input order.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/warp/shuffle.cuh"
#include "reducelab/warp/warp_reduce.cuh"

#include <cuda/std/type_traits>

namespace reducelab::segmented::agent {

/// A warp's chunk: 32 lanes x Items consecutive items.
template <int Items>
inline constexpr int run_chunk_items = 32 * Items;

/// A lane's Items consecutive items, aligned to 4 of them so that they load as 16-byte vectors (Items / 4 of them for
/// 4-byte items, twice that for 8-byte ones).
template <class T, int Items>
struct alignas(4 * sizeof(T)) run_items {
  T x[Items];
};

/// Whether a key and a value type fit the path: 4- or 8-byte items (4 of them are one or two 16-byte vectors).
template <class KeyT, class T>
inline constexpr bool run_stretch_types = (sizeof(KeyT) == 4 || sizeof(KeyT) == 8) &&
                                          (sizeof(T) == 4 || sizeof(T) == 8) && alignof(KeyT) <= sizeof(KeyT) &&
                                          alignof(T) <= sizeof(T);

/// What a warp leaves besides the runs it handed out (the same in every lane).
template <class KeyT, class T>
struct run_stretch_pieces {
  int heads;      // runs that start in the stretch
  T leading;      // the stretch's items before its first head (all of them when it has none)
  T trailing;     // its items from its last head on (all of them when it has none)
  KeyT last_key;  // the key of its last item
};

/// Which steps of the lanes' segmented scan in stream_run_stretch have work, read off the warp's ballot of the lanes
/// that hold a head. Before the step with offset d, bit l of `open` is set where lanes (l - d, l] all exist and hold no
/// head: lane l's piece is not closed, and the piece of the d lanes before it joins in front. Each step narrows it, and
/// the scan ends at the first step where no lane d or above would join (none would at a later one either): the longest
/// gap between heads sets its depth, so a chunk with a head in every lane takes no step and one with a head every 4
/// lanes takes two. It depends on the ballot alone, so every lane leaves at the same step. Host and device: the CPU
/// tests run the scan with it (tests/test_segmented_partition.cu).
namespace lane_head_gaps {
/// `open` before the first step (offset 1).
__host__ __device__ __forceinline__ constexpr unsigned open_lanes(unsigned lanes_with_heads) {
  return ~lanes_with_heads;
}
/// Whether no lane joins at offset d: the scan is done.
__host__ __device__ __forceinline__ constexpr bool done(unsigned open, int d) { return (open & (~0u << d)) == 0; }
/// Whether `lane` joins the piece of the d lanes before it in front of its own.
__host__ __device__ __forceinline__ constexpr bool joins(unsigned open, int lane, int d) {
  return lane >= d && ((open >> lane) & 1u) != 0;
}
/// `open` after the step with offset d: lane l's piece then spans lanes (l - 2d, l].
__host__ __device__ __forceinline__ constexpr unsigned after_step(unsigned open, int d) { return open & (open << d); }
}  // namespace lane_head_gaps

/// Streams [begin, end) (begin < end <= n, begin a multiple of a chunk from an aligned start) and, for the h-th head
/// of the stretch, calls emit.key(h, key at it) and, when h > 0, emit.value(h - 1, the run that head closes): the run
/// its (h - 1)-th head started. The run closed by head 0 (it began before the stretch) is the leading piece; the run
/// in progress at the end, the trailing one. Every lane of the warp calls it together.
template <int Chunks, int Items, class KeyT, class T, class OpT, class EqualT, class EmitT>
__device__ __forceinline__ run_stretch_pieces<KeyT, T> stream_run_stretch(const KeyT* __restrict__ keys,
                                                                         const T* __restrict__ values, long long begin,
                                                                         long long end, OpT op, EqualT equal,
                                                                         EmitT& emit) {
  static_assert(Items == 4 || Items == 8, "reducelab: the stream path's lanes take 4 or 8 items");
  namespace rw = ::reducelab::warp;
  constexpr int chunk_items = run_chunk_items<Items>;
  const int lane = static_cast<int>(threadIdx.x) % rw::threads_per_warp;
  const T id = identity_of<OpT, T>();
  // The key before the stretch; item 0 of the input always starts a run.
  const bool starts_input = begin == 0;
  KeyT carry_key = keys[starts_input ? 0 : begin - 1];
  const KeyT end_key = keys[end - 1];  // fills a partial last chunk: its fill starts no run
  T run = id;       // the run in progress up to the last chunk with a head (the same in every lane)
  T lane_acc = id;  // this lane's items since then
  bool folds = false;  // whether a chunk without heads added to lane_acc since then (the same in every lane)
  T leading = id;
  int heads_seen = 0;

  // One chunk: k and v hold this lane's Items items; `avail` items of the chunk are real (Guarded: the rest are fill).
  auto chunk = [&](const KeyT (&k)[Items], const T (&v)[Items], bool guarded, long long avail, bool first_of_input) {
    KeyT before = rw::shfl_idx(k[Items - 1], lane > 0 ? lane - 1 : 0);
    if (lane == 0) before = carry_key;
    carry_key = rw::shfl_idx(k[Items - 1], rw::threads_per_warp - 1);
    bool h[Items];
    h[0] = !equal(before, k[0]) || (first_of_input && lane == 0);
#pragma unroll
    for (int j = 1; j < Items; ++j) h[j] = !equal(k[j - 1], k[j]);
    if (guarded) {
#pragma unroll
      for (int j = 0; j < Items; ++j) h[j] = h[j] && lane * Items + j < avail;
    }
    bool any = h[0] || h[1] || h[2] || h[3];
    if constexpr (Items == 8) any = any || h[4] || h[5] || h[6] || h[7];
    const unsigned with_heads = __ballot_sync(rw::full_mask, any);
    if (with_heads == 0) {  // most chunks of long runs
      T items = op(op(v[0], v[1]), op(v[2], v[3]));
      if constexpr (Items == 8) items = op(items, op(op(v[4], v[5]), op(v[6], v[7])));
      if constexpr (is_commutative_v<OpT>) {
        lane_acc = op(lane_acc, items);
        folds = true;
      } else {
        run = op(run, rw::shfl_idx(rw::reduce_in_lane_order(items, op), 0));
      }
      return;
    }
    // The run in progress when the chunk starts: `run` and every lane's accumulator. The accumulators are folded only
    // when a chunk without heads filled them: at runs of 8-32 nearly every chunk has heads, and the fold (5 shuffles
    // and 6 combines a lane) would join identities. Same run on the H100 (stop 62, by-key-fold-skip.txt): maximum
    // over floats 1.02-1.04x at runs of 8-32 and 1..64, plus over int32 and double 0.99-1.01x.
    T in = run;
    if (folds) {
      T all = lane_acc;
#pragma unroll
      for (int d = rw::threads_per_warp / 2; d > 0; d /= 2) all = op(all, rw::shfl_xor(all, d));
      in = op(run, all);
      lane_acc = id;
      folds = false;
    }
    // This lane's items before its first head (lead) and from its last head (tail), and its first head's key.
    T lead = id, tail = id;
    KeyT first_key = k[0];
    bool started = false;
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      if (h[j]) {
        if (!started) first_key = k[j];
        started = true;
        tail = id;
      }
      if (started) tail = op(tail, v[j]);
      else lead = op(lead, v[j]);
    }
    // The run in progress where each lane starts: a segmented scan of the lanes' pieces, then one lane up. Whether a
    // lane's window of lanes holds a head is read off the chunk's ballot instead of being shuffled along with the
    // values, and the heads before each lane are counted from ballots of its head count's bits (three for 4 items a
    // lane, four for 8): per chunk with heads, 13 shuffle calls fewer than a flagged scan and a shuffled count scan.
    const unsigned lanes_before = (1u << lane) - 1u;
    T x = any ? tail : lead;
    // Only the steps that have work (lane_head_gaps): none at runs of Items, two at runs of 4 x Items. Same run on the
    // H100 (stop 79, results/NVIDIA_H100_80GB_HBM3-segmented/by-key-gap-scan.txt): maximum over doubles 1.03x at 2^26,
    // the rest 0.996-1.02x.
    unsigned open = lane_head_gaps::open_lanes(with_heads);
#pragma unroll
    for (int d = 1; d < rw::threads_per_warp; d *= 2) {
      if (lane_head_gaps::done(open, d)) break;
      const T earlier = rw::shfl_idx(x, lane >= d ? lane - d : lane);
      if (lane_head_gaps::joins(open, lane, d)) x = op(earlier, x);
      open = lane_head_gaps::after_step(open, d);
    }
    T before_lane = rw::shfl_idx(x, lane > 0 ? lane - 1 : 0);
    const bool before_closed = (with_heads & lanes_before) != 0;
    if (lane == 0) before_lane = id;
    const T entering = before_closed ? before_lane : op(in, before_lane);
    // The stretch's index of this lane's first head: heads in earlier chunks, then in earlier lanes.
    int lane_heads = static_cast<int>(h[0]) + h[1] + h[2] + h[3];
    if constexpr (Items == 8) lane_heads += static_cast<int>(h[4]) + h[5] + h[6] + h[7];
    // Where no lane holds two heads (every chunk of runs of Items or longer), the lanes with a head are the heads, in
    // order, and each closes the run in progress with its lead: no per-item walk and no count ballots. Same run
    // against the walk alone (H100, stop 73, results/NVIDIA_H100_80GB_HBM3-segmented/by-key-one-head.txt): 1.00-1.03x
    // for plus, maximum and affine maps at runs of 8 to 256 and 1..64, 16 % fewer instructions at runs of 8.
    if (__ballot_sync(rw::full_mask, lane_heads > 1) == 0) {
      if (any) {
        const int index = heads_seen + __popc(with_heads & lanes_before);
        const T closed_run = op(entering, lead);
        if (index == 0) {
          leading = closed_run;
        } else {
          emit.value(index - 1, closed_run);
        }
        emit.key(index, first_key);
      }
      if (heads_seen == 0) leading = rw::shfl_idx(leading, __ffs(static_cast<int>(with_heads)) - 1);
      heads_seen += __popc(with_heads);
      run = rw::shfl_idx(x, rw::threads_per_warp - 1);  // closed: the chunk holds a head
      return;
    }
    const unsigned bit0 = __ballot_sync(rw::full_mask, (lane_heads & 1) != 0);
    const unsigned bit1 = __ballot_sync(rw::full_mask, (lane_heads & 2) != 0);
    const unsigned bit2 = __ballot_sync(rw::full_mask, (lane_heads & 4) != 0);
    int at = __popc(bit0 & lanes_before) + 2 * __popc(bit1 & lanes_before) + 4 * __popc(bit2 & lanes_before);
    int chunk_heads = __popc(bit0) + 2 * __popc(bit1) + 4 * __popc(bit2);
    if constexpr (Items == 8) {  // up to 8 heads a lane: a fourth bit
      const unsigned bit3 = __ballot_sync(rw::full_mask, (lane_heads & 8) != 0);
      at += 8 * __popc(bit3 & lanes_before);
      chunk_heads += 8 * __popc(bit3);
    }
    if (any) {
      int index = heads_seen + at;
      T acc = entering;
#pragma unroll
      for (int j = 0; j < Items; ++j) {
        if (h[j]) {
          if (index == 0) {
            leading = acc;
          } else {
            emit.value(index - 1, acc);
          }
          emit.key(index, k[j]);
          ++index;
          acc = id;
        }
        acc = op(acc, v[j]);
      }
    }
    if (heads_seen == 0) leading = rw::shfl_idx(leading, __ffs(static_cast<int>(with_heads)) - 1);
    heads_seen += chunk_heads;
    run = rw::shfl_idx(x, rw::threads_per_warp - 1);  // closed: the chunk holds a head
  };

  long long base = begin;
  bool first_of_input = starts_input;
  // Whole groups of Chunks chunks: every load issued before any is used.
  for (; base + static_cast<long long>(chunk_items) * Chunks <= end; base += chunk_items * Chunks) {
    run_items<KeyT, Items> kq[Chunks];
    run_items<T, Items> vq[Chunks];
#pragma unroll
    for (int c = 0; c < Chunks; ++c) {
      const long long at = base + c * chunk_items + lane * Items;
      kq[c] = *reinterpret_cast<const run_items<KeyT, Items>*>(keys + at);
      vq[c] = *reinterpret_cast<const run_items<T, Items>*>(values + at);
    }
#pragma unroll
    for (int c = 0; c < Chunks; ++c) {
      chunk(kq[c].x, vq[c].x, false, chunk_items, first_of_input && c == 0);
    }
    first_of_input = false;
  }
  // The rest, a chunk at a time, item by item past the end (the stretch's last chunk may be partial).
  for (; base < end; base += chunk_items) {
    KeyT k[Items];
    T v[Items];
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const long long at = base + lane * Items + j;
      k[j] = at < end ? keys[at] : end_key;
      v[j] = at < end ? values[at] : id;
    }
    chunk(k, v, true, end - base, first_of_input);
    first_of_input = false;
  }
  T trailing = run;
  if constexpr (is_commutative_v<OpT>) {  // lane_acc is unused otherwise
    T total = lane_acc;
#pragma unroll
    for (int d = rw::threads_per_warp / 2; d > 0; d /= 2) total = op(total, rw::shfl_xor(total, d));
    trailing = op(run, total);
  }
  return {heads_seen, heads_seen > 0 ? leading : trailing, trailing, carry_key};
}

}  // namespace reducelab::segmented::agent
