// A minimal compile-time list of types, used for a functor's value types and for the variant list.
#pragma once

#include <cstddef>

namespace reducelab {

template <class... Ts>
struct type_list {
  static constexpr std::size_t size = sizeof...(Ts);
};

/// Call f(type_tag<T>{}) once per type in the list, in order.
template <class T>
struct type_tag {
  using type = T;
};

template <class... Ts, class F>
void for_each_type(type_list<Ts...>, F&& f) {
  (f(type_tag<Ts>{}), ...);
}

/// Like for_each_type but also passes the index of the type in the list.
template <class... Ts, class F>
void for_each_type_indexed(type_list<Ts...>, F&& f) {
  std::size_t i = 0;
  (f(type_tag<Ts>{}, i++), ...);
}

}  // namespace reducelab
