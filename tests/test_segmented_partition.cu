// CPU: the merge-path arithmetic of the segmented reductions (include/reducelab/segmented/merge_path.cuh) — the
// diagonal search, the warp's 32-probe search, how blocks split the path, and which blocks join carries across block
// boundaries — plus a CPU mirror of one block's walk (agent/merge_path_block.cuh: tiles, threads, the block scan, long
// runs) and of the look-back over the blocks' carries (segmented/grid/segment_carries.cuh: 32 blocks per round, the
// nearest published prefix), run with a non-commutative functor against the in-order fold of every segment; and the
// decision both passes of the one-array path take on the device (kernels/short_segments.cuh); and the lanes' segmented
// scan of reduce_by_key's stream path (agent/run_stretch.cuh), which takes only the steps that have work.
#include "reducelab/segmented/agent/run_stretch.cuh"
#include "reducelab/segmented/kernels/short_segments.cuh"
#include "reducelab/segmented/merge_path.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace seg = reducelab::segmented;

namespace partition_test {

using offsets_t = std::vector<long long>;

/// ends(x) of a one-array layout: offsets[x + 1] - offsets[0].
struct ends_of {
  const long long* offsets;
  __host__ __device__ long long operator()(long long x) const { return offsets[x + 1] - offsets[0]; }
};

/// ends(x) of a tile's staged ends, relative to the tile's first element (as in the agent).
struct tile_ends {
  const long long* ends;
  long long first_element;
  __host__ __device__ long long operator()(long long x) const { return ends[x] - first_element; }
};

long long num_elements(const offsets_t& o) { return o.back() - o.front(); }
long long num_segments(const offsets_t& o) { return static_cast<long long>(o.size()) - 1; }

/// The warp search of segmented/warp/warp_merge_path.cuh with its 32 lanes played one after another; `rounds`, when
/// given, counts its rounds (each one memory round trip on the device). early_x0 >= 0: the kernel's early candidates
/// around early_x0 (loaded with offsets[0] and offsets[S], so no round of the search's own).
seg::path_coord warp_search(long long diag, const offsets_t& o, int* rounds = nullptr, long long w = 1,
                            long long early_x0 = -1) {
  const ends_of ends{o.data()};
  long long lo = seg::search_low(diag, num_elements(o), w);
  long long hi = seg::search_high(diag, num_segments(o), w);
  int count = 0;
  if (early_x0 >= 0 && num_segments(o) > 0 && lo < hi) {
    const long long first = seg::early_first(early_x0, num_segments(o));
    EXPECT_TRUE(first >= 0 && first < num_segments(o)) << "early candidates start outside the segments";
    const int n = static_cast<int>(std::min(32LL, num_segments(o) - first));
    int trues = 0;
    bool prefix = true;
    for (int j = 0; j < n; ++j) {
      const bool holds = ends(first + j) <= diag - w * (first + j + 1);  // the device's test, on the early ends
      EXPECT_EQ(holds, seg::end_comes_first(ends, first + j, diag, w));
      EXPECT_TRUE(!holds || prefix) << "the early candidates' answers are not a prefix, lane " << j;
      prefix = prefix && holds;
      trues += holds ? 1 : 0;
    }
    long long answer;
    if (seg::answer_from_candidates(lo, hi, first, n, trues, answer)) lo = hi = answer;
  }
  if (hi - lo > 32) {  // the guided round: a spread candidate and a guided one per lane
    ++count;
    const long long guess = seg::guess_segments(diag, num_segments(o), num_elements(o), w);
    int trues[2] = {0, 0};
    bool prefix[2] = {true, true};
    for (int j = 0; j < 32; ++j) {
      const long long p[2] = {seg::probe_point(lo, hi, j), seg::guided_first(lo, hi, guess) + j};
      for (int k = 0; k < 2; ++k) {
        EXPECT_TRUE(p[k] >= lo && p[k] < hi) << "candidate " << k << " of lane " << j << " outside the window";
        const bool holds = seg::end_comes_first(ends, p[k], diag, w);
        EXPECT_TRUE(!holds || prefix[k]) << "the guided round's answers are not a prefix, lane " << j << ", set " << k;
        prefix[k] = prefix[k] && holds;
        trues[k] += holds ? 1 : 0;
      }
    }
    seg::narrow_guided(lo, hi, guess, trues[0], trues[1]);
  }
  while (lo < hi) {
    ++count;
    int trues = 0;
    bool prefix = true;
    for (int j = 0; j < 32; ++j) {
      const bool holds =
          seg::probe_valid(lo, hi, j) && seg::end_comes_first(ends, seg::probe_point(lo, hi, j), diag, w);
      EXPECT_TRUE(!holds || prefix) << "the probes' answers are not a prefix at lane " << j;
      prefix = prefix && holds;
      trues += holds ? 1 : 0;
    }
    if (seg::narrow(lo, hi, trues)) break;
  }
  if (rounds != nullptr) *rounds = count;
  return seg::coord_at(diag, lo, ends, num_segments(o), w);
}

seg::path_coord search(long long diag, const offsets_t& o, long long w = 1) {
  return seg::merge_path_search(diag, ends_of{o.data()}, num_segments(o), num_elements(o), w);
}

/// The coordinate of diagonal `diag` on the path with ends of weight w, step by step: the last point whose cost
/// (elements + w x ends) is at most diag.
seg::path_coord walk_to(long long diag, const offsets_t& o, long long w) {
  const ends_of ends{o.data()};
  const long long S = num_segments(o), E = num_elements(o);
  long long x = 0, y = 0, cost = 0;
  for (;;) {
    if (x < S && ends(x) <= y) {
      if (cost + w > diag) break;
      cost += w;
      ++x;
    } else if (y < E) {
      if (cost + 1 > diag) break;
      cost += 1;
      ++y;
    } else {
      break;
    }
  }
  return {x, y};
}

/// x -> a*x + b over uint32, composed left to right: exact and not commutative.
struct affine {
  std::uint32_t a, b;
  bool operator==(const affine& o) const { return a == o.a && b == o.b; }
};
struct compose {
  __host__ __device__ affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};
const affine identity{1u, 0u};

std::vector<affine> random_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<affine> v(n);
  for (auto& x : v) x = {static_cast<std::uint32_t>(rng()) | 1u, static_cast<std::uint32_t>(rng())};
  return v;
}

std::vector<affine> reference(const std::vector<affine>& in, const offsets_t& o) {
  std::vector<affine> out;
  for (long long s = 0; s < num_segments(o); ++s) {
    affine acc = identity;
    for (long long i = o[s]; i < o[s + 1]; ++i) acc = compose{}(acc, in[i]);
    out.push_back(acc);
  }
  return out;
}

/// The shape of a policy (segmented/tuning.hpp), small so that the tests cross many tiles and blocks.
struct shape {
  int threads;
  int items;
  long long long_run;
};

