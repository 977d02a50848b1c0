#include "host/sqlite/ycsb_generators.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/config.h"
#include "sim/rng.h"

namespace host::sqlite {
namespace {

// Pearson's chi-square of `counts` against equal expectations.
double ChiSquare(const std::vector<uint64_t>& counts) {
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  const double e = static_cast<double>(total) / static_cast<double>(counts.size());
  double x = 0;
  for (uint64_t c : counts) x += (static_cast<double>(c) - e) * (static_cast<double>(c) - e) / e;
  return x;
}

// Four standard deviations of a share estimated from n draws.
double Tolerance(double p, double n) { return 4 * std::sqrt(p * (1 - p) / n); }

YcsbSpec Spec(std::vector<std::string> set) {
  YcsbInputs in;
  in.set = std::move(set);
  auto r = ResolveYcsb(in, "workload.ycsb");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : YcsbSpec{};
}

TEST(YcsbKeysTest, FnvHashAndKeyNamesAreYcsbs) {
  // Values of YCSB's Utils.fnvhash64 (FNV-1a over the 8 bytes, low first).
  EXPECT_EQ(YcsbFnvHash64(0), 6284781860667377211);
  EXPECT_EQ(YcsbFnvHash64(1), 8517097267634966620);
  EXPECT_EQ(YcsbFnvHash64(2), 1820151046732198393);
  EXPECT_EQ(YcsbFnvHash64(1000), 5952875239596136740);
  EXPECT_EQ(YcsbFnvHash64(123456789), 2350796791908741607);
  EXPECT_EQ(YcsbKeyName(0, 1, false), "user6284781860667377211");
  EXPECT_EQ(YcsbKeyName(5, 1, true), "user5");
  EXPECT_EQ(YcsbKeyName(5, 8, true), "user00000005");
  EXPECT_EQ(YcsbKeyName(123, 2, true), "user123");
  for (int64_t k = 0; k < 100000; ++k) ASSERT_GE(YcsbFnvHash64(k), 0) << k;
}

TEST(YcsbZipfianTest, ZetaMatchesYcsbsPrecomputedValueAndItsOwnSum) {
  EXPECT_NEAR(YcsbZipfian::Zeta(0, YcsbScrambledZipfian::kItemCount, 0.99, 0), YcsbScrambledZipfian::kZetan, 1e-7);
  // Past the exact terms the tail formula takes over; it agrees with the
  // plain sum, and an incremental extension with a fresh one.
  double plain = 0;
  for (int64_t i = 0; i < 3000000; ++i) plain += 1 / std::pow(static_cast<double>(i + 1), 0.99);
  EXPECT_NEAR(YcsbZipfian::Zeta(0, 3000000, 0.99, 0), plain, 1e-9);
  const double part = YcsbZipfian::Zeta(0, 2500000, 0.99, 0);
  EXPECT_NEAR(YcsbZipfian::Zeta(2500000, 3000000, 0.99, part), plain, 1e-9);
  EXPECT_NEAR(YcsbZipfian::Zeta(0, 10, 0.5, 0), [] {
    double s = 0;
    for (int i = 1; i <= 10; ++i) s += 1 / std::sqrt(i);
    return s;
  }(), 1e-12);
}

// Item 0 has probability 1/zeta(n) and item 1 0.5^theta/zeta(n) exactly
// (Gray et al.'s generator); the head is heavier than the tail.
TEST(YcsbZipfianTest, MostPopularItemsHaveTheirAnalyticalShare) {
  const int64_t n = 1000;
  YcsbZipfian z(0, n - 1);
  sim::Rng rng(1, "zipf");
  const int draws = 400000;
  std::vector<uint64_t> count(n);
  for (int i = 0; i < draws; ++i) {
    const int64_t v = z.Next(rng);
    ASSERT_GE(v, 0);
    ASSERT_LT(v, n);
    ++count[static_cast<size_t>(v)];
  }
  const double zeta = YcsbZipfian::Zeta(0, n, 0.99, 0);
  const double p0 = 1 / zeta, p1 = std::pow(0.5, 0.99) / zeta;
  EXPECT_NEAR(static_cast<double>(count[0]) / draws, p0, Tolerance(p0, draws));
  EXPECT_NEAR(static_cast<double>(count[1]) / draws, p1, Tolerance(p1, draws));
  uint64_t head = 0, tail = 0;
  for (int i = 0; i < 100; ++i) head += count[static_cast<size_t>(i)];
  for (int i = 900; i < 1000; ++i) tail += count[static_cast<size_t>(i)];
  EXPECT_GT(head, 10 * tail);
  // min offsets the items.
  YcsbZipfian shifted(50, 59);
  for (int i = 0; i < 1000; ++i) {
    const int64_t v = shifted.Next(rng);
    ASSERT_GE(v, 50);
    ASSERT_LE(v, 59);
  }
}

// The most popular key of the scrambled zipfian takes item 0's share
// (1/zeta(10^10)) plus what other items hashing to it add: about the
// rest spread over the key range.
TEST(YcsbZipfianTest, ScrambledMostPopularKeyHasTheAnalyticalShare) {
  const int64_t n = 1000;
  YcsbScrambledZipfian z(0, n - 1);
  sim::Rng rng(2, "scrambled");
  const int draws = 300000;
  std::map<int64_t, uint64_t> count;
  for (int i = 0; i < draws; ++i) {
    const int64_t v = z.Next(rng);
    ASSERT_GE(v, 0);
    ASSERT_LT(v, n);
    ++count[v];
  }
  int64_t top = 0;
  for (const auto& [k, c] : count) {
    if (c > count[top]) top = k;
  }
  EXPECT_EQ(top, YcsbFnvHash64(0) % n) << "item 0's key";
  const double p0 = 1 / YcsbScrambledZipfian::kZetan;
  // Items 1..10^4 exactly, the rest spread evenly over the n keys.
  double extra = 0, head = p0;
  for (int64_t i = 1; i < 10000; ++i) {
    const double p = std::pow(0.5, 0.99) / YcsbScrambledZipfian::kZetan * std::pow(2.0 / (i + 1), 0.99);
    head += p;
    if (YcsbFnvHash64(i) % n == top) extra += p;
  }
  const double expect = p0 + extra + (1 - head) / static_cast<double>(n);
  EXPECT_NEAR(static_cast<double>(count[top]) / draws, expect, Tolerance(expect, draws) + 0.001);
  // Popular keys are spread over the range, not clustered at its start.
  uint64_t low_half = 0;
  for (const auto& [k, c] : count) low_half += k < n / 2 ? c : 0;
  EXPECT_GT(low_half, draws / 5);
  EXPECT_LT(low_half, draws * 4 / 5);
}

TEST(YcsbUniformTest, FlatByChiSquare) {
  YcsbUniform u(10, 109);
  sim::Rng rng(3, "uniform");
  std::vector<uint64_t> count(100);
  for (int i = 0; i < 200000; ++i) {
    const int64_t v = u.Next(rng);
    ASSERT_GE(v, 10);
    ASSERT_LE(v, 109);
    ++count[static_cast<size_t>(v - 10)];
  }
  // 99 degrees of freedom: P(chi2 > 148.2) = 0.001.
  EXPECT_LT(ChiSquare(count), 148.2);
}

TEST(YcsbAckCounterTest, LastAdvancesOverContiguousAcknowledgements) {
  YcsbAckCounter c(100);
  EXPECT_EQ(c.Last(), 99);
  const int64_t a = c.Next(), b = c.Next(), d = c.Next();
  EXPECT_EQ(a, 100);
  EXPECT_EQ(d, 102);
  c.Acknowledge(b);
  EXPECT_EQ(c.Last(), 99) << "101 waits for 100";
  c.Acknowledge(a);
  EXPECT_EQ(c.Last(), 101);
  c.Acknowledge(d);
  EXPECT_EQ(c.Last(), 102);
}

// Latest: the newest key is the most popular, with zipfian's head share,
// and it moves as inserts are acknowledged.
TEST(YcsbLatestTest, FavoursTheNewestKeys) {
  YcsbAckCounter inserted(1000);
  YcsbSkewedLatest latest(&inserted);
  sim::Rng rng(4, "latest");
  const int draws = 200000;
  std::map<int64_t, uint64_t> count;
  for (int i = 0; i < draws; ++i) {
    const int64_t v = latest.Next(rng);
    ASSERT_GE(v, 0);
    ASSERT_LE(v, 999);
    ++count[v];
  }
  const double p0 = 1 / YcsbZipfian::Zeta(0, 999, 0.99, 0);
  EXPECT_NEAR(static_cast<double>(count[999]) / draws, p0, Tolerance(p0, draws));
  uint64_t recent = 0;
  for (int64_t k = 900; k <= 999; ++k) recent += count[k];
  EXPECT_GT(recent, draws / 2) << "the newest 10% take most requests";
  for (int i = 0; i < 10; ++i) inserted.Acknowledge(inserted.Next());
  count.clear();
  for (int i = 0; i < 20000; ++i) ++count[latest.Next(rng)];
  int64_t top = 0;
  for (const auto& [k, c] : count) {
    if (c > count[top]) top = k;
  }
  EXPECT_EQ(top, 1009);
  EXPECT_LE(count.rbegin()->first, 1009);
}

TEST(YcsbOtherDistributionsTest, HotspotSequentialExponential) {
  sim::Rng rng(5, "other");
  YcsbHotspot hot(0, 999, 0.2, 0.8);
  uint64_t in_hot = 0;
  const int draws = 100000;
  for (int i = 0; i < draws; ++i) {
    const int64_t v = hot.Next(rng);
    ASSERT_GE(v, 0);
    ASSERT_LE(v, 999);
    in_hot += v < 200;
  }
  EXPECT_NEAR(static_cast<double>(in_hot) / draws, 0.8, Tolerance(0.8, draws));
  YcsbHotspot all_hot(0, 9, 1.0, 0.5);  // an empty cold set takes nothing
  for (int i = 0; i < 100; ++i) ASSERT_LT(all_hot.Next(rng), 10);

  YcsbSequential seq(5, 7);
  std::vector<int64_t> got;
  for (int i = 0; i < 7; ++i) got.push_back(seq.Next(rng));
  EXPECT_EQ(got, (std::vector<int64_t>{5, 6, 7, 5, 6, 7, 5}));

  YcsbExponential expo(95, 857.14);
  uint64_t within = 0;
  for (int i = 0; i < draws; ++i) {
    const int64_t v = expo.Next(rng);
    ASSERT_GE(v, 0);
    within += v < 857;
  }
  EXPECT_NEAR(static_cast<double>(within) / draws, 0.95, Tolerance(0.95, draws) + 0.002);
}

TEST(YcsbOpChooserTest, ProportionsAreNormalizedWeights) {
  YcsbProperties p = sim::MakeDefault<YcsbProperties>();
  p.readproportion = 1;
  p.updateproportion = 1;
  p.scanproportion = 2;
  YcsbOpChooser c(p);
  EXPECT_DOUBLE_EQ(c.Probability(YcsbOp::kRead), 0.25);
  EXPECT_DOUBLE_EQ(c.Probability(YcsbOp::kScan), 0.5);
  EXPECT_DOUBLE_EQ(c.Probability(YcsbOp::kInsert), 0);
  sim::Rng rng(6, "ops");
  std::map<YcsbOp, int> n;
  const int draws = 100000;
  for (int i = 0; i < draws; ++i) ++n[c.Next(rng)];
  EXPECT_EQ(n.count(YcsbOp::kInsert), 0u);
  EXPECT_NEAR(n[YcsbOp::kRead] / double(draws), 0.25, Tolerance(0.25, draws));
  EXPECT_NEAR(n[YcsbOp::kScan] / double(draws), 0.5, Tolerance(0.5, draws));
}

// nextKeynum: only acknowledged keys, for every distribution; zipfian's
// range leaves room for inserts.
TEST(YcsbChoosersTest, KeysAreAlwaysInserted) {
  for (const char* dist : {"uniform", "zipfian", "latest", "hotspot", "sequential", "exponential"}) {
    YcsbChoosers ch(Spec({"recordcount=500", "operationcount=1000", "insertproportion=0.5", "readproportion=0.5",
                          "updateproportion=0", std::string("requestdistribution=") + dist}));
    sim::Rng rng(7, dist);
    std::map<int64_t, int> seen;
    for (int i = 0; i < 20000; ++i) {
      if (i % 40 == 0) ch.inserted().Acknowledge(ch.inserted().Next());
      const int64_t k = ch.NextKeynum(rng).value();
      ASSERT_GE(k, 0) << dist;
      ASSERT_LE(k, ch.inserted().Last()) << dist;
      ++seen[k];
    }
    EXPECT_GT(seen.size(), 100u) << dist;
    if (std::string(dist) == "latest") {
      EXPECT_GT(seen.rbegin()->first, 499) << "new keys are chosen";
    }
  }
  // Where YCSB would spin: one record among 2^31 expected inserts.
  YcsbChoosers spin(Spec({"recordcount=1", "operationcount=1000000000000", "insertproportion=0.5",
                          "readproportion=0.5", "updateproportion=0", "requestdistribution=zipfian"}));
  sim::Rng spin_rng(7, "spin");
  auto k = spin.NextKeynum(spin_rng);
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("no inserted key in"), std::string::npos);
  YcsbChoosers ch(Spec({"recordcount=10", "operationcount=1", "fieldlengthdistribution=uniform",
                        "minfieldlength=3", "fieldlength=7", "scanlengthdistribution=zipfian", "maxscanlength=5"}));
  sim::Rng rng(8, "lengths");
  std::map<uint64_t, int> fl, sl;
  for (int i = 0; i < 5000; ++i) {
    ++fl[ch.NextFieldLength(rng)];
    ++sl[ch.NextScanLength(rng)];
    ASSERT_LT(ch.NextField(rng), 10u);
  }
  EXPECT_EQ(fl.begin()->first, 3u);
  EXPECT_EQ(fl.rbegin()->first, 7u);
  EXPECT_EQ(sl.begin()->first, 1u);
  EXPECT_LE(sl.rbegin()->first, 5u);
  EXPECT_GT(sl[1], sl[5]) << "zipfian scan lengths favour short scans";
}

TEST(YcsbValuesTest, RandomAndIntegrityValues) {
  sim::Rng rng(9, "values");
  std::string a, b;
  YcsbRandomValue(rng, 100, &a);
  YcsbRandomValue(rng, 100, &b);
  EXPECT_EQ(a.size(), 100u);
  EXPECT_NE(a, b);
  for (char c : a) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/');
  YcsbIntegrityValue("user1", "field0", 50, &a);
  YcsbIntegrityValue("user1", "field0", 50, &b);
  EXPECT_EQ(a, b);
  YcsbIntegrityValue("user1", "field1", 50, &b);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace host::sqlite
