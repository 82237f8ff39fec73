// GPU: reducelab::reduce, the library's entry — every form (device result with the stream's or the caller's workspace,
// host result, async), awkward sizes and unaligned starts, struct and non-commutative value types, bitwise
// reproducibility, and the refusals (null, host memory, counts beyond the address space, short workspace).
#include "exact_test_functors.hpp"
#include "functors/bit_xor.cuh"
#include "functors/logical_or.cuh"
#include "functors/maximum.cuh"
#include "functors/plus.cuh"
#include "gpu_test.hpp"
#include "lab/core/device_buffer.hpp"
#include "reducelab/reduce.cuh"

#include <thrust/device_vector.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

using reducelab::device_buffer;

namespace library_test {  // named: an unnamed one makes nvcc warn about the unread `commutative` members

using exact_test::add;
using exact_test::affine_u32;
using exact_test::compose;
using exact_test::same;

/// 24 bytes with 4-byte alignment: from an address 4 mod 8 no value starts on a 16-byte boundary.
struct six_u32 {
  std::uint32_t v[6];
};
struct add6 {
  static constexpr bool commutative = true;
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T{};
  }
  __host__ __device__ six_u32 operator()(const six_u32& x, const six_u32& y) const {
    six_u32 r;
    for (int i = 0; i < 6; ++i) r.v[i] = x.v[i] + y.v[i];
    return r;
  }
};

bool same(const six_u32& x, const six_u32& y) { return std::memcmp(&x, &y, sizeof x) == 0; }
template <class T>
bool same(const T& x, const T& y) {
  return x == y;
}

template <class T, class OpT>
T host_reduce(const std::vector<T>& v, std::size_t first, std::size_t n, OpT op) {
  T acc = reducelab::identity_of<OpT, T>();
  for (std::size_t i = first; i < first + n; ++i) acc = op(acc, v[i]);
  return acc;
}

template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed);
template <>
std::vector<std::int32_t> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> v(n);
  for (auto& x : v) x = static_cast<std::int32_t>(rng());
  return v;
}
template <>
std::vector<std::uint64_t> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}
template <>
std::vector<std::uint8_t> random_values(std::size_t n, std::uint64_t seed) {
  return exact_test::random_bytes(n, seed);
}
template <>
std::vector<affine_u32> random_values(std::size_t n, std::uint64_t seed) {
  return exact_test::random_maps(n, seed);
}
template <>
std::vector<exact_test::affine_u16> random_values(std::size_t n, std::uint64_t seed) {
  return exact_test::random_maps<std::uint16_t>(n, seed);
}
template <>
std::vector<six_u32> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<six_u32> v(n);
  for (auto& x : v)
    for (auto& w : x.v) w = static_cast<std::uint32_t>(rng());
  return v;
}

/// Reduce v[offset, offset + n) on the GPU through every form and compare each with the host's in-order result.
template <class T, class OpT>
void expect_all_forms_exact(std::size_t n, std::size_t offset, std::uint64_t seed) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", offset = " + std::to_string(offset));
  const std::vector<T> host = random_values<T>(n + offset, seed);
  const T want = host_reduce(host, offset, n, OpT{});
  const thrust::device_vector<T> d(host.begin(), host.end());
  const T* in = thrust::raw_pointer_cast(d.data()) + offset;
  device_buffer out(sizeof(T));
  T got{};

  reducelab::reduce(in, n, static_cast<T*>(out.data()), OpT{}, cudaStream_t{nullptr});  // the stream's workspace
  CUDA_TRY(cudaMemcpy(&got, out.data(), sizeof(T), cudaMemcpyDeviceToHost));
  EXPECT_TRUE(same(got, want)) << "device result, the stream's workspace";

  const std::size_t bytes = reducelab::reduce_workspace_bytes<T>(n, OpT{});
  device_buffer ws(bytes);
  // The library never needs a caller's workspace cleared (grid/tagged_partials.cuh); compute-sanitizer's initcheck
  // cannot know that and reports the polls of a fresh one, so the test clears it to keep initcheck's report meaningful.
  if (bytes > 0) CUDA_TRY(cudaMemset(ws.data(), 0, bytes));
  CUDA_TRY(cudaMemset(out.data(), 0xA5, sizeof(T)));
  reducelab::reduce(in, n, static_cast<T*>(out.data()), ws.data(), bytes, OpT{});
  CUDA_TRY(cudaMemcpy(&got, out.data(), sizeof(T), cudaMemcpyDeviceToHost));
  EXPECT_TRUE(same(got, want)) << "device result, caller's workspace";

  EXPECT_TRUE(same(reducelab::reduce(in, n, OpT{}), want)) << "host result";
  auto pending = reducelab::reduce_async(in, n, OpT{});
  EXPECT_TRUE(same(pending.get(), want)) << "async host result";
  EXPECT_TRUE(pending.ready());
}

