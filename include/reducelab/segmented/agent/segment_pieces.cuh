// One block's stretch of the merge path taken segment by segment: the walk for stretches whose segments are long on
// average (the kernel picks it when the stretch averages at least pieces_min_average elements per segment).
//
// Why a second walk: the tile walk (merge_path_block.cuh) pays for the merge at every step (stage, search, branch,
// block scan), which Nsight Compute on the H100 showed as the limit from segments of a few elements up: at 2^24 int32
// in segments of 256 the SMs were 62 % busy issuing instructions while DRAM moved 23 % of its peak. When most steps
// are elements, the merge is not worth doing: a group of lanes reads each segment with coalesced loads and reduces it
// with one group reduction.
//
// Piece k of the stretch [from, to) is segment from.segment + k clipped to [from.element, to.element). Pieces that
// end inside the stretch are written to out (the first may have begun in an earlier block: the kernel's look-back puts
// the earlier blocks' carries in front, as it does for the tile walk); the piece of the segment in progress at `to`,
// when there is one, is the block's carry-out. Three sizes of worker, so that one long segment among short ones does
// not hold a few lanes for long:
//   a group of G lanes   pieces up to 4 times the stretch's average length (and at least G * group_items), with G
//                        = 1, 2, 4, ..., 32 from the average (policy: pieces_items_per_lane)
//   a warp               longer pieces below long_run_items, listed in shared memory by the groups
//   the whole block      longer pieces, listed likewise, one after another with the block range reduction
// A full list leaves the piece to the group that found it: slower, never wrong. For a functor that is not commutative,
// over a type a 16-byte vector holds whole, warps and the block read in warp tiles (agent/in_order_tiles.cuh), and
// where the average gives 32-lane groups those only list: every piece that is not empty goes to the warps. The walks
// below fill the lists; reduce_pieces_by_average then takes the listed pieces (one copy of that walk for all of them)
// and returns the carry-out. A stretch of very short segments (average below pieces_short_average) takes
// reduce_short_pieces instead: one-lane groups that each hold several pieces in flight, since a lane with one piece of
// one or two elements waits on memory for almost all its time. Every piece is reduced in order (commutative functors
// fold striped lanes, others contiguous chunks or warp tiles, and the group joins its lanes in lane order), and its
// value depends only on the data and the stretch, so results are the same run to run.
#pragma once

#include "reducelab/agent/block_vectors.cuh"
#include "reducelab/block/block_reduce_range.cuh"
#include "reducelab/core/traits.hpp"
#include "reducelab/segmented/agent/in_order_tiles.cuh"
#include "reducelab/segmented/agent/merge_path_block.cuh"
#include "reducelab/segmented/merge_path.cuh"
#include "reducelab/segmented/warp/group_reduce.cuh"
#include "reducelab/thread/thread_fold.cuh"

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <cuda/std/limits>

