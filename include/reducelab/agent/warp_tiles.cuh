// The per-warp work of reducelab::reduce: reduce a run of whole "warp tiles" in input order, reading them with
// 16-byte loads whatever the value type.
//
// A warp tile is 32 lanes x lane_vectors 16-byte vectors of contiguous input. Lane l loads vectors l, l+32,
// l+64, ... of the tile (every load instruction of the warp covers 512 contiguous bytes), all of them before it
// waits on any, so lane_vectors loads per lane are in flight. The vectors go through the warp's slice of
// shared memory and come back transposed: lane l then holds bytes [l*B, (l+1)*B) of the tile, B = 16 *
// lane_vectors, which is a whole number of values (lane_vectors is rounded so that it is). Lane l folds its
// values left to right, the warp combines the lanes in lane order, and lane 0 appends the tile to its running
// value. Every combine joins neighbours in input order, so the result is the in-order one for any associative
// functor, and the same bits every run.
#pragma once

#include "reducelab/core/traits.hpp"
#include "reducelab/warp/warp_reduce_hardware.cuh"

#include <cuda/std/type_traits>

#include <cstddef>
#include <cstring>

namespace reducelab::agent {

inline constexpr std::size_t vector_bytes = 16;

namespace detail {
constexpr std::size_t gcd(std::size_t a, std::size_t b) { return b == 0 ? a : gcd(b, a % b); }
/// Vectors that hold a whole number of values: lcm(sizeof(T), 16) / 16.
template <class T>
inline constexpr std::size_t vectors_per_whole_values = sizeof(T) / gcd(sizeof(T), vector_bytes);
}  // namespace detail

/// Whether T can be read in 16-byte vectors: trivially copyable, and a whole number of values fits in at most
/// 4 vectors (1, 2, 4, 8, 16 bytes: one; 12 or 24 bytes: three). Others (7, 20, 1000 bytes...) are read value by
/// value: their stage would outgrow shared memory for the gain of a rare type.
template <class T>
inline constexpr bool vectorizable = cuda::std::is_trivially_copyable_v<T> && detail::vectors_per_whole_values<T> <= 4;

/// Vectors each lane loads per tile: VectorsPerThread rounded down to a whole number of values (at least one
/// whole number: a 24-byte value needs 3 vectors for 2 values), so the shared-memory stage stays bounded.
template <class T, int VectorsPerThread>
inline constexpr int lane_vectors = static_cast<int>(
    VectorsPerThread < detail::vectors_per_whole_values<T>
        ? detail::vectors_per_whole_values<T>
        : VectorsPerThread / detail::vectors_per_whole_values<T> * detail::vectors_per_whole_values<T>);

template <class T, int VectorsPerThread>
inline constexpr int lane_items = static_cast<int>(lane_vectors<T, VectorsPerThread> * vector_bytes / sizeof(T));

/// Values in one warp tile.
template <class T, int VectorsPerThread>
inline constexpr std::size_t tile_items = std::size_t{32} * lane_items<T, VectorsPerThread>;

/// One warp's staging slice: one padding vector after every 8, so that both the striped stores and the
/// transposed loads of a quarter warp (8 lanes x 16 bytes) hit 8 different 16-byte bank groups.
template <int LaneVectors>
struct warp_stage {
  static constexpr int vectors = 32 * LaneVectors;
  uint4 slot[vectors + vectors / 8];
  static __device__ __forceinline__ int padded(int i) { return i + i / 8; }
};

/// Tiles first, first + stride, ... below last of `tiles` (vector pointer to tile 0, 16-byte aligned), combined in
/// that order (stride 1: a contiguous run, in input order). Every lane must call it; the result is valid in lane 0.
template <int VectorsPerThread, class T, class OpT>
__device__ __forceinline__ T reduce_warp_tiles(const uint4* __restrict__ tiles, std::size_t first, std::size_t last,
                                               std::size_t stride, OpT op,
                                               warp_stage<lane_vectors<T, VectorsPerThread>>& stage) {
  constexpr int v = lane_vectors<T, VectorsPerThread>;
  constexpr int items = lane_items<T, VectorsPerThread>;
  using stage_t = warp_stage<v>;
  const int lane = threadIdx.x % 32;
  T running = identity_of<OpT, T>();
  for (std::size_t t = first; t < last; t += stride) {
    const uint4* src = tiles + t * stage_t::vectors;
    uint4 r[v];
#pragma unroll
    for (int j = 0; j < v; ++j) r[j] = __ldg(src + j * 32 + lane);  // all loads issued before any is used
#pragma unroll
    for (int j = 0; j < v; ++j) stage.slot[stage_t::padded(j * 32 + lane)] = r[j];
    __syncwarp();
#pragma unroll
    for (int j = 0; j < v; ++j) r[j] = stage.slot[stage_t::padded(lane * v + j)];
    __syncwarp();  // the slice is rewritten by the next tile
    T x[items];
    memcpy(x, r, sizeof x);  // register moves: the compiler sees through it
    T mine = x[0];
#pragma unroll
    for (int k = 1; k < items; ++k) mine = op(mine, x[k]);
    mine = warp::reduce(mine, op);
    running = op(running, mine);  // lane 0 holds the tile's in-order result
  }
  return running;
}

/// A last, partial tile of `count` < tile_items values at `tail` (any alignment), appended to `running` in
/// order: read value by value (striped, so the loads are coalesced and all in flight at once) into the warp's
/// stage, then folded like a full tile. Every lane must call it; the result is valid in lane 0.
template <int VectorsPerThread, class T, class OpT>
__device__ __forceinline__ T append_partial_tile(T running, const T* tail, int count, OpT op,
                                                 warp_stage<lane_vectors<T, VectorsPerThread>>& stage) {
  constexpr int items = lane_items<T, VectorsPerThread>;
  static_assert(sizeof(T) * items * 32 <= sizeof(stage), "a partial tile fits the stage");
  T* values = reinterpret_cast<T*>(stage.slot);
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int j = 0; j < items; ++j) {
    const int i = j * 32 + lane;
    if (i < count) values[i] = tail[i];
  }
  __syncwarp();
  T mine = identity_of<OpT, T>();
#pragma unroll
  for (int k = 0; k < items; ++k) {
    const int i = lane * items + k;
    if (i < count) mine = op(mine, values[i]);
  }
  __syncwarp();
  mine = warp::reduce(mine, op);
  return op(running, mine);
}

}  // namespace reducelab::agent
