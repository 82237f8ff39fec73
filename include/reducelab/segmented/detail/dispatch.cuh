// Host side of reducelab::segmented_reduce and reduce_by_key below the public entry: the grid, the workspace, and the
// launches of the three paths.
//
//   flat        end_offsets == begin_offsets + 1: the short-segment pass (kernels/short_segments.cuh), which does the
//               work when the segments are short on average, then the merge-path pass over the caller's offsets
//               (segments that cross blocks are joined inside it, segmented/grid/segment_carries.cuh), which does
//               it otherwise; each decides on the device.
//   general     separate begin/end arrays (gaps, overlaps, any order): a DeviceScan of the segment lengths gives the
//               offsets of a virtual layout with the segments end to end, and the same merge-path pass runs over it,
//               reading each element where its segment really is. Balanced like the flat path, at the price of the scan
//               (one read of both offset arrays, one write and read of the scanned offsets).
//   by key      one pass over keys and values, a block per tile (kernels/reduce_runs.cuh); no offsets. From
//               tuning::by_key_stream_policy::min_n keys up, for 4- and 8-byte keys and values (any functor), the
//               stream path (kernels/stream_runs.cuh) beside it, each kernel on a resident grid, the keys' sample
//               choosing which one works (block/run_density.cuh).
//
// Workspace: the one-array path's carry slots (a size fixed by the value type and the device) and reduce_by_key's
// look-back slots (two per tile: they grow with n) come from the stream's own workspace, as the scalar reduction's
// partials do (carries_workspace below). The general path needs space that grows with the segment
// count: allocated per call with cudaMallocAsync and released with cudaFreeAsync on the caller's stream (stream
// ordered, and legal while the stream is captured into a graph, where it becomes allocation nodes), which costs the
// pool's work on the stream at each call, and more after a synchronization has handed the pool's memory back (as
// reduce_by_key's calls showed until stop 60); left as is until that path is measured.
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/core/traits.hpp"
#include "reducelab/detail/device_properties.hpp"
#include "reducelab/detail/dispatch.cuh"  // next_epoch: the scalar reduction's epochs, shared
#include "reducelab/detail/resources.hpp"
#include "reducelab/segmented/kernels/merge_path_segments.cuh"
#include "reducelab/segmented/kernels/reduce_runs.cuh"
#include "reducelab/segmented/kernels/stream_runs.cuh"
#include "reducelab/segmented/tuning.hpp"

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cuda_runtime_api.h>

#include <array>
#include <climits>
#include <atomic>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

namespace reducelab::segmented::detail {

using ::reducelab::detail::device_properties;
using ::reducelab::detail::max_devices;

template <class T>
using policy_for = tuning::default_policy<sizeof(T)>;

template <class T>
using carry_slots = ::reducelab::segmented::grid::carry_slots<T>;

template <class PolicyT, agent::element_map Map, class OpT, class T, class OffsetT, class BeginT>
constexpr auto main_kernel() {
  return &kernels::merge_path_segments<PolicyT, Map, OpT, T, OffsetT, BeginT>;
}

/// Blocks of `Kernel` (of `threads` threads) an SM keeps resident: the occupancy calculator, read once per device.
template <auto Kernel>
long long resident_blocks(const device_properties& dev, int threads) {
  static std::array<std::atomic<int>, max_devices> cached{};
  int per_sm = cached[dev.ordinal].load(std::memory_order_relaxed);
  if (per_sm == 0) {
    CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, threads, 0));
    if (per_sm < 1) per_sm = 1;
    cached[dev.ordinal].store(per_sm, std::memory_order_relaxed);
  }
  return static_cast<long long>(per_sm) * dev.sm_count;
}

/// Blocks of the main pass: blocks_per_sm (or, where it is 0, what the occupancy calculator allows) times the SMs.
/// The grid does not depend on the data (the host does not know how many elements the offsets span): blocks past the
/// end of a short path leave at once.
template <class PolicyT, agent::element_map Map, class OpT, class T, class OffsetT, class BeginT>
long long main_grid(const device_properties& dev) {
  if (PolicyT::blocks_per_sm != 0) return static_cast<long long>(PolicyT::blocks_per_sm) * dev.sm_count;
  return resident_blocks<main_kernel<PolicyT, Map, OpT, T, OffsetT, BeginT>()>(dev, PolicyT::block_threads);
}

/// Aligned carving of one workspace allocation.
constexpr std::size_t align_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

