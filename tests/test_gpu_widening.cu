// GPU: widening sums (lab/widening.cuh) and CUB's TransformReduce with the same float accumulator, both
// judged against the host reference: inputs converted to float (exactly), summed in long double, error bound
// gamma(depth) * sum|x| with u = 2^-24 (reducelab::judge_float_sum). Awkward sizes, pointers offset by one item
// (the scalar head), __half and __nv_bfloat16.
#include "comparisons/widening_baseline.cuh"
#include "gpu_test.hpp"
#include "lab/core/device_buffer.hpp"
#include "lab/host/accuracy.hpp"
#include "lab/widening.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using reducelab::device_buffer;

namespace {

constexpr std::uint64_t seed = 20240518;
const std::size_t sizes[] = {0, 1, 7, 8, 9, 1000, (std::size_t{1} << 20) + 3};
const std::size_t offsets[] = {0, 1};

template <class InputT>
InputT narrow(float x) {
  if constexpr (std::is_same_v<InputT, __half>) {
    return __float2half(x);
  } else {
    return __float2bfloat16(x);
  }
}

template <class InputT>
float widen(InputT x) {
  if constexpr (std::is_same_v<InputT, __half>) {
    return __half2float(x);
  } else {
    return __bfloat162float(x);
  }
}

/// offset + n items, the first `offset` unused; random in [-1, 1) after rounding to InputT, never zero.
template <class InputT>
std::vector<InputT> random_inputs(std::size_t n, std::size_t offset, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<InputT> v(offset + n, narrow<InputT>(0.25f));
  for (std::size_t i = offset; i < v.size(); ++i) {
    v[i] = narrow<InputT>(dist(rng));
    if (widen(v[i]) == 0.0f) v[i] = narrow<InputT>(0.5f);  // "never all zeros", here never any
  }
  return v;
}

float fetch(const device_buffer& b) {
  float v;
  CUDA_TRY(cudaMemcpy(&v, b.data(), sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

enum class backend { ours, cub };

/// Sum x[offset, offset + n) on the GPU with the given backend; the output is poisoned first.
template <class InputT>
float sum_on_gpu(backend which, const std::vector<InputT>& x, std::size_t offset) {
  const std::size_t n = x.size() - offset;
  device_buffer in(x.size() * sizeof(InputT)), out(sizeof(float));
  CUDA_TRY(cudaMemcpy(in.data(), x.data(), x.size() * sizeof(InputT), cudaMemcpyHostToDevice));
  CUDA_TRY(cudaMemset(out.data(), 0xA5, sizeof(float)));
  const InputT* d_in = static_cast<const InputT*>(in.data()) + offset;
  float* d_out = static_cast<float*>(out.data());
  if (which == backend::ours) {
    const std::size_t bytes = reducelab::widening_workspace_bytes<InputT, float>(n);
    device_buffer ws(bytes);
    reducelab::reduce_widening<InputT, float>(d_in, n, d_out, ws.data(), bytes);
  } else {
    const std::size_t bytes = reducelab::baselines::widening_cub_workspace_bytes<InputT, float>(n);
    device_buffer ws(bytes);
    reducelab::baselines::widening_cub_reduce<InputT, float>(d_in, n, d_out, ws.data(), bytes);
  }
  CUDA_TRY(cudaDeviceSynchronize());
  return fetch(out);
}

template <class InputT>
void check_random_sums(backend which) {
  std::mt19937_64 rng(seed);
  for (const std::size_t n : sizes) {
    for (const std::size_t offset : offsets) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", offset = " + std::to_string(offset) +
                   ", seed = " + std::to_string(seed));
      const std::vector<InputT> x = random_inputs<InputT>(n, offset, rng);
      std::vector<float> xf(n);
      for (std::size_t i = 0; i < n; ++i) xf[i] = widen(x[offset + i]);
      const float got = sum_on_gpu(which, x, offset);
      // Ours states its depth; CUB does not, so it is judged with n - 1, which holds for every order.
      const std::size_t depth = which == backend::ours ? reducelab::widening_combine_depth<InputT, float>(n)
                                                       : (n > 0 ? n - 1 : 0);
      const reducelab::verdict v = reducelab::judge_float_sum(xf.data(), n, got, depth);
      EXPECT_TRUE(v.ok) << "got " << v.got << ", want " << v.want << ", error " << v.error << " > bound " << v.bound
                        << " (depth " << depth << ")";
      if (n == 0) EXPECT_TRUE(std::signbit(got)) << "an empty sum is -0.0, got " << got;
    }
  }
}

template <class InputT>
void check_negative_zeros(backend which) {
  for (const std::size_t n : {std::size_t{1}, std::size_t{9}, std::size_t{1000}, (std::size_t{1} << 20) + 3}) {
    for (const std::size_t offset : offsets) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", offset = " + std::to_string(offset));
      const std::vector<InputT> x(offset + n, narrow<InputT>(-0.0f));
      const float got = sum_on_gpu(which, x, offset);
      EXPECT_EQ(got, 0.0f);
      EXPECT_TRUE(std::signbit(got)) << "a sum of only -0.0 is -0.0, got " << got;
    }
  }
}

}  // namespace

TEST(WideningSum, HalfInFloat) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  check_random_sums<__half>(backend::ours);
}

TEST(WideningSum, Bfloat16InFloat) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  check_random_sums<__nv_bfloat16>(backend::ours);
}

TEST(WideningSum, CubHalfInFloat) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  check_random_sums<__half>(backend::cub);
}

TEST(WideningSum, CubBfloat16InFloat) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  check_random_sums<__nv_bfloat16>(backend::cub);
}

TEST(WideningSum, NegativeZerosSumToNegativeZero) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  check_negative_zeros<__half>(backend::ours);
  check_negative_zeros<__nv_bfloat16>(backend::ours);
}

// Read off CCCL 3.0's kernels, not a promise of CUB's documentation: the inputs are reduced without the initial
// value (no T{} padding enters), then init is applied once, so -0.0 + (-0.0) stays -0.0.
TEST(WideningSum, CubKeepsNegativeZeroWithNegativeZeroInit) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  check_negative_zeros<__half>(backend::cub);
}

TEST(WideningSum, NullPointersAreRefused) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  device_buffer out(sizeof(float));
  try {
    reducelab::reduce_widening<__half, float>(nullptr, 10, static_cast<float*>(out.data()), nullptr, 0);
    ADD_FAILURE() << "null input accepted";
  } catch (const reducelab::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("input pointer is null"), std::string::npos) << e.what();
  }
  device_buffer in(10 * sizeof(__half));
  const auto null_output = [&] {
    reducelab::reduce_widening<__half, float>(static_cast<const __half*>(in.data()), 10, nullptr, nullptr, 0);
  };
  EXPECT_THROW(null_output(), reducelab::usage_error);
}
