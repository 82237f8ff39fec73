// The monoid law checker: on random samples of a functor's own input domain, check
//   e op a == a and a op e == a              (bitwise: the identity must not even flip the sign of a zero)
//   (a op b) op c == a op (b op c)          (exact types: ==; rounding types: both within the stated bound)
//   a op b == b op a                         (only where commutativity is declared)
#pragma once

#include "reducelab/core/traits.hpp"
#include "lab/core/value_traits.hpp"
#include "lab/host/inputs.hpp"
#include "lab/host/law_report.hpp"
#include "lab/host/reference.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace reducelab {

template <class OpT, class T>
law_report check_monoid_laws(std::uint64_t seed, std::size_t samples, OpT op = {}) {
  law_report r;
  r.samples = samples;
  input_rng rng(seed);
  const T e = identity_of<OpT, T>();
  auto fail = [&](const std::string& law, const std::string& detail) {
    if (r.failures.size() < 10) r.failures.push_back(law + ": " + detail);
  };
  for (std::size_t s = 0; s < samples; ++s) {
    const T abc[3] = {random_input<OpT, T>(rng, 3 * s), random_input<OpT, T>(rng, 3 * s + 1),
                      random_input<OpT, T>(rng, 3 * s + 2)};
    const T &a = abc[0], &b = abc[1], &c = abc[2];
    if (!values_identical(op(e, a), a)) fail("left identity", "e op a = " + value_to_string(op(e, a)) + ", a = " + value_to_string(a));
    if (!values_identical(op(a, e), a)) fail("right identity", "a op e = " + value_to_string(op(a, e)) + ", a = " + value_to_string(a));
    const T left = op(op(a, b), c);
    const T right = op(a, op(b, c));
    if constexpr (is_exact_v<OpT, T>) {
      if (!values_equal(left, right))
        fail("associativity", "(a op b) op c = " + value_to_string(left) + ", a op (b op c) = " + value_to_string(right));
    } else {
      const verdict vl = judge<OpT, T>(abc, 3, left, 2);
      const verdict vr = judge<OpT, T>(abc, 3, right, 2);
      if (!vl.ok || !vr.ok)
        fail("associativity", "(a op b) op c = " + vl.got + ", a op (b op c) = " + vr.got + ", exact " + vl.want +
                                  ", bound " + std::to_string(vl.bound));
    }
    if constexpr (is_commutative_v<OpT>) {
      const T ab = op(a, b), ba = op(b, a);
      if constexpr (is_exact_v<OpT, T>) {
        if (!values_equal(ab, ba)) fail("commutativity", "a op b = " + value_to_string(ab) + ", b op a = " + value_to_string(ba));
      } else {
        const verdict v1 = judge<OpT, T>(abc, 2, ab, 1);
        const verdict v2 = judge<OpT, T>(abc, 2, ba, 1);
        if (!v1.ok || !v2.ok) fail("commutativity", "a op b = " + v1.got + ", b op a = " + v2.got);
      }
    }
  }
  return r;
}

}  // namespace reducelab
