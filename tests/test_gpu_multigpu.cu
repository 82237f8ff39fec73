// reducelab::multigpu over NCCL (issue 14): results across GPUs equal the host's in-order fold exactly, for a sum,
// a non-commutative composition and argmax, whatever the split (empty shards included), and the refusals. Tests
// that need two GPUs skip, saying so, on machines with fewer; every test skips without a GPU.
#include "reducelab/multigpu.cuh"

#include "exact_test_functors.hpp"
#include "functors/argmax.cuh"
#include "functors/plus.cuh"
#include "gpu_test.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace multigpu_test {

using exact_test::add;
using exact_test::affine_u32;
using exact_test::compose;
using reducelab::functors::argmax;
using reducelab::functors::float_idx32;
namespace mg = reducelab::multigpu;

int device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

#define SKIP_WITH_FEWER_GPUS_THAN(k)                                                                       \
  do {                                                                                                     \
    REDUCELAB_SKIP_WITHOUT_GPU();                                                                          \
    if (device_count() < (k))                                                                              \
      GTEST_SKIP() << "multi-GPU test skipped: needs " << (k) << " GPUs, this machine has " << device_count(); \
  } while (0)

/// Device memory on a given device, freed on that device.
class device_buffer {
 public:
  device_buffer(int device, std::size_t bytes) : device_(device) {
    mg::device_scope on(device_);
    CUDA_TRY(cudaMalloc(&p_, bytes == 0 ? 1 : bytes));
  }
  ~device_buffer() {
    mg::device_scope on(device_);
    cudaFree(p_);
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  int device_;
  void* p_ = nullptr;
};

using exact_test::same;  // affine_u32
bool same(std::int32_t x, std::int32_t y) { return x == y; }
bool same(const float_idx32& x, const float_idx32& y) { return x == y; }
std::string show(const affine_u32& x) { return "(" + std::to_string(x.a) + ", " + std::to_string(x.b) + ")"; }
std::string show(std::int32_t x) { return std::to_string(x); }
std::string show(const float_idx32& x) { return x.to_string(); }
bool same(float x, float y) { return std::memcmp(&x, &y, sizeof(float)) == 0; }  // bitwise
std::string show(float x) { return std::to_string(x); }


/// Wait on every device until the setup's cudaMemcpy and cudaMemset have landed: they go to the legacy default
/// stream, which the shards' non-blocking streams do not wait for (a cudaMemset of the outputs that landed after the
/// all-reduce had written them failed OneRankGroupCopiesAndInPlaceIsANoOp under `ctest --parallel 8`, stop 31).
void settle_legacy_streams(int ndev) {
  for (int r = 0; r < ndev; ++r) {
    mg::device_scope on(r);
    CUDA_TRY(cudaDeviceSynchronize());
  }
}

template <class T, class OpT>
T host_fold(const std::vector<T>& v, OpT op) {
  T acc = reducelab::identity_of<OpT, T>();
  for (const T& x : v) acc = op(acc, x);
  return acc;
}

/// Split `host` at `cuts` over the devices 0..ndev-1 (rank r gets [cuts[r-1], cuts[r])), reduce across the group,
/// and check every rank's result against the host's in-order fold.
template <class T, class OpT>
void expect_group_exact(const std::vector<T>& host, const std::vector<std::size_t>& cuts, OpT op) {
  const int ndev = static_cast<int>(cuts.size()) + 1;
  std::vector<int> devices;
  for (int d = 0; d < ndev; ++d) devices.push_back(d);
  mg::local_group group(devices);
  std::vector<std::unique_ptr<device_buffer>> ins, outs;
  std::vector<mg::shard<T>> shards;
  std::vector<cudaStream_t> streams;
  for (int r = 0; r < ndev; ++r) {
    const std::size_t begin = r == 0 ? 0 : cuts[r - 1];
    const std::size_t end = r == ndev - 1 ? host.size() : cuts[r];
    ins.push_back(std::make_unique<device_buffer>(r, (end - begin) * sizeof(T)));
    outs.push_back(std::make_unique<device_buffer>(r, sizeof(T)));
    mg::device_scope on(r);
    CUDA_TRY(cudaMemcpy(ins.back()->as<T>(), host.data() + begin, (end - begin) * sizeof(T), cudaMemcpyHostToDevice));
    cudaStream_t s = nullptr;
    CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    streams.push_back(s);
    shards.push_back({ins.back()->as<T>(), end - begin, outs.back()->as<T>(), s});
  }
  settle_legacy_streams(ndev);
  mg::reduce(group, shards, op);
  group.wait(streams, std::chrono::seconds(60));
  const T want = host_fold(host, op);
  for (int r = 0; r < ndev; ++r) {
    mg::device_scope on(r);
    T got;
    CUDA_TRY(cudaMemcpy(&got, outs[r]->as<T>(), sizeof(T), cudaMemcpyDeviceToHost));
    EXPECT_TRUE(same(got, want)) << "rank " << r << " of " << ndev << ", n = " << host.size() << ", first cut "
                                 << cuts[0] << ": got " << show(got) << ", want " << show(want);
    CUDA_TRY(cudaStreamDestroy(streams[r]));
  }
}

std::vector<std::int32_t> random_ints(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> v(n);
  for (auto& x : v) x = static_cast<std::int32_t>(rng());  // wraps: exact in two's complement
  return v;
}

std::vector<float_idx32> random_pairs(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float_idx32> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = {static_cast<float>(rng() % 100), static_cast<std::uint32_t>(i)};
  return v;  // values 0..99: the maximum appears many times, on both GPUs, so ties decide the index
}

/// Cuts for two GPUs: an even split, an awkward one (never past n: for n = 7 it is 7), and each GPU's shard empty
/// in turn.
std::vector<std::vector<std::size_t>> two_gpu_cuts(std::size_t n) {
  return {{n / 2}, {std::min(n / 3 + 7, n)}, {0}, {n}};
}

}  // namespace multigpu_test
using namespace multigpu_test;