/// A workspace from the stream's pool, released on the stream when it goes out of scope (also on an exception).
class stream_allocation {
 public:
  stream_allocation(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    if (bytes > 0) CUDA_TRY(cudaMallocAsync(&memory_, bytes, stream));
  }
  ~stream_allocation() {
    if (memory_ != nullptr) cudaFreeAsync(memory_, stream_);  // errors ignored: a destructor must not throw
  }
  stream_allocation(const stream_allocation&) = delete;
  stream_allocation& operator=(const stream_allocation&) = delete;
  unsigned char* bytes() const { return static_cast<unsigned char*>(memory_); }

 private:
  void* memory_ = nullptr;
  cudaStream_t stream_;
};

/// Clear `bytes` at `at` when the stream is being captured: a graph's replays all launch with the epoch frozen at
/// capture, so the carry slots must not still hold the previous replay's words (segmented/grid/segment_carries.cuh).
inline void clear_if_captured(void* at, std::size_t bytes, cudaStream_t stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  CUDA_TRY(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone && bytes > 0) CUDA_TRY(cudaMemsetAsync(at, 0, bytes, stream));
}

/// The one-array path's carry slots, whose size depends on the value type and the device only: the stream's own
/// workspace, kept between calls as reducelab::reduce keeps its (detail/resources.hpp: borrowing from the pool on
/// every call cost reducelab::reduce 1.3-1.7 µs per call on the H100), or, while the stream is being captured into
/// a graph, an allocation the graph owns, cleared before the kernel. Outside a graph nothing is cleared: every slot
/// is tagged with its launch's epoch, so nothing left from an earlier call is ever taken for this one's.
class carries_workspace {
 public:
  carries_workspace(std::size_t bytes, cudaStream_t stream, int device) {
    if (bytes == 0) return;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    CUDA_TRY(cudaStreamIsCapturing(stream, &capture));
    if (capture == cudaStreamCaptureStatusNone) {
      memory_ = static_cast<unsigned char*>(::reducelab::detail::stream_workspaces::of(device).reserve(stream, bytes));
    } else {
      captured_.emplace(bytes, stream);
      memory_ = captured_->bytes();
      CUDA_TRY(cudaMemsetAsync(memory_, 0, bytes, stream));
    }
  }
  unsigned char* bytes() const { return memory_; }

 private:
  unsigned char* memory_ = nullptr;
  std::optional<stream_allocation> captured_;
};

/// Bytes of the carry slots of `grid` blocks.
template <class T>
constexpr std::size_t carry_bytes(long long grid) {
  return align_up(carry_slots<T>::bytes_for(grid));
}

/// The main pass over `offsets` (S + 1 entries; S known on the host or counted on the device), with the carry slots
/// in `carries` (carry_bytes<T>(grid) bytes, cleared by the caller under graph capture), tagged with `epoch`.
/// `short_pass`: the flag of a short-segment pass launched just before (a null word where none was); the main pass
/// is then a programmatic dependent launch where the device has them (sm_90 on), so that its launch overlaps that
/// pass, and it waits for that pass on the device only when that pass took the work (kernels/short_segments.cuh).
template <agent::element_map Map, class T, class OffsetT, class BeginT, class OpT>
void launch_merge_path(const T* in, const OffsetT* offsets, const BeginT* begins, kernels::segment_count count, T* out,
                       unsigned char* carries, unsigned long long epoch, kernels::short_pass_flag short_pass,
                       long long grid, OpT op, cudaStream_t stream, const device_properties& dev) {
  using P = policy_for<T>;
  const auto slots = carry_slots<T>::carve(carries, grid, epoch);
  const auto kernel = main_kernel<P, Map, OpT, T, OffsetT, BeginT>();
  ::reducelab::grid::launch_as_dependent(kernel, dim3(static_cast<unsigned>(grid)), dim3(P::block_threads), stream,
                                         short_pass.word != nullptr, dev.major, in, offsets, begins, count, out, slots,
                                         short_pass, op);
}

/// Bytes after the carry slots for the short-segment pass's flag, its count of the segments it hands back and their
/// list (kernels/short_segments.cuh, hand_back).
inline constexpr std::size_t short_pass_flag_bytes = 256;
static_assert(short_pass_flag_bytes >= sizeof(unsigned long long) * (2 + kernels::hand_back_capacity),
              "the short pass's flag, count and list must fit their bytes");