namespace reducelab::segmented::agent {

/// Items per lane below which a piece stays with its group.
inline constexpr int group_items = 16;

/// Commutative functors only: acc joined with the elements in[first, last) that fall to `rank` of `lanes` lanes
/// sharing the range (vector-aligned 16-byte loads, InFlight in flight per lane, where T allows; the unaligned head and
/// tail, and other types, element by element).
template <int InFlight, class T, class OpT>
__device__ __forceinline__ T fold_share(T acc, const T* __restrict__ in, long long first, long long last, int rank,
                                        int lanes, OpT op) {
  static_assert(InFlight >= 1 && InFlight <= 16, "loads in flight: 1..16");
  if constexpr (vector_fold<T>) {
    constexpr long long per_vector = static_cast<long long>(16 / sizeof(T));
    const long long misaligned = static_cast<long long>(reinterpret_cast<std::uintptr_t>(in + first) % 16 / sizeof(T));
    long long head = misaligned == 0 ? 0 : per_vector - misaligned;
    if (head > last - first) head = last - first;
    const long long vectors = (last - first - head) / per_vector;
    const long long tail_first = first + head + vectors * per_vector;
    // The unaligned head and tail (fewer than per_vector elements each). When every lane holds at most one of each,
    // both are loaded before the vectors and folded after them: a lane that waited on its head element before issuing
    // its vectors, or issued its tail after them, ran one memory round trip behind the rest, and the group (or the
    // whole block) waits for its slowest lane. Same run on the H100 (scripts/harness/segmented_carries.cu, two
    // passes): 14 % faster on the mixed layout (50.2-50.7 against 58.7-59.2 µs), 3-4 % at 2^20, 2-3 % at 32, 1-4 %
    // slower at 256 and 4096, within 2 % elsewhere.
    const bool one_each = lanes >= per_vector - 1;
    const bool has_head = one_each && rank < head, has_tail = one_each && tail_first + rank < last;
    T head_value = acc, tail_value = acc;  // placeholders: folded only when loaded
    if (has_head) head_value = in[first + rank];
    if (has_tail) tail_value = in[tail_first + rank];
    if (!one_each)
      for (long long i = rank; i < head; i += lanes) acc = op(acc, in[first + i]);
    const uint4* body = reinterpret_cast<const uint4*>(in + first + head);
    const auto fold_vector = [&](const uint4& v) {
      T values[per_vector];
      memcpy(values, &v, sizeof(v));
#pragma unroll
      for (int j = 0; j < per_vector; ++j) acc = op(acc, values[j]);
    };
    long long i = rank;
    for (; i + (InFlight - 1LL) * lanes < vectors; i += static_cast<long long>(InFlight) * lanes) {
      uint4 v[InFlight];
#pragma unroll
      for (int j = 0; j < InFlight; ++j) v[j] = __ldg(body + i + j * static_cast<long long>(lanes));
#pragma unroll
      for (int j = 0; j < InFlight; ++j) fold_vector(v[j]);
    }
    // This lane's last vectors (fewer than InFlight), loaded together before any is folded: a short piece costs one
    // round trip to memory, not one per vector.
    if constexpr (InFlight > 1) {
      uint4 v[InFlight - 1];
#pragma unroll
      for (int j = 0; j < InFlight - 1; ++j) {
        v[j] = uint4{};
        if (i + j * static_cast<long long>(lanes) < vectors) v[j] = __ldg(body + i + j * static_cast<long long>(lanes));
      }
#pragma unroll
      for (int j = 0; j < InFlight - 1; ++j)
        if (i + j * static_cast<long long>(lanes) < vectors) fold_vector(v[j]);
    }
    if (has_head) acc = op(acc, head_value);
    if (has_tail) acc = op(acc, tail_value);
    if (!one_each)
      for (long long j = tail_first + rank; j < last; j += lanes) acc = op(acc, in[j]);
    return acc;
  } else {
    return thread::fold_strided(acc, in, static_cast<std::size_t>(first + rank), static_cast<std::size_t>(last),
                                static_cast<std::size_t>(lanes), op);
  }
}

/// Any associative functor: acc joined with in[first, last) in order, by one lane (its contiguous chunk of a piece,
/// in a group of 2 to 16 lanes: see group_reduce_range).
/// Where T tiles a 16-byte vector, the body is read in 16-byte loads, InFlight issued before any is folded
/// (agent::fold_thread_run), and the unaligned head and tail (fewer values than a vector holds, each) are loaded
/// alongside and joined around it, so a chunk of up to InFlight vectors costs one memory round trip. Other types go
/// element by element, four loads in flight (thread::fold_strided). Why: in segments of 32 and 256, affine maps read
/// element by element took two round trips of 8-byte loads per lane (stop 41: 57-61 % of peak at 2^26 on the H100,
/// where plus/double reached 74-84 %; 1.18-1.30x faster with vectors).
template <int InFlight, class T, class OpT>
__device__ __forceinline__ T fold_run_in_order(T acc, const T* __restrict__ in, long long first, long long last,
                                               OpT op) {
  if constexpr (vector_fold<T> && sizeof(T) < 16) {
    constexpr int per_vector = static_cast<int>(16 / sizeof(T));
    // The same head / vectors / tail split as fold_share's. One helper for both changed the machine code of all 16
    // merge_path_segments kernels at stop 41 (cuobjdump), those the committed measurements are of; so two copies.
    const long long count = last - first;
    const long long misaligned = static_cast<long long>(reinterpret_cast<std::uintptr_t>(in + first) % 16 / sizeof(T));
    long long head = misaligned == 0 ? 0 : per_vector - misaligned;
    if (head > count) head = count;
    const long long vectors = count > head ? (count - head) / per_vector : 0;
    const long long tail_first = first + head + vectors * per_vector;
    T head_values[per_vector - 1], tail_values[per_vector - 1];
#pragma unroll
    for (int i = 0; i < per_vector - 1; ++i) {
      if (i < head) head_values[i] = in[first + i];
      if (tail_first + i < last) tail_values[i] = in[tail_first + i];
    }
    const T body = ::reducelab::agent::fold_thread_run<InFlight>(reinterpret_cast<const uint4*>(in + first + head), 0,
                                                                 static_cast<std::size_t>(vectors),
                                                                 identity_of<OpT, T>(), op);
#pragma unroll
    for (int i = 0; i < per_vector - 1; ++i)
      if (i < head) acc = op(acc, head_values[i]);
    acc = op(acc, body);
#pragma unroll
    for (int i = 0; i < per_vector - 1; ++i)
      if (tail_first + i < last) acc = op(acc, tail_values[i]);
    return acc;
  } else {
    return thread::fold_strided(acc, in, static_cast<std::size_t>(first), static_cast<std::size_t>(last), 1, op);
  }
}

/// 16-byte loads in flight per lane for a worker of G lanes (the whole block is a worker of its threads): a group of
/// one lane keeps its own number, which the registers of the short-segment walk bound (tuning.hpp).
template <class PolicyT, int G>
inline constexpr int loads_in_flight = G == 1 ? PolicyT::pieces_lone_loads_in_flight : PolicyT::pieces_loads_in_flight;

/// The combination of in[first, last) in order by the G lanes of this lane's group (G = 1, 2, 4, ..., 32); valid in
/// the group's first lane. The whole warp must call it together (each group with its own range, empty for a group
/// with nothing to do).
template <int G, int InFlight, class T, class OpT>
__device__ __forceinline__ T group_reduce_range(const T* __restrict__ in, long long first, long long last, OpT op) {
  const int rank = static_cast<int>(threadIdx.x % G);
  T mine;
  if constexpr (is_commutative_v<OpT>) {
    mine = fold_share<InFlight>(identity_of<OpT, T>(), in, first, last, rank, G, op);
  } else {
    // Rank r folds one contiguous chunk, so joining the ranks in order is the in-order result.
    const long long chunk = (last - first + G - 1) / G;
    const long long a = first + rank * chunk < last ? first + rank * chunk : last;
    const long long b = a + chunk < last ? a + chunk : last;
    // Groups of 2 to 16 lanes read their chunks (about pieces_items_per_lane values each) in 16-byte vectors. A lone
    // lane (a whole piece, up to 4 x the stretch's average) and a warp (a listed long piece) go element by element:
    // 90 %-empty segments of 80 affine maps at 2^26 on the H100 took 1.32x the element-by-element time with vectors
    // in every group, 1.06x with vectors in warps but not in lone lanes, and 1.01-1.02x as here, for reasons not
    // understood (results/NVIDIA_H100_80GB_HBM3-segmented/in-order-vector-chunks.txt).
    if constexpr (G > 1 && G < 32) {
      mine = fold_run_in_order<InFlight>(identity_of<OpT, T>(), in, a, b, op);
    } else {
      mine = thread::fold_strided(identity_of<OpT, T>(), in, static_cast<std::size_t>(a), static_cast<std::size_t>(b),
                                  1, op);
    }
  }
  if constexpr (G == 1) {
    return mine;
  } else {
    return reduce_in_group_order_converged<G>(mine, op);
  }
}

/// The whole block's in-order combination of in[first, last); valid in thread 0. Every thread must call it, and the
/// caller syncs before reusing the storage.
template <int Threads, int InFlight, class T, class OpT, class StorageT>
__device__ __forceinline__ T block_reduce_piece(const T* __restrict__ in, long long first, long long last, OpT op,
                                                StorageT& storage) {
  if constexpr (is_commutative_v<OpT>) {
    const T mine = fold_share<InFlight>(identity_of<OpT, T>(), in, first, last, static_cast<int>(threadIdx.x), Threads, op);
    return ::reducelab::block::reduce_in_thread_order<Threads>(mine, op, storage.reduce);
  } else {
    return ::reducelab::block::reduce_range<Threads>(in, static_cast<std::size_t>(first), static_cast<std::size_t>(last),
                                                     op, storage);
  }
}

/// A warp's piece in[first, last) joined in order, valid in lane 0: group_reduce_range over the whole warp, or, for a
/// functor that is not commutative over a type a vector holds whole, the warp tiles of agent/in_order_tiles.cuh in the
/// warp's slice of the block's storage.
template <class PolicyT, class T, class OpT, class StorageT>
__device__ __forceinline__ T warp_reduce_piece(const T* __restrict__ in, long long first, long long last, OpT op,
                                               StorageT& storage) {
  if constexpr (in_order_tiles<T, OpT>) {
    return warp_reduce_part_in_order<PolicyT::pieces_in_order_vectors>(in, first, last, 0, 1, op,
                                                                       storage.in_order().warp[threadIdx.x / 32]);
  } else {
    return group_reduce_range<32, loads_in_flight<PolicyT, 32>>(in, first, last, op);
  }
}

/// Where piece k of the stretch lies: its segment, its elements [first, last) on the path, and `base`, so that path
/// element j of the piece is in[base + j].
struct piece_bounds {
  long long segment, first, last, base;
  bool owned;  // the short-segment pass's segment (segment_source::short_pass_owns): empty here, and not written
};

template <element_map Map, class OffsetT, class BeginT>
__device__ __forceinline__ piece_bounds piece_at(const segment_source<OffsetT, BeginT>& src, path_coord from,
                                                 path_coord to, long long k) {
  piece_bounds p;
  p.segment = from.segment + k;
  const long long start = static_cast<long long>(src.offsets[p.segment]) - src.origin;
  p.first = start > from.element ? start : from.element;
  p.last = p.segment < to.segment ? src.end(p.segment) : to.element;
  if (p.last < p.first) p.last = p.first;  // decreasing offsets are outside the contract; stay in bounds anyway
  p.base = src.template base<Map>(p.segment);
  p.owned = src.short_pass_owns(p.segment);
  if (p.owned) p.last = p.first;
  return p;
}

/// Writes a finished piece: to out when its segment ends inside the stretch (unless the short-segment pass owns it),
/// else to the block's carry-out.
template <class T, class StorageT>
__device__ __forceinline__ void finish_piece(T* out, path_coord to, long long segment, const T& value, StorageT& storage,
                                             bool owned = false) {
  if (segment < to.segment) {
    if (!owned) out[segment] = value;
  } else {
    storage.carry() = value;
  }
}

/// Take the listed long pieces up: the mid-length ones a warp each, then the long ones the whole block, one after
/// another. Every thread must call it, after a barrier that completes the lists; the carry-out is valid in thread 0.
template <class PolicyT, element_map Map, class T, class OffsetT, class BeginT, class OpT>
__device__ __forceinline__ T reduce_listed_pieces(const T* __restrict__ in, const segment_source<OffsetT, BeginT>& src,
                                                  path_coord from, path_coord to, T* out, OpT op,
                                                  block_storage<PolicyT, T, OpT, Map>& storage) {
  using storage_t = block_storage<PolicyT, T, OpT, Map>;
  constexpr int threads = PolicyT::block_threads;
  constexpr int warps = threads / 32;
  const int tid = threadIdx.x;
  const int mids = storage.mid_count < storage_t::max_mid_pieces ? storage.mid_count : storage_t::max_mid_pieces;
  for (int i = tid / 32; i < mids; i += warps) {
    const piece_bounds p = piece_at<Map>(src, from, to, storage.mid_pieces[i]);
    const T value = warp_reduce_piece<PolicyT>(in, p.base + p.first, p.base + p.last, op, storage);
    if (tid % 32 == 0) finish_piece(out, to, p.segment, value, storage);
  }
  const int longs = storage.long_count < storage_t::max_long_pieces ? storage.long_count : storage_t::max_long_pieces;
  for (int i = 0; i < longs; ++i) {
    const piece_bounds p = piece_at<Map>(src, from, to, storage.long_pieces[i]);
    T value;
    if constexpr (in_order_tiles<T, OpT>) {
      value = block_reduce_piece_in_order<threads, PolicyT::pieces_in_order_vectors>(in, p.base + p.first,
                                                                                       p.base + p.last, op,
                                                                                       storage.in_order());
    } else {
      constexpr int in_flight = loads_in_flight<PolicyT, threads>;
      value = block_reduce_piece<threads, in_flight>(in, p.base + p.first, p.base + p.last, op, storage.range());
    }
    if (tid == 0) finish_piece(out, to, p.segment, value, storage);
    __syncthreads();  // the range storage is free again
  }
  __syncthreads();  // the carry is written
  return storage.carry();
}

/// Lists piece k for a warp (mid) or the whole block (long) when it is at least list_from (or long_run_items)
/// elements long; true when it was listed. A full list leaves the piece with its finder. Called by one lane per piece.
template <class PolicyT, element_map Map, class T, class OpT>
__device__ __forceinline__ bool list_long_piece(long long k, long long length, long long list_from, bool may_go_to_warp,
                                                block_storage<PolicyT, T, OpT, Map>& storage) {
  using storage_t = block_storage<PolicyT, T, OpT, Map>;
  const bool for_block = length >= PolicyT::long_run_items;
  if (!for_block && !(may_go_to_warp && length >= list_from)) return false;
  using index_t = typename storage_t::piece_index_t;
  if constexpr (sizeof(index_t) < sizeof(long long)) {
    if (k > static_cast<long long>(::cuda::std::numeric_limits<index_t>::max())) return false;
  }
  int* count = for_block ? &storage.long_count : &storage.mid_count;
  index_t* list = for_block ? storage.long_pieces : storage.mid_pieces;
  const int capacity = for_block ? storage_t::max_long_pieces : storage_t::max_mid_pieces;
  const int at = atomicAdd(count, 1);
  if (at >= capacity) return false;
  list[at] = static_cast<index_t>(k);
  return true;
}

/// The number of pieces of the stretch (0..to.segment - from.segment, the last only when a segment is in progress at
/// `to`), with the lists emptied and the carry-out set to the identity. Every thread must call it.
template <class PolicyT, element_map Map, class T, class OffsetT, class BeginT, class OpT>
__device__ __forceinline__ long long begin_pieces(const segment_source<OffsetT, BeginT>& src, path_coord from,
                                                  path_coord to, block_storage<PolicyT, T, OpT, Map>& storage) {
  if (threadIdx.x == 0) {
    storage.long_count = 0;
    storage.mid_count = 0;
    storage.carry() = identity_of<OpT, T>();
  }
  __syncthreads();
  return (to.segment - from.segment) + (to.segment < src.num_segments ? 1 : 0);
}

/// One lane's pieces of a round of the short-segment walk: where each begins in `in`, and its length (-1: listed for a
/// warp or the block; -2: the short-segment pass's, neither read nor written; 0: none).
template <int Batch>
struct short_batch {
  long long first[Batch];
  int length[Batch];  // a piece is part of one block's stretch, far below 2^31 elements
};

/// Loads the bounds of this lane's pieces round + j * 32 + lane (j < Batch), and lists the long ones.
template <class PolicyT, element_map Map, int Batch, class T, class OffsetT, class BeginT, class OpT>
__device__ __forceinline__ short_batch<Batch> locate_short_pieces(const segment_source<OffsetT, BeginT>& src,
                                                                  path_coord from, path_coord to, long long pieces,
                                                                  long long round, long long list_from,
                                                                  block_storage<PolicyT, T, OpT, Map>& storage) {
  short_batch<Batch> b;
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int j = 0; j < Batch; ++j) {
    const long long k = round + j * 32 + lane;
    b.first[j] = 0;
    b.length[j] = 0;
    if (k < pieces) {
      const piece_bounds p = piece_at<Map>(src, from, to, k);
      b.first[j] = p.base + p.first;
      // A piece of list_from elements or more (at least 4 x the average) goes to a warp or the block.
      const long long n = p.last - p.first;
      b.length[j] = p.owned ? -2
                    : list_long_piece<PolicyT, Map, T, OpT>(k, n, list_from, true, storage) ? -1
                                                                                            : static_cast<int>(n);
    }
  }
  return b;
}