TEST(MultiGpu, Int32SumOverTwoGpusIsExact) {
  SKIP_WITH_FEWER_GPUS_THAN(2);
  for (std::size_t n : {std::size_t{33}, std::size_t{65'536 + 17}, std::size_t{3'000'017}})
    for (const auto& cuts : two_gpu_cuts(n)) expect_group_exact(random_ints(n, n), cuts, add{});
}

TEST(MultiGpu, NonCommutativeFunctorGetsTheRankOrderResult) {
  SKIP_WITH_FEWER_GPUS_THAN(2);
  for (std::size_t n : {std::size_t{7}, std::size_t{1'000'003}})
    for (const auto& cuts : two_gpu_cuts(n)) expect_group_exact(exact_test::random_maps(n, 3 * n), cuts, compose{});
}

TEST(MultiGpu, ArgmaxTiesGoToTheLowerIndexAcrossGpus) {
  SKIP_WITH_FEWER_GPUS_THAN(2);
  for (std::size_t n : {std::size_t{100}, std::size_t{1'000'003}})
    for (const auto& cuts : two_gpu_cuts(n)) expect_group_exact(random_pairs(n, 5 * n), cuts, argmax{});
}

TEST(MultiGpu, OneRankCommunicatorWithTheSingleRankEntry) {
  SKIP_WITH_FEWER_GPUS_THAN(1);
  mg::local_group group({0});
  const std::size_t n = 100'003;
  const std::vector<affine_u32> host = exact_test::random_maps(n, 9);
  device_buffer in(0, n * sizeof(affine_u32)), out(0, sizeof(affine_u32));
  mg::device_scope on(0);
  CUDA_TRY(cudaMemcpy(in.as<affine_u32>(), host.data(), n * sizeof(affine_u32), cudaMemcpyHostToDevice));
  ncclComm_t comm = group.comm(0);
  mg::reduce(in.as<const affine_u32>(), n, out.as<affine_u32>(), compose{}, comm, nullptr);
  mg::wait(comm, nullptr, std::chrono::seconds(60));
  affine_u32 got;
  CUDA_TRY(cudaMemcpy(&got, out.as<affine_u32>(), sizeof(got), cudaMemcpyDeviceToHost));
  EXPECT_TRUE(same(got, host_fold(host, compose{})));
}

TEST(MultiGpu, CommunicatorOfAnotherDeviceIsRefused) {
  SKIP_WITH_FEWER_GPUS_THAN(2);
  mg::local_group group({0, 1});
  device_buffer in(1, 64 * sizeof(std::int32_t)), out(1, sizeof(std::int32_t));
  mg::device_scope on(1);
  try {
    mg::reduce(in.as<const std::int32_t>(), 64, out.as<std::int32_t>(), add{}, group.comm(0), nullptr);
    FAIL() << "a communicator of device 0 used from device 1 was accepted";
  } catch (const reducelab::usage_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("belongs to device 0"), std::string::npos) << what;
    EXPECT_NE(what.find("current device is 1"), std::string::npos) << what;
  }
}

TEST(MultiGpu, SizeAndShardCountMismatchesAreRefused) {
  SKIP_WITH_FEWER_GPUS_THAN(1);
  mg::local_group group({0});
  EXPECT_THROW(mg::expect_comm_size(group.comm(0), 2), reducelab::usage_error);
  mg::expect_comm_size(group.comm(0), 1);
  std::vector<mg::shard<std::int32_t>> two(2);
  EXPECT_THROW(mg::reduce(group, two, add{}), reducelab::usage_error);
  EXPECT_THROW(mg::local_group({0, 0}), reducelab::usage_error);
  EXPECT_THROW(mg::local_group({device_count()}), reducelab::usage_error);
}

// ---------------------------------------------------------------------------------------------------------
// Elementwise all-reduce
// ---------------------------------------------------------------------------------------------------------
namespace multigpu_test {

/// Every rank's vector; rank r's element i is the host's vectors[r][i]. Checks every rank's out against the
/// rank-order fold on the host, element by element, and returns rank 0's output (for run-to-run checks).
/// With `symmetric` set, the all-reduce runs over a symmetric_workspace of that many bytes (0: the default size)
/// made for the group.
template <class T, class OpT>
std::vector<T> expect_all_reduce_exact(const std::vector<std::vector<T>>& vectors, OpT op,
                                       mg::all_reduce_options options, bool in_place,
                                       std::optional<std::size_t> symmetric = std::nullopt) {
  const int ndev = static_cast<int>(vectors.size());
  const std::size_t n = vectors[0].size();
  std::vector<int> devices;
  for (int d = 0; d < ndev; ++d) devices.push_back(d);
  mg::local_group group(devices);
  std::unique_ptr<mg::symmetric_workspace> workspace;
  if (symmetric) {
    workspace = std::make_unique<mg::symmetric_workspace>(group, *symmetric);
    options.workspace = workspace.get();
  }
  std::vector<std::unique_ptr<device_buffer>> ins, outs;
  std::vector<mg::vector_shard<T>> shards;
  std::vector<cudaStream_t> streams;
  for (int r = 0; r < ndev; ++r) {
    ins.push_back(std::make_unique<device_buffer>(r, n * sizeof(T)));
    outs.push_back(std::make_unique<device_buffer>(r, n * sizeof(T)));
    mg::device_scope on(r);
    CUDA_TRY(cudaMemcpy(ins.back()->as<T>(), vectors[r].data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemset(outs.back()->as<T>(), 0xA5, n * sizeof(T)));  // an element never written shows
    cudaStream_t s = nullptr;
    CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    streams.push_back(s);
    T* out = in_place ? ins.back()->as<T>() : outs.back()->as<T>();
    shards.push_back({ins.back()->as<T>(), out, n, s});
  }
  settle_legacy_streams(ndev);
  mg::all_reduce(group, shards, op, options);
  group.wait(streams, std::chrono::seconds(60));
  std::vector<T> want(n);
  for (std::size_t i = 0; i < n; ++i) {
    T acc = vectors[0][i];
    for (int r = 1; r < ndev; ++r) acc = op(acc, vectors[r][i]);
    want[i] = acc;
  }
  std::vector<T> first;
  for (int r = 0; r < ndev; ++r) {
    mg::device_scope on(r);
    std::vector<T> got(n);
    CUDA_TRY(cudaMemcpy(got.data(), shards[r].out, n * sizeof(T), cudaMemcpyDeviceToHost));
    std::size_t wrong = 0, first_wrong = n;
    for (std::size_t i = 0; i < n; ++i)
      if (!same(got[i], want[i])) {
        ++wrong;
        first_wrong = std::min(first_wrong, i);
      }
    EXPECT_EQ(wrong, 0u) << "rank " << r << " of " << ndev << ", n = " << n << ", piece " << options.piece_bytes
                         << " B" << (in_place ? ", in place" : "")
                         << (symmetric ? ", symmetric workspace of " + std::to_string(workspace->bytes()) +
                                             " B, slots of at most " + std::to_string(options.symmetric_slot_bytes) +
                                             " B (0: default)"
                                       : std::string())
                         << ": " << wrong << " elements differ, first ["
                         << first_wrong << "] got "
                         << (first_wrong < n ? show(got[first_wrong]) + ", want " + show(want[first_wrong]) : "");
    if (r == 0) first = got;
    CUDA_TRY(cudaStreamDestroy(streams[r]));
  }
  return first;
}

template <class MakeT>
auto per_rank_vectors(int ndev, std::size_t n, MakeT make) {
  std::vector<decltype(make(n, std::uint64_t{0}))> v;
  for (int r = 0; r < ndev; ++r) v.push_back(make(n, 1000 + 17 * r + n));
  return v;
}

std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

}  // namespace multigpu_test

TEST(MultiGpuAllReduce, ExactOverTwoGpusForEveryPieceCut) {
  SKIP_WITH_FEWER_GPUS_THAN(2);
  mg::all_reduce_options small, mid, huge;
  small.piece_bytes = 1024;        // many pipeline steps, with the last pieces short or empty on one rank
  small.fold_blocks = 3;           // a fold of few blocks, striding over its pieces
  mid.piece_bytes = 64 * 1024;     // a few pipelined pieces of the largest n
  huge.piece_bytes = ~std::size_t{0} / 2;  // more than any chunk: one piece, the staging sized by the chunk
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{1'000'003}}) {
    // The default (piece_bytes 0) is one piece per chunk: no pipelining.
    for (const auto& options : {small, mid, huge, mg::all_reduce_options{}}) {
      expect_all_reduce_exact(per_rank_vectors(2, n, random_ints), add{}, options, false);
      expect_all_reduce_exact(per_rank_vectors(2, n, [](std::size_t m, std::uint64_t s) {
                                return exact_test::random_maps(m, s);
                              }),
                              compose{}, options, n % 2 == 1);
      expect_all_reduce_exact(per_rank_vectors(2, n, random_pairs), argmax{}, options, false);
      expect_all_reduce_exact(per_rank_vectors(2, n, random_floats), reducelab::functors::plus{}, options, true);
    }
  }
}

TEST(MultiGpuAllReduce, IdenticalRunToRun) {
  SKIP_WITH_FEWER_GPUS_THAN(2);
  const auto v = per_rank_vectors(2, 3'000'001, random_floats);
  const auto first = expect_all_reduce_exact(v, reducelab::functors::plus{}, {}, false);
  const auto second = expect_all_reduce_exact(v, reducelab::functors::plus{}, {}, false);
  EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(float)), 0);
}

