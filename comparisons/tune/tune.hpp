// `reducelab tune`: what the measuring (candidates.cuh, instantiated once per size class by tune_candidates_N.cu)
// hands to the choosing and the writing (tune.cpp). Host C++: no kernels, no templates over value types.
//
// A size class is tuned on one or two representative (functor, value type) "workloads". For each workload and
// input size, every candidate policy (and, for commutative functors, cub::DeviceReduce::Reduce) is validated
// against the host reference and then timed in one interleaved engine.measure call, so that the samples of one
// point are paired. Two sweeps per class:
//   multi-block   the candidate shapes (block_threads x vectors_per_thread x grid cap), never the one-block path;
//                 the baseline is CUB
//   one-block     the one-block kernel at each single_block_threads x single_block_vectors;
//                 the baseline is the chosen multi-block policy, whose crossover with it sets single_block_max_bytes
#pragma once

#include "comparisons/timing/engine.hpp"
#include "reducelab/tuning/policy.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace reducelab::tune {

/// A (functor, value type) pair a size class is tuned on.
struct workload_info {
  std::string functor, type;
  std::size_t value_bytes = 0;
  bool commutative = false;  // CUB is timed beside the candidates only then
};

/// One candidate policy of a sweep, as the JSON, the table and the header show it.
struct candidate_info {
  std::string label;  // label_of(policy, one_block)
  tuning::policy_values policy{};
  std::size_t static_shared_bytes = 0;
  std::string excluded;  // why it was never compiled (too much static shared memory); empty if it was
};

/// "256x4 occupancy", "512x2 2/SM" (multi-block) or "one block 512x4" (the one-block path).
std::string label_of(const tuning::policy_values& p, bool one_block);

enum class work_status { timed, failed, excluded };
const char* to_string(work_status s);

/// One candidate (or the baseline) at one point.
struct work_result {
  work_status status = work_status::excluded;
  std::string note;        // failed: what validation saw; excluded: why it was not compiled
  std::vector<double> us;  // timed: the samples, us[i] from round i (paired with the point's other works)
  int discarded = 0;       // samples retaken because the held stream was released too late
};

/// Every work of one engine.measure call: one workload at one size.
struct point_result {
  std::size_t workload = 0;             // index into the sweep's workloads
  std::size_t n = 0;                    // values
  std::size_t bytes = 0;                // n * value size
  std::vector<work_result> candidates;  // in the order of sweep_result::candidates
  std::optional<work_result> baseline;  // absent where the baseline does not apply (CUB and a non-commutative functor)
};

struct sweep_result {
  std::vector<candidate_info> candidates;
  std::string baseline;  // what point_result::baseline measured
  std::vector<point_result> points;
};

/// What every sweep shares: the device, the engine and the measurement plan, the sizes.
struct sweep_context {
  timing::engine& engine;
  cudaStream_t stream;
  timing::measurement_plan plan;                // cold, clean flush, held stream; rounds = --samples
  std::uint64_t seed = 1;                       // inputs and each point's shuffle derive from it
  std::vector<std::size_t> multi_block_sizes;   // values
  std::vector<std::size_t> single_block_bytes;  // input bytes
  std::ostream& progress;
};

/// The measuring for one size class; candidates.cuh implements it for the class's workloads.
class class_tuner {
 public:
  virtual ~class_tuner() = default;
  virtual std::size_t size_class() const = 0;
  virtual std::vector<workload_info> workloads() const = 0;
  /// Validate, then time every multi-block candidate (and CUB beside the commutative workloads) at every size.
  virtual sweep_result measure_multi_block(const sweep_context& ctx) const = 0;
  /// Validate, then time the one-block path at each single_block_threads x single_block_vectors beside the fields
  /// of multi-block candidate `chosen`, with that candidate (one-block path off) as the baseline, at every byte size.
  virtual sweep_result measure_single_block(const sweep_context& ctx, std::size_t chosen) const = 0;
};

/// The `policy<...>` a written sm90.hpp holds for these values: the trailing fields are positional, so the pass-block
/// pair is written whenever a later field is.
std::string policy_text(const tuning::policy_values& p);

// One per size class, each in its own translation unit (tune_candidates_N.cu).
std::unique_ptr<class_tuner> make_tuner_1();
std::unique_ptr<class_tuner> make_tuner_4();
std::unique_ptr<class_tuner> make_tuner_8();
std::unique_ptr<class_tuner> make_tuner_16();

}  // namespace reducelab::tune
