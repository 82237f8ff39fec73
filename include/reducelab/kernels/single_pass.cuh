// The kernel of reducelab::reduce: one launch, finished by the last block.
//
// The input splits into a head (the values before the first 16-byte boundary, fewer than 16), a body of whole
// warp tiles read with 16-byte loads (agent/warp_tiles.cuh), and a tail (less than one tile). Block b reduces
// its contiguous run of tiles, warps in warp order; block 0 puts the head in front (its loads are issued first
// and land while the tiles are read), and the last warp of the last block appends the tail as a partial tile, so
// neither costs a memory round trip of its own at the end. Each block publishes its partial; the last block
// (blockIdx.x == gridDim.x - 1, the last to be scheduled) folds partials 0, ..., G-2 in block order as they
// arrive and appends its own, so the result is the in-order one and bitwise the same every run. Partials travel
// as 16-byte words tagged with this launch's epoch (grid/tagged_partials.cuh): no fence, no second load, and
// nothing cleared before the launch. Only the last block waits, on blocks scheduled before it, so the wait ends.
//
// A commutative functor with more than one block deals the tiles round robin instead (only values that do not tile
// a 16-byte vector still read tiles, see the next paragraph): warp w of the grid
// (block * warps + warp) folds tiles w, w + W, w + 2W, ... (W warps in all), so that the grid reads the input front
// to back together rather than as one stream per warp. Same run on the H100 and on the H200 (a scratch A/B with the
// project's timing engine, 15 rounds): 0-10 % faster, never slower, from 2^14 to 2^26 values for plus/int32,
// plus/double and argmax/double_idx64 (results/*-lib/striped-tiles.txt). Each warp still folds its tiles in a
// fixed order and the blocks still combine in block order, so the result is the same bits every run; it is not the
// in-order result, which a commutative functor does not need (a float result stays within the bound of the same
// combine depth: no warp folds more tiles than before). Both deals run the same loop with a stride
// (agent::reduce_warp_tiles): a second loop cost plus/double 2 registers (42 instead of 40), which left room for
// 2 blocks of 512 per SM instead of 3, and made it 5 % slower than CUB at 2^26-2^28 on the H200.
//
// A commutative functor over values that tile a 16-byte vector (folds_directly below: 1, 2, 4, 8, 16 bytes) reads no
// warp tiles at all: each thread folds its own vectors (agent/block_vectors.cuh), the block's passes of threads x
// loads dealt round robin over the blocks, with no transpose through shared memory and one block combine per block
// (block::reduce_commutative) rather than a warp tree per tile; block 0's first threads take the head and the last
// block's the tail (fewer than a vector's worth each). The one-block kernel folds the same way. The combine order is
// still fixed by the indices.
//
// A non-commutative functor has a second kernel for grids of at most 33 blocks, single_pass_few_blocks: the same
// body, whose last block folds the others' partials in its first warp (has_few_blocks_kernel says why apart).
//
// Large inputs of the direct fold take one block per pass instead (plan.group_blocks > 0; the policy's
// pass_blocks_min_bytes): block b folds pass b alone and the hardware schedules the blocks in waves as SMs free up,
// rather than a resident grid striding over the passes. A non-commutative functor's warp tiles do the same with a
// short contiguous run of tiles per block (plan.tiles_per_block), its partials folded in block order. Same run on the H100 (scripts/harness/stream_schedules.cu,
// results/NVIDIA_H100_80GB_HBM3-lib/pass-blocks.txt): a plain int32 sum with one 16-32 KiB pass per block streamed
// 2^28 values at 93.6-94.0 % of the peak on two machines, where this kernel's resident grid, passes dealt round
// robin, took 92.6-92.7 % on one and 91.4 % on the other. So many partials cannot all wait for the last
// block: the blocks finish in groups of group_blocks. The last block of each group (the last of them scheduled)
// folds the group's partials, one a thread, as they are published, and publishes the group's; the grid's last block
// then folds the groups'. The result is still the same bits every run (every fold's order is fixed by indices).
//
// A resident grid of two or more reading blocks has one more block that reads nothing (plan.finishing_block): it
// polls for the readers' partials from its start and folds each as it lands, where a last block that also read its
// own share began to poll only once its loads were back and then waited a round trip to L2 for partials published
// meanwhile. The last reader takes the tail. Same run on the H200 (scripts/harness/finish_parts.cu, stop 57): the
// last block reading nothing took 0.35-0.7 µs off 4-byte sums at 2^15-2^22 and 0.4-1.3 µs off 8-byte ones at
// 2^14-2^22, out of a finish (the publication, the wait and the fold) of 1.0-2.1 µs. reducelab::reduce with it against
// without, same run, three rounds (results/NVIDIA_H200-lib/finish-parts.txt, call 5), at 2^14-2^22: the direct fold
// of 8-byte values 0.99-1.13x (most rows 1.02-1.09x), of 16-byte ones 0.99-1.06x, of 4- and 1-byte ones 0.97-1.07x
// (most 1.00-1.05x); affine_compose's warp tiles 1.02-1.07x at 2^14-2^20; at 2^24-2^26, where a grid streams for tens
// of µs, 0.98-1.02x. A full grid (readers that fill the cap) has none (detail::multi_block_plan says why).
//
// With one block (gridDim.x == 1) there is nothing to publish and no workspace. The one-block path launches
// kernels/one_block.cuh instead, except for scalar plans, which come here with one block.
// When the body cannot be read in vectors (a value type too large, or a pointer whose values never meet a
// 16-byte boundary) the plan is "scalar": block b reduces items [b*items_per_block, ...) one value at a time.
#pragma once