TEST(MultiGpuAllReduce, OneRankGroupCopiesAndInPlaceIsANoOp) {
  SKIP_WITH_FEWER_GPUS_THAN(1);
  for (bool in_place : {false, true}) {
    expect_all_reduce_exact(per_rank_vectors(1, 100'003, [](std::size_t m, std::uint64_t s) {
                              return exact_test::random_maps(m, s);
                            }),
                            compose{}, {}, in_place);
  }
}

TEST(MultiGpuAllReduce, NegativeFoldBlocksAreRefused) {
  SKIP_WITH_FEWER_GPUS_THAN(2);
  mg::local_group group({0, 1});
  device_buffer a(0, 100 * sizeof(int)), b(1, 100 * sizeof(int));
  std::vector<mg::vector_shard<std::int32_t>> shards = {{a.as<std::int32_t>(), a.as<std::int32_t>(), 100, nullptr},
                                                        {b.as<std::int32_t>(), b.as<std::int32_t>(), 100, nullptr}};
  mg::all_reduce_options options;
  options.fold_blocks = -1;
  try {
    mg::all_reduce(group, shards, add{}, options);
    FAIL() << "fold_blocks = -1 was accepted";
  } catch (const reducelab::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("fold_blocks = -1 is negative"), std::string::npos) << e.what();
  }
}

