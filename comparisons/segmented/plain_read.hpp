// A same-run yardstick for the segmented compare: `reducelab::reduce` (plus over 32-bit words) reading as many bytes
// as a case moves (bytes_moved.hpp), timed in the same interleaved rounds as the case's backends. Its % of peak is
// what one plain pass over that many bytes reaches at that size, on that device, under that timing: the goals
// section sets it beside every library line, so that a % of peak target above it reads as what it is (a target
// above a plain read of the same bytes), not as a defect of the segmented kernels alone.
#pragma once

#include "comparisons/timing/engine.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace reducelab::segmented::tool {

inline constexpr const char* plain_read_name = "plain read: reducelab::reduce over the same bytes";

/// A timed work reading `bytes` bytes (whole 4-byte words, at least one) from a scratch buffer the process keeps
/// (grown when a larger case asks, never shrunk; filled with a non-zero pattern), or none when the device cannot
/// hold the buffer besides the case's own (the compare then goes on without it). A work made earlier must not run
/// after a larger one was made: the buffer it read may be gone.
std::optional<timing::timed_work> plain_read_work(std::size_t bytes);

/// For tests: the sum (modulo 2^32) the last plain-read work wrote, copied back (after the stream's work is done),
/// and the sum a read of `bytes` bytes of the scratch's pattern must give.
std::uint32_t last_plain_read_sum();
std::uint32_t expected_plain_read_sum(std::size_t bytes);

}  // namespace reducelab::segmented::tool
