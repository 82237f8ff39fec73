// GPU: reducelab::segmented_reduce and reducelab::reduce_by_key, the library's segmented entries — against the in-order
// host fold of every segment, for int32 sums (exact), a non-commutative exact functor (composition of affine maps, as
// 4-byte-aligned pairs and as the registry's 8-byte-aligned affine32, which the pieces walk reads in 16-byte vectors)
// and double sums (within an order-free error bound), on the layouts that stress a segmented reduction: uniform lengths from
// 1 to 2^16, one giant segment among a million tiny ones, 90 % empty segments, lengths 0..3, separate begin/end arrays
// with gaps, overlaps and empty segments, and the stream walk of long segments under a policy that picks it everywhere;
// reduce_by_key with runs of one and of random lengths; empty inputs; refusals.
#include "exact_test_functors.hpp"
#include "functors/affine_compose.cuh"
#include "gpu_test.hpp"
#include "reducelab/segmented_reduce.cuh"
#include "segmented_layouts.hpp"

#include <thrust/device_vector.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace segmented_library_test {  // named: an unnamed one makes nvcc warn about the unread `commutative` members

using exact_test::add;
using exact_test::affine_u32;
using exact_test::compose;
using exact_test::same;

/// The registry's map (functors/affine_compose.cuh): aligned to its 8 bytes, so a lane of the pieces walk reads its
/// chunk of a segment in 16-byte vectors with an unaligned head and tail (segment_pieces.cuh, fold_run_in_order),
/// where affine_u32 (4-byte aligned) goes element by element.
using aligned_affine = reducelab::functors::affine32;
/// The registry's 16-byte map: one value per 16-byte vector.
using wide_affine = reducelab::functors::affine64;
using reducelab::functors::affine_compose;

bool same(std::int32_t x, std::int32_t y) { return x == y; }
bool same(const aligned_affine& x, const aligned_affine& y) { return x == y; }
bool same(const wide_affine& x, const wide_affine& y) { return x == y; }
bool same(std::uint8_t x, std::uint8_t y) { return x == y; }

std::string show(const affine_u32& x) { return "{" + std::to_string(x.a) + ", " + std::to_string(x.b) + "}"; }
std::string show(const aligned_affine& x) { return x.to_string(); }
std::string show(const wide_affine& x) { return x.to_string(); }
template <class T>
std::string show(const T& x) {
  return std::to_string(x);
}

template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed);
template <>
std::vector<std::int32_t> random_values(std::size_t n, std::uint64_t seed) {
  // Small values: the largest segment's sum stays far from int32 overflow (signed overflow is undefined on the host).
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> dist(-100, 100);
  std::vector<std::int32_t> v(n);
  for (auto& x : v) x = dist(rng);
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
std::vector<wide_affine> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<wide_affine> v(n);
  for (auto& x : v) x = {rng() | 1u, rng()};  // odd multipliers: no composition collapses to a constant
  return v;
}
template <>
std::vector<aligned_affine> random_values(std::size_t n, std::uint64_t seed) {
  const std::vector<affine_u32> maps = exact_test::random_maps(n, seed);
  std::vector<aligned_affine> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = {maps[i].a, maps[i].b};
  return v;
}
template <>
std::vector<double> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

using namespace segmented_layouts;

/// The result of segment i: the in-order fold (exact types), checked exactly.
template <class T, class OpT>
void expect_exact(const std::vector<T>& got, const std::vector<T>& in, const layout& l, OpT op, const std::string& path) {
  ASSERT_EQ(got.size(), l.begins.size());
  int reported = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    T want = reducelab::identity_of<OpT, T>();
    for (long long j = l.begins[i]; j < l.ends[i]; ++j) want = op(want, in[j]);
    if (!same(got[i], want) && reported++ < 5)
      ADD_FAILURE() << l.name << " (" << path << "): segment " << i << " of " << got.size() << " [" << l.begins[i] << ", "
                    << l.ends[i] << "): got " << show(got[i]) << ", want " << show(want);
  }
  EXPECT_EQ(reported, 0) << l.name << " (" << path << "): " << reported << " segments wrong";
}

/// Double sums: the library promises no particular combine tree for a segment (a thread's run, the block scan, the
/// blocks' carries), so the bound is the one that holds for every order of summation (Higham, Accuracy and Stability
/// of Numerical Algorithms, eq. 4.4): |computed - exact| <= gamma(len - 1) * sum |x|, gamma(k) = k*u / (1 - k*u),
/// u = 2^-53, with the exact sum taken in long double in input order (its own error, at most len * 2^-64 * sum |x|, is
/// added). Loose as it is (2^16 values in [-1, 1): about 2.4e-7 absolute), a dropped or doubled value (|x| is 0.5 on
/// average) misses it by six orders of magnitude.
void expect_within_bound(const std::vector<double>& got, const std::vector<double>& in, const layout& l,
                         const std::string& path) {
  ASSERT_EQ(got.size(), l.begins.size());
  int reported = 0;
  const long double u = std::ldexp(1.0L, -53);
  for (std::size_t i = 0; i < got.size(); ++i) {
    long double exact = 0, sum_abs = 0;
    long long len = 0;
    for (long long j = l.begins[i]; j < l.ends[i]; ++j, ++len) {
      exact += in[j];
      sum_abs += std::fabs(in[j]);
    }
    const long double k = static_cast<long double>(len > 0 ? len - 1 : 0);
    const long double bound = k * u / (1 - k * u) * sum_abs + len * std::ldexp(1.0L, -64) * sum_abs;
    const long double err = std::fabs(static_cast<long double>(got[i]) - exact);
    const bool ok = len == 0 ? std::signbit(got[i]) == std::signbit(0.0) && got[i] == 0.0 : err <= bound;
    if (!ok && reported++ < 5)
      ADD_FAILURE() << l.name << " (" << path << "): segment " << i << " [" << l.begins[i] << ", " << l.ends[i]
                    << "): got " << got[i] << ", exact " << static_cast<double>(exact) << ", bound "
                    << static_cast<double>(bound);
  }
  EXPECT_EQ(reported, 0) << l.name << " (" << path << "): " << reported << " segments wrong";
}

template <class T>
const T* raw(const thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}
template <class T>
T* raw(thrust::device_vector<T>& v) {
  return thrust::raw_pointer_cast(v.data());
}

enum class path { flat, general };

/// Reduce `l` on the GPU by the given path: flat passes one offsets array (begin_offsets, begin_offsets + 1), general
/// two separate arrays. OffsetT: the offsets' type.
template <class T, class OffsetT, class OpT>
std::vector<T> device_segments(const thrust::device_vector<T>& d_in, const layout& l, path p, OpT op) {
  const std::size_t s = l.begins.size();
  thrust::device_vector<T> d_out(s);
  if (p == path::flat) {
    std::vector<OffsetT> offsets;
    for (std::size_t i = 0; i < s; ++i) offsets.push_back(static_cast<OffsetT>(l.begins[i]));
    offsets.push_back(static_cast<OffsetT>(s > 0 ? l.ends.back() : 0));
    const thrust::device_vector<OffsetT> d_offsets(offsets.begin(), offsets.end());
    reducelab::segmented_reduce(raw(d_in), raw(d_offsets), raw(d_offsets) + 1, s, raw(d_out), op);
  } else {
    std::vector<OffsetT> b(s), e(s);
    for (std::size_t i = 0; i < s; ++i) {
      b[i] = static_cast<OffsetT>(l.begins[i]);
      e[i] = static_cast<OffsetT>(l.ends[i]);
    }
    const thrust::device_vector<OffsetT> d_b(b.begin(), b.end()), d_e(e.begin(), e.end());
    reducelab::segmented_reduce(raw(d_in), raw(d_b), raw(d_e), s, raw(d_out), op);
  }
  CUDA_TRY(cudaDeviceSynchronize());
  std::vector<T> got(s);
  if (s > 0) CUDA_TRY(cudaMemcpy(got.data(), raw(d_out), s * sizeof(T), cudaMemcpyDeviceToHost));
  return got;
}

/// The three value types on one layout, by the given paths (flat needs consecutive segments).
void expect_layout(const layout& l, bool flat_too, std::uint64_t seed) {
  SCOPED_TRACE(l.name);
  std::vector<path> paths{path::general};
  if (flat_too) paths.insert(paths.begin(), path::flat);
  for (path p : paths) {
    const std::string name = p == path::flat ? "one offsets array" : "begin/end arrays";
    {
      const std::vector<std::int32_t> in = random_values<std::int32_t>(l.n, seed);
      const thrust::device_vector<std::int32_t> d(in.begin(), in.end());
      expect_exact(device_segments<std::int32_t, int>(d, l, p, add{}), in, l, add{}, name + ", int32 +");
    }
    {
      const std::vector<affine_u32> in = random_values<affine_u32>(l.n, seed + 1);
      const thrust::device_vector<affine_u32> d(in.begin(), in.end());
      expect_exact(device_segments<affine_u32, long long>(d, l, p, compose{}), in, l, compose{}, name + ", affine");
    }
    {
      const std::vector<aligned_affine> in = random_values<aligned_affine>(l.n, seed + 3);
      const thrust::device_vector<aligned_affine> d(in.begin(), in.end());
      expect_exact(device_segments<aligned_affine, long long>(d, l, p, affine_compose{}), in, l, affine_compose{},
                   name + ", aligned affine");
    }
    {
      const std::vector<double> in = random_values<double>(l.n, seed + 2);
      const thrust::device_vector<double> d(in.begin(), in.end());
      expect_within_bound(device_segments<double, unsigned>(d, l, p, add{}), in, l, name + ", double +");
    }
  }
}