TEST(MultiGpuAllReduce, UnequalLengthsAreRefusedBeforeAnythingRuns) {
  SKIP_WITH_FEWER_GPUS_THAN(2);
  mg::local_group group({0, 1});
  device_buffer a(0, 100 * sizeof(int)), b(1, 101 * sizeof(int));
  std::vector<mg::vector_shard<std::int32_t>> shards = {{a.as<std::int32_t>(), a.as<std::int32_t>(), 100, nullptr},
                                                        {b.as<std::int32_t>(), b.as<std::int32_t>(), 101, nullptr}};
  try {
    mg::all_reduce(group, shards, add{});
    FAIL() << "unequal lengths were accepted";
  } catch (const reducelab::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 0 has 100, rank 1 has 101"), std::string::npos) << e.what();
  }
}

// The symmetric path: one kernel per rank over NCCL symmetric memory (symmetric_all_reduce.cuh).
TEST(MultiGpuSymmetric, ExactOverTwoGpusInOneRoundAndInMany) {
  SKIP_WITH_FEWER_GPUS_THAN(2);
  mg::all_reduce_options default_slots, tiny_slots;
  tiny_slots.symmetric_slot_bytes = 1000;  // many rounds, cut to 16-byte multiples, short last round
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{1'000'003}}) {
    for (const auto& options : {default_slots, tiny_slots}) {
      // The default workspace; one of 4 KiB whose size alone forces rounds (one block: a slot is at most 512
      // elements); one of 64 KiB, whose rounds take several blocks and end in a short round (the blocks must own
      // the same slot positions in it as before).
      for (std::size_t bytes : {std::size_t{0}, std::size_t{4096}, std::size_t{65536}}) {
        expect_all_reduce_exact(per_rank_vectors(2, n, random_ints), add{}, options, false, bytes);
        expect_all_reduce_exact(per_rank_vectors(2, n, [](std::size_t m, std::uint64_t s) {
                                  return exact_test::random_maps(m, s);
                                }),
                                compose{}, options, n % 2 == 1, bytes);
        expect_all_reduce_exact(per_rank_vectors(2, n, random_pairs), argmax{}, options, false, bytes);
        expect_all_reduce_exact(per_rank_vectors(2, n, random_floats), reducelab::functors::plus{}, options, true,
                                bytes);
      }
    }
  }
}

