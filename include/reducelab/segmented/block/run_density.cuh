// How long reduce_by_key's runs are, guessed from a sample of the keys: the choice between its two kernels, made on
// the device. The stream path (kernels/stream_runs.cuh) is fast for long runs and slow for short ones, the one-pass
// kernel (kernels/reduce_runs.cuh) the other way round, and the host cannot look at the keys without a
// synchronization. So both are launched, the stream path first; its block 0 reads the sample and publishes the choice
// (run_choice), and the kernel the choice does not suit leaves at once. The sample also picks the stream path's lanes
// (tuning::by_key_stream_policy: 8 items a lane for short runs, 4 for long ones). It depends on the keys alone, so the
// choice, and with it the bits of a float result, is the same at every call.
//
// Why one block: when every block of both kernels read the sample itself, the kernel that left took 9-18 µs (Nsight
// Compute on the H200, 2^24 and 2^26 int32 keys, stop 60): 500-660 blocks reading the same 512 sectors at once.
#pragma once

#include "reducelab/grid/tagged_partials.cuh"
#include "reducelab/warp/shuffle.cuh"

namespace reducelab::segmented::block {

/// The word the two kernels share for one call, in its workspace.
struct run_choice {
  static constexpr int stream_path = 1;             // the policy's lanes for long runs (items)
  static constexpr int one_pass = 2;
  static constexpr int stream_path_short_runs = 3;  // the policy's lanes for short runs (short_run_items)
  ::reducelab::grid::tagged_partial<int>* chosen;  // which kernel works (published by the stream path's block 0)
  unsigned long long* next_tile;                 // the one-pass kernel's next tile to claim after its first wave
  long long first_wave;                          // the one-pass kernel's grid: its tiles before the claimed ones
  unsigned long long epoch;                      // the call's

  /// The published choice (thread 0 calls it; it waits until block 0 of the stream path has published it).
  __device__ int wait() const {
    int c = 0;
    while (!::reducelab::grid::try_read(chosen, epoch, c)) __nanosleep(64);
    return c;
  }
};

// The sample: evenly spaced windows of consecutive keys, a warp's 32 lanes x 8 keys each. Every block of both kernels
// waits on it, at every run length, so its latency is part of the stream path's fixed cost: 256 windows of 16 keys (a
// lane a window) cost 1-4 us more than 16 windows of 256 at 2^24 on the H100 (stop 63: 1.00-1.04x over every run
// length, results/NVIDIA_H100_80GB_HBM3-segmented/by-key-lanes-and-dependent-launch.txt), as many neighbour pairs
// read from 16 places rather than 256.
inline constexpr int run_sample_windows = 16;
inline constexpr int run_sample_window = 256;
inline constexpr int run_sample_pairs = run_sample_windows * (run_sample_window - 1);

/// The kernel the sample's heads ask for: the one-pass kernel where the sampled runs average under min_run keys
/// (heads x min_run > pairs compared), the stream path's short-run lanes under short_run_mean, its long-run lanes
/// from there.
__host__ __device__ constexpr int run_choice_for(int sampled_heads, int min_run, int short_run_mean) {
  const long long heads = sampled_heads;
  return heads * min_run > run_sample_pairs          ? run_choice::one_pass
         : heads * short_run_mean > run_sample_pairs ? run_choice::stream_path_short_runs
                                                     : run_choice::stream_path;
}

/// The heads (keys unequal to the key before them) among the sample's neighbour pairs, for n >= run_sample_windows x
/// run_sample_window. The same in every thread; the whole block calls it (blocks of whole warps). Not inlined: when
/// the one-pass kernel read a sample too (stop 60), inlined there it cost 4 bytes of spill (ptxas for sm_90, int32
/// pairs); called, the kernel spilled nothing.
template <class KeyT, class EqualT>
__device__ __noinline__ int sampled_heads(const KeyT* __restrict__ keys, long long n, EqualT equal) {
  constexpr int per_lane = run_sample_window / 32;
  __shared__ int heads;
  if (threadIdx.x == 0) heads = 0;
  __syncthreads();
  int mine = 0;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  for (int w = static_cast<int>(threadIdx.x) / 32; w < run_sample_windows; w += static_cast<int>(blockDim.x) / 32) {
    const long long start = (n - run_sample_window) / (run_sample_windows - 1) * w + lane * per_lane;
    KeyT k[per_lane];
#pragma unroll
    for (int j = 0; j < per_lane; ++j) k[j] = keys[start + j];
#pragma unroll
    for (int j = 1; j < per_lane; ++j) mine += equal(k[j - 1], k[j]) ? 0 : 1;
    // the last key of the lane before (lane 0's is the window's first key: it has no pair before it)
    const KeyT before = ::reducelab::warp::shfl_idx(k[per_lane - 1], lane > 0 ? lane - 1 : 0);
    if (lane > 0) mine += equal(before, k[0]) ? 0 : 1;
  }
  if (mine > 0) atomicAdd(&heads, mine);
  __syncthreads();
  const int sampled = heads;
  __syncthreads();  // `heads` is read before any later call resets it
  return sampled;
}

}  // namespace reducelab::segmented::block
