// The values of a segmented case, kept across the layouts that use them. `segmented check` and `compare` open every
// case once per layout, and every layout of a size draws the same values (make_inputs with the seed of that size).
// Drawing them is sequential (one mt19937_64): at 2^26 it took one core of the development machine 0.4-0.8 s a case,
// which a compare paid once per layout, twelve times a size (stop 46). Within a byte budget the first draw is kept and
// handed out again; past it the least recently used arrays go, so a size too large for the budget draws as before.
#pragma once

#include "lab/host/inputs.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

namespace reducelab::segmented::tool {

/// Arrays of make_inputs<OpT, T>(input_kind::random, n, seed), up to budget_bytes in all. Not thread-safe: the tool
/// opens its cases from one thread.
class input_cache {
 public:
  explicit input_cache(std::size_t budget_bytes) : budget_(budget_bytes) {}

  /// The values for (OpT, T, n, seed): the kept array, else a new draw (kept if it fits the budget).
  template <class OpT, class T>
  std::shared_ptr<const host_array<T>> values(std::size_t n, std::uint64_t seed) {
    const std::type_index type(typeid(std::pair<OpT, T>));
    ++clock_;
    for (entry& e : entries_) {
      if (e.type == type && e.n == n && e.seed == seed) {
        e.last_use = clock_;
        return std::static_pointer_cast<const host_array<T>>(e.data);
      }
    }
    auto drawn = std::make_shared<const host_array<T>>(make_inputs<OpT, T>(input_kind::random, n, seed));
    const std::size_t bytes = n * sizeof(T);
    if (bytes <= budget_) {
      while (used_ + bytes > budget_) evict_least_recent();
      entries_.push_back({type, n, seed, bytes, drawn, clock_});
      used_ += bytes;
    }
    return drawn;
  }

  std::size_t kept_bytes() const { return used_; }
  std::size_t kept_arrays() const { return entries_.size(); }

 private:
  struct entry {
    std::type_index type;
    std::size_t n;
    std::uint64_t seed;
    std::size_t bytes;
    std::shared_ptr<const void> data;
    std::uint64_t last_use;
  };

  void evict_least_recent() {
    std::size_t oldest = 0;
    for (std::size_t i = 1; i < entries_.size(); ++i)
      if (entries_[i].last_use < entries_[oldest].last_use) oldest = i;
    used_ -= entries_[oldest].bytes;
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(oldest));
  }

  std::size_t budget_;
  std::size_t used_ = 0;
  std::uint64_t clock_ = 0;
  std::vector<entry> entries_;
};

/// The process's cache for the tool's cases: 4 GiB, which holds the eight compared functor and type pairs at 2^26
/// (about 3 GiB); at 2^28 they do not fit and are drawn per layout, as before.
inline input_cache& case_values() {
  static input_cache cache(std::size_t{4} << 30);
  return cache;
}

}  // namespace reducelab::segmented::tool