template <class FnT>
std::string refusal(FnT&& fn) {
  try {
    fn();
  } catch (const reducelab::usage_error& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace segmented_library_test
using namespace segmented_library_test;

TEST(LibrarySegmentedReduce, UniformLengthsFromOneTo65536) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  for (long long len : {1LL, 8LL, 32LL, 256LL, 4096LL, 65536LL}) {
    const std::size_t count = static_cast<std::size_t>((std::size_t{1} << 21) / len + 3);  // about 2^21 values
    expect_layout(consecutive(uniform(count, len), "uniform length " + std::to_string(len)), true,
                  static_cast<std::uint64_t>(len));
  }
}

TEST(LibrarySegmentedReduce, OneGiantSegmentAmongAMillionTinyOnes) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  std::vector<long long> lengths = random_lengths(1'000'000, 0, 3, 5);
  lengths[500'000] = std::int64_t{1} << 22;  // about half of the data
  expect_layout(consecutive(lengths, "giant among tiny"), true, 21);
  expect_layout(consecutive({(std::int64_t{1} << 22) + 17}, "one segment"), true, 22);
}

TEST(LibrarySegmentedReduce, NinetyPercentEmpty) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(9);
  std::vector<long long> lengths(1'000'000, 0);
  for (auto& l : lengths)
    if (rng() % 10 == 0) l = 1 + static_cast<long long>(rng() % 64);
  expect_layout(consecutive(lengths, "90 % empty"), true, 31);
  expect_layout(consecutive(uniform(300'000, 0), "all empty"), true, 32);
}

TEST(LibrarySegmentedReduce, RandomLengthsZeroToThreeAndAnOffsetStart) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  expect_layout(consecutive(random_lengths(2'000'000, 0, 3, 41), "lengths 0..3"), true, 41);
  // The first segment starts at value 5: the values before it are not part of any segment.
  expect_layout(consecutive(random_lengths(1000, 0, 300, 42), "offsets from 5", 5), true, 42);
  for (std::size_t count : {1, 2, 7, 31, 33, 65, 1000})
    expect_layout(consecutive(random_lengths(count, 0, 40, count), "few segments: " + std::to_string(count)), true,
                  static_cast<std::uint64_t>(count));
}

// The short-segment walk (agent/segment_pieces.cuh, reduce_short_pieces) takes stretches that average fewer than
// pieces_short_average elements per segment (segmented/tuning.hpp: 7 for 4-byte values, 4 for wider ones): uniform
// lengths on both sides of either line.
TEST(LibrarySegmentedReduce, UniformLengthsAroundTheShortWalksLine) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  for (long long len : {2LL, 3LL, 4LL, 5LL, 6LL, 7LL, 8LL, 9LL}) {
    const std::size_t count = static_cast<std::size_t>((std::size_t{1} << 21) / len + 5);
    expect_layout(consecutive(uniform(count, len), "uniform length " + std::to_string(len)), true,
                  static_cast<std::uint64_t>(100 + len));
  }
}

// The short-segment pass (kernels/short_segments.cuh) takes launches that average at most short_pass_max_average
// elements per segment (segmented/tuning.hpp: 14 for 4-byte values, 12 for 8-byte ones) and reduces segments of up to
// short_pass_max_length (128) itself; a longer one hands the launch back to the merge-path pass, which then reduces
// only the longer ones (its walks skip the others: the pieces walks, the stream walk, and the look-back's join).
// Averages on both sides of the line, and segments of 128 and 129 among ones.
TEST(LibrarySegmentedReduce, ShortPassLinesAndItsHandBack) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  for (long long len : {1LL, 11LL, 12LL, 13LL, 14LL, 15LL}) {
    const std::size_t count = static_cast<std::size_t>((std::size_t{1} << 20) / len + 7);
    expect_layout(consecutive(uniform(count, len), "uniform length " + std::to_string(len)), true,
                  static_cast<std::uint64_t>(200 + len));
  }
  for (long long longest : {128LL, 129LL}) {
    std::vector<long long> lengths(600'000, 1);
    for (std::size_t i = 0; i < lengths.size(); i += 4099) lengths[i] = longest;
    expect_layout(consecutive(lengths, "ones with some of " + std::to_string(longest)), true,
                  static_cast<std::uint64_t>(longest));
  }
  std::vector<long long> lengths = random_lengths(700'000, 0, 6, 71);
  lengths.back() = 100'000;  // the last segment: the merge-path pass's last blocks take the hand-back's giant
  expect_layout(consecutive(lengths, "lengths 0..6, the last one long"), true, 72);
  // Lengths 0..200 with an average under 12: short ones that cross the merge-path pass's block boundaries and long
  // ones beside them, so that blocks begin, pass through and end in segments of both kinds.
  std::mt19937_64 rng(73);
  std::vector<long long> mixed(400'000);
  for (auto& l : mixed) l = rng() % 16 == 0 ? 100 + static_cast<long long>(rng() % 101) : static_cast<long long>(rng() % 5);
  expect_layout(consecutive(mixed, "lengths 0..4 and one in sixteen 100..200"), true, 74);
  // A stretch the stream walk takes (average 512 or more) with short segments at its edges: a giant among ones.
  std::vector<long long> giant(300'000, 1);
  giant[150'000] = std::int64_t{1} << 21;
  expect_layout(consecutive(giant, "a giant among ones"), true, 75);
  // The host launches the pass only from short_pass_launches' line (SMs x 2048 / 32 segments): on either side of it,
  // lengths 0..12 and one segment of 129 (handed back where the pass runs).
  int device = 0, sms = 0;
  CUDA_TRY(cudaGetDevice(&device));
  CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const long long line = (static_cast<long long>(sms) * 2048 + 31) / 32;
  ASSERT_TRUE(reducelab::segmented::kernels::short_pass_launches(line, static_cast<long long>(sms) * 2048));
  ASSERT_FALSE(reducelab::segmented::kernels::short_pass_launches(line - 1, static_cast<long long>(sms) * 2048));
  for (long long count : {line - 1, line}) {
    std::vector<long long> around = random_lengths(static_cast<std::size_t>(count), 0, 12, 76);
    around[static_cast<std::size_t>(count / 2)] = 129;
    expect_layout(consecutive(around, "lengths 0..12, " + std::to_string(count) + " segments"), true,
                  static_cast<std::uint64_t>(count));
  }
}

// The short pass's group mode (kernels/short_segments.cuh; segmented/tuning.hpp, group_pass_*): averages of 32 to 1024
// elements per segment (8-byte values: 16 to 512), with enough segments to fill the device and the elements evenly
// spread, go to groups of 8 lanes (two segments per group at once for 4-byte values below 128; 8-byte values below an
// average of 32: groups of 4 lanes). Uniform lengths at each line;
// lengths that vary within a warp (the warp steps to its longest); segments past the plan's max_length among
// group-mode ones (handed back to the merge-path pass, which skips the others); a giant that the spread check refuses
// (for affine maps, the one functor here that is not commutative; the others hand it back).
TEST(LibrarySegmentedReduce, GroupModeShapesAndItsHandBack) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  for (long long len :
       {15LL, 16LL, 17LL, 24LL, 31LL, 32LL, 127LL, 128LL, 129LL, 255LL, 256LL, 512LL, 513LL, 1024LL, 1025LL}) {
    // at least 9000 segments: the group mode needs about 8 400 on a 132-SM GPU
    const std::size_t count = std::max<std::size_t>((std::size_t{1} << 22) / len + 3, 9'000);
    expect_layout(consecutive(uniform(count, len), "uniform length " + std::to_string(len)), true,
                  static_cast<std::uint64_t>(300 + len));
  }
  expect_layout(consecutive(random_lengths(80'000, 0, 100, 91), "lengths 0..100"), true, 91);
  expect_layout(consecutive(random_lengths(40'000, 0, 250, 92), "lengths 0..250"), true, 92);
  expect_layout(consecutive(random_lengths(10'000, 0, 1000, 95), "lengths 0..1000"), true, 95);
  // Averages about 1000 (4-byte values: the pass keeps segments of up to 2000) with one in 900 of 3000.
  std::vector<long long> long_back = random_lengths(10'000, 500, 1500, 96);
  for (std::size_t i = 5; i < long_back.size(); i += 900) long_back[i] = 3000;
  expect_layout(consecutive(long_back, "lengths 500..1500 with some of 3000"), true, 96);
  // Averages about 64 (8 lanes: the pass keeps segments of up to 512) with one in 5000 of 5000 and a last one of 2^17.
  std::vector<long long> handed_back = random_lengths(150'000, 30, 98, 93);
  for (std::size_t i = 17; i < handed_back.size(); i += 5000) handed_back[i] = 5000;
  handed_back.back() = 1 << 17;
  expect_layout(consecutive(handed_back, "lengths 30..98 with some of 5000"), true, 93);
  // Averages about 24 (8-byte values: groups of 4 lanes, which keep segments of up to 256) with one in 4000 of 300 to
  // 1000 and a last one of 2^17.
  std::vector<long long> narrow = random_lengths(120'000, 8, 40, 97);
  for (std::size_t i = 11; i < narrow.size(); i += 4000) narrow[i] = 300 + static_cast<long long>(i % 701);
  narrow.back() = 1 << 17;
  expect_layout(consecutive(narrow, "lengths 8..40 with some of 300..1000"), true, 97);
  // Segments of 32 around one of 2^22: the stretch that holds it is over 4 times its share, so for affine maps the
  // merge-path pass takes the launch; for the commutative functors the group mode takes the segments of 32 and hands
  // the giant back.
  // Segments of 8 around one of 1.6 million (an average of 15, as the giant layout at 2^24): 4-byte values take the
  // 4-lane groups, which hand the giant back (affine maps: the merge-path pass).
  std::vector<long long> tiny(200'000, 8);
  tiny[100'000] = 1'600'000;
  expect_layout(consecutive(tiny, "a giant among segments of 8"), true, 98);
  std::vector<long long> giant(200'000, 32);
  giant[100'000] = std::int64_t{1} << 22;
  expect_layout(consecutive(giant, "a giant among segments of 32"), true, 94);
}

// The short pass's group mode lists the first hand_back_capacity (30) segments it hands back, and the merge-path pass
// then shares their elements alone over its whole grid (agent/listed_segments.cuh); one more and it walks the whole
// path as before, as it does for the thread mode, which lists none. At the capacity and one past it, in the thread
// mode (lengths 0..12, long ones of 3000 and more) and the group mode (lengths 30..98, long ones of 5000 and more; for
// affine maps the spread check refuses this layout): long
// segments side by side at unaligned starts (a block's share holds several and ends inside one) and a giant that
// spans many blocks.
TEST(LibrarySegmentedReduce, HandBackListAtItsCapacityAndPast) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  constexpr int capacity = reducelab::segmented::kernels::hand_back_capacity;
  for (int handed_back : {1, capacity, capacity + 1}) {
    std::vector<long long> thread_mode = random_lengths(400'000, 0, 12, 80 + handed_back);
    for (int i = 0; i + 1 < handed_back; ++i) thread_mode[1000 + 2 * static_cast<std::size_t>(i)] = 3000 + i;
    thread_mode[300'000] = std::int64_t{1} << 21;
    expect_layout(consecutive(thread_mode, "lengths 0..12, " + std::to_string(handed_back) + " long"), true,
                  static_cast<std::uint64_t>(80 + handed_back));
    std::vector<long long> group_mode = random_lengths(150'000, 30, 98, 120 + handed_back);
    for (int i = 0; i + 1 < handed_back; ++i) group_mode[500 + 3 * static_cast<std::size_t>(i)] = 5000 + 7 * i;
    group_mode[100'000] = std::int64_t{1} << 20;
    expect_layout(consecutive(group_mode, "lengths 30..98, " + std::to_string(handed_back) + " long"), true,
                  static_cast<std::uint64_t>(120 + handed_back));
  }
}

// A commutative functor over an 8-byte struct aligned to 4 bytes, its input 4 bytes past a 16-byte boundary: no value
// starts on a 16-byte boundary, so nothing may fold it in 16-byte vectors. The group mode's layout with a few long
// segments and a giant handed back and listed, which the whole grid then shares (agent/listed_segments.cuh: as
// written at 4f101a1, its head left such values' vectors 4 bytes off a 16-byte boundary).
struct halves {
  std::uint32_t lo, hi;
};
static_assert(alignof(halves) == 4 && sizeof(halves) == 8);
struct add_halves {
  static constexpr bool commutative = true;
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T{0u, 0u};
  }
  __host__ __device__ halves operator()(const halves& a, const halves& b) const { return {a.lo + b.lo, a.hi + b.hi}; }
};

TEST(LibrarySegmentedReduce, HandBackOfValuesNotAlignedToTheirSize) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  std::vector<long long> lengths = random_lengths(150'000, 30, 98, 17);
  for (int i = 0; i < 5; ++i) lengths[500 + 3 * static_cast<std::size_t>(i)] = 5001 + 7 * i;
  lengths[100'000] = (std::int64_t{1} << 20) + 3;
  const layout l = consecutive(lengths, "lengths 30..98, 6 long, values at a 4-byte offset");
  std::mt19937_64 rng(18);
  std::vector<halves> in(l.n);
  for (auto& x : in) x = {static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng())};
  thrust::device_vector<unsigned char> bytes(16 + l.n * sizeof(halves));
  halves* d_in = reinterpret_cast<halves*>(raw(bytes) + 4);  // cudaMalloc's 256-byte alignment, plus 4
  CUDA_TRY(cudaMemcpy(d_in, in.data(), l.n * sizeof(halves), cudaMemcpyHostToDevice));
  std::vector<long long> offsets(l.begins.begin(), l.begins.end());
  offsets.push_back(l.ends.back());
  const thrust::device_vector<long long> d_offsets(offsets.begin(), offsets.end());
  thrust::device_vector<halves> d_out(l.begins.size());
  reducelab::segmented_reduce(static_cast<const halves*>(d_in), raw(d_offsets), raw(d_offsets) + 1, l.begins.size(),
                              raw(d_out), add_halves{});
  CUDA_TRY(cudaDeviceSynchronize());
  std::vector<halves> got(l.begins.size());
  CUDA_TRY(cudaMemcpy(got.data(), raw(d_out), got.size() * sizeof(halves), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    halves want{0u, 0u};
    for (long long j = l.begins[i]; j < l.ends[i]; ++j) want = add_halves{}(want, in[static_cast<std::size_t>(j)]);
    if ((got[i].lo != want.lo || got[i].hi != want.hi) && wrong++ < 5)
      ADD_FAILURE() << "segment " << i << " [" << l.begins[i] << ", " << l.ends[i] << "): got (" << got[i].lo << ", "
                    << got[i].hi << "), want (" << want.lo << ", " << want.hi << ")";
  }
  EXPECT_EQ(wrong, 0);
}

// Short segments with one in five of 28 values. For int32 the stretches still average under 7 per segment, so they
// take the short walk, but on a GPU of 132 SMs (528 blocks) each holds about 490 pieces of 4 x the average or longer,
// more than the warps' list has room for (256 per block): the rest stay with the lane that found them. The 8-byte
// types take the one-lane pieces walk, with the same overflow.
TEST(LibrarySegmentedReduce, ShortWalkWhoseWarpListOverflows) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(61);
  std::vector<long long> lengths(1'300'000, 1);
  for (auto& l : lengths)
    if (rng() % 5 == 0) l = 28;
  expect_layout(consecutive(lengths, "one in five of 28 among ones"), true, 62);
}

TEST(LibrarySegmentedReduce, SeparateBeginEndArraysWithGapsOverlapsAndEmpties) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(51);
  const long long n = 1 << 20;
  layout l;
  l.name = "gaps, overlaps, empties, any order";
  l.n = static_cast<std::size_t>(n);
  for (int i = 0; i < 200'000; ++i) {
    const long long b = static_cast<long long>(rng() % n);
    const long long len = static_cast<long long>(rng() % 60) - 10;  // some end before they begin: empty
    const long long e = b + len < 0 ? 0 : b + len > n ? n : b + len;
    l.begins.push_back(b);
    l.ends.push_back(e);
  }
  l.begins.push_back(0);  // one segment over all of the input, overlapping every other
  l.ends.push_back(n);
  l.begins.push_back(n);  // empty, at the very end
  l.ends.push_back(n);
  expect_layout(l, false, 51);
  // Consecutive layouts through the general path too: the same answers, whatever the lengths.
  expect_layout(consecutive(uniform(600, 4096), "uniform 4096, two arrays"), false, 52);
  std::vector<long long> lengths = random_lengths(300'000, 0, 3, 53);
  lengths[1000] = std::int64_t{1} << 21;
  expect_layout(consecutive(lengths, "giant among tiny, two arrays"), false, 53);
}

TEST(LibrarySegmentedReduce, OneByteValues) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  const layout l = consecutive(random_lengths(100'000, 0, 70, 61), "uint8 lengths 0..70");
  const std::vector<std::uint8_t> in = random_values<std::uint8_t>(l.n, 61);
  const thrust::device_vector<std::uint8_t> d(in.begin(), in.end());
  expect_exact(device_segments<std::uint8_t, int>(d, l, path::flat, add{}), in, l, add{}, "flat, uint8 +");
  expect_exact(device_segments<std::uint8_t, int>(d, l, path::general, add{}), in, l, add{}, "general, uint8 +");
}

TEST(LibrarySegmentedReduce, DoubleSumsAreBitwiseReproducible) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  std::vector<long long> lengths = random_lengths(200'000, 0, 20, 71);
  lengths[777] = 1 << 21;
  const layout l = consecutive(lengths, "reproducibility");
  const std::vector<double> in = random_values<double>(l.n, 71);
  const thrust::device_vector<double> d(in.begin(), in.end());
  const std::vector<double> first = device_segments<double, int>(d, l, path::flat, add{});
  for (int run = 0; run < 5; ++run) {
    const std::vector<double> again = device_segments<double, int>(d, l, path::flat, add{});
    ASSERT_EQ(std::memcmp(first.data(), again.data(), first.size() * sizeof(double)), 0) << "run " << run;
  }
}

TEST(LibrarySegmentedReduce, NoSegmentsLaunchesNothing) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // Null pointers are fine with no segments.
  reducelab::segmented_reduce(static_cast<const int*>(nullptr), static_cast<const int*>(nullptr),
                              static_cast<const int*>(nullptr), 0, static_cast<int*>(nullptr), add{});
  thrust::device_vector<int> out(1, 42);
  const thrust::device_vector<int> offsets(1, 0), in(1, 7);
  reducelab::segmented_reduce(raw(in), raw(offsets), raw(offsets) + 1, 0, raw(out), add{});
  CUDA_TRY(cudaDeviceSynchronize());
  EXPECT_EQ(out[0], 42);
}

TEST(LibrarySegmentedReduce, GraphReplaysSeeTheirOwnInput) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // A graph's replays launch with the epoch frozen at capture: without the captured clear of the carry slots, a replay
  // would take the previous replay's carries for its own. Segments that cross many blocks (a giant one, and lengths of
  // 4096) make every block publish and most look back; the input changes between replays. Then the short-segment
  // pass's two cases (kernels/short_segments.cuh): short segments only, and short ones with one it hands back (its
  // flag, cleared with the slots, must not survive into the next replay: a stale one would only redo the work).
  std::vector<long long> long_ones = uniform(2000, 4096);
  long_ones[700] = std::int64_t{1} << 23;
  std::vector<long long> handed_back = random_lengths(500'000, 0, 5, 81);
  handed_back[1234] = std::int64_t{1} << 20;
  // The group mode's hand-back too: lengths 30..98 (8 lanes per segment) and one of 2^18.
  std::vector<long long> group_handed_back = random_lengths(200'000, 30, 98, 83);
  group_handed_back[4321] = std::int64_t{1} << 18;
  for (const layout& l : {consecutive(long_ones, "graph replays, long segments"),
                          consecutive(random_lengths(500'000, 0, 5, 82), "graph replays, short segments"),
                          consecutive(handed_back, "graph replays, short segments and one long"),
                          consecutive(group_handed_back, "graph replays, group mode and one long")}) {
    SCOPED_TRACE(l.name);
    const std::size_t segments = l.begins.size();
    std::vector<long long> offsets(l.begins.begin(), l.begins.end());
    offsets.push_back(l.ends.back());
    const thrust::device_vector<long long> d_offsets(offsets.begin(), offsets.end());
    thrust::device_vector<std::int32_t> d_in(l.n);
    thrust::device_vector<std::int32_t> d_out(segments);
    cudaStream_t stream = nullptr;
    CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    CUDA_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    reducelab::segmented_reduce(raw(d_in), raw(d_offsets), raw(d_offsets) + 1, segments, raw(d_out), add{}, stream);
    CUDA_TRY(cudaStreamEndCapture(stream, &graph));
    CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 3; ++replay) {
      SCOPED_TRACE("replay " + std::to_string(replay));
      const std::vector<std::int32_t> in = random_values<std::int32_t>(l.n, 100 + replay);
      // On the replays' stream: a copy from pageable memory may return before its DMA lands, and a non-blocking
      // stream does not wait for the legacy default stream.
      CUDA_TRY(cudaMemcpyAsync(raw(d_in), in.data(), in.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice, stream));
      CUDA_TRY(cudaGraphLaunch(exec, stream));
      CUDA_TRY(cudaStreamSynchronize(stream));
      std::vector<std::int32_t> got(segments);
      CUDA_TRY(cudaMemcpy(got.data(), raw(d_out), got.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
      expect_exact(got, in, l, add{}, "graph replay");
    }
    CUDA_TRY(cudaGraphExecDestroy(exec));
    CUDA_TRY(cudaGraphDestroy(graph));
    CUDA_TRY(cudaStreamDestroy(stream));
  }
}

namespace segmented_library_test {

/// The default policy, but every stretch takes the merge-path tile walk (agent/merge_path_block.cuh), which the
/// default policy's pieces_min_average of 0 never picks.
template <class T>
struct tile_walk_policy : reducelab::segmented::tuning::default_policy<sizeof(T)> {
  static constexpr int pieces_min_average = 1 << 30;
};

/// The default policy, but every stretch of at most agent::max_stream_pieces pieces is read as one stream
/// (agent/stream_pieces.cuh) whatever its average length, where the functor and type allow: many piece ends per batch,
/// empty pieces, and piece ends inside the unaligned head and the tail, which the default policy's stretches of long
/// segments meet rarely.
template <class T>
struct stream_walk_policy : reducelab::segmented::tuning::default_policy<sizeof(T)> {
  static constexpr long long stream_min_average = 0;
};

/// The main kernel under PolicyT over one offsets array, launched as detail/dispatch.cuh does.
template <template <class> class PolicyT, class T, class OpT>
std::vector<T> segments_under(const std::vector<T>& in, const layout& l, OpT op, long long grid_blocks = 0) {
  namespace seg = reducelab::segmented;
  using policy = PolicyT<T>;
  const thrust::device_vector<T> d_in(in.begin(), in.end());
  std::vector<long long> offsets(l.begins.begin(), l.begins.end());
  offsets.push_back(l.ends.back());
  const thrust::device_vector<long long> d_offsets(offsets.begin(), offsets.end());
  thrust::device_vector<T> d_out(l.begins.size());
  const auto kernel = &seg::kernels::merge_path_segments<policy, seg::agent::element_map::contiguous, OpT, T, long long,
                                                         long long>;
  int device = 0, sms = 0, per_sm = 0;
  CUDA_TRY(cudaGetDevice(&device));
  CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, policy::block_threads, 0));
  // All resident, as the look-back needs (grid_blocks: fewer, for longer stretches).
  const long long grid = grid_blocks > 0 ? grid_blocks : static_cast<long long>(per_sm) * sms;
  thrust::device_vector<unsigned char> slots(seg::grid::carry_slots<T>::bytes_for(grid), 0);  // epoch 1 never seen
  seg::kernels::segment_count count;
  count.host = static_cast<long long>(l.begins.size());
  kernel<<<static_cast<unsigned>(grid), policy::block_threads>>>(
      raw(d_in), raw(d_offsets), static_cast<const long long*>(nullptr), count, raw(d_out),
      seg::grid::carry_slots<T>::carve(raw(slots), grid, 1), seg::kernels::short_pass_flag{nullptr, 0}, op);
  CUDA_TRY(cudaGetLastError());
  CUDA_TRY(cudaDeviceSynchronize());
  std::vector<T> got(l.begins.size());
  CUDA_TRY(cudaMemcpy(got.data(), raw(d_out), got.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return got;
}

}  // namespace segmented_library_test

/// The default policy: the merge-path pass as the library launches it, here without the short-segment pass before it.
template <class T>
using default_walk_policy = reducelab::segmented::tuning::default_policy<sizeof(T)>;

// The merge-path pass alone on short segments, which the short-segment pass takes from it in the library's launches
// (its own short walk, agent/segment_pieces.cuh, still serves the stretches of short segments in a launch handed back).
TEST(LibrarySegmentedReduce, MergePathPassAloneOnShortSegments) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  for (long long len : {1LL, 2LL, 5LL, 7LL, 8LL, 12LL}) {
    const layout l = consecutive(uniform(static_cast<std::size_t>((1 << 20) / len + 3), len),
                                 "merge path alone, uniform length " + std::to_string(len));
    SCOPED_TRACE(l.name);
    const std::vector<std::int32_t> ints = random_values<std::int32_t>(l.n, 80 + len);
    expect_exact(segments_under<default_walk_policy>(ints, l, add{}), ints, l, add{}, "int32 +");
    const std::vector<affine_u32> maps = random_values<affine_u32>(l.n, 90 + len);
    expect_exact(segments_under<default_walk_policy>(maps, l, compose{}), maps, l, compose{}, "affine");
  }
}

// A non-commutative functor over a type a 16-byte vector holds whole reads the pieces a warp or the whole block takes
// in warp tiles (agent/in_order_tiles.cuh): an unaligned head before the first 16-byte boundary, whole tiles dealt to
// the block's warps in contiguous runs, and a last partial tile. Affine maps of 8 and 16 bytes (one tile: 256 and 128
// maps), with segment lengths on either side of a tile, of a warp's share and of the block's line (long_run_items),
// from an aligned and an unaligned start, through both layouts; then stretches of more warp pieces than the warps' list
// holds (2048 per block: the rest go to 32-lane groups element by element), on a grid of 8 blocks.
TEST(LibrarySegmentedReduce, NonCommutativeWarpAndBlockPiecesInWarpTiles) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  const auto both = [](const layout& l, std::uint64_t seed) {
    SCOPED_TRACE(l.name);
    for (path p : {path::flat, path::general}) {
      const std::string name = p == path::flat ? "one offsets array" : "begin/end arrays";
      const std::vector<aligned_affine> narrow = random_values<aligned_affine>(l.n, seed);
      const thrust::device_vector<aligned_affine> dn(narrow.begin(), narrow.end());
      expect_exact(device_segments<aligned_affine, long long>(dn, l, p, affine_compose{}), narrow, l, affine_compose{},
                   name + ", affine32");
      const std::vector<wide_affine> wide = random_values<wide_affine>(l.n, seed + 1);
      const thrust::device_vector<wide_affine> dw(wide.begin(), wide.end());
      expect_exact(device_segments<wide_affine, long long>(dw, l, p, affine_compose{}), wide, l, affine_compose{},
                   name + ", affine64");
    }
  };
  for (long long len : {127LL, 128LL, 129LL, 255LL, 256LL, 257LL, 1000LL, 1001LL, 1535LL, 1536LL, 1537LL, 2048LL,
                        2049LL, 4095LL, 4097LL}) {
    const std::size_t count = static_cast<std::size_t>((std::size_t{1} << 20) / len + 3);
    both(consecutive(uniform(count, len), "uniform length " + std::to_string(len)), static_cast<std::uint64_t>(len));
    both(consecutive(uniform(count, len), "uniform length " + std::to_string(len) + " from 1", 1),
         static_cast<std::uint64_t>(len) + 7);
  }
  both(consecutive(random_lengths(3000, 200, 5000, 71), "lengths 200..5000 from 3", 3), 72);
  both(consecutive(random_lengths(300, 0, 70'000, 73), "lengths 0..70000"), 74);
  // 3500 pieces of 300 maps over 8 blocks: about 437 per stretch, most of the list.
  const layout crowded = consecutive(uniform(3500, 300), "uniform length 300, 8 blocks", 1);
  SCOPED_TRACE(crowded.name);
  const std::vector<aligned_affine> narrow = random_values<aligned_affine>(crowded.n, 75);
  expect_exact(segments_under<default_walk_policy>(narrow, crowded, affine_compose{}, 8), narrow, crowded,
               affine_compose{}, "affine32");
  const std::vector<wide_affine> wide = random_values<wide_affine>(crowded.n, 76);
  expect_exact(segments_under<default_walk_policy>(wide, crowded, affine_compose{}, 8), wide, crowded, affine_compose{},
               "affine64");
  // 20000 pieces of 0 to 600 maps over 8 blocks: about 2500 per stretch, more than the list holds, empty pieces among
  // them, and stretches that begin and end inside a segment.
  const layout crowded_more = consecutive(random_lengths(20000, 0, 600, 77), "lengths 0..600, 8 blocks", 2);
  SCOPED_TRACE(crowded_more.name);
  const std::vector<aligned_affine> narrow_w = random_values<aligned_affine>(crowded_more.n, 78);
  expect_exact(segments_under<default_walk_policy>(narrow_w, crowded_more, affine_compose{}, 8), narrow_w,
               crowded_more, affine_compose{}, "affine32, past the list");
  const std::vector<wide_affine> wide_w = random_values<wide_affine>(crowded_more.n, 79);
  expect_exact(segments_under<default_walk_policy>(wide_w, crowded_more, affine_compose{}, 8), wide_w, crowded_more,
               affine_compose{}, "affine64, past the list");
  // 4400 pieces of 1600 maps over 8 blocks: about 550 per stretch for the block's list of 512 (long_run_items 1536).
  const layout long_pieces = consecutive(uniform(4400, 1600), "uniform length 1600, 8 blocks", 3);
  SCOPED_TRACE(long_pieces.name);
  const std::vector<aligned_affine> narrow_l = random_values<aligned_affine>(long_pieces.n, 80);
  expect_exact(segments_under<default_walk_policy>(narrow_l, long_pieces, affine_compose{}, 8), narrow_l, long_pieces,
               affine_compose{}, "affine32, past the block's list");
}

TEST(LibrarySegmentedReduce, TileWalkUnderAPolicyThatPicksIt) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  std::vector<long long> giant = random_lengths(300'000, 0, 3, 61);
  giant[150'000] = std::int64_t{1} << 21;
  const std::vector<layout> layouts{consecutive(uniform(1 << 20, 1), "tiles, length 1"),
                                    consecutive(uniform(8192, 256), "tiles, length 256"),
                                    consecutive(random_lengths(200'000, 0, 40, 62), "tiles, lengths 0..40", 5),
                                    consecutive(giant, "tiles, giant among tiny")};
  for (const layout& l : layouts) {
    SCOPED_TRACE(l.name);
    const std::vector<std::int32_t> ints = random_values<std::int32_t>(l.n, 63);
    expect_exact(segments_under<tile_walk_policy>(ints, l, add{}), ints, l, add{}, "tile walk, int32 +");
    const std::vector<affine_u32> maps = random_values<affine_u32>(l.n, 64);
    expect_exact(segments_under<tile_walk_policy>(maps, l, compose{}), maps, l, compose{}, "tile walk, affine");
  }
}

// The stream walk on every stretch of at most 128 pieces: lengths that put several piece ends in one warp's batch
// (0..100, half of them empty), lengths on either side of a warp's batch of 16-byte vectors (4 x 32 x 16 bytes: 2048
// int32, 1024 doubles), and starts 1 to 3 values past 16-byte alignment, so that the head and the tail hold piece
// ends. Affine maps are not commutative: the same layouts check that they keep the pieces walk.
TEST(LibrarySegmentedReduce, StreamWalkUnderAPolicyThatPicksItEverywhere) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  std::vector<long long> half_empty = random_lengths(60'000, 0, 100, 71);
  for (std::size_t i = 0; i < half_empty.size(); i += 2) half_empty[i] = 0;
  const std::vector<layout> layouts{consecutive(random_lengths(40'000, 0, 100, 72), "stream, lengths 0..100", 1),
                                    consecutive(half_empty, "stream, half empty", 2),
                                    consecutive(uniform(1100, 2047), "stream, length 2047", 3),
                                    consecutive(uniform(1100, 2049), "stream, length 2049", 1),
                                    consecutive(uniform(2100, 1023), "stream, length 1023", 2),
                                    consecutive(uniform(2100, 1025), "stream, length 1025", 3),
                                    consecutive(random_lengths(3000, 0, 3000, 73), "stream, lengths 0..3000", 1),
                                    consecutive({5, 1LL << 21, 0, 7}, "stream, one long segment", 3)};
  for (const layout& l : layouts) {
    SCOPED_TRACE(l.name);
    const std::vector<std::int32_t> ints = random_values<std::int32_t>(l.n, 74);
    expect_exact(segments_under<stream_walk_policy>(ints, l, add{}), ints, l, add{}, "stream walk, int32 +");
    const std::vector<double> doubles = random_values<double>(l.n, 75);
    expect_within_bound(segments_under<stream_walk_policy>(doubles, l, add{}), doubles, l, "stream walk, double +");
    const std::vector<affine_u32> maps = random_values<affine_u32>(l.n, 76);
    expect_exact(segments_under<stream_walk_policy>(maps, l, compose{}), maps, l, compose{}, "pieces walk, affine");
  }
}

// The default policy streams stretches that average 512 elements per segment or more (segmented/tuning.hpp): lengths
// from there up, from an unaligned start, through the public entry.
TEST(LibrarySegmentedReduce, LongSegmentsFromAnUnalignedStartTakeTheStreamWalk) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  for (long long len : {512LL, 1000LL, 3001LL, 20'000LL}) {
    const std::size_t count = static_cast<std::size_t>((std::size_t{1} << 21) / len + 3);
    expect_layout(consecutive(uniform(count, len), "uniform length " + std::to_string(len) + " from 3", 3), true,
                  static_cast<std::uint64_t>(200 + len));
  }
  std::vector<long long> mixed = random_lengths(4000, 0, 1500, 81);
  for (std::size_t i = 0; i < mixed.size(); i += 7) mixed[i] = 0;
  expect_layout(consecutive(mixed, "lengths 0..1500, every 7th empty, from 1", 1), true, 82);
}

// ---------------------------------------------------------------------------------------------------------
// reduce_by_key
// ---------------------------------------------------------------------------------------------------------

namespace segmented_library_test {

/// Keys with runs of the given lengths (run r holds key r * 3 % 1000, so distant runs may share a key: only
/// consecutive equal keys form a run).
std::vector<int> keys_of_runs(const std::vector<long long>& run_lengths) {
  std::vector<int> keys;
  int previous = -1;
  for (std::size_t r = 0; r < run_lengths.size(); ++r) {
    int k = static_cast<int>(r * 3 % 1000);
    if (k == previous) k = (k + 1) % 1000;
    for (long long i = 0; i < run_lengths[r]; ++i) keys.push_back(k);
    previous = k;
  }
  return keys;
}

/// Which way expect_by_key calls: the public entry, or the stream path alone (reduce_by_key_on_stream_path) with its
/// lanes for long runs (4 items a lane for 8-byte pairs) or for short runs (8 items a lane; tuning.hpp's
/// by_key_stream_policy). Pairs of more than 8 bytes take the short-run lanes either way.
enum class by_key_call { entry, stream_path, stream_path_short_run_lanes };

/// The stream path (segmented/kernels/stream_runs.cuh) alone at any run length, its keys' sample skipped, at its
/// longest stretch (which the entry takes for large n only), so that the tests fill and overflow its stash.
template <class PolicyT = reducelab::segmented::tuning::by_key_stream_policy, class K, class T, class OpT>
void reduce_by_key_on_stream_path(const K* keys, const T* values, std::size_t n, K* unique_keys, T* values_out,
                                  long long* num_runs, OpT op, bool short_run_lanes = false) {
  using reducelab::segmented::kernels::run_sample;
  reducelab::segmented::detail::reduce_runs_streamed<PolicyT>(
      keys, values, static_cast<long long>(n), unique_keys, values_out, num_runs, op, cuda::std::equal_to<>{},
      short_run_lanes ? run_sample::always_short_runs : run_sample::always, nullptr,
      PolicyT::template warp_stretch<K, T>);
}

template <class T, class OpT>
void expect_by_key(const std::vector<int>& keys, OpT op, std::uint64_t seed, const std::string& name,
                   by_key_call call = by_key_call::entry, std::size_t value_offset = 0) {
  SCOPED_TRACE(name);
  const std::size_t n = keys.size();
  const std::vector<T> values = random_values<T>(n, seed);
  // Host reference: the runs as a layout.
  layout runs;
  runs.name = name;
  runs.n = n;
  std::vector<int> want_keys;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || keys[i] != keys[i - 1]) {
      if (i > 0) runs.ends.push_back(static_cast<long long>(i));
      runs.begins.push_back(static_cast<long long>(i));
      want_keys.push_back(keys[i]);
    }
  }
  if (n > 0) runs.ends.push_back(static_cast<long long>(n));

  const thrust::device_vector<int> d_keys(keys.begin(), keys.end());
  // value_offset > 0 puts the values off the 16-byte alignment the stream path asks for
  thrust::device_vector<T> d_values(n + value_offset);
  thrust::copy(values.begin(), values.end(), d_values.begin() + static_cast<std::ptrdiff_t>(value_offset));
  const T* values_at = raw(d_values) + value_offset;
  thrust::device_vector<int> d_unique(n > 0 ? n : 1);
  thrust::device_vector<T> d_out(n > 0 ? n : 1);
  thrust::device_vector<long long> d_runs(1, -1);
  if (call == by_key_call::entry) {
    reducelab::reduce_by_key(raw(d_keys), values_at, n, raw(d_unique), raw(d_out), raw(d_runs), op);
  } else if constexpr (reducelab::segmented::detail::streams_runs<int, T>) {
    reduce_by_key_on_stream_path(raw(d_keys), values_at, n, raw(d_unique), raw(d_out), raw(d_runs), op,
                                 call == by_key_call::stream_path_short_run_lanes);
  } else {
    FAIL() << "the stream path does not take these types";
  }
  CUDA_TRY(cudaDeviceSynchronize());
  const long long num_runs = d_runs[0];
  ASSERT_EQ(num_runs, static_cast<long long>(want_keys.size()));
  std::vector<int> got_keys(static_cast<std::size_t>(num_runs));
  std::vector<T> got(static_cast<std::size_t>(num_runs));
  if (num_runs > 0) {
    CUDA_TRY(cudaMemcpy(got_keys.data(), raw(d_unique), got_keys.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaMemcpy(got.data(), raw(d_out), got.size() * sizeof(T), cudaMemcpyDeviceToHost));
  }
  EXPECT_EQ(got_keys, want_keys);
  if constexpr (std::is_same_v<T, double>) {
    expect_within_bound(got, values, runs, "reduce_by_key");
  } else {
    expect_exact(got, values, runs, op, "reduce_by_key");
  }
}

/// Keys that compare equal when they share their tens: a caller's own key equality.
struct same_tens {
  __host__ __device__ bool operator()(int a, int b) const { return a / 10 == b / 10; }
};

void expect_by_key_all_types(const std::vector<int>& keys, std::uint64_t seed, const std::string& name) {
  expect_by_key<std::int32_t>(keys, add{}, seed, name + ", int32 +");
  expect_by_key<affine_u32>(keys, compose{}, seed + 1, name + ", affine");
  expect_by_key<double>(keys, add{}, seed + 2, name + ", double +");
}

}  // namespace segmented_library_test

TEST(LibraryReduceByKey, RunsOfLengthOne) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  expect_by_key_all_types(keys_of_runs(uniform(1'500'000, 1)), 81, "runs of one");
}

TEST(LibraryReduceByKey, RandomRunLengths) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  expect_by_key_all_types(keys_of_runs(random_lengths(300'000, 1, 12, 91)), 91, "runs of 1..12");
  std::vector<long long> skewed = random_lengths(200'000, 1, 4, 92);
  skewed[100'000] = std::int64_t{1} << 21;  // one run holding most of the values
  expect_by_key_all_types(keys_of_runs(skewed), 92, "one long run among short ones");
  expect_by_key_all_types(keys_of_runs({1 << 20}), 93, "a single run");
  for (std::size_t n : {1, 2, 33, 1000}) expect_by_key_all_types(keys_of_runs(random_lengths(n, 1, 5, n)), n, "small");
}

TEST(LibraryReduceByKey, RunsEndingOnAndAroundTileEdges) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // The one-pass kernel's tiles are by_key_threads x by_key_items values: runs of a tile's length and one either side
  // put heads and tails on every tile's first and last item, and runs of two tiles pass through whole tiles.
  constexpr long long tile = reducelab::segmented::tuning::by_key_threads *
                             reducelab::segmented::tuning::by_key_items<int, std::int32_t>;
  for (long long length : {tile - 1, tile, tile + 1, 2 * tile, 2 * tile + 1}) {
    expect_by_key_all_types(keys_of_runs(uniform(40, length)), 94 + length, "runs of " + std::to_string(length));
  }
  std::vector<long long> lengths = uniform(30, 1);
  lengths.push_back(tile - 30);  // the first tile ends with a run's last value
  lengths.push_back(1);          // the second tile starts with a run of one
  lengths.push_back(5 * tile);
  expect_by_key_all_types(keys_of_runs(lengths), 99, "a tile ending on a run's end, then a run of one");
}

TEST(LibraryReduceByKey, FirstAndLastTilesAtEveryFill) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // Only the first and the last tile run the guarded copy of the tile (segmented/kernels/reduce_runs.cuh), which fills
  // a partial tile to its end: one tile or several, the last one whole or holding 1, 2, 129 or all but one of its
  // items, under runs that span the whole input, runs of one, runs of seven, and a last run begun two tiles back.
  // Number values and affine maps have tiles of different lengths; each gets its own sizes.
  constexpr long long tiles[] = {
      reducelab::segmented::tuning::by_key_threads * reducelab::segmented::tuning::by_key_items<int, std::int32_t>,
      reducelab::segmented::tuning::by_key_threads * reducelab::segmented::tuning::by_key_items<int, affine_u32>};
  for (const long long tile : tiles) {
    for (const long long whole : {0, 1, 3}) {
      for (const long long last : {0LL, 1LL, 2LL, 129LL, tile - 1}) {
        const long long n = whole * tile + last;
        if (n == 0) continue;
        const std::string name = "tile " + std::to_string(tile) + ", n " + std::to_string(n);
        const std::uint64_t seed = static_cast<std::uint64_t>(n) * 4;
        expect_by_key_all_types(keys_of_runs({n}), seed, name + ", one run");
        expect_by_key_all_types(keys_of_runs(uniform(n, 1)), seed + 1, name + ", runs of one");
        std::vector<long long> sevens = uniform(n / 7, 7);
        if (n % 7 != 0) sevens.push_back(n % 7);
        expect_by_key_all_types(keys_of_runs(sevens), seed + 2, name + ", runs of seven");
        if (n > 2 * tile + 5) {
          std::vector<long long> late = uniform(n - 2 * tile - 5, 1);
          late.push_back(2 * tile + 5);
          expect_by_key_all_types(keys_of_runs(late), seed + 3, name + ", a last run begun two tiles back");
        }
      }
    }
  }
}

namespace segmented_library_test {

/// Five calls of the entry over the same double values in runs of `lengths` give the same bits.
void expect_same_bits_every_call(const std::vector<long long>& lengths, std::uint64_t seed) {
  const std::vector<int> keys = keys_of_runs(lengths);
  const std::size_t n = keys.size();
  const std::vector<double> values = random_values<double>(n, seed);
  const thrust::device_vector<int> d_keys(keys.begin(), keys.end());
  const thrust::device_vector<double> d_values(values.begin(), values.end());
  thrust::device_vector<int> d_unique(n);
  thrust::device_vector<double> d_out(n);
  thrust::device_vector<long long> d_runs(1, -1);
  std::vector<double> first;
  for (int call = 0; call < 5; ++call) {
    reducelab::reduce_by_key(raw(d_keys), raw(d_values), n, raw(d_unique), raw(d_out), raw(d_runs), add{});
    CUDA_TRY(cudaDeviceSynchronize());
    ASSERT_EQ(static_cast<long long>(d_runs[0]), static_cast<long long>(lengths.size()));
    std::vector<double> got(lengths.size());
    CUDA_TRY(cudaMemcpy(got.data(), raw(d_out), got.size() * sizeof(double), cudaMemcpyDeviceToHost));
    if (call == 0) {
      first = got;
      continue;
    }
    ASSERT_EQ(std::memcmp(got.data(), first.data(), got.size() * sizeof(double)), 0) << "call " << call;
  }
}

}  // namespace segmented_library_test

TEST(LibraryReduceByKey, SameBitsEveryRun) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // Double sums whose runs cross up to hundreds of tiles: the runs' carries are joined in a bracketing fixed by the
  // tiles alone (segmented/kernels/reduce_runs.cuh), so every call gives the same bits.
  std::vector<long long> lengths = random_lengths(3000, 1, 2000, 95);
  lengths[1000] = std::int64_t{1} << 21;
  expect_same_bits_every_call(lengths, 96);
}

TEST(LibraryReduceByKey, CallersEqualityDecidesTheRunsAndEachRunKeepsItsFirstKey) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // Keys equal under "same tens" (10, 11, 19 are one run, whose key is 10: the first, as with CUB).
  std::mt19937 rng(97);
  std::vector<int> keys;
  std::vector<int> want_keys;
  std::vector<std::int32_t> want;
  const std::vector<std::int32_t> values = random_values<std::int32_t>(200'000, 98);
  int tens = 0;
  while (keys.size() < values.size()) {
    tens += 1 + static_cast<int>(rng() % 3);
    const std::size_t len = std::min<std::size_t>(1 + rng() % 5000, values.size() - keys.size());
    want_keys.push_back(tens * 10 + static_cast<int>(rng() % 10));
    std::uint32_t sum = 0;
    for (std::size_t j = 0; j < len; ++j) {
      keys.push_back(j == 0 ? want_keys.back() : tens * 10 + static_cast<int>(rng() % 10));
      sum += static_cast<std::uint32_t>(values[keys.size() - 1]);
    }
    want.push_back(static_cast<std::int32_t>(sum));
  }
  const std::size_t n = keys.size();
  const thrust::device_vector<int> d_keys(keys.begin(), keys.end());
  const thrust::device_vector<std::int32_t> d_values(values.begin(), values.end());
  thrust::device_vector<int> d_unique(n);
  thrust::device_vector<std::int32_t> d_out(n);
  thrust::device_vector<int> d_runs(1, -1);
  reducelab::reduce_by_key(raw(d_keys), raw(d_values), n, raw(d_unique), raw(d_out), raw(d_runs), add{}, nullptr,
                           same_tens{});
  CUDA_TRY(cudaDeviceSynchronize());
  ASSERT_EQ(static_cast<std::size_t>(d_runs[0]), want.size());
  std::vector<int> got_keys(want.size());
  std::vector<std::int32_t> got(want.size());
  CUDA_TRY(cudaMemcpy(got_keys.data(), raw(d_unique), got_keys.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_TRY(cudaMemcpy(got.data(), raw(d_out), got.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  EXPECT_EQ(got_keys, want_keys);
  EXPECT_EQ(got, want);
}

TEST(LibraryReduceByKey, NaNKeysNeverEqualThemselvesInAnyTile) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // Float keys under the default equality: a NaN equals nothing, itself included, so every NaN is a run of its own,
  // consecutive NaNs too. Whole tiles (no index tests) and the first and the last, partial tile (with them) must agree:
  // several tiles, NaNs on tile edges, the input starting and ending with a NaN.
  constexpr long long tile = reducelab::segmented::tuning::by_key_threads *
                             reducelab::segmented::tuning::by_key_items<float, std::int32_t>;
  const std::size_t n = static_cast<std::size_t>(5 * tile + 777);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::mt19937 rng(99);
  std::vector<float> keys;
  while (keys.size() < n) {
    const bool is_nan = rng() % 4 == 0;
    const std::size_t len = std::min<std::size_t>(1 + rng() % 6, n - keys.size());
    const float k = is_nan ? nan : static_cast<float>(keys.size() % 1000);
    for (std::size_t j = 0; j < len; ++j) keys.push_back(k);
  }
  keys.front() = nan;
  keys.back() = nan;
  for (long long edge = tile; edge < static_cast<long long>(n); edge += tile) {
    keys[static_cast<std::size_t>(edge) - 1] = nan;
    keys[static_cast<std::size_t>(edge)] = nan;
  }
  const std::vector<std::int32_t> values = random_values<std::int32_t>(n, 100);
  std::vector<std::uint32_t> want_key_bits;
  std::vector<std::int32_t> want;
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0 || !(keys[i] == keys[i - 1])) {
      std::uint32_t bits;
      std::memcpy(&bits, &keys[i], sizeof bits);
      want_key_bits.push_back(bits);
      want.push_back(0);
    }
    want.back() = static_cast<std::int32_t>(static_cast<std::uint32_t>(want.back()) +
                                            static_cast<std::uint32_t>(values[i]));
  }
  const thrust::device_vector<float> d_keys(keys.begin(), keys.end());
  const thrust::device_vector<std::int32_t> d_values(values.begin(), values.end());
  // The entry (at this n, the one-pass kernel), then the stream path alone (kernels/stream_runs.cuh), whose chunks
  // test heads in the same way with no index test but in a partial last chunk.
  for (const by_key_call call : {by_key_call::entry, by_key_call::stream_path}) {
    SCOPED_TRACE(call == by_key_call::entry ? "entry" : "stream path");
    thrust::device_vector<float> d_unique(n);
    thrust::device_vector<std::int32_t> d_out(n);
    thrust::device_vector<long long> d_runs(1, -1);
    if (call == by_key_call::entry) {
      reducelab::reduce_by_key(raw(d_keys), raw(d_values), n, raw(d_unique), raw(d_out), raw(d_runs), add{});
    } else {
      reduce_by_key_on_stream_path(raw(d_keys), raw(d_values), n, raw(d_unique), raw(d_out), raw(d_runs), add{});
    }
    CUDA_TRY(cudaDeviceSynchronize());
    ASSERT_EQ(static_cast<std::size_t>(d_runs[0]), want.size());
    std::vector<std::uint32_t> got_key_bits(want.size());
    std::vector<std::int32_t> got(want.size());
    CUDA_TRY(cudaMemcpy(got_key_bits.data(), raw(d_unique), got_key_bits.size() * sizeof(float),
                        cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaMemcpy(got.data(), raw(d_out), got.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
    EXPECT_EQ(got_key_bits, want_key_bits);
    EXPECT_EQ(got, want);
  }
}

namespace segmented_library_test {

/// The stream path alone (kernels/stream_runs.cuh, its keys' sample skipped), so that it meets run lengths the entry
/// would give the one-pass kernel: runs of one, where every warp's stash overflows and its stretch is streamed again;
/// runs around a warp's stash (stash_runs) and stretch (warp_stretch) and a tile; a run over many tiles; mixed runs;
/// inputs that end in a partial chunk, a partial stretch, a partial tile. `call` picks the lanes (both widths have the
/// same stretches and stash). Affine maps check the order a non-commutative functor's items are joined in.
void expect_stream_path_at_every_run_length(by_key_call call) {
  using policy = reducelab::segmented::tuning::by_key_stream_policy;
  constexpr long long stretch = policy::warp_stretch<int, std::int32_t>;
  constexpr long long tile = stretch * policy::threads / 32;
  constexpr long long stash = policy::stash_runs<int, std::int32_t>;
  const auto both = [call](const std::vector<int>& keys, std::uint64_t seed, const std::string& name) {
    expect_by_key<std::int32_t>(keys, add{}, seed, name + ", int32 +", call);
    expect_by_key<double>(keys, add{}, seed + 1, name + ", double +", call);
    expect_by_key<affine_u32>(keys, compose{}, seed + 2, name + ", affine", call);
  };
  both(keys_of_runs(uniform(3 * tile + 77, 1)), 200, "runs of one");
  for (long long length :
       {2LL, 3LL, 7LL, 8LL, 127LL, 128LL, 129LL, 256LL, 4096LL, stretch - 1, stretch + 1, tile + 3}) {
    both(keys_of_runs(uniform(5 * tile / length + 3, length)), 201 + length, "runs of " + std::to_string(length));
  }
  // The lanes' segmented scan stops at the first step where no lane joins (agent/run_stretch.cuh): runs of a whole
  // number of lanes' items put a head every 1, 2, 3, 5, 9, 17 and 33 lanes, for 0 to 5 steps, in both lane widths
  // (4 and 8 items); then such lengths mixed, so that chunks of one stretch stop at different steps.
  for (long long lanes : {1LL, 2LL, 3LL, 5LL, 9LL, 17LL, 33LL}) {
    for (long long items : {4LL, 8LL}) {
      const long long length = lanes * items;
      both(keys_of_runs(uniform(5 * tile / length + 3, length)), 400 + length,
           "runs of " + std::to_string(length) + " (a head every " + std::to_string(lanes) + " lanes of " +
               std::to_string(items) + ")");
    }
  }
  std::vector<long long> whole_lanes = random_lengths(8'000, 1, 33, 420);
  for (long long& length : whole_lanes) length *= 8;
  both(keys_of_runs(whole_lanes), 421, "runs of 8 x 1..33");
  // A warp whose runs just fit its stash, and one with one more than fits (keys: stash, stash + 1 heads).
  for (long long heads : {stash - 1, stash, stash + 1, stash + 2}) {
    std::vector<long long> lengths = uniform(heads - 1, 1);
    lengths.push_back(stretch - (heads - 1));
    lengths.push_back(3 * tile);
    both(keys_of_runs(lengths), 300 + heads, "a stretch of " + std::to_string(heads) + " heads");
  }
  both(keys_of_runs(random_lengths(40'000, 1, 3000, 301)), 302, "runs of 1..3000");
  std::vector<long long> mixed = random_lengths(200'000, 1, 12, 303);
  mixed[100'000] = 3 * tile + 5;
  both(keys_of_runs(mixed), 304, "runs of 1..12 around one over three tiles");
  both(keys_of_runs({7 * tile + 1}), 305, "one run");
  for (long long n : {1LL, 2LL, 129LL, 1000LL, stretch + 5, tile - 1, tile + 1}) {
    std::vector<long long> fives = uniform(n / 5, 5);  // n keys in runs of five, the last one shorter
    if (n % 5 != 0) fives.push_back(n % 5);
    both(keys_of_runs(fives), 306 + n, "n = " + std::to_string(n) + " in runs of five");
  }
}

}  // namespace segmented_library_test

TEST(LibraryReduceByKey, StreamPathAtEveryRunLength) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // The long-run lanes: 4 items a lane in two chunks of 128 for int32 pairs (double values take 8 either way).
  expect_stream_path_at_every_run_length(by_key_call::stream_path);
}

TEST(LibraryReduceByKey, StreamPathWithShortRunLanesAtEveryRunLength) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // 8 items a lane (the short-run lanes, which the entry's sample picks for int32 pairs whose runs average under
  // short_run_mean): heads counted on four ballots, a chunk of 256, partial chunks of up to 255.
  expect_stream_path_at_every_run_length(by_key_call::stream_path_short_run_lanes);
}

TEST(LibraryReduceByKey, StreamPathWithLongRunStretches) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // Past one round of the resident grid at warp_stretch (2^25 keys), the long-run choice streams as few rounds as
  // stretches of up to long_run_warp_stretch make (one here), each warp's stretch several times warp_stretch (with 132
  // SMs and the 46 KiB stash of stop 76, about 3 for int32 values and 7 for doubles; both take it since stop 65); at
  // runs of one every warp's stash overflows and it streams its stretch again.
  // An n that ends in a partial chunk.
  constexpr std::size_t n = (std::size_t{1} << 25) + 77;
  using policy = reducelab::segmented::tuning::by_key_stream_policy;
  static_assert(policy::long_run_warp_stretch<int, std::int32_t> > policy::warp_stretch<int, std::int32_t>);
  static_assert(policy::long_run_warp_stretch<int, double> > policy::warp_stretch<int, double>);
  const auto both = [](const std::vector<int>& keys, std::uint64_t seed, const std::string& name) {
    expect_by_key<std::int32_t>(keys, add{}, seed, name + ", int32 +", by_key_call::stream_path);
    expect_by_key<double>(keys, add{}, seed + 1, name + ", double +", by_key_call::stream_path);
    expect_by_key<affine_u32>(keys, compose{}, seed + 2, name + ", affine", by_key_call::stream_path);
  };
  std::vector<long long> long_runs = uniform(n / 256, 256);
  long_runs.push_back(static_cast<long long>(n % 256));
  both(keys_of_runs(long_runs), 340, "runs of 256");
  both(keys_of_runs(uniform(n, 1)), 342, "runs of one");
  std::vector<long long> mixed = random_lengths(22'000, 1, 3000, 344);
  mixed.push_back(77);
  both(keys_of_runs(mixed), 345, "runs of 1..3000");
}

TEST(LibraryReduceByKey, BothKernelsJustAboveTheStreamPathsSize) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // Through the entry, just past min_n: where the sample picks the one-pass kernel (runs of one, runs of 1..12) its
  // blocks claim their tiles from the counter beside the stream path; where it picks the stream path (runs of 256)
  // they leave without claiming.
  using policy = reducelab::segmented::tuning::by_key_stream_policy;
  const std::size_t n = static_cast<std::size_t>(policy::min_n) + 1000;
  const auto both = [](const std::vector<int>& keys, std::uint64_t seed, const std::string& name) {
    expect_by_key<std::int32_t>(keys, add{}, seed, name + ", int32 +");
    expect_by_key<double>(keys, add{}, seed + 1, name + ", double +");
  };
  both(keys_of_runs(uniform(n, 1)), 350, "runs of one");
  both(keys_of_runs(random_lengths(n / 6, 1, 12, 352)), 353, "runs of 1..12");
  both(keys_of_runs(uniform(n / 256 + 1, 256)), 354, "runs of 256");
}

TEST(LibraryReduceByKey, StreamPathOverSeveralRoundsOfTheGrid) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // More tiles than the resident grid holds (a block's second and later tiles wait on the previous round's last
  // block), at the entry's size, through the entry (the keys' sample sends runs of 64 to the stream path).
  expect_by_key<std::int32_t>(keys_of_runs(uniform((std::int64_t{1} << 25) / 64 + 3, 64)), add{}, 310,
                              "2^25 in runs of 64, int32 +");
  expect_by_key<double>(keys_of_runs(random_lengths(600'000, 1, 120, 311)), add{}, 312, "runs of 1..120, double +");
}

TEST(LibraryReduceByKey, EntrySendsEachInputToAKernelThatServesIt) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // From min_n up the entry launches both kernels and the keys' sample picks one (block/run_density.cuh): long runs,
  // short runs, long runs in the sample but patches of runs of one between its windows (stash overflows), runs of the
  // threshold's length, for int32 and double sums and affine maps (not commutative: the stream path joins their items
  // in input order); unaligned values go to the one-pass kernel.
  using policy = reducelab::segmented::tuning::by_key_stream_policy;
  const std::size_t n = static_cast<std::size_t>(policy::min_n) + 1000;
  expect_by_key_all_types(keys_of_runs(uniform(n / 256 + 1, 256)), 320, "runs of 256");
  expect_by_key_all_types(keys_of_runs(uniform(n, 1)), 321, "runs of one");
  expect_by_key_all_types(keys_of_runs(uniform(n / policy::min_mean_run + 1, policy::min_mean_run)), 322,
                          "runs of the threshold");
  std::vector<long long> patchy;  // 2000 runs of one, then a run of 20000, over and over: n keys or a few more
  for (std::size_t keys = 0; keys < n; keys += 22000) {
    for (int i = 0; i < 2000; ++i) patchy.push_back(1);
    patchy.push_back(20000);
  }
  expect_by_key_all_types(keys_of_runs(patchy), 323, "patches of runs of one among long runs");
  expect_by_key<std::int32_t>(keys_of_runs(uniform(n / 256 + 1, 256)), add{}, 324, "unaligned values, int32 +",
                              by_key_call::entry, 1);
  expect_by_key<double>(keys_of_runs(uniform(n / 256 + 1, 256)), add{}, 325, "unaligned values, double +",
                        by_key_call::entry, 1);
}

TEST(LibraryReduceByKey, TheKeysSampleChoosesOneKernelAndTheOtherLeaves) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // From min_n up both kernels launch and the stream path's block 0 publishes the sample's choice
  // (segmented/block/run_density.cuh). Read back from the stream's workspace (last_run_choice): long runs choose the
  // stream path, with its long-run lanes at runs of 256 and its short-run lanes at 32, and the one-pass kernel leaves
  // without claiming a tile past its first wave; runs of one choose the one-pass kernel, which claims its tiles past
  // the last. (At stop 60 the one-pass kernel misread "leave" and did
  // the work beside the stream path: same outputs, twice the time; this is the test that sees it.)
  namespace sd = reducelab::segmented::detail;
  using policy = reducelab::segmented::tuning::by_key_stream_policy;
  using choice = reducelab::segmented::block::run_choice;
  const std::size_t n = static_cast<std::size_t>(policy::min_n) + 1000;
  constexpr long long one_pass_tile =
      reducelab::segmented::tuning::by_key_threads * reducelab::segmented::tuning::by_key_items<int, std::int32_t>;
  cudaStream_t stream = nullptr;
  CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const thrust::device_vector<std::int32_t> d_values(n, 1);
  thrust::device_vector<int> d_unique(n);
  thrust::device_vector<std::int32_t> d_out(n);
  thrust::device_vector<long long> d_runs(1, -1);
  static_assert(32 < policy::short_run_mean && policy::short_run_mean <= 256 && policy::min_mean_run <= 32);
  for (const long long length : {256LL, 32LL, 1LL}) {
    SCOPED_TRACE("runs of " + std::to_string(length));
    const std::vector<int> keys = keys_of_runs(uniform(n / static_cast<std::size_t>(length), length));
    const thrust::device_vector<int> d_keys(keys.begin(), keys.end());
    reducelab::reduce_by_key(raw(d_keys), raw(d_values), keys.size(), raw(d_unique), raw(d_out), raw(d_runs), add{},
                             stream);
    const sd::run_choice_readback r = sd::last_run_choice(stream);
    EXPECT_EQ(static_cast<long long>(d_runs[0]), static_cast<long long>(keys.size()) / length);
    // The counter starts at the one-pass kernel's grid (at most its tiles); working, each of its blocks claims until
    // it draws a tile past the last, which leaves the counter at tiles + grid.
    const long long tiles = (static_cast<long long>(keys.size()) + one_pass_tile - 1) / one_pass_tile;
    if (length > 1) {
      EXPECT_EQ(r.chosen, length == 256 ? choice::stream_path : choice::stream_path_short_runs);
      EXPECT_LE(static_cast<long long>(r.next_tile), tiles) << "the one-pass kernel claimed tiles";
    } else {
      EXPECT_EQ(r.chosen, choice::one_pass);
      EXPECT_GT(static_cast<long long>(r.next_tile), tiles) << "the one-pass kernel did not take its tiles";
    }
  }
  CUDA_TRY(cudaStreamDestroy(stream));
}

TEST(LibraryReduceByKey, StreamPathGivesTheSameBitsEveryRun) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // Double sums on the stream path: its lanes join a run's items in an order fixed by the tiles and the grid alone.
  std::vector<long long> lengths = random_lengths(40'000, 1, 1000, 330);
  lengths[20'000] = std::int64_t{1} << 22;
  expect_same_bits_every_call(lengths, 331);
}

TEST(LibraryReduceByKey, EmptyInputWritesZeroRuns) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  thrust::device_vector<int> runs(1, 12345);
  reducelab::reduce_by_key(static_cast<const int*>(nullptr), static_cast<const int*>(nullptr), 0,
                           static_cast<int*>(nullptr), static_cast<int*>(nullptr), raw(runs), add{});
  CUDA_TRY(cudaDeviceSynchronize());
  EXPECT_EQ(runs[0], 0);
}

TEST(LibrarySegmentedReduce, GeneralPathAndReduceByKeyGraphReplaysSeeTheirOwnInput) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // The general path (separate begin and end arrays) and reduce_by_key take their carry slots from a per-call
  // allocation and clear them under capture with clear_if_captured (segmented/detail/dispatch.cuh); as on the flat
  // path, each replay must see its own input. The keys' runs are the segments, so one host reference serves both.
  std::vector<long long> lengths = uniform(2000, 4096);
  lengths[700] = std::int64_t{1} << 23;
  const layout l = consecutive(lengths, "graph replays, general path and reduce_by_key");
  const std::vector<int> keys = keys_of_runs(lengths);
  const std::size_t n = keys.size();  // the values the segments cover
  std::vector<int> want_keys;
  for (std::size_t i = 0; i < n; ++i)
    if (i == 0 || keys[i] != keys[i - 1]) want_keys.push_back(keys[i]);
  ASSERT_EQ(want_keys.size(), lengths.size());
  const thrust::device_vector<long long> d_begins(l.begins.begin(), l.begins.end());
  const thrust::device_vector<long long> d_ends(l.ends.begin(), l.ends.end());
  const thrust::device_vector<int> d_keys(keys.begin(), keys.end());
  thrust::device_vector<std::int32_t> d_in(l.n), d_out(lengths.size()), d_by_key(n);
  thrust::device_vector<int> d_unique(n);
  thrust::device_vector<long long> d_runs(1, -1);
  cudaStream_t stream = nullptr;
  CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CUDA_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  reducelab::segmented_reduce(raw(d_in), raw(d_begins), raw(d_ends), lengths.size(), raw(d_out), add{}, stream);
  reducelab::reduce_by_key(raw(d_keys), raw(d_in), n, raw(d_unique), raw(d_by_key), raw(d_runs), add{}, stream);
  CUDA_TRY(cudaStreamEndCapture(stream, &graph));
  CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    SCOPED_TRACE("replay " + std::to_string(replay));
    const std::vector<std::int32_t> in = random_values<std::int32_t>(l.n, 200 + replay);
    // On the replays' stream, as in GraphReplaysSeeTheirOwnInput.
    CUDA_TRY(cudaMemcpyAsync(raw(d_in), in.data(), in.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice, stream));
    CUDA_TRY(cudaMemsetAsync(raw(d_runs), 0xff, sizeof(long long), stream));
    CUDA_TRY(cudaGraphLaunch(exec, stream));
    CUDA_TRY(cudaStreamSynchronize(stream));
    std::vector<std::int32_t> got(lengths.size());
    CUDA_TRY(cudaMemcpy(got.data(), raw(d_out), got.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
    expect_exact(got, in, l, add{}, "general path, graph replay");
    ASSERT_EQ(static_cast<long long>(d_runs[0]), static_cast<long long>(lengths.size()));
    std::vector<int> got_keys(lengths.size());
    CUDA_TRY(cudaMemcpy(got_keys.data(), raw(d_unique), got_keys.size() * sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT_EQ(got_keys, want_keys);
    CUDA_TRY(cudaMemcpy(got.data(), raw(d_by_key), got.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
    expect_exact(got, in, l, add{}, "reduce_by_key, graph replay");
  }
  CUDA_TRY(cudaGraphExecDestroy(exec));
  CUDA_TRY(cudaGraphDestroy(graph));
  CUDA_TRY(cudaStreamDestroy(stream));
}

TEST(LibrarySegmentedReduce, BadArgumentsAreRefusedByName) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  const thrust::device_vector<int> in(100, 1), offsets(11, 0);
  thrust::device_vector<int> out(10);
  const int* d_in = raw(in);
  const int* off = raw(offsets);
  int* d_out = raw(out);
  const auto refused = [](const std::string& message, const std::string& part) {
    EXPECT_NE(message.find(part), std::string::npos) << "message: " << message;
    EXPECT_EQ(message.rfind("reducelab::segmented_reduce:", 0), 0u) << "message: " << message;
  };
  refused(refusal([&] { reducelab::segmented_reduce(static_cast<const int*>(nullptr), off, off + 1, 10, d_out, add{}); }),
          "input pointer (in) is null");
  refused(refusal([&] { reducelab::segmented_reduce(d_in, static_cast<const int*>(nullptr), off + 1, 10, d_out, add{}); }),
          "begin_offsets is null");
  refused(refusal([&] { reducelab::segmented_reduce(d_in, off, static_cast<const int*>(nullptr), 10, d_out, add{}); }),
          "end_offsets is null");
  refused(refusal([&] { reducelab::segmented_reduce(d_in, off, off + 1, 10, static_cast<int*>(nullptr), add{}); }),
          "output pointer (out) is null");
  std::vector<int> pageable(11, 0);
  refused(refusal([&] { reducelab::segmented_reduce(d_in, pageable.data(), pageable.data() + 1, 10, d_out, add{}); }),
          "begin_offsets is ordinary host memory");
  refused(refusal([&] { reducelab::segmented_reduce(d_in, off, off + 1, static_cast<std::size_t>(-1), d_out, add{}); }),
          "more than the kernels index");
  // Nothing was launched by the refused calls.
  CUDA_TRY(cudaDeviceSynchronize());
  for (int i = 0; i < 10; ++i) EXPECT_EQ(out[i], 0);
}

TEST(LibraryReduceByKey, BadArgumentsAreRefusedByName) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  const thrust::device_vector<int> keys(100, 1), values(100, 1);
  thrust::device_vector<int> unique(100), out(100), runs(1);
  const auto refused = [](const std::string& message, const std::string& part) {
    EXPECT_NE(message.find(part), std::string::npos) << "message: " << message;
    EXPECT_EQ(message.rfind("reducelab::reduce_by_key:", 0), 0u) << "message: " << message;
  };
  const int* k = raw(keys);
  const int* v = raw(values);
  int* u = raw(unique);
  int* o = raw(out);
  int* r = raw(runs);
  const int* no_in = nullptr;
  int* no_out = nullptr;
  refused(refusal([&] { reducelab::reduce_by_key(no_in, v, 100, u, o, r, add{}); }), "keys_in is null");
  refused(refusal([&] { reducelab::reduce_by_key(k, no_in, 100, u, o, r, add{}); }), "values_in is null");
  refused(refusal([&] { reducelab::reduce_by_key(k, v, 100, no_out, o, r, add{}); }), "unique_keys_out is null");
  refused(refusal([&] { reducelab::reduce_by_key(k, v, 100, u, no_out, r, add{}); }), "values_out is null");
  refused(refusal([&] { reducelab::reduce_by_key(k, v, 100, u, o, no_out, add{}); }), "num_runs_out is null");
  // 300 runs cannot be counted in a uint8_t: refused from n alone, before any pointer is looked at or read.
  refused(refusal([&] { reducelab::reduce_by_key(k, v, 300, u, o, static_cast<std::uint8_t*>(nullptr), add{}); }),
          "would not fit num_runs_out's type");
  std::vector<int> pageable(100, 1);
  refused(refusal([&] { reducelab::reduce_by_key(static_cast<const int*>(pageable.data()), v, 100, u, o, r, add{}); }),
          "keys_in is ordinary host memory");
}
