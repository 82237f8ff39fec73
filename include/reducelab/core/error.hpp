// One error path for the whole library: every CUDA call goes through CUDA_TRY, which throws
// reducelab::cuda_error naming the call, the file and the line. Bad user input throws usage_error.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace reducelab {

/// A CUDA runtime call failed; what() names the call, the CUDA error and where it happened.
class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

/// The caller asked for something that cannot be done (unknown name, inapplicable variant, bad option).
class usage_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

namespace detail {
[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  cudaGetLastError();  // a non-sticky error (a failed allocation, a bad launch) must not resurface at the next check
  throw cuda_error(code, std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                             cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")");
}
}  // namespace detail

}  // namespace reducelab

/// Evaluate a CUDA runtime call and throw reducelab::cuda_error with file and line if it failed.
/// Variadic so that a call with template arguments (f<A, B>(x)) needs no extra parentheses.
#define CUDA_TRY(...)                                                                          \
  do {                                                                                         \
    cudaError_t reducelab_status_ = (__VA_ARGS__);                                             \
    if (reducelab_status_ != cudaSuccess) {                                                    \
      ::reducelab::detail::throw_cuda_error(reducelab_status_, #__VA_ARGS__, __FILE__, __LINE__); \
    }                                                                                          \
  } while (0)

/// After a kernel launch: throw if the launch itself was refused (bad configuration, no device...).
#define CUDA_TRY_LAUNCH() CUDA_TRY(cudaGetLastError())

/// Throw reducelab::usage_error unless `cond` holds.
#define REDUCELAB_EXPECTS(cond, message)                 \
  do {                                                   \
    if (!(cond)) throw ::reducelab::usage_error(message); \
  } while (0)
