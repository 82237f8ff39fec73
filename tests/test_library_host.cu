// CPU: the host-side arithmetic of reducelab::reduce — launch plans, workspace layout, the policy table, the
// argument limits — all of which run without a GPU.
#include "exact_test_functors.hpp"
#include "functors/bit_and.cuh"
#include "functors/logical_and.cuh"
#include "functors/logical_or.cuh"
#include "functors/maximum.cuh"
#include "functors/minimum.cuh"
#include "functors/multiplies.cuh"
#include "functors/plus.cuh"
#include "reducelab/detail/dispatch.cuh"
#include "reducelab/tuning/select.hpp"
#include "reducelab/warp/warp_reduce_hardware.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>

namespace rd = reducelab::detail;
namespace agent = reducelab::agent;
namespace tuning = reducelab::tuning;

namespace {
struct three_floats {
  float a, b, c;
};
struct six_floats {
  float v[6];
};
struct nine_floats {
  float v[9];
};
template <class T>
const T* at_byte(std::uintptr_t address) {
  return reinterpret_cast<const T*>(address);
}
}  // namespace

TEST(LibraryPlan, LaneVectorsHoldWholeValues) {
  EXPECT_EQ((agent::lane_vectors<int, 4>), 4);
  EXPECT_EQ((agent::lane_items<int, 4>), 16);
  EXPECT_EQ((agent::lane_items<bool, 4>), 64);
  EXPECT_EQ((agent::lane_vectors<three_floats, 4>), 3);  // 48 bytes = 4 values
  EXPECT_EQ((agent::lane_items<three_floats, 4>), 4);
  EXPECT_EQ((agent::lane_vectors<six_floats, 1>), 3);  // never fewer than a whole number of values
  EXPECT_EQ((agent::lane_items<six_floats, 1>), 2);
  EXPECT_TRUE(agent::vectorizable<six_floats>);
  EXPECT_FALSE(agent::vectorizable<nine_floats>);  // 9 vectors per whole number of values: read value by value
}

TEST(LibraryPlan, HeadReachesTheFirstSixteenByteBoundary) {
  EXPECT_EQ(rd::vector_head(at_byte<int>(0x1000)), 0);
  EXPECT_EQ(rd::vector_head(at_byte<int>(0x1004)), 3);
  EXPECT_EQ(rd::vector_head(at_byte<double>(0x1008)), 1);
  EXPECT_EQ(rd::vector_head(at_byte<three_floats>(0x1004)), 1);  // 0x1004 + 12 = 0x1010
  EXPECT_EQ(rd::vector_head(at_byte<six_floats>(0x1004)), -1);   // 24-byte steps from 4 mod 8 never reach 0 mod 16
}

TEST(LibraryPlan, VectorPlanCoversEveryValueOnce) {
  constexpr int threads = 256, vectors = 4;
  constexpr std::size_t tile = agent::tile_items<int, vectors>;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, tile - 1, tile, 8 * tile + 5, std::size_t{1} << 20,
                        (std::size_t{1} << 28) + 3}) {
    for (std::uintptr_t offset : {0u, 4u, 8u, 12u}) {
      unsigned grid = 0;
      const auto p = rd::make_plan<threads, vectors>(at_byte<int>(0x10000 + offset), n, 1056, grid);
      ASSERT_FALSE(p.scalar);
      EXPECT_LE(p.head, 3u);
      EXPECT_LE(p.head + p.tiles * tile, n);
      EXPECT_LT(n - p.head - p.tiles * tile, tile) << "the tail is shorter than a tile";
      ASSERT_GE(grid, 1u);
      EXPECT_LE(grid, 1056u);
      // The blocks' runs cover the tiles exactly: grid - 1 full runs, and a last run that is not empty.
      if (p.tiles > 0) {
        EXPECT_GE(static_cast<std::size_t>(grid) * p.tiles_per_block, p.tiles);
        EXPECT_LT(static_cast<std::size_t>(grid - 1) * p.tiles_per_block, p.tiles);
      }
    }
  }
}

TEST(LibraryPlan, GridIsNeverBelowHalfOfTheBlocksWanted) {
  // combine_depth_for bounds a block's share of the direct fold's passes with half of blocks_wanted.
  for (std::size_t warps : {std::size_t{1}, std::size_t{8}, std::size_t{16}}) {
    for (std::size_t cap : {std::size_t{1}, std::size_t{264}, std::size_t{528}}) {
      for (std::size_t tiles = 0; tiles < 20000; tiles += tiles < 600 ? 1 : 37) {
        const std::size_t grid = rd::plan_grid(tiles, warps, cap);
        ASSERT_GE(2 * grid, rd::blocks_wanted(tiles, warps, cap))
            << tiles << " tiles, " << warps << " warps, cap " << cap;
        ASSERT_LE(grid, cap);
      }
    }
  }
}

