// The one timing engine every comparison hands its backends to (scalar reductions today; segmented and
// multi-GPU ones later). It owns what makes a sample trustworthy:
//   - launch-free: stream-ordered work is bracketed by CUDA events on a stream held by stream_hold until the
//     events and the work are enqueued, so the host's launch latency is not inside the interval;
//   - clean-cold or hot: before a cold sample L2 is flushed (clean by default, see l2_flush.hpp); before a hot
//     sample the same work runs once untimed, so its data is resident in L2;
//   - interleaved: round i takes sample i of every work item, in a freshly shuffled order each round, so clock
//     drift and transients hit every item alike and samples with the same index are paired.
// Work that returns only when it is done (thrust::reduce, a variant that synchronizes, the CPU baseline) cannot
// be held: it is timed with the host's steady clock around the call, after the flush has completed.
#pragma once

#include "comparisons/timing/l2_flush.hpp"
#include "comparisons/timing/stream_hold.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace reducelab::timing {

/// One thing to time.
struct timed_work {
  std::string name;
  bool host_synchronous = false;             // returns only when done: timed by the host clock
  std::function<void(cudaStream_t)> run;     // one complete execution, enqueued on (or run against) the stream
};

enum class cache_state { cold, hot };
const char* to_string(cache_state c);

/// How a clock bracketed a sample.
enum class clock_method { events_held, events_idle_stream, host_clock };
const char* to_string(clock_method m);

struct measurement_plan {
  cache_state cache = cache_state::cold;
  flush_kind flush = flush_kind::clean;
  bool hold = true;         // false only for a profiler (whose serialization would stall a held stream) or to
                            // reproduce the old method
  int warmup_runs = 3;      // module load, first allocations, clocks ramping up
  int rounds = 25;          // samples per work item
  std::uint64_t seed = 1;   // the shuffle of each round
};

struct work_samples {
  std::vector<double> us;   // us[i] was taken in round i
  int discarded = 0;        // samples retaken: the host released the held stream too late, or a host-clock
                            // call left its stream busy past host_clock_allowance
  clock_method clock = clock_method::events_held;
};

/// rounds x works: each round a permutation of 0..works-1, reproducible from the seed. Pure host code.
std::vector<std::vector<std::size_t>> interleaved_schedule(std::size_t works, std::size_t rounds, std::uint64_t seed);

class engine {
 public:
  engine(cudaStream_t stream, std::size_t l2_bytes);
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  /// Warm every item up, then take plan.rounds interleaved samples of each; results in the order of `works`.
  std::vector<work_samples> measure(const std::vector<timed_work>& works, const measurement_plan& plan);
  /// Bytes the L2 flush writes and reads.
  std::size_t flush_bytes() const { return flush_.bytes(); }
  /// A sample is retaken at most this many times before the engine gives up with an error naming the item.
  static constexpr int max_attempts = 5;
  /// How long a host-synchronous work item's stream may stay busy after the call returns (its last kernel
  /// retiring, the driver noticing) before the sample is discarded as one that left work queued, unless the
  /// call itself took longer.
  static constexpr std::chrono::microseconds host_clock_allowance{50};

 private:
  double sample(const timed_work& work, const measurement_plan& plan, work_samples& into);

  cudaStream_t stream_;
  l2_flush flush_;
  stream_hold hold_;
  cudaEvent_t start_{}, stop_{};
};

}  // namespace reducelab::timing
