// Segment workloads as data: how n elements are cut into contiguous segments. A segmented reduction's speed
// depends on the shape of its segments far more than on n (one giant segment starves the grid, a million
// tiny ones drown it in per-segment overhead, empty ones test the edges), so each shape the sweep runs is one
// generator here, named on the command line by a --segments entry (parse_layout) and recorded with its
// results. Every generator is deterministic (a given seed gives the same layout on every platform: only
// std::mt19937_64, whose output the standard fixes, and arithmetic of our own are used, no std distributions).
#pragma once

#include "reducelab/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace reducelab::segmented {

/// Segment i is [offsets[i], offsets[i+1]); it is empty when the two are equal. Always
/// offsets.size() == num_segments() + 1, offsets.front() == 0, offsets.back() == n, non-decreasing.
struct segment_layout {
  std::string name;  // the --segments entry (or the generator's call) that made it, for reports
  std::vector<std::int64_t> offsets;

  std::size_t num_segments() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  std::size_t size() const { return offsets.empty() ? 0 : static_cast<std::size_t>(offsets.back()); }
};

namespace detail {

// An integer in [0, bound), bound > 0. Modulo, not std::uniform_int_distribution (whose algorithm differs
// between standard libraries); its bias, at most bound / 2^64, is irrelevant for workload shapes.
inline std::uint64_t draw_below(std::mt19937_64& rng, std::uint64_t bound) { return rng() % bound; }

// A double in [0, 1) from the top 53 bits (again portable where std::uniform_real_distribution is not).
inline double draw_unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Lengths summing to `total` over `count` parts (count > 0), as even as possible: the first total % count
// parts are one longer.
inline std::int64_t even_share(std::int64_t total, std::int64_t count, std::int64_t part) {
  return total / count + (part < total % count ? 1 : 0);
}

inline std::int64_t checked_n(std::size_t n) {
  REDUCELAB_EXPECTS(n <= static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max()),
                    "segment layout: n = " + std::to_string(n) + " does not fit a 64-bit signed offset");
  return static_cast<std::int64_t>(n);
}

inline std::string format_number(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

}  // namespace detail

/// Segments of `length` elements (the last one shorter when length does not divide n); ceil(n / length) of them.
inline segment_layout uniform(std::size_t n, std::size_t length) {
  REDUCELAB_EXPECTS(length > 0, "segment layout uniform: the segment length must be at least 1");
  const std::int64_t total = detail::checked_n(n);
  segment_layout layout{"uniform:" + std::to_string(length), {0}};
  layout.offsets.reserve(n / length + 2);
  for (std::int64_t at = 0; at < total;) {
    at = static_cast<std::int64_t>(std::min<std::size_t>(static_cast<std::size_t>(at) + length, n));
    layout.offsets.push_back(at);
  }
  return layout;
}

/// Lengths drawn from a Zipf law truncated to [1, 2^20], P(L = k) ~ k^-exponent, until they cover n (the last one
/// clipped): mostly short segments with a heavy tail of long ones, the skew real keyed data tends to have.
inline segment_layout zipf(std::size_t n, double exponent, std::uint64_t seed) {
  REDUCELAB_EXPECTS(std::isfinite(exponent) && exponent > 0,
                    "segment layout zipf: the exponent must be a finite number > 0, not " +
                        detail::format_number(exponent));
  constexpr std::size_t max_length = std::size_t{1} << 20;
  // Inverse-CDF sampling over the whole truncated support: exact, and 2^20 doubles (8 MiB) is cheap next to
  // the data the layout describes.
  std::vector<double> cdf(max_length);
  double running = 0;
  for (std::size_t k = 1; k <= max_length; ++k) cdf[k - 1] = running += std::pow(static_cast<double>(k), -exponent);
  std::mt19937_64 rng(seed);
  const std::int64_t total = detail::checked_n(n);
  segment_layout layout{"zipf:" + detail::format_number(exponent), {0}};
  for (std::int64_t at = 0; at < total;) {
    const double u = detail::draw_unit(rng) * running;
    const auto k = static_cast<std::int64_t>(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin()) + 1;
    // u can round up to `running` itself, past the table's end: that draw is the longest length.
    at += std::min<std::int64_t>(std::min<std::int64_t>(k, static_cast<std::int64_t>(max_length)), total - at);
    layout.offsets.push_back(at);
  }
  return layout;
}

/// num_segments segments of which floor(empty_fraction * num_segments) are empty, placed at random; the others
/// share n as evenly as possible (so they are all non-empty when n >= their count). When n > 0 at least one
/// segment is kept non-empty to hold the data, so the empty count is then at most num_segments - 1.
inline segment_layout mostly_empty(std::size_t n, std::size_t num_segments, double empty_fraction,
                                   std::uint64_t seed) {
  REDUCELAB_EXPECTS(empty_fraction >= 0 && empty_fraction <= 1,
                    "segment layout mostly_empty: the empty fraction must lie in [0, 1], not " +
                        detail::format_number(empty_fraction));
  REDUCELAB_EXPECTS(n == 0 || num_segments > 0, "segment layout mostly_empty: n = " + std::to_string(n) +
                                                    " elements need at least one segment");
  const std::int64_t total = detail::checked_n(n);
  auto empty_count = static_cast<std::size_t>(std::floor(empty_fraction * static_cast<double>(num_segments)));
  empty_count = std::min(empty_count, n > 0 ? num_segments - 1 : num_segments);
  // Mark the first empty_count segments empty, then shuffle the marks (Fisher-Yates with our own draws).
  std::vector<char> is_empty(num_segments, 0);
  std::fill_n(is_empty.begin(), empty_count, 1);
  std::mt19937_64 rng(seed);
  for (std::size_t i = num_segments; i > 1; --i) std::swap(is_empty[i - 1], is_empty[detail::draw_below(rng, i)]);
  const auto filled = static_cast<std::int64_t>(num_segments - empty_count);
  segment_layout layout{"mostly_empty:" + detail::format_number(empty_fraction), {0}};
  layout.offsets.reserve(num_segments + 1);
  std::int64_t at = 0, filled_index = 0;
  for (std::size_t i = 0; i < num_segments; ++i) {
    if (!is_empty[i]) at += detail::even_share(total, filled, filled_index++);
    layout.offsets.push_back(at);
  }
  return layout;
}