TEST(MultiGpuSymmetric, IdenticalRunToRunAndOneRankCopies) {
  SKIP_WITH_FEWER_GPUS_THAN(1);
  if (device_count() >= 2) {
    const auto v = per_rank_vectors(2, 3'000'001, random_floats);
    const auto first = expect_all_reduce_exact(v, reducelab::functors::plus{}, {}, false, std::size_t{0});
    const auto second = expect_all_reduce_exact(v, reducelab::functors::plus{}, {}, false, std::size_t{0});
    EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(float)), 0);
  }
  for (bool in_place : {false, true})
    expect_all_reduce_exact(per_rank_vectors(1, 100'003, random_ints), add{}, {}, in_place, std::size_t{0});
}

TEST(MultiGpuSymmetric, RefusesAWorkspaceOfAnotherCommunicator) {
  SKIP_WITH_FEWER_GPUS_THAN(2);
  mg::local_group group({0, 1}), other({0, 1});
  mg::symmetric_workspace workspace(other);
  device_buffer a(0, 100 * sizeof(int)), b(1, 100 * sizeof(int));
  std::vector<mg::vector_shard<std::int32_t>> shards = {{a.as<std::int32_t>(), a.as<std::int32_t>(), 100, nullptr},
                                                        {b.as<std::int32_t>(), b.as<std::int32_t>(), 100, nullptr}};
  mg::all_reduce_options options;
  options.workspace = &workspace;
  try {
    mg::all_reduce(group, shards, add{}, options);
    FAIL() << "a workspace of another communicator was accepted";
  } catch (const reducelab::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("has no window for this communicator"), std::string::npos) << e.what();
  }
}

