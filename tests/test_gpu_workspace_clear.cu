// GPU: a new workspace is cleared on the stream of the launch that uses it (detail/resources.hpp,
// clear_before_first_launch), never on the legacy default stream, which a non-blocking stream does not wait for.
//
// The hang this guards against (found at stop 30): the clear went to the legacy stream and could land while the
// kernel ran, after some blocks had published their partials; it wiped the tags the last block was polling for, and
// the last block polled forever. Two tests:
//   - FourProcessesOnNewStreamsAllFinish runs the reproduction as it was found (scripts/harness/concurrent_hang.cu,
//     mode `fresh`: four processes, each reducing on a new stream per call; with the clear on the legacy stream every
//     process hung within its first 8 calls on the H100). Each process exits 3 if a call has not returned after 8 s.
//   - The death tests make the race certain in one process:
//       1. a kernel that waits for a host flag holds the legacy stream;
//       2. the library reduces on a new non-blocking stream (a new stream: a new workspace, cleared), with a functor
//          that holds the grid's last block, so every other block publishes its partial and stops;
//       3. the legacy stream is released and drained: a clear queued there runs now and wipes those partials;
//       4. the last block is released: it folds the partials, all still there only if nothing wiped them.
//     With the clear on the legacy stream, step 4 polls forever; each case runs in a child process whose watchdog
//     exits 1 after 30 s. A warm-up on another stream loads the kernel first: with lazy module loading the first
//     launch of a kernel waits for the kernels already running, here the one holding the legacy stream, which would
//     order the clear before the kernel and hide the race.
#include "gpu_test.hpp"
#include "reducelab/reduce.cuh"

#include <thrust/device_vector.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace workspace_clear_test {  // named: an unnamed one makes nvcc warn about the unread `commutative` member

/// A sum whose combines in the last block of a grid of more than one block wait until *hold is nonzero.
struct held_add {
  static constexpr bool commutative = true;
  const volatile int* hold = nullptr;
  template <class T>
  static constexpr __host__ __device__ T identity() {
    return T(0);
  }
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
#ifdef __CUDA_ARCH__
    if (gridDim.x > 1 && blockIdx.x == gridDim.x - 1)
      while (*hold == 0) __nanosleep(1000);
#endif
    return static_cast<T>(a + b);
  }
};

__global__ void wait_for_flag(const volatile int* flag) {
  while (*flag == 0) __nanosleep(1000);
}

void check_or_exit(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::_Exit(3);
  }
}

