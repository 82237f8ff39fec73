// The message of the usage_error a call throws, or "" when it throws none: what the command-line tests compare.
#pragma once

#include "reducelab/core/error.hpp"

#include <string>

namespace test_support {

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const reducelab::usage_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace test_support