const std::size_t awkward_sizes[] = {1, 7, 31, 33, 65, 1000, 4096, 4099, 16'411, 65'536 + 17, (1u << 20) + 5, 3'000'017};

}  // namespace library_test
using namespace library_test;

TEST(LibraryReduce, Int32SumsAreExactAtAwkwardSizesAndOffsets) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  for (std::size_t n : awkward_sizes)
    for (std::size_t offset : {0, 1, 3}) expect_all_forms_exact<std::int32_t, add>(n, offset, 11 * n + offset);
}

TEST(LibraryReduce, OneByteValuesAreExact) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  for (std::size_t n : awkward_sizes)
    for (std::size_t offset : {0, 5}) expect_all_forms_exact<std::uint8_t, add>(n, offset, 13 * n + offset);
}

TEST(LibraryReduce, NonCommutativeFunctorGetsTheInOrderResult) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  for (std::size_t n : awkward_sizes)
    for (std::size_t offset : {0, 1}) expect_all_forms_exact<affine_u32, compose>(n, offset, 17 * n + offset);
}

// Four-byte maps: the one-block kernel's thread runs with a head and a tail of up to three values each (offsets
// 1-3), and the multi-block kernel's tiles above 64 KiB.
TEST(LibraryReduce, NonCommutativeFourByteValuesGetTheInOrderResultWithHeadsAndTails) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  for (std::size_t n : awkward_sizes)
    for (std::size_t offset : {0, 1, 2, 3})
      expect_all_forms_exact<exact_test::affine_u16, compose>(n, offset, 23 * n + offset);
}

namespace library_test {

/// The grid detail::multi_block_plan gives n values of T at `offset` on this device (0: the one-block path), whether
/// its last block only finishes, and the grid's cap: what the library launches for the tests' inputs.
template <class T, class OpT>
std::tuple<unsigned, bool, std::size_t> multi_block_plan_of(std::size_t n, std::size_t offset) {
  namespace rd = reducelab::detail;
  const rd::device_properties dev = rd::current_device_properties();
  return rd::with_device_policy<T>(dev, [&](auto policy) {
    using policy_t = decltype(policy);
    if (rd::takes_single_block<policy_t, T>(n)) return std::tuple<unsigned, bool, std::size_t>{0u, false, 0};
    const thrust::device_vector<T> probe(1 + offset);  // the same alignment as expect_all_forms_exact's input
    unsigned grid = 0;
    const auto plan = rd::multi_block_plan<policy_t, OpT>(thrust::raw_pointer_cast(probe.data()) + offset, n, dev, grid);
    return std::tuple<unsigned, bool, std::size_t>{grid, plan.finishing_block, rd::grid_cap<policy_t, OpT, T>(dev)};
  });
}

}  // namespace library_test

// The last block folds the other blocks' partials in block order for a non-commutative functor, however many there
// are: grids from 3 to over 100 blocks (each asserted from this device's plan: more than one block, and both sides of
// 33, where single_pass_few_blocks, whose first warp folds them one a lane, gives way to single_pass), with and
// without a head value.
TEST(LibraryReduce, NonCommutativeLastBlockGetsTheInOrderResultForSmallAndLargeGrids) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  bool saw_small = false, saw_large = false;
  for (std::size_t n : {std::size_t{5'003}, std::size_t{16'411}, std::size_t{40'000}, std::size_t{65'536},
                        std::size_t{70'001}, (std::size_t{1} << 18) + 3}) {
    for (std::size_t offset : {0, 1}) {
      const unsigned grid = std::get<0>(multi_block_plan_of<affine_u32, compose>(n, offset));  // 0: one block
      if (grid > 1) (grid - 1 <= 32 ? saw_small : saw_large) = true;
      SCOPED_TRACE("grid of " + std::to_string(grid));
      expect_all_forms_exact<affine_u32, compose>(n, offset, 41 * n + offset);
    }
  }
  EXPECT_TRUE(saw_small) << "no size gave 2-33 blocks on this device";
  EXPECT_TRUE(saw_large) << "no size gave more than 33 blocks on this device";
}

TEST(LibraryReduce, StructOfTwentyFourBytesTakesVectorAndScalarPaths) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  for (std::size_t n : awkward_sizes) expect_all_forms_exact<six_u32, add6>(n, 0, 19 * n);
  // From an address 4 mod 8 no 24-byte value starts on a 16-byte boundary: every value is read on its own.
  const std::size_t n = 200'003;
  const std::vector<six_u32> host = random_values<six_u32>(n, 5);
  device_buffer raw(n * sizeof(six_u32) + 8);
  auto* in = reinterpret_cast<six_u32*>(static_cast<char*>(raw.data()) + 4);
  CUDA_TRY(cudaMemcpy(in, host.data(), n * sizeof(six_u32), cudaMemcpyHostToDevice));
  EXPECT_TRUE(same(reducelab::reduce(static_cast<const six_u32*>(in), n, add6{}), host_reduce(host, 0, n, add6{})));
}

