// GPU: reducelab::segmented_reduce and reducelab::reduce_by_key for every registered functor and every value type it
// is registered for (functors/*.cuh; tests/CMakeLists.txt generates one test per header from this file, so a new
// functor is covered without a line here). Each type runs through every path the library chooses among: the short
// pass's thread mode (segments of 0 to 16) and group mode (16 to 80), segments of one element, the merge-path pass's
// pieces walk with warps and the whole block (0 to 3000, from an unaligned first element too), one giant among many
// tiny ones, the begin/end arrays' general path (segments out of order, with gaps and empties), and reduce_by_key over
// short and single-element runs; on random and on the functor's adversarial inputs. Every segment is judged against
// the host's in-order fold: exactly for exact functors, within the functor's stated bound otherwise
// (segmented::judge_segments).
#pragma once

#include "gpu_test.hpp"
#include "lab/host/inputs.hpp"
#include "lab/segmented/host/reference.hpp"
#include "reducelab/core/type_list.hpp"
#include "reducelab/segmented_reduce.cuh"

#include <thrust/device_vector.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace segmented_every_functor {

/// Segment i is [begin[i], end[i]) of an input of n values.
struct layout {
  std::string name;
  std::vector<long long> begin, end;
  std::size_t n = 0;
};

/// Consecutive segments of the given lengths, the first at element `start`.
inline layout consecutive(std::string name, const std::vector<long long>& lengths, long long start = 0) {
  layout l{std::move(name), {}, {}, 0};
  long long at = start;
  for (long long len : lengths) {
    l.begin.push_back(at);
    at += len;
    l.end.push_back(at);
  }
  l.n = static_cast<std::size_t>(at);
  return l;
}

inline std::vector<long long> random_lengths(std::size_t count, long long lo, long long hi, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<long long> dist(lo, hi);
  std::vector<long long> lengths(count);
  for (auto& x : lengths) x = dist(rng);
  return lengths;
}

