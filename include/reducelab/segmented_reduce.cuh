// reducelab::segmented_reduce and reducelab::reduce_by_key — many reductions in one call, on the current GPU.
//
//   #include <reducelab/segmented_reduce.cuh>
//   reducelab::segmented_reduce(d_in, d_offsets, d_offsets + 1, num_segments, d_out, op, stream);  // CSR-style offsets
//   reducelab::segmented_reduce(d_in, d_begins, d_ends, num_segments, d_out, op, stream);          // any begin/end arrays
//   reducelab::reduce_by_key(d_keys, d_values, n, d_unique_keys, d_sums, d_num_runs, op, stream);
//
// segmented_reduce follows cub::DeviceSegmentedReduce::Reduce: segment i is in[begin_offsets[i] .. end_offsets[i]),
// out[i] = in[begin] op ... op in[end - 1] in input order, and a segment with end <= begin gets the identity. The offsets
// are device pointers; the caller promises, as with CUB (not checked on the device), that every offset lies in
// [0, n] for the n values of the `in` allocation. Passing end_offsets == begin_offsets + 1 (one array of
// num_segments + 1 offsets) takes the fast path below, which also needs those offsets not to decrease (true of every
// offsets array that cuts one sequence into consecutive segments); for anything else, pass two separate arrays.
//
// reduce_by_key follows cub::DeviceReduce::ReduceByKey: each run of consecutive keys that compare equal under `equal`
// gives one key (the run's first) in unique_keys_out and the run's values reduced in input order in values_out, runs in
// input order; *num_runs_out (device memory) receives the number of runs. n == 0 writes 0 runs.
//
// OpT is a binary functor, passed by value, callable on the device, with an identity for T (as for reducelab::reduce:
// reducelab::identity_element<OpT, T> or a static member template `identity<T>()`). It must be associative; it need
// not be commutative: every combine keeps input order. Results are the same bits on every run for the same input,
// layout and device. T is any trivially copyable type of up to a few hundred bytes (the tiles must fit shared memory).
//
// How the work is split (segmented/ holds the layers):
//   - one offsets array: a merge path over (segment ends, elements) gives every block of a fixed grid the same number of
//     steps, whatever the lengths: segments of one element, a million empty ones, or one segment holding half the data
//     among a million tiny ones. The block that ends a segment crossing blocks puts the earlier blocks' parts in front,
//     in block order, through a look-back inside the same launch (segmented/grid/segment_carries.cuh). Where there are
//     enough segments to fill the device (about 8 400 on a 132-SM GPU), a short-segment pass goes first: when they
//     average a few elements, with a thread per segment and many small blocks, writing every segment of up to 128
//     elements; where they average 15 to 1024 (8-byte values: 16 to 512) and are evenly spread, with a group of 8 lanes
//     per segment (4 lanes below an average of 32), writing those of up to 512 elements (4 lanes: 256) or twice the
//     average. The merge path then takes only the longer ones, if there are any (segmented/kernels/short_segments.cuh
//     says why, and how the two decide on the device).
//   - separate begin/end arrays: a scan of the lengths lays the segments end to end virtually and the same merge path
//     runs over that layout, reading each element where its segment lies; balanced the same way, for one more pass over
//     the offsets.
//   - reduce_by_key: one pass, a block per tile of keys and values, which finds the runs' heads itself and joins the
//     runs that cross tiles through the same kind of look-back (segmented/kernels/reduce_runs.cuh).
// Workspace: the one-array path keeps its carries with the stream between calls (as reducelab::reduce does); the
// general path and reduce_by_key allocate theirs on the stream (cudaMallocAsync) and free it there.
//
// Errors: a null pointer (when there is work), a pointer or stream of another device, host memory the GPU cannot
// read, or a count beyond what the types can index throw reducelab::usage_error naming the argument, before anything
// is launched. A failed CUDA call throws reducelab::cuda_error with file and line. num_segments == 0 launches nothing.
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/core/traits.hpp"
#include "reducelab/detail/device_properties.hpp"
#include "reducelab/segmented/detail/dispatch.cuh"

#include <cuda/std/functional>

#include <cuda_runtime_api.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace reducelab {

namespace detail::segmented_entry {

template <class T, class OpT>
void check_functor() {
  static_assert(std::is_trivially_copyable_v<T>, "reducelab::segmented_reduce: the value type must be trivially copyable");
  (void)identity_of<OpT, T>();  // a functor without an identity for T stops the build here, with its message
}

/// The library's device checks, with this entry's name in the message instead of reducelab::reduce's.
template <class FnT>
void as_entry(const char* entry, FnT&& check) {
  try {
    check();
  } catch (const usage_error& e) {
    const std::string what = e.what();
    const std::string prefix = "reducelab::reduce:";
    throw usage_error(what.compare(0, prefix.size(), prefix) == 0 ? std::string(entry) + ":" + what.substr(prefix.size())
                                                                   : what);
  }
}

inline void expect_pointer(const char* entry, const void* p, const char* name, const device_properties& dev,
                           const std::string& why_needed) {
  REDUCELAB_EXPECTS(p != nullptr, std::string(entry) + ": " + name + " is null" + why_needed);
  as_entry(entry, [&] { expect_on_device(p, dev.ordinal, name); });
}

/// The most segments or values the kernels index: counts and offsets travel as 64-bit signed integers, and the path
/// (segments plus elements) must fit one.
inline constexpr long long max_count = LLONG_MAX / 4;

/// The most values of T an array may hold: its bytes must fit the address space.
template <class T>
inline constexpr std::size_t max_items = static_cast<std::size_t>(PTRDIFF_MAX) / sizeof(T);

}  // namespace detail::segmented_entry

