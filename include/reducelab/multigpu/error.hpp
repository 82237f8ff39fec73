// The multi-GPU part's error path: every NCCL call goes through REDUCELAB_NCCL_TRY, which throws
// reducelab::nccl_error naming the call, NCCL's error, its last message, the file and the line.
#pragma once

#include "reducelab/core/error.hpp"

#include <nccl.h>

#include <stdexcept>
#include <string>

namespace reducelab {

/// An NCCL call failed, a communicator reported an asynchronous error, or a wait on one timed out (code()
/// is then ncclInProgress: nothing failed, it just did not finish). The communicator involved has been aborted
/// when what() says so.
class nccl_error : public std::runtime_error {
 public:
  nccl_error(ncclResult_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ncclResult_t code() const noexcept { return code_; }

 private:
  ncclResult_t code_;
};

namespace multigpu::detail {
[[noreturn]] inline void throw_nccl_error(ncclResult_t code, const char* call, const char* file, int line) {
  std::string what = std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                     ncclGetErrorString(code);
  // ncclGetLastError(nullptr) is NCCL's last message on this thread, often the only one naming the cause.
  if (const char* last = ncclGetLastError(nullptr); last != nullptr && *last != '\0') what += std::string(" (") + last + ")";
  throw nccl_error(code, what);
}
}  // namespace multigpu::detail

}  // namespace reducelab

/// Evaluate an NCCL call and throw reducelab::nccl_error with file and line if it failed.
#define REDUCELAB_NCCL_TRY(...)                                                                             \
  do {                                                                                                      \
    ncclResult_t reducelab_nccl_status_ = (__VA_ARGS__);                                                    \
    if (reducelab_nccl_status_ != ncclSuccess) {                                                            \
      ::reducelab::multigpu::detail::throw_nccl_error(reducelab_nccl_status_, #__VA_ARGS__, __FILE__, __LINE__); \
    }                                                                                                       \
  } while (0)