/// CPU mirror of agent::walk_stretch for one block (contiguous layout), threads played in order, the block scan
/// played as a fold with `then`. Returns the carry-out; writes outputs like the kernel.
affine walk_block(const std::vector<affine>& in, const offsets_t& o, seg::path_coord from, seg::path_coord to,
                  std::vector<affine>& out, std::vector<int>& writes, shape sh) {
  const long long origin = o.front(), S = num_segments(o);
  const ends_of end{o.data()};
  const long long tile_steps = static_cast<long long>(sh.threads) * sh.items;
  const long long s_end = to.segment, y_end = to.element;
  long long s = from.segment, y = from.element;
  long long next_end = s < s_end ? end(s) : y_end;
  affine carry = identity;
  const auto write = [&](long long segment, const affine& v) {
    out[segment] = v;
    ++writes[segment];
  };
  while (s < s_end || y < y_end) {
    const long long run = next_end - y;
    if (run >= sh.long_run) {
      for (long long i = 0; i < run; ++i) carry = compose{}(carry, in[origin + y + i]);
      y += run;
      continue;
    }
    const long long remaining = (s_end - s) + (y_end - y);
    const int steps = static_cast<int>(std::min(remaining, tile_steps));
    const int a_len = static_cast<int>(std::min<long long>(s_end - s, steps));
    const int b_len = static_cast<int>(std::min<long long>(y_end - y, steps));
    const int ends_to_load = a_len + (s + a_len < s_end ? 1 : 0);
    std::vector<long long> ends(static_cast<std::size_t>(ends_to_load) + 1, -1);  // -1: not loaded
    for (int k = 0; k < ends_to_load; ++k) ends[k] = end(s + k);
    const tile_ends rel{ends.data(), y};
    seg::flagged<affine> running{carry, false};  // the block scan, played in thread order
    int last_x = 0, last_e = 0;
    for (int t = 0; t < sh.threads; ++t) {
      const int d0 = std::min(t * sh.items, steps), d1 = std::min(d0 + sh.items, steps);
      const seg::path_coord c = seg::merge_path_search(d0, rel, a_len, b_len);
      int x = static_cast<int>(c.segment), e = static_cast<int>(c.element);
      affine partial = identity, head = identity;
      bool closed = false;
      long long first_closed = 0;
      for (int i = 0; i < sh.items; ++i) {
        if (d0 + i >= d1) continue;
        if (x < a_len && ends[x] <= y + e) {
          EXPECT_GE(ends[x], 0) << "the walk read an end the tile did not load";
          if (!closed) {
            head = partial;
            first_closed = s + x;
            closed = true;
          } else {
            write(s + x, partial);
          }
          partial = identity;
          ++x;
        } else {
          EXPECT_LT(e, b_len) << "an element step past the tile's values";
          partial = compose{}(partial, in[origin + y + e]);
          ++e;
        }
      }
      if (closed) write(first_closed, compose{}(running.value, head));
      running = seg::then(running, seg::flagged<affine>{partial, closed}, compose{});
      last_x = x;
      last_e = e;
    }
    carry = running.value;
    s += last_x;
    y += last_e;
    next_end = s < s_end ? ends[last_x] : y_end;
    EXPECT_TRUE(s >= s_end || next_end >= 0) << "the next end was not loaded";
  }
  EXPECT_EQ(s, s_end);
  EXPECT_EQ(y, y_end);
  (void)S;
  return carry;
}

/// One block's published slot on the CPU.
struct cpu_slot {
  bool ready = false;
  affine value{};
};

/// The device look-back (grid/segment_carries.cuh) on the CPU: rounds of `threads` blocks ending before `block` (one
/// per thread of the looking block); in each, the nearest block with a published prefix and the aggregates of the
/// blocks after it, joined in block order.
affine look_back(const std::vector<cpu_slot>& aggregates, const std::vector<cpu_slot>& prefixes, long long block,
                 int threads) {
  affine after = identity;
  for (long long window_end = block;; window_end -= threads) {
    int nearest_prefix = -1;
    for (int t = threads - 1; t >= 0 && nearest_prefix < 0; --t) {
      const long long j = window_end - threads + t;
      if (j < 0 || prefixes[static_cast<std::size_t>(j)].ready) nearest_prefix = t;
    }
    affine window = identity;
    for (int t = nearest_prefix < 0 ? 0 : nearest_prefix; t < threads; ++t) {
      const long long j = window_end - threads + t;
      if (j < 0) continue;  // before block 0: the identity
      const cpu_slot& slot = t == nearest_prefix ? prefixes[static_cast<std::size_t>(j)] : aggregates[static_cast<std::size_t>(j)];
      EXPECT_TRUE(slot.ready) << "block " << block << " would wait forever on block " << j;
      window = compose{}(window, slot.value);
    }
    after = compose{}(window, after);
    if (nearest_prefix >= 0) return after;
  }
}

/// The whole launch on the CPU: every block's walk and published carry, then the look-backs of the blocks that end a
/// segment begun earlier.
std::vector<affine> emulate(const std::vector<affine>& in, const offsets_t& o, long long grid, shape sh,
                            std::vector<int>* writes_out = nullptr, long long w = 1) {
  const long long S = num_segments(o), E = num_elements(o);
  std::vector<affine> out(static_cast<std::size_t>(S), affine{0xdeadu, 0xbeefu});
  std::vector<int> writes(static_cast<std::size_t>(S), 0);
  std::vector<cpu_slot> aggregates(static_cast<std::size_t>(grid)), prefixes(static_cast<std::size_t>(grid));
  std::vector<seg::path_coord> from(static_cast<std::size_t>(grid)), to(static_cast<std::size_t>(grid));
  std::vector<affine> carry(static_cast<std::size_t>(grid), identity);
  std::vector<bool> walked(static_cast<std::size_t>(grid), false);
  const long long tile_steps = static_cast<long long>(sh.threads) * sh.items;
  const auto first_start = [&](long long b) {
    const long long s = from[static_cast<std::size_t>(b)].segment;
    return s < S ? o[static_cast<std::size_t>(s)] - o[0] : E;
  };
  for (long long b = 0; b < grid; ++b) {
    const std::size_t i = static_cast<std::size_t>(b);
    const seg::diagonal_range r = seg::block_diagonals(b, grid, seg::path_cost(S, E, w), tile_steps);
    if (r.first == r.last) continue;  // past the end: publishes nothing
    walked[i] = true;
    from[i] = warp_search(r.first, o, nullptr, w);
    to[i] = warp_search(r.last, o, nullptr, w);
    carry[i] = walk_block(in, o, from[i], to[i], out, writes, sh);
    // As the device publishes: a prefix where the segment starts, an aggregate where the block passes through.
    if (seg::passes_through(from[i], to[i], first_start(b))) {
      aggregates[i] = {true, carry[i]};
    } else {
      prefixes[i] = {true, carry[i]};
    }
  }
  for (long long b = grid - 1; b >= 0; --b) {
    const std::size_t i = static_cast<std::size_t>(b);
    if (!walked[i] || !seg::finishes_earlier_segment(from[i], to[i], first_start(b))) continue;
    EXPECT_FALSE(seg::passes_through(from[i], to[i], first_start(b)));
    affine& slot = out[static_cast<std::size_t>(from[i].segment)];
    slot = compose{}(look_back(aggregates, prefixes, b, sh.threads), slot);
  }
  if (writes_out != nullptr) *writes_out = writes;
  return out;
}

/// Offsets of `lengths`, starting at `origin`.
offsets_t offsets_of(const std::vector<long long>& lengths, long long origin = 0) {
  offsets_t o{origin};
  for (long long l : lengths) o.push_back(o.back() + l);
  return o;
}

