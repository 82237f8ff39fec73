// reducelab::reduce — reduce [in, in + n) with a functor on the current GPU, choosing the launch itself.
//
//   #include <reducelab/reduce.cuh>
//   reducelab::reduce(d_in, n, d_out, op, stream);              // device result, stream-ordered
//   int total = reducelab::reduce(vec, op);                     // host result (thrust::device_vector)
//   auto pending = reducelab::reduce_async(d_in, n, op, stream);  // host result later: pending.get()
//
// OpT is a binary functor, passed by value, callable on the device, with an identity for T
// (reducelab::identity_element<OpT, T>, or a static member template `identity<T>()` in the functor; without one
// the build stops with a message that says so). It must be associative; it need not be commutative: a functor that
// does not declare itself commutative has its values combined in input order. One that does (a static constexpr
// bool commutative = true member, or reducelab::is_commutative) is combined in another fixed order: with more than
// one block the grid reads the input together (kernels/single_pass.cuh, a few % faster), and in one block each
// thread folds its own 16-byte vectors when they hold whole values (kernels/one_block.cuh, 1-, 2-, 4-, 8- and
// 16-byte T). Either way the result is bitwise the same on every run for the same input, device and n. T is any
// trivially copyable type.
//
// Errors: a null pointer, a pointer or stream of another device, host memory the GPU cannot read, n beyond
// what T's bytes can address, a workspace that is too small, or a host result asked of a stream being captured
// into a graph throw reducelab::usage_error naming the problem, before anything is launched. A failed CUDA call throws reducelab::cuda_error with file and line.
// An empty range gives the identity. Pointers need no particular alignment beyond T's own.
#pragma once

#include "reducelab/core/error.hpp"
#include "reducelab/core/traits.hpp"
#include "reducelab/detail/device_properties.hpp"
#include "reducelab/detail/dispatch.cuh"
#include "reducelab/detail/resources.hpp"
#include "reducelab/tuning/select.hpp"

#include <thrust/device_vector.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

