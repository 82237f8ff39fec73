// Compiled by the CTest case readme.worked_example_compiles against the functor header that
// extract_and_compile.cmake cuts out of README.md ("Worked example: add your own"): the README's example must
// keep meeting the functor contract - identity, commutativity, input domain, error bound - and instantiate a
// GPU variant. It is compiled, not run: no GPU is needed.
#include "functors/sum_of_squares_merge.cuh"
#include "lab/host/monoid_laws.hpp"
#include "lab/host/reference.hpp"
#include "lab/variants/run_variant.cuh"
#include "lab/variants/grid_stride_shuffle.cuh"

using op = reducelab::functors::sum_of_squares_merge;
static_assert(reducelab::is_commutative_v<op>, "the README declares it commutative");
static_assert(!reducelab::is_exact_v<op, float>, "it rounds, so it is judged against its stated bound");

template <class T>
bool exercise(const T* d_in, std::size_t n, T* d_out, void* ws, std::size_t bytes) {
  const auto x = reducelab::make_inputs<op, T>(reducelab::input_kind::random, 100, 1);
  const bool judged = reducelab::judge<op, T>(x.data(), x.size(), reducelab::reduce_in_order<op, T>(x.data(), 100)).ok;
  const bool laws = reducelab::check_monoid_laws<op, T>(1, 16).ok();
  reducelab::run_variant<reducelab::variants::grid_stride_shuffle>(d_in, n, d_out, ws, bytes, op{});
  return judged && laws && reducelab::identity_of<op, T>() == T(0);
}

template bool exercise<float>(const float*, std::size_t, float*, void*, std::size_t);
template bool exercise<double>(const double*, std::size_t, double*, void*, std::size_t);