TEST(LibraryReduce, BlocksFoldingManyPassesAreExact) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // 2^25 int32 is more passes of threads x loads than the grid has blocks (kernels::block_vectors_partial deals them
  // round robin), so every block folds several, the last one partial.
  for (std::size_t offset : {0, 1}) {
    expect_all_forms_exact<std::int32_t, add>((std::size_t{1} << 25) + 3, offset, 23 + offset);
  }
}

TEST(LibraryReduce, EightByteDirectFoldOnItsOwnGridIsExact) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // The sm90 table caps the direct fold of 8-byte values at 4 blocks per SM (direct_fold_blocks_per_sm, half the
  // occupancy grid): from 2^21 values each warp folds 16 or more warp tiles and the last block folds at most 4 x SMs
  // partials; 2^23 + 5 also leaves a tail. uint64 sums wrap, so any lost or doubled value shows.
  for (std::size_t n : {(std::size_t{1} << 21) + 3, (std::size_t{1} << 23) + 5}) {
    for (std::size_t offset : {0, 1}) expect_all_forms_exact<std::uint64_t, add>(n, offset, 41 + offset);
  }
}

namespace library_test {

/// A policy that takes a block per pass from the first multi-block size, with small passes (128 threads x 2 loads,
/// 4 KiB) and so groups of 128 blocks, so that modest sizes give one group, a group and one block, and more groups
/// than the last block has threads (kernels::finish_in_groups).
using small_pass_blocks = reducelab::tuning::policy<128, 2, 0, 128, 4096, 2, 1, 2>;

/// Reduce host[offset, offset + n) through reducelab::detail::launch under PolicyT into a device result.
template <class PolicyT, class T, class OpT>
T launch_with(const thrust::device_vector<T>& d, std::size_t offset, std::size_t n, OpT op, unsigned& grid) {
  namespace rd = reducelab::detail;
  const rd::device_properties dev = rd::current_device_properties();
  const T* in = thrust::raw_pointer_cast(d.data()) + offset;
  rd::multi_block_plan<PolicyT, OpT>(in, n, dev, grid);
  const std::size_t bytes = rd::workspace_bytes_for<PolicyT, OpT, T>(n, dev);
  device_buffer ws(bytes > 0 ? bytes : 1);
  CUDA_TRY(cudaMemset(ws.data(), 0, bytes > 0 ? bytes : 1));  // for initcheck only (see expect_all_forms_exact)
  device_buffer out(sizeof(T));
  rd::launch<PolicyT>(in, n, static_cast<T*>(out.data()), ws.data(), op, cudaStream_t{nullptr}, dev);
  T got{};
  CUDA_TRY(cudaMemcpy(&got, out.data(), sizeof(T), cudaMemcpyDeviceToHost));
  return got;
}

}  // namespace library_test

TEST(LibraryReduce, PassBlocksFinishInGroupsExactly) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  namespace fn = reducelab::functors;
  constexpr std::size_t pass = 128 * 2 * 4;  // int32 values in one pass of small_pass_blocks
  // Blocks: 2; one group less one block; one group; one group and one block; more groups (130) than the last
  // block's 128 threads, with a partial last pass. Each size unaligned too (a head before the first vector).
  const std::size_t sizes[] = {2 * pass, 127 * pass, 128 * pass, 128 * pass + 5, 130 * 128 * pass - 77};
  bool saw_many_groups = false;
  for (std::size_t n : sizes) {
    for (std::size_t offset : {0, 1}) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", offset = " + std::to_string(offset));
      const std::vector<std::int32_t> host = random_values<std::int32_t>(n + offset, 43 * n + offset);
      const thrust::device_vector<std::int32_t> d(host.begin(), host.end());
      unsigned grid = 0;
      EXPECT_EQ(launch_with<small_pass_blocks>(d, offset, n, fn::plus{}, grid), host_reduce(host, offset, n, fn::plus{}));
      EXPECT_GE(grid, 2u);
      EXPECT_EQ(grid, (n - (offset == 0 ? 0 : 3)) / 4 / (128 * 2) + ((n - (offset == 0 ? 0 : 3)) / 4 % (128 * 2) != 0))
          << "not a block per pass";
      saw_many_groups |= grid > 128 * 128;
      EXPECT_EQ(launch_with<small_pass_blocks>(d, offset, n, fn::bit_xor{}, grid),
                host_reduce(host, offset, n, fn::bit_xor{}));
      EXPECT_EQ(launch_with<small_pass_blocks>(d, offset, n, fn::maximum{}, grid),
                host_reduce(host, offset, n, fn::maximum{}));
    }
  }
  EXPECT_TRUE(saw_many_groups) << "no size gave more groups than the last block has threads";
}