TEST(LibraryPlan, ScalarPlanWhenNoValueMeetsABoundary) {
  unsigned grid = 0;
  const std::size_t n = 1'000'003;
  const auto p = rd::make_plan<256, 4>(at_byte<six_floats>(0x10004), n, 1056, grid);
  EXPECT_TRUE(p.scalar);
  EXPECT_GE(static_cast<std::size_t>(grid) * p.items_per_block, n);
  EXPECT_LT(static_cast<std::size_t>(grid - 1) * p.items_per_block, n);
  const auto q = rd::make_plan<256, 4>(at_byte<nine_floats>(0x10000), 5000, 1056, grid);
  EXPECT_TRUE(q.scalar);
}

TEST(LibraryPlan, WorkspaceHoldsOneTaggedPartialPerBlock) {
  EXPECT_EQ(rd::layout_bytes<int>(1), 0u);  // one block: no workspace
  // Every 8 bytes of a value travel in a 16-byte word next to the epoch (grid/tagged_partials.cuh).
  EXPECT_EQ(sizeof(reducelab::grid::tagged_partial<char>), 16u);
  EXPECT_EQ(sizeof(reducelab::grid::tagged_partial<double>), 16u);
  EXPECT_EQ(sizeof(reducelab::grid::tagged_partial<float[3]>), 32u);
  EXPECT_EQ(sizeof(reducelab::grid::tagged_partial<double[3]>), 48u);
  EXPECT_EQ(alignof(reducelab::grid::tagged_partial<char>), 16u);
  EXPECT_EQ(rd::layout_bytes<double>(1056), 1056u * 16);
  EXPECT_EQ(rd::layout_bytes<double[3]>(1056), 1056u * 48);
}

TEST(LibraryWarp, HardwareReductionOnlyForExactBuiltinPairs) {
  namespace fn = reducelab::functors;
  using reducelab::warp::hardware_path;
  using reducelab::warp::hardware_path_for;
  EXPECT_EQ((hardware_path_for<fn::plus, std::int32_t>()), hardware_path::redux_add);
  EXPECT_EQ((hardware_path_for<fn::plus, std::uint32_t>()), hardware_path::redux_add);
  EXPECT_EQ((hardware_path_for<fn::maximum, std::int32_t>()), hardware_path::redux_max);
  EXPECT_EQ((hardware_path_for<fn::minimum, std::uint32_t>()), hardware_path::redux_min);
  EXPECT_EQ((hardware_path_for<fn::bit_and, std::int32_t>()), hardware_path::redux_and);
  EXPECT_EQ((hardware_path_for<fn::logical_or, bool>()), hardware_path::vote_any);
  EXPECT_EQ((hardware_path_for<fn::logical_and, std::uint8_t>()), hardware_path::vote_all);
  // No instruction, or not the same result as the shuffle tree: floats (rounding, NaN), 64-bit integers, products.
  EXPECT_EQ((hardware_path_for<fn::plus, float>()), hardware_path::shuffle);
  EXPECT_EQ((hardware_path_for<fn::maximum, double>()), hardware_path::shuffle);
  EXPECT_EQ((hardware_path_for<fn::plus, std::int64_t>()), hardware_path::shuffle);
  EXPECT_EQ((hardware_path_for<fn::multiplies, std::int32_t>()), hardware_path::shuffle);
  // A user functor never does, whatever it computes.
  EXPECT_EQ((hardware_path_for<exact_test::add, std::int32_t>()), hardware_path::shuffle);
}

namespace {
/// What a combine result covers: which slots (a bit each), whether any slot was combined twice, and its longest
/// chain of combines.
struct slot_coverage {
  std::uint64_t slots;
  bool overlap;
  int depth;
};
struct cover {
  static constexpr bool commutative = true;
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T{0, false, 0};
  }
  __host__ __device__ slot_coverage operator()(const slot_coverage& a, const slot_coverage& b) const {
    return {a.slots | b.slots, a.overlap || b.overlap || (a.slots & b.slots) != 0,
            (a.depth > b.depth ? a.depth : b.depth) + 1};
  }
};