/// The walk for stretches of short segments (average below pieces_short_average): a lane per piece, as the
/// one-lane groups of reduce_pieces, but each lane takes Batch pieces per round (its warp's run of 32 * Batch
/// consecutive pieces, dealt lane by lane) and reads them element by element, Unroll elements of every piece at once.
/// Why: a lane that reduces one short piece at a time keeps one load in flight and waits two memory round trips (the
/// offsets, then the values) per piece, so the walk is latency bound (H100, 2^24 int32 in segments of one: 230 µs,
/// 35 % of peak); Batch * Unroll loads in flight per lane hide that. Elements are folded in order, so any functor.
template <class PolicyT, element_map Map, class T, class OffsetT, class BeginT, class OpT>
__device__ __forceinline__ void reduce_short_pieces(const T* __restrict__ in,
                                                    const segment_source<OffsetT, BeginT>& src, path_coord from,
                                                    path_coord to, T* out, OpT op, long long average,
                                                    block_storage<PolicyT, T, OpT, Map>& storage) {
  constexpr int threads = PolicyT::block_threads;
  constexpr int batch = PolicyT::pieces_short_batch;
  constexpr int unroll = PolicyT::pieces_short_unroll;
  constexpr long long step = static_cast<long long>(threads) * batch;
  const int lane = threadIdx.x % 32;
  const long long pieces = begin_pieces<PolicyT, Map, T>(src, from, to, storage);
  const long long list_from = 4 * average > group_items ? 4 * average : group_items;
  long long round = static_cast<long long>(threadIdx.x / 32) * 32 * batch;
  short_batch<batch> b = locate_short_pieces<PolicyT, Map, batch>(src, from, to, pieces, round, list_from, storage);
  for (; round < pieces; round += step) {
    T acc[batch];
    T v[batch][unroll];
    int longest = 0;
#pragma unroll
    for (int j = 0; j < batch; ++j) {
      acc[j] = identity_of<OpT, T>();
      longest = b.length[j] > longest ? b.length[j] : longest;
    }
    // Elements i .. i + unroll - 1 of every piece: all loaded, then all folded, in order.
    const auto load = [&](int i) {
#pragma unroll
      for (int j = 0; j < batch; ++j)
#pragma unroll
        for (int u = 0; u < unroll; ++u)
          if (i + u < b.length[j]) v[j][u] = in[b.first[j] + i + u];
    };
    const auto fold = [&](int i) {
#pragma unroll
      for (int j = 0; j < batch; ++j)
#pragma unroll
        for (int u = 0; u < unroll; ++u)
          if (i + u < b.length[j]) acc[j] = op(acc[j], v[j][u]);
    };
    load(0);
    // The next round's bounds are loaded while this round's first values are on their way: one memory round trip
    // per round instead of two (offsets, then values).
    const short_batch<batch> next =
        locate_short_pieces<PolicyT, Map, batch>(src, from, to, pieces, round + step, list_from, storage);
    fold(0);
    for (int i = unroll; i < longest; i += unroll) {
      load(i);
      fold(i);
    }
#pragma unroll
    for (int j = 0; j < batch; ++j) {
      const long long k = round + j * 32 + lane;
      if (k < pieces && b.length[j] >= 0) finish_piece(out, to, from.segment + k, acc[j], storage);
    }
    b = next;
  }
}

