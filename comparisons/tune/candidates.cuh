// The candidate policies `reducelab tune` measures, as a table, and the measuring itself: per workload one
// random input (the smaller sizes are prefixes of the largest), at each size every candidate validated against
// the host reference and then all of them timed in one interleaved engine.measure call. Included only by
// tune_candidates_N.cu, one per size class, so that the sweep's kernels (about fifteen shapes per workload)
// compile in parallel there and nowhere else.
#pragma once

#include "comparisons/baselines.cuh"
#include "comparisons/results_view.hpp"
#include "comparisons/tune/tune.hpp"
#include "lab/core/device_buffer.hpp"
#include "lab/core/value_traits.hpp"
#include "lab/host/inputs.hpp"
#include "lab/host/reference.hpp"
#include "reducelab/detail/dispatch.cuh"
#include "reducelab/kernels/single_pass.cuh"
#include "reducelab/tuning/policy.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <iomanip>
#include <iterator>
#include <limits>
#include <sstream>
#include <tuple>
#include <utility>

namespace reducelab::tune {

// --- The candidates ----------------------------------------------------------------------------------------

struct multi_block_shape {
  int block_threads, vectors_per_thread, blocks_per_sm;  // blocks_per_sm 0: the occupancy calculator's grid
};

// block_threads x vectors_per_thread on the occupancy grid, and the 512-thread shapes again capped at 2 blocks per
// SM: the occupancy grid holds up to 4 such blocks per SM, and half the blocks is half the partials the last
// block waits for and combines (whether that beats the fuller grid is for the measurement to say).
inline constexpr multi_block_shape multi_block_shapes[] = {
    {128, 1, 0}, {128, 2, 0}, {128, 4, 0}, {128, 8, 0},  //
    {256, 1, 0}, {256, 2, 0}, {256, 4, 0}, {256, 8, 0},  //
    {512, 1, 0}, {512, 2, 0}, {512, 4, 0}, {512, 8, 0},  //
    {512, 1, 2}, {512, 2, 2}, {512, 4, 2}, {512, 8, 2},
};

struct single_block_shape {
  int threads, vectors_per_thread;
};

// Every block size with every vector count: the one-block path has its loads in flight of its own
// (single_block_vectors), chosen with its block size.
inline constexpr single_block_shape single_block_shapes[] = {
    {256, 1},  {256, 2},  {256, 4},  {256, 8},  //
    {512, 1},  {512, 2},  {512, 4},  {512, 8},  //
    {1024, 1}, {1024, 2}, {1024, 4}, {1024, 8},
};

/// Multi-block candidate I: the one-block path is never taken (SingleBlockMaxBytes 0), so its fields are unused.
template <std::size_t I>
using multi_block_policy = tuning::policy<multi_block_shapes[I].block_threads, multi_block_shapes[I].vectors_per_thread,
                                          multi_block_shapes[I].blocks_per_sm, 256, 0>;

/// One-block candidate I: the one-block path at every n, so the multi-block fields are unused.
template <std::size_t I>
using single_block_policy =
    tuning::policy<256, single_block_shapes[I].vectors_per_thread, 0, single_block_shapes[I].threads,
                   std::numeric_limits<std::size_t>::max(), single_block_shapes[I].vectors_per_thread>;

// --- Which shapes compile --------------------------------------------------------------------------------------

/// The kernel's shared memory is a static __shared__ array, and ptxas refuses more than 48 KiB of that.
inline constexpr std::size_t max_static_shared_bytes = 48 * 1024;

template <int Threads, int VectorsPerThread, class T>
inline constexpr std::size_t shared_bytes_v = kernels::single_pass_storage<Threads, VectorsPerThread, T>::bytes;

/// Any value of Bytes bytes: the kernel's shared memory depends on the size alone.
template <std::size_t Bytes>
struct opaque_value {
  unsigned char bytes[Bytes];
};

template <int Threads, int VectorsPerThread, std::size_t Bytes>
inline constexpr bool fits_v =
    shared_bytes_v<Threads, VectorsPerThread, opaque_value<Bytes>> <= max_static_shared_bytes;

template <std::size_t Bytes>
inline constexpr bool fallback_fits_v = [] {
  using f = tuning::fallback<tuning::size_class(Bytes)>;
  return fits_v<f::block_threads, f::vectors_per_thread, Bytes> &&
         fits_v<f::single_block_threads, f::single_block_vectors, Bytes>;
}();

/// The smallest value size of the class for which a shape would not compile although the fallback does; 0 if
/// none. The written header serves every type of the class, not only the workload's: odd sizes need more
/// vectors per lane (a 3-byte value 3, a 7-byte one 7), hence more shared memory, so a shape that fits the
/// workload can still break another type the fallback serves today.
template <std::size_t SizeClass, int Threads, int VectorsPerThread, std::size_t... I>
constexpr std::size_t first_size_broken(std::index_sequence<I...>) {
  constexpr std::size_t smallest = SizeClass / 2 + 1;  // the class holds the sizes (SizeClass / 2, SizeClass]
  std::size_t broken = 0;
  ((broken = broken != 0 || fits_v<Threads, VectorsPerThread, smallest + I> || !fallback_fits_v<smallest + I>
                 ? broken
                 : smallest + I),
   ...);
  return broken;
}

template <std::size_t SizeClass, int Threads, int VectorsPerThread>
inline constexpr std::size_t first_size_broken_v =
    first_size_broken<SizeClass, Threads, VectorsPerThread>(std::make_index_sequence<SizeClass - SizeClass / 2>{});

// --- What is validated and timed ---------------------------------------------------------------------------------

/// One thing validated, then timed, on an input of n values: a candidate's launch, or CUB.
template <class T>
struct runner {
  std::size_t workspace_bytes = 0;
  std::size_t combine_depth = std::numeric_limits<std::size_t>::max();  // for a rounding functor's bound (max: n - 1)
  std::function<void(const T* in, T* out, void* workspace, cudaStream_t)> run;
};

template <class T>
using runner_factory = runner<T> (*)(std::size_t n, const detail::device_properties& dev);

template <class PolicyT, class OpT, class T>
runner<T> policy_runner(std::size_t n, const detail::device_properties& dev) {
  runner<T> r;
  r.workspace_bytes = detail::workspace_bytes_for<PolicyT, OpT, T>(n, dev);
  r.combine_depth = detail::combine_depth_for<PolicyT, OpT, T>(n, dev);
  r.run = [n, dev](const T* in, T* out, void* workspace, cudaStream_t s) {
    detail::launch<PolicyT>(in, n, out, workspace, OpT{}, s, dev);
  };
  return r;
}

/// cub::DeviceReduce::Reduce as `reducelab compare` times it: temporary storage allocated beforehand.
template <class OpT, class T>
runner<T> cub_runner(std::size_t n, const detail::device_properties&) {
  using baselines::cub_reduce;
  runner<T> r;
  r.workspace_bytes = cub_reduce::workspace_bytes<OpT, T>(n);
  r.run = [n, bytes = r.workspace_bytes](const T* in, T* out, void* workspace, cudaStream_t s) {
    cub_reduce::run<OpT, T>(in, n, out, workspace, bytes, OpT{}, s);
  };
  return r;
}

template <class T>
struct candidate {
  candidate_info info;
  runner_factory<T> runner_for = nullptr;  // null when excluded: its kernel is never instantiated
};

template <std::size_t SizeClass, class PolicyT, int Threads, class OpT, class T>
candidate<T> make_candidate(bool one_block) {
  constexpr std::size_t shared = shared_bytes_v<Threads, PolicyT::vectors_per_thread, T>;
  constexpr std::size_t broken = first_size_broken_v<SizeClass, Threads, PolicyT::vectors_per_thread>;
  candidate<T> c;
  c.info.policy = tuning::values_of<PolicyT>();
  c.info.label = label_of(c.info.policy, one_block);
  c.info.static_shared_bytes = shared;
  if constexpr (shared > max_static_shared_bytes) {
    c.info.excluded = std::to_string(shared) + " bytes of static shared memory (the limit is 48 KiB)";
  } else if constexpr (broken != 0) {
    c.info.excluded = "would not compile for " + std::to_string(broken) + "-byte values, which the fallback serves (" +
                      std::to_string(shared_bytes_v<Threads, PolicyT::vectors_per_thread, opaque_value<broken>>) +
                      " bytes of static shared memory)";
  } else {
    c.runner_for = &policy_runner<PolicyT, OpT, T>;
  }
  return c;
}

template <std::size_t SizeClass, class OpT, class T, std::size_t... I>
std::vector<candidate<T>> multi_block_candidates(std::index_sequence<I...>) {
  return {make_candidate<SizeClass, multi_block_policy<I>, multi_block_shapes[I].block_threads, OpT, T>(false)...};
}

template <std::size_t SizeClass, class OpT, class T, std::size_t... I>
std::vector<candidate<T>> single_block_candidates(std::index_sequence<I...>) {
  return {make_candidate<SizeClass, single_block_policy<I>, single_block_shapes[I].threads, OpT, T>(true)...};
}

/// Judges results on one input: exact pairs against one in-order reference, computed once; rounding ones by the
/// functor's error bound, whose compensated reference the scope keeps after the first candidate.
template <class OpT, class T>
class result_judge {
 public:
  result_judge(const T* x, std::size_t n) : x_(x), n_(n) {
    if constexpr (is_exact_v<OpT, T>) want_ = reduce_in_order<OpT, T>(x, n);
  }
  verdict operator()(const T& got, std::size_t depth) const {
    if constexpr (is_exact_v<OpT, T>) {
      verdict v;
      v.got = value_to_string(got);
      v.want = value_to_string(want_);
      v.ok = values_equal(got, want_);
      return v;
    } else {
      return judge<OpT, T>(x_, n_, got, depth);
    }
  }