template <int Count, int Stride>
void expect_fold_slots_covers_each_once() {
  slot_coverage slots[Count * Stride] = {};
  for (int i = 0; i < Count; ++i) slots[i * Stride] = {std::uint64_t{1} << i, false, 0};
  const slot_coverage r = reducelab::block::detail::fold_slots<Count, Stride>(slots, cover{});
  EXPECT_EQ(r.slots, Count == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << Count) - 1) << Count << " slots";
  EXPECT_FALSE(r.overlap) << Count << " slots";
  EXPECT_EQ(r.depth, reducelab::block::detail::fold_slots_depth(Count)) << Count << " slots";
}
}  // namespace

// block::reduce_commutative folds each warp's slots, then the lanes', with block::detail::fold_slots: every slot
// exactly once, and no chain longer than the depth the float error bounds are given (detail::combine_depth_for).
TEST(LibraryBlock, SlotFoldCombinesEverySlotOnceWithinItsDepth) {
  expect_fold_slots_covers_each_once<1, 1>();
  expect_fold_slots_covers_each_once<2, 32>();
  expect_fold_slots_covers_each_once<3, 32>();
  expect_fold_slots_covers_each_once<5, 32>();
  expect_fold_slots_covers_each_once<8, 32>();
  expect_fold_slots_covers_each_once<16, 32>();
  expect_fold_slots_covers_each_once<32, 32>();
  expect_fold_slots_covers_each_once<32, 1>();
  EXPECT_EQ(reducelab::block::detail::fold_slots_depth(32), 9);  // 8 values a chain, then two pairwise rounds
  EXPECT_EQ(reducelab::block::detail::fold_slots_depth(16), 5);
  // 512 threads: 16 warps' slots a lane (5), then the 32 lanes (9); never below the two shuffle trees' 10.
  EXPECT_EQ(reducelab::block::reduce_commutative_depth(512), 14);
  EXPECT_EQ(reducelab::block::reduce_commutative_depth(32), 10);
}

namespace {
/// A range of slots [first, last], whether every combine joined neighbours in order, and the longest chain.
struct slot_range {
  int first, last;
  bool in_order;
  int depth;
};
struct join_in_order {  // not commutative: a combine of non-neighbours, or out of order, is flagged
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T{0, -1, true, 0};
  }
  __host__ __device__ slot_range operator()(const slot_range& a, const slot_range& b) const {
    return {a.first, b.last, a.in_order && b.in_order && a.last + 1 == b.first,
            (a.depth > b.depth ? a.depth : b.depth) + 1};
  }
};

template <int Count>
void expect_in_order_fold_joins_neighbours() {
  slot_range slots[Count];
  for (int i = 0; i < Count; ++i) slots[i] = {i, i, true, 0};
  const slot_range r = reducelab::block::detail::fold_slots_in_order<Count>(slots, join_in_order{});
  EXPECT_EQ(r.first, 0) << Count << " slots";
  EXPECT_EQ(r.last, Count - 1) << Count << " slots";
  EXPECT_TRUE(r.in_order) << Count << " slots";
  EXPECT_EQ(r.depth, reducelab::block::detail::fold_slots_depth(Count)) << Count << " slots";
}
}  // namespace

// block::reduce_in_order_through_slots (the one-block kernel's combine for non-commutative functors) folds each lane's
// run of threads, then the lanes, with fold_slots_in_order: left to right, neighbours only, within the stated depth;
// and its padded layout gives every thread a slot of its own.
TEST(LibraryBlock, InOrderSlotFoldJoinsNeighboursLeftToRight) {
  expect_in_order_fold_joins_neighbours<1>();
  expect_in_order_fold_joins_neighbours<2>();
  expect_in_order_fold_joins_neighbours<3>();
  expect_in_order_fold_joins_neighbours<5>();
  expect_in_order_fold_joins_neighbours<16>();
  expect_in_order_fold_joins_neighbours<32>();
  using storage_t = reducelab::block::ordered_slot_storage<double, 512>;
  std::set<int> used;
  for (int t = 0; t < 512; ++t) {
    EXPECT_LT(storage_t::padded(t), static_cast<int>(sizeof(storage_t::slots) / sizeof(double)));
    EXPECT_TRUE(used.insert(storage_t::padded(t)).second) << "thread " << t;
  }
  // Lane l's run of 16 threads is contiguous: padded(16 l + i) = padded(16 l) + i.
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 16; ++i) EXPECT_EQ(storage_t::padded(16 * l + i), storage_t::padded(16 * l) + i);
}

