// One block's stretch of long segments read as one stream: the walk the kernel takes, for a commutative functor over
// the one-array layout, when the stretch averages at least stream_min_average elements per segment and holds at most
// max_stream_pieces pieces.
//
// Why a third walk: under full load a batch of 16-byte loads takes one memory round trip of several microseconds (on
// the H100, 4 resident blocks x 256 threads x 8 loads of 16 bytes per SM is 128 KiB in flight, which Little's law at
// ~20 GB/s per SM puts near 6 us), so a block's time is the number of batches its busiest worker issues. The pieces
// walk (segment_pieces.cuh) gives each piece to a worker: a stretch of 2^16-element segments splits into two pieces that
// the whole block reads one after the other, each ending on a part-filled batch, and a stretch of 4096-element
// segments into about nine pieces over eight warps, one warp taking two. Either way the busiest worker issues a
// batch or two more than an equal share needs, and the slowest block sets the kernel's end (stamps per block on the
// H100, scripts/harness/segmented_carries.cu `timed`: walks ending 24.7 to 32.4 us after entry at length 2^16). Here
// every warp takes an equal share of the stretch's 16-byte vectors, whatever the pieces, and closes a piece where its
// end falls inside a batch (one warp reduction per piece end it meets); the warps' partials of each piece are joined in
// warp order at the end, so results are the same run to run.
//
// Piece k of the stretch is segment from.segment + k clipped to the stretch, as in segment_pieces.cuh: pieces that
// end inside the stretch are written to out (the kernel's look-back puts earlier blocks' carries in front of the
// first), the piece of the segment in progress at `to` is the carry-out.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/segmented/agent/merge_path_block.cuh"
#include "reducelab/segmented/agent/segment_pieces.cuh"
#include "reducelab/segmented/merge_path.cuh"
#include "reducelab/segmented/warp/group_reduce.cuh"

#include <cuda/std/type_traits>

#include <cstdint>
#include <cstring>