 private:
  reference_scope scope_;
  const T* x_;
  std::size_t n_;
  T want_{};
};

/// Validate every candidate (and the baseline, when there is one) on [in, in + n), then time those that passed
/// in one interleaved engine.measure call. A failure is recorded with what the run returned, and never timed.
template <class OpT, class T>
point_result measure_point(const sweep_context& ctx, std::size_t workload, const T* in, const T* host, std::size_t n,
                           const std::vector<candidate<T>>& candidates, runner_factory<T> baseline,
                           const std::string& baseline_name, std::uint64_t seed) {
  const detail::device_properties dev = detail::current_device_properties();
  const result_judge<OpT, T> judge_result(host, n);
  device_buffer out(sizeof(T));
  T* result = static_cast<T*>(out.data());
  std::vector<device_buffer> workspaces;  // one per timed work, alive until its samples are taken
  std::vector<timing::timed_work> works;
  std::vector<work_result*> timed;  // works[i]'s result
  point_result p;
  p.workload = workload;
  p.n = n;
  p.bytes = n * sizeof(T);
  p.candidates.resize(candidates.size());
  if (baseline) p.baseline.emplace();

  auto validate = [&](const runner<T>& r, const std::string& name, work_result& into) {
    try {
      device_buffer workspace(r.workspace_bytes);
      CUDA_TRY(cudaMemsetAsync(result, 0xA5, sizeof(T), ctx.stream));  // poison: an unwritten result cannot pass
      r.run(in, result, workspace.data(), ctx.stream);
      T got;
      CUDA_TRY(cudaMemcpyAsync(&got, result, sizeof(T), cudaMemcpyDeviceToHost, ctx.stream));
      CUDA_TRY(cudaStreamSynchronize(ctx.stream));
      const verdict v = judge_result(got, r.combine_depth);
      if (!v.ok) {
        into.status = work_status::failed;
        into.note = "got " + v.got + ", want " + v.want;
        return;
      }
      into.status = work_status::timed;
      works.push_back(
          {name, false, [run = r.run, in, result, ws = workspace.data()](cudaStream_t s) { run(in, result, ws, s); }});
      workspaces.push_back(std::move(workspace));
      timed.push_back(&into);
    } catch (const std::exception& e) {
      into.status = work_status::failed;
      into.note = e.what();
    }
  };
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].runner_for) {
      validate(candidates[i].runner_for(n, dev), candidates[i].info.label, p.candidates[i]);
    } else {
      p.candidates[i].status = work_status::excluded;
      p.candidates[i].note = candidates[i].info.excluded;
    }
  }
  if (baseline) validate(baseline(n, dev), baseline_name, *p.baseline);

  if (!works.empty()) {
    timing::measurement_plan plan = ctx.plan;
    plan.seed = seed;
    const std::vector<timing::work_samples> samples = ctx.engine.measure(works, plan);
    for (std::size_t i = 0; i < timed.size(); ++i) {
      timed[i]->us = samples[i].us;
      timed[i]->discarded = samples[i].discarded;
    }
  }
  return p;
}