// A non-commutative functor's grids of 2-33 blocks get a kernel of their own (kernels::single_pass_few_blocks, whose
// last block folds the other partials one a lane of its first warp); larger grids, and every grid of a commutative
// functor, get single_pass, whose machine code that kernel leaves as it was.
TEST(LibraryPlan, OnlyNonCommutativeSmallGridsTakeTheFewBlocksKernel) {
  using p8 = tuning::sm90<8>;
  using exact_test::affine_u32;
  using exact_test::compose;
  using reducelab::functors::plus;
  const auto large = rd::multi_block_kernel<p8, compose, affine_u32>();
  EXPECT_EQ(reducelab::kernels::few_blocks_max, reducelab::warp::threads_per_warp + 1u);
  EXPECT_NE((rd::multi_block_kernel_for<p8, compose, affine_u32>(2)), large);
  EXPECT_NE((rd::multi_block_kernel_for<p8, compose, affine_u32>(33)), large);
  EXPECT_EQ((rd::multi_block_kernel_for<p8, compose, affine_u32>(33)),
            (rd::multi_block_kernel_for<p8, compose, affine_u32>(2)));
  EXPECT_EQ((rd::multi_block_kernel_for<p8, compose, affine_u32>(34)), large);
  EXPECT_EQ((rd::multi_block_kernel_for<p8, compose, affine_u32>(1056)), large);
  for (unsigned grid : {2u, 33u, 34u, 1056u})
    EXPECT_EQ((rd::multi_block_kernel_for<p8, plus, double>(grid)), (rd::multi_block_kernel<p8, plus, double>()));
}

// A grid of a pass per block (kernels/single_pass.cuh): which functors and types take it, from what size, with how
// many blocks. The sm90 table gives 4- and 8-byte values pass blocks of 8 loads a thread; 1-byte values none.
TEST(LibraryPlan, PassBlocksFromThePolicysSizeOnly) {
  using p4 = tuning::sm90<4>;
  using p8 = tuning::sm90<8>;
  using p1 = tuning::sm90<1>;
  using exact_test::affine_u32;
  using exact_test::compose;
  using reducelab::functors::logical_or;
  using reducelab::functors::plus;
  ASSERT_EQ(p4::pass_blocks_min_bytes, std::size_t{512} << 20);
  ASSERT_EQ(p8::pass_blocks_min_bytes, std::size_t{128} << 20);
  EXPECT_EQ(p4::pass_blocks_vectors, 8);
  EXPECT_EQ(p1::pass_blocks_min_bytes, 0u);
  // The direct fold: a pass is block_threads x 8 vectors.
  EXPECT_EQ((rd::pass_block_units<p4, plus, int>()), 512u * 8u);
  const std::size_t n4 = p4::pass_blocks_min_bytes / 4;
  EXPECT_EQ((rd::pass_blocks_for<p4, plus, int>(n4 - 1, (n4 - 1) / 4)), 0u) << "one value below the policy's size";
  EXPECT_EQ((rd::pass_blocks_for<p4, plus, int>(n4, n4 / 4)), n4 / 4 / (512 * 8));
  EXPECT_EQ((rd::pass_blocks_for<p4, plus, int>(n4 + 1, n4 / 4 + 1)), n4 / 4 / (512 * 8) + 1) << "a partial last pass";
  // A non-commutative functor's warp tiles: 8 warps x 8 / 4 tiles each, from their own size (512 MiB for 8-byte
  // values: below it they keep the resident grid, results/NVIDIA_H200-lib/warp-tiles-resident.txt).
  EXPECT_EQ((rd::pass_block_units<p8, compose, affine_u32>()), 16u);
  ASSERT_EQ(p8::in_order_pass_blocks_min_bytes, std::size_t{512} << 20);
  EXPECT_EQ(p4::in_order_pass_blocks_min_bytes, p4::pass_blocks_min_bytes) << "0 in the table: the direct fold's";
  const std::size_t below = p8::pass_blocks_min_bytes / 8;
  EXPECT_EQ((rd::pass_blocks_for<p8, compose, affine_u32>(below, below / 256)), 0u) << "the direct fold's size only";
  EXPECT_NE((rd::pass_blocks_for<p8, plus, double>(below, below / 2)), 0u);
  const std::size_t n8 = p8::in_order_pass_blocks_min_bytes / 8;
  const std::size_t tiles = n8 / agent::tile_items<affine_u32, p8::vectors_per_thread>;
  EXPECT_EQ((rd::pass_blocks_for<p8, compose, affine_u32>(n8 - 1, tiles - 1)), 0u) << "one value below its own size";
  EXPECT_EQ((rd::pass_blocks_for<p8, compose, affine_u32>(n8, tiles)), tiles / 16);
  // Not for 1-byte values under sm90, nor anywhere under the fallback.
  EXPECT_EQ((rd::pass_blocks_for<p1, logical_or, bool>(std::size_t{1} << 34, std::size_t{1} << 30)), 0u);
  EXPECT_EQ((rd::pass_blocks_for<tuning::fallback<4>, plus, int>(std::size_t{1} << 32, std::size_t{1} << 30)), 0u);
  // Too many blocks for a grid: the resident grid instead.
  EXPECT_EQ((rd::pass_blocks_for<p4, plus, int>(std::size_t{1} << 46, std::size_t{1} << 44)), 0u);
}