TEST(MultiGpuSymmetric, SlotsFitTheWorkspaceAndAreCutToSixteenBytes) {
  // Host logic only: elements per slot for (workspace bytes, ranks, longest chunk, slot cap).
  using mg::detail::symmetric_slot_elems;
  EXPECT_EQ(symmetric_slot_elems<float>(4096, 2, 100, 1 << 20), 100u);    // the whole chunk fits: one round
  EXPECT_EQ(symmetric_slot_elems<float>(4096, 2, 10'000, 1 << 20), 512u);  // 4096 / (2 slots x 4 B)
  EXPECT_EQ(symmetric_slot_elems<float>(4096, 3, 10'000, 1 << 20), 256u);  // two other ranks: four slots
  EXPECT_EQ(symmetric_slot_elems<float>(1 << 20, 2, 10'000, 1000), 248u);  // the cap, cut to 16-byte multiples
  EXPECT_EQ(symmetric_slot_elems<float_idx32>(1 << 20, 2, 10'000, 1000), 124u);
  EXPECT_EQ(symmetric_slot_elems<double>(8, 2, 10, 1 << 20), 0u);          // not one element per slot: refused
  for (std::size_t bytes : {std::size_t{4096}, std::size_t{12'345}, std::size_t{1} << 24})
    for (int ranks : {2, 3, 8}) {
      const std::size_t slot = symmetric_slot_elems<float_idx32>(bytes, ranks, 1'000'000, 1 << 20);
      EXPECT_LE(2 * (ranks - 1) * slot * sizeof(float_idx32), bytes) << bytes << " B, " << ranks << " ranks";
      EXPECT_EQ(slot * sizeof(float_idx32) % 16, 0u) << bytes << " B, " << ranks << " ranks";
    }
}

// One thread per GPU, each with its own rank_communicator: the one-process-per-GPU path (NCCL sees the same
// thing from threads as from processes: ncclCommInitRank with a shared id).
namespace multigpu_test {
template <class BodyT>
void on_every_rank(int ndev, BodyT body) {
  const ncclUniqueId id = mg::make_unique_id();
  std::vector<std::thread> threads;
  std::vector<std::string> failures(static_cast<std::size_t>(ndev));
  for (int r = 0; r < ndev; ++r) {
    threads.emplace_back([&, r] {
      try {
        CUDA_TRY(cudaSetDevice(r));
        mg::rank_communicator comm(id, ndev, r);
        body(r, comm);
      } catch (const std::exception& e) {
        failures[r] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < ndev; ++r) EXPECT_EQ(failures[r], "") << "rank " << r;
}
}  // namespace multigpu_test

TEST(MultiGpuPerRank, ScalarAndAllReduceFromOneThreadPerGpu) {
  SKIP_WITH_FEWER_GPUS_THAN(1);
  const int ndev = std::min(device_count(), 2);
  const std::size_t n = 500'009;
  const auto vectors = per_rank_vectors(ndev, n, [](std::size_t m, std::uint64_t s) {
    return exact_test::random_maps(m, s);
  });
  std::vector<affine_u32> want_vec(n);
  affine_u32 want_scalar = reducelab::identity_of<compose, affine_u32>();
  for (int r = 0; r < ndev; ++r)
    for (const auto& x : vectors[r]) want_scalar = compose{}(want_scalar, x);
  for (std::size_t i = 0; i < n; ++i) {
    affine_u32 acc = vectors[0][i];
    for (int r = 1; r < ndev; ++r) acc = compose{}(acc, vectors[r][i]);
    want_vec[i] = acc;
  }
  on_every_rank(ndev, [&](int r, mg::rank_communicator& comm) {
    device_buffer in(r, n * sizeof(affine_u32)), out(r, n * sizeof(affine_u32)), scalar(r, sizeof(affine_u32));
    CUDA_TRY(cudaMemcpy(in.as<affine_u32>(), vectors[r].data(), n * sizeof(affine_u32), cudaMemcpyHostToDevice));
    mg::reduce(in.as<const affine_u32>(), n, scalar.as<affine_u32>(), compose{}, comm.get(), nullptr);
    mg::all_reduce(in.as<const affine_u32>(), out.as<affine_u32>(), n, compose{}, comm.get_ref(), nullptr);
    mg::wait(comm.get_ref(), nullptr, std::chrono::seconds(60));
    affine_u32 got_scalar;
    std::vector<affine_u32> got(n);
    CUDA_TRY(cudaMemcpy(&got_scalar, scalar.as<affine_u32>(), sizeof(got_scalar), cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaMemcpy(got.data(), out.as<affine_u32>(), n * sizeof(affine_u32), cudaMemcpyDeviceToHost));
    EXPECT_TRUE(same(got_scalar, want_scalar)) << "rank " << r << ": " << show(got_scalar);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += same(got[i], want_vec[i]) ? 0 : 1;
    EXPECT_EQ(wrong, 0u) << "rank " << r;
    // The symmetric path from one thread per rank: each rank makes its part of the workspace (collective).
    mg::symmetric_workspace workspace(comm.get(), 64 * 1024);  // rounds of 4096 maps (8 bytes each)
    mg::all_reduce_options options;
    options.workspace = &workspace;
    CUDA_TRY(cudaMemset(out.as<affine_u32>(), 0xA5, n * sizeof(affine_u32)));
    mg::all_reduce(in.as<const affine_u32>(), out.as<affine_u32>(), n, compose{}, comm.get_ref(), nullptr, options);
    mg::wait(comm.get_ref(), nullptr, std::chrono::seconds(60));
    CUDA_TRY(cudaMemcpy(got.data(), out.as<affine_u32>(), n * sizeof(affine_u32), cudaMemcpyDeviceToHost));
    wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += same(got[i], want_vec[i]) ? 0 : 1;
    EXPECT_EQ(wrong, 0u) << "rank " << r << ", symmetric workspace";
  });
}

TEST(MultiGpuPerRank, UnequalLengthsAreRefusedOnEveryRank) {
  SKIP_WITH_FEWER_GPUS_THAN(2);
  std::vector<std::string> messages(2);
  on_every_rank(2, [&](int r, mg::rank_communicator& comm) {
    const std::size_t n = 1000 + r;
    device_buffer buf(r, n * sizeof(int));
    try {
      mg::all_reduce(buf.as<const std::int32_t>(), buf.as<std::int32_t>(), n, add{}, comm.get_ref(), nullptr);
    } catch (const reducelab::usage_error& e) {
      messages[r] = e.what();
    }
  });
  for (int r = 0; r < 2; ++r)
    EXPECT_NE(messages[r].find("differ in length"), std::string::npos) << "rank " << r << ": '" << messages[r] << "'";
}

TEST(MultiGpuPerRank, AMissingRankIsReportedAfterTheTimeoutNotAHang) {
  SKIP_WITH_FEWER_GPUS_THAN(2);
  std::string message;
  on_every_rank(2, [&](int r, mg::rank_communicator& comm) {
    if (r == 1) {  // joins the communicator, never calls: rank 0 must not hang
      std::this_thread::sleep_for(std::chrono::seconds(3));
      comm.abort();
      return;
    }
    device_buffer buf(0, 1000 * sizeof(int));
    mg::all_reduce_options options;
    options.timeout = std::chrono::milliseconds(1500);
    const auto start = std::chrono::steady_clock::now();
    try {
      mg::all_reduce(buf.as<const std::int32_t>(), buf.as<std::int32_t>(), 1000, add{}, comm.get_ref(), nullptr,
                     options);
    } catch (const reducelab::nccl_error& e) {
      message = e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
    EXPECT_EQ(comm.get(), nullptr) << "the communicator should have been aborted";
  });
  EXPECT_NE(message.find("did not finish within 1500 ms"), std::string::npos) << message;
}