/// One offsets array: segment s is [offsets[s], offsets[s + 1]). The short-segment pass first, for value types it is
/// tuned for and enough segments (kernels/short_segments.cuh, short_pass_launches; it leaves at once when the segments
/// are long on average), then the merge-path pass.
template <class T, class OffsetT, class OpT>
void flat_segmented_reduce(const T* in, const OffsetT* offsets, long long num_segments, T* out, OpT op,
                           cudaStream_t stream, const device_properties& dev) {
  using P = policy_for<T>;
  constexpr auto map = agent::element_map::contiguous;
  const long long grid = main_grid<P, map, OpT, T, OffsetT, OffsetT>(dev);
  const std::size_t slots_bytes = carry_bytes<T>(grid);
  carries_workspace workspace(slots_bytes + short_pass_flag_bytes, stream, dev.ordinal);
  const unsigned long long epoch = ::reducelab::detail::next_epoch();
  // Both passes' plans weigh the segment count against the threads the device holds (2048 per SM on sm_80 and sm_90;
  // where an SM holds fewer, the group mode only starts at a slightly larger count).
  kernels::short_pass_flag short_pass{nullptr, epoch, static_cast<long long>(dev.sm_count) * 2048,
                                      kernels::short_pass_group_grid(num_segments, dev.sm_count)};
  const long long short_blocks = kernels::short_pass_grid(num_segments, dev.sm_count);
  const bool short_pass_tuned =
      tuning::short_pass_max_average(sizeof(T)) > 0 || tuning::group_pass_max_average(sizeof(T)) > 0;
  if (short_pass_tuned && kernels::short_pass_launches(num_segments, short_pass.device_threads) &&
      short_blocks <= INT_MAX) {
    short_pass.word = reinterpret_cast<unsigned long long*>(workspace.bytes() + slots_bytes);
    kernels::short_segments<<<static_cast<unsigned>(short_blocks), kernels::short_pass_threads, 0, stream>>>(
        in, offsets, num_segments, out, short_pass, op);
    CUDA_TRY_LAUNCH();
  }
  kernels::segment_count count;
  count.host = num_segments;
  count.per_block = static_cast<double>(num_segments) / static_cast<double>(grid);
  launch_merge_path<map>(in, offsets, static_cast<const OffsetT*>(nullptr), count, out, workspace.bytes(), epoch,
                         short_pass, grid, op, stream, dev);
}

/// Segment lengths for the general path's scan (the entry past the last segment is 0, so the scan's last entry is the
/// total).
template <class OffsetT>
struct segment_length {
  const OffsetT* begins;
  const OffsetT* ends;
  long long num_segments;
  __host__ __device__ long long operator()(long long s) const {
    if (s >= num_segments) return 0;
    const long long b = static_cast<long long>(begins[s]), e = static_cast<long long>(ends[s]);
    return e > b ? e - b : 0;
  }
};

/// Any begin/end arrays: the merge-path pass over the virtual layout of the segments end to end. The virtual offsets
/// are 64-bit whatever OffsetT is: overlapping segments can span more than the input.
template <class T, class OffsetT, class OpT>
void general_segmented_reduce(const T* in, const OffsetT* begins, const OffsetT* ends, long long num_segments, T* out,
                              OpT op, cudaStream_t stream, const device_properties& dev) {
  using P = policy_for<T>;
  constexpr auto map = agent::element_map::remapped;
  const long long grid = main_grid<P, map, OpT, T, long long, OffsetT>(dev);
  const auto lengths = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0),
                                                       segment_length<OffsetT>{begins, ends, num_segments});
  std::size_t scan_bytes = 0;
  CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, lengths, static_cast<long long*>(nullptr),
                                         num_segments + 1, stream));
  const std::size_t offsets_bytes = align_up(sizeof(long long) * static_cast<std::size_t>(num_segments + 1));
  const std::size_t carries_bytes = carry_bytes<T>(grid);
  stream_allocation workspace(offsets_bytes + carries_bytes + align_up(scan_bytes), stream);
  auto* virtual_offsets = reinterpret_cast<long long*>(workspace.bytes());
  unsigned char* carries = workspace.bytes() + offsets_bytes;
  void* scan_temp = workspace.bytes() + offsets_bytes + carries_bytes;
  clear_if_captured(carries, carries_bytes, stream);
  CUDA_TRY(cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, lengths, virtual_offsets, num_segments + 1, stream));
  kernels::segment_count count;
  count.host = num_segments;
  count.per_block = static_cast<double>(num_segments) / static_cast<double>(grid);
  launch_merge_path<map>(in, static_cast<const long long*>(virtual_offsets), begins, count, out, carries,
                         ::reducelab::detail::next_epoch(), kernels::short_pass_flag{nullptr, 0}, grid, op, stream,
                         dev);
}

