// The kinds of input the checks and tests draw (pure C++, shared by the CLI and the templates).
#pragma once

namespace reducelab {

/// random: the functor's domain; constant: one non-identity value everywhere; adversarial: the functor's
/// hard cases (infinities, integer extremes, negative zeros, cancellation, NaN where defined), one scenario per
/// seed (seed % adversarial_scenarios); last_only: the identity everywhere but the last element, which is the
/// constant - a variant that drops or mis-indexes the tail (32-bit indices past 2^31) cannot pass; nan: random
/// floating-point values with quiet NaNs scattered among them (first and last element included), only for
/// floating-point value types.
enum class input_kind { random, constant, adversarial, last_only, nan };

/// Every kind, in the order `--inputs` lists them.
inline constexpr input_kind all_input_kinds[] = {input_kind::random, input_kind::constant, input_kind::adversarial,
                                                 input_kind::last_only, input_kind::nan};

inline const char* to_string(input_kind k) {
  switch (k) {
    case input_kind::random: return "random";
    case input_kind::constant: return "constant";
    case input_kind::adversarial: return "adversarial";
    case input_kind::last_only: return "last_only";
    case input_kind::nan: return "nan";
  }
  return "?";
}

}  // namespace reducelab