TEST(LibraryReduce, PassBlocksOfANonCommutativeFunctorGetTheInOrderResult) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // affine_u32 (8 bytes) under small_pass_blocks: warp tiles of 128 values, a pass of 4 warps x 1 tile = 512 values.
  constexpr std::size_t tile = 128, pass = 4 * tile;
  const std::size_t sizes[] = {2 * pass, 127 * pass + 3, 128 * pass, 128 * pass + tile + 5, 130 * 128 * pass - 77};
  bool saw_many_groups = false;
  for (std::size_t n : sizes) {
    for (std::size_t offset : {0, 1}) {  // offset 1: one value before the first 16-byte boundary
      SCOPED_TRACE("n = " + std::to_string(n) + ", offset = " + std::to_string(offset));
      const std::vector<affine_u32> host = random_values<affine_u32>(n + offset, 53 * n + offset);
      const thrust::device_vector<affine_u32> d(host.begin(), host.end());
      unsigned grid = 0;
      EXPECT_TRUE(same(launch_with<small_pass_blocks>(d, offset, n, compose{}, grid), host_reduce(host, offset, n, compose{})));
      const std::size_t tiles = (n - offset) / tile;
      EXPECT_EQ(grid, (tiles + 3) / 4) << "not a run of 4 tiles per block";
      saw_many_groups |= grid > 128 * 128;
    }
  }
  EXPECT_TRUE(saw_many_groups) << "no size gave more groups than the last block has threads";
}

TEST(LibraryReduce, PassBlocksFloatSumIsBitwiseReproducibleWithinItsBound) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  namespace rd = reducelab::detail;
  const std::size_t n = 100 * 128 * 2 * 4 + 9;  // 100 passes of small_pass_blocks, and a tail
  std::mt19937_64 rng(n);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> host(n);
  for (auto& x : host) x = dist(rng);
  const thrust::device_vector<float> d(host.begin(), host.end());
  unsigned grid = 0;
  const float first = launch_with<small_pass_blocks>(d, 0, n, reducelab::functors::plus{}, grid);
  EXPECT_EQ(grid, 101u);
  double exact = 0, sum_abs = 0;
  for (float x : host) exact += x, sum_abs += std::abs(x);
  // The error bound the library states for this launch: ((1 + u)^depth - 1) * sum|x| with u = 2^-24.
  const std::size_t depth =
      rd::combine_depth_for<small_pass_blocks, reducelab::functors::plus, float>(n, rd::current_device_properties());
  EXPECT_LE(std::abs(first - exact), (std::pow(1.0 + std::ldexp(1.0, -24), double(depth)) - 1.0) * sum_abs)
      << "depth " << depth;
  for (int run = 0; run < 10; ++run) {
    const float again = launch_with<small_pass_blocks>(d, 0, n, reducelab::functors::plus{}, grid);
    EXPECT_EQ(std::memcmp(&first, &again, sizeof first), 0) << "run " << run;
  }
}

TEST(LibraryReduce, LargeInputsTakeTheTablesPassBlocksExactly) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  namespace rd = reducelab::detail;
  namespace fn = reducelab::functors;
  const rd::device_properties dev = rd::current_device_properties();
  // The smallest size the device's table gives pass blocks for 4-byte values, and a few more values.
  const std::size_t min_bytes = rd::with_device_policy<std::int32_t>(
      dev, [](auto policy) { return decltype(policy)::pass_blocks_min_bytes; });
  if (min_bytes == 0) GTEST_SKIP() << "this device's table gives 4-byte values no pass blocks";
  const std::size_t n = min_bytes / 4 + 3;
  rd::with_device_policy<std::int32_t>(dev, [&](auto policy) {
    using policy_t = decltype(policy);
    EXPECT_NE((rd::pass_blocks_for<policy_t, fn::plus, std::int32_t>(n, n / 4 - 1)), 0u);
  });
  for (std::size_t offset : {0, 1}) expect_all_forms_exact<std::int32_t, fn::plus>(n, offset, 47 + offset);
}

TEST(LibraryReduce, WarpTilesKeepTheResidentGridBelowTheirOwnPassBlockSize) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  namespace rd = reducelab::detail;
  const rd::device_properties dev = rd::current_device_properties();
  // Where the table gives a non-commutative functor's warp tiles a pass-block size of their own above the direct
  // fold's (sm90: 512 MiB against 128 MiB for 8-byte values), 8-byte maps just past the direct fold's size take the
  // resident grid, in order.
  const auto sizes = rd::with_device_policy<affine_u32>(dev, [](auto policy) {
    using policy_t = decltype(policy);
    return std::pair<std::size_t, std::size_t>{policy_t::pass_blocks_min_bytes, policy_t::in_order_pass_blocks_min_bytes};
  });
  if (sizes.first == 0 || sizes.second <= sizes.first) GTEST_SKIP() << "this device's table gives warp tiles no size of their own";
  const std::size_t n = sizes.first / sizeof(affine_u32) + 3;
  rd::with_device_policy<affine_u32>(dev, [&](auto policy) {
    using policy_t = decltype(policy);
    EXPECT_EQ((rd::pass_blocks_for<policy_t, compose, affine_u32>(n, n / 256)), 0u);
  });
  for (std::size_t offset : {0, 1}) expect_all_forms_exact<affine_u32, compose>(n, offset, 53 + offset);
}