/// The look-back slots of a launch of `tiles` tiles: run counts, then carries of T.
template <class T>
struct run_slots {
  carry_slots<long long> counts;
  carry_slots<T> carries;
  static std::size_t bytes_for(long long tiles) {
    return align_up(carry_slots<long long>::bytes_for(tiles)) + align_up(carry_slots<T>::bytes_for(tiles));
  }
  static run_slots carve(unsigned char* bytes, long long tiles, unsigned long long epoch) {
    return {carry_slots<long long>::carve(bytes, tiles, epoch),
            carry_slots<T>::carve(bytes + align_up(carry_slots<long long>::bytes_for(tiles)), tiles, epoch)};
  }
};

template <int Threads, int Items, int MinBlocks, class KeyT, class T, class NumRunsT, class OpT, class EqualT>
constexpr auto one_pass_kernel() {
  constexpr int min_blocks = MinBlocks > 0 ? MinBlocks : tuning::by_key_min_blocks<KeyT, T>(Threads);
  return &kernels::reduce_runs<Threads, Items, min_blocks, KeyT, T, NumRunsT, OpT, EqualT>;
}

/// reduce_by_key in one pass (kernels/reduce_runs.cuh): a block per tile of Threads x Items keys and values. Its
/// look-back slots (two per tile, so they grow with n) are the stream's own workspace, as the one-array path's
/// (carries_workspace). Until stop 60 they were borrowed from the stream's pool at every call, which cost the calls
/// timed after a synchronization (the compare's cold samples) tens of microseconds, varying from call to call: the
/// pool had handed its memory back at the synchronization (results/NVIDIA_H200-segmented/by-key-stream-path.txt).
/// MinBlocks is the
/// kernel's __launch_bounds__ minimum; 0, the entry's, takes tuning::by_key_min_blocks (a harness names another to
/// measure a shape the table does not hold).
template <int Threads, int Items, int MinBlocks = 0, class KeyT, class T, class NumRunsT, class OpT, class EqualT>
void reduce_runs_one_pass(const KeyT* keys, const T* values, long long n, KeyT* unique_keys, T* values_out,
                          NumRunsT* num_runs, OpT op, EqualT equal, cudaStream_t stream) {
  constexpr long long tile = static_cast<long long>(Threads) * Items;
  const long long tiles = (n + tile - 1) / tile;
  const std::size_t bytes = run_slots<T>::bytes_for(tiles);
  carries_workspace workspace(bytes, stream, ::reducelab::detail::current_device_properties().ordinal);
  const auto slots = run_slots<T>::carve(workspace.bytes(), tiles, ::reducelab::detail::next_epoch());
  one_pass_kernel<Threads, Items, MinBlocks, KeyT, T, NumRunsT, OpT, EqualT>()<<<static_cast<unsigned>(tiles), Threads,
                                                                                0, stream>>>(
      keys, values, n, unique_keys, values_out, num_runs, op, equal, slots.counts, slots.carries,
      block::run_choice{nullptr, nullptr, 0, 0});
  CUDA_TRY_LAUNCH();
}

/// Whether reduce_by_key may take the stream path (kernels/stream_runs.cuh) for these types: keys and values of 4 or 8
/// bytes (agent/run_stretch.cuh), for any functor (one that is not commutative is joined in input order there).
template <class KeyT, class T>
inline constexpr bool streams_runs = agent::run_stretch_types<KeyT, T>;

/// Whether keys and values start on 4 items, as the stream path's vector loads ask (agent/run_stretch.cuh).
template <class KeyT, class T>
bool stream_path_aligned(const KeyT* keys, const T* values) {
  return reinterpret_cast<std::uintptr_t>(keys) % (4 * sizeof(KeyT)) == 0 &&
         reinterpret_cast<std::uintptr_t>(values) % (4 * sizeof(T)) == 0;
}

/// The first bytes of the stream path's workspace: the published choice (a tagged_partial<int> at 0) and the one-pass
/// kernel's tile counter (at run_next_tile_at).
inline constexpr std::size_t run_control_bytes = 256;
inline constexpr std::size_t run_next_tile_at = 128;
static_assert(sizeof(::reducelab::grid::tagged_partial<int>) <= run_next_tile_at &&
              run_next_tile_at + sizeof(unsigned long long) <= run_control_bytes);

