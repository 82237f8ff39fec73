// What the framework needs to know about a value type besides the functor: its name, how to print it, how to
// compare two values. Built-in arithmetic types are covered here; a struct value type supplies
//   static constexpr const char* type_name;     the name used on the command line and in reports
//   std::string to_string() const;              for tables and failure messages
//   bool operator==(const T&) const;            exact equality, used for exact functors
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

namespace reducelab {

template <class T, class Enable = void>
struct value_name {
  static_assert(sizeof(T) == 0,
                "reducelab: unknown value type. Give the struct a `static constexpr const char* type_name` member.");
};
template <class T>
struct value_name<T, std::void_t<decltype(T::type_name)>> {
  static constexpr const char* value = T::type_name;
};
template <> struct value_name<bool> { static constexpr const char* value = "bool"; };
template <> struct value_name<std::uint8_t> { static constexpr const char* value = "uint8"; };
template <> struct value_name<std::int32_t> { static constexpr const char* value = "int32"; };
template <> struct value_name<std::uint32_t> { static constexpr const char* value = "uint32"; };
template <> struct value_name<std::int64_t> { static constexpr const char* value = "int64"; };
template <> struct value_name<std::uint64_t> { static constexpr const char* value = "uint64"; };
template <> struct value_name<float> { static constexpr const char* value = "float"; };
template <> struct value_name<double> { static constexpr const char* value = "double"; };

template <class T>
inline constexpr const char* value_name_v = value_name<T>::value;

/// Print a value so that two different values never print the same (floats with round-trip precision, -0 kept).
template <class T>
std::string value_to_string(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_floating_point_v<T>) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", std::is_same_v<T, float> ? 9 : 17, static_cast<double>(v));
    return buf;
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(+v);  // unary + prints uint8 as a number
  } else {
    return v.to_string();
  }
}

/// Equality as a user reads a result: == for numbers (so -0.0 equals +0.0), NaN equals NaN.
template <class T>
bool values_equal(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    return a == b || (std::isnan(a) && std::isnan(b));
  } else {
    return a == b;
  }
}

/// Bitwise identity for floats (distinguishes -0.0 from +0.0), == otherwise. Used for identity laws.
template <class T>
bool values_identical(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  } else {
    return a == b;
  }
}

}  // namespace reducelab