// --- One size class ------------------------------------------------------------------------------------------

/// A (functor, value type) a class is tuned on; `functor` is its name as `reducelab list` shows it.
template <class OpT, class T>
struct workload {
  using op = OpT;
  using value = T;
  const char* functor;
  workload_info describe() const { return {functor, value_name_v<T>, sizeof(T), is_commutative_v<OpT>}; }
};

template <class... WorkloadTs>
class class_tuner_impl final : public class_tuner {
  using first_value = typename std::tuple_element_t<0, std::tuple<WorkloadTs...>>::value;
  static constexpr std::size_t class_bytes = tuning::size_class(sizeof(first_value));
  static_assert(((tuning::size_class(sizeof(typename WorkloadTs::value)) == class_bytes) && ...),
                "the workloads of one tuner share its size class");

 public:
  explicit class_tuner_impl(WorkloadTs... w) : workloads_(w...) {}

  std::size_t size_class() const override { return class_bytes; }

  std::vector<workload_info> workloads() const override {
    return std::apply([](const auto&... w) { return std::vector<workload_info>{w.describe()...}; }, workloads_);
  }

  sweep_result measure_multi_block(const sweep_context& ctx) const override {
    sweep_result s;
    s.baseline = baselines::cub_reduce::name;
    std::size_t index = 0;
    std::apply([&](const auto&... w) { (multi_block_sweep(ctx, w, index++, s), ...); }, workloads_);
    return s;
  }

