// The run-time view of everything compiled in: each functor (from functors/), each of its value types, and
// each backend (custom variant or library baseline) with whether it can serve that pair and why not.
// Templates are instantiated once, in generated translation units (one per functor and slot, see
// CMakeLists.txt); the CLI, the tests and the comparisons only talk to this interface.
#pragma once

#include "lab/host/accuracy.hpp"
#include "lab/host/input_kind.hpp"
#include "lab/host/law_report.hpp"
#include "reducelab/tuning/policy.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace reducelab {

/// custom: a ladder variant; library: reducelab::reduce itself; thrust, cub: the libraries; cpu: the
/// multi-threaded host baseline (compare only).
enum class backend_family { custom, library, thrust, cub, cpu };
const char* to_string(backend_family f);

struct backend_descriptor {
  std::string name;
  std::string summary;
  backend_family family = backend_family::custom;
  int ladder_step = 0;
  std::string refusal;  // empty: it serves this (functor, type)
  bool preserves_order = false;
  bool deterministic = true;
  bool host_synchronous = false;  // returns only when the result is ready: timed with the host clock
  std::string path;     // which code path this (functor, type) takes, where a variant has several
  // reducelab::reduce only, filled where a GPU is present: the tuning policy it runs with for this value type
  bool has_policy = false;
  tuning::policy_values policy{};
  std::string policy_table;  // "sm90", "fallback"
  bool applicable() const { return refusal.empty(); }
};

struct check_request {
  std::size_t n = 0;
  input_kind kind = input_kind::random;
  std::uint64_t seed = 1;
  std::size_t offset = 0;             // the range starts this many elements into the device_vector
  std::vector<std::string> backends;  // empty: all of them
  int repeats = 1;                    // > 1: also require bitwise-identical results from deterministic backends
};

/// undefined: the input holds a NaN and the functor leaves NaN results undefined (is_nan_undefined, e.g.
/// maximum over float): the result is recorded in result.got, not judged, and is never a failure.
enum class check_status { pass, fail, refused, error, undefined };
const char* to_string(check_status s);

struct check_row {
  std::string backend;
  check_status status = check_status::error;
  verdict result;       // for pass / fail; for undefined only result.got, what the backend returned
  std::string message;  // refusal reason, error text, or what failed
};

/// One backend ready to be timed on data already on the GPU (see value_case::prepare_for_timing).
struct timing_target {
  backend_descriptor backend;
  check_row validation;                       // validated once, before any timing; not timed unless it passed
  std::function<void(cudaStream_t)> enqueue;  // one reduction of the prepared data (empty when not runnable)
  std::size_t combine_depth = 0;              // the depth the floating-point bound was computed with
  int threads = 0;                            // host threads (the CPU baseline), 0 for GPU backends
};

/// Device data for one (functor, type, size) and every backend's workspace, alive as long as this object.
class prepared_case {
 public:
  virtual ~prepared_case() = default;
  std::vector<timing_target> targets;
  std::size_t n = 0;
  std::size_t bytes_read = 0;  // n * sizeof(T): what a reduction must read at least once
};

/// One (functor, value type) pair.
class value_case {
 public:
  virtual ~value_case() = default;
  virtual std::string type_name() const = 0;
  virtual std::size_t value_bytes() const = 0;
  virtual std::string identity() const = 0;
  virtual bool exact() const = 0;
  /// How many adversarial scenarios the functor defines for this type; an adversarial input's seed picks
  /// scenario seed % this count (see make_inputs).
  virtual unsigned adversarial_scenarios() const = 0;
  virtual law_report check_laws(std::uint64_t seed, std::size_t samples) const = 0;
  virtual std::vector<backend_descriptor> backends() const = 0;
  /// Validate the requested backends on one input (needs a GPU).
  virtual std::vector<check_row> check_on_gpu(const check_request& request) const = 0;
  /// Upload one random input of n values (device_vector), validate each requested backend on it and prepare
  /// it for timing (needs a GPU). `backends` empty: all.
  virtual std::unique_ptr<prepared_case> prepare_for_timing(std::size_t n, std::uint64_t seed,
                                                            const std::vector<std::string>& backends,
                                                            cudaStream_t stream) const = 0;
  std::size_t type_index = 0;  // position in the functor's value_types, for a stable order
};

struct functor_entry {
  std::string name;
  std::string summary;
  bool commutative = false;
  std::vector<std::unique_ptr<value_case>> cases;
  const value_case* find(std::string_view type_name) const;
};

class registry {
 public:
  const std::vector<functor_entry>& functors() const { return functors_; }
  const functor_entry* find(std::string_view functor_name) const;
  /// Every backend name, custom variants in ladder order, then the baselines.
  std::vector<std::string> backend_names() const;
  /// Every value type name that some functor is registered for, in first-seen order.
  std::vector<std::string> type_names() const;

  // Used by the generated registration code.
  functor_entry& functor(const std::string& name, const std::string& summary, bool commutative);
  void add(const std::string& functor_name, std::unique_ptr<value_case> c);
  void finish();  // sort functors and cases into a stable order

 private:
  std::vector<functor_entry> functors_;
};

/// The registry of everything compiled in, built on first use.
const registry& the_registry();

}  // namespace reducelab
