// CPU: every registered functor and type obeys the monoid laws on random samples of its input domain.
#include "registry_params.hpp"

class MonoidLaws : public testing::TestWithParam<case_param> {};

TEST_P(MonoidLaws, HoldOnRandomSamples) {
  const auto report = GetParam().value->check_laws(/*seed*/ 42, /*samples*/ 2000);
  EXPECT_EQ(report.samples, 2000u);
  for (const auto& f : report.failures) ADD_FAILURE() << f;
  EXPECT_TRUE(report.ok());
}

INSTANTIATE_TEST_SUITE_P(AllFunctors, MonoidLaws, testing::ValuesIn(all_cases()), case_name);
