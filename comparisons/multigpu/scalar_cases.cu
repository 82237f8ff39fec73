// The scalar part: reduce n elements to one value (a) on GPU 0 alone with reducelab::reduce, (b) split evenly in
// rank order over the group with reducelab::multigpu::reduce.
//
// Memory: GPU 0 holds the whole array for (a); rank 0's shard of (b) is its prefix (the same values: the fill is
// a function of the global index), and every other rank holds its own n/N. So GPU 0 needs n elements, the
// others n/N.
//
// Validation, before timing (a failing case is not timed):
//   reference   each rank's shard reduced on its own GPU by reducelab::reduce, the results folded in rank order by
//               one GPU thread (as the device folds: the same FMA contraction as the library's fold); for an exact
//               functor also on the host, which must agree;
//   every rank  3 runs of (b), outputs poisoned first: every rank's result bitwise equal to the reference;
//   run to run  those 3 runs bitwise identical on every rank, and the result left by the timed runs too;
//   one GPU     (a) bitwise equal to (b) for a functor that is exact (no rounding: int32 plus, argmax, affine
//               compose); for the rounding ones (float plus, mean_variance) both values are noted, and (a) after
//               the timed runs must equal (a) before them.
#include "comparisons/multigpu/fill.cuh"
#include "comparisons/multigpu/measures.hpp"
#include "comparisons/multigpu/session.hpp"
#include "functors/affine_compose.cuh"
#include "functors/argmax.cuh"
#include "functors/mean_variance.cuh"
#include "functors/plus.cuh"
#include "lab/core/value_traits.hpp"
#include "reducelab/multigpu.cuh"
#include "reducelab/reduce.cuh"

#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace reducelab::multigpu::tool {

