// GPU: run_variant (one ladder step by name): its contract - empty ranges, null pointers, short workspaces.
#include "functors/affine_compose.cuh"
#include "functors/plus.cuh"
#include "gpu_test.hpp"
#include "lab/core/device_buffer.hpp"
#include "lab/variants/run_variant.cuh"
#include "lab/variants/all_variants.cuh"

#include <cmath>

namespace fn = reducelab::functors;
using reducelab::device_buffer;
using V = reducelab::variants::grid_stride_shuffle;

namespace {
template <class T>
T fetch(const device_buffer& b) {
  T v;
  CUDA_TRY(cudaMemcpy(&v, b.data(), sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}
}  // namespace

TEST(RunVariant, EmptyRangeGivesTheIdentity) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  device_buffer out(sizeof(float));
  CUDA_TRY(cudaMemset(out.data(), 0x7f, sizeof(float)));
  reducelab::run_variant<V>(static_cast<const float*>(nullptr), 0, static_cast<float*>(out.data()), nullptr, 0, fn::plus{});
  const float r = fetch<float>(out);
  EXPECT_EQ(r, 0.0f);
  EXPECT_TRUE(std::signbit(r));
}

TEST(RunVariant, NullPointersAreRefusedByName) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  device_buffer out(sizeof(int));
  try {
    reducelab::run_variant<V>(static_cast<const int*>(nullptr), 10, static_cast<int*>(out.data()), nullptr, 0, fn::plus{});
    ADD_FAILURE() << "null input accepted";
  } catch (const reducelab::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("input pointer is null"), std::string::npos) << e.what();
  }
  device_buffer in(sizeof(int) * 10);
  EXPECT_THROW(reducelab::run_variant<V>(static_cast<const int*>(in.data()), 10, static_cast<int*>(nullptr), nullptr, 0,
                                    fn::plus{}),
               reducelab::usage_error);
}

TEST(RunVariant, ShortWorkspaceIsRefused) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  const std::size_t n = 1 << 22;
  const std::size_t need = reducelab::variant_workspace_bytes<V, fn::plus, int>(n);
  ASSERT_GT(need, 0u);
  device_buffer in(n * sizeof(int)), out(sizeof(int)), ws(need);
  EXPECT_THROW(reducelab::run_variant<V>(static_cast<const int*>(in.data()), n, static_cast<int*>(out.data()), ws.data(),
                                    need - 1, fn::plus{}),
               reducelab::usage_error);
}

TEST(RunVariant, FailedAllocationThrowsAndLeavesNoStickyError) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  EXPECT_THROW(device_buffer(std::size_t{1} << 62), reducelab::cuda_error);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(RunVariant, NonCommutativeOrderOnTheGpu) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  // Identity-free check that order is kept: composing x -> 2x, then x -> x+1 gives 2x+1 (the other order 2x+2).
  const std::size_t n = 3;
  const fn::affine32 maps[n] = {{2, 0}, {1, 1}, {1, 0}};
  device_buffer in(sizeof maps), out(sizeof(fn::affine32));
  CUDA_TRY(cudaMemcpy(in.data(), maps, sizeof maps, cudaMemcpyHostToDevice));
  const std::size_t bytes = reducelab::variant_workspace_bytes<V, fn::affine_compose, fn::affine32>(n);
  device_buffer ws(bytes);
  reducelab::run_variant<V>(static_cast<const fn::affine32*>(in.data()), n, static_cast<fn::affine32*>(out.data()),
                       ws.data(), bytes, fn::affine_compose{});
  const auto r = fetch<fn::affine32>(out);
  EXPECT_EQ(r.a, 2u);
  EXPECT_EQ(r.b, 1u);
}

TEST(RunVariant, InvalidLaunchConfigurationThrowsAndClears) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  device_buffer in(sizeof(int) * 64), out(sizeof(int));
  // 2048 threads per block is over every GPU's limit: the launch is refused, CUDA_TRY_LAUNCH throws.
  reducelab::kernels::grid_stride_shuffle<256><<<1, 2048>>>(static_cast<const int*>(in.data()), 64,
                                                           static_cast<int*>(out.data()), fn::plus{});
  try {
    CUDA_TRY_LAUNCH();
    ADD_FAILURE() << "an invalid launch was not reported";
  } catch (const reducelab::cuda_error& e) {
    // CUDA 13 reports an over-sized block as cudaErrorInvalidValue, earlier releases as InvalidConfiguration.
    EXPECT_TRUE(e.code() == cudaErrorInvalidConfiguration || e.code() == cudaErrorInvalidValue) << e.what();
    EXPECT_NE(std::string(e.what()).find("test_gpu_api.cu"), std::string::npos) << "names file and line: " << e.what();
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the error must not stick";
}
