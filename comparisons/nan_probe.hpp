// What each backend returns on NaN inputs, for the report's "NaN inputs" section: maximum and minimum (CUB's
// and Thrust's max/min, whose NaN result depends on the combine order) beside amax/amin (NaN propagates, as
// numpy.max) and nanmax/nanmin (NaN ignored, as numpy.nanmax). Host code over the registry interface only.
#pragma once

#include "lab/registry/registry.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>

namespace reducelab {

/// The size probed: 2^20 + 3, large enough for every backend's multi-block path, odd so tails are exercised.
inline constexpr std::size_t nan_probe_n = (std::size_t{1} << 20) + 3;

/// For the float and double cases of maximum, minimum, amax, amin, nanmax and nanmin (those registered), run
/// value_case::check_on_gpu on one input_kind::nan input of nan_probe_n values from `seed` over every
/// applicable backend. Returns an array of rows {functor, type, n, backend, got, status} (status as
/// to_string(check_status): UNDEFINED for maximum/minimum, PASS or FAIL against the in-order reference for
/// the others, ERROR when the backend threw; a row that is not PASS or UNDEFINED also has a "message").
/// Needs a GPU.
nlohmann::ordered_json probe_nan_semantics(const registry& reg, std::uint64_t seed);

}  // namespace reducelab
