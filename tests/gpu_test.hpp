// GPU tests skip, with the reason, on machines without a usable CUDA device (CI has none).
#pragma once

#include "lab/core/device_info.hpp"

#include <gtest/gtest.h>

#define REDUCELAB_SKIP_WITHOUT_GPU()                                                            \
  do {                                                                                          \
    const std::string reducelab_why_ = ::reducelab::why_no_device();                            \
    if (!reducelab_why_.empty()) GTEST_SKIP() << "GPU test skipped: " << reducelab_why_;        \
  } while (0)
