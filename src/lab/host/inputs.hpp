// Host-side input generation. The input domain belongs to the functor (a product of random floats over- or
// underflows, logical operators want 0/1), so a functor may supply random_input/constant_input; otherwise the
// defaults here apply. Inputs are never all zeros: that would hide unwritten outputs and wrong indexing.
#pragma once

#include "reducelab/core/traits.hpp"
#include "lab/core/value_traits.hpp"
#include "lab/host/input_kind.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace reducelab {

using input_rng = std::mt19937_64;

namespace detail {
template <class OpT, class T, class = void>
struct has_random_input : std::false_type {};
template <class OpT, class T>
struct has_random_input<OpT, T, std::void_t<decltype(OpT::template random_input<T>(std::declval<input_rng&>(), std::size_t{}))>>
    : std::true_type {};
template <class OpT, class T, class = void>
struct has_constant_input : std::false_type {};
template <class OpT, class T>
struct has_constant_input<OpT, T, std::void_t<decltype(OpT::template constant_input<T>())>> : std::true_type {};
template <class OpT, class T, class = void>
struct has_adversarial_input : std::false_type {};
template <class OpT, class T>
struct has_adversarial_input<OpT, T,
                             std::void_t<decltype(OpT::template adversarial_input<T>(
                                 unsigned{}, std::declval<input_rng&>(), std::size_t{}, std::size_t{}))>>
    : std::true_type {};
template <class OpT, class T, class = void>
struct has_adversarial_scenarios : std::false_type {};
template <class OpT, class T>
struct has_adversarial_scenarios<OpT, T, std::void_t<decltype(OpT::template adversarial_scenarios<T>())>>
    : std::true_type {};
}  // namespace detail

/// Default random value: integers over their whole range, bool 50/50, floats uniform in [-1, 1).
template <class T>
T default_random_input(input_rng& rng) {
  if constexpr (std::is_same_v<T, bool>) {
    return (rng() & 1) != 0;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(rng());
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(std::uniform_real_distribution<double>(-1.0, 1.0)(rng));
  } else {
    static_assert(sizeof(T) == 0, "reducelab: a struct value type needs the functor's random_input<T>(rng, index)");
  }
}

template <class OpT, class T>
T random_input(input_rng& rng, std::size_t index) {
  if constexpr (detail::has_random_input<OpT, T>::value) {
    return OpT::template random_input<T>(rng, index);
  } else {
    return default_random_input<T>(rng);
  }
}

template <class OpT, class T>
T constant_input() {
  if constexpr (detail::has_constant_input<OpT, T>::value) {
    return OpT::template constant_input<T>();
  } else {
    return T(1);
  }
}

template <class OpT, class T>
constexpr bool has_adversarial_input_v = detail::has_adversarial_input<OpT, T>::value;

/// How many adversarial scenarios the functor defines for T (the seed picks one: seed % count).
template <class OpT, class T>
constexpr unsigned adversarial_scenarios() {
  if constexpr (detail::has_adversarial_scenarios<OpT, T>::value) {
    return OpT::template adversarial_scenarios<T>();
  } else {
    return 1;
  }
}

/// A plain host array (std::vector<bool> has no data(), and inputs must be contiguous values of T).
template <class T>
class host_array {
 public:
  explicit host_array(std::size_t n) : data_(new T[n > 0 ? n : 1]), size_(n) {}
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }

 private:
  std::unique_ptr<T[]> data_;
  std::size_t size_;
};

/// One in this many elements of a `nan` input (besides the first and the last) is a NaN.
inline constexpr unsigned nan_input_spacing = 64;

/// Whether input_kind::nan applies to T: only floating-point values have a NaN.
template <class T>
inline constexpr bool has_nan_input_v = std::is_floating_point_v<T>;

/// Why input_kind::nan does not apply to T ("no NaN in int32 values ..."); empty where it does.
template <class T>
std::string nan_input_refusal() {
  if constexpr (has_nan_input_v<T>) {
    return {};
  } else {
    return std::string("no NaN in ") + value_name_v<T> + " values (input kind nan needs a floating-point type)";
  }
}

/// n values of the given kind, reproducible from the seed. Adversarial inputs come from the functor
/// (`adversarial_input<T>(scenario, rng, index, n)`); a functor without them gets random inputs. A `nan`
/// input is the functor's random values with the canonical quiet NaN at the first and the last position and
/// at about 1 in nan_input_spacing others; for a T without NaN it throws std::invalid_argument (see
/// nan_input_refusal) rather than hand back data that holds no NaN.
template <class OpT, class T>
host_array<T> make_inputs(input_kind kind, std::size_t n, std::uint64_t seed) {
  host_array<T> v(n);
  input_rng rng(seed);
  if (kind == input_kind::nan) {
    if constexpr (has_nan_input_v<T>) {
      for (std::size_t i = 0; i < n; ++i) {
        const T x = random_input<OpT, T>(rng, i);
        const bool nan_here = i == 0 || i + 1 == n || rng() % nan_input_spacing == 0;
        v[i] = nan_here ? std::numeric_limits<T>::quiet_NaN() : x;
      }
    } else {
      throw std::invalid_argument(nan_input_refusal<T>());
    }
  } else if (kind == input_kind::constant) {
    const T c = constant_input<OpT, T>();
    for (std::size_t i = 0; i < n; ++i) v[i] = c;
  } else if (kind == input_kind::last_only) {
    const T e = identity_of<OpT, T>();
    for (std::size_t i = 0; i < n; ++i) v[i] = e;
    if (n > 0) v[n - 1] = constant_input<OpT, T>();
  } else if (kind == input_kind::adversarial && has_adversarial_input_v<OpT, T>) {
    if constexpr (has_adversarial_input_v<OpT, T>) {
      const unsigned scenario = static_cast<unsigned>(seed % adversarial_scenarios<OpT, T>());
      for (std::size_t i = 0; i < n; ++i) v[i] = OpT::template adversarial_input<T>(scenario, rng, i, n);
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) v[i] = random_input<OpT, T>(rng, i);
  }
  return v;
}

}  // namespace reducelab
