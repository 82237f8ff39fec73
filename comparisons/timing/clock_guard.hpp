// Clock guard: reads the SM and memory clocks through NVML so that a row measured while the GPU ran below
// its usual clocks (thermal or power capping, another tenant) is flagged instead of silently slower.
// NVML ships with the driver (libnvidia-ml.so.1) but its header is not on the build machines, so the few
// entry points used here are looked up at run time; without the library the guard says why and records nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace reducelab::timing {

struct clock_reading {
  unsigned sm_mhz = 0;
  unsigned memory_mhz = 0;
};

class clock_guard {
 public:
  /// Opens NVML for the CUDA device `cuda_ordinal` (matched by PCI bus id, since NVML numbers devices its own way).
  explicit clock_guard(int cuda_ordinal);
  ~clock_guard();
  clock_guard(const clock_guard&) = delete;
  clock_guard& operator=(const clock_guard&) = delete;

  bool available() const { return device_ != nullptr; }
  /// Why NVML could not be used (empty when available).
  const std::string& why_unavailable() const { return why_; }
  /// The clocks now, or nothing when NVML is unavailable or the query fails.
  std::optional<clock_reading> read() const;
  /// The highest clocks the device reports (its boost limits), when known.
  std::optional<clock_reading> max_clocks() const;

 private:
  void* library_ = nullptr;
  void* device_ = nullptr;
  std::string why_;
};

/// Which groups ran below their norm: the norm is the median, over all groups, of each group's lowest reading
/// (the clocks a run settles at); a group is flagged when its lowest SM clock is below `sm_fraction` of that
/// norm or its lowest memory clock below `memory_fraction` of it. Pure host logic, unit-tested.
std::vector<bool> flag_low_clocks(const std::vector<clock_reading>& lowest_per_group, double sm_fraction = 0.90,
                                  double memory_fraction = 0.98);

}  // namespace reducelab::timing
