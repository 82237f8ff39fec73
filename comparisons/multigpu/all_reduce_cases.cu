// The all-reduce part: every rank holds a vector of the same length; (a) reducelab::multigpu::all_reduce folds
// them elementwise in rank order with the functor (by default over NCCL symmetric memory, one kernel per rank;
// --all-reduce-path send-recv: ncclSend/ncclRecv moving the bytes and ReduceLab's fold kernel), (b)
// ncclAllReduce with ncclSum on the same bytes: of the same type for plus, of floats for argmax pairs (NCCL has no
// argmax; its float sum over the same bytes is the bandwidth to match). Out of place for both.
//
// Validation, before timing (a failing case is not timed):
//   every rank  3 runs of (a), outputs poisoned first: every rank's output equal, element by element and bitwise,
//               to the host's rank-order fold of the ranks' inputs (copied back from the GPUs);
//   run to run  those 3 runs, and what the timed runs left, bitwise identical on every rank (content hashes);
//   NCCL        (b)'s output against the host's sum of its inputs: bitwise for int32; for floats within
//               2 gamma(N-1) N max|x|, since NCCL sums in its own order (the fill keeps |x| < 1).
#include "comparisons/multigpu/fill.cuh"
#include "comparisons/multigpu/measures.hpp"
#include "comparisons/multigpu/session.hpp"
#include "functors/argmax.cuh"
#include "functors/plus.cuh"
#include "lab/core/value_traits.hpp"
#include "lab/host/accuracy.hpp"
#include "reducelab/multigpu.cuh"

#include <nccl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>