namespace library_test {

/// Every multi-block size of `sizes` whose readers leave room below the cap gives the grid a finishing block
/// (kernels/single_pass.cuh), which folds every reader's partial exactly: grids of 3 to 33 blocks
/// (single_pass_few_blocks for a non-commutative functor) and more; readers that fill the cap keep their last one
/// finishing.
template <class T, class OpT>
void expect_finishing_block_exact(std::vector<std::size_t> sizes, std::uint64_t seed) {
  namespace rd = reducelab::detail;
  const rd::device_properties dev = rd::current_device_properties();
  // Three warp tiles for each warp of the full grid: plan_grid gives exactly the cap.
  sizes.push_back(rd::with_device_policy<T>(dev, [&](auto policy) {
    using policy_t = decltype(policy);
    return 3 * rd::grid_cap<policy_t, OpT, T>(dev) * (policy_t::block_threads / 32) *
           reducelab::agent::tile_items<T, policy_t::vectors_per_thread>;
  }));
  bool saw_few = false, saw_more = false, saw_full = false;
  for (std::size_t n : sizes) {
    for (std::size_t offset : {0, 1}) {
      const auto [grid, finishing, cap] = multi_block_plan_of<T, OpT>(n, offset);
      SCOPED_TRACE("n " + std::to_string(n) + ", offset " + std::to_string(offset) + ", grid " + std::to_string(grid));
      EXPECT_LE(grid, cap) << "a finishing block past the cap";
      if (grid > 2 && finishing) {
        (grid <= reducelab::kernels::few_blocks_max ? saw_few : saw_more) = true;
      } else if (grid > 2) {
        EXPECT_EQ(grid, cap) << "a grid below the cap without a finishing block";
        saw_full = true;
      }
      expect_all_forms_exact<T, OpT>(n, offset, seed + n + offset);
    }
  }
  EXPECT_TRUE(saw_few) << "no size gave 3-33 blocks on this device";
  EXPECT_TRUE(saw_more) << "no size gave more than 33 blocks on this device";
  EXPECT_TRUE(saw_full) << "no size gave the full grid on this device";
}

}  // namespace library_test

TEST(LibraryReduce, FinishingBlockFoldsEveryReadersPartialExactly) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  const std::vector<std::size_t> sizes = {9'001, 70'001, (std::size_t{1} << 18) + 3, (std::size_t{1} << 23) + 5};
  // The direct fold (uint64 sums wrap: a lost or doubled partial shows), warp tiles in order, commutative warp tiles.
  expect_finishing_block_exact<std::uint64_t, add>(sizes, 61);
  expect_finishing_block_exact<affine_u32, compose>(sizes, 67);
  expect_finishing_block_exact<six_u32, add6>(sizes, 71);
}

TEST(LibraryReduce, BuiltinIntegerPairsTakeTheHardwareWarpReductionExactly) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // warp/warp_reduce_hardware.cuh: one REDUX instruction per warp for these (functor, int32) pairs.
  namespace fn = reducelab::functors;
  static_assert(reducelab::warp::hardware_path_for<fn::maximum, std::int32_t>() ==
                reducelab::warp::hardware_path::redux_max);
  for (std::size_t n : awkward_sizes) {
    for (std::size_t offset : {0, 1}) {
      expect_all_forms_exact<std::int32_t, fn::plus>(n, offset, 29 * n + offset);
      expect_all_forms_exact<std::int32_t, fn::maximum>(n, offset, 31 * n + offset);
      expect_all_forms_exact<std::int32_t, fn::bit_xor>(n, offset, 37 * n + offset);
    }
  }
}

TEST(LibraryReduce, LogicalOrOverBytesTakesTheVoteExactly) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  namespace fn = reducelab::functors;
  static_assert(reducelab::warp::hardware_path_for<fn::logical_or, std::uint8_t>() ==
                reducelab::warp::hardware_path::vote_any);
  for (std::size_t n : awkward_sizes) {
    // All zero, then one nonzero byte (not 1: the vote must still give 1) somewhere in the range.
    std::vector<std::uint8_t> host(n, 0);
    const thrust::device_vector<std::uint8_t> zeros(host.begin(), host.end());
    EXPECT_EQ(reducelab::reduce(zeros, fn::logical_or{}), 0) << "n = " << n;
    host[(n * 7) / 11] = 0x80;
    const thrust::device_vector<std::uint8_t> one(host.begin(), host.end());
    EXPECT_EQ(reducelab::reduce(one, fn::logical_or{}), 1) << "n = " << n;
  }
}

