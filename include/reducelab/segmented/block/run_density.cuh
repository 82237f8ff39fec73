// How long reduce_by_key's runs are, guessed from a sample of the keys: the choice between its two kernels, made on
// the device. The stream path (kernels/stream_runs.cuh) is fast for long runs and slow for short ones, the one-pass
// kernel (kernels/reduce_runs.cuh) the other way round, and the host cannot look at the keys without a
// synchronization. So both are launched, the stream path first; its block 0 reads the sample and publishes the choice
// (run_choice), and the kernel the choice does not suit leaves at once. The sample depends on the keys alone, so the
// choice, and with it the bits of a float result, is the same at every call.
//
// Why one block: when every block of both kernels read the sample itself, the kernel that left took 9-18 µs (Nsight
// Compute on the H200, 2^24 and 2^26 int32 keys, stop 60): 500-660 blocks reading the same 512 sectors at once.
#pragma once

#include "reducelab/grid/tagged_partials.cuh"

namespace reducelab::segmented::block {

/// The word the two kernels share for one call, in its workspace.
struct run_choice {
  static constexpr int stream_path = 1;
  static constexpr int one_pass = 2;
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

inline constexpr int run_sample_windows = 256;  // evenly spaced windows of the keys
inline constexpr int run_sample_window = 16;    // consecutive keys each: 15 neighbour pairs

/// Whether the runs in the sample average at least min_run keys (heads x min_run <= pairs compared), for n >=
/// run_sample_windows * run_sample_window. The same in every thread; the whole block calls it. Not inlined: inlined
/// into the one-pass kernel, its 16 keys a thread cost that kernel 4 bytes of spill (ptxas for sm_90, int32 pairs);
/// called, the kernel spills nothing.
template <class KeyT, class EqualT>
__device__ __noinline__ bool runs_average_at_least(const KeyT* __restrict__ keys, long long n, EqualT equal, int min_run) {
  __shared__ int heads;
  if (threadIdx.x == 0) heads = 0;
  __syncthreads();
  int mine = 0;
  for (int w = static_cast<int>(threadIdx.x); w < run_sample_windows; w += static_cast<int>(blockDim.x)) {
    const long long start = (n - run_sample_window) / (run_sample_windows - 1) * w;
    KeyT k[run_sample_window];
#pragma unroll
    for (int j = 0; j < run_sample_window; ++j) k[j] = keys[start + j];
#pragma unroll
    for (int j = 1; j < run_sample_window; ++j) mine += equal(k[j - 1], k[j]) ? 0 : 1;
  }
  if (mine > 0) atomicAdd(&heads, mine);
  __syncthreads();
  const int pairs = run_sample_windows * (run_sample_window - 1);
  const bool long_runs = static_cast<long long>(heads) * min_run <= pairs;
  __syncthreads();  // `heads` is read before any later call resets it
  return long_runs;
}

}  // namespace reducelab::segmented::block