/// What the last reduce_by_key on `stream` left in its workspace, if it took the stream path (for tests: reading it
/// after any other call on the stream gives meaningless numbers): the kernel the keys' sample chose
/// (block::run_choice::stream_path, stream_path_short_runs or one_pass) and the one-pass kernel's tile counter, which
/// stays at its first wave when that kernel leaves and ends past its tiles when it works. Synchronizes the stream.
struct run_choice_readback {
  int chosen = 0;
  unsigned long long next_tile = 0;
};
inline run_choice_readback last_run_choice(cudaStream_t stream) {
  const int device = ::reducelab::detail::current_device_properties().ordinal;
  CUDA_TRY(cudaStreamSynchronize(stream));
  const auto* bytes =
      static_cast<const unsigned char*>(::reducelab::detail::stream_workspaces::of(device).reserve(stream, 0));
  run_choice_readback r;
  if (bytes == nullptr) return r;
  ::reducelab::grid::tagged_partial<int> chosen{};
  CUDA_TRY(cudaMemcpy(&chosen, bytes, sizeof chosen, cudaMemcpyDeviceToHost));
  CUDA_TRY(cudaMemcpy(&r.next_tile, bytes + run_next_tile_at, sizeof r.next_tile, cudaMemcpyDeviceToHost));
  std::memcpy(&r.chosen, &chosen.w[0].bytes, sizeof r.chosen);
  return r;
}