/// Walk the block's stretch [from, to) piece by piece with groups of G lanes, listing the long pieces; see the file
/// comment. Every thread must call it; the caller then takes the lists (reduce_listed_pieces).
template <int G, class PolicyT, element_map Map, class T, class OffsetT, class BeginT, class OpT>
__device__ __forceinline__ void reduce_pieces(const T* __restrict__ in, const segment_source<OffsetT, BeginT>& src,
                                              path_coord from, path_coord to, T* out, OpT op, long long average,
                                              block_storage<PolicyT, T, OpT, Map>& storage) {
  constexpr int threads = PolicyT::block_threads;
  constexpr int groups = threads / G;
  const int tid = threadIdx.x;
  const int rank = tid % G;
  const long long pieces = begin_pieces<PolicyT, Map, T>(src, from, to, storage);

  // A warp takes 32 / G consecutive pieces per round, and all its lanes run the same rounds (a group past the end, or
  // whose piece went to a list, reduces an empty range), so that group reductions can use full-warp shuffles.
  constexpr int per_warp = 32 / G;
  // A piece much longer than the stretch's average goes to a warp (or the block): skew does not stall a group.
  // A non-commutative functor's warps read in warp tiles (agent/in_order_tiles.cuh): there every piece that is not
  // empty goes to the warps' list, and the group loop below only lists (with the tiles inside it, ptxas kept fewer
  // loads in flight in the other group sizes' loops). Empty pieces stay: the short-segment pass's own segments are
  // empty here, and only the group loop knows not to write them.
  constexpr bool list_all = G == 32 && in_order_tiles<T, OpT>;
  const long long list_from = list_all ? 1 : 4 * average > G * group_items ? 4 * average : G * group_items;
  for (long long round = static_cast<long long>(tid / 32) * per_warp; round < pieces; round += groups) {
    const long long k = round + (tid % 32) / G;
    piece_bounds p{0, 0, 0, 0};
    bool mine = k < pieces;
    if (mine) {
      p = piece_at<Map>(src, from, to, k);
      const long long length = p.last - p.first;
      int listed =
          rank == 0 && list_long_piece<PolicyT, Map, T, OpT>(k, length, list_from, G < 32 || list_all, storage) ? 1 : 0;
      if constexpr (G > 1) listed = __shfl_sync(group_lanes<G>(), listed, 0, G);
      mine = listed == 0;
    }
    __syncwarp();
    const T value = group_reduce_range<G, loads_in_flight<PolicyT, G>>(in, mine ? p.base + p.first : 0,
                                                                       mine ? p.base + p.last : 0, op);
    if (mine && rank == 0) finish_piece(out, to, p.segment, value, storage, p.owned);
  }
}