/// Runs in the child process: steps 1-4 above. Exits 0 with the right sum, 4 with a wrong one, 1 when the reduction
/// had not finished after 30 s.
void reduce_across_a_legacy_stream_release(bool host_result) {
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::seconds(30));
    std::fprintf(stderr, "the reduction had not finished after 30 s\n");
    std::_Exit(1);
  }).detach();
  const std::size_t n = (std::size_t{1} << 22) + 3;  // many blocks under every policy: a workspace is needed
  std::vector<std::int32_t> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = static_cast<std::int32_t>(i % 1000);
  std::int64_t want64 = 0;
  for (std::int32_t x : host) want64 += x;
  const auto want = static_cast<std::int32_t>(want64);
  const thrust::device_vector<std::int32_t> d(host.begin(), host.end());
  const std::int32_t* in = thrust::raw_pointer_cast(d.data());
  int* flags = nullptr;  // [0] holds the legacy stream, [1] the last block; [2] stays 1 (the warm-up's)
  check_or_exit(cudaHostAlloc(&flags, 3 * sizeof(int), cudaHostAllocMapped), "cudaHostAlloc");
  flags[0] = flags[1] = 0;
  flags[2] = 1;
  int* device_flags = nullptr;
  check_or_exit(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flags), flags, 0),
                "cudaHostGetDevicePointer");
  std::int32_t* out = nullptr;
  check_or_exit(cudaMalloc(&out, sizeof(std::int32_t)), "cudaMalloc");
  // The warm-up: the kernel loaded, and for the host result its pinned slot allocated (cudaHostAlloc waits for the
  // device as well), all on a stream of its own, so the held call's only first is its workspace.
  cudaStream_t warm, stream;
  check_or_exit(cudaStreamCreateWithFlags(&warm, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  check_or_exit(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  reducelab::reduce(in, n, out, held_add{device_flags + 2}, warm);
  if (host_result) (void)reducelab::reduce(in, 1, held_add{device_flags + 2}, warm);
  check_or_exit(cudaDeviceSynchronize(), "warm-up");

  wait_for_flag<<<1, 1, 0, cudaStreamLegacy>>>(device_flags);  // step 1
  check_or_exit(cudaGetLastError(), "launch of the kernel holding the legacy stream");
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::seconds(1));  // step 2 has long reached the held last block
    *static_cast<volatile int*>(flags) = 1;                // step 3
    check_or_exit(cudaStreamSynchronize(cudaStreamLegacy), "cudaStreamSynchronize(legacy)");
    *static_cast<volatile int*>(flags + 1) = 1;  // step 4
  });
  const held_add op{device_flags + 1};
  std::int32_t got = 0;
  if (host_result) {
    got = reducelab::reduce(in, n, op, stream);  // step 2; returns after step 4
  } else {
    reducelab::reduce(in, n, out, op, stream);  // step 2
    check_or_exit(cudaMemcpyAsync(&got, out, sizeof got, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    check_or_exit(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }
  release.join();
  if (got != want) {
    std::fprintf(stderr, "got %d, want %d\n", got, want);
    std::_Exit(4);
  }
  std::_Exit(0);
}

}  // namespace workspace_clear_test

TEST(LibraryWorkspaceDeathTest, DeviceResultOnANewStreamSurvivesALegacyStreamReleasedMidKernel) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the child starts afresh: no CUDA context across a fork
  EXPECT_EXIT(workspace_clear_test::reduce_across_a_legacy_stream_release(false), testing::ExitedWithCode(0), "");
}

TEST(LibraryWorkspaceDeathTest, HostResultSurvivesALegacyStreamReleasedMidKernel) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(workspace_clear_test::reduce_across_a_legacy_stream_release(true), testing::ExitedWithCode(0), "");
}

#ifdef REDUCELAB_CONCURRENT_HANG
namespace workspace_clear_test {

/// The helper beside this test binary (the build puts both in one folder, and a copy of the build taken elsewhere
/// keeps them together), else where CMake built it. Stop 46: binaries built in another folder and carried to the GPU
/// machine failed this test with "sh: 1: <build path>/concurrent_hang: not found" four times.
std::string concurrent_hang_path() {
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length > 0) {
    std::string beside(self, static_cast<std::size_t>(length));
    beside.erase(beside.find_last_of('/') + 1);
    beside += "concurrent_hang";
    if (access(beside.c_str(), X_OK) == 0) return beside;
  }
  return REDUCELAB_CONCURRENT_HANG;
}

}  // namespace workspace_clear_test

TEST(LibraryWorkspace, FourProcessesOnNewStreamsAllFinish) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  const std::string helper = workspace_clear_test::concurrent_hang_path();
  ASSERT_EQ(access(helper.c_str(), X_OK), 0)
      << "the helper " << helper << " (CMake target concurrent_hang) is missing beside test_gpu and where it was built";
  std::vector<FILE*> children;
  for (int seed = 1; seed <= 4; ++seed) {
    const std::string command = helper + " fresh 5 " + std::to_string(seed) + " 2>&1";
    FILE* p = popen(command.c_str(), "r");
    ASSERT_NE(p, nullptr) << command;
    children.push_back(p);
  }
  for (FILE* p : children) {
    std::string printed;
    char line[512];
    while (std::fgets(line, sizeof line, p) != nullptr) printed += line;
    const int status = pclose(p);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << printed;
    EXPECT_NE(printed.find("ok pid"), std::string::npos) << printed;
  }
}
#endif
