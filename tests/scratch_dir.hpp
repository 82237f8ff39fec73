// A fresh folder under GoogleTest's temp dir, named after the running test and removed when the test ends: where
// the report and results tests write files.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace test_support {

struct scratch_dir {
  std::filesystem::path path;
  scratch_dir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path = std::filesystem::path(::testing::TempDir()) /
           (std::string("reducelab_") + info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace test_support