// The direct fold's own grid cap (policy direct_fold_blocks_per_sm): commutative functors over values that tile a
// vector take it; a non-commutative functor's warp tiles keep blocks_per_sm. The sm90 table gives 8-byte values 4 blocks
// per SM (half the occupancy grid; results/NVIDIA_H200-lib/grid-waves.txt). Caps given as numbers need no GPU.
TEST(LibraryPlan, DirectFoldTakesItsOwnGridCap) {
  using exact_test::affine_u32;
  using exact_test::compose;
  using reducelab::functors::plus;
  using both = tuning::policy<256, 4, 8, 512, 32768, 2, 0, 0, 4>;
  using shared = tuning::policy<256, 4, 8, 512, 32768, 2>;
  rd::device_properties dev;
  dev.sm_count = 132;
  EXPECT_EQ((rd::grid_cap<both, plus, double>(dev)), 4u * 132u);
  EXPECT_EQ((rd::grid_cap<both, compose, affine_u32>(dev)), 8u * 132u);
  EXPECT_EQ((rd::grid_cap<shared, plus, double>(dev)), 8u * 132u);
  EXPECT_EQ(shared::direct_fold_blocks_per_sm, 0);
  EXPECT_EQ(tuning::sm90<8>::direct_fold_blocks_per_sm, 4);
  EXPECT_EQ(tuning::sm90<4>::direct_fold_blocks_per_sm, 0);
  EXPECT_EQ((rd::grid_cap<tuning::sm90<8>, plus, double>(dev)), 4u * 132u);
  // The plan follows the cap: 2^22 doubles are 16384 warp tiles, 2048 blocks wanted; 528 allowed, 32 tiles each.
  unsigned grid = 0;
  const auto plan =
      rd::make_plan<256, 4>(at_byte<double>(0x100000), std::size_t{1} << 22, rd::grid_cap<both, plus, double>(dev), grid);
  EXPECT_EQ(grid, 512u);
  EXPECT_EQ(plan.tiles_per_block, 32u);
}

// A multi-block grid below its cap gets one more block, which reads nothing and only finishes
// (kernels/single_pass.cuh); the readers' plan is make_plan's. A full grid, a scalar plan and pass blocks get none.
TEST(LibraryPlan, GridsBelowTheCapGetAFinishingBlock) {
  using reducelab::functors::plus;
  using both = tuning::policy<256, 4, 8, 512, 32768, 2, 0, 0, 4>;  // the direct fold of doubles: 4 x 132 = 528 blocks
  using passes = tuning::policy<256, 4, 8, 512, 32768, 2, 1, 8>;   // a block per pass from the first multi-block size
  rd::device_properties dev;
  dev.sm_count = 132;
  const auto plan_of = [&](auto policy, std::uintptr_t at, std::size_t n, unsigned& grid) {
    return rd::multi_block_plan<decltype(policy), plus>(at_byte<double>(at), n, dev, grid);
  };
  unsigned grid = 0, readers = 0;
  for (std::size_t n : {std::size_t{4200}, std::size_t{5000}, std::size_t{70001}, std::size_t{1} << 22}) {
    const auto plan = plan_of(both{}, 0x100000, n, grid);
    const auto alone = rd::make_plan<256, 4>(at_byte<double>(0x100000), n, 528, readers);
    EXPECT_TRUE(plan.finishing_block) << n;
    EXPECT_EQ(grid, readers + 1) << n;
    EXPECT_EQ(plan.tiles_per_block, alone.tiles_per_block) << n;
  }
  EXPECT_EQ(grid, 513u);  // 2^22: 512 readers of 32 tiles, and the finishing block
  plan_of(both{}, 0x100000, 4200, grid);
  EXPECT_EQ(grid, 3u);  // 16 tiles: two readers
  // Three tiles of 256 doubles for each of the 8 warps of 528 blocks: the full grid, whose last reader finishes.
  EXPECT_FALSE(plan_of(both{}, 0x100000, 3 * 528 * 8 * 256, grid).finishing_block);
  EXPECT_EQ(grid, 528u);
  // 8-byte values from an address 4 mod 16 never start on a 16-byte boundary: a scalar plan.
  const auto scalar = plan_of(both{}, 0x100004, std::size_t{1} << 20, grid);
  EXPECT_TRUE(scalar.scalar);
  EXPECT_FALSE(scalar.finishing_block);
  const auto pass = plan_of(passes{}, 0x100000, std::size_t{1} << 20, grid);
  EXPECT_EQ(pass.group_blocks, 256u);
  EXPECT_FALSE(pass.finishing_block);
  EXPECT_EQ(grid, (std::size_t{1} << 20) / 2 / (256 * 8));
}