namespace reducelab::segmented::agent {

/// Pieces a streamed stretch may hold: its table of warp partials has a column for each.
inline constexpr int max_stream_pieces = 128;

/// Where the streamed stretch's pieces start, and each warp's partial of each piece (identity where a warp saw none of
/// it). Lives in block_storage::raw, which no tile and no range reduction uses during the walk.
template <class T, int Warps>
struct stream_storage {
  long long starts[max_stream_pieces + 1];  // starts[k]: piece k's first element on the path; starts[pieces]: to.element
  T partials[Warps][max_stream_pieces];
};

/// Whether the kernel may stream this launch's stretches: the one-array layout (a stretch is one run of memory), a
/// functor whose partials may be joined in any order, and a number type read in 16-byte vectors. Why numbers only:
/// with argmax's (float, index) pairs inlined beside the other walks, ptxas spilled 8 bytes in the main kernel where it
/// had spilled none, and segments of length 1, which never stream, took 7 % longer (H100 compares at 2^24 and 2^26,
/// 505a26c against 370a0a9); out of line (__noinline__) the walk cost every length 3-10 % (results/NVIDIA_H100_80GB_
/// HBM3-segmented/stream-pieces.txt).
template <element_map Map, class T, class OpT>
inline constexpr bool streamable =
    Map == element_map::contiguous && is_commutative_v<OpT> && vector_fold<T> && ::cuda::std::is_arithmetic_v<T>;

/// One warp's position in the stretch: the piece its next element belongs to, where the next piece starts, and each
/// lane's share of the piece so far.
template <class T>
struct stream_cursor {
  int piece;
  long long next_start;
  T acc;
};

/// Fold this lane's elements of a batch into the warp's open piece. The lane holds Vectors x PerVector elements: v[j] is
/// element at + offset(j), present when j / PerVector < valid (its vectors are 32 vectors apart, as a warp loads them).
/// Every element of the warp's batch lies before batch_end. Where the open piece ends inside the batch the warp
/// reduces it, records its partial, and opens the next. The whole warp calls it together. Positions inside the batch
/// are compared as int offsets from `at` (a batch spans far less than 2^31 elements), which keeps the registers down.
template <int Vectors, int PerVector, class T, class OpT, class PartialsT>
__device__ __forceinline__ void fold_batch(const T (&v)[Vectors * PerVector], long long at, int valid,
                                           long long batch_end, stream_cursor<T>& c, const long long* starts,
                                           PartialsT& partials, OpT op) {
  constexpr int items = Vectors * PerVector;
  const auto offset = [](int j) { return (j / PerVector) * 32 * PerVector + j % PerVector; };
  if (batch_end <= c.next_start) {  // the common case: the whole batch inside the open piece
#pragma unroll
    for (int j = 0; j < items; ++j)
      if (j / PerVector < valid) c.acc = op(c.acc, v[j]);
    return;
  }
  const auto relative = [at](long long e) {
    const long long d = e - at;
    return d < -(1LL << 30) ? -(1 << 30) : d > (1LL << 30) ? (1 << 30) : static_cast<int>(d);
  };
  int from = -(1 << 30);  // this lane's elements before it were in an earlier piece
  while (c.next_start < batch_end) {  // warp-uniform: the open piece ends inside the batch
    const int end = relative(c.next_start);
#pragma unroll
    for (int j = 0; j < items; ++j)
      if (j / PerVector < valid && offset(j) >= from && offset(j) < end) c.acc = op(c.acc, v[j]);
    const T total = reduce_in_group_order_converged<32>(c.acc, op);
    if (threadIdx.x % 32 == 0) partials[threadIdx.x / 32][c.piece] = total;
    c.acc = identity_of<OpT, T>();
    from = end;
    ++c.piece;
    c.next_start = starts[c.piece + 1];
  }
#pragma unroll
  for (int j = 0; j < items; ++j)
    if (j / PerVector < valid && offset(j) >= from) c.acc = op(c.acc, v[j]);
}

/// Walk the block's stretch [from, to) as one stream; see the file comment. The caller has checked streamable<Map, T,
/// OpT> and that the stretch holds at most max_stream_pieces pieces. Every thread must call it; the carry-out is valid
/// in thread 0 (in every thread, after the barrier it ends with).
template <class PolicyT, element_map Map, class T, class OffsetT, class BeginT, class OpT>
__device__ __forceinline__ T stream_pieces(const T* __restrict__ in, const segment_source<OffsetT, BeginT>& src,
                                           path_coord from, path_coord to, T* out, OpT op,
                                           block_storage<PolicyT, T, OpT, Map>& storage) {
  static_assert(streamable<Map, T, OpT>,
                "stream_pieces: one-array layout, commutative functor, number type read in 16-byte vectors");
  constexpr int threads = PolicyT::block_threads;
  constexpr int warps = threads / 32;
  constexpr int in_flight = PolicyT::stream_loads_in_flight;
  constexpr int per_vector = static_cast<int>(16 / sizeof(T));
  using table_t = stream_storage<T, warps>;
  static_assert(sizeof(table_t) <= sizeof(storage.raw), "stream_pieces: the piece table must fit the tile buffer");
  table_t& table = *reinterpret_cast<table_t*>(storage.raw);

  const int tid = threadIdx.x;
  const int lane = tid % 32, warp_id = tid / 32;

  // The stretch in memory: an unaligned head (warp 0), whole 16-byte vectors in equal shares per warp, a tail (the
  // last warp).
  const T* base = in + src.origin;
  const long long e0 = from.element, e1 = to.element;
  const long long misaligned = static_cast<long long>(reinterpret_cast<std::uintptr_t>(base + e0) % 16 / sizeof(T));
  long long head = misaligned == 0 ? 0 : per_vector - misaligned;
  if (head > e1 - e0) head = e1 - e0;
  const long long body_e0 = e0 + head;
  const long long vectors = (e1 - body_e0) / per_vector;
  const long long tail_e0 = body_e0 + vectors * per_vector;
  const long long vb = vectors * warp_id / warps, ve = vectors * (warp_id + 1) / warps;
  const uint4* body = reinterpret_cast<const uint4*>(base + body_e0);

  // The warp's first whole batch, and warp 0's head, are loaded before the table of piece starts below: those need
  // only the stretch's two ends, so their round trip overlaps the table's (the offsets), where it had followed it.
  uint4 raw[in_flight];
  if (vb + 32LL * in_flight <= ve) {
#pragma unroll
    for (int j = 0; j < in_flight; ++j) raw[j] = __ldg(body + vb + j * 32 + lane);
  }
  const T head_value = warp_id == 0 && lane < head ? base[e0 + lane] : identity_of<OpT, T>();

  const int pieces = static_cast<int>(begin_pieces<PolicyT, Map, T>(src, from, to, storage));
  for (int k = tid; k <= pieces; k += threads) {
    long long start = k == 0 ? from.element : k == pieces ? to.element : src.end(from.segment + k - 1);
    start = start < from.element ? from.element : start > to.element ? to.element : start;
    table.starts[k] = start;
  }
  for (int k = tid; k < warps * pieces; k += threads) table.partials[k / pieces][k % pieces] = identity_of<OpT, T>();
  __syncthreads();

  // The warp's first piece: how many piece starts after the first lie at or before its first element (one ballot per
  // 32 pieces).
  stream_cursor<T> c;
  {
    const long long first_element = warp_id == 0 ? e0 : body_e0 + vb * per_vector;
    c.piece = 0;
#pragma unroll
    for (int k = 1; k < max_stream_pieces; k += 32) {
      const bool before = k + lane < pieces && table.starts[k + lane] <= first_element;
      c.piece += __popc(__ballot_sync(::reducelab::warp::full_mask, before));
    }
    c.next_start = table.starts[c.piece + 1];
    c.acc = identity_of<OpT, T>();
  }
  if (pieces > 0) {
    if (warp_id == 0 && head > 0) {
      const T v[1] = {head_value};
      fold_batch<1, 1>(v, e0 + lane, lane < head ? 1 : 0, body_e0, c, table.starts, table.partials, op);
    }
    const auto unpack = [](const uint4 (&raw)[in_flight], T (&v)[in_flight * per_vector]) {
#pragma unroll
      for (int j = 0; j < in_flight; ++j) memcpy(&v[j * per_vector], &raw[j], sizeof(uint4));
    };
    long long i = vb;
    // Whole batches: InFlight vectors per lane, 32 consecutive vectors per load, no bounds test (the first loaded
    // above).
    for (; i + 32LL * in_flight <= ve; i += 32LL * in_flight) {
      if (i != vb) {
#pragma unroll
        for (int j = 0; j < in_flight; ++j) raw[j] = __ldg(body + i + j * 32 + lane);
      }
      T v[in_flight * per_vector];
      unpack(raw, v);
      fold_batch<in_flight, per_vector>(v, body_e0 + (i + lane) * per_vector, in_flight,
                                        body_e0 + (i + 32LL * in_flight) * per_vector, c, table.starts,
                                        table.partials, op);
    }
    if (i < ve) {  // the warp's last, part-filled batch
#pragma unroll
      for (int j = 0; j < in_flight; ++j) {
        raw[j] = uint4{};
        if (i + j * 32 + lane < ve) raw[j] = __ldg(body + i + j * 32 + lane);
      }
      T v[in_flight * per_vector];
      unpack(raw, v);
      // Vectors j of this lane with i + 32 j + lane < ve are loaded.
      const long long room = ve - i - lane;
      const int valid = room <= 0 ? 0 : static_cast<int>((room + 31) / 32);
      fold_batch<in_flight, per_vector>(v, body_e0 + (i + lane) * per_vector, valid, body_e0 + ve * per_vector, c,
                                        table.starts, table.partials, op);
    }
    if (warp_id == warps - 1 && tail_e0 < e1) {
      const T v[1] = {tail_e0 + lane < e1 ? base[tail_e0 + lane] : identity_of<OpT, T>()};
      fold_batch<1, 1>(v, tail_e0 + lane, tail_e0 + lane < e1 ? 1 : 0, e1, c, table.starts, table.partials, op);
    }
    const T total = reduce_in_group_order_converged<32>(c.acc, op);
    if (lane == 0) table.partials[warp_id][c.piece] = total;
  }
  __syncthreads();
  for (int k = tid; k < pieces; k += threads) {
    T value = table.partials[0][k];
#pragma unroll
    for (int w = 1; w < warps; ++w) value = op(value, table.partials[w][k]);
    finish_piece(out, to, from.segment + k, value, storage, src.short_pass_owns(from.segment + k));
  }
  __syncthreads();  // the carry is written, and the table's buffer is free again
  return storage.carry();
}

}  // namespace reducelab::segmented::agent
