// Which policy a device gets: the table of tuned architectures, newest first, then the fallback.
// To add an architecture: a tuning/smXY.hpp written by `reducelab tune --write-header`, and one line below.
#pragma once

#include "reducelab/tuning/policy.hpp"
#include "reducelab/tuning/sm90.hpp"

namespace reducelab::tuning {

enum class table { sm90, fallback };

/// The table for a device of compute capability major.minor.
constexpr table table_for(int major, int /*minor*/) { return major == 9 ? table::sm90 : table::fallback; }

constexpr const char* table_name(table t) { return t == table::sm90 ? "sm90" : "fallback"; }

/// Call fn(PolicyT{}) with the policy of table t for values of ValueBytes bytes.
template <std::size_t ValueBytes, class FnT>
decltype(auto) with_policy(table t, FnT&& fn) {
  constexpr std::size_t c = size_class(ValueBytes);
  if (t == table::sm90) return fn(sm90<c>{});
  return fn(fallback<c>{});
}

}  // namespace reducelab::tuning