/// Walk every block's stretch step by step and check that each element and each segment end is visited exactly once,
/// that stretches are contiguous, and that the two searches agree.
void expect_blocks_cover_path(const offsets_t& o, long long grid, long long min_steps, long long w = 1) {
  const long long S = num_segments(o), E = num_elements(o), total = seg::path_cost(S, E, w);
  const ends_of ends{o.data()};
  std::vector<int> element_seen(static_cast<std::size_t>(E), 0), end_seen(static_cast<std::size_t>(S), 0);
  long long expected_first = 0;
  for (long long b = 0; b < grid; ++b) {
    const seg::diagonal_range r = seg::block_diagonals(b, grid, total, min_steps);
    ASSERT_EQ(r.first, expected_first) << "block " << b << " does not start where the previous one ended";
    ASSERT_LE(r.first, r.last);
    expected_first = r.last;
    const seg::path_coord from = search(r.first, o, w), to = search(r.last, o, w);
    const seg::path_coord wf = warp_search(r.first, o, nullptr, w), wt = warp_search(r.last, o, nullptr, w);
    ASSERT_EQ(from.segment, wf.segment) << "warp search, diagonal " << r.first;
    ASSERT_EQ(from.element, wf.element) << "warp search, diagonal " << r.first;
    ASSERT_EQ(to.segment, wt.segment) << "warp search, diagonal " << r.last;
    ASSERT_EQ(to.element, wt.element) << "warp search, diagonal " << r.last;
    long long x = from.segment, y = from.element;
    // Step from `from` until `to`: unweighted, one step per diagonal; weighted, until the coordinates meet.
    for (long long d = r.first; w == 1 ? d < r.last : (x < to.segment || y < to.element); ++d) {
      ASSERT_TRUE(x <= to.segment && y <= to.element) << "block " << b << " walks past its end";
      if (x < S && ends(x) <= y) {
        ++end_seen[x];
        ++x;
      } else {
        ASSERT_LT(y, E) << "block " << b << " steps past the last element";
        ++element_seen[y];
        ++y;
      }
    }
    ASSERT_EQ(x, to.segment) << "block " << b;
    ASSERT_EQ(y, to.element) << "block " << b;
  }
  ASSERT_EQ(expected_first, total) << "the blocks do not reach the end of the path";
  for (long long i = 0; i < E; ++i) ASSERT_EQ(element_seen[i], 1) << "element " << i;
  for (long long s = 0; s < S; ++s) ASSERT_EQ(end_seen[s], 1) << "end of segment " << s;
}

void expect_emulation_exact(const offsets_t& o, long long grid, shape sh, std::uint64_t seed, long long w = 1) {
  const std::vector<affine> in = random_values(static_cast<std::size_t>(o.back()), seed);
  std::vector<int> writes;
  const std::vector<affine> got = emulate(in, o, grid, sh, &writes, w);
  const std::vector<affine> want = reference(in, o);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t s = 0; s < want.size(); ++s) {
    ASSERT_EQ(writes[s], 1) << "segment " << s << " written " << writes[s] << " times by the main pass";
    ASSERT_TRUE(got[s] == want[s]) << "segment " << s << " of " << want.size() << " (length " << o[s + 1] - o[s] << ")";
  }
}

std::vector<long long> random_lengths(std::size_t count, long long max_len, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<long long> len(0, max_len);
  std::vector<long long> l(count);
  for (auto& x : l) x = len(rng);
  return l;
}

/// A random layout for round `round`: 1..max_count segments of random lengths up to max_lens[round % size] (drawn
/// with `seed`), one of them `giant` long every giant_every rounds, starting at offset round % 3.
offsets_t random_layout(std::mt19937_64& rng, int round, std::size_t max_count, const std::vector<long long>& max_lens,
                        std::uint64_t seed, int giant_every, long long giant) {
  const std::size_t count = 1 + rng() % max_count;
  const long long max_len = max_lens[static_cast<std::size_t>(round) % max_lens.size()];
  std::vector<long long> lengths = random_lengths(count, max_len, seed);
  if (round % giant_every == 0) lengths[rng() % count] = giant;
  return offsets_of(lengths, round % 3);
}

/// One segment of 2^21 values then 250 000 of 8, and `randoms` layouts of random lengths (count first_count + 30 000 r,
/// lengths up to 40 or 3000 by turns, random_lengths seeded seed + r), about a tenth of their segments emptied by `rng`:
/// layouts on which the searches' guesses are wrong for most diagonals.
std::vector<offsets_t> giant_and_random_layouts(int randoms, std::size_t first_count, std::uint64_t seed,
                                                std::mt19937_64& rng) {
  std::vector<offsets_t> layouts;
  offsets_t giant{0, 1LL << 21};
  for (int s = 0; s < 250000; ++s) giant.push_back(giant.back() + 8);
  layouts.push_back(giant);
  for (int r = 0; r < randoms; ++r) {
    const auto lengths = random_lengths(first_count + static_cast<std::size_t>(r) * 30000, r % 2 == 0 ? 40 : 3000,
                                        seed + static_cast<std::uint64_t>(r));
    offsets_t o{0};
    for (long long l : lengths) o.push_back(o.back() + (rng() % 10 == 0 ? 0 : l));
    layouts.push_back(o);
  }
  return layouts;
}

}  // namespace partition_test
using namespace partition_test;

TEST(SegmentedPartition, HandExampleCoordinates) {
  // Segments [0,2) [2,2) [2,5): path e0 e1 |0 |1 e2 e3 e4 |2 (an end goes first on a tie).
  const offsets_t o{0, 2, 2, 5};
  const long long want_segment[] = {0, 0, 0, 1, 2, 2, 2, 2, 3};
  for (long long d = 0; d <= 8; ++d) {
    const seg::path_coord c = search(d, o);
    EXPECT_EQ(c.segment, want_segment[d]) << "diagonal " << d;
    EXPECT_EQ(c.segment + c.element, d);
    EXPECT_EQ(warp_search(d, o).segment, want_segment[d]) << "diagonal " << d;
  }
}

TEST(SegmentedPartition, NonZeroOriginCountsFromTheFirstOffset) {
  const offsets_t o{10, 11, 13};  // elements 10, 11, 12 of the input
  EXPECT_EQ(num_elements(o), 3);
  EXPECT_EQ(search(2, o).segment, 1);  // e10 |0
  EXPECT_EQ(search(2, o).element, 1);
  expect_blocks_cover_path(o, 3, 1);
}

TEST(SegmentedPartition, BlockDiagonalsAreContiguousWithAMinimumShare) {
  EXPECT_EQ(seg::steps_per_block(100, 10, 1), 10);
  EXPECT_EQ(seg::steps_per_block(101, 10, 1), 11);
  EXPECT_EQ(seg::steps_per_block(100, 10, 64), 64);  // a small path occupies few blocks
  const seg::diagonal_range second = seg::block_diagonals(1, 10, 100, 64);
  EXPECT_EQ(second.first, 64);
  EXPECT_EQ(second.last, 100);
  const seg::diagonal_range third = seg::block_diagonals(2, 10, 100, 64);
  EXPECT_EQ(third.first, 100);
  EXPECT_EQ(third.last, 100);  // past the path: empty
  EXPECT_EQ(seg::block_diagonals(0, 10, 0, 64).last, 0);
}

TEST(SegmentedPartition, EmptyInputsAndNoSegments) {
  const offsets_t no_elements{0, 0, 0, 0, 0};  // four empty segments: a path of four ends
  for (long long d = 0; d <= 4; ++d) {
    EXPECT_EQ(search(d, no_elements).segment, d);
    EXPECT_EQ(search(d, no_elements).element, 0);
  }
  expect_blocks_cover_path(no_elements, 3, 1);
  const offsets_t no_segments{0};  // S = 0: an empty path
  EXPECT_EQ(search(0, no_segments).segment, 0);
  EXPECT_EQ(search(0, no_segments).element, 0);
  expect_blocks_cover_path(no_segments, 4, 1);
  expect_emulation_exact(no_elements, 5, {4, 2, 8}, 1);
}

