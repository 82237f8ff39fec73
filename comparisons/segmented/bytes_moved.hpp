// The bytes a segmented or keyed reduction must move at the least, the numerator of `segmented compare`'s GB/s:
// every input read once and every output written once. Pure host code, tested on the CPU.
#pragma once

#include <cstddef>

namespace reducelab::segmented::tool {

/// Values read (n), offsets read (one array of num_segments + 1), one result written per segment.
inline std::size_t segmented_bytes_moved(std::size_t n, std::size_t num_segments, std::size_t value_bytes,
                                         std::size_t offset_bytes) {
  return n * value_bytes + (num_segments + 1) * offset_bytes + num_segments * value_bytes;
}

/// Keys and values read (n each), one unique key and one value written per run, and the 8-byte run count.
inline std::size_t by_key_bytes_moved(std::size_t n, std::size_t runs, std::size_t key_bytes,
                                      std::size_t value_bytes) {
  return n * (key_bytes + value_bytes) + runs * (key_bytes + value_bytes) + 8;
}

}  // namespace reducelab::segmented::tool
