// The arithmetic of `reducelab-multigpu compare`, kept apart from CUDA so it is unit-tested without a GPU: how n
// elements are split over the ranks, nccl-tests' bandwidth conventions, whether the buffers fit, a content hash
// for run-to-run checks, and how sizes are printed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace reducelab::multigpu::tool {

/// Rank r's part of a split: elements [begin, begin + count) of the whole.
struct rank_slice {
  std::size_t begin = 0;
  std::size_t count = 0;
};

/// n elements over `ranks` ranks, in rank order, as evenly as possible: the first n % ranks ranks get one more
/// (all_reduce's chunking cuts the same way). ranks < 1 gives no slices.
inline std::vector<rank_slice> split_evenly(std::size_t n, int ranks) {
  std::vector<rank_slice> slices;
  if (ranks < 1) return slices;
  const std::size_t p = static_cast<std::size_t>(ranks), base = n / p, extra = n % p;
  std::size_t begin = 0;
  for (std::size_t r = 0; r < p; ++r) {
    const std::size_t count = base + (r < extra ? 1 : 0);
    slices.push_back({begin, count});
    begin += count;
  }
  return slices;
}

/// nccl-tests' all-reduce bus factor 2 (N - 1) / N: what each rank must send (and receive) per byte of the vector
/// with an optimal algorithm, so bus bandwidth compares with the links' speed whatever N is. 0 for one rank.
inline double all_reduce_bus_factor(int ranks) { return ranks < 1 ? 0.0 : 2.0 * (ranks - 1) / ranks; }

/// Algorithm bandwidth: bytes of the vector / time (GB/s = 1e9 bytes per second; time in µs).
inline double algbw_gb_per_s(std::size_t bytes, double us) { return static_cast<double>(bytes) / (us * 1e3); }

/// Bus bandwidth: algbw x 2 (N - 1) / N, nccl-tests' convention for an all-reduce.
inline double busbw_gb_per_s(std::size_t bytes, double us, int ranks) {
  return algbw_gb_per_s(bytes, us) * all_reduce_bus_factor(ranks);
}

/// What one device must hold for a case, and what it has free.
struct device_need {
  int device = 0;
  std::size_t need_bytes = 0;
  std::size_t free_bytes = 0;
  std::string what;  // "the whole array for the one-GPU baseline", ...
};

/// Left free on every device beyond a case's own buffers: reducelab::reduce's workspace, NCCL's buffers and
/// staging, the timing engine's allocations, the pools' rounding.
inline constexpr std::size_t memory_headroom_bytes = std::size_t{512} << 20;

std::string format_bytes(std::size_t bytes);

/// Empty when every device holds its need plus `headroom`, else one line naming the first device that cannot.
inline std::string fit_problem(const std::vector<device_need>& needs,
                               std::size_t headroom = memory_headroom_bytes) {
  for (const device_need& d : needs) {
    if (d.need_bytes > d.free_bytes || d.free_bytes - d.need_bytes < headroom)
      return "GPU " + std::to_string(d.device) + " would hold " + d.what + " (" + format_bytes(d.need_bytes) +
             ") but has " + format_bytes(d.free_bytes) + " free, and " + format_bytes(headroom) +
             " are kept for workspaces";
  }
  return "";
}

/// A 64-bit hash of a block of bytes (words mixed with splitmix64's finalizer; the tail bytewise). Only for
/// telling whether two outputs are identical, cheaply, without keeping both.
inline std::uint64_t content_hash(const void* data, std::size_t bytes) {
  const auto mix = [](std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ bytes;
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = mix(h ^ w) + 0x9e3779b97f4a7c15ull;
  }
  for (; i < bytes; ++i) h = mix(h ^ p[i]);
  return h;
}

/// 2^31 for a power of two, else the digits: how element counts are printed.
inline std::string format_count(std::size_t n) {
  if (n != 0 && (n & (n - 1)) == 0) {
    int k = 0;
    while ((std::size_t{1} << k) != n) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

/// 256 MiB, 1.5 GiB, 4 KiB, 100 B: binary units, at most one decimal, exact multiples without one.
inline std::string format_bytes(std::size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = static_cast<double>(bytes);
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  if (v == static_cast<double>(static_cast<std::uint64_t>(v))) {
    std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(v), units[u]);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  }
  return buf;
}

}  // namespace reducelab::multigpu::tool