TEST(SegmentedPartition, ProbesNarrowTheWindow) {
  long long lo = 0, hi = 1000;
  EXPECT_EQ(seg::probe_point(lo, hi, 0), 1000 / 33);
  EXPECT_FALSE(seg::narrow(lo, hi, 5));  // the 5th probe held, the 6th did not
  EXPECT_EQ(lo, 5 * 1000 / 33 + 1);
  EXPECT_EQ(hi, 6 * 1000 / 33);
  long long a = 7, b = 20;
  EXPECT_TRUE(seg::probe_valid(a, b, 12));
  EXPECT_FALSE(seg::probe_valid(a, b, 13));
  EXPECT_TRUE(seg::narrow(a, b, 4));
  EXPECT_EQ(a, 11);
}

TEST(SegmentedPartition, GuidedRoundNarrowsBothWays) {
  // Window [0, 1000), guess 500: guided candidates 484..515; spread ones 1000 * (j + 1) / 33.
  long long lo = 0, hi = 1000;
  EXPECT_EQ(seg::guided_first(lo, hi, 500), 484);
  EXPECT_EQ(seg::guided_first(lo, hi, 990), 968);  // clamped: the last 32 candidates
  EXPECT_EQ(seg::guided_first(lo, hi, 3), 0);
  EXPECT_TRUE(seg::narrow_guided(lo, hi, 500, 16, 3));  // 484..486 held, 487 did not: the answer
  EXPECT_EQ(lo, 487);
  lo = 0, hi = 1000;
  EXPECT_FALSE(seg::narrow_guided(lo, hi, 500, 2, 0));  // below the guess: as narrow() leaves it
  EXPECT_EQ(lo, 2 * 1000 / 33 + 1);
  EXPECT_EQ(hi, 3 * 1000 / 33);
  lo = 0, hi = 1000;
  EXPECT_FALSE(seg::narrow_guided(lo, hi, 500, 17, 32));  // above the guided candidates (and spread candidate 16, 515)
  EXPECT_EQ(lo, 516);
  EXPECT_EQ(hi, 18 * 1000 / 33);
  lo = 0, hi = 1000;
  EXPECT_FALSE(seg::narrow_guided(lo, hi, 500, 15, 0));  // the guided candidates trim the spread interval from above
  EXPECT_EQ(lo, 15 * 1000 / 33 + 1);
  EXPECT_EQ(hi, 484);
  lo = 0, hi = 1000;
  EXPECT_TRUE(seg::narrow_guided(lo, hi, 999, 32, 32));  // every candidate held: the answer is 1000
  EXPECT_EQ(lo, 1000);
  EXPECT_EQ(seg::guess_segments(0, 0, 0), 0);
  EXPECT_EQ(seg::guess_segments(90, 10, 80), 10);  // clamped to search_high: diagonal 90 has passed every end
}

TEST(SegmentedPartition, UniformLengthsAreFoundInOneRound) {
  // Every block diagonal of a 528-block grid (the H100's) on uniform layouts, including many more segments than fit
  // a window of 32: the guided round finds each one, where the spread probes alone took up to 5 rounds.
  for (const long long length : {0LL, 1LL, 3LL, 8LL, 256LL, 4096LL, 65536LL}) {
    const long long segments = length == 0 ? 100000 : (1LL << 22) / length;
    offsets_t o(static_cast<std::size_t>(segments + 1));
    for (long long s = 0; s <= segments; ++s) o[static_cast<std::size_t>(s)] = 7 + s * length;
    const long long total = num_segments(o) + num_elements(o);
    int most = 0;
    for (long long b = 0; b <= 528; ++b) {
      const long long d = seg::block_diagonals(b, 528, total, 2048).first;
      int rounds = 0;
      const seg::path_coord got = warp_search(d, o, &rounds);
      ASSERT_EQ(got.segment, search(d, o).segment) << "length " << length << ", diagonal " << d;
      most = std::max(most, rounds);
    }
    EXPECT_LE(most, 1) << "uniform length " << length << ": a diagonal took " << most << " rounds";
  }
}

TEST(SegmentedPartition, MissedGuessesCostNoMoreRounds) {
  // One giant segment then short ones, and random lengths: the guess is wrong for most diagonals; the search must
  // still be exact, and take no more rounds than the search without the guided round (33-fold per round).
  std::mt19937_64 rng(7);
  const std::vector<offsets_t> layouts = giant_and_random_layouts(4, 50000, 100, rng);
  int searched = 0, fewer = 0;
  for (const auto& o : layouts) {
    const long long total = num_segments(o) + num_elements(o);
    for (long long d = 0; d <= total; d += 1 + total / 3001) {
      int rounds = 0;
      ASSERT_EQ(warp_search(d, o, &rounds).segment, search(d, o).segment) << "diagonal " << d;
      long long window = seg::search_high(d, num_segments(o)) - seg::search_low(d, num_elements(o));
      int spread_only = 0;
      while (window > 0) {
        ++spread_only;
        window = window <= 32 ? 0 : window / 33 + 1;
      }
      EXPECT_LE(rounds, std::max(spread_only, 1)) << "diagonal " << d << " of " << total;
      searched += 1;
      fewer += rounds < spread_only ? 1 : 0;
    }
  }
  std::printf("missed guesses: %d of %d searches took fewer rounds than without the guided round\n", fewer, searched);
}

TEST(SegmentedPartition, CandidatesDecideOnlyWhenTheyBracketTheAnswer) {
  long long a = -1;
  // Window [100, 200]: candidates 120..151.
  EXPECT_TRUE(seg::answer_from_candidates(100, 200, 120, 32, 5, a));  // 124 held, 125 did not
  EXPECT_EQ(a, 125);
  EXPECT_FALSE(seg::answer_from_candidates(100, 200, 120, 32, 0, a));   // the answer may lie below 120
  EXPECT_FALSE(seg::answer_from_candidates(100, 200, 120, 32, 32, a));  // or above 151
  EXPECT_TRUE(seg::answer_from_candidates(120, 200, 120, 32, 0, a));    // nothing below 120 can be the answer
  EXPECT_EQ(a, 120);
  EXPECT_TRUE(seg::answer_from_candidates(100, 152, 120, 32, 32, a));   // nothing above 151 up to hi
  EXPECT_EQ(a, 152);
  EXPECT_TRUE(seg::answer_from_candidates(0, 3, 0, 3, 3, a));  // fewer than 32 segments
  EXPECT_EQ(a, 3);
  EXPECT_FALSE(seg::answer_from_candidates(0, 0, 0, 0, 0, a));  // no candidate decides nothing
  EXPECT_EQ(seg::early_first(5, 100), 0);
  EXPECT_EQ(seg::early_first(50, 100), 34);
  EXPECT_EQ(seg::early_first(100, 100), 68);  // the last block's end: the last 32 segments
  EXPECT_EQ(seg::early_first(7, 20), 0);
}

TEST(SegmentedPartition, EarlyCandidatesFindUniformLengthsWithNoRound) {
  // The kernel's early candidates sit around block * S / grid: for uniform lengths from 256 up every block's two ends
  // (its own diagonal and the next block's) are found with no round of the search, for the weights the kernel uses.
  // Shorter ones may miss (a block's share of the path is rounded up, which shifts block b's answer by up to b / (w +
  // length) segments) and then take the one guided round they took before.
  for (const long long w : {1LL, 6LL, 8LL})
    for (const long long length : {0LL, 1LL, 8LL, 256LL, 4096LL, 65536LL}) {
      const long long segments = length == 0 ? 100000 : (1LL << 24) / length;
      offsets_t o(static_cast<std::size_t>(segments + 1));
      for (long long s = 0; s <= segments; ++s) o[static_cast<std::size_t>(s)] = 7 + s * length;
      const long long total = seg::path_cost(num_segments(o), num_elements(o), w);
      for (const long long grid : {528LL, 1056LL}) {
        int most = 0;
        for (long long b = 0; b < grid; ++b) {
          const seg::diagonal_range r = seg::block_diagonals(b, grid, total, 2048);
          if (r.first == r.last) continue;
          for (int end = 0; end < 2; ++end) {
            const long long d = end == 0 ? r.first : r.last;
            int rounds = 0;
            const seg::path_coord got = warp_search(d, o, &rounds, w, (b + end) * segments / grid);
            ASSERT_EQ(got.segment, search(d, o, w).segment) << "length " << length << ", diagonal " << d;
            ASSERT_EQ(got.element, search(d, o, w).element) << "length " << length << ", diagonal " << d;
            most = std::max(most, rounds);
          }
        }
        EXPECT_LE(most, length >= 256 ? 0 : 1)
            << "w " << w << ", uniform length " << length << ", grid " << grid << ": " << most << " rounds";
      }
    }
}