TEST(LibraryReduce, FloatSumIsBitwiseReproducible) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  for (std::size_t n : {std::size_t{5000}, std::size_t{1} << 18, (std::size_t{1} << 24) + 7}) {
    std::mt19937_64 rng(n);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> host(n);
    for (auto& x : host) x = dist(rng);
    const thrust::device_vector<float> d(host.begin(), host.end());
    const float first = reducelab::reduce(d, add{});
    double exact = 0;
    for (float x : host) exact += x;
    double sum_abs = 0;
    for (float x : host) sum_abs += std::abs(x);
    // Bound for a combine chain of depth d: d * eps * sum|x| (a loose, standard bound; d well under 2^12 here).
    EXPECT_LE(std::abs(first - exact), 4096 * 6e-8 * sum_abs) << "n = " << n;
    for (int run = 0; run < 10; ++run) {
      const float again = reducelab::reduce(d, add{});
      EXPECT_EQ(std::memcmp(&first, &again, sizeof first), 0) << "run " << run << " differs at n = " << n;
    }
  }
}

TEST(LibraryReduce, EmptyRangeGivesTheIdentityEverywhere) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  device_buffer out(sizeof(affine_u32));
  CUDA_TRY(cudaMemset(out.data(), 0x7f, sizeof(affine_u32)));
  reducelab::reduce(static_cast<const affine_u32*>(nullptr), 0, static_cast<affine_u32*>(out.data()), compose{});
  affine_u32 got{};
  CUDA_TRY(cudaMemcpy(&got, out.data(), sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_TRUE(same(got, affine_u32{1u, 0u}));
  EXPECT_EQ(reducelab::reduce(static_cast<const int*>(nullptr), 0, add{}), 0);
  EXPECT_EQ(reducelab::reduce_async(static_cast<const int*>(nullptr), 0, add{}).get(), 0);
  EXPECT_EQ(reducelab::reduce(thrust::device_vector<int>(), add{}), 0);
}

TEST(LibraryReduce, AsyncOverlapsHostWork) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  const thrust::device_vector<int> d(std::size_t{1} << 24, 1);
  auto pending = reducelab::reduce_async(d, add{});
  long long host_work = 0;
  for (int i = 0; i < 1000; ++i) host_work += i;  // the host goes on while the GPU reduces
  EXPECT_EQ(host_work, 499500);
  EXPECT_EQ(pending.get(), 1 << 24);
  EXPECT_EQ(pending.get(), 1 << 24);  // a second get() returns the same value without waiting
  auto moved = std::move(pending);
  EXPECT_EQ(moved.get(), 1 << 24);
  EXPECT_THROW(pending.get(), reducelab::usage_error);  // the moved-from handle holds nothing
}

// The host-result calls return once the kernel raises its slot's flag after the result (detail/resources.hpp,
// wait_for_result), not when the stream reports idle. A flag read too early, or a result read before it, would
// return the previous call's value: consecutive calls here alternate input, size, path (one block or many) and
// stream, and every answer differs from the one before.
TEST(LibraryReduce, HostResultCallsReturnEachCallsOwnValue) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  const std::size_t max_n = (std::size_t{1} << 20) + 5;
  const std::vector<std::int32_t> host = random_values<std::int32_t>(max_n, 11);
  thrust::device_vector<std::int32_t> d(host.begin(), host.end());
  const auto* in = thrust::raw_pointer_cast(d.data());
  cudaStream_t s[2];
  for (auto& x : s) CUDA_TRY(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
  const std::size_t sizes[] = {1, 1000, 4096 + 3, (std::size_t{1} << 16) + 1, max_n};
  std::int32_t previous = 0;
  for (int call = 0; call < 200; ++call) {
    const std::size_t n = sizes[call % 5] - static_cast<std::size_t>(call / 5 % 2);  // a new answer each time
    const std::size_t len = n == 0 ? 1 : n;
    const std::int32_t want = host_reduce(host, 0, len, add{});
    if (call > 0) ASSERT_NE(want, previous) << "the test needs a new answer at call " << call;
    std::int32_t got = 0;
    if (call % 3 == 2) {
      auto pending = reducelab::reduce_async(in, len, add{}, s[call % 2]);
      got = pending.get();
    } else {
      got = reducelab::reduce(in, len, add{}, s[call % 2]);
    }
    ASSERT_EQ(got, want) << "call " << call << ", n " << len << " (the previous call returned " << previous << ")";
    previous = got;
  }
  // A handle whose result has landed says so without waiting on its stream's events.
  auto pending = reducelab::reduce_async(in, max_n, add{}, s[0]);
  CUDA_TRY(cudaStreamSynchronize(s[0]));
  EXPECT_TRUE(pending.ready());
  EXPECT_EQ(pending.get(), host_reduce(host, 0, max_n, add{}));
  for (auto& x : s) CUDA_TRY(cudaStreamDestroy(x));
}

