#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "host/workload/access_distribution.h"
#include "host/workload/alias_table.h"
#include "host/workload/fio_config.h"
#include "host/workload/zipf.h"
#include "sim/config.h"
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

// The distributions' sections of a FioConfig with `settings` ("key=text")
// applied, e.g. {"zoned.zones=[50%/10%, 50%/90%]"}.
FioConfig WithKeys(const std::vector<std::string>& settings) {
  FioConfig c;
  for (const std::string& kv : settings) {
    const size_t eq = kv.find('=');
    const sim::Status s = sim::SetKey(sim::SchemaOf<FioConfig>(), &c, kv.substr(0, eq), kv.substr(eq + 1));
    EXPECT_TRUE(s.ok()) << s.message();
  }
  return c;
}

// `draws` slots from distribution `name` over `units` slots.
std::vector<uint64_t> Draw(const std::string& name, uint64_t units, const FioConfig& c, int draws) {
  const AccessDistributionContext ctx{units, &c.distributions};
  EXPECT_TRUE(ValidateAccessDistributions(name, ctx, "").ok()) << name;
  auto d = MakeAccessDistribution(name, ctx);
  EXPECT_TRUE(d.ok()) << name;
  std::vector<uint64_t> out;
  if (!d.ok()) return out;
  sim::Rng rng(2, name);
  for (int i = 0; i < draws; ++i) out.push_back(d.value()->Next(rng));
  return out;
}

TEST(AccessDistributionTest, RegistryListsAndRejectsNames) {
  const std::vector<std::string> want = {"hotcold", "uniform", "zipf", "zoned"};
  EXPECT_EQ(AccessDistributionNames(), want);
  std::vector<std::string> sections;
  for (const sim::ImplSection& s : AccessDistributionSections()) sections.push_back(s.name);
  EXPECT_EQ(sections, (std::vector<std::string>{"hotcold", "zipf", "zoned"})) << "uniform has no parameters";
  const FioConfig c;
  auto bad = MakeAccessDistribution("gauss", {10, &c.distributions});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "unknown access distribution 'gauss'; choices: hotcold, uniform, zipf, zoned");
  EXPECT_EQ(ValidateAccessDistributions("gauss", {10, &c.distributions}, "workload.fio").message(),
            "workload.fio.distribution: unknown distribution 'gauss'; choices: hotcold, uniform, zipf, zoned");
}

TEST(AccessDistributionTest, EveryDistributionStaysInRange) {
  const FioConfig zoned = WithKeys({"zoned.zones=[50%/10%, 50%/90%]"});
  for (const std::string& name : AccessDistributionNames()) {
    std::vector<int> seen(37);
    for (uint64_t u : Draw(name, 37, name == "zoned" ? zoned : FioConfig(), 20000)) {
      ASSERT_LT(u, 37u) << name;
      ++seen[u];
    }
    EXPECT_GT(seen[0], 0) << name;
  }
}

// Every draw lies in [lo, hi], and both ends are drawn.
void ExpectSpan(const std::vector<uint64_t>& draws, uint64_t lo, uint64_t hi) {
  ASSERT_FALSE(draws.empty());
  EXPECT_EQ(*std::min_element(draws.begin(), draws.end()), lo);
  EXPECT_EQ(*std::max_element(draws.begin(), draws.end()), hi);
}

TEST(AccessDistributionTest, ZonesTileTheRange) {
  // Only the middle zone is accessed: [5%, 20%) of the range.
  const FioConfig c = WithKeys({"zoned.zones=[0%/5%, 100%/15%, 0%/80%]"});
  ExpectSpan(Draw("zoned", 25600, c, 200000), 1280, 5119);
  // On 7 slots the boundaries round to 0, 0, 1, 7: the first zone is empty.
  ExpectSpan(Draw("zoned", 7, c, 1000), 0, 0);
  const FioConfig last = WithKeys({"zoned.zones=[0%/5%, 0%/15%, 100%/80%]"});
  ExpectSpan(Draw("zoned", 7, last, 1000), 1, 6);
}

TEST(AccessDistributionTest, HotSetIsRoundedAndNeverEmpty) {
  // All accesses to the hot set: round(20% of 25600) = 5120 slots.
  ExpectSpan(Draw("hotcold", 25600, WithKeys({"hotcold.hot_fraction=20%", "hotcold.hot_ratio=100%"}), 200000), 0,
             5119);
  // On 2 slots each set keeps one slot however small or large the fraction.
  ExpectSpan(Draw("hotcold", 2, WithKeys({"hotcold.hot_fraction=1%", "hotcold.hot_ratio=100%"}), 1000), 0, 0);
  ExpectSpan(Draw("hotcold", 2, WithKeys({"hotcold.hot_fraction=99%", "hotcold.hot_ratio=0%"}), 1000), 1, 1);
  ExpectSpan(Draw("hotcold", 2, WithKeys({"hotcold.hot_fraction=99%", "hotcold.hot_ratio=100%"}), 1000), 0, 0);
}

}  // namespace
}  // namespace host
