// CPU: segment layouts, the offsets contract, and the segmented / keyed host references (issue 13, host side).
#include "comparisons/segmented/input_cache.hpp"
#include "functors/affine_compose.cuh"
#include "functors/argmax.cuh"
#include "functors/plus.cuh"
#include "lab/segmented/host/layouts.hpp"
#include "lab/segmented/host/offsets_check.hpp"
#include "lab/segmented/host/reference.hpp"
#include "reducelab/segmented/tuning.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace fn = reducelab::functors;
namespace seg = reducelab::segmented;

namespace {

std::vector<std::int64_t> lengths_of(const seg::segment_layout& layout) {
  std::vector<std::int64_t> lengths;
  for (std::size_t i = 0; i < layout.num_segments(); ++i) lengths.push_back(layout.offsets[i + 1] - layout.offsets[i]);
  return lengths;
}

// Every layout: starts at 0, ends at n, never decreases, and so passes the offsets contract.
void expect_valid(const seg::segment_layout& layout, std::size_t n) {
  ASSERT_FALSE(layout.offsets.empty()) << layout.name;
  EXPECT_EQ(layout.offsets.front(), 0) << layout.name;
  EXPECT_EQ(layout.offsets.back(), static_cast<std::int64_t>(n)) << layout.name;
  EXPECT_TRUE(std::is_sorted(layout.offsets.begin(), layout.offsets.end())) << layout.name;
  EXPECT_EQ(seg::offsets_problem(layout, n), "") << layout.name;
}

std::size_t count_runs(const std::vector<std::int32_t>& keys) {
  std::size_t runs = keys.empty() ? 0 : 1;
  for (std::size_t i = 1; i < keys.size(); ++i) runs += keys[i] != keys[i - 1];
  return runs;
}

// The usage_error thrown by parse_layout(spec), or "" if none was.
std::string refusal_of(const std::string& spec) {
  try {
    seg::parse_layout(spec, 1000, 1);
  } catch (const reducelab::usage_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// Layouts
// ---------------------------------------------------------------------------------------------------------

TEST(SegmentLayouts, UniformCutsIntoEqualSegmentsWithAShorterLast) {
  EXPECT_EQ(seg::uniform(10, 4).offsets, (std::vector<std::int64_t>{0, 4, 8, 10}));
  EXPECT_EQ(seg::uniform(8, 4).offsets, (std::vector<std::int64_t>{0, 4, 8}));
  EXPECT_EQ(seg::uniform(3, 100).offsets, (std::vector<std::int64_t>{0, 3}));
  EXPECT_EQ(seg::uniform(0, 4).offsets, (std::vector<std::int64_t>{0}));
  const auto big = seg::uniform((1 << 20) + 7, 256);
  expect_valid(big, (1 << 20) + 7);
  EXPECT_EQ(big.num_segments(), (1u << 12) + 1);
  EXPECT_THROW(seg::uniform(10, 0), reducelab::usage_error);
}

TEST(SegmentLayouts, ZipfIsDeterministicAndSkewed) {
  const std::size_t n = std::size_t{1} << 22;
  const auto a = seg::zipf(n, 1.2, 7);
  expect_valid(a, n);
  EXPECT_EQ(a.offsets, seg::zipf(n, 1.2, 7).offsets);
  EXPECT_NE(a.offsets, seg::zipf(n, 1.2, 8).offsets);
  const auto lengths = lengths_of(a);
  ASSERT_GT(lengths.size(), 100u);
  // Every length is in the law's support [1, 2^20] (the clipped last one too: it is never empty).
  for (const auto l : lengths) EXPECT_TRUE(l >= 1 && l <= (1 << 20)) << l;
  // Heavy tail: at least one long segment. Many short ones: P(L <= 8) is 0.44 for this exponent.
  EXPECT_GE(*std::max_element(lengths.begin(), lengths.end()), 1 << 16);
  const auto short_ones = std::count_if(lengths.begin(), lengths.end(), [](std::int64_t l) { return l <= 8; });
  EXPECT_GE(static_cast<double>(short_ones), 0.3 * static_cast<double>(lengths.size()));
  // A steeper law gives shorter segments, hence more of them.
  EXPECT_GT(seg::zipf(n, 2.0, 7).num_segments(), 10 * a.num_segments());
  expect_valid(seg::zipf(0, 1.2, 7), 0);
  EXPECT_THROW(seg::zipf(n, 0.0, 7), reducelab::usage_error);
}

TEST(SegmentLayouts, MostlyEmptyHasTheStatedFractionOfEmpties) {
  const std::size_t n = 1 << 16;
  const auto layout = seg::mostly_empty(n, 1000, 0.9, 3);
  expect_valid(layout, n);
  ASSERT_EQ(layout.num_segments(), 1000u);
  const auto lengths = lengths_of(layout);
  EXPECT_EQ(std::count(lengths.begin(), lengths.end(), 0), 900);
  // The 100 others share 2^16 evenly: 655 or 656 each.
  for (const auto l : lengths) EXPECT_TRUE(l == 0 || l == 655 || l == 656) << l;
  // Placed at random, not bunched at either end.
  const auto first_filled = std::find_if(lengths.begin(), lengths.end(), [](std::int64_t l) { return l > 0; });
  const auto last_filled = std::find_if(lengths.rbegin(), lengths.rend(), [](std::int64_t l) { return l > 0; });
  EXPECT_LT(first_filled - lengths.begin(), 100);
  EXPECT_LT(last_filled - lengths.rbegin(), 100);
  EXPECT_EQ(layout.offsets, seg::mostly_empty(n, 1000, 0.9, 3).offsets);
  EXPECT_NE(layout.offsets, seg::mostly_empty(n, 1000, 0.9, 4).offsets);
  // With data to hold, one segment always stays non-empty.
  EXPECT_EQ(lengths_of(seg::mostly_empty(5, 1, 0.9, 3)), (std::vector<std::int64_t>{5}));
  EXPECT_EQ(seg::non_empty_segments(seg::mostly_empty(50, 10, 1.0, 3)), 1u);
  EXPECT_EQ(seg::mostly_empty(0, 4, 1.0, 3).offsets, (std::vector<std::int64_t>{0, 0, 0, 0, 0}));
  EXPECT_THROW(seg::mostly_empty(n, 0, 0.9, 3), reducelab::usage_error);
  EXPECT_THROW(seg::mostly_empty(n, 10, 1.5, 3), reducelab::usage_error);
}

TEST(SegmentLayouts, GiantAmongTinyHasOneHalfSegmentInTheMiddle) {
  const std::size_t n = std::size_t{1} << 22;
  const auto layout = seg::giant_among_tiny(n, std::size_t{1} << 20);
  expect_valid(layout, n);
  ASSERT_EQ(layout.num_segments(), (std::size_t{1} << 20) + 1);
  const auto lengths = lengths_of(layout);
  EXPECT_EQ(std::count(lengths.begin(), lengths.end(), std::int64_t{1} << 21), 1);
  EXPECT_EQ(lengths[std::size_t{1} << 19], std::int64_t{1} << 21);
  EXPECT_EQ(std::count(lengths.begin(), lengths.end(), 2), std::int64_t{1} << 20);
  // Odd n: the giant is n / 2 = 500, the ten tiny ones share 501 (one of 51, nine of 50).
  const auto odd = seg::giant_among_tiny(1001, 10);
  expect_valid(odd, 1001);
  EXPECT_EQ(lengths_of(odd), (std::vector<std::int64_t>{51, 50, 50, 50, 50, 500, 50, 50, 50, 50, 50}));
  EXPECT_THROW(seg::giant_among_tiny(n, 0), reducelab::usage_error);
}

TEST(SegmentLayouts, ParseLayoutAcceptsEachForm) {
  const std::size_t n = (1 << 12) + 3;
  const auto power = seg::parse_layout("uniform:2^8", n, 1);
  expect_valid(power, n);
  EXPECT_EQ(power.name, "uniform:2^8");
  EXPECT_EQ(power.offsets, seg::uniform(n, 256).offsets);
  EXPECT_EQ(seg::parse_layout("uniform:100", n, 1).offsets, seg::uniform(n, 100).offsets);

  const auto z = seg::parse_layout("zipf:1.2", n, 9);
  EXPECT_EQ(z.name, "zipf:1.2");
  EXPECT_EQ(z.offsets, seg::zipf(n, 1.2, 9).offsets);

  const auto empties = seg::parse_layout("empty90", 800, 1);  // n / 8 = 100 segments, 90 of them empty
  expect_valid(empties, 800);
  EXPECT_EQ(empties.num_segments(), 100u);
  EXPECT_EQ(seg::non_empty_segments(empties), 10u);
  expect_valid(seg::parse_layout("empty90", 3, 1), 3);  // fewer than 8 elements: still one segment

  const auto giant = seg::parse_layout("giant", 1 << 10, 1);  // min(2^20, n / 2) = 512 tiny segments
  expect_valid(giant, 1 << 10);
  EXPECT_EQ(giant.num_segments(), 513u);
  EXPECT_EQ(seg::parse_layout("giant", std::size_t{1} << 22, 1).num_segments(), (std::size_t{1} << 20) + 1);
  expect_valid(seg::parse_layout("giant", 1, 1), 1);

  const auto keys1 = seg::parse_layout("keys1", 7, 1);
  EXPECT_EQ(keys1.name, "keys1");
  EXPECT_EQ(keys1.offsets, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(SegmentLayouts, ParseLayoutRefusesJunkNamingIt) {
  for (const std::string junk : {"", "uniform", "uniform:", "uniform:0", "uniform:x", "uniform:2^", "uniform:2^99",
                                 "uniform:-4", "zipf:", "zipf:-1", "zipf:0", "zipf:abc", "zipf:1.2x", "zipf:nan",
                                 "empty", "empty90 ", "giants", "UNIFORM:4"}) {
    const std::string message = refusal_of(junk);
    EXPECT_NE(message.find("'" + junk + "'"), std::string::npos) << "[" << junk << "] -> " << message;
    EXPECT_NE(message.find("uniform:L"), std::string::npos) << message;  // lists the accepted forms
    EXPECT_NE(message.find("keys1"), std::string::npos) << message;
  }
}

TEST(SegmentLayouts, KeysGiveOneRunPerNonEmptySegment) {
  // Empty segments between two runs must not let them merge.
  const seg::segment_layout layout{"hand", {0, 0, 3, 3, 3, 5, 6, 6}};
  const auto keys = seg::keys_from_layout(layout);
  EXPECT_EQ(keys, (std::vector<std::int32_t>{0, 0, 0, 1, 1, 2}));
  EXPECT_EQ(seg::non_empty_segments(layout), 3u);
  EXPECT_LT(seg::non_empty_segments(layout), layout.num_segments());  // fewer runs than segments

  for (const auto& spec : {"uniform:7", "zipf:1.5", "empty90", "giant", "keys1"}) {
    const std::size_t n = 10000;
    const auto l = seg::parse_layout(spec, n, 5);
    const auto k = seg::keys_from_layout(l);
    ASSERT_EQ(k.size(), n) << spec;
    EXPECT_EQ(count_runs(k), seg::non_empty_segments(l)) << spec;
    // Each non-empty segment is exactly one run: constant inside, a new key at its start.
    for (std::size_t i = 0; i < l.num_segments(); ++i) {
      const auto b = l.offsets[i], e = l.offsets[i + 1];
      if (e == b) continue;
      EXPECT_TRUE(std::all_of(k.begin() + b, k.begin() + e, [&](std::int32_t x) { return x == k[b]; })) << spec;
      if (b > 0) {
        EXPECT_NE(k[b], k[b - 1]) << spec << " segment " << i;
      }
    }
  }
  EXPECT_TRUE(seg::keys_from_layout(seg::uniform(0, 4)).empty());
}

// ---------------------------------------------------------------------------------------------------------
// The offsets contract
// ---------------------------------------------------------------------------------------------------------

TEST(OffsetsCheck, AcceptsGoodOffsetsIncludingEmptySegments) {
  const std::vector<std::int64_t> offsets{0, 3, 3, 7, 7};
  EXPECT_EQ(seg::offsets_problem(offsets.data(), 4, 7), "");
  const std::vector<std::uint32_t> begin{0, 2, 2, 5}, end{2, 2, 5, 5};
  EXPECT_EQ(seg::offsets_problem(begin.data(), end.data(), 4, 5), "");
  const std::vector<int> zeros{0, 0, 0};
  EXPECT_EQ(seg::offsets_problem(zeros.data(), 2, 0), "");           // n = 0, two empty segments
  EXPECT_EQ(seg::offsets_problem(zeros.data(), 0, 0), "");           // no segments at all
  EXPECT_EQ(seg::offsets_problem(seg::uniform(0, 1), 0), "");
}

TEST(OffsetsCheck, NamesTheFirstBadSegment) {
  {
    std::vector<std::int64_t> begin(18), end(18);
    for (int i = 0; i < 18; ++i) begin[i] = end[i] = 50 * i;
    end[17] = 1000;
    end[16] = 2000;  // not reported: segment 16's begin (800) is fine, and its end is checked first
    EXPECT_EQ(seg::offsets_problem(begin.data(), end.data(), 18, 999), "segment 16: end offset 2000 is past n = 999");
    end[16] = 800;
    EXPECT_EQ(seg::offsets_problem(begin.data(), end.data(), 18, 999), "segment 17: end offset 1000 is past n = 999");
  }
  {
    const std::vector<int> begin{0, 8}, end{3, 9};
    EXPECT_EQ(seg::offsets_problem(begin.data(), end.data(), 2, 7), "segment 1: begin offset 8 is past n = 7");
  }
  {
    const std::vector<int> begin{0, -1}, end{1, 2};
    EXPECT_EQ(seg::offsets_problem(begin.data(), end.data(), 2, 5), "segment 1: begin offset -1 is negative");
    const std::vector<std::int64_t> offsets{0, 2, -3};
    EXPECT_EQ(seg::offsets_problem(offsets.data(), 2, 5), "segment 1: end offset -3 is negative");
  }
  {
    const std::vector<std::uint64_t> begin{0, 1, 2, 12}, end{1, 2, 12, 10};
    EXPECT_EQ(seg::offsets_problem(begin.data(), end.data(), 4, 20),
              "segment 3: end offset 10 is before its begin offset 12");
  }
  {
    const std::vector<int> begin{0, 4, 8, 12, 24, 20}, end{4, 8, 12, 24, 24, 20};
    EXPECT_EQ(seg::offsets_problem(begin.data(), end.data(), 6, 30),
              "segment 5: begin offset 20 is before segment 4's begin offset 24 (offsets must not decrease)");
  }
  {
    // In a single offsets array a decrease shows first as a segment that ends before it begins.
    const std::vector<std::int32_t> offsets{0, 4, 2, 6};
    EXPECT_EQ(seg::offsets_problem(offsets.data(), 3, 6), "segment 1: end offset 2 is before its begin offset 4");
    EXPECT_EQ(seg::offsets_problem(seg::segment_layout{"bad", {0, 4, 2, 6}}, 6),
              "segment 1: end offset 2 is before its begin offset 4");
  }
  EXPECT_NE(seg::offsets_problem(seg::segment_layout{"none", {}}, 6), "");
}

// ---------------------------------------------------------------------------------------------------------
// References
// ---------------------------------------------------------------------------------------------------------

TEST(SegmentedReference, PlusOnIntsWithAnEmptySegment) {
  const std::vector<std::int32_t> x{1, 2, 3, 4, 5, 6};
  const std::vector<std::int64_t> offsets{0, 2, 2, 6};
  EXPECT_EQ((seg::segmented_reference<fn::plus>(x.data(), offsets.data(), 3)), (std::vector<std::int32_t>{3, 0, 18}));
  const std::vector<std::uint32_t> begin{4, 0, 3}, end{6, 0, 4};  // begin/end form; a zero-length segment at 0
  EXPECT_EQ((seg::segmented_reference<fn::plus>(x.data(), begin.data(), end.data(), 3)),
            (std::vector<std::int32_t>{11, 0, 4}));
  EXPECT_TRUE((seg::segmented_reference<fn::plus, std::int32_t, int>(nullptr, nullptr, 0)).empty());
}

TEST(SegmentedReference, NonCommutativeKeepsOrderWithinEachSegment) {
  // Maps f: x -> a*x + b; f then g composes to (g.a*f.a, g.a*f.b + g.b).
  const fn::affine32 f0{2, 1}, f1{3, 0}, f2{5, 2};
  const std::vector<fn::affine32> x{f0, f1, f2, f1};
  const std::vector<int> offsets{0, 3, 3, 4};
  // f0, f1 -> (6, 3); then f2 -> (30, 17). The empty segment is the identity (1, 0).
  const auto got = seg::segmented_reference<fn::affine_compose>(x.data(), offsets.data(), 3);
  EXPECT_EQ(got, (std::vector<fn::affine32>{{30, 17}, {1, 0}, {3, 0}}));
  const std::vector<int> pairs{0, 2, 4};
  // f0, f1 -> (6, 3) (reversed it would be (6, 1)); f2, f1 -> (15, 6).
  EXPECT_EQ(seg::segmented_reference<fn::affine_compose>(x.data(), pairs.data(), 2),
            (std::vector<fn::affine32>{{6, 3}, {15, 6}}));
}

TEST(ReduceByKeyReference, ReducesRunsOfEqualConsecutiveKeys) {
  const std::vector<int> keys{7, 7, 3, 3, 3, 7, 1};
  const std::vector<std::int64_t> values{1, 2, 3, 4, 5, 6, 7};
  const auto r = seg::reduce_by_key_reference<fn::plus>(keys.data(), values.data(), keys.size());
  EXPECT_EQ(r.keys, (std::vector<int>{7, 3, 7, 1}));  // 7 again after 3: a new run
  EXPECT_EQ(r.values, (std::vector<std::int64_t>{3, 12, 6, 7}));

  const std::vector<std::int32_t> map_keys{1, 1, 2};
  const std::vector<fn::affine32> maps{{2, 1}, {3, 0}, {5, 2}};
  const auto m = seg::reduce_by_key_reference<fn::affine_compose>(map_keys.data(), maps.data(), maps.size());
  EXPECT_EQ(m.keys, (std::vector<std::int32_t>{1, 2}));
  EXPECT_EQ(m.values, (std::vector<fn::affine32>{{6, 3}, {5, 2}}));

  const auto none = seg::reduce_by_key_reference<fn::plus, int, int>(nullptr, nullptr, 0);
  EXPECT_TRUE(none.keys.empty() && none.values.empty());
}

TEST(ReduceByKeyReference, AgreesWithTheSegmentedReferenceOnLayoutKeys) {
  const auto layout = seg::parse_layout("empty90", 4000, 2);
  const auto keys = seg::keys_from_layout(layout);
  std::vector<std::int64_t> x(layout.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::int64_t>(i * i % 1009);
  const auto by_key = seg::reduce_by_key_reference<fn::plus>(keys.data(), x.data(), x.size());
  const auto per_segment = seg::segmented_reference<fn::plus>(x.data(), layout.offsets.data(), layout.num_segments());
  std::vector<std::int64_t> non_empty;
  for (std::size_t i = 0; i < layout.num_segments(); ++i)
    if (layout.offsets[i + 1] > layout.offsets[i]) non_empty.push_back(per_segment[i]);
  EXPECT_EQ(by_key.values, non_empty);
}

TEST(SegmentedInputCache, KeepsADrawForItsLayoutsWithinItsBudget) {
  // segmented check and compare open each case once per layout, with the same values for every layout of a size.
  using seg::tool::input_cache;
  const auto same_values = [](const auto& got, const auto& want) {
    return got.size() == want.size() && std::memcmp(got.data(), want.data(), want.size() * sizeof(want[0])) == 0;
  };
  constexpr std::size_t n = 1000;
  input_cache cache(3 * n * sizeof(double));
  const auto a = cache.values<fn::plus, double>(n, 1);
  EXPECT_TRUE(same_values(*a, reducelab::make_inputs<fn::plus, double>(reducelab::input_kind::random, n, 1)));
  EXPECT_EQ((cache.values<fn::plus, double>(n, 1)), a);            // the same array again
  const auto b = cache.values<fn::plus, double>(n, 2);           // another seed: another draw
  const auto c = cache.values<fn::plus, std::int64_t>(n, 1);     // another type: another draw
  EXPECT_NE(b, a);
  EXPECT_EQ(cache.kept_arrays(), 3u);
  EXPECT_EQ(cache.kept_bytes(), 3 * n * sizeof(double));
  EXPECT_EQ((cache.values<fn::plus, double>(n, 1)), a);            // a used last: b is now the least recent
  const auto d = cache.values<fn::plus, double>(n, 3);           // over the budget: b goes
  EXPECT_EQ(cache.kept_arrays(), 3u);
  EXPECT_EQ((cache.values<fn::plus, double>(n, 1)), a);
  EXPECT_EQ((cache.values<fn::plus, std::int64_t>(n, 1)), c);
  const auto b_again = cache.values<fn::plus, double>(n, 2);     // drawn again, the same values
  EXPECT_NE(b_again, b);
  EXPECT_TRUE(same_values(*b_again, *b));
  // An array larger than the whole budget is drawn and handed out, never kept.
  const auto big = cache.values<fn::plus, double>(4 * n, 1);
  EXPECT_EQ(big->size(), 4 * n);
  EXPECT_EQ(cache.kept_arrays(), 3u);
  EXPECT_LE(cache.kept_bytes(), 3 * n * sizeof(double));
  EXPECT_NE((cache.values<fn::plus, double>(4 * n, 1)), big);
  (void)d;
}

TEST(JudgeSegments, ReportsTheFirstFailingSegment) {
  const std::vector<std::int32_t> x{1, 2, 3, 4, 5, 6};
  const std::vector<std::int64_t> offsets{0, 2, 2, 6};
  EXPECT_TRUE((seg::judge_segments<fn::plus>(x.data(), offsets.data(), 3, std::vector<std::int32_t>{3, 0, 18}, 1).ok));
  const auto bad = seg::judge_segments<fn::plus>(x.data(), offsets.data(), 3, std::vector<std::int32_t>{3, 1, 17});
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.segment, 1u);  // the empty segment must give the identity
  EXPECT_EQ(bad.detail.got, "1");
  EXPECT_EQ(bad.detail.want, "0");
  const auto short_result = seg::judge_segments<fn::plus>(x.data(), offsets.data(), 3, std::vector<std::int32_t>{3});
  EXPECT_FALSE(short_result.ok);
  EXPECT_EQ(short_result.segment, 1u);

  // Non-commutative: the reversed composition of a segment is caught.
  const std::vector<fn::affine32> maps{{2, 1}, {3, 0}};
  const std::vector<int> begin{0}, end{2};
  EXPECT_TRUE((seg::judge_segments<fn::affine_compose>(maps.data(), begin.data(), end.data(), 1,
                                                       std::vector<fn::affine32>{{6, 3}}).ok));
  EXPECT_FALSE((seg::judge_segments<fn::affine_compose>(maps.data(), begin.data(), end.data(), 1,
                                                        std::vector<fn::affine32>{{6, 1}}).ok));
}

TEST(JudgeSegments, TheFirstFailingSegmentAmongManyIsTheOneReported) {
  // judge_segments judges the segments in parallel (OpenMP, chunks of 4096 segments); whichever thread finds a
  // failure first, the verdict must name the lowest failing segment, with that segment's values.
  const auto layout = seg::parse_layout("uniform:3", 3 * 100'000, 1);
  std::vector<std::int32_t> x(layout.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::int32_t>(i % 97);
  auto got = seg::segmented_reference<fn::plus>(x.data(), layout.offsets.data(), layout.num_segments());
  EXPECT_TRUE((seg::judge_segments<fn::plus>(x.data(), layout.offsets.data(), layout.num_segments(), got).ok));
  const std::int32_t want = got[70'001];
  for (std::size_t bad : {99'999, 70'001, 81'920, 70'002}) got[bad] += 1;
  const auto verdict = seg::judge_segments<fn::plus>(x.data(), layout.offsets.data(), layout.num_segments(), got);
  EXPECT_FALSE(verdict.ok);
  EXPECT_EQ(verdict.segment, 70'001u);
  EXPECT_EQ(verdict.detail.got, std::to_string(want + 1));
  EXPECT_EQ(verdict.detail.want, std::to_string(want));
}

TEST(JudgeSegments, FloatSegmentsUseTheFunctorsBound) {
  const auto layout = seg::parse_layout("zipf:1.1", 1 << 16, 4);
  std::vector<float> x(layout.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f - 0.5f;
  auto got = seg::segmented_reference<fn::plus>(x.data(), layout.offsets.data(), layout.num_segments());
  const reducelab::reference_scope outer;  // judging must not depend on (or flood) an enclosing memo scope
  EXPECT_TRUE((seg::judge_segments<fn::plus>(x.data(), layout.offsets.data(), layout.num_segments(), got, 16).ok));
  // The first segment longer than 100 elements, off by far more than its bound.
  const auto lengths = lengths_of(layout);
  const auto target =
      static_cast<std::size_t>(std::find_if(lengths.begin(), lengths.end(), [](std::int64_t l) { return l > 100; }) -
                               lengths.begin());
  ASSERT_LT(target, lengths.size());
  got[target] += 1.0f;
  const auto bad = seg::judge_segments<fn::plus>(x.data(), layout.offsets.data(), layout.num_segments(), got, 16);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.segment, target);
  EXPECT_TRUE(bad.detail.bounded);
  EXPECT_GT(bad.detail.error, bad.detail.bound);
}

// A caller's own pair, given its own tile shape by the specialization tuning.hpp documents.
namespace tuning_test {
struct own_value {
  double a;
  float b;
};
}  // namespace tuning_test
template <>
inline constexpr reducelab::segmented::tuning::by_key_shape
    reducelab::segmented::tuning::by_key_shape_for<std::int32_t, tuning_test::own_value> = {0, false, 20, 8};

// reduce_by_key's tile by pair size (segmented/tuning.hpp, by_key_shapes): the rows the committed compares measured.
TEST(ReduceByKeyTuning, ShapeFollowsThePairSize) {
  namespace tuning = reducelab::segmented::tuning;
  struct sixteen_bytes {
    double a, b;
  };
  // Up to 8 bytes: 26 items, 5 resident blocks of 128 threads (since stop 46).
  EXPECT_EQ((tuning::by_key_items<std::int32_t, std::int32_t>), 26);
  EXPECT_EQ((tuning::by_key_items<std::int32_t, float>), 26);
  EXPECT_EQ((tuning::by_key_min_blocks<std::int32_t, float>(128)), 5);
  // 9 to 12 bytes with a number value (int32 keys with doubles): 26 items, 4 blocks (since stop 46).
  EXPECT_EQ((tuning::by_key_items<std::int32_t, double>), 26);
  EXPECT_EQ((tuning::by_key_min_blocks<std::int32_t, double>(128)), 4);
  EXPECT_EQ((tuning::by_key_min_blocks<std::int64_t, std::int32_t>(128)), 4);
  // 9 to 12 bytes with a struct value (argmax's pairs, affine maps): what fits 36 KiB (24 items), 4 blocks.
  EXPECT_EQ((tuning::by_key_items<std::int32_t, fn::value_index<float, std::uint32_t>>), 24);
  EXPECT_EQ((tuning::by_key_min_blocks<std::int32_t, fn::value_index<float, std::uint32_t>>(128)), 4);
  EXPECT_EQ((tuning::by_key_items<std::int32_t, fn::affine_map<std::uint32_t>>), 24);
  // Wider: what fits 36 KiB (18 items of 16-byte pairs), 4 blocks.
  EXPECT_EQ((tuning::by_key_items<std::int64_t, double>), 18);
  EXPECT_EQ((tuning::by_key_min_blocks<std::int64_t, double>(128)), 4);
  EXPECT_EQ((tuning::by_key_items<std::int32_t, sixteen_bytes>), 14);  // 36 KiB / (128 x 20 bytes)
  EXPECT_EQ((tuning::by_key_min_blocks<std::int32_t, sixteen_bytes>(128)), 4);
  // A specialized pair takes its own row: 20 items, 8 warps (2 blocks of 128), not the 36 KiB fit and 4 blocks.
  EXPECT_EQ((tuning::by_key_items<std::int32_t, tuning_test::own_value>), 20);
  EXPECT_EQ((tuning::by_key_min_blocks<std::int32_t, tuning_test::own_value>(128)), 2);
  EXPECT_EQ((tuning::by_key_items<std::int64_t, tuning_test::own_value>), 12);  // 36 KiB / (128 x 24 bytes)
  // The bound is warps per SM: half the blocks of twice the threads, never fewer than one.
  EXPECT_EQ((tuning::by_key_min_blocks<std::int32_t, float>(256)), 2);
  EXPECT_EQ((tuning::by_key_min_blocks<std::int32_t, float>(1024)), 1);
}
