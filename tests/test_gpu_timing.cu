// GPU: the timing engine itself. The stream hold must release on time and give up on its own when nobody
// releases it; the engine must return one sample per round for every backend and time synchronous work with the
// host clock. (Whether the figures are right is the device run's business: `reducelab methods` and the Nsight
// Compute step.)
#include "comparisons/segmented/plain_read.hpp"
#include "comparisons/timing/engine.hpp"
#include "comparisons/timing/stream_hold.hpp"
#include "lab/core/device_buffer.hpp"
#include "reducelab/core/error.hpp"
#include "reducelab/reduce.cuh"
#include "tests/gpu_test.hpp"

#include <thrust/device_vector.h>

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <thread>

namespace rt = reducelab::timing;

namespace {
struct plus_int {
  static constexpr bool commutative = true;
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T{};
  }
  __host__ __device__ int operator()(int a, int b) const { return a + b; }
};

// About 200 µs at Hopper's clocks: more than the engine's host_clock_allowance.
__global__ void spin_long() {
  const long long start = clock64();
  while (clock64() - start < 400000) {
  }
}

__global__ void spin_a_little() {
  const long long start = clock64();
  while (clock64() - start < 20000) {
  }
}
}  // namespace

TEST(GpuStreamHold, ReleasedInTimeIsNotATimeout) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  reducelab::stream_owner s;
  // Load the kernel first: with CUDA's lazy loading, a first launch behind a held stream waits for the hold.
  spin_a_little<<<1, 32, 0, s.get()>>>();
  CUDA_TRY(cudaStreamSynchronize(s.get()));
  rt::stream_hold hold;
  hold.hold(s.get());
  spin_a_little<<<1, 32, 0, s.get()>>>();
  hold.release();
  CUDA_TRY(cudaStreamSynchronize(s.get()));
  EXPECT_FALSE(hold.timed_out());
}

TEST(GpuStreamHold, NobodyReleasingItTimesOutInsteadOfHanging) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  reducelab::stream_owner s;
  rt::stream_hold hold(std::chrono::milliseconds(20));
  const auto t0 = std::chrono::steady_clock::now();
  hold.hold(s.get());
  CUDA_TRY(cudaStreamSynchronize(s.get()));  // no release: the kernel must give up by itself
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(hold.timed_out());
  EXPECT_GE(ms, 15.0);
  EXPECT_LT(ms, 2000.0);
}

TEST(GpuEngine, OneSamplePerRoundForEveryBackendInEveryMode) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  reducelab::stream_owner s;
  rt::engine engine(s.get(), 1 << 20);
  int synchronous_calls = 0;
  const std::vector<rt::timed_work> works = {
      {"spin", false, [](cudaStream_t st) { spin_a_little<<<1, 32, 0, st>>>(); }},
      {"sleep 200 us on the host", true,
       [&](cudaStream_t) {
         ++synchronous_calls;
         std::this_thread::sleep_for(std::chrono::microseconds(200));
       }}};
  for (const auto cache : {rt::cache_state::cold, rt::cache_state::hot}) {
    rt::measurement_plan plan;
    plan.cache = cache;
    plan.rounds = 7;
    plan.warmup_runs = 2;
    synchronous_calls = 0;
    const auto m = engine.measure(works, plan);
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m[0].us.size(), 7u);
    EXPECT_EQ(m[1].us.size(), 7u);
    EXPECT_EQ(m[0].clock, rt::clock_method::events_held);
    EXPECT_EQ(m[1].clock, rt::clock_method::host_clock);
    for (double us : m[0].us) EXPECT_GT(us, 0.0);
    for (double us : m[1].us) EXPECT_GE(us, 190.0);  // the host clock saw the whole call
    // warm-up + samples, and in hot mode one untimed run before each sample
    EXPECT_EQ(synchronous_calls, 2 + 7 * (cache == rt::cache_state::hot ? 2 : 1));
  }
}

TEST(GpuEngine, WorkThatSynchronizesOnAHeldStreamIsRefusedNotHung) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  reducelab::stream_owner s;
  rt::engine engine(s.get(), 1 << 20);
  // Declared stream-ordered but waits for its stream: on a held stream it can only time out.
  const std::vector<rt::timed_work> works = {
      {"synchronizes", false, [](cudaStream_t st) { CUDA_TRY(cudaStreamSynchronize(st)); }}};
  rt::measurement_plan plan;
  plan.rounds = 1;
  plan.warmup_runs = 0;
  try {
    engine.measure(works, plan);
    FAIL() << "a synchronizing work item was timed on a held stream";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("synchronizes"), std::string::npos) << e.what();
  }
}