#include "reducelab/agent/block_vectors.cuh"
#include "reducelab/agent/warp_tiles.cuh"
#include "reducelab/block/block_reduce.cuh"
#include "reducelab/block/block_reduce_range.cuh"
#include "reducelab/core/traits.hpp"
#include "reducelab/grid/tagged_partials.cuh"
#include "reducelab/warp/warp_reduce_hardware.cuh"

#include <cstddef>

namespace reducelab::kernels {

/// How one launch splits its input; computed on the host (detail/dispatch.cuh).
struct single_pass_plan {
  std::size_t n = 0;                // values
  std::size_t head = 0;             // values before the body (reduced by the last block)
  std::size_t tiles = 0;            // warp tiles in the body
  std::size_t tiles_per_block = 0;  // each block's run of tiles (the last block's may be shorter)
  std::size_t items_per_block = 0;  // scalar plans only: each block's run of values
  bool scalar = false;              // no body: every block reads its values one by one
  unsigned group_blocks = 0;        // > 0: a pass per block, finished in groups of this many blocks (direct fold)
  bool finishing_block = false;     // the last block reads nothing: it only folds the others' partials (see above)
  // Host-result calls only: after *out, the kernel stores done_seq here (pinned host memory), so the host can
  // stop waiting as soon as the value has landed (detail/resources.hpp, wait_for_result). Null otherwise.
  unsigned* done_flag = nullptr;
  unsigned done_seq = 0;
};

/// Thread 0 of the finishing block: write the result, then, for a host-result call, raise its flag. The fence
/// makes the value visible to the host before the flag: the host reads the value once it sees the flag.
template <class T>
__device__ __forceinline__ void write_result(T* out, const T& value, const single_pass_plan& plan) {
  *out = value;
  if (plan.done_flag != nullptr) {
    __threadfence_system();
    *static_cast<volatile unsigned*>(plan.done_flag) = plan.done_seq;
  }
}

template <int BlockThreads, int VectorsPerThread, class T>
struct single_pass_storage {
  static constexpr int warps = BlockThreads / 32;
  using stage_t = agent::warp_stage<agent::lane_vectors<T, VectorsPerThread>>;
  using range_t = block::range_storage<T, BlockThreads, block::range_algorithm::in_order>;
  static constexpr std::size_t stage_bytes = agent::vectorizable<T> ? sizeof(stage_t) * warps : 0;
  static constexpr std::size_t bytes = stage_bytes > sizeof(range_t) ? stage_bytes : sizeof(range_t);
};

/// Whether a functor's vectors are folded thread by thread (agent/block_vectors.cuh) instead of read as warp tiles
/// in input order: a commutative functor over values that tile a 16-byte vector exactly (1, 2, 4, 8, 16 bytes).
template <class OpT, class T>
inline constexpr bool folds_directly = is_commutative_v<OpT> && agent::vector_holds_whole_values<T>;

/// Whether the one-block kernel reads a non-commutative functor's vectors as one contiguous run per thread
/// (agent::fold_thread_run, then an in-order combine through shared memory) instead of warp tiles: values that tile
/// a 16-byte vector exactly. kernels/one_block.cuh says why.
template <class OpT, class T>
inline constexpr bool folds_thread_runs = !is_commutative_v<OpT> && agent::vector_holds_whole_values<T>;

namespace detail {
constexpr std::size_t larger(std::size_t a, std::size_t b) { return a > b ? a : b; }
}  // namespace detail

/// Shared memory of a kernel over BlockThreads x VectorsPerThread: the warps' tile stages where tiles are read, and
/// the range storage (the last block's pass over the partials, scalar plans), never live together.
template <int BlockThreads, int VectorsPerThread, class OpT, class T>
inline constexpr std::size_t raw_storage_bytes =
    folds_directly<OpT, T>
        ? detail::larger(sizeof(typename single_pass_storage<BlockThreads, VectorsPerThread, T>::range_t),
                         sizeof(block::commutative_storage<T, BlockThreads, OpT>))
        : single_pass_storage<BlockThreads, VectorsPerThread, T>::bytes;

/// Whether a functor gets a kernel of its own for grids of at most 33 blocks (single_pass_few_blocks): a
/// non-commutative functor over values read in vectors. Its last block folds the other blocks' partials in warp 0,
/// one a lane, and combines the lanes in lane order (block::reduce_lanes_in_order) instead of a barrier and a tree
/// over the block's warps. A kernel of its own because in the large-grid kernel the same code, behind a runtime
/// branch, made ptxas schedule the tile loop with fewer loads in flight (dc3a8fd, 1.4-4.7 % slower at every
/// multi-block size; results/*-lib/last-block-in-order.txt). The direct fold's last block does the same in
/// single_pass itself, where it cost nothing (last-block-warp-fold.txt).
template <class OpT, class T>
inline constexpr bool has_few_blocks_kernel = !is_commutative_v<OpT> && agent::vectorizable<T>;

/// The most blocks single_pass_few_blocks serves: its last block plus one other block per lane of warp 0.
inline constexpr unsigned few_blocks_max = warp::threads_per_warp + 1;

/// Shared memory of single_pass_few_blocks: single_pass's, and the first warp's in-order slots.
template <int BlockThreads, int VectorsPerThread, class OpT, class T>
inline constexpr std::size_t few_blocks_storage_bytes =
    detail::larger(raw_storage_bytes<BlockThreads, VectorsPerThread, OpT, T>,
                   sizeof(block::ordered_slot_storage<T, BlockThreads>));

template <class T, class OpT>
__device__ __forceinline__ T fold_values(T acc, const T* in, std::size_t begin, std::size_t end, OpT op) {
  for (std::size_t i = begin; i < end; ++i) acc = op(acc, in[i]);
  return acc;
}

/// A block's share of the vector path: each warp folds its tiles w_first, w_first + w_stride, ... below w_last;
/// the first block puts the head (the values before the first 16-byte boundary) in front, and the last warp of
/// the last block appends the tail (less than a tile) behind; the warps combine in warp order. `raw` is the
/// kernel's single_pass_storage. The result is valid in thread 0. Every thread of the block must call it.
template <int BlockThreads, int VectorsPerThread, class OpT, class T>
__device__ __forceinline__ T block_tiles_partial(const T* __restrict__ in, const single_pass_plan& plan,
                                                 std::size_t w_first, std::size_t w_last, std::size_t w_stride,
                                                 bool first_block, bool last_block, OpT op, unsigned char* raw) {
  using storage_t = single_pass_storage<BlockThreads, VectorsPerThread, T>;
  using stage_t = typename storage_t::stage_t;
  constexpr int warps = storage_t::warps;
  const std::size_t body_end = plan.head + plan.tiles * agent::tile_items<T, VectorsPerThread>;
  // The head's loads go out first; the value is needed only at the end.
  T head = identity_of<OpT, T>();
  if (first_block && threadIdx.x == 0) head = fold_values(head, in, 0, plan.head, op);
  const int warp_id = threadIdx.x / 32;
  stage_t* stages = reinterpret_cast<stage_t*>(raw);
  const auto* body = reinterpret_cast<const uint4*>(in + plan.head);
  T value = agent::reduce_warp_tiles<VectorsPerThread, T>(body, w_first, w_last, w_stride, op, stages[warp_id]);
  if (last_block && warp_id == warps - 1 && body_end < plan.n)
    value = agent::append_partial_tile<VectorsPerThread>(value, in + body_end, static_cast<int>(plan.n - body_end), op,
                                                         stages[warp_id]);
  __syncthreads();  // every warp is done with its stage before the block reduction reuses `raw`
  // Lane 0 of each warp holds the warp's value already: only the warps are left to combine.
  auto& range = *reinterpret_cast<typename storage_t::range_t*>(raw);
  T partial = block::combine_warp_leaders<BlockThreads>(value, op, range.reduce);
  if (first_block && threadIdx.x == 0) partial = op(head, partial);
  return partial;
}

/// A block's share of the direct fold (folds_directly): the vectors of passes first_pass, first_pass + pass_stride,
/// ... (agent/block_vectors.cuh); the first block's first threads take the head values and the last block's the
/// tail values (fewer than a vector's worth each, issued first, used last); then the warps and the block combine.
/// The result is valid in thread 0. Every thread of the block must call it.
template <int BlockThreads, int VectorsPerThread, class OpT, class T>
__device__ __forceinline__ T block_vectors_partial(const T* __restrict__ in, const single_pass_plan& plan,
                                                   std::size_t first_pass, std::size_t pass_stride, bool first_block,
                                                   bool last_block, OpT op,
                                                   block::commutative_storage<T, BlockThreads, OpT>& storage) {
  constexpr std::size_t per_vector = agent::values_per_vector<T>;
  static_assert(per_vector <= BlockThreads, "the first threads take the head and the tail");
  const std::size_t vectors = (plan.n - plan.head) / per_vector;
  const std::size_t body_end = plan.head + vectors * per_vector;
  T edge = identity_of<OpT, T>();
  if (first_block && threadIdx.x < plan.head) edge = in[threadIdx.x];
  if (last_block && threadIdx.x < plan.n - body_end) edge = op(edge, in[body_end + threadIdx.x]);
  T mine = agent::fold_block_vectors<BlockThreads, VectorsPerThread>(
      reinterpret_cast<const uint4*>(in + plan.head), vectors, identity_of<OpT, T>(), op, first_pass, pass_stride);
  return block::reduce_commutative<BlockThreads>(op(mine, edge), op, storage);
}

/// Thread t of the block folds slots [first + t*k, first + t*k + k) of [first, last) in slot order as they are
/// published (k = ceil((last - first) / BlockThreads)), and `combine` joins the threads' values (valid in thread 0).
/// Every thread of the block must call it, with the combine's storage free (a __syncthreads() before).
template <int BlockThreads, class OpT, class T, class CombineT>
__device__ __forceinline__ T fold_published_slots(const grid::tagged_partial<T>* slots, unsigned first, unsigned last,
                                                  unsigned long long epoch, OpT op, CombineT combine) {
  const unsigned count = last - first;
  const unsigned k = (count + BlockThreads - 1) / BlockThreads;
  const unsigned begin = threadIdx.x * k < count ? first + threadIdx.x * k : last;
  const unsigned end = last - begin > k ? begin + k : last;
  return combine(grid::fold_published<4>(identity_of<OpT, T>(), slots, begin, end, epoch, op));
}

/// fold_published_slots for a commutative functor: the threads combine in a fixed order (block::reduce_commutative).
template <int BlockThreads, class OpT, class T>
__device__ __forceinline__ T fold_published_commutative(const grid::tagged_partial<T>* slots, unsigned first,
                                                        unsigned last, unsigned long long epoch, OpT op,
                                                        block::commutative_storage<T, BlockThreads, OpT>& storage) {
  return fold_published_slots<BlockThreads>(slots, first, last, epoch, op, [&](T mine) {
    return block::reduce_commutative<BlockThreads>(mine, op, storage);
  });
}

/// fold_published_slots for any associative functor: the threads' runs are consecutive and combine in thread order
/// (block::reduce_in_thread_order), so the result is slots first, ..., last - 1 in order.
template <int BlockThreads, class OpT, class T>
__device__ __forceinline__ T fold_published_in_order(const grid::tagged_partial<T>* slots, unsigned first,
                                                     unsigned last, unsigned long long epoch, OpT op,
                                                     block::reduce_storage<T, BlockThreads>& storage) {
  return fold_published_slots<BlockThreads>(slots, first, last, epoch, op, [&](T mine) {
    return block::reduce_in_thread_order<BlockThreads>(mine, op, storage);
  });
}

/// The finish of a grid of a pass per block (plan.group_blocks = K > 0): the blocks publish their partials in
/// `partials`; the last block of each group of K folds the group's and publishes it after them (slot gridDim.x +
/// group); the grid's last block folds the groups'. `partial` is this block's, valid in thread 0. A commutative
/// functor (the direct fold) folds each level through block::reduce_commutative; any other folds in block order,
/// each finishing block's own partial last, so the result is the in-order one.
template <int BlockThreads, int VectorsPerThread, class OpT, class T>
__device__ __forceinline__ void finish_in_groups(const single_pass_plan& plan, T* out,
                                                 grid::tagged_partial<T>* partials, unsigned long long epoch, OpT op,
                                                 T partial, unsigned char* raw) {
  const unsigned block = blockIdx.x, blocks = gridDim.x, k = plan.group_blocks;
  const unsigned group = block / k, group_first = group * k;
  const unsigned group_last = blocks - group_first > k ? group_first + k - 1 : blocks - 1;
  if (block != group_last) {
    if (threadIdx.x == 0) grid::publish(partials + block, partial, epoch);
    return;
  }
  const auto fold = [&](const grid::tagged_partial<T>* slots, unsigned first, unsigned last) {
    if constexpr (is_commutative_v<OpT>) {
      return fold_published_commutative<BlockThreads>(
          slots, first, last, epoch, op, *reinterpret_cast<block::commutative_storage<T, BlockThreads, OpT>*>(raw));
    } else {
      using range_t = typename single_pass_storage<BlockThreads, VectorsPerThread, T>::range_t;
      return fold_published_in_order<BlockThreads>(slots, first, last, epoch, op,
                                                   reinterpret_cast<range_t*>(raw)->reduce);
    }
  };
  __syncthreads();  // `raw` is free: this block's own combine is done
  T value = fold(partials, group_first, group_last);
  if (threadIdx.x == 0) value = op(value, partial);
  grid::tagged_partial<T>* group_partials = partials + blocks;
  if (block != blocks - 1) {
    if (threadIdx.x == 0) grid::publish(group_partials + group, value, epoch);
    return;
  }
  __syncthreads();
  const T earlier = fold(group_partials, 0, group);
  if (threadIdx.x == 0) write_result(out, op(earlier, value), plan);
}

/// The body of both multi-block kernels. `raw` is the kernel's shared memory: the tile stage, the block combine's
/// storage and the range storage are never live together, so one raw buffer serves them all. With FewBlocks
/// (single_pass_few_blocks, at most few_blocks_max blocks), the last block folds the others' partials in warp 0.
template <int BlockThreads, int VectorsPerThread, bool FewBlocks, bool PassBlocks, class OpT, class T>
__device__ __forceinline__ void reduce_and_finish(const T* __restrict__ in, const single_pass_plan& plan, T* out,
                                                  grid::tagged_partial<T>* partials, unsigned long long epoch, OpT op,
                                                  unsigned char* raw) {
  using storage_t = single_pass_storage<BlockThreads, VectorsPerThread, T>;
  using range_t = typename storage_t::range_t;
  range_t& range = *reinterpret_cast<range_t*>(raw);

  const unsigned block = blockIdx.x;
  const bool last = block == gridDim.x - 1;
  // The blocks that read the input: all, or all but a finishing block; the last of them takes the tail. A finishing
  // block runs the same code over an empty share (its first pass or tile past the end) rather than a branch around
  // it: behind `if (reads)` ptxas scheduled affine_compose's tile loop with 3 loads in flight instead of 4, and it ran
  // 4-10 % slower (scripts/check_sass_loads.py; stop 57).
  const unsigned readers = !PassBlocks && plan.finishing_block ? gridDim.x - 1 : gridDim.x;
  const bool reads = PassBlocks || block < readers;
  const bool last_reader = block == readers - 1;
  // This block's partial, valid in thread 0.
  T partial = identity_of<OpT, T>();
  if constexpr (folds_directly<OpT, T>) {
    // Passes dealt round robin over the readers. A finishing block starts at pass plan.n, past the end of any input
    // (plan.n times a pass's vectors cannot wrap: the input fits in a device's memory).
    if (!plan.scalar)
      partial = block_vectors_partial<BlockThreads, VectorsPerThread>(
          in, plan, reads ? block : plan.n, readers, block == 0, last_reader, op,
          *reinterpret_cast<block::commutative_storage<T, BlockThreads, OpT>*>(raw));
  } else if constexpr (agent::vectorizable<T>) {
    if (!plan.scalar) {
      constexpr int warps = storage_t::warps;
      const int warp_id = threadIdx.x / 32;
      // This warp's tiles: first, first + stride, ... below last.
      std::size_t w_first, w_last, w_stride;
      if (is_commutative_v<OpT> && readers > 1) {  // dealt round robin over the readers' warps
        w_first = reads ? static_cast<std::size_t>(block) * warps + warp_id : plan.tiles;
        w_last = plan.tiles;
        w_stride = static_cast<std::size_t>(readers) * warps;
      } else {  // a contiguous run: the block's run split over its warps (a finishing block's is empty)
        const std::size_t first = static_cast<std::size_t>(block) * plan.tiles_per_block;
        const std::size_t begin = first < plan.tiles ? first : plan.tiles;
        const std::size_t end = plan.tiles - begin > plan.tiles_per_block ? begin + plan.tiles_per_block : plan.tiles;
        const std::size_t per_warp = (end - begin + warps - 1) / warps;
        w_first = begin + per_warp * warp_id < end ? begin + per_warp * warp_id : end;
        w_last = w_first + per_warp < end ? w_first + per_warp : end;
        w_stride = 1;
      }
      partial = block_tiles_partial<BlockThreads, VectorsPerThread>(in, plan, w_first, w_last, w_stride, block == 0,
                                                                    last_reader, op, raw);
    }
  }
  if (plan.scalar) {
    const std::size_t first = static_cast<std::size_t>(block) * plan.items_per_block;
    const std::size_t begin = first < plan.n ? first : plan.n;
    const std::size_t end = plan.n - begin > plan.items_per_block ? begin + plan.items_per_block : plan.n;
    partial = block::reduce_range<BlockThreads>(in, begin, end, op, range);
  }

  if (gridDim.x == 1) {
    if (threadIdx.x == 0) write_result(out, partial, plan);
    return;
  }
  if constexpr (PassBlocks) {
    finish_in_groups<BlockThreads, VectorsPerThread>(plan, out, partials, epoch, op, partial, raw);
    return;
  }
  if (!last) {
    if (threadIdx.x == 0) grid::publish(partials + block, partial, epoch);
    return;
  }

  // The last block: thread t folds the partials of blocks [t*k, t*k + k) (k = ceil((G-1)/threads)) in order as
  // they are published, the block combines the threads in thread order, and its own partial comes last (a
  // finishing block's is the identity).
  const unsigned others = gridDim.x - 1;
  if constexpr (folds_directly<OpT, T> || FewBlocks) {
    // At most 32 other blocks: warp 0 alone, one partial a lane, then its lanes combined, rather than a barrier and
    // a tree over the block's warps. The direct fold (2^16-2^18 4-byte values, 2^14-2^16 8-byte ones, under the sm90
    // policies) combines them with block::reduce_lanes_commutative (one instruction or the slots lane 0 folds):
    // FASTER or SAME at every such size in a same-call A/B on the H100 and the H200, int32 5-9 % (results/*-lib/
    // last-block-warp-fold.txt, run 2); not with more blocks (four partials a lane were 10-16 % slower, run 1).
    // single_pass_few_blocks (FewBlocks: the dispatch launches it only with at most 32 other blocks) combines them in
    // lane order, which is block order (block::reduce_lanes_in_order).
    if (FewBlocks || others <= warp::threads_per_warp) {
      if (threadIdx.x < warp::threads_per_warp) {
        const unsigned b_first = threadIdx.x < others ? threadIdx.x : others;
        const unsigned b_last = b_first + 1 < others ? b_first + 1 : others;
        const T mine = grid::fold_published<4>(identity_of<OpT, T>(), partials, b_first, b_last, epoch, op);
        T earlier;
        if constexpr (FewBlocks)
          earlier = block::reduce_lanes_in_order<BlockThreads>(
              mine, op, *reinterpret_cast<block::ordered_slot_storage<T, BlockThreads>*>(raw));
        else
          earlier = block::reduce_lanes_commutative<BlockThreads>(
              mine, op, *reinterpret_cast<block::commutative_storage<T, BlockThreads, OpT>*>(raw));
        if (threadIdx.x == 0) write_result(out, op(earlier, partial), plan);
      }
      return;
    }
  }
  __syncthreads();  // `raw` is free again
  // Not fold_published_in_order, which computes the same split: through it ptxas scheduled this kernel differently
  // (cuobjdump), and the resident kernels are kept as measured (byte for byte 0f8e646's machine code).
  const unsigned k = (others + BlockThreads - 1) / BlockThreads;
  const unsigned b_first = threadIdx.x * k < others ? threadIdx.x * k : others;
  const unsigned b_last = b_first + k < others ? b_first + k : others;
  const T mine = grid::fold_published<4>(identity_of<OpT, T>(), partials, b_first, b_last, epoch, op);
  const T earlier = block::reduce_in_thread_order<BlockThreads>(mine, op, range.reduce);
  if (threadIdx.x == 0) write_result(out, op(earlier, partial), plan);
}

template <int BlockThreads, int VectorsPerThread, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    single_pass(const T* __restrict__ in, single_pass_plan plan, T* out, grid::tagged_partial<T>* partials,
                unsigned long long epoch, OpT op) {
  __shared__ alignas(16) unsigned char raw[raw_storage_bytes<BlockThreads, VectorsPerThread, OpT, T>];
  reduce_and_finish<BlockThreads, VectorsPerThread, false, false>(in, plan, out, partials, epoch, op, raw);
}

/// single_pass for grids of 2 to few_blocks_max blocks, for the functors of has_few_blocks_kernel.
template <int BlockThreads, int VectorsPerThread, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    single_pass_few_blocks(const T* __restrict__ in, single_pass_plan plan, T* out,
                           grid::tagged_partial<T>* partials, unsigned long long epoch, OpT op) {
  static_assert(has_few_blocks_kernel<OpT, T>, "single_pass_few_blocks serves has_few_blocks_kernel's functors");
  __shared__ alignas(16) unsigned char raw[few_blocks_storage_bytes<BlockThreads, VectorsPerThread, OpT, T>];
  reduce_and_finish<BlockThreads, VectorsPerThread, true, false>(in, plan, out, partials, epoch, op, raw);
}

/// single_pass for a grid of a pass per block (plan.group_blocks > 0: the direct fold, or a non-commutative
/// functor's warp tiles), finished in groups (finish_in_groups). A kernel of its own, as single_pass_few_blocks is:
/// the same finish behind a runtime branch in single_pass cost affine_compose 5-6 % at 2^20-2^22 on both GPUs
/// (73e55d6's libcompare against 7bc14a0's, results/*-lib/rerun-73e55d6-compare.txt).
template <int BlockThreads, int VectorsPerThread, class OpT, class T>
__global__ void __launch_bounds__(BlockThreads)
    single_pass_pass_blocks(const T* __restrict__ in, single_pass_plan plan, T* out,
                            grid::tagged_partial<T>* partials, unsigned long long epoch, OpT op) {
  static_assert(folds_directly<OpT, T> || has_few_blocks_kernel<OpT, T>,
                "pass blocks serve the direct fold and a non-commutative functor's warp tiles");
  __shared__ alignas(16) unsigned char raw[raw_storage_bytes<BlockThreads, VectorsPerThread, OpT, T>];
  reduce_and_finish<BlockThreads, VectorsPerThread, false, true>(in, plan, out, partials, epoch, op, raw);
}

}  // namespace reducelab::kernels