/// The layouts of one offsets array (the library's fast path), by the path they take.
inline std::vector<layout> flat_layouts() {
  std::vector<long long> giant = random_lengths(40'000, 0, 4, 13);
  giant[17'000] = 400'000;
  return {consecutive("lengths 0..16 (the short pass's thread mode)", random_lengths(60'000, 0, 16, 11)),
          consecutive("lengths 16..80 (the short pass's group mode)", random_lengths(12'000, 16, 80, 12)),
          consecutive("uniform length 1", std::vector<long long>(100'000, 1)),
          consecutive("lengths 0..3000 (warps and the whole block)", random_lengths(300, 0, 3000, 14)),
          consecutive("lengths 0..3000 from element 1", random_lengths(300, 0, 3000, 15), 1),
          consecutive("one giant among 40000 tiny ones", giant)};
}

/// Begin/end arrays: segments of 0 to 2000 in shuffled order, gaps between them, and empty ones (end <= begin).
inline layout general_layout() {
  layout l = consecutive("begin/end arrays: shuffled, gaps, empties", random_lengths(600, 0, 2000, 16));
  std::mt19937_64 rng(17);
  for (std::size_t i = 0; i < l.begin.size(); ++i) {
    const auto pick = rng() % 10;
    if (pick == 0) l.end[i] = l.begin[i];                                      // empty
    if (pick == 1 && l.begin[i] > 0) l.end[i] = l.begin[i] - 1;                // end before begin: empty too
    if (pick >= 7 && l.end[i] > l.begin[i] + 2) l.end[i] -= l.end[i] % 3 + 1;  // a gap after it
  }
  std::vector<std::size_t> order(l.begin.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), rng);
  layout shuffled{l.name, {}, {}, l.n};
  for (std::size_t i : order) {
    shuffled.begin.push_back(l.begin[i]);
    shuffled.end.push_back(l.end[i]);
  }
  return shuffled;
}

/// The device values as a std::vector (through a plain array: std::vector<bool> has no data()).
template <class T>
std::vector<T> to_host(const thrust::device_vector<T>& d) {
  reducelab::host_array<T> h(d.size());
  if (d.size() > 0)
    CUDA_TRY(cudaMemcpy(h.data(), thrust::raw_pointer_cast(d.data()), sizeof(T) * d.size(), cudaMemcpyDeviceToHost));
  return std::vector<T>(h.begin(), h.end());
}

/// The input kinds each type runs on: random, and up to three of the functor's adversarial scenarios (seed % scenarios
/// picks one; a functor without them gets random values again under another seed).
template <class OpT, class T>
std::vector<std::pair<reducelab::input_kind, std::uint64_t>> input_kinds() {
  std::vector<std::pair<reducelab::input_kind, std::uint64_t>> kinds{{reducelab::input_kind::random, 101}};
  const unsigned scenarios = reducelab::adversarial_scenarios<OpT, T>();
  for (unsigned s = 0; s < scenarios && s < 3; ++s) kinds.push_back({reducelab::input_kind::adversarial, 200 + s});
  return kinds;
}

template <class OpT, class T>
void expect_segments(const reducelab::host_array<T>& x, const layout& l, bool one_array, const std::vector<T>& got,
                     const std::string& what) {
  const auto v = reducelab::segmented::judge_segments<OpT, T, long long>(x.data(), l.begin.data(), l.end.data(),
                                                                         l.begin.size(), got);
  EXPECT_TRUE(v.ok) << what << (one_array ? " (one offsets array)" : " (begin/end arrays)") << ": segment "
                    << v.segment << " [" << (v.segment < l.begin.size() ? l.begin[v.segment] : -1) << ", "
                    << (v.segment < l.end.size() ? l.end[v.segment] : -1) << "): got " << v.detail.got << ", want "
                    << v.detail.want << (v.detail.note.empty() ? "" : " (" + v.detail.note + ")");
}

/// segmented_reduce of one layout: through one offsets array where the layout is consecutive, and through begin/end
/// arrays always.
template <class OpT, class T>
void check_layout(const layout& l, reducelab::input_kind kind, std::uint64_t seed, bool consecutive_segments) {
  SCOPED_TRACE(l.name + ", " + std::to_string(l.begin.size()) + " segments, n = " + std::to_string(l.n) + ", " +
               (kind == reducelab::input_kind::random ? "random" : "adversarial") + " inputs, seed " +
               std::to_string(seed));
  const reducelab::host_array<T> x = reducelab::make_inputs<OpT, T>(kind, l.n, seed);
  const thrust::device_vector<T> d_in(x.begin(), x.end());
  thrust::device_vector<T> d_out(l.begin.size());
  const T* in = thrust::raw_pointer_cast(d_in.data());
  T* out = thrust::raw_pointer_cast(d_out.data());
  if (consecutive_segments) {
    std::vector<long long> offsets(l.begin);
    offsets.push_back(l.end.back());
    const thrust::device_vector<long long> d_offsets(offsets.begin(), offsets.end());
    const long long* o = thrust::raw_pointer_cast(d_offsets.data());
    reducelab::segmented_reduce(in, o, o + 1, l.begin.size(), out, OpT{});
    CUDA_TRY(cudaDeviceSynchronize());
    expect_segments<OpT, T>(x, l, true, to_host(d_out), "segmented_reduce");
  }
  const thrust::device_vector<long long> d_begin(l.begin.begin(), l.begin.end()), d_end(l.end.begin(), l.end.end());
  reducelab::segmented_reduce(in, thrust::raw_pointer_cast(d_begin.data()), thrust::raw_pointer_cast(d_end.data()),
                              l.begin.size(), out, OpT{});
  CUDA_TRY(cudaDeviceSynchronize());
  expect_segments<OpT, T>(x, l, false, to_host(d_out), "segmented_reduce");
}

/// reduce_by_key over int32 keys whose runs have the given lengths (keys of neighbouring runs differ).
template <class OpT, class T>
void check_runs(const std::string& name, const std::vector<long long>& lengths, reducelab::input_kind kind,
                std::uint64_t seed) {
  const layout l = consecutive(name, lengths);
  SCOPED_TRACE("reduce_by_key, " + l.name + ", " + std::to_string(lengths.size()) + " runs, n = " +
               std::to_string(l.n) + ", seed " + std::to_string(seed));
  std::vector<std::int32_t> keys(l.n);
  for (std::size_t r = 0; r < lengths.size(); ++r)
    std::fill(keys.begin() + l.begin[r], keys.begin() + l.end[r], static_cast<std::int32_t>(r % 3));
  const reducelab::host_array<T> x = reducelab::make_inputs<OpT, T>(kind, l.n, seed);
  const thrust::device_vector<std::int32_t> d_keys(keys.begin(), keys.end());
  const thrust::device_vector<T> d_in(x.begin(), x.end());
  thrust::device_vector<std::int32_t> d_unique(l.n);
  thrust::device_vector<T> d_out(l.n);
  thrust::device_vector<long long> d_runs(1, -1);
  reducelab::reduce_by_key(thrust::raw_pointer_cast(d_keys.data()), thrust::raw_pointer_cast(d_in.data()), l.n,
                           thrust::raw_pointer_cast(d_unique.data()), thrust::raw_pointer_cast(d_out.data()),
                           thrust::raw_pointer_cast(d_runs.data()), OpT{});
  CUDA_TRY(cudaDeviceSynchronize());
  ASSERT_EQ(to_host(d_runs)[0], static_cast<long long>(lengths.size())) << "number of runs";
  std::vector<std::int32_t> unique = to_host(d_unique);
  unique.resize(lengths.size());
  for (std::size_t r = 0; r < lengths.size(); ++r)
    ASSERT_EQ(unique[r], static_cast<std::int32_t>(r % 3)) << "the key of run " << r;
  std::vector<T> got = to_host(d_out);
  got.resize(lengths.size());
  expect_segments<OpT, T>(x, l, true, got, "reduce_by_key");
}

/// Every path, every input kind, for one (functor, type).
template <class OpT, class T>
void check_type() {
  SCOPED_TRACE(std::string("value type ") + reducelab::value_name_v<T>);
  for (const auto& [kind, seed] : input_kinds<OpT, T>()) {
    for (const layout& l : flat_layouts()) check_layout<OpT, T>(l, kind, seed, true);
    check_layout<OpT, T>(general_layout(), kind, seed, false);
    check_runs<OpT, T>("runs of 1 to 40", random_lengths(20'000, 1, 40, seed), kind, seed);
    check_runs<OpT, T>("runs of 1", std::vector<long long>(100'000, 1), kind, seed + 1);
  }
}

/// Every value type OpT is registered for.
template <class OpT>
void check_every_value_type() {
  reducelab::for_each_type(typename OpT::value_types{}, [](auto tag) {
    using T = typename decltype(tag)::type;
    check_type<OpT, T>();
  });
}

}  // namespace segmented_every_functor
