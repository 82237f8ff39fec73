// GPU: what CUB's operator-specific entries do with the identity, pinned down. DeviceReduce::Sum starts from
// T{} and Min from numeric_limits<T>::max() (cub/device/device_reduce.cuh), so they differ from the true
// identities -0.0 and +inf on inputs made only of -0.0 / +inf. ReduceLab's own variants return -0.0 / +inf.
#include "functors/minimum.cuh"
#include "functors/plus.cuh"
#include "gpu_test.hpp"
#include "lab/core/device_buffer.hpp"
#include "lab/variants/run_variant.cuh"
#include "lab/variants/all_variants.cuh"

#include <cub/device/device_reduce.cuh>

#include <cmath>
#include <limits>
#include <vector>

using reducelab::device_buffer;

namespace {
template <class RunT>
float reduce_with(const std::vector<float>& host, RunT run) {
  device_buffer in(host.size() * sizeof(float)), out(sizeof(float));
  CUDA_TRY(cudaMemcpy(in.data(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  run(static_cast<const float*>(in.data()), static_cast<int>(host.size()), static_cast<float*>(out.data()));
  float r = 0;
  CUDA_TRY(cudaMemcpy(&r, out.data(), sizeof r, cudaMemcpyDeviceToHost));
  return r;
}
}  // namespace

TEST(CubInitialValues, SumOfNegativeZerosAndMinOfInfinities) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  const std::vector<float> zeros(1000, -0.0f);
  const float cub_sum = reduce_with(zeros, [](const float* in, int n, float* out) {
    std::size_t bytes = 0;
    CUDA_TRY(cub::DeviceReduce::Sum(nullptr, bytes, in, out, n));
    device_buffer ws(bytes);
    CUDA_TRY(cub::DeviceReduce::Sum(ws.data(), bytes, in, out, n));
  });
  EXPECT_EQ(cub_sum, 0.0f);
  EXPECT_FALSE(std::signbit(cub_sum)) << "CUB's Sum starts from +0.0";
  using V = reducelab::variants::grid_stride_shuffle;
  const float ours = reduce_with(zeros, [](const float* in, int n, float* out) {
    const std::size_t bytes = reducelab::variant_workspace_bytes<V, reducelab::functors::plus, float>(n);
    device_buffer ws(bytes);
    reducelab::run_variant<V>(in, n, out, ws.data(), bytes, reducelab::functors::plus{});
  });
  EXPECT_TRUE(std::signbit(ours)) << "identity -0.0 keeps the sum of negative zeros negative";

  const std::vector<float> infinities(1000, std::numeric_limits<float>::infinity());
  const float cub_min = reduce_with(infinities, [](const float* in, int n, float* out) {
    std::size_t bytes = 0;
    CUDA_TRY(cub::DeviceReduce::Min(nullptr, bytes, in, out, n));
    device_buffer ws(bytes);
    CUDA_TRY(cub::DeviceReduce::Min(ws.data(), bytes, in, out, n));
  });
  EXPECT_EQ(cub_min, std::numeric_limits<float>::max()) << "CUB's Min starts from max(), not +inf";
}