// A host result cannot come from a stream being captured into a graph (the capture only records the launch):
// both host-result forms refuse it by name, nothing is recorded, and the capture goes on undisturbed.
TEST(LibraryReduce, HostResultOnACapturingStreamIsRefused) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  const thrust::device_vector<int> d(1000, 1);
  const int* in = thrust::raw_pointer_cast(d.data());
  cudaStream_t capture;
  CUDA_TRY(cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking));
  CUDA_TRY(cudaStreamBeginCapture(capture, cudaStreamCaptureModeThreadLocal));
  std::string sync_message, async_message;
  try {
    (void)reducelab::reduce(in, 1000, add{}, capture);
  } catch (const reducelab::usage_error& e) {
    sync_message = e.what();
  }
  try {
    (void)reducelab::reduce_async(in, 1000, add{}, capture);
  } catch (const reducelab::usage_error& e) {
    async_message = e.what();
  }
  cudaGraph_t graph = nullptr;
  CUDA_TRY(cudaStreamEndCapture(capture, &graph));  // still a valid capture
  std::size_t nodes = 99;
  CUDA_TRY(cudaGraphGetNodes(graph, nullptr, &nodes));
  EXPECT_EQ(nodes, 0u) << "a refused call recorded work";
  EXPECT_NE(sync_message.find("being captured into a graph"), std::string::npos) << sync_message;
  EXPECT_NE(async_message.find("being captured into a graph"), std::string::npos) << async_message;
  CUDA_TRY(cudaGraphDestroy(graph));
  CUDA_TRY(cudaStreamDestroy(capture));
  // The same stream, no longer capturing, serves a host result.
  cudaStream_t plain;
  CUDA_TRY(cudaStreamCreateWithFlags(&plain, cudaStreamNonBlocking));
  EXPECT_EQ(reducelab::reduce(in, 1000, add{}, plain), 1000);
  CUDA_TRY(cudaStreamDestroy(plain));
}

// The device-result call keeps one workspace per stream (detail/resources.hpp): launches on different streams
// run at the same time, and each must still finish (a shared workspace could leave a last block waiting on a
// word another launch overwrote) with its own right answer. Many streams, each given several launches, all
// enqueued before any is awaited; more streams than the cache keeps, so evictions happen along the way.
TEST(LibraryReduce, ConcurrentStreamsEachGetTheirOwnWorkspace) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  constexpr int streams = 80;  // > stream_workspaces::max_streams
  static_assert(streams > static_cast<int>(reducelab::detail::stream_workspaces::max_streams));
  const std::size_t n = (std::size_t{1} << 20) + 3;
  const std::vector<std::int32_t> host = random_values<std::int32_t>(n, 5);
  const thrust::device_vector<std::int32_t> d(host.begin(), host.end());
  std::vector<cudaStream_t> s(streams);
  for (auto& x : s) CUDA_TRY(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
  device_buffer out(sizeof(std::int32_t) * streams * 3);
  auto* o = static_cast<std::int32_t*>(out.data());
  for (int round = 0; round < 3; ++round)
    for (int i = 0; i < streams; ++i) {
      const std::size_t len = n - static_cast<std::size_t>(i) * 1000;  // a different answer per stream
      reducelab::reduce(thrust::raw_pointer_cast(d.data()), len, o + round * streams + i, add{}, s[i]);
    }
  CUDA_TRY(cudaDeviceSynchronize());
  std::vector<std::int32_t> got(streams * 3);
  CUDA_TRY(cudaMemcpy(got.data(), o, sizeof(std::int32_t) * got.size(), cudaMemcpyDeviceToHost));
  for (int round = 0; round < 3; ++round)
    for (int i = 0; i < streams; ++i)
      EXPECT_EQ(got[round * streams + i], host_reduce(host, 0, n - static_cast<std::size_t>(i) * 1000, add{}))
          << "stream " << i << ", round " << round;
  for (auto& x : s) CUDA_TRY(cudaStreamDestroy(x));
}

