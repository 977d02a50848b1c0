#include <cmath>
#include <ostream>
#include <vector>

#include <gtest/gtest.h>

#include "host/workload/access_distribution.h"
#include "host/workload/alias_table.h"
#include "host/workload/zipf.h"
#include "sim/rng.h"

namespace host {
namespace {

TEST(AliasTableTest, FrequenciesMatchWeights) {
  const std::vector<double> w = {4, 1, 1, 1, 1, 1, 1, 1, 67, 10, 7, 3, 3};
  AliasTable t(w);
  sim::Rng rng(3, "alias");
  std::vector<uint64_t> n(w.size());
  constexpr int kDraws = 1000000;
  for (int i = 0; i < kDraws; ++i) ++n[t.Next(rng)];
  double sum = 0;
  for (double x : w) sum += x;
  for (size_t i = 0; i < w.size(); ++i) {
    const double p = w[i] / sum;
    EXPECT_DOUBLE_EQ(t.Probability(static_cast<uint32_t>(i)), p);
    EXPECT_NEAR(static_cast<double>(n[i]) / kDraws, p, 4 * std::sqrt(p * (1 - p) / kDraws) + 1e-6) << i;
  }
}

TEST(AliasTableTest, ZeroWeightNeverDrawnAndSingleEntry) {
  AliasTable t({1, 0, 3});
  sim::Rng rng(1);
  for (int i = 0; i < 100000; ++i) ASSERT_NE(t.Next(rng), 1u);
  AliasTable one({5});
  for (int i = 0; i < 100; ++i) ASSERT_EQ(one.Next(rng), 0u);
}

// Generalized harmonic number sum_{k=1..n} k^-s: exact head plus the
// midpoint-rule integral for the tail (error far below the test tolerance).
double Harmonic(uint64_t n, double s) {
  const uint64_t head = std::min<uint64_t>(n, 100000);
  double h = 0;
  for (uint64_t k = 1; k <= head; ++k) h += std::pow(static_cast<double>(k), -s);
  if (n > head) {
    const double a = static_cast<double>(head) + 0.5, b = static_cast<double>(n) + 0.5;
    h += s == 1 ? std::log(b / a) : (std::pow(b, 1 - s) - std::pow(a, 1 - s)) / (1 - s);
  }
  return h;
}

struct ZipfCase {
  uint64_t n;
  double theta;
};
void PrintTo(const ZipfCase& c, std::ostream* os) { *os << "n=" << c.n << " theta=" << c.theta; }

class ZipfSamplerTest : public ::testing::TestWithParam<ZipfCase> {};

TEST_P(ZipfSamplerTest, TopRanksFollowPowerLaw) {
  const auto [n, theta] = GetParam();
  ZipfSampler z(n, theta);
  sim::Rng rng(11, "zipf");
  constexpr int kDraws = 1000000;
  constexpr int kTop = 8;
  std::vector<uint64_t> top(kTop);
  for (int i = 0; i < kDraws; ++i) {
    const uint64_t r = z.Next(rng);
    ASSERT_LT(r, n);
    if (r < kTop) ++top[r];
  }
  const double h = Harmonic(n, theta);
  double chi2 = 0;
  for (int k = 0; k < kTop; ++k) {
    const double expect = kDraws * std::pow(k + 1.0, -theta) / h;
    chi2 += (top[k] - expect) * (top[k] - expect) / expect;
  }
  EXPECT_LT(chi2, 26.1) << "p = 0.001 for 7 degrees of freedom";
  const double ratio = static_cast<double>(top[0]) / static_cast<double>(top[1]);
  const double sd = ratio * std::sqrt(1.0 / top[0] + 1.0 / top[1]);
  EXPECT_NEAR(ratio, std::pow(2.0, theta), 4 * sd);
}

INSTANTIATE_TEST_SUITE_P(Thetas, ZipfSamplerTest,
                         ::testing::Values(ZipfCase{uint64_t{1} << 28, 0.99}, ZipfCase{uint64_t{1} << 28, 1.0},
                                           ZipfCase{uint64_t{1} << 28, 1.2}, ZipfCase{uint64_t{1} << 20, 0.5},
                                           ZipfCase{1000, 2.0}));

TEST(ZipfSamplerTest, TailMassOfHugeRange) {
  // For n = 2^28 and theta = 0.99 most of the mass is far out: check the
  // fraction of draws above rank 2^20 against the analytic value.
  const uint64_t n = uint64_t{1} << 28;
  ZipfSampler z(n, 0.99);
  sim::Rng rng(5, "zipf.tail");
  constexpr int kDraws = 400000;
  int above = 0;
  for (int i = 0; i < kDraws; ++i) above += z.Next(rng) >= (uint64_t{1} << 20);
  const double expect = 1 - Harmonic(uint64_t{1} << 20, 0.99) / Harmonic(n, 0.99);
  EXPECT_NEAR(static_cast<double>(above) / kDraws, expect, 0.005);
}

TEST(ZipfSamplerTest, SmallRanges) {
  sim::Rng rng(1);
  ZipfSampler one(1, 0.8);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(one.Next(rng), 0u);
  ZipfSampler two(2, 1.0);
  int zeros = 0;
  for (int i = 0; i < 100000; ++i) zeros += two.Next(rng) == 0;
  EXPECT_NEAR(zeros / 100000.0, 2.0 / 3.0, 0.01);
}

TEST(AccessDistributionTest, RegistryListsAndRejectsNames) {
  const std::vector<std::string> want = {"hotcold", "uniform", "zipf", "zoned"};
  EXPECT_EQ(AccessDistributionNames(), want);
  AccessParams p;
  p.units = 10;
  auto bad = MakeAccessDistribution("gauss", p);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "unknown access distribution 'gauss'; choices: hotcold, uniform, zipf, zoned");
}

TEST(AccessDistributionTest, EveryDistributionStaysInRange) {
  AccessParams p;
  p.units = 37;
  p.zones = {{0.5, 0.1}, {0.5, 0.9}};
  for (const std::string& name : AccessDistributionNames()) {
    auto d = MakeAccessDistribution(name, p);
    ASSERT_TRUE(d.ok()) << name;
    sim::Rng rng(2, name);
    std::vector<int> seen(p.units);
    for (int i = 0; i < 20000; ++i) {
      const uint64_t u = d.value()->Next(rng);
      ASSERT_LT(u, p.units) << name;
      ++seen[u];
    }
    EXPECT_GT(seen[0], 0) << name;
  }
}

TEST(AccessDistributionTest, ZoneBoundsTileTheRange) {
  const std::vector<AccessZone> z = {{0.5, 0.05}, {0.3, 0.15}, {0.2, 0.8}};
  EXPECT_EQ(ZoneBounds(z, 25600), (std::vector<uint64_t>{0, 1280, 5120, 25600}));
  EXPECT_EQ(ZoneBounds(z, 7), (std::vector<uint64_t>{0, 0, 1, 7}));
  EXPECT_EQ(HotUnits(25600, 0.2), 5120u);
  EXPECT_EQ(HotUnits(2, 0.01), 1u);
  EXPECT_EQ(HotUnits(2, 0.99), 1u);
}

}  // namespace
}  // namespace host