namespace reducelab {

namespace detail {

template <class T, class OpT>
void check_functor() {
  static_assert(std::is_trivially_copyable_v<T>, "reducelab::reduce: the value type must be trivially copyable");
  (void)identity_of<OpT, T>();  // a functor without an identity for T stops the build here, with its message
}

/// The checks every entry makes before it launches anything. The host-result calls also refuse a stream that is
/// being captured into a graph: a capture only records the launch, so there would be no result to wait for.
template <class T>
device_properties check_arguments(const T* in, std::size_t n, cudaStream_t stream, bool host_result = false) {
  REDUCELAB_EXPECTS(n <= max_items<T>, "reducelab::reduce: n = " + std::to_string(n) + " values of " +
                                           std::to_string(sizeof(T)) +
                                           " bytes exceed the address space (a negative count converted to size_t?)");
  const device_properties dev = current_device_properties();
  const bool capturing = expect_stream_on_device(stream, dev.ordinal);
  REDUCELAB_EXPECTS(!(host_result && capturing),
                    "reducelab::reduce: a host result cannot be taken on a stream that is being captured into a graph "
                    "(the capture only records the launch); use the device-result form, reduce(in, n, out, op, stream)");
  if (n > 0) {
    REDUCELAB_EXPECTS(in != nullptr, "reducelab::reduce: input pointer is null with n = " + std::to_string(n));
    expect_on_device(in, dev.ordinal, "input pointer");
  }
  return dev;
}

template <class T, class FnT>
decltype(auto) with_device_policy(const device_properties& dev, FnT&& fn) {
  return tuning::with_policy<sizeof(T)>(tuning::table_for(dev.major, dev.minor), std::forward<FnT>(fn));
}

/// Launch into `out` (device memory or a mapped pinned slot) with the current device's policy, with the
/// stream's own workspace (detail/resources.hpp), or, while the stream is being captured into a graph, one the
/// graph allocates and owns (a graph outlives the call and may be launched on any stream).
template <class T, class OpT>
void launch_with_stream_workspace(const T* in, std::size_t n, T* out, OpT op, cudaStream_t stream,
                                  const device_properties& dev, result_signal signal = {}) {
  with_device_policy<T>(dev, [&](auto policy) {
    using P = decltype(policy);
    const std::size_t bytes = workspace_bytes_for<P, OpT, T>(n, dev);
    if (bytes == 0) {
      launch<P>(in, n, out, nullptr, op, stream, dev, signal);
      return;
    }
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    CUDA_TRY(cudaStreamIsCapturing(stream, &capture));
    if (capture == cudaStreamCaptureStatusNone) {
      launch<P>(in, n, out, stream_workspaces::of(dev.ordinal).reserve(stream, bytes), op, stream, dev, signal);
      return;
    }
    // Captured: cudaMallocAsync becomes an allocation node the graph owns (creating a pool here would be
    // refused: cudaMemPoolCreate is not permitted while a stream is capturing). Every replay of the graph
    // launches the kernel with the same epoch, so the words a replay reads must not still hold the previous
    // replay's partials: the captured memset clears them first.
    void* workspace = nullptr;
    CUDA_TRY(cudaMallocAsync(&workspace, bytes, stream));
    try {
      CUDA_TRY(cudaMemsetAsync(workspace, 0, bytes, stream));
      launch<P>(in, n, out, workspace, op, stream, dev, signal);
    } catch (...) {
      cudaFreeAsync(workspace, stream);
      throw;
    }
    CUDA_TRY(cudaFreeAsync(workspace, stream));
  });
}

}  // namespace detail

/// The policy reducelab::reduce uses for T on the current device, and the name of its table ("sm90", ...).
template <class T>
std::pair<tuning::policy_values, const char*> reduce_policy() {
  const detail::device_properties dev = detail::current_device_properties();
  const tuning::table t = tuning::table_for(dev.major, dev.minor);
  return {tuning::with_policy<sizeof(T)>(t, [](auto p) { return tuning::values_of<decltype(p)>(); }),
          tuning::table_name(t)};
}

/// Bytes of workspace reduce(in, n, out, workspace, bytes, op, stream) needs on the current device (0 when n
/// is small enough for the one-block path). The same for every pointer, so one allocation serves any input
/// of up to n values.
template <class T, class OpT>
std::size_t reduce_workspace_bytes(std::size_t n, OpT = {}) {
  detail::check_functor<T, OpT>();
  REDUCELAB_EXPECTS(n <= detail::max_items<T>, "reducelab::reduce_workspace_bytes: n = " + std::to_string(n) +
                                                   " exceeds the address space for this value type");
  const detail::device_properties dev = detail::current_device_properties();
  return detail::with_device_policy<T>(dev, [&](auto policy) {
    return detail::workspace_bytes_for<decltype(policy), OpT, T>(n, dev);
  });
}

/// Device result, caller's workspace: *out = in[0] op in[1] op ... op in[n-1], enqueued on `stream`.
/// `workspace` may be null when reduce_workspace_bytes<T>(n) is 0. Nothing is allocated or synchronized.
template <class T, class OpT>
void reduce(const T* in, std::size_t n, T* out, void* workspace, std::size_t workspace_bytes, OpT op,
            cudaStream_t stream = nullptr) {
  detail::check_functor<T, OpT>();
  const detail::device_properties dev = detail::check_arguments(in, n, stream);
  REDUCELAB_EXPECTS(out != nullptr, "reducelab::reduce: output pointer is null");
  detail::expect_on_device(out, dev.ordinal, "output pointer");
  detail::with_device_policy<T>(dev, [&](auto policy) {
    using P = decltype(policy);
    const std::size_t need = detail::workspace_bytes_for<P, OpT, T>(n, dev);
    REDUCELAB_EXPECTS(need == 0 || workspace != nullptr,
                      "reducelab::reduce: workspace pointer is null; this n needs " + std::to_string(need) + " bytes");
    REDUCELAB_EXPECTS(workspace_bytes >= need, "reducelab::reduce: workspace of " + std::to_string(workspace_bytes) +
                                                   " bytes is smaller than the " + std::to_string(need) + " needed");
    detail::launch<P>(in, n, out, workspace, op, stream, dev);
  });
}

/// Device result, stream-ordered; the workspace is the stream's own, kept between calls (none for small n).
template <class T, class OpT, class = std::enable_if_t<!std::is_pointer_v<OpT>>>
void reduce(const T* in, std::size_t n, T* out, OpT op, cudaStream_t stream = nullptr) {
  detail::check_functor<T, OpT>();
  const detail::device_properties dev = detail::check_arguments(in, n, stream);
  REDUCELAB_EXPECTS(out != nullptr, "reducelab::reduce: output pointer is null");
  detail::expect_on_device(out, dev.ordinal, "output pointer");
  detail::launch_with_stream_workspace(in, n, out, op, stream, dev);
}

/// Host result: like thrust::reduce, but with a workspace kept between calls and the result written by the
/// kernel straight into pinned host memory, followed by a flag the call spins on (detail/resources.hpp,
/// wait_for_result): one launch and no separate copy or synchronization to wait for. When it returns, the
/// kernel has read all of its input and written its result; it may still be retiring, so later work on
/// `stream` stays ordered after it as usual.
template <class T, class OpT, class = std::enable_if_t<!std::is_pointer_v<OpT>>>
T reduce(const T* in, std::size_t n, OpT op, cudaStream_t stream = nullptr) {
  detail::check_functor<T, OpT>();
  const detail::device_properties dev = detail::check_arguments(in, n, stream, /*host_result*/ true);
  if (n == 0) return identity_of<OpT, T>();
  detail::host_call_cache& cache = detail::host_cache(dev.ordinal);
  cache.result.reserve(sizeof(T));
  const detail::result_signal signal = cache.result.next_signal();
  detail::with_device_policy<T>(dev, [&](auto policy) {
    using P = decltype(policy);
    void* workspace = cache.reserve_workspace(detail::workspace_bytes_for<P, OpT, T>(n, dev), stream);
    detail::launch<P>(in, n, static_cast<T*>(cache.result.host), workspace, op, stream, dev, signal);
  });
  detail::wait_for_result(cache.result, signal, [&] { CUDA_TRY(cudaStreamSynchronize(stream)); });
  T result;
  std::memcpy(&result, cache.result.host, sizeof(T));
  return result;
}

/// Host result of a whole device_vector, on the default stream.
template <class T, class AllocT, class OpT>
T reduce(const thrust::device_vector<T, AllocT>& values, OpT op) {
  return reduce(thrust::raw_pointer_cast(values.data()), values.size(), op, cudaStream_t{nullptr});
}

template <class T>
class reduction_future;

/// Host result without waiting: enqueue the reduction on `stream` and return; get() on the handle waits.
/// The kernel writes the result straight into pinned host memory and raises the slot's flag: get() spins on
/// that flag, as the host-result reduce does, so there is no separate copy or synchronization to wait for.
template <class T, class OpT>
reduction_future<T> reduce_async(const T* in, std::size_t n, OpT op, cudaStream_t stream = nullptr);

/// A host result on its way: get() waits for it (once); ready() asks without waiting. Move-only. Destroying a
/// handle whose result was not taken waits for the kernel that writes it.
template <class T>
class reduction_future {
 public:
  reduction_future(reduction_future&& o) noexcept
      : slot_(std::exchange(o.slot_, {})), signal_(o.signal_), device_(o.device_), value_(o.value_),
        state_(std::exchange(o.state_, state::empty)) {}
  reduction_future& operator=(reduction_future&& o) noexcept {
    if (this != &o) {
      finish();
      slot_ = std::exchange(o.slot_, {});
      signal_ = o.signal_;
      device_ = o.device_;
      value_ = o.value_;
      state_ = std::exchange(o.state_, state::empty);
    }
    return *this;
  }
  reduction_future(const reduction_future&) = delete;
  reduction_future& operator=(const reduction_future&) = delete;
  ~reduction_future() { finish(); }