/// The pieces walk with groups of about average / pieces_items_per_lane lanes (a power of two, 1 to 32).
template <class PolicyT, element_map Map, class T, class OffsetT, class BeginT, class OpT>
__device__ __forceinline__ T reduce_pieces_by_average(const T* __restrict__ in,
                                                      const segment_source<OffsetT, BeginT>& src, path_coord from,
                                                      path_coord to, T* out, OpT op, long long average,
                                                      block_storage<PolicyT, T, OpT, Map>& storage) {
  const long long lanes = average / PolicyT::pieces_items_per_lane;
  if (average < PolicyT::pieces_short_average) {
    reduce_short_pieces<PolicyT, Map>(in, src, from, to, out, op, average, storage);
  } else if (lanes >= 32) {
    reduce_pieces<32, PolicyT, Map>(in, src, from, to, out, op, average, storage);
  } else if (lanes >= 16) {
    reduce_pieces<16, PolicyT, Map>(in, src, from, to, out, op, average, storage);
  } else if (lanes >= 8) {
    reduce_pieces<8, PolicyT, Map>(in, src, from, to, out, op, average, storage);
  } else if (lanes >= 4) {
    reduce_pieces<4, PolicyT, Map>(in, src, from, to, out, op, average, storage);
  } else if (lanes >= 2) {
    reduce_pieces<2, PolicyT, Map>(in, src, from, to, out, op, average, storage);
  } else {
    reduce_pieces<1, PolicyT, Map>(in, src, from, to, out, op, average, storage);
  }
  // One copy of the listed pieces' walk for all the group sizes (each walk had inlined its own).
  __syncthreads();  // the lists are complete
  return reduce_listed_pieces<PolicyT, Map>(in, src, from, to, out, op, storage);
}

}  // namespace reducelab::segmented::agent