TEST(SegmentedPartition, MissedEarlyCandidatesCostNoRound) {
  // Skewed and random layouts, and early candidates anywhere (0, S, wrong guesses): the answer stays exact, and the
  // search takes no more rounds than it does without them.
  std::mt19937_64 rng(11);
  std::vector<offsets_t> layouts = giant_and_random_layouts(3, 20000, 200, rng);
  layouts.push_back(offsets_t{0, 5, 5, 9});  // fewer segments than lanes
  int searched = 0;
  for (const auto& o : layouts)
    for (const long long w : {1LL, 8LL}) {
      const long long total = seg::path_cost(num_segments(o), num_elements(o), w);
      for (long long d = 0; d <= total; d += 1 + total / 701) {
        int without = 0;
        const seg::path_coord want = warp_search(d, o, &without, w);
        for (const long long x0 : {0LL, num_segments(o), static_cast<long long>(rng() % (num_segments(o) + 1)),
                                   search(d, o, w).segment}) {
          int rounds = 0;
          const seg::path_coord got = warp_search(d, o, &rounds, w, x0);
          ASSERT_EQ(got.segment, want.segment) << "diagonal " << d << ", x0 " << x0;
          ASSERT_EQ(got.element, want.element) << "diagonal " << d << ", x0 " << x0;
          EXPECT_LE(rounds, without) << "diagonal " << d << ", x0 " << x0;
          ++searched;
        }
      }
    }
  EXPECT_GT(searched, 1000);
}

TEST(SegmentedPartition, RandomLayoutsCoverEveryStepOnce) {
  std::mt19937_64 rng(2024);
  for (int round = 0; round < 60; ++round) {
    const std::size_t count = 1 + rng() % 400;
    const long long max_len = std::vector<long long>{0, 1, 3, 8, 40, 1000}[round % 6];
    const offsets_t o = offsets_of(random_lengths(count, max_len, round), static_cast<long long>(rng() % 5));
    for (long long grid : {1LL, 2LL, 7LL, 64LL})
      for (long long min_steps : {1LL, 16LL}) {
        SCOPED_TRACE("round " + std::to_string(round) + ", grid " + std::to_string(grid));
        expect_blocks_cover_path(o, grid, min_steps);
      }
  }
}