/// reduce_by_key's stream path (kernels/stream_runs.cuh) on a resident grid. With run_sample::if_long (the entry's)
/// the one-pass kernel follows on a resident grid too, claiming its tiles from a counter; the stream path's block 0
/// reads the keys' sample and exactly one of the two works (block/run_density.cuh). With run_sample::always (or
/// always_short_runs) the stream path works alone, at any run length, with its lanes for long (short) runs (tests,
/// harnesses). keys and values must be aligned to 4 items
/// (stream_path_aligned; the entry sends unaligned ones to the one-pass kernel).
template <class PolicyT, class KeyT, class T, class NumRunsT, class OpT, class EqualT>
void reduce_runs_streamed(const KeyT* keys, const T* values, long long n, KeyT* unique_keys, T* values_out,
                          NumRunsT* num_runs, OpT op, EqualT equal, kernels::run_sample sample, cudaStream_t stream,
                          long long stretch = 0) {
  static_assert(streams_runs<KeyT, T>, "reducelab: the stream path takes 4- and 8-byte keys and values");
  REDUCELAB_EXPECTS(stream_path_aligned(keys, values),
                    "reducelab: reduce_by_key's stream path needs keys and values aligned to 4 items");
  REDUCELAB_EXPECTS(sample != kernels::run_sample::if_long ||
                        n >= static_cast<long long>(block::run_sample_windows) * block::run_sample_window,
                    "reducelab: reduce_by_key's keys sample needs n >= 4096");
  const device_properties dev = ::reducelab::detail::current_device_properties();
  constexpr auto stream_kernel =
      &kernels::stream_runs<PolicyT, PolicyT::template min_blocks<KeyT, T>, KeyT, T, NumRunsT, OpT, EqualT>;
  constexpr long long warps = PolicyT::threads / 32;
  const long long resident = resident_blocks<stream_kernel>(dev, PolicyT::threads);
  constexpr long long longest = PolicyT::template warp_stretch<KeyT, T>;
  if (stretch <= 0) {
    // As few rounds of the resident grid as the stash allows, and every round full: with the longest stretch for all
    // n, the last of 2^26 int32 keys' 4.1 rounds kept 14 % of the blocks busy, and runs of 256 took 161 µs where one
    // balanced round (by_key_stream_proxy.cu's joined_2) took 138 µs (H200, stop 60). Measured with it (stop 61,
    // same run, results/NVIDIA_H200-segmented/by-key-stream-threshold.txt): 2^26 int32 only 1.02-1.04x at runs of
    // 256-4096 and 2-3 % slower at 8-32 (more tiles); at 2^24, where the longest stretch made 1.03 rounds, 1.05-1.13x.
    stretch = kernels::balanced_stretch(n, resident * warps, longest, PolicyT::chunk_group);
  }
  REDUCELAB_EXPECTS(stretch % PolicyT::chunk_group == 0 && stretch <= longest,
                    "reducelab: reduce_by_key's stream path takes stretches of whole chunk groups that its stash holds");
  const long long tile = warps * stretch;
  const long long tiles = (n + tile - 1) / tile;
  constexpr int one_threads = tuning::by_key_threads;
  constexpr long long one_tile = static_cast<long long>(one_threads) * tuning::by_key_items<KeyT, T>;
  const long long one_tiles = sample != kernels::run_sample::if_long ? 0 : (n + one_tile - 1) / one_tile;
  // The workspace: the choice and the one-pass kernel's tile counter, the stream path's slots, the one-pass kernel's.
  constexpr std::size_t control_bytes = run_control_bytes;
  const std::size_t stream_bytes = run_slots<T>::bytes_for(tiles);
  const std::size_t bytes = control_bytes + stream_bytes + (one_tiles > 0 ? run_slots<T>::bytes_for(one_tiles) : 0);
  carries_workspace workspace(bytes, stream, dev.ordinal);
  const unsigned long long epoch = ::reducelab::detail::next_epoch();
  constexpr auto one_kernel =
      one_pass_kernel<one_threads, tuning::by_key_items<KeyT, T>, 0, KeyT, T, NumRunsT, OpT, EqualT>();
  const long long one_grid = one_tiles > 0 ? std::min(one_tiles, resident_blocks<one_kernel>(dev, one_threads)) : 0;
  block::run_choice choice{reinterpret_cast<::reducelab::grid::tagged_partial<int>*>(workspace.bytes()),
                           reinterpret_cast<unsigned long long*>(workspace.bytes() + run_next_tile_at), one_grid,
                           epoch};
  if (one_tiles == 0) choice.next_tile = nullptr;
  const auto slots = run_slots<T>::carve(workspace.bytes() + control_bytes, tiles, epoch);
  const long long grid = std::min(tiles, resident);
  const long long stretch_long_runs = kernels::long_run_stretch<PolicyT, KeyT, T>(n, grid * warps, stretch);
  stream_kernel<<<static_cast<unsigned>(grid), PolicyT::threads, 0, stream>>>(
      keys, values, n, unique_keys, values_out, num_runs, op, equal, sample, choice, stretch, slots.counts,
      slots.carries, stretch_long_runs);
  CUDA_TRY_LAUNCH();
  if (one_tiles == 0) return;
  const auto one_slots = run_slots<T>::carve(workspace.bytes() + control_bytes + stream_bytes, one_tiles, epoch);
  // The one-pass kernel as the stream kernel's programmatic dependent (sm_90 on), released once the sample's choice is
  // known (kernels/stream_runs.cuh says why not sooner): where the stream path works, the one-pass kernel's launch and
  // leaving overlap it, where in stream order they followed its last block. Same run against the stream-ordered
  // launch, released at the stream kernel's start (H100, stop 63, results/NVIDIA_H100_80GB_HBM3-segmented/
  // by-key-lanes-and-dependent-launch.txt): 1.02-1.06x at 2^24 for runs of 8 to 4096, 1.00-1.02x at 2^26, 1.00-1.01x
  // at runs of one (where the one-pass kernel alone is still 1.04-1.06x faster, 2^24).
  ::reducelab::grid::launch_as_dependent(one_kernel, dim3(static_cast<unsigned>(one_grid)), dim3(one_threads), stream,
                                         true, dev.major, keys, values, n, unique_keys, values_out, num_runs, op,
                                         equal, one_slots.counts, one_slots.carries, choice);
}

template <class KeyT, class T, class NumRunsT, class OpT, class EqualT>
void reduce_by_key(const KeyT* keys, const T* values, long long n, KeyT* unique_keys, T* values_out,
                   NumRunsT* num_runs, OpT op, EqualT equal, cudaStream_t stream) {
  using stream_policy = tuning::by_key_stream_policy;
  if constexpr (streams_runs<KeyT, T>) {
    if (n >= stream_policy::min_n && stream_path_aligned(keys, values)) {
      reduce_runs_streamed<stream_policy>(keys, values, n, unique_keys, values_out, num_runs, op, equal,
                                          kernels::run_sample::if_long, stream);
      return;
    }
  }
  reduce_runs_one_pass<tuning::by_key_threads, tuning::by_key_items<KeyT, T>>(keys, values, n, unique_keys, values_out,
                                                                              num_runs, op, equal, stream);
}

}  // namespace reducelab::segmented::detail
