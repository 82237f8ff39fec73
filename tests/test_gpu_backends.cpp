// GPU: every backend that can serve a registered (functor, type) is validated against the host reference
// (exact for exact types, the functor's stated bound otherwise) at awkward sizes, with random and constant
// inputs, at pointer offsets 0 and 1 element; deterministic backends must repeat themselves bit for bit.
#include "gpu_test.hpp"
#include "registry_params.hpp"

using namespace reducelab;

class GpuBackends : public testing::TestWithParam<case_param> {};

TEST_P(GpuBackends, MatchTheHostReference) {
  REDUCELAB_SKIP_WITHOUT_GPU();
  const auto& c = GetParam();
  const std::size_t sizes[] = {0, 1, 2, 31, 32, 33, 255, 256, 257, 1000, 1023, 1025, 65535, (std::size_t{1} << 20) + 7};
  std::size_t ran = 0;
  for (std::size_t n : sizes) {
    for (input_kind kind : {input_kind::random, input_kind::constant}) {
      for (std::size_t offset : {0, 1}) {
        check_request req;
        req.n = n;
        req.kind = kind;
        req.seed = 1000 + n;
        req.offset = offset;
        req.repeats = n > 1000 ? 2 : 1;
        for (const auto& row : c.value->check_on_gpu(req)) {
          SCOPED_TRACE(row.backend + " n=" + std::to_string(n) + " " + to_string(kind) + " offset " + std::to_string(offset));
          if (row.status == check_status::refused) continue;
          ++ran;
          EXPECT_EQ(row.status, check_status::pass) << row.message;
        }
      }
    }
  }
  EXPECT_GT(ran, 0u) << "no backend serves " << c.functor->name << "/" << c.value->type_name();
}

INSTANTIATE_TEST_SUITE_P(AllFunctors, GpuBackends, testing::ValuesIn(all_cases()), case_name);
