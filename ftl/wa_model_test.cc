#include "ftl/wa_model.h"

#include <cmath>

#include <gtest/gtest.h>

namespace ftl {
namespace {

TEST(WaModel, LambertW0SatisfiesItsDefinition) {
  for (double x : {-0.36787944117144, -0.3679 + 1e-4, -0.3, -0.1, -1e-6, 1e-6, 0.5, 1.0, 2.718281828, 10.0, 1e6}) {
    const double w = LambertW0(x);
    EXPECT_NEAR(w * std::exp(w), x, 1e-12 * std::max(1.0, std::abs(x))) << x;
    EXPECT_GE(w, -1.0) << "principal branch";
  }
  EXPECT_NEAR(LambertW0(std::exp(1.0)), 1.0, 1e-14);
  EXPECT_NEAR(LambertW0(-1.0 / std::exp(1.0)), -1.0, 1e-6);
}

// Values of the validation reference's OP-convention table.
TEST(WaModel, MatchesReferenceTable) {
  const struct {
    double op, fifo, random, agarwal;
  } kRows[] = {{0.05, 10.672, 21.00, 10.50}, {0.07, 7.817, 15.29, 7.64}, {0.10, 5.677, 11.00, 5.50},
               {0.15, 4.016, 7.67, 3.83},    {0.20, 3.188, 6.00, 3.00},  {0.25, 2.693, 5.00, 2.50},
               {0.28, 2.481, 4.57, 2.29},    {0.30, 2.364, 4.33, 2.17},  {0.50, 1.716, 3.00, 1.50}};
  for (const auto& r : kRows) {
    const double alpha = 1 + r.op;
    EXPECT_NEAR(FifoWriteAmplification(alpha), r.fifo, 5e-4) << r.op;
    EXPECT_NEAR(RandomWriteAmplification(alpha), r.random, 5e-3) << r.op;
    EXPECT_NEAR(AgarwalWriteAmplification(alpha), r.agarwal, 5e-3) << r.op;
  }
}

}  // namespace
}  // namespace ftl
