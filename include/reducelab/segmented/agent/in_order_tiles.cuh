// A piece of a segment reduced in order by a warp or by the whole block in warp tiles (agent/warp_tiles.cuh, the
// tiles reducelab::reduce reads a non-commutative functor's input in): every load instruction of a warp covers 512
// contiguous bytes, lane_vectors 16-byte loads per lane are in flight before any is used, the tile comes back
// transposed through the warp's slice of shared memory, and the lanes are joined in lane order.
//
// For non-commutative functors over types a 16-byte vector holds whole (affine maps): the pieces walk's warps
// (segments of about 256 values and up) and its whole-block pieces (long_run_items and up). Before, a warp's lane read
// one contiguous chunk of the piece element by element, 4 loads in flight, the lanes a chunk apart (about 1 KiB per
// warp per memory round trip, each load instruction touching 32 lines), and the block's range reduction read 32-byte
// warp tiles of single values: affine_compose over affine32 at 2^26 on the H200 streamed at 40 % of peak in segments
// of 1024, 71 % at 4096 and 66 % on the giant layout, where argmax over 8-byte pairs reached 83-85 %. In tiles, same
// run against that (stop 51, results/NVIDIA_H200-segmented/in-order-tiles.txt, call 7): 1.94x at 1024 (78 %), 1.15x
// at 4096 (82 %), 1.07x at 2^16 and 2^20 (88 %), 1.05x on zipf:1.2, 1.03x on the giant layout.
//
// The pieces walk's group loop only lists a non-commutative functor's warp pieces (segment_pieces.cuh, list_all) and
// the warps take them from the list: with the tiles inside the group loop, ptxas scheduled the loops of the smaller
// groups (2 to 16 lanes) with their loads used before the last was issued, and segments of 24 maps ran 1.15x slower
// (CTest sass.segmented_in_order_loads now checks those kernels' batches).
//
// A piece [first, last) splits into: its unaligned head (fewer values than a vector holds, before the first 16-byte
// boundary; the first part's, folded by lane 0), whole warp tiles (dealt to the parts in equal contiguous runs), and a
// last partial tile (the last part's, read value by value, agent::append_partial_tile). Every join is earlier-first.
#pragma once

#include "reducelab/agent/warp_tiles.cuh"
#include "reducelab/block/block_reduce.cuh"
#include "reducelab/core/traits.hpp"

#include <cstddef>
#include <cstdint>

namespace reducelab::segmented::agent {

/// Whether a fold may read T in 16-byte vectors: a whole number of values per vector, each at its own alignment (so a
/// vector-aligned address starts a value).
template <class T>
inline constexpr bool vector_fold = sizeof(T) <= 16 && 16 % sizeof(T) == 0 && alignof(T) == sizeof(T);

/// Whether the pieces walk reads (OpT, T)'s warp and block pieces in warp tiles (this file): functors that are not
/// commutative, over types vector_fold allows.
template <class T, class OpT>
inline constexpr bool in_order_tiles = !is_commutative_v<OpT> && vector_fold<T>;

/// The shared memory of the in-order tiles: a staging slice per warp, and the block's slots for joining the warps.
template <class T, int BlockThreads, int Vectors>
struct in_order_tile_storage {
  ::reducelab::agent::warp_stage<::reducelab::agent::lane_vectors<T, Vectors>> warp[BlockThreads / 32];
  ::reducelab::block::reduce_storage<T, BlockThreads> reduce;
};

/// Part `part` of `parts` of in[first, last) joined in input order by one warp, with `stage` its staging slice;
/// valid in lane 0. The parts in order (0 first) join to the piece's in-order result. Every lane must call it with
/// the same arguments.
template <int Vectors, class T, class OpT>
__device__ __forceinline__ T warp_reduce_part_in_order(
    const T* __restrict__ in, long long first, long long last, int part, int parts, OpT op,
    ::reducelab::agent::warp_stage<::reducelab::agent::lane_vectors<T, Vectors>>& stage) {
  static_assert(vector_fold<T>, "warp_reduce_part_in_order: T must tile a 16-byte vector at its own alignment");
  constexpr int per_vector = static_cast<int>(16 / sizeof(T));
  constexpr int tile = static_cast<int>(::reducelab::agent::tile_items<T, Vectors>);
  // A piece lies in one block's stretch, far below 2^31 elements: 32-bit counts keep the kernel's registers (with
  // 64-bit ones ptxas spilled in the pieces walk's other loops).
  const T* piece = in + first;
  const int count = last > first ? static_cast<int>(last - first) : 0;
  const int misaligned = static_cast<int>(reinterpret_cast<std::uintptr_t>(piece) % 16 / sizeof(T));
  const int head = min(misaligned == 0 ? 0 : per_vector - misaligned, count);
  const int tiles = (count - head) / tile;
  const int per_part = (tiles + parts - 1) / parts;
  const int t0 = min(part * per_part, tiles), t1 = min(t0 + per_part, tiles);
  const int tail = count - head - tiles * tile;  // fewer than a tile
  const bool lead = threadIdx.x % 32 == 0;

  // The head's loads go out before the tiles' (lane 0 of part 0; at most per_vector - 1 values).
  T head_values[per_vector > 1 ? per_vector - 1 : 1];
#pragma unroll
  for (int i = 0; i < per_vector - 1; ++i)
    if (part == 0 && lead && i < head) head_values[i] = piece[i];
  T body = ::reducelab::agent::reduce_warp_tiles<Vectors, T>(reinterpret_cast<const uint4*>(piece + head),
                                                             static_cast<std::size_t>(t0),
                                                             static_cast<std::size_t>(t1), 1, op, stage);
  if (part == parts - 1 && tail > 0)
    body = ::reducelab::agent::append_partial_tile<Vectors>(body, piece + head + tiles * tile, tail, op, stage);
  T acc = identity_of<OpT, T>();
#pragma unroll
  for (int i = 0; i < per_vector - 1; ++i)
    if (part == 0 && lead && i < head) acc = op(acc, head_values[i]);
  return op(acc, body);
}

/// The whole block's in-order combination of in[first, last), warp w taking part w of warps; valid in thread 0. Every
/// thread must call it, and the caller syncs before reusing the storage.
template <int BlockThreads, int Vectors, class T, class OpT>
__device__ __forceinline__ T block_reduce_piece_in_order(const T* __restrict__ in, long long first, long long last,
                                                         OpT op,
                                                         in_order_tile_storage<T, BlockThreads, Vectors>& storage) {
  const int warp_id = static_cast<int>(threadIdx.x / 32);
  const T mine = warp_reduce_part_in_order<Vectors>(in, first, last, warp_id, BlockThreads / 32, op,
                                                        storage.warp[warp_id]);
  return ::reducelab::block::combine_warp_leaders<BlockThreads>(mine, op, storage.reduce);
}

}  // namespace reducelab::segmented::agent