TEST(LibraryPlan, EpochsNeverRepeat) {
  std::set<unsigned long long> seen;
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(seen.insert(rd::next_epoch()).second);
}

TEST(LibraryPlan, CountsBeyondTheAddressSpaceAreOverTheLimit) {
  EXPECT_EQ(rd::max_items<char>, static_cast<std::size_t>(PTRDIFF_MAX));
  EXPECT_LT(rd::max_items<double>, static_cast<std::size_t>(-1) / 8);
  EXPECT_GT(static_cast<std::size_t>(-5), rd::max_items<int>);  // n = -5 converted to size_t is refused
}

TEST(LibraryPolicy, TableIsSaneForEverySizeClass) {
  auto check = [](tuning::policy_values v, const char* where) {
    SCOPED_TRACE(where);
    EXPECT_EQ(v.block_threads % 32, 0);
    EXPECT_EQ(v.single_block_threads % 32, 0);
    EXPECT_GE(v.vectors_per_thread, 1);
    EXPECT_GE(v.single_block_vectors, 1);
    EXPECT_LE(v.single_block_vectors, 16);
    EXPECT_GE(v.blocks_per_sm, 0);
    EXPECT_GE(v.direct_fold_blocks_per_sm, 0);
    // Warp tiles take pass blocks only where the direct fold does, and no sooner.
    if (v.pass_blocks_min_bytes == 0) EXPECT_EQ(v.in_order_pass_blocks_min_bytes, 0u);
    else EXPECT_GE(v.in_order_pass_blocks_min_bytes, v.pass_blocks_min_bytes);
    EXPECT_LE(v.single_block_max_bytes, std::size_t{1} << 22);  // one block past a few MB would starve the GPU
    EXPECT_GE(v.pass_blocks_vectors, v.pass_blocks_min_bytes == 0 ? 1 : v.vectors_per_thread);
    EXPECT_LE(v.pass_blocks_vectors, 16);
    // Pass blocks only where the resident grid has many waves' worth of passes to give away.
    if (v.pass_blocks_min_bytes != 0) EXPECT_GE(v.pass_blocks_min_bytes, std::size_t{64} << 20);
  };
  for (tuning::table t : {tuning::table::sm90, tuning::table::fallback}) {
    check(tuning::with_policy<1>(t, [](auto p) { return tuning::values_of<decltype(p)>(); }), tuning::table_name(t));
    check(tuning::with_policy<4>(t, [](auto p) { return tuning::values_of<decltype(p)>(); }), tuning::table_name(t));
    check(tuning::with_policy<8>(t, [](auto p) { return tuning::values_of<decltype(p)>(); }), tuning::table_name(t));
    check(tuning::with_policy<16>(t, [](auto p) { return tuning::values_of<decltype(p)>(); }), tuning::table_name(t));
    check(tuning::with_policy<24>(t, [](auto p) { return tuning::values_of<decltype(p)>(); }), tuning::table_name(t));
  }
  EXPECT_EQ(tuning::table_for(9, 0), tuning::table::sm90);
  EXPECT_EQ(tuning::table_for(8, 6), tuning::table::fallback);  // a GPU never tuned gets the fallback
  EXPECT_EQ(tuning::size_class(3), 4u);
  EXPECT_EQ(tuning::size_class(24), 32u);
}