TEST(SegmentedPartition, GiantSegmentSpansManyBlocks) {
  // One segment of 100000 elements among 3000 tiny ones, and a giant alone.
  std::vector<long long> lengths = random_lengths(3000, 2, 5);
  lengths.insert(lengths.begin() + 1234, 100'000);
  const offsets_t o = offsets_of(lengths);
  expect_blocks_cover_path(o, 300, 16);
  expect_blocks_cover_path(offsets_of({1'000'000}), 1000, 16);
  // Every block inside the giant carries the same segment: the blocks a look-back crosses.
  const long long S = num_segments(o), total = S + num_elements(o);
  int inside = 0;
  for (long long b = 0; b < 300; ++b) {
    const seg::diagonal_range r = seg::block_diagonals(b, 300, total, 16);
    if (search(r.first, o).segment == 1234 && search(r.last, o).segment == 1234) ++inside;
  }
  EXPECT_GT(inside, 100);
}

TEST(SegmentedPartition, WhichBlocksLookBack) {
  // Segments [0,4) [4,4) [4,10): start(0) = 0, start(2) = 4.
  const seg::path_coord c0{0, 0}, c1{0, 3}, c2{2, 5}, c3{2, 8}, c4{3, 10}, at_start{2, 4};
  // The first block: its segment starts with it.
  EXPECT_FALSE(seg::passes_through(c0, c1, 0));
  EXPECT_FALSE(seg::finishes_earlier_segment(c0, c1, 0));
  // Ends segment 0 (begun in the block before) and segment 1, carries segment 2 out.
  EXPECT_FALSE(seg::passes_through(c1, c2, 0));
  EXPECT_TRUE(seg::finishes_earlier_segment(c1, c2, 0));
  // Wholly inside segment 2, which began before it.
  EXPECT_TRUE(seg::passes_through(c2, c3, 4));
  EXPECT_FALSE(seg::finishes_earlier_segment(c2, c3, 4));
  // Ends segment 2, the last.
  EXPECT_FALSE(seg::passes_through(c3, c4, 4));
  EXPECT_TRUE(seg::finishes_earlier_segment(c3, c4, 4));
  // Inside segment 2 but starting exactly where it starts: its carry is already the segment's prefix.
  EXPECT_FALSE(seg::passes_through(at_start, c3, 4));
  EXPECT_FALSE(seg::finishes_earlier_segment(at_start, c4, 4));
}

TEST(SegmentedPartition, ThenJoinsInOrder) {
  const compose op;
  const affine f{3, 1}, g{5, 2}, h{7, 3};
  const seg::flagged<affine> a{f, false}, b{g, false}, c{h, true};
  EXPECT_TRUE(seg::then(a, b, op).value == op(f, g));
  EXPECT_TRUE(seg::then(a, c, op).value == h);  // c passed an end: what came before is not its segment
  EXPECT_TRUE(seg::then(seg::then(a, b, op), c, op).value == seg::then(a, seg::then(b, c, op), op).value);
  EXPECT_TRUE(seg::then(seg::then(c, a, op), b, op).value == seg::then(c, seg::then(a, b, op), op).value);
}

// The CPU mirror of the whole launch: tiles of 4 threads x 3 items, long runs from 9 elements, then the look-backs.
TEST(SegmentedPartition, EmulatedLaunchIsInOrderOnEveryLayout) {
  const shape small{4, 3, 9};
  std::mt19937_64 rng(7);
  for (int round = 0; round < 80; ++round) {
    // a giant among tiny ones every fifth round
    const offsets_t o = random_layout(rng, round, 300, {0, 1, 3, 8, 30, 200}, 100 + round, 5, 5000);
    for (long long grid : {1LL, 3LL, 16LL, 200LL}) {
      SCOPED_TRACE("round " + std::to_string(round) + ", grid " + std::to_string(grid));
      expect_emulation_exact(o, grid, small, round);
    }
  }
}

TEST(SegmentedPartition, EmulatedUniformLengthsAndNinetyPercentEmpty) {
  const shape sh{8, 4, 32};
  for (long long len : {1LL, 8LL, 32LL, 256LL, 4096LL}) {
    SCOPED_TRACE("length " + std::to_string(len));
    expect_emulation_exact(offsets_of(std::vector<long long>(static_cast<std::size_t>(20000 / len + 1), len)), 40, sh,
                           static_cast<std::uint64_t>(len));
  }
  std::mt19937_64 rng(3);
  std::vector<long long> mostly_empty(5000);
  for (auto& l : mostly_empty) l = rng() % 10 == 0 ? static_cast<long long>(rng() % 20) : 0;
  expect_emulation_exact(offsets_of(mostly_empty), 37, sh, 9);
  expect_emulation_exact(offsets_of({50'000}), 100, sh, 11);  // one segment over every block
}

// --- Weighted ends (segmented/merge_path.cuh): an end weighs w elements when the path is cut into shares ----------

TEST(SegmentedPartition, WeightedEndsSearchIsTheStepwiseWalk) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 30; ++round) {
    const offsets_t o = random_layout(rng, round, 200, {0, 1, 3, 8, 40, 300}, 500 + round, 4, 3000);
    for (long long w : {1LL, 2LL, 3LL, 5LL}) {
      const long long total = seg::path_cost(num_segments(o), num_elements(o), w);
      seg::path_coord previous{0, 0};
      for (long long d = 0; d <= total; ++d) {
        const seg::path_coord want = walk_to(d, o, w), got = search(d, o, w), warp = warp_search(d, o, nullptr, w);
        ASSERT_EQ(got.segment, want.segment) << "round " << round << ", w " << w << ", diagonal " << d;
        ASSERT_EQ(got.element, want.element) << "round " << round << ", w " << w << ", diagonal " << d;
        ASSERT_EQ(warp.segment, want.segment) << "warp search, w " << w << ", diagonal " << d;
        ASSERT_EQ(warp.element, want.element) << "warp search, w " << w << ", diagonal " << d;
        ASSERT_TRUE(got.segment >= previous.segment && got.element >= previous.element) << "not monotone at " << d;
        previous = got;
      }
      EXPECT_EQ(previous.segment, num_segments(o));  // the whole path's cost reaches its end
      EXPECT_EQ(previous.element, num_elements(o));
    }
  }
}

TEST(SegmentedPartition, WeightedEndsBlocksCoverEveryStepOnce) {
  std::mt19937_64 rng(12);
  for (int round = 0; round < 30; ++round) {
    const std::size_t count = 1 + rng() % 400;
    const long long max_len = std::vector<long long>{0, 1, 3, 8, 40, 1000}[round % 6];
    const offsets_t o = offsets_of(random_lengths(count, max_len, 900 + round), static_cast<long long>(rng() % 5));
    for (long long w : {2LL, 3LL, 4LL})
      for (long long grid : {1LL, 7LL, 64LL}) {
        SCOPED_TRACE("round " + std::to_string(round) + ", w " + std::to_string(w) + ", grid " + std::to_string(grid));
        expect_blocks_cover_path(o, grid, 16, w);
      }
  }
  std::vector<long long> lengths = random_lengths(3000, 2, 5);
  lengths.insert(lengths.begin() + 1234, 100'000);
  expect_blocks_cover_path(offsets_of(lengths), 300, 16, 3);
}

TEST(SegmentedPartition, WeightedEndsGiveBlocksOfTinySegmentsFewerElements) {
  // Half the elements in one segment, the rest in segments of 8 (the giant layout): unweighted, every block walks the
  // same number of steps, and a block of tiny segments consumes 8 elements per 9 steps; with ends of weight 3, 8 per
  // 11, while a block inside the giant still consumes one per unit of cost.
  offsets_t o{0, 1LL << 17};
  for (int s = 0; s < (1 << 14); ++s) o.push_back(o.back() + 8);
  const long long grid = 100;
  for (long long w : {1LL, 3LL}) {
    const long long total = seg::path_cost(num_segments(o), num_elements(o), w);
    long long giant_elements = 0, tiny_elements = 0, giant_blocks = 0, tiny_blocks = 0;
    for (long long b = 0; b < grid; ++b) {
      const seg::diagonal_range r = seg::block_diagonals(b, grid, total, 16);
      const seg::path_coord from = search(r.first, o, w), to = search(r.last, o, w);
      if (to.segment == 0) {
        giant_elements += to.element - from.element;
        ++giant_blocks;
      } else if (from.segment >= 1) {
        tiny_elements += to.element - from.element;
        ++tiny_blocks;
      }
    }
    ASSERT_GT(giant_blocks, 0);
    ASSERT_GT(tiny_blocks, 0);
    const double ratio = (static_cast<double>(tiny_elements) / static_cast<double>(tiny_blocks)) /
                         (static_cast<double>(giant_elements) / static_cast<double>(giant_blocks));
    EXPECT_NEAR(ratio, 8.0 / (8.0 + static_cast<double>(w)), 0.01) << "w " << w;
  }
}

TEST(SegmentedPartition, WeightedUniformLengthsAreFoundInOneRound) {
  for (const long long w : {2LL, 3LL})
    for (const long long length : {0LL, 1LL, 8LL, 256LL, 4096LL}) {
      const long long segments = length == 0 ? 100000 : (1LL << 22) / length;
      offsets_t o(static_cast<std::size_t>(segments + 1));
      for (long long s = 0; s <= segments; ++s) o[static_cast<std::size_t>(s)] = 7 + s * length;
      const long long total = seg::path_cost(num_segments(o), num_elements(o), w);
      int most = 0;
      for (long long b = 0; b <= 528; ++b) {
        const long long d = seg::block_diagonals(b, 528, total, 2048).first;
        int rounds = 0;
        const seg::path_coord got = warp_search(d, o, &rounds, w);
        ASSERT_EQ(got.segment, search(d, o, w).segment) << "length " << length << ", diagonal " << d;
        most = std::max(most, rounds);
      }
      EXPECT_LE(most, 1) << "w " << w << ", uniform length " << length << ": " << most << " rounds";
    }
}

TEST(SegmentedPartition, WeightedEmulatedLaunchIsInOrder) {
  const shape small{4, 3, 9};
  std::mt19937_64 rng(13);
  for (int round = 0; round < 40; ++round) {
    const offsets_t o = random_layout(rng, round, 300, {0, 1, 3, 8, 30, 200}, 700 + round, 5, 5000);
    for (long long grid : {1LL, 16LL, 200LL}) {
      SCOPED_TRACE("round " + std::to_string(round) + ", grid " + std::to_string(grid));
      expect_emulation_exact(o, grid, small, round, 3);
    }
  }
}

// The short-segment pass and the merge-path pass each call plan_short_pass (through decide_short_pass) on offsets[0]
// and offsets[S] to decide which of them has a launch (kernels/short_segments.cuh). The thread mode: its line (an
// average of at most short_pass_max_average elements per segment, integer division), the segments per thread by the
// average's bytes, and the types the pass is off for.
TEST(SegmentedShortPass, DecisionLineAndSegmentsPerThread) {
  namespace k = seg::kernels;
  constexpr long long line = seg::tuning::short_pass_max_average(4);
  constexpr long long line8 = seg::tuning::short_pass_max_average(8);
  ASSERT_EQ(line, 14);
  ASSERT_EQ(line8, 12);
  const long long s = 1'000'003;
  const long long h100 = 132LL * 2048;  // the threads an H100 holds at once
  const auto per_thread = [&](auto bytes, long long elements, long long segments) {
    return k::plan_short_pass<decltype(bytes)::value>(elements, segments, h100).per_thread;
  };
  using b4 = std::integral_constant<std::size_t, 4>;
  using b8 = std::integral_constant<std::size_t, 8>;
  using b16 = std::integral_constant<std::size_t, 16>;
  // On either side of the line: an average of 14 (up to 14 S + S - 1 elements) is the thread mode's for 4-byte values,
  // 15 is not; 12 and 13 for 8-byte values.
  EXPECT_GT(per_thread(b4{}, line * s, s), 0);
  EXPECT_GT(per_thread(b4{}, line * s + s - 1, s), 0);
  EXPECT_EQ(per_thread(b4{}, (line + 1) * s, s), 0);
  EXPECT_GT(per_thread(b8{}, line8 * s + s - 1, s), 0);
  EXPECT_EQ(per_thread(b8{}, (line8 + 1) * s, s), 0);
  EXPECT_EQ(k::plan_short_pass<4>(line * s, s, h100).max_length, seg::tuning::short_pass_max_length);
  // Segments per thread by the average's bytes (rounded up): 4 up to 8 bytes (4-byte values only: 8-byte ones
  // spilled), 2 up to 16, else 1.
  struct row {
    long long average;
    int four_byte, eight_byte;
  };
  for (const row& r : {row{0, 4, 2}, row{1, 4, 2}, row{2, 4, 2}, row{3, 2, 1}, row{4, 2, 1}, row{5, 1, 1}, row{8, 1, 1},
                       row{12, 1, 1}, row{14, 1, 0}}) {
    SCOPED_TRACE("average " + std::to_string(r.average));
    EXPECT_EQ(per_thread(b4{}, r.average * s, s), r.four_byte);
    EXPECT_EQ(per_thread(b8{}, r.average * s, s), r.eight_byte);
  }
  // An average of 1.5 rounds up to 2 elements: 8 bytes for int32 (4 per thread), 16 for doubles (2).
  EXPECT_EQ(per_thread(b4{}, 3 * s / 2, s), 4);
  EXPECT_EQ(per_thread(b8{}, 3 * s / 2, s), 2);
  // Off for values wider than 8 bytes (unmeasured), whatever the layout, empty segments included; and with no
  // segments.
  EXPECT_EQ(seg::tuning::short_pass_max_average(16), 0);
  EXPECT_EQ(k::plan_short_pass<16>(s, s, h100).max_length, 0);
  EXPECT_EQ(k::plan_short_pass<16>(0, s, h100).max_length, 0);
  EXPECT_EQ(k::plan_short_pass<4>(0, 0, h100).max_length, 0);
  // The block's segments are whole rounds of every width.
  static_assert(k::short_pass_segments_per_block % (4LL * k::short_pass_threads) == 0);
  static_assert(seg::tuning::short_pass_max_length >= 0 && seg::tuning::short_pass_max_length < (1LL << 31));
}

// The group mode: averages from group_pass_min_average (15 for 4-byte values, 16 for 8-byte ones) to
// group_pass_max_average (1024 for 4-byte values, 512 for 8-byte ones), groups of 8 lanes (4 below an average of 32),
// two segments per group for 4-byte values below 128, the segment count it needs to fill the device, the longest
// segment it keeps, and where it is off (13 to 15 for 8-byte values, past the top, wider values, no device threads
// given).
TEST(SegmentedShortPass, GroupModeLinesAndShapes) {
  namespace k = seg::kernels;
  namespace t = seg::tuning;
  const long long h100 = 132LL * 2048;
  const long long s = 1'000'003;
  ASSERT_EQ(t::group_pass_min_average(4), 15);
  ASSERT_EQ(t::group_pass_min_average(8), 16);
  ASSERT_EQ(t::group_pass_max_average(4), 1024);
  ASSERT_EQ(t::group_pass_max_average(8), 512);
  ASSERT_EQ(t::group_pass_lanes, 8);
  ASSERT_EQ(t::group_pass_narrow_lanes, 4);
  // Past the group mode's top, and for 8-byte values between the two modes: the merge-path pass's.
  for (long long average : {1025LL, 4096LL}) {
    SCOPED_TRACE("average " + std::to_string(average));
    EXPECT_EQ(k::plan_short_pass<4>(average * s, s, h100).max_length, 0);
  }
  for (long long average : {13LL, 15LL, 1025LL, 4096LL}) {
    SCOPED_TRACE("average " + std::to_string(average));
    EXPECT_EQ(k::plan_short_pass<8>(average * s, s, h100).max_length, 0);
  }
  // 15 to 31: 4-byte values take groups of 4 lanes, two segments each, from 15 (14 is the thread mode's); 8-byte ones
  // groups of 4 lanes, a segment each, from 16. Both keep segments of up to 16 steps of 4 loads (256 elements).
  EXPECT_GT(k::plan_short_pass<4>(14 * s, s, h100).per_thread, 0);
  const auto expect_narrow = [&](auto bytes, long long average, int per_group) {
    constexpr std::size_t value_bytes = decltype(bytes)::value;
    SCOPED_TRACE(std::to_string(value_bytes) + "-byte values, average " + std::to_string(average));
    const k::short_pass_plan p = k::plan_short_pass<value_bytes>(average * s, s, h100);
    EXPECT_EQ(p.per_thread, 0);
    EXPECT_EQ(p.group, 4);
    EXPECT_EQ(p.per_group, per_group);
    EXPECT_EQ(p.max_length, 4 * 4LL * t::group_pass_max_steps);
  };
  using b4 = std::integral_constant<std::size_t, 4>;
  using b8 = std::integral_constant<std::size_t, 8>;
  for (long long average : {15LL, 16LL, 24LL, 31LL}) expect_narrow(b4{}, average, 2);
  for (long long average : {16LL, 24LL, 31LL}) expect_narrow(b8{}, average, 1);
  EXPECT_EQ(k::plan_short_pass<8>(32 * s, s, h100).group, 8);
  EXPECT_EQ(k::plan_short_pass<8>(513 * s, s, h100).max_length, 0);
  struct row {
    long long average;
    int per_group4;
    bool eight_byte;
  };
  for (const row& r : {row{32, 2, true}, row{64, 2, true}, row{127, 2, true}, row{128, 1, true}, row{129, 1, true},
                       row{255, 1, true}, row{512, 1, true}, row{513, 1, false}, row{1024, 1, false}}) {
    SCOPED_TRACE("average " + std::to_string(r.average));
    const k::short_pass_plan p4 = k::plan_short_pass<4>(r.average * 70'000, 70'000, h100);
    const k::short_pass_plan p8 = k::plan_short_pass<8>(r.average * 70'000, 70'000, h100);
    EXPECT_EQ(p4.per_thread, 0);
    EXPECT_EQ(p4.group, 8);
    EXPECT_EQ(p4.per_group, r.per_group4);
    EXPECT_EQ(p8.group, r.eight_byte ? 8 : 0);
    EXPECT_EQ(p8.per_group, r.eight_byte ? 1 : 0);  // two 8-byte segments per group spilled
    // Segments of up to group_pass_max_steps steps of 4 loads per lane (512 elements), or twice the average, are the
    // pass's; longer ones are handed back. A uniform layout never is.
    EXPECT_EQ(p4.max_length, std::max(8 * 4LL * t::group_pass_max_steps, 2 * r.average));
    EXPECT_GE(p4.max_length, r.average);
    EXPECT_EQ(p8.max_length, r.eight_byte ? std::max(8 * 4LL * t::group_pass_max_steps, 2 * r.average) : 0);
  }
  // The fill: segments x 8 lanes at least a group_pass_min_fill-th of the device's threads. 8448 segments fill an H100's
  // 270 336 threads to a quarter; 8447 do not.
  const long long fill = (h100 + t::group_pass_min_fill * 8 - 1) / (t::group_pass_min_fill * 8);
  EXPECT_EQ(fill, 8448);
  EXPECT_EQ(k::plan_short_pass<4>(64 * fill, fill, h100).group, 8);
  EXPECT_EQ(k::plan_short_pass<4>(64 * (fill - 1), fill - 1, h100).max_length, 0);
  EXPECT_EQ(k::plan_short_pass<4>(64 * s, s, 0).max_length, 0);  // no device threads given: off
  // The host launches the pass only from the same line (short_pass_launches): below it the merge-path pass alone takes
  // the launch, the thread mode's averages included; and never without the device's threads.
  EXPECT_TRUE(k::short_pass_launches(fill, h100));
  EXPECT_FALSE(k::short_pass_launches(fill - 1, h100));
  EXPECT_FALSE(k::short_pass_launches(1 << 20, 0));
  EXPECT_FALSE(k::short_pass_launches(0, h100));
  EXPECT_GT(k::plan_short_pass<4>(fill - 1, fill - 1, h100).per_thread, 0);  // the plan alone would take it
  EXPECT_EQ(k::plan_short_pass<16>(64 * s, s, h100).max_length, 0);
  EXPECT_EQ(k::plan_short_pass<16>(0, s, h100).max_length, 0);  // off for wider values, empty segments included
  // The host's grid covers the thread mode's blocks and the group mode's chunks, one wave of the latter.
  static_assert(t::group_pass_blocks_per_sm == t::short_pass_min_blocks, "the group mode's grid: one wave");
  EXPECT_EQ(k::short_pass_grid(1 << 26, 132), (1LL << 26) / k::short_pass_segments_per_block);
  EXPECT_EQ(k::short_pass_grid(1 << 16, 132), 132LL * t::group_pass_blocks_per_sm);
  EXPECT_EQ(k::short_pass_grid(80, 132), 3);  // chunks of 32 groups of 8 lanes, a segment each
  // The group mode deals its chunks over one wave alone, even where the thread mode's grid is larger.
  EXPECT_EQ(k::short_pass_group_grid(1 << 26, 132), 132LL * t::group_pass_blocks_per_sm);
  EXPECT_EQ(k::short_pass_group_grid(1 << 20, 132), 132LL * t::group_pass_blocks_per_sm);
  EXPECT_GT(k::short_pass_grid(1 << 20, 132), k::short_pass_group_grid(1 << 20, 132));
  EXPECT_EQ(k::short_pass_group_grid(80, 132), 3);
  EXPECT_EQ(k::short_pass_group_grid(0, 132), 0);
  EXPECT_EQ(k::short_pass_grid(0, 132), 0);
}

namespace head_gaps_test {

namespace gaps = reducelab::segmented::agent::lane_head_gaps;
constexpr int lanes = 32;

/// A lane's piece: the lanes whose items it holds, in order (joining concatenates: associative, not commutative).
using piece = std::vector<int>;

struct lane_scan {
  std::array<piece, lanes> x;
  int steps = 0;
};

/// stream_run_stretch's scan of the lanes' pieces, 32 lanes emulated: at each step every lane reads the piece d lanes
/// before it as it was before the step (a shuffle), then the lanes that join put it in front of their own. With
/// `early`, the scan stops where lane_head_gaps says no lane joins, as the kernel does; without, it takes all five
/// steps.
lane_scan scan(unsigned with_heads, bool early) {
  lane_scan s;
  for (int l = 0; l < lanes; ++l) s.x[static_cast<std::size_t>(l)] = {l};
  unsigned open = gaps::open_lanes(with_heads);
  for (int d = 1; d < lanes; d *= 2) {
    if (early && gaps::done(open, d)) break;
    ++s.steps;
    const std::array<piece, lanes> before = s.x;
    for (int l = 0; l < lanes; ++l) {
      if (!gaps::joins(open, l, d)) continue;
      piece joined = before[static_cast<std::size_t>(l - d)];
      const piece& own = before[static_cast<std::size_t>(l)];
      joined.insert(joined.end(), own.begin(), own.end());
      s.x[static_cast<std::size_t>(l)] = joined;
    }
    open = gaps::after_step(open, d);
  }
  return s;
}

/// What each lane must hold after the scan: its lanes from the last one at or before it that holds a head (lane 0 where
/// none does) up to itself.
piece expected_piece(unsigned with_heads, int lane) {
  int from = lane;
  while (from > 0 && ((with_heads >> from) & 1u) == 0) --from;
  piece p;
  for (int l = from; l <= lane; ++l) p.push_back(l);
  return p;
}

/// The steps that have work: offset d has one where some lane l >= d has d lanes without a head ending at it.
int expected_steps(unsigned with_heads) {
  int widest = 0;  // the longest such gap, no longer than the lanes before its last lane
  for (int l = 1; l < lanes; ++l) {
    int gap = 0;
    while (gap <= l && ((with_heads >> (l - gap)) & 1u) == 0) ++gap;
    widest = std::max(widest, std::min(gap, l));
  }
  int steps = 0;
  for (int d = 1; d < lanes && d <= widest; d *= 2) ++steps;
  return steps;
}

void expect_scan(unsigned with_heads) {
  const lane_scan early = scan(with_heads, true);
  const lane_scan full = scan(with_heads, false);
  ASSERT_EQ(full.steps, 5);
  EXPECT_EQ(early.steps, expected_steps(with_heads)) << "heads 0x" << std::hex << with_heads;
  for (int l = 0; l < lanes; ++l) {
    const piece want = expected_piece(with_heads, l);
    ASSERT_EQ(full.x[static_cast<std::size_t>(l)], want) << "full scan, lane " << l << ", heads 0x" << std::hex
                                                         << with_heads;
    ASSERT_EQ(early.x[static_cast<std::size_t>(l)], want) << "early exit, lane " << l << ", heads 0x" << std::hex
                                                          << with_heads;
  }
}

/// Heads every `every` lanes from lane `first`.
unsigned heads_every(int every, int first = 0) {
  unsigned m = 0;
  for (int l = first; l < lanes; l += every) m |= 1u << l;
  return m;
}

}  // namespace head_gaps_test

TEST(StreamRunLanesScan, StepsFollowTheLongestGapBetweenHeads) {
  using namespace head_gaps_test;
  // Runs of Items items a lane at 4 or 8 items a lane: a head in every lane, no step; every 2 lanes one, every 3 or
  // 4 two, every 5 three, every 9 four, every 17 or more all five.
  const std::pair<int, int> every_steps[] = {{1, 0}, {2, 1}, {3, 2}, {4, 2}, {5, 3}, {8, 3}, {9, 4}, {16, 4}, {17, 5},
                                             {32, 5}, {33, 5}};
  for (const auto& [every, steps] : every_steps) {
    EXPECT_EQ(scan(heads_every(every), true).steps, steps) << "a head every " << every << " lanes";
    expect_scan(heads_every(every));
    expect_scan(heads_every(every, every / 2));  // the first head past lane 0
  }
  EXPECT_EQ(scan(0u, true).steps, 5);          // no head: lane 31 needs all 31 lanes before it
  EXPECT_EQ(scan(1u << 31, true).steps, 5);    // one at the last lane: lane 30 needs lanes 0..29
  EXPECT_EQ(scan(~1u, true).steps, 0);         // a head everywhere but lane 0: lane 0 has nothing before it
  EXPECT_EQ(scan(~2u, true).steps, 1);         // lane 1 alone joins lane 0
  EXPECT_EQ(scan(~(3u << 16), true).steps, 2); // lanes 16 and 17 without heads: lane 17 needs two steps
  for (unsigned m : {0u, 1u, 1u << 31, ~1u, ~2u, ~(3u << 16), 0xffffffffu}) expect_scan(m);
}

TEST(StreamRunLanesScan, EarlyExitGivesTheFullScansPiecesOnRandomHeads) {
  using namespace head_gaps_test;
  std::mt19937_64 rng(79);
  for (double density : {0.02, 0.1, 0.3, 0.5, 0.8, 0.97}) {
    std::bernoulli_distribution head(density);
    for (int i = 0; i < 4000; ++i) {
      unsigned m = 0;
      for (int l = 0; l < lanes; ++l) m |= head(rng) ? 1u << l : 0u;
      expect_scan(m);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}
