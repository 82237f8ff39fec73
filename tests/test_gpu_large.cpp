// GPU: more than 2^31 elements. logical_or over bytes that are all 0 but the last: a variant that indexes
// with 32 bits, or drops the tail, returns 0. Every backend that accepts uint8 runs it.
#include "gpu_test.hpp"
#include "registry_params.hpp"

using namespace reducelab;

TEST(GpuLarge, MoreThan2To31ElementsOnEveryBackend) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  const std::size_t n = (std::size_t{1} << 31) + 8;
  if (static_cast<std::size_t>(current_device().global_memory_bytes) < 3 * n)
    GTEST_SKIP() << "needs about 3 x 2^31 bytes of GPU memory";
  const auto* logical_or = the_registry().find("logical_or");
  ASSERT_NE(logical_or, nullptr);
  const value_case* bytes = logical_or->find("uint8");
  ASSERT_NE(bytes, nullptr);
  check_request req;
  req.n = n;
  req.kind = input_kind::last_only;
  std::size_t ran = 0;
  for (const auto& row : bytes->check_on_gpu(req)) {
    SCOPED_TRACE(row.backend);
    if (row.status == check_status::refused) continue;
    ++ran;
    EXPECT_EQ(row.status, check_status::pass) << row.message;
    EXPECT_EQ(row.result.got, "1");
  }
  EXPECT_GE(ran, 20u);
}
