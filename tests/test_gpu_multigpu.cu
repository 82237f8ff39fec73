// reducelab::multigpu over NCCL (issue 14): results across GPUs equal the host's in-order fold exactly, for a sum,
// a non-commutative composition and argmax, whatever the split (empty shards included), and the refusals. Tests
// that need two GPUs skip, saying so, on machines with fewer; every test skips without a GPU.
#include "reducelab/multigpu.cuh"

#include "exact_test_functors.hpp"
#include "functors/argmax.cuh"
#include "gpu_test.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
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

/// Cuts for two GPUs: an even split, an awkward one, and each GPU's shard empty in turn.
std::vector<std::vector<std::size_t>> two_gpu_cuts(std::size_t n) { return {{n / 2}, {n / 3 + 7}, {0}, {n}}; }

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
