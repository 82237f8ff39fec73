// What `reducelab segmented` runs, as host-side objects: a case is a (functor, value type) pair instantiated in
// one of the cases_*.cu files (one per functor, so they compile in parallel); opening it on a layout uploads the
// input and hands back every backend as closures the check and the timing engine call alike. Host-only: the
// commands (check.cpp, compare.cpp) see no kernel templates.
#pragma once

#include "lab/segmented/host/layouts.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace reducelab::segmented::tool {

enum class operation { segmented_reduce, reduce_by_key };

inline const char* to_string(operation op) {
  return op == operation::segmented_reduce ? "segmented_reduce" : "reduce_by_key";
}

/// One backend's verdict on one case: ok, or the first failing segment (run) and why.
struct judged {
  bool ok = true;
  std::string message;
};

struct backend_run {
  std::string name;
  std::string family;         // variant, library, cub, thrust
  std::string refusal;        // non-empty: it cannot serve this case (run and validate are then empty)
  bool host_synchronous = false;
  bool reference = false;     // the CUB baseline of the case, which speedups are measured against
  std::function<void(cudaStream_t)> run;        // one complete execution, enqueued on the stream
  std::function<judged(cudaStream_t)> validate; // poison the outputs, run, wait, copy back, judge every segment
};

/// One (functor, type, operation, layout) on the device: the buffers live as long as the session.
struct case_session {
  std::size_t n = 0;
  std::size_t segments = 0;  // segments, or runs of equal keys for reduce_by_key
  std::size_t bytes_moved = 0;
  std::vector<backend_run> backends;
  std::shared_ptr<void> buffers;  // what the closures point into
};

struct case_entry {
  std::string functor, type;
  bool commutative = true;
  std::function<case_session(operation, const segment_layout&, std::uint64_t seed)> open;
};

/// Every backend name of an operation, in run order (for --variants), without opening a case.
std::vector<std::string> backend_names(operation op);

// One per cases_*.cu: the goal set (4- and 8-byte values).
void add_plus_cases(std::vector<case_entry>& into);            // int32, float, double
void add_maximum_cases(std::vector<case_entry>& into);         // int32, float, double
void add_argmax_cases(std::vector<case_entry>& into);          // float_idx32
void add_affine_compose_cases(std::vector<case_entry>& into);  // affine32 (non-commutative)

inline std::vector<case_entry> all_cases() {
  std::vector<case_entry> cases;
  add_plus_cases(cases);
  add_maximum_cases(cases);
  add_argmax_cases(cases);
  add_affine_compose_cases(cases);
  return cases;
}

}  // namespace reducelab::segmented::tool
