// The one place where a (functor, value type) pair meets every backend: instantiated by the generated
// registration units, so the templates behind the CLI, the tests and the comparisons compile once.
#pragma once

#include "comparisons/baselines.cuh"
#include "comparisons/cpu_baseline.hpp"
#include "comparisons/library_backends.cuh"
#include "lab/core/device_buffer.hpp"
#include "reducelab/core/type_list.hpp"
#include "lab/core/value_traits.hpp"
#include "lab/host/monoid_laws.hpp"
#include "lab/host/reference.hpp"
#include "lab/variants/run_variant.cuh"
#include "lab/registry/registry.hpp"
#include "lab/variants/all_variants.cuh"

#include <thrust/device_vector.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace reducelab {

namespace detail {

template <class... Ts, class... Us>
type_list<Ts..., Us...> concat(type_list<Ts...>, type_list<Us...>);

// The ladder, then the library's entry (the ladder's last step, as the report shows it), then the baselines.
using all_backends = decltype(concat(all_variants{},
                                     type_list<baselines::library_reduce, baselines::library_reduce_host,
                                               baselines::thrust_reduce, baselines::cub_reduce,
                                               baselines::cub_builtin_reduce, baselines::thrust_scan_last,
                                               baselines::thrust_scan_last_host, baselines::cub_scan_last>{}));

template <class B, class = void>
struct family_of {
  static constexpr backend_family value = backend_family::custom;
};
template <class B>
struct family_of<B, std::void_t<decltype(B::library)>> {
  static constexpr backend_family value = B::library == baselines::family::thrust      ? backend_family::thrust
                                          : B::library == baselines::family::reducelab ? backend_family::library
                                                                                        : backend_family::cub;
};

template <class B, class OpT, class T, class = void>
struct has_combine_depth : std::false_type {};
template <class B, class OpT, class T>
struct has_combine_depth<B, OpT, T, std::void_t<decltype(B::template combine_depth<OpT, T>(std::size_t{}))>>
    : std::true_type {};

template <class B, class OpT, class T, class = void>
struct has_call : std::false_type {};
template <class B, class OpT, class T>
struct has_call<B, OpT, T,
                std::void_t<decltype(B::template call<OpT, T>(std::declval<const T*>(), std::size_t{}, OpT{},
                                                               cudaStream_t{}))>> : std::true_type {};

template <class B, class OpT, class T, class = void>
struct has_warp_path : std::false_type {};
template <class B, class OpT, class T>
struct has_warp_path<B, OpT, T, std::void_t<decltype(B::template warp_path<OpT, T>())>> : std::true_type {};

template <class T>
struct prepared_data final : prepared_case {
  std::unique_ptr<host_array<T>> host;  // the same values on the host, for the CPU baseline
  T host_result{};                      // where the CPU baseline writes, so its work is kept
  thrust::device_vector<T> data;
  device_buffer out;
  std::vector<device_buffer> workspaces;
};

template <class T>
bool bitwise_equal(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace detail

template <class OpT, class T>
class value_case_impl final : public value_case {
 public:
  std::string type_name() const override { return value_name_v<T>; }
  std::size_t value_bytes() const override { return sizeof(T); }
  std::string identity() const override { return value_to_string(identity_of<OpT, T>()); }
  bool exact() const override { return is_exact_v<OpT, T>; }
  unsigned adversarial_scenarios() const override { return reducelab::adversarial_scenarios<OpT, T>(); }

  law_report check_laws(std::uint64_t seed, std::size_t samples) const override {
    return check_monoid_laws<OpT, T>(seed, samples);
  }

  std::vector<backend_descriptor> backends() const override {
    std::vector<backend_descriptor> out;
    for_each_type(detail::all_backends{}, [&](auto tag) { out.push_back(describe<typename decltype(tag)::type>()); });
    return out;
  }

  std::unique_ptr<prepared_case> prepare_for_timing(std::size_t n, std::uint64_t seed,
                                                    const std::vector<std::string>& wanted,
                                                    cudaStream_t stream) const override {
    auto p = std::make_unique<detail::prepared_data<T>>();
    p->host = std::make_unique<host_array<T>>(make_inputs<OpT, T>(input_kind::random, n, seed));
    const reference_scope one_reference;  // every backend is judged on this one input: one exact reference
    const host_array<T>& host = *p->host;
    p->data = thrust::device_vector<T>(host.begin(), host.end());
    p->out = device_buffer(sizeof(T));
    p->n = n;
    p->bytes_read = n * sizeof(T);
    const T* in = thrust::raw_pointer_cast(p->data.data());
    T* out = static_cast<T*>(p->out.data());
    check_request req;
    req.n = n;
    std::optional<T> exact_reference;
    auto reference = [&]() -> const T* {
      if constexpr (!is_exact_v<OpT, T>) {
        return nullptr;
      } else {
        if (!exact_reference) exact_reference = reduce_in_order<OpT, T>(host.data(), n);
        return &*exact_reference;
      }
    };
    for_each_type(detail::all_backends{}, [&](auto tag) {
      using B = typename decltype(tag)::type;
      if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), B::name) == wanted.end()) return;
      timing_target t;
      t.backend = describe<B>();
      if constexpr (detail::family_of<B>::value == backend_family::library) {
        const auto [values, table] = reduce_policy<T>();
        t.backend.has_policy = true;
        t.backend.policy = values;
        t.backend.policy_table = table;
      }
      t.validation.backend = B::name;
      constexpr const char* why = refusal_reason<B, OpT, T>();
      if constexpr (why != nullptr) {
        t.validation.status = check_status::refused;
        t.validation.message = why;
      } else {
        try {
          t.validation = run_and_judge<B>(in, host.data(), req, out, stream, reference());
          if constexpr (detail::has_combine_depth<B, OpT, T>::value) t.combine_depth = B::template combine_depth<OpT, T>(n);
          if (t.validation.status == check_status::pass) {
            const std::size_t bytes = variant_workspace_bytes<B, OpT, T>(n);
            p->workspaces.emplace_back(bytes);
            void* ws = p->workspaces.back().data();
            t.backend.host_synchronous = B::traits.synchronizes_host;
            if constexpr (detail::has_call<B, OpT, T>::value) {
              // Thrust returns the value to the host itself: time exactly the library call.
              t.enqueue = [in, n](cudaStream_t s) { B::template call<OpT, T>(in, n, OpT{}, s); };
            } else {
              t.enqueue = [in, n, out, ws, bytes](cudaStream_t s) { run_variant<B>(in, n, out, ws, bytes, OpT{}, s); };
            }
          }
        } catch (const std::exception& e) {
          t.validation.status = check_status::error;
          t.validation.message = e.what();
        }
      }
      p->targets.push_back(std::move(t));
    });
    if (wanted.empty() || std::find(wanted.begin(), wanted.end(), baselines::cpu_parallel_reduce::name) != wanted.end())
      p->targets.push_back(cpu_target(*p, reference()));
    return p;
  }

  std::vector<check_row> check_on_gpu(const check_request& r) const override {
    if (r.kind == input_kind::nan && !has_nan_input_v<T>) return refuse_nan_input(r);
    const host_array<T> host = make_inputs<OpT, T>(r.kind, r.n + r.offset, r.seed);
    const reference_scope one_reference;  // every backend is judged on this one input: one exact reference
    const thrust::device_vector<T> data(host.begin(), host.end());
    const T* in = thrust::raw_pointer_cast(data.data()) + r.offset;
    const T* host_in = host.data() + r.offset;
    device_buffer out(sizeof(T));
    stream_owner stream;
    std::vector<check_row> rows;
    // Exact pairs are judged against one in-order reference, computed once for all backends.
    std::optional<T> exact_reference;
    auto reference = [&]() -> const T* {
      if constexpr (!is_exact_v<OpT, T>) {
        return nullptr;
      } else {
        if (!exact_reference) exact_reference = reduce_in_order<OpT, T>(host_in, r.n);
        return &*exact_reference;
      }
    };
    for_each_type(detail::all_backends{}, [&](auto tag) {
      using B = typename decltype(tag)::type;
      if (!r.backends.empty() && std::find(r.backends.begin(), r.backends.end(), B::name) == r.backends.end()) return;
      check_row row;
      row.backend = B::name;
      constexpr const char* why = refusal_reason<B, OpT, T>();
      if constexpr (why != nullptr) {
        row.status = check_status::refused;
        row.message = why;
      } else {
        try {
          row = run_and_judge<B>(in, host_in, r, static_cast<T*>(out.data()), stream.get(), reference());
        } catch (const std::exception& e) {
          row.status = check_status::error;
          row.message = e.what();
        }
      }
      rows.push_back(std::move(row));
    });
    return rows;
  }

 private:
  /// The multi-threaded host reduction of the same data, validated like every backend.
  static timing_target cpu_target(detail::prepared_data<T>& p, const T* exact_reference) {
    using cpu = baselines::cpu_parallel_reduce;
    timing_target t;
    t.backend.name = cpu::name;
    t.backend.summary = cpu::summary;
    t.backend.family = backend_family::cpu;
    t.backend.preserves_order = true;
    t.backend.host_synchronous = true;
    t.threads = cpu::threads();
    t.validation.backend = cpu::name;
    const T* x = p.host->data();
    const std::size_t n = p.n;
    const T got = cpu::reduce(x, n, OpT{});
    t.combine_depth = cpu::combine_depth(n);
    if (exact_reference != nullptr) {
      t.validation.result.got = value_to_string(got);
      t.validation.result.want = value_to_string(*exact_reference);
      t.validation.result.ok = values_equal(got, *exact_reference);
    } else {
      t.validation.result = judge<OpT, T>(x, n, got, t.combine_depth);
    }
    t.validation.status = t.validation.result.ok ? check_status::pass : check_status::fail;
    if (!t.validation.result.ok) t.validation.message = "got " + t.validation.result.got + ", want " + t.validation.result.want;
    T* sink = &p.host_result;
    if (t.validation.status == check_status::pass) t.enqueue = [x, n, sink](cudaStream_t) { *sink = cpu::reduce(x, n, OpT{}); };
    return t;
  }

  template <class B>
  static backend_descriptor describe() {
    backend_descriptor d;
    d.name = B::name;
    d.summary = B::summary;
    d.family = detail::family_of<B>::value;
    d.ladder_step = B::traits.ladder_step;
    constexpr const char* why = refusal_reason<B, OpT, T>();
    if constexpr (why != nullptr) d.refusal = why;
    d.preserves_order = B::traits.preserves_order;
    d.deterministic = B::traits.deterministic;
    d.host_synchronous = B::traits.synchronizes_host;
    if constexpr (detail::has_warp_path<B, OpT, T>::value) d.path = B::template warp_path<OpT, T>();
    return d;
  }

  /// T has no NaN (int32, a struct...): an input of kind nan is refused for every requested backend, never
  /// run on data that holds no NaN.
  static std::vector<check_row> refuse_nan_input(const check_request& r) {
    std::vector<check_row> rows;
    for_each_type(detail::all_backends{}, [&](auto tag) {
      using B = typename decltype(tag)::type;
      if (!r.backends.empty() && std::find(r.backends.begin(), r.backends.end(), B::name) == r.backends.end()) return;
      check_row row;
      row.backend = B::name;
      row.status = check_status::refused;
      row.message = nan_input_refusal<T>();
      rows.push_back(std::move(row));
    });
    return rows;
  }

  /// Whether this request's result is outside OpT's domain: a NaN input to a functor that leaves NaN results
  /// undefined (maximum, minimum over floating point). Such a result is shown (check_status::undefined), not
  /// judged. Only `nan` inputs are scanned; the other kinds of these functors hold no NaN.
  static bool result_undefined(const T* host_in, const check_request& r) {
    if constexpr (is_nan_undefined_v<OpT> && std::is_floating_point_v<T>) {
      return r.kind == input_kind::nan &&
             std::any_of(host_in, host_in + r.n, [](const T& x) { return std::isnan(x); });
    } else {
      return false;
    }
  }

  template <class B>
  static check_row run_and_judge(const T* in, const T* host_in, const check_request& r, T* out, cudaStream_t stream,
                                 const T* exact_reference) {
    check_row row;
    row.backend = B::name;
    const bool undefined = result_undefined(host_in, r);
    const std::size_t bytes = variant_workspace_bytes<B, OpT, T>(r.n);
    device_buffer workspace(bytes);
    std::size_t depth = std::numeric_limits<std::size_t>::max();
    if constexpr (detail::has_combine_depth<B, OpT, T>::value) {
      if (r.n > 0) depth = B::template combine_depth<OpT, T>(r.n);
    }
    T first{};
    for (int rep = 0; rep < std::max(1, r.repeats); ++rep) {
      CUDA_TRY(cudaMemsetAsync(out, 0xA5, sizeof(T), stream));  // poison: an unwritten result cannot pass
      run_variant<B>(in, r.n, out, workspace.data(), bytes, OpT{}, stream);
      T got;
      CUDA_TRY(cudaMemcpyAsync(&got, out, sizeof(T), cudaMemcpyDeviceToHost, stream));
      CUDA_TRY(cudaStreamSynchronize(stream));
      if (rep == 0 && undefined) {
        // Recorded as returned; no want, no repeat: backends may differ here, and none of them is wrong.
        row.status = check_status::undefined;
        row.result.got = value_to_string(got);
        row.message = "NaN in the input, where this functor's result is undefined: shown, not judged";
        break;
      }
      if (rep == 0) {
        first = got;
        if (exact_reference != nullptr) {
          row.result.got = value_to_string(got);
          row.result.want = value_to_string(*exact_reference);
          row.result.ok = values_equal(got, *exact_reference);
        } else {
          row.result = judge<OpT, T>(host_in, r.n, got, depth);
        }
        row.status = row.result.ok ? check_status::pass : check_status::fail;
        if (!row.result.ok) row.message = "got " + row.result.got + ", want " + row.result.want;
      } else if (B::traits.deterministic && !detail::bitwise_equal(first, got)) {
        row.status = check_status::fail;
        row.message = "not deterministic: run 1 gave " + value_to_string(first) + ", run " +
                      std::to_string(rep + 1) + " gave " + value_to_string(got);
        break;
      }
    }
    return row;
  }
};

namespace detail {
template <class OpT, int Slot, int Slots, class... Ts, std::size_t... Is>
void register_slot(registry& reg, const char* name, type_list<Ts...>, std::index_sequence<Is...>) {
  auto add_one = [&](auto tag, auto index) {
    using T = typename decltype(tag)::type;
    if constexpr (decltype(index)::value % Slots == Slot) {  // only this slot's types are instantiated here
      auto c = std::make_unique<value_case_impl<OpT, T>>();
      c->type_index = decltype(index)::value;
      reg.add(name, std::move(c));
    }
  };
  (add_one(type_tag<Ts>{}, std::integral_constant<std::size_t, Is>{}), ...);
}
}  // namespace detail

/// Register the value types of OpT whose index in OpT::value_types is congruent to Slot modulo Slots.
/// The build splits each functor over Slots translation units so a 2-core build stays reasonable.
template <class OpT, int Slot, int Slots>
void register_functor(registry& reg, const char* name) {
  reg.functor(name, OpT::summary, is_commutative_v<OpT>);
  using types = typename OpT::value_types;
  detail::register_slot<OpT, Slot, Slots>(reg, name, types{}, std::make_index_sequence<types::size>{});
}

}  // namespace reducelab