  /// Whether get() would return without waiting.
  bool ready() const {
    if (state_ != state::pending) return true;
    if (slot_.landed(signal_)) return true;
    const cudaError_t e = cudaEventQuery(slot_.done);
    if (e == cudaErrorNotReady) return false;
    CUDA_TRY(e);
    return true;
  }

  /// The result; waits for the reduction the first time.
  T get() {
    REDUCELAB_EXPECTS(state_ != state::empty, "reducelab::reduction_future::get: this handle holds no reduction");
    if (state_ == state::pending) {
      detail::wait_for_result(slot_, signal_, [&] { CUDA_TRY(cudaEventSynchronize(slot_.done)); });
      std::memcpy(&value_, slot_.host, sizeof(T));
      state_ = state::done;
      detail::slot_pool::of(device_).give_back(std::exchange(slot_, {}));
    }
    return value_;
  }

 private:
  enum class state { empty, pending, done };
  template <class U, class OpT>
  friend reduction_future<U> reduce_async(const U*, std::size_t, OpT, cudaStream_t);

  reduction_future() = default;
  void finish() noexcept {
    if (state_ == state::pending) {
      cudaEventSynchronize(slot_.done);  // the kernel may still write the slot: wait before recycling it
      detail::slot_pool::of(device_).give_back(std::exchange(slot_, {}));
    }
    state_ = state::empty;
  }

  detail::pinned_slot slot_{};
  detail::result_signal signal_{};
  int device_ = 0;
  T value_{};
  state state_ = state::empty;
};

template <class T, class OpT>
reduction_future<T> reduce_async(const T* in, std::size_t n, OpT op, cudaStream_t stream) {
  detail::check_functor<T, OpT>();
  const detail::device_properties dev = detail::check_arguments(in, n, stream, /*host_result*/ true);
  reduction_future<T> f;
  f.device_ = dev.ordinal;
  if (n == 0) {
    f.value_ = identity_of<OpT, T>();
    f.state_ = reduction_future<T>::state::done;
    return f;
  }
  f.slot_ = detail::slot_pool::of(dev.ordinal).take(sizeof(T));
  try {
    f.signal_ = f.slot_.next_signal();
    detail::launch_with_stream_workspace(in, n, static_cast<T*>(f.slot_.host), op, stream, dev, f.signal_);
    CUDA_TRY(cudaEventRecord(f.slot_.done, stream));
  } catch (...) {
    detail::slot_pool::of(dev.ordinal).give_back(std::exchange(f.slot_, {}));
    throw;
  }
  f.state_ = reduction_future<T>::state::pending;
  return f;
}

/// reduce_async over a whole device_vector.
template <class T, class AllocT, class OpT>
reduction_future<T> reduce_async(const thrust::device_vector<T, AllocT>& values, OpT op, cudaStream_t stream = nullptr) {
  return reduce_async(thrust::raw_pointer_cast(values.data()), values.size(), op, stream);
}

}  // namespace reducelab
