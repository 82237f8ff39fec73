// The tuning of reducelab::reduce, as data. A policy says, for one architecture and one value size,
//   block_threads         threads per block of the multi-block pass
//   vectors_per_thread    16-byte loads each thread issues per tile before it waits on any (loads in flight)
//   blocks_per_sm         grid cap = blocks_per_sm x SMs (0: as many as the occupancy calculator allows)
//   single_block_threads  block size of the one-block path
//   single_block_max_bytes  inputs of at most this many bytes take the one-block path (no workspace at all)
//   single_block_vectors  16-byte loads in flight per thread on the one-block path, chosen by `reducelab tune` with
//                         single_block_threads (left out of a policy, it is vectors_per_thread, as it was before
//                         the field existed)
//   pass_blocks_min_bytes inputs of at least this many bytes get one block per pass instead of a grid of
//                         blocks_per_sm x SMs, finished in groups of block_threads blocks (kernels/single_pass.cuh
//                         says why); 0: never. A pass is block_threads x pass_blocks_vectors 16-byte vectors for a
//                         commutative functor over values that tile a vector (the direct fold), and a run of
//                         pass_blocks_vectors / vectors_per_thread warp tiles per warp for a non-commutative one over
//                         values read in vectors; other functors and types keep the resident grid. Not swept by
//                         `reducelab tune`: it comes from same-run A/Bs of the two grids (scripts/harness/
//                         pass_blocks.cu), and the header tune writes keeps the value of the table it replaces
//   pass_blocks_vectors   16-byte loads per thread of such a block (0: vectors_per_thread). A block of the resident
//                         grid folds many passes, a pass block one, so its pass must be larger: passes of 16 KiB were
//                         slower than the resident grid where 32 KiB ones were not (scripts/harness/pass_blocks.cu)
//   direct_fold_blocks_per_sm  the grid cap of the direct fold (a commutative functor over values that tile a vector)
//                         below pass_blocks_min_bytes, in blocks per SM; 0: blocks_per_sm. Its last block folds one
//                         partial per block, so a grid of fewer, longer blocks can finish sooner where the warp tiles
//                         of a non-commutative functor, which fold in order, want the full grid. Not swept by
//                         `reducelab tune` (kept from the table it replaces, like the pass-block fields): it comes from
//                         same-run A/Bs of the library (results/NVIDIA_H200-lib/grid-waves.txt)
//   in_order_pass_blocks_min_bytes  pass_blocks_min_bytes for a non-commutative functor's warp tiles, which fold
//                         in order and keep up with the direct fold on the resident grid longer (0: the same as
//                         pass_blocks_min_bytes). Not swept by `reducelab tune`; it comes from same-run A/Bs of the
//                         library (results/NVIDIA_H200-lib/warp-tiles-resident.txt, in-order-pass-blocks.txt)
// The numbers for a known architecture come from `reducelab tune` (tuning/sm90.hpp says where and when);
// any other GPU gets tuning::fallback, which is sound everywhere and tuned nowhere.
#pragma once

#include <cstddef>

namespace reducelab::tuning {

/// The value-size classes a policy is chosen by: 1, 2, 4, 8, 16 bytes, and 32 for anything larger.
constexpr std::size_t size_class(std::size_t value_bytes) {
  return value_bytes <= 1 ? 1 : value_bytes <= 2 ? 2 : value_bytes <= 4 ? 4 : value_bytes <= 8 ? 8 : value_bytes <= 16 ? 16 : 32;
}

/// Compile-time shape of one policy: the kernels are instantiated from these.
template <int BlockThreads, int VectorsPerThread, int BlocksPerSm, int SingleBlockThreads,
          std::size_t SingleBlockMaxBytes, int SingleBlockVectors = VectorsPerThread,
          std::size_t PassBlocksMinBytes = 0, int PassBlocksVectors = 0, int DirectFoldBlocksPerSm = 0,
          std::size_t InOrderPassBlocksMinBytes = 0>
struct policy {
  static_assert(BlockThreads % 32 == 0 && BlockThreads >= 32 && BlockThreads <= 1024, "block_threads: 32..1024, whole warps");
  static_assert(SingleBlockThreads % 32 == 0 && SingleBlockThreads >= 32 && SingleBlockThreads <= 1024,
                "single_block_threads: 32..1024, whole warps");
  static_assert(VectorsPerThread >= 1 && VectorsPerThread <= 16, "vectors_per_thread: 1..16");
  static_assert(SingleBlockVectors >= 1 && SingleBlockVectors <= 16, "single_block_vectors: 1..16");
  static_assert(BlocksPerSm >= 0, "blocks_per_sm: 0 (occupancy) or a positive cap");
  static_assert(PassBlocksVectors >= 0 && PassBlocksVectors <= 16, "pass_blocks_vectors: 0 (vectors_per_thread) or 1..16");
  static_assert(DirectFoldBlocksPerSm >= 0, "direct_fold_blocks_per_sm: 0 (blocks_per_sm) or a positive cap");
  static constexpr int block_threads = BlockThreads;
  static constexpr int vectors_per_thread = VectorsPerThread;
  static constexpr int blocks_per_sm = BlocksPerSm;
  static constexpr int single_block_threads = SingleBlockThreads;
  static constexpr std::size_t single_block_max_bytes = SingleBlockMaxBytes;
  static constexpr int single_block_vectors = SingleBlockVectors;
  static constexpr std::size_t pass_blocks_min_bytes = PassBlocksMinBytes;
  static constexpr int pass_blocks_vectors = PassBlocksVectors == 0 ? VectorsPerThread : PassBlocksVectors;
  static constexpr int direct_fold_blocks_per_sm = DirectFoldBlocksPerSm;
  static constexpr std::size_t in_order_pass_blocks_min_bytes =
      InOrderPassBlocksMinBytes == 0 ? PassBlocksMinBytes : InOrderPassBlocksMinBytes;
};

/// The same numbers at run time, for printing next to a result and for `reducelab tune`.
struct policy_values {
  int block_threads, vectors_per_thread, blocks_per_sm, single_block_threads;
  std::size_t single_block_max_bytes;
  int single_block_vectors;
  std::size_t pass_blocks_min_bytes = 0;
  int pass_blocks_vectors = 0;
  int direct_fold_blocks_per_sm = 0;
  std::size_t in_order_pass_blocks_min_bytes = 0;
};

template <class PolicyT>
constexpr policy_values values_of() {
  return {PolicyT::block_threads, PolicyT::vectors_per_thread, PolicyT::blocks_per_sm, PolicyT::single_block_threads,
          PolicyT::single_block_max_bytes, PolicyT::single_block_vectors, PolicyT::pass_blocks_min_bytes,
          PolicyT::pass_blocks_vectors, PolicyT::direct_fold_blocks_per_sm, PolicyT::in_order_pass_blocks_min_bytes};
}

/// Any GPU without a tuned table: 256 threads, two 16-byte loads in flight per thread, the grid the occupancy
/// calculator allows, and a one-block path (256 threads) up to 16 KiB. Close to what `reducelab tune` chose on
/// the H100 for 4- and 8-byte values; 256-thread blocks also keep every value size's shared memory under 48 KiB.
template <std::size_t SizeClass>
struct fallback : policy<256, 2, 0, 256, 16 * 1024> {};

}  // namespace reducelab::tuning