/// out[i] = in[begin_offsets[i]] op ... op in[end_offsets[i] - 1] for i < num_segments, enqueued on `stream`; the
/// identity where end_offsets[i] <= begin_offsets[i].
/// @tparam T       value type, trivially copyable
/// @tparam OffsetT integral offset type (int, unsigned, long long, ...)
/// @tparam OpT     associative functor with an identity for T; need not be commutative
/// @param in            device values; every offset lies in [0, n] of this allocation (the caller's promise)
/// @param begin_offsets device array of num_segments segment starts
/// @param end_offsets   device array of num_segments segment ends; begin_offsets + 1 selects the one-array fast path,
///                      whose num_segments + 1 offsets must not decrease
/// @param out           device array of num_segments results
template <class T, class OffsetT, class OpT>
void segmented_reduce(const T* in, const OffsetT* begin_offsets, const OffsetT* end_offsets, std::size_t num_segments,
                      T* out, OpT op, cudaStream_t stream = nullptr) {
  namespace e = detail::segmented_entry;
  constexpr const char* entry = "reducelab::segmented_reduce";
  static_assert(std::is_integral_v<OffsetT>, "reducelab::segmented_reduce: offsets must be of an integral type");
  e::check_functor<T, OpT>();
  REDUCELAB_EXPECTS(num_segments <= static_cast<std::size_t>(e::max_count) && num_segments <= e::max_items<T>,
                    std::string(entry) + ": num_segments = " + std::to_string(num_segments) +
                        " is more than the kernels index (a negative count converted to size_t?)");
  const detail::device_properties dev = detail::current_device_properties();
  e::as_entry(entry, [&] { detail::expect_stream_on_device(stream, dev.ordinal); });
  if (num_segments == 0) return;
  const std::string with = " with num_segments = " + std::to_string(num_segments);
  e::expect_pointer(entry, in, "input pointer (in)", dev, with);
  e::expect_pointer(entry, begin_offsets, "begin_offsets", dev, with);
  e::expect_pointer(entry, end_offsets, "end_offsets", dev, with);
  e::expect_pointer(entry, out, "output pointer (out)", dev, with);
  const auto s = static_cast<long long>(num_segments);
  if (end_offsets == begin_offsets + 1) {
    segmented::detail::flat_segmented_reduce(in, begin_offsets, s, out, op, stream, dev);
  } else {
    segmented::detail::general_segmented_reduce(in, begin_offsets, end_offsets, s, out, op, stream, dev);
  }
}

/// For each run of consecutive keys equal under `equal`: its first key to unique_keys_out, its values reduced in input
/// order to values_out (runs in input order), and the number of runs to *num_runs_out, all in device memory, enqueued
/// on `stream`. n == 0 writes 0 runs.
/// @tparam NumRunsT integral type of the run count; it must hold n
/// @tparam EqualT   key equality, callable on the device (default: ==)
template <class K, class T, class NumRunsT, class OpT, class EqualT = cuda::std::equal_to<>>
void reduce_by_key(const K* keys_in, const T* values_in, std::size_t n, K* unique_keys_out, T* values_out,
                   NumRunsT* num_runs_out, OpT op, cudaStream_t stream = nullptr, EqualT equal = {}) {
  namespace e = detail::segmented_entry;
  constexpr const char* entry = "reducelab::reduce_by_key";
  static_assert(std::is_integral_v<NumRunsT>, "reducelab::reduce_by_key: the run count must be of an integral type");
  static_assert(std::is_trivially_copyable_v<K>, "reducelab::reduce_by_key: the key type must be trivially copyable");
  e::check_functor<T, OpT>();
  REDUCELAB_EXPECTS(n <= static_cast<std::size_t>(e::max_count) && n <= e::max_items<T> && n <= e::max_items<K>,
                    std::string(entry) + ": n = " + std::to_string(n) +
                        " is more than the kernels index (a negative count converted to size_t?)");
  REDUCELAB_EXPECTS(n <= static_cast<std::size_t>(std::numeric_limits<NumRunsT>::max()),
                    std::string(entry) + ": n = " + std::to_string(n) + " runs would not fit num_runs_out's type");
  const detail::device_properties dev = detail::current_device_properties();
  e::as_entry(entry, [&] { detail::expect_stream_on_device(stream, dev.ordinal); });
  e::expect_pointer(entry, num_runs_out, "num_runs_out", dev, "");
  if (n == 0) {
    segmented::kernels::write_count<<<1, 1, 0, stream>>>(num_runs_out, 0);
    CUDA_TRY_LAUNCH();
    return;
  }
  const std::string with = " with n = " + std::to_string(n);
  e::expect_pointer(entry, keys_in, "keys_in", dev, with);
  e::expect_pointer(entry, values_in, "values_in", dev, with);
  e::expect_pointer(entry, unique_keys_out, "unique_keys_out", dev, with);
  e::expect_pointer(entry, values_out, "values_out", dev, with);
  segmented::detail::reduce_by_key(keys_in, values_in, static_cast<long long>(n), unique_keys_out, values_out,
                                   num_runs_out, op, equal, stream);
}

}  // namespace reducelab
