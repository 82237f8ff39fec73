// GPU: reducelab::segmented_reduce and reducelab::reduce_by_key for every registered functor and every value type it
// is registered for (functors/*.cuh; tests/CMakeLists.txt generates one test per header from this file, so a new
// functor is covered without a line here). Each type runs through every path the library chooses among: the short
// pass's thread mode (segments of 0 to 16) and group mode (16 to 80; 8 to 40 with some handed back, 8-byte values'
// groups of 4 lanes), segments of one element, the merge-path pass's
// pieces walk with warps and the whole block (0 to 3000, from an unaligned first element too), one giant among many
// tiny ones, the begin/end arrays' general path (segments out of order, with gaps and empties), and reduce_by_key over
// short and single-element runs; on random and on the functor's adversarial inputs. Every segment is judged against
// the host's in-order fold: exactly for exact functors, within the functor's stated bound otherwise
// (segmented::judge_segments).
#pragma once

#include "gpu_test.hpp"
#include "lab/host/inputs.hpp"
#include "lab/segmented/host/reference.hpp"
#include "segmented_layouts.hpp"
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

using segmented_layouts::consecutive;
using segmented_layouts::layout;
using segmented_layouts::random_lengths;

/// The layouts of one offsets array (the library's fast path), by the path they take.
inline std::vector<layout> flat_layouts() {
  std::vector<long long> giant = random_lengths(40'000, 0, 4, 13);
  giant[17'000] = 400'000;
  std::vector<long long> narrow = random_lengths(12'000, 8, 40, 18);
  for (std::size_t i = 100; i < narrow.size(); i += 3000) narrow[i] = 257 + static_cast<long long>(i % 500);
  return {consecutive(random_lengths(60'000, 0, 16, 11), "lengths 0..16 (the short pass's thread mode)"),
          consecutive(random_lengths(12'000, 16, 80, 12), "lengths 16..80 (the short pass's group mode)"),
          consecutive(narrow, "lengths 8..40, some of 257..756 (groups of 4 lanes, some handed back)"),
          consecutive(std::vector<long long>(100'000, 1), "uniform length 1"),
          consecutive(random_lengths(300, 0, 3000, 14), "lengths 0..3000 (warps and the whole block)"),
          consecutive(random_lengths(300, 0, 3000, 15), "lengths 0..3000 from element 1", 1),
          consecutive(giant, "one giant among 40000 tiny ones")};
}

/// Begin/end arrays: segments of 0 to 2000 in shuffled order, gaps between them, and empty ones (end <= begin).
inline layout general_layout() {
  layout l = consecutive(random_lengths(600, 0, 2000, 16), "begin/end arrays: shuffled, gaps, empties");
  std::mt19937_64 rng(17);
  for (std::size_t i = 0; i < l.begins.size(); ++i) {
    const auto pick = rng() % 10;
    if (pick == 0) l.ends[i] = l.begins[i];                                         // empty
    if (pick == 1 && l.begins[i] > 0) l.ends[i] = l.begins[i] - 1;                  // end before begin: empty too
    if (pick >= 7 && l.ends[i] > l.begins[i] + 2) l.ends[i] -= l.ends[i] % 3 + 1;  // a gap after it
  }
  std::vector<std::size_t> order(l.begins.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), rng);
  layout shuffled{{}, {}, l.n, l.name};
  for (std::size_t i : order) {
    shuffled.begins.push_back(l.begins[i]);
    shuffled.ends.push_back(l.ends[i]);
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
  const auto v = reducelab::segmented::judge_segments<OpT, T, long long>(x.data(), l.begins.data(), l.ends.data(),
                                                                         l.begins.size(), got);
  EXPECT_TRUE(v.ok) << what << (one_array ? " (one offsets array)" : " (begin/end arrays)") << ": segment "
                    << v.segment << " [" << (v.segment < l.begins.size() ? l.begins[v.segment] : -1) << ", "
                    << (v.segment < l.ends.size() ? l.ends[v.segment] : -1) << "): got " << v.detail.got << ", want "
                    << v.detail.want << (v.detail.note.empty() ? "" : " (" + v.detail.note + ")");
}

/// segmented_reduce of one layout: through one offsets array where the layout is consecutive, and through begin/end
/// arrays always.
template <class OpT, class T>
void check_layout(const layout& l, reducelab::input_kind kind, std::uint64_t seed, bool consecutive_segments) {
  SCOPED_TRACE(l.name + ", " + std::to_string(l.begins.size()) + " segments, n = " + std::to_string(l.n) + ", " +
               (kind == reducelab::input_kind::random ? "random" : "adversarial") + " inputs, seed " +
               std::to_string(seed));
  const reducelab::host_array<T> x = reducelab::make_inputs<OpT, T>(kind, l.n, seed);
  const thrust::device_vector<T> d_in(x.begin(), x.end());
  thrust::device_vector<T> d_out(l.begins.size());
  const T* in = thrust::raw_pointer_cast(d_in.data());
  T* out = thrust::raw_pointer_cast(d_out.data());
  if (consecutive_segments) {
    std::vector<long long> offsets(l.begins);
    offsets.push_back(l.ends.back());
    const thrust::device_vector<long long> d_offsets(offsets.begin(), offsets.end());
    const long long* o = thrust::raw_pointer_cast(d_offsets.data());
    reducelab::segmented_reduce(in, o, o + 1, l.begins.size(), out, OpT{});
    CUDA_TRY(cudaDeviceSynchronize());
    expect_segments<OpT, T>(x, l, true, to_host(d_out), "segmented_reduce");
  }
  const thrust::device_vector<long long> d_begin(l.begins.begin(), l.begins.end()), d_end(l.ends.begin(), l.ends.end());
  reducelab::segmented_reduce(in, thrust::raw_pointer_cast(d_begin.data()), thrust::raw_pointer_cast(d_end.data()),
                              l.begins.size(), out, OpT{});
  CUDA_TRY(cudaDeviceSynchronize());
  expect_segments<OpT, T>(x, l, false, to_host(d_out), "segmented_reduce");
}

/// reduce_by_key over int32 keys whose runs have the given lengths (keys of neighbouring runs differ).
template <class OpT, class T>
void check_runs(const std::string& name, const std::vector<long long>& lengths, reducelab::input_kind kind,
                std::uint64_t seed) {
  const layout l = consecutive(lengths, name);
  const auto n = static_cast<std::size_t>(l.ends.back());  // the runs' keys and values alone (l.n has 3 more)
  SCOPED_TRACE("reduce_by_key, " + l.name + ", " + std::to_string(lengths.size()) + " runs, n = " +
               std::to_string(n) + ", seed " + std::to_string(seed));
  std::vector<std::int32_t> keys(n);
  for (std::size_t r = 0; r < lengths.size(); ++r)
    std::fill(keys.begin() + l.begins[r], keys.begin() + l.ends[r], static_cast<std::int32_t>(r % 3));
  const reducelab::host_array<T> x = reducelab::make_inputs<OpT, T>(kind, n, seed);
  const thrust::device_vector<std::int32_t> d_keys(keys.begin(), keys.end());
  const thrust::device_vector<T> d_in(x.begin(), x.end());
  thrust::device_vector<std::int32_t> d_unique(n);
  thrust::device_vector<T> d_out(n);
  thrust::device_vector<long long> d_runs(1, -1);
  reducelab::reduce_by_key(thrust::raw_pointer_cast(d_keys.data()), thrust::raw_pointer_cast(d_in.data()), n,
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