  sweep_result measure_single_block(const sweep_context& ctx, std::size_t chosen) const override {
    sweep_result s;
    s.baseline = "multi-block " + label_of(policy_values_of(chosen), false);
    std::size_t index = 0;
    std::apply([&](const auto&... w) { (single_block_sweep(ctx, w, chosen, index++, s), ...); }, workloads_);
    return s;
  }

 private:
  static tuning::policy_values policy_values_of(std::size_t multi_block_index) {
    const multi_block_shape& m = multi_block_shapes[multi_block_index];
    return {m.block_threads, m.vectors_per_thread, m.blocks_per_sm, 256, 0, m.vectors_per_thread};
  }

  template <class W>
  void multi_block_sweep(const sweep_context& ctx, const W& w, std::size_t index, sweep_result& s) const {
    using OpT = typename W::op;
    using T = typename W::value;
    const auto candidates =
        multi_block_candidates<class_bytes, OpT, T>(std::make_index_sequence<std::size(multi_block_shapes)>{});
    runner_factory<T> cub = nullptr;
    if constexpr (is_commutative_v<OpT>) cub = &cub_runner<OpT, T>;  // CUB documents that it may reorder operands
    sweep<OpT, T>(ctx, w, index, "multi-block", ctx.multi_block_sizes, candidates, cub, s);
  }

  template <class W>
  void single_block_sweep(const sweep_context& ctx, const W& w, std::size_t chosen, std::size_t index,
                          sweep_result& s) const {
    using OpT = typename W::op;
    using T = typename W::value;
    const auto candidates =
        single_block_candidates<class_bytes, OpT, T>(std::make_index_sequence<std::size(single_block_shapes)>{});
    const auto multi =
        multi_block_candidates<class_bytes, OpT, T>(std::make_index_sequence<std::size(multi_block_shapes)>{});
    std::vector<std::size_t> sizes;
    for (const std::size_t bytes : ctx.single_block_bytes) sizes.push_back(std::max<std::size_t>(1, bytes / sizeof(T)));
    sweep<OpT, T>(ctx, w, index, "one-block", sizes, candidates, multi[chosen].runner_for, s);
  }

  /// Every size of one workload: one input, its prefixes for the smaller sizes.
  template <class OpT, class T, class W>
  void sweep(const sweep_context& ctx, const W& w, std::size_t index, const char* what,
             const std::vector<std::size_t>& sizes, const std::vector<candidate<T>>& candidates,
             runner_factory<T> baseline, sweep_result& s) const {
    const auto started = std::chrono::steady_clock::now();
    const workload_info info = w.describe();
    ctx.progress << "  " << info.functor << "/" << info.type << " " << what << ":" << std::flush;
    if (s.candidates.empty())
      for (const auto& c : candidates) s.candidates.push_back(c.info);
    const std::size_t largest = *std::max_element(sizes.begin(), sizes.end());
    const std::uint64_t workload_seed = ctx.seed ^ ((index + 1) * 0x9E3779B97F4A7C15ull);
    const host_array<T> host = make_inputs<OpT, T>(input_kind::random, largest, workload_seed);
    device_buffer data(largest * sizeof(T));
    copy_to_device(data.data(), host.data(), largest * sizeof(T));
    std::vector<std::string> failures;
    for (const std::size_t n : sizes) {
      point_result p = measure_point<OpT, T>(ctx, index, static_cast<const T*>(data.data()), host.data(), n, candidates,
                                             baseline, s.baseline, workload_seed + n);
      ctx.progress << " " << report::detail::size_label(n) << std::flush;
      for (std::size_t i = 0; i < p.candidates.size(); ++i)
        if (p.candidates[i].status == work_status::failed)
          failures.push_back(candidates[i].info.label + " at n = " + std::to_string(n) + ": " + p.candidates[i].note);
      if (p.baseline && p.baseline->status == work_status::failed)
        failures.push_back(s.baseline + " at n = " + std::to_string(n) + ": " + p.baseline->note);
      s.points.push_back(std::move(p));
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::ostringstream took;  // not on ctx.progress itself, whose number format is not ours to change
    took << std::fixed << std::setprecision(1) << seconds;
    ctx.progress << " (" << took.str() << " s)\n";
    for (const auto& f : failures) ctx.progress << "    FAILED validation, not timed: " << f << "\n";
    ctx.progress << std::flush;
  }

  std::tuple<WorkloadTs...> workloads_;
};

template <class... WorkloadTs>
std::unique_ptr<class_tuner> make_class_tuner(WorkloadTs... w) {
  return std::make_unique<class_tuner_impl<WorkloadTs...>>(w...);
}

}  // namespace reducelab::tune