// Captured into a graph, the call allocates its workspace in the graph (an allocation node) and clears it (a
// memset node); the graph is launched on two other streams in turn, over different input.
TEST(LibraryReduce, GraphCaptureGetsItsOwnWorkspace) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  const std::size_t n = (std::size_t{1} << 22) + 9;
  const std::vector<std::int32_t> host = random_values<std::int32_t>(n, 6);
  thrust::device_vector<std::int32_t> d(host.begin(), host.end());
  device_buffer out(sizeof(std::int32_t));
  cudaStream_t capture, a, b;
  CUDA_TRY(cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking));
  CUDA_TRY(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CUDA_TRY(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  cudaGraph_t graph;
  CUDA_TRY(cudaStreamBeginCapture(capture, cudaStreamCaptureModeThreadLocal));
  reducelab::reduce(thrust::raw_pointer_cast(d.data()), n, static_cast<std::int32_t*>(out.data()), add{}, capture);
  CUDA_TRY(cudaStreamEndCapture(capture, &graph));
  cudaGraphExec_t exec;
  CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_TRY(cudaGraphLaunch(exec, a));
  CUDA_TRY(cudaStreamSynchronize(a));
  std::int32_t got = 0;
  CUDA_TRY(cudaMemcpy(&got, out.data(), sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, host_reduce(host, 0, n, add{}));
  // New input, same graph: every replay runs with the epoch captured once, so a replay that read the previous
  // replay's partials would return the old sum.
  const std::vector<std::int32_t> next = random_values<std::int32_t>(n, 7);
  CUDA_TRY(cudaMemcpy(thrust::raw_pointer_cast(d.data()), next.data(), n * sizeof(std::int32_t),
                      cudaMemcpyHostToDevice));
  CUDA_TRY(cudaMemset(out.data(), 0, sizeof got));
  CUDA_TRY(cudaDeviceSynchronize());  // both went to the legacy stream, which `b` (non-blocking) does not wait for
  CUDA_TRY(cudaGraphLaunch(exec, b));
  CUDA_TRY(cudaStreamSynchronize(b));
  CUDA_TRY(cudaMemcpy(&got, out.data(), sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, host_reduce(next, 0, n, add{}));
  CUDA_TRY(cudaGraphExecDestroy(exec));
  CUDA_TRY(cudaGraphDestroy(graph));
  for (auto x : {capture, a, b}) CUDA_TRY(cudaStreamDestroy(x));
}

namespace {
template <class FnT>
std::string refusal(FnT&& fn) {
  try {
    fn();
  } catch (const reducelab::usage_error& e) {
    return e.what();
  }
  return "(accepted)";
}
}  // namespace

TEST(LibraryReduce, BadArgumentsAreRefusedByNameBeforeAnyLaunch) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  const thrust::device_vector<int> d(1000, 1);
  const int* in = thrust::raw_pointer_cast(d.data());
  device_buffer out(sizeof(int));
  int* d_out = static_cast<int*>(out.data());
  EXPECT_NE(refusal([&] { reducelab::reduce(static_cast<const int*>(nullptr), 10, d_out, add{}); }).find("input pointer is null"),
            std::string::npos);
  EXPECT_NE(refusal([&] { reducelab::reduce(in, 10, static_cast<int*>(nullptr), add{}); }).find("output pointer is null"),
            std::string::npos);
  std::vector<int> pageable(1000, 1);
  EXPECT_NE(refusal([&] { reducelab::reduce(static_cast<const int*>(pageable.data()), 1000, add{}); }).find("ordinary host memory"),
            std::string::npos);
  EXPECT_NE(refusal([&] { reducelab::reduce(in, 10, pageable.data(), add{}); }).find("output pointer is ordinary host memory"),
            std::string::npos);
  const std::size_t minus_one = static_cast<std::size_t>(-1);
  EXPECT_NE(refusal([&] { reducelab::reduce(in, minus_one, add{}); }).find("exceed the address space"), std::string::npos);
  const std::size_t big = std::size_t{1} << 24;
  const std::size_t need = reducelab::reduce_workspace_bytes<int>(big, add{});
  ASSERT_GT(need, 0u);
  const thrust::device_vector<int> large(big, 1);
  device_buffer small_ws(16);
  EXPECT_NE(refusal([&] {
              reducelab::reduce(thrust::raw_pointer_cast(large.data()), big, d_out, small_ws.data(), 16, add{});
            }).find("smaller than the"),
            std::string::npos);
  EXPECT_NE(refusal([&] { reducelab::reduce(thrust::raw_pointer_cast(large.data()), big, d_out, nullptr, 0, add{}); })
                .find("workspace pointer is null"),
            std::string::npos);
  // Nothing was launched by the refused calls: the output still holds what was there.
  CUDA_TRY(cudaMemset(d_out, 0, sizeof(int)));
  (void)refusal([&] { reducelab::reduce(in, 10, static_cast<int*>(nullptr), add{}); });
  int got = -1;
  CUDA_TRY(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, 0);
}

TEST(LibraryReduce, AnotherDevicesPointerOrStreamIsRefused) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  int devices = 0;
  CUDA_TRY(cudaGetDeviceCount(&devices));
  if (devices < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << devices;
  CUDA_TRY(cudaSetDevice(1));
  const thrust::device_vector<int> on_1(100, 1);
  cudaStream_t stream_1 = nullptr;
  CUDA_TRY(cudaStreamCreate(&stream_1));
  CUDA_TRY(cudaSetDevice(0));
  const thrust::device_vector<int> on_0(100, 1);
  EXPECT_NE(refusal([&] { reducelab::reduce(thrust::raw_pointer_cast(on_1.data()), 100, add{}); }).find("belongs to device 1"),
            std::string::npos);
  EXPECT_NE(refusal([&] { reducelab::reduce(thrust::raw_pointer_cast(on_0.data()), 100, add{}, stream_1); })
                .find("stream belongs to device 1"),
            std::string::npos);
  CUDA_TRY(cudaSetDevice(1));
  CUDA_TRY(cudaStreamDestroy(stream_1));
  CUDA_TRY(cudaSetDevice(0));
}