/// One segment of n / 2 elements in the middle, between tiny_count tiny segments (tiny_count / 2 before it)
/// that share the other n - n / 2 as evenly as possible: the load-balancing worst case. tiny_count + 1 segments.
inline segment_layout giant_among_tiny(std::size_t n, std::size_t tiny_count) {
  REDUCELAB_EXPECTS(tiny_count > 0, "segment layout giant_among_tiny: tiny_count must be at least 1");
  const std::int64_t total = detail::checked_n(n);
  const std::int64_t giant = total / 2, rest = total - giant;
  const auto tiny = static_cast<std::int64_t>(tiny_count);
  segment_layout layout{"giant_among_tiny:" + std::to_string(tiny_count), {0}};
  layout.offsets.reserve(tiny_count + 2);
  std::int64_t at = 0;
  for (std::int64_t i = 0; i < tiny; ++i) {
    if (i == tiny / 2) layout.offsets.push_back(at += giant);
    layout.offsets.push_back(at += detail::even_share(rest, tiny, i));
  }
  return layout;
}

/// Parse one --segments entry for n elements:
///   uniform:L   segments of L elements (L a count or 2^k)          uniform(n, L)
///   zipf:S      Zipf-distributed lengths, exponent S > 0            zipf(n, S, seed)
///   empty90     max(1, n / 8) segments, 90 % of them empty          mostly_empty(n, max(1, n / 8), 0.9, seed)
///               (n / 8: the non-empty tenth then average 80 elements, short enough that empties matter)
///   giant       half of n in one segment among min(2^20, n / 2) tiny ones (at least 1)
///   keys1       runs of one element: reduce_by_key's worst case       uniform(n, 1)
/// The layout is named by the entry as written. Anything else throws usage_error naming it.
inline segment_layout parse_layout(const std::string& spec, std::size_t n, std::uint64_t seed) {
  const auto refuse = [&spec]() -> usage_error {
    return usage_error("unknown --segments entry '" + spec +
                       "': expected uniform:L (L a count or 2^k, at least 1), zipf:S (S > 0, e.g. zipf:1.2), "
                       "empty90, giant or keys1");
  };
  const auto starts_with = [&spec](const char* prefix) { return spec.rfind(prefix, 0) == 0; };
  segment_layout layout;
  if (starts_with("uniform:")) {
    const std::string text = spec.substr(8);
    const bool power = text.rfind("2^", 0) == 0;
    const std::string digits = power ? text.substr(2) : text;
    if (digits.empty() || digits.size() > 19 || digits.find_first_not_of("0123456789") != std::string::npos)
      throw refuse();
    const unsigned long long value = std::stoull(digits);
    if (power && value > 62) throw refuse();
    const std::size_t length = power ? std::size_t{1} << value : static_cast<std::size_t>(value);
    if (length == 0) throw refuse();
    layout = uniform(n, length);
  } else if (starts_with("zipf:")) {
    const std::string text = spec.substr(5);
    char* end = nullptr;
    const double exponent = text.empty() ? 0 : std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(exponent) || exponent <= 0)
      throw refuse();
    layout = zipf(n, exponent, seed);
  } else if (spec == "empty90") {
    layout = mostly_empty(n, std::max<std::size_t>(1, n / 8), 0.9, seed);
  } else if (spec == "giant") {
    layout = giant_among_tiny(n, std::max<std::size_t>(1, std::min<std::size_t>(std::size_t{1} << 20, n / 2)));
  } else if (spec == "keys1") {
    layout = uniform(n, 1);
  } else {
    throw refuse();
  }
  layout.name = spec;
  return layout;
}

/// The number of non-empty segments: the runs keys_from_layout makes, fewer than the segments when some are empty.
inline std::size_t non_empty_segments(const segment_layout& layout) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < layout.num_segments(); ++i) count += layout.offsets[i + 1] > layout.offsets[i];
  return count;
}

/// One key per element for reduce_by_key: the elements of a segment share a key and neighbouring runs differ.
/// Key = the index of the non-empty segment (0, 1, 2, ...), not of the segment: an empty segment holds no
/// element, so it makes no run, and numbering by run keeps two runs that only empty segments separate apart
/// (equal keys there would merge them into one). A layout with empty segments therefore has fewer runs than
/// segments (non_empty_segments). Past 2^31 - 1 runs the keys wrap to 0, which still keeps neighbours apart.
inline std::vector<std::int32_t> keys_from_layout(const segment_layout& layout) {
  std::vector<std::int32_t> keys(layout.size());
  std::int32_t key = 0;
  for (std::size_t i = 0; i < layout.num_segments(); ++i) {
    const std::int64_t begin = layout.offsets[i], end = layout.offsets[i + 1];
    if (end <= begin) continue;
    std::fill(keys.begin() + begin, keys.begin() + end, key);
    key = key == std::numeric_limits<std::int32_t>::max() ? 0 : key + 1;
  }
  return keys;
}

}  // namespace reducelab::segmented
