// The outcome of a monoid law check (host/monoid_laws.hpp), kept apart so non-template code can use it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace reducelab {

struct law_report {
  std::size_t samples = 0;
  std::vector<std::string> failures;  // one line per failed law instance (capped at 10)
  bool ok() const { return failures.empty(); }
};

}  // namespace reducelab