namespace reducelab::multigpu::tool {

namespace {

template <class T>
constexpr ncclDataType_t nccl_type() {
  if constexpr (std::is_same_v<T, std::int32_t>) return ncclInt32;
  else {
    static_assert(std::is_same_v<T, float>, "nccl_type: int32 or float");
    return ncclFloat32;
  }
}

template <class T>
std::vector<T> copy_vector(const T* p, std::size_t count, int device) {
  device_scope on(device);
  std::vector<T> v(count);
  CUDA_TRY(cudaMemcpy(v.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

/// The ranks' vectors folded elementwise in rank order on the host: in_0[i] op in_1[i] op ...
template <class T, class OpT>
std::vector<T> host_fold(const std::vector<device_array>& ins, std::size_t count, OpT op) {
  std::vector<T> acc = copy_vector(ins[0].as<T>(), count, ins[0].device());
  for (std::size_t q = 1; q < ins.size(); ++q) {
    const std::vector<T> next = copy_vector(ins[q].as<T>(), count, ins[q].device());
    for (std::size_t i = 0; i < count; ++i) acc[i] = op(acc[i], next[i]);
  }
  return acc;
}

/// "" when got equals want bitwise, else where and how they first differ.
template <class T>
std::string first_difference(const std::vector<T>& got, const std::vector<T>& want) {
  if (std::memcmp(got.data(), want.data(), got.size() * sizeof(T)) == 0) return "";
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0)
      return "element " + std::to_string(i) + ": got " + value_to_string(got[i]) + ", want " + value_to_string(want[i]);
  return "";
}

/// NCCL's sum against the host's: bitwise for integers; for floats within 2 gamma(N-1) N max|x| (each of the two
/// sums is within gamma(N-1) sum|x| of the exact one, whatever its order, and sum|x| <= N max|x|).
template <class T>
std::string nccl_difference(const std::vector<T>& got, const std::vector<T>& want, int ranks) {
  if constexpr (std::is_integral_v<T>) {
    return first_difference(got, want);
  } else {
    const long double bound = 2 * gamma_bound(static_cast<std::size_t>(ranks - 1), unit_roundoff<T>()) * ranks *
                              float_fill_magnitude;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const long double e = std::fabs(static_cast<long double>(got[i]) - want[i]);
      if (!(e <= bound))
        return "element " + std::to_string(i) + ": got " + value_to_string(got[i]) + ", host sum " +
               value_to_string(want[i]) + " (|difference| " + value_to_string(static_cast<double>(e)) + " > bound " +
               value_to_string(static_cast<double>(bound)) + ")";
    }
    return "";
  }
}

template <class OpT, class T, class BaseT>
case_outcome run_all_reduce(session& s, const case_name& c, std::size_t bytes_asked) {
  static_assert(sizeof(T) % sizeof(BaseT) == 0, "the baseline's elements must tile ours");
  constexpr bool shared_input = std::is_same_v<T, BaseT>;  // NCCL reads our inputs
  case_outcome o;
  o.which = c;
  o.gpus = s.size();
  const int ranks = s.size();
  const std::size_t count = bytes_asked / sizeof(T);
  o.n = count;
  o.bytes = count * sizeof(T);
  if (count == 0) {
    o.reason = std::to_string(bytes_asked) + " bytes hold no " + std::to_string(sizeof(T)) + "-byte element";
    return o;
  }
  const std::size_t bytes = o.bytes, base_count = bytes / sizeof(BaseT);
  if (bytes != bytes_asked)
    o.notes.push_back(std::to_string(bytes_asked) + " bytes asked, " + std::to_string(bytes) + " used (whole elements)");
  // The send/receive path stages at most (P-1)/P of the vector (two pieces per other rank when pipelined); the
  // symmetric path's window is symmetric_workspace::default_bytes, and it falls back to send/receive when the window
  // cannot be made, so it needs room for either.
  const bool symmetric = s.opts.path == all_reduce_path::symmetric;
  const std::size_t send_recv_staging =
      s.opts.piece_bytes == 0 ? bytes : 2 * static_cast<std::size_t>(ranks - 1) * s.opts.piece_bytes;
  const std::size_t staging =
      ranks == 1 ? 0
                 : symmetric ? std::max(symmetric_workspace::default_bytes(ranks), send_recv_staging)
                             : send_recv_staging;
  std::vector<device_need> needs;
  for (int r = 0; r < ranks; ++r) {
    const int dev = s.ranks.device(r);
    needs.push_back({dev, (shared_input ? 3 : 4) * bytes + staging, free_device_bytes(dev),
                     "rank " + std::to_string(r) + "'s input, output, NCCL's buffers and the staging"});
  }
  if (const std::string problem = fit_problem(needs); !problem.empty()) {
    o.reason = problem;
    return o;
  }

  const std::uint64_t key = case_key(s.opts.seed, c);
  std::vector<device_array> ins, outs, base_ins, base_outs;
  std::vector<vector_shard<T>> shards;
  for (int r = 0; r < ranks; ++r) {
    const int dev = s.ranks.device(r);
    ins.emplace_back(dev, bytes);
    outs.emplace_back(dev, bytes);
    base_outs.emplace_back(dev, bytes);
    device_scope on(dev);
    fill_on_device(ins[r].as<T>(), count, 0, mix64(key + r + 1), s.ranks.stream(r));
    if constexpr (!shared_input) {
      base_ins.emplace_back(dev, bytes);
      fill_on_device(base_ins[r].as<BaseT>(), base_count, 0, mix64(~key + r + 1), s.ranks.stream(r));
    }
    shards.push_back({ins[r].as<T>(), outs[r].as<T>(), count, s.ranks.stream(r)});
  }
  const std::vector<device_array>& nccl_ins = shared_input ? ins : base_ins;
  s.wait();

  all_reduce_options ar;
  ar.piece_bytes = s.opts.piece_bytes;
  // Made once per case, outside the timed runs (a collective registration, as an application would do it once).
  std::unique_ptr<symmetric_workspace> workspace;
  std::string path_name = "send/recv";
  if (symmetric) {
    try {
      workspace = std::make_unique<symmetric_workspace>(s.group);
      ar.workspace = workspace.get();
      path_name = "symmetric memory";
    } catch (const std::exception& e) {
      o.notes.push_back(std::string("symmetric memory could not be made, so the send/recv path was timed: ") +
                        e.what());
    }
  }
  const auto enqueue_ours = [&s, &shards, ar] { reducelab::multigpu::all_reduce(s.group, shards, OpT{}, ar); };
  const auto enqueue_nccl = [&s, &nccl_ins, &base_outs, base_count, ranks] {
    REDUCELAB_NCCL_TRY(ncclGroupStart());
    try {
      for (int r = 0; r < ranks; ++r)
        REDUCELAB_NCCL_TRY(ncclAllReduce(nccl_ins[r].as<BaseT>(), base_outs[r].as<BaseT>(), base_count,
                                         nccl_type<BaseT>(), ncclSum, s.group.comm(r), s.ranks.stream(r)));
    } catch (...) {
      ncclGroupEnd();
      throw;
    }
    REDUCELAB_NCCL_TRY(ncclGroupEnd());
  };
  const auto poison = [&](const std::vector<device_array>& v) {
    for (int r = 0; r < ranks; ++r) {
      device_scope on(v[r].device());
      CUDA_TRY(cudaMemsetAsync(v[r].as<void>(), 0xA5, v[r].bytes(), s.ranks.stream(r)));
    }
  };
  const auto check = [&o](std::string name, bool ok, std::string detail) {
    o.checks.push_back({std::move(name), ok, std::move(detail)});
    return ok;
  };

  const std::vector<T> want = host_fold<T>(ins, count, OpT{});
  std::vector<std::uint64_t> first_hashes(ranks);
  std::string wrong, differs;
  for (int k = 0; k < 3; ++k) {
    poison(outs);
    s.ranks.fork();
    enqueue_ours();
    s.ranks.join();
    s.wait();
    for (int r = 0; r < ranks; ++r) {
      const std::vector<T> got = copy_vector(outs[r].as<T>(), count, outs[r].device());
      if (wrong.empty()) {
        if (const std::string d = first_difference(got, want); !d.empty())
          wrong = "run " + std::to_string(k) + ", rank " + std::to_string(r) + ", " + d;
      }
      const std::uint64_t h = content_hash(got.data(), bytes);
      if (k == 0) first_hashes[r] = h;
      else if (differs.empty() && h != first_hashes[r])
        differs = "rank " + std::to_string(r) + ": run " + std::to_string(k) + "'s output differs from run 0's";
    }
  }
  check("every rank equals the host's rank-order fold (3 runs)", wrong.empty(),
        wrong.empty() ? std::to_string(count) + " elements on each of " + std::to_string(ranks) + " rank(s)" : wrong);
  bool identical = check("run to run (3 runs)", differs.empty(), differs.empty() ? "bitwise identical" : differs);
  o.run_to_run_identical = identical;

  poison(base_outs);
  s.ranks.fork();
  enqueue_nccl();
  s.ranks.join();
  s.wait();
  {
    std::vector<BaseT> base_want;
    if constexpr (shared_input && std::is_same_v<OpT, functors::plus>) base_want = want;
    else base_want = host_fold<BaseT>(nccl_ins, base_count, functors::plus{});
    std::string nccl_wrong;
    for (int r = 0; r < ranks && nccl_wrong.empty(); ++r) {
      const std::string d = nccl_difference(copy_vector(base_outs[r].as<BaseT>(), base_count, base_outs[r].device()),
                                            base_want, ranks);
      if (!d.empty()) nccl_wrong = "rank " + std::to_string(r) + ", " + d;
    }
    check(std::string("ncclAllReduce's output (") + (std::is_integral_v<BaseT> ? "bitwise" : "within the float bound") +
              ")",
          nccl_wrong.empty(), nccl_wrong.empty() ? "matches the host's sum" : nccl_wrong);
  }

  if (o.stop_untimed_if_failed()) return o;

  const std::string ours_name =
      "reducelab::multigpu::all_reduce over " + std::to_string(ranks) + " GPU(s), " + path_name;
  const std::string base_name = std::string("ncclAllReduce(sum, ") + value_name_v<BaseT> + ")" +
                                (shared_input ? "" : " on the same bytes");
  const std::vector<timing::timed_work> works = {s.across_ranks(ours_name, enqueue_ours),
                                                 s.across_ranks(base_name, enqueue_nccl)};
  const std::vector<timing::work_samples> samples = s.engine.measure(works, s.plan);
  s.wait();
  s.record(o, ours_name, samples[0], base_name, samples[1]);
  o.ours_algbw = algbw_gb_per_s(bytes, o.ours.median_us);
  o.baseline_algbw = algbw_gb_per_s(bytes, o.baseline.median_us);
  o.ours_busbw = busbw_gb_per_s(bytes, o.ours.median_us, ranks);
  o.baseline_busbw = busbw_gb_per_s(bytes, o.baseline.median_us, ranks);
  if (ranks == 1) o.notes.push_back("one rank: the bus factor 2(N-1)/N is 0, so bus bandwidth is 0; the ratio is of times");

  std::string after_differs;
  for (int r = 0; r < ranks && after_differs.empty(); ++r) {
    const std::vector<T> got = copy_vector(outs[r].as<T>(), count, outs[r].device());
    if (content_hash(got.data(), bytes) != first_hashes[r])
      after_differs = "rank " + std::to_string(r) + ": the output left by the timed runs differs from run 0's";
  }
  identical = check("run to run (after the timed runs)", after_differs.empty(),
                    after_differs.empty() ? "bitwise identical" : after_differs) && identical;
  o.run_to_run_identical = identical;
  o.settle();
  return o;
}

}  // namespace

case_outcome run_all_reduce_case(session& s, const case_name& c, std::size_t bytes) {
  const std::string label = c.label();
  if (label == "plus/int32") return run_all_reduce<functors::plus, std::int32_t, std::int32_t>(s, c, bytes);
  if (label == "plus/float") return run_all_reduce<functors::plus, float, float>(s, c, bytes);
  if (label == "argmax/float_idx32") return run_all_reduce<functors::argmax, functors::float_idx32, float>(s, c, bytes);
  throw std::logic_error("reducelab-multigpu: no all-reduce runner for " + label);
}

}  // namespace reducelab::multigpu::tool