namespace {

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// partials[0] op partials[1] op ... on one thread: the reference fold, in rank order. Written here rather than
/// taken from the library (multigpu/detail/rank_reduction.cuh has the same loop) so that the reference does not
/// share the code it checks.
template <class T, class OpT>
__global__ void fold_on_one_thread(const T* partials, int count, T* out, OpT op) {
  T acc = partials[0];
  for (int r = 1; r < count; ++r) acc = op(acc, partials[r]);
  *out = acc;
}

template <class T>
T copy_to_host(const T* device_ptr, int device) {
  device_scope on(device);
  T v;
  CUDA_TRY(cudaMemcpy(&v, device_ptr, sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

template <class OpT, class T>
case_outcome run_scalar(session& s, const case_name& c, std::size_t n) {
  constexpr bool exact = is_exact_v<OpT, T>;  // the functor's own declaration: no rounding for this type
  case_outcome o;
  o.which = c;
  o.n = n;
  o.bytes = n * sizeof(T);
  o.gpus = s.size();
  const int ranks = s.size();
  if constexpr (std::is_same_v<T, functors::float_idx32>) {
    if (n >= std::numeric_limits<std::uint32_t>::max()) {
      o.reason = "float_idx32 holds 32-bit indices (the identity's is 2^32 - 1): n must be below 2^32 - 1";
      return o;
    }
  }
  const std::vector<rank_slice> slices = split_evenly(n, ranks);
  std::vector<device_need> needs;
  for (int r = 0; r < ranks; ++r) {
    const int dev = s.ranks.device(r);
    if (r == 0) needs.push_back({dev, n * sizeof(T), free_device_bytes(dev), "the whole array for the one-GPU baseline"});
    else needs.push_back({dev, slices[r].count * sizeof(T), free_device_bytes(dev), "rank " + std::to_string(r) + "'s shard"});
  }
  if (const std::string problem = fit_problem(needs); !problem.empty()) {
    o.reason = problem;
    return o;
  }

  const int dev0 = s.ranks.device(0);
  const cudaStream_t stream0 = s.stream0();
  const std::uint64_t key = case_key(s.opts.seed, c);
  device_array whole(dev0, n * sizeof(T)), one_out(dev0, sizeof(T)), partials(dev0, ranks * sizeof(T)),
      reference(dev0, sizeof(T));
  std::vector<device_array> shards(ranks), outs;
  std::vector<multigpu::shard<T>> group_shards;
  for (int r = 0; r < ranks; ++r) {
    const int dev = s.ranks.device(r);
    outs.emplace_back(dev, sizeof(T));
    device_scope on(dev);
    const T* in = whole.as<T>();
    if (r > 0) {
      shards[r] = device_array(dev, slices[r].count * sizeof(T));
      fill_on_device(shards[r].as<T>(), slices[r].count, slices[r].begin, key, s.ranks.stream(r));
      in = shards[r].as<T>();
    } else {
      fill_on_device(whole.as<T>(), n, 0, key, stream0);
    }
    group_shards.push_back({in, slices[r].count, outs[r].as<T>(), s.ranks.stream(r)});
  }
  s.wait();

  const auto check = [&o](std::string name, bool ok, std::string detail) {
    o.checks.push_back({std::move(name), ok, std::move(detail)});
    return ok;
  };
  const auto run_split = [&s, &group_shards] {
    s.ranks.fork();
    reducelab::multigpu::reduce(s.group, group_shards, OpT{});
    s.ranks.join();
  };
  const auto rank_results = [&] {
    std::vector<T> got;
    for (int r = 0; r < ranks; ++r) got.push_back(copy_to_host(outs[r].as<T>(), s.ranks.device(r)));
    return got;
  };

  // The reference: every shard reduced on its own GPU, then folded in rank order.
  std::vector<T> shard_results;
  for (int r = 0; r < ranks; ++r) {
    device_scope on(s.ranks.device(r));
    shard_results.push_back(reducelab::reduce(group_shards[r].in, group_shards[r].n, OpT{}, s.ranks.stream(r)));
  }
  // On stream0, the fold's stream: a cudaMemcpy from pageable memory may return before the device holds the bytes, and
  // stream0 is non-blocking, so the fold could otherwise read them first (as copy_to_device's comment says).
  CUDA_TRY(cudaMemcpyAsync(partials.as<T>(), shard_results.data(), ranks * sizeof(T), cudaMemcpyHostToDevice, stream0));
  fold_on_one_thread<T, OpT><<<1, 1, 0, stream0>>>(partials.as<T>(), ranks, reference.as<T>(), OpT{});
  CUDA_TRY_LAUNCH();
  CUDA_TRY(cudaStreamSynchronize(stream0));
  const T want = copy_to_host(reference.as<T>(), dev0);
  if constexpr (exact) {
    T host = shard_results[0];
    for (int r = 1; r < ranks; ++r) host = OpT{}(host, shard_results[r]);
    check("reference folded on the host too", same_bits(host, want),
          "device fold " + value_to_string(want) + ", host fold " + value_to_string(host));
  }

  // Three runs of the split, outputs poisoned first so that a result left unwritten cannot pass.
  std::vector<std::vector<T>> runs;
  std::string wrong, differs;
  for (int k = 0; k < 3; ++k) {
    for (int r = 0; r < ranks; ++r) {
      device_scope on(s.ranks.device(r));
      CUDA_TRY(cudaMemsetAsync(outs[r].as<T>(), 0xA5, sizeof(T), s.ranks.stream(r)));
    }
    run_split();
    s.wait();
    runs.push_back(rank_results());
    for (int r = 0; r < ranks; ++r) {
      if (wrong.empty() && !same_bits(runs[k][r], want))
        wrong = "run " + std::to_string(k) + ", rank " + std::to_string(r) + ": got " + value_to_string(runs[k][r]) +
                ", want " + value_to_string(want);
      if (differs.empty() && !same_bits(runs[k][r], runs[0][r]))
        differs = "rank " + std::to_string(r) + ": run " + std::to_string(k) + " gave " + value_to_string(runs[k][r]) +
                  ", run 0 " + value_to_string(runs[0][r]);
    }
  }
  check("every rank equals the reference (3 runs)", wrong.empty(),
        wrong.empty() ? value_to_string(want) + " on all " + std::to_string(ranks) + " rank(s)" : wrong);
  bool identical = check("run to run (3 runs)", differs.empty(), differs.empty() ? "bitwise identical" : differs);

  // One GPU over the whole array.
  CUDA_TRY(cudaMemsetAsync(one_out.as<T>(), 0xA5, sizeof(T), stream0));
  reducelab::reduce(whole.as<T>(), n, one_out.as<T>(), OpT{}, stream0);
  CUDA_TRY(cudaStreamSynchronize(stream0));
  const T one = copy_to_host(one_out.as<T>(), dev0);
  if constexpr (exact) {
    check("one GPU equals the split", same_bits(one, want),
          "one GPU " + value_to_string(one) + ", split " + value_to_string(want));
  } else {
    o.notes.push_back("one GPU gives " + value_to_string(one) + ", the split " + value_to_string(want) +
                      (same_bits(one, want) ? " (the same)" : " (rounded in another order: not an error)"));
  }

  o.run_to_run_identical = identical;
  if (o.stop_untimed_if_failed()) return o;

  const std::string ours_name = "reducelab::multigpu::reduce over " + std::to_string(ranks) + " GPU(s)";
  const std::string base_name = "reducelab::reduce on GPU " + std::to_string(dev0);
  const std::vector<timing::timed_work> works = {
      s.across_ranks(ours_name, [&] { reducelab::multigpu::reduce(s.group, group_shards, OpT{}); }),
      s.on_gpu0(base_name,
                [&](cudaStream_t st) { reducelab::reduce(whole.as<const T>(), n, one_out.as<T>(), OpT{}, st); })};
  const std::vector<timing::work_samples> samples = s.engine.measure(works, s.plan);
  s.wait();
  s.record(o, ours_name, samples[0], base_name, samples[1]);

  // What the timed runs left behind must be what the validation saw.
  const std::vector<T> after = rank_results();
  std::string after_differs;
  for (int r = 0; r < ranks && after_differs.empty(); ++r)
    if (!same_bits(after[r], want))
      after_differs = "rank " + std::to_string(r) + ": " + value_to_string(after[r]) + ", before " + value_to_string(want);
  const T one_after = copy_to_host(one_out.as<T>(), dev0);
  if (after_differs.empty() && !same_bits(one_after, one))
    after_differs = "one GPU: " + value_to_string(one_after) + ", before " + value_to_string(one);
  identical = check("run to run (after the timed runs)", after_differs.empty(),
                    after_differs.empty() ? "bitwise identical" : after_differs) && identical;
  o.run_to_run_identical = identical;
  o.settle();
  return o;
}

}  // namespace

case_outcome run_scalar_case(session& s, const case_name& c, std::size_t n) {
  const std::string label = c.label();
  if (label == "plus/int32") return run_scalar<functors::plus, std::int32_t>(s, c, n);
  if (label == "plus/float") return run_scalar<functors::plus, float>(s, c, n);
  if (label == "argmax/float_idx32") return run_scalar<functors::argmax, functors::float_idx32>(s, c, n);
  if (label == "mean_variance/moments64") return run_scalar<functors::mean_variance, functors::moments64>(s, c, n);
  if (label == "affine_compose/affine32") return run_scalar<functors::affine_compose, functors::affine32>(s, c, n);
  throw std::logic_error("reducelab-multigpu: no scalar runner for " + label);
}

}  // namespace reducelab::multigpu::tool
