// open<OpT, T>: the template behind every cases_*.cu. It uploads one input (the functor's random values, and for
// reduce_by_key keys_from_layout's keys) and wraps every backend that can serve (OpT, T) as a backend_run; those
// that cannot are listed with the reason. Offsets are the layout's own int64 array, passed CSR-style
// (offsets, offsets + 1), which is also the library entry's fast path.
//
// Combine depth for judging: judge_segments' default, which judge() clamps to each segment's length - 1, the
// deepest tree any backend can build (a left-to-right fold). Generous for tree-shaped backends, so a rounding
// functor's bound is the loosest it can honestly be; exact functors are compared bit for bit regardless.
#pragma once

#include "comparisons/segmented/bytes_moved.hpp"
#include "comparisons/segmented/cases.hpp"
#include "comparisons/segmented/input_cache.hpp"
#include "comparisons/segmented_baselines.cuh"
#include "lab/core/device_buffer.hpp"
#include "lab/core/value_traits.hpp"
#include "lab/host/inputs.hpp"
#include "lab/segmented/host/reference.hpp"
#include "lab/segmented/variants/all_segmented_variants.cuh"
#include "reducelab/core/type_list.hpp"
#include "reducelab/segmented_reduce.cuh"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

namespace reducelab::segmented::tool::detail {

using offset_t = std::int64_t;
using key_t = std::int32_t;  // keys_from_layout's

template <class T>
std::vector<T> copy_back(const device_buffer& b, std::size_t count) {
  std::vector<T> v(count);
  if (count) CUDA_TRY(cudaMemcpy(v.data(), b.data(), count * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

inline device_buffer upload(const void* p, std::size_t bytes) {
  device_buffer b(bytes);
  copy_to_device(b.data(), p, bytes);
  return b;
}

/// Bit patterns no backend writes by accident, so a result left unwritten fails instead of passing on stale data.
inline void poison(const device_buffer& b, cudaStream_t stream) {
  if (b.size()) CUDA_TRY(cudaMemsetAsync(b.data(), 0xA5, b.size(), stream));
}

template <class OpT, class T>
judged verdict_of(const segment_verdict& v, const std::vector<offset_t>& offsets, const char* what) {
  if (v.ok) return {};
  std::string m = std::string(what) + " " + std::to_string(v.segment);
  if (v.segment + 1 < offsets.size())
    m += " [" + std::to_string(offsets[v.segment]) + ", " + std::to_string(offsets[v.segment + 1]) + ")";
  m += ": got " + v.detail.got + ", want " + v.detail.want;
  if (v.detail.bounded) m += " (|error| " + std::to_string(v.detail.error) + " > bound " + std::to_string(v.detail.bound) + ")";
  if (!v.detail.note.empty()) m += " (" + v.detail.note + ")";
  return {false, m};
}

/// CUB's Sum/Max/Min start every segment from their own initial value (T{}, lowest(), max()), not the functor's
/// identity: for floats an empty segment then differs (+0.0 for -0.0, lowest() for -inf). That is CUB's documented
/// contract, not a wrong answer, so an empty segment holding exactly that value is judged as the identity.
template <class OpT, class T>
void accept_cub_builtin_empty(std::vector<T>& got, const std::vector<offset_t>& offsets) {
  if constexpr (std::is_arithmetic_v<T>) {
    constexpr builtin_op k = builtin_kind_v<OpT>;
    const T init = k == builtin_op::plus      ? T{}
                   : k == builtin_op::maximum ? std::numeric_limits<T>::lowest()
                                              : std::numeric_limits<T>::max();
    for (std::size_t i = 0; i < got.size(); ++i)
      if (offsets[i + 1] == offsets[i] && std::memcmp(&got[i], &init, sizeof(T)) == 0) got[i] = identity_of<OpT, T>();
  }
}

template <class OpT, class T>
struct segmented_buffers {
  std::shared_ptr<const host_array<T>> x;  // case_values(): the same array for every layout of a size
  std::vector<offset_t> offsets;
  device_buffer in, d_offsets, out;
  std::vector<std::shared_ptr<device_buffer>> workspaces;
};

template <class OpT, class T>
case_session open_segmented(const segment_layout& layout, std::uint64_t seed) {
  const std::size_t n = layout.size(), segments = layout.num_segments();
  auto b = std::make_shared<segmented_buffers<OpT, T>>(
      segmented_buffers<OpT, T>{case_values().values<OpT, T>(n, seed), layout.offsets, {}, {}, {}, {}});
  b->in = upload(b->x->data(), n * sizeof(T));
  b->d_offsets = upload(b->offsets.data(), b->offsets.size() * sizeof(offset_t));
  b->out = device_buffer(segments * sizeof(T));
  auto* raw = b.get();
  const auto in = [raw] { return static_cast<const T*>(raw->in.data()); };
  const auto off = [raw] { return static_cast<const offset_t*>(raw->d_offsets.data()); };
  const auto out = [raw] { return static_cast<T*>(raw->out.data()); };

  case_session s;
  s.n = n;
  s.segments = segments;
  s.bytes_moved = segmented_bytes_moved(n, segments, sizeof(T), sizeof(offset_t));
  const auto add = [&](std::string name, std::string family, std::function<void(cudaStream_t)> run,
                       bool accept_builtin_empty = false) {
    backend_run r{std::move(name), std::move(family), "", false, false, run, {}};
    r.validate = [raw, run, segments, accept_builtin_empty](cudaStream_t stream) {
      poison(raw->out, stream);
      run(stream);
      CUDA_TRY(cudaStreamSynchronize(stream));
      std::vector<T> got = copy_back<T>(raw->out, segments);
      if (accept_builtin_empty) accept_cub_builtin_empty<OpT, T>(got, raw->offsets);
      return verdict_of<OpT, T>(judge_segments<OpT, T, offset_t>(raw->x->data(), raw->offsets.data(), segments, got),
                                raw->offsets, "segment");
    };
    s.backends.push_back(std::move(r));
  };
  const auto refuse = [&](std::string name, std::string family, std::string why) {
    s.backends.push_back({std::move(name), std::move(family), std::move(why), false, false, {}, {}});
  };

  for_each_type(all_segmented_variants{}, [&](auto tag) {
    using V = typename decltype(tag)::type;
    if constexpr (V::traits.needs_commutative && !is_commutative_v<OpT>) {
      refuse(V::name, "variant", "needs a commutative functor");
    } else {
      add(V::name, "variant", [in, off, out, segments](cudaStream_t st) {
        V::template run<OpT, T, offset_t>(in(), off(), off() + 1, segments, out(), OpT{}, st);
      });
    }
  });
  add("reducelab::segmented_reduce", "library", [in, off, out, segments](cudaStream_t st) {
    reducelab::segmented_reduce(in(), off(), off() + 1, segments, out(), OpT{}, st);
  });

  namespace bl = baselines::segmented;
  const auto with_workspace = [&](auto baseline, std::size_t bytes, bool builtin) {
    using B = decltype(baseline);
    // At least one byte: CUB takes a null workspace for a size query and would then compute nothing.
    auto ws = std::make_shared<device_buffer>(std::max<std::size_t>(bytes, 1));
    raw->workspaces.push_back(ws);
    void* w = ws->data();
    add(B::name, "cub", [in, off, out, segments, w, bytes](cudaStream_t st) {
      B::template run<OpT, T, offset_t>(in(), off(), off() + 1, segments, out(), w, bytes, OpT{}, st);
    }, builtin);
  };
  if constexpr (is_commutative_v<OpT>) {
    with_workspace(bl::cub_segmented_reduce{}, bl::cub_segmented_reduce::workspace_bytes<OpT, T, offset_t>(n, segments),
                   false);
    s.backends.back().reference = true;
  } else {
    refuse(bl::cub_segmented_reduce::name, "cub", "cub::DeviceSegmentedReduce does not support non-commutative operators");
  }
  constexpr const char* builtin_refusal = bl::cub_segmented_builtin::extra_refusal<OpT, T>();
  if constexpr (builtin_refusal == nullptr) {
    with_workspace(bl::cub_segmented_builtin{},
                   bl::cub_segmented_builtin::workspace_bytes<OpT, T, offset_t>(n, segments), true);
  } else {
    refuse(bl::cub_segmented_builtin::name, "cub", builtin_refusal);
  }
  s.buffers = b;
  return s;
}

template <class OpT, class T>
struct by_key_buffers {
  std::shared_ptr<const host_array<T>> x;  // case_values(): the same array for every layout of a size
  std::vector<key_t> keys;
  std::vector<offset_t> runs;  // run i is [runs[i], runs[i+1]): the layout's non-empty segments
  device_buffer d_keys, in, unique_out, values_out, num_runs;
  std::vector<std::shared_ptr<device_buffer>> workspaces;
};

template <class OpT, class T>
case_session open_by_key(const segment_layout& layout, std::uint64_t seed) {
  const std::size_t n = layout.size();
  auto b = std::make_shared<by_key_buffers<OpT, T>>(by_key_buffers<OpT, T>{
      case_values().values<OpT, T>(n, seed), keys_from_layout(layout), {0}, {}, {}, {}, {}, {}, {}});
  for (std::size_t i = 0; i < layout.num_segments(); ++i)
    if (layout.offsets[i + 1] > layout.offsets[i]) b->runs.push_back(layout.offsets[i + 1]);
  const std::size_t runs = b->runs.size() - 1;
  b->d_keys = upload(b->keys.data(), n * sizeof(key_t));
  b->in = upload(b->x->data(), n * sizeof(T));
  b->unique_out = device_buffer(n * sizeof(key_t));
  b->values_out = device_buffer(n * sizeof(T));
  b->num_runs = device_buffer(sizeof(std::int64_t));
  auto* raw = b.get();
  const auto keys = [raw] { return static_cast<const key_t*>(raw->d_keys.data()); };
  const auto in = [raw] { return static_cast<const T*>(raw->in.data()); };
  const auto uk = [raw] { return static_cast<key_t*>(raw->unique_out.data()); };
  const auto vo = [raw] { return static_cast<T*>(raw->values_out.data()); };
  const auto nr = [raw] { return static_cast<std::int64_t*>(raw->num_runs.data()); };

  case_session s;
  s.n = n;
  s.segments = runs;
  s.bytes_moved = by_key_bytes_moved(n, runs, sizeof(key_t), sizeof(T));
  const auto add = [&](std::string name, std::string family, bool host_sync, std::function<void(cudaStream_t)> run) {
    backend_run r{std::move(name), std::move(family), "", host_sync, false, run, {}};
    r.validate = [raw, run, runs, n](cudaStream_t stream) -> judged {
      poison(raw->unique_out, stream);
      poison(raw->values_out, stream);
      poison(raw->num_runs, stream);
      run(stream);
      CUDA_TRY(cudaStreamSynchronize(stream));
      const std::int64_t got_runs = copy_back<std::int64_t>(raw->num_runs, 1)[0];
      if (got_runs != static_cast<std::int64_t>(runs))
        return {false, "num_runs_out " + std::to_string(got_runs) + ", want " + std::to_string(runs)};
      const std::vector<key_t> got_keys = copy_back<key_t>(raw->unique_out, runs);
      for (std::size_t i = 0; i < runs; ++i)
        if (got_keys[i] != raw->keys[raw->runs[i]])
          return {false, "run " + std::to_string(i) + ": key " + std::to_string(got_keys[i]) + ", want " +
                             std::to_string(raw->keys[raw->runs[i]])};
      (void)n;
      return verdict_of<OpT, T>(judge_segments<OpT, T, offset_t>(raw->x->data(), raw->runs.data(), runs,
                                                                 copy_back<T>(raw->values_out, runs)),
                                raw->runs, "run");
    };
    s.backends.push_back(std::move(r));
  };

  add("reducelab::reduce_by_key", "library", false, [keys, in, uk, vo, nr, n](cudaStream_t st) {
    reducelab::reduce_by_key(keys(), in(), n, uk(), vo(), nr(), OpT{}, st);
  });
  for_each_type(all_reduce_by_key_variants{}, [&](auto tag) {
    using V = typename decltype(tag)::type;
    add(V::name, "variant", false, [keys, in, uk, vo, nr, n](cudaStream_t st) {
      V::template run<OpT, key_t, T>(keys(), in(), n, uk(), vo(), nr(), OpT{}, st);
    });
  });
  namespace bl = baselines::segmented;
  {
    const std::size_t bytes = bl::cub_reduce_by_key::workspace_bytes<OpT, key_t, T>(n);
    auto ws = std::make_shared<device_buffer>(std::max<std::size_t>(bytes, 1));  // never null, as above
    raw->workspaces.push_back(ws);
    void* w = ws->data();
    add(bl::cub_reduce_by_key::name, "cub", false, [keys, in, uk, vo, nr, n, w, bytes](cudaStream_t st) {
      bl::cub_reduce_by_key::run<OpT, key_t, T>(keys(), in(), n, uk(), vo(), nr(), w, bytes, OpT{}, st);
    });
    s.backends.back().reference = true;
  }
  // Host-synchronous (it returns the end of its outputs): the engine times it with the host clock.
  add(bl::thrust_reduce_by_key::name, "thrust", true, [keys, in, uk, vo, nr, n](cudaStream_t st) {
    bl::thrust_reduce_by_key::run<OpT, key_t, T>(keys(), in(), n, uk(), vo(), nr(), nullptr, 0, OpT{}, st);
  });
  s.buffers = b;
  return s;
}

/// Add (OpT, T) for every T in TypesT to `into`, under the functor's name.
template <class OpT, class... Ts>
void add_cases(std::vector<case_entry>& into, const char* functor, type_list<Ts...>) {
  (into.push_back({functor, value_name_v<Ts>, is_commutative_v<OpT>,
                   [](operation op, const segment_layout& layout, std::uint64_t seed) {
                     return op == operation::segmented_reduce ? open_segmented<OpT, Ts>(layout, seed)
                                                              : open_by_key<OpT, Ts>(layout, seed);
                   }}),
   ...);
}

}  // namespace reducelab::segmented::tool::detail