TEST(GpuEngine, AHostClockClaimThatLeavesWorkQueuedIsRefused) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  reducelab::stream_owner s;
  rt::engine engine(s.get(), 1 << 20);
  // Declared synchronous, but returns while its kernel may still run: the host clock would time the enqueue only.
  const std::vector<rt::timed_work> works = {{"returns early", true, [](cudaStream_t st) {
                                                spin_long<<<1, 32, 0, st>>>();
                                                spin_long<<<1, 32, 0, st>>>();
                                              }}};
  rt::measurement_plan plan;
  plan.rounds = 3;
  plan.warmup_runs = 1;
  try {
    engine.measure(works, plan);
    FAIL() << "work left queued was timed with the host clock";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("still queued"), std::string::npos) << e.what();
  }
}

// reducelab::reduce(host) returns on the flag its kernel raises after the result, while the kernel retires: the
// engine's host clock accepts that (the stream is idle within host_clock_allowance) and times it.
TEST(GpuEngine, AHostResultCallThatReturnsOnItsFlagIsTimed) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  reducelab::stream_owner s;
  rt::engine engine(s.get(), 1 << 20);
  const thrust::device_vector<int> d(std::size_t{1} << 16, 2);
  const int* in = thrust::raw_pointer_cast(d.data());
  int last = 0;
  const std::vector<rt::timed_work> works = {
      {"reducelab::reduce(host)", true, [&](cudaStream_t st) { last = reducelab::reduce(in, d.size(), plus_int{}, st); }}};
  rt::measurement_plan plan;
  plan.rounds = 20;
  plan.warmup_runs = 2;
  const auto samples = engine.measure(works, plan);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].us.size(), 20u);
  EXPECT_EQ(samples[0].clock, rt::clock_method::host_clock);
  for (double us : samples[0].us) EXPECT_GT(us, 0.0);
  EXPECT_EQ(last, 2 << 16);
}

// The segmented compare's yardstick (comparisons/segmented/plain_read.hpp) must read every word it claims to: a work
// that read less would make a plain pass look faster than it is, and every "asked above it" line would be wrong.
TEST(GpuPlainRead, ReadsEveryWordOfTheBytesItIsGiven) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  namespace st = reducelab::segmented::tool;
  reducelab::stream_owner s;
  // A large read, then smaller ones from the same scratch (including a size that is not whole words, and none at
  // all: one word), each checked against the pattern's sum.
  for (const std::size_t bytes : {std::size_t{48} << 20, (std::size_t{3} << 20) + 6, std::size_t{4}, std::size_t{0}}) {
    const std::optional<rt::timed_work> work = st::plain_read_work(bytes);
    ASSERT_TRUE(work) << bytes << " bytes";
    EXPECT_FALSE(work->host_synchronous);
    work->run(s.get());
    CUDA_TRY(cudaStreamSynchronize(s.get()));
    EXPECT_EQ(st::last_plain_read_sum(), st::expected_plain_read_sum(bytes)) << bytes << " bytes";
  }
  // 1 MiB and 1 MiB + 4 differ by one word of the pattern, so a read that stopped short could not match both.
  EXPECT_NE(st::expected_plain_read_sum(std::size_t{1} << 20), st::expected_plain_read_sum((std::size_t{1} << 20) + 4));
  // The engine times it like any other work.
  rt::engine engine(s.get(), 1 << 20);
  rt::measurement_plan plan;
  plan.rounds = 5;
  const auto m = engine.measure({*st::plain_read_work(std::size_t{16} << 20)}, plan);
  ASSERT_EQ(m.size(), 1u);
  ASSERT_EQ(m[0].us.size(), 5u);
  for (const double us : m[0].us) EXPECT_GT(us, 0.0);
  // More than the device holds: no work, no error left behind, and the scratch still serves.
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  EXPECT_FALSE(st::plain_read_work(total_bytes * 2));
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  const std::optional<rt::timed_work> again = st::plain_read_work(std::size_t{1} << 20);
  ASSERT_TRUE(again);
  again->run(s.get());
  CUDA_TRY(cudaStreamSynchronize(s.get()));
  EXPECT_EQ(st::last_plain_read_sum(), st::expected_plain_read_sum(std::size_t{1} << 20));
}
