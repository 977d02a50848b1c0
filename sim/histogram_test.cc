#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/rng.h"
#include "sim/stats.h"

namespace sim {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
// The documented bound: relative error < 2^-kSubBits.
constexpr double kBound = 1.0 / (1 << Histogram::kSubBits);

struct Quantile {
  const char* name;
  uint64_t num;
  uint64_t den;
};
constexpr Quantile kQuantiles[] = {
    {"p1", 1, 100},       {"p10", 10, 100},       {"p50", 50, 100}, {"p90", 90, 100},
    {"p99", 99, 100},     {"p99.9", 999, 1000},   {"p99.99", 9999, 10000},
};

// The nearest-rank order statistic, computed in exact integer arithmetic.
int64_t ExactQuantile(const std::vector<int64_t>& sorted, uint64_t num, uint64_t den) {
  const uint64_t n = sorted.size();
  uint64_t rank = (n * num + den - 1) / den;
  rank = std::clamp<uint64_t>(rank, 1, n);
  return sorted[rank - 1];
}

double RelativeError(int64_t got, int64_t want) {
  if (want == 0) return got == 0 ? 0 : std::numeric_limits<double>::infinity();
  return std::fabs(static_cast<double>(got) - static_cast<double>(want)) / static_cast<double>(want);
}

// Records `values` and checks every statistic against the exact answer.
void CheckAgainstExact(std::vector<int64_t> values) {
  Histogram h;
  __int128 sum = 0;
  for (const int64_t v : values) {
    h.Record(v);
    sum += v;
  }
  std::sort(values.begin(), values.end());
  ASSERT_EQ(h.count(), values.size());
  EXPECT_EQ(h.min(), values.front());
  EXPECT_EQ(h.max(), values.back());
  EXPECT_EQ(h.Percentile(0), values.front());
  EXPECT_EQ(h.Percentile(1), values.back());
  EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(sum) / static_cast<double>(values.size()));
  for (const Quantile& q : kQuantiles) {
    const int64_t want = ExactQuantile(values, q.num, q.den);
    const int64_t got = h.Percentile(static_cast<double>(q.num) / static_cast<double>(q.den));
    EXPECT_LE(RelativeError(got, want), kBound) << q.name << ": got " << got << " want " << want;
  }
}

std::vector<int64_t> Generate(size_t n, const std::function<int64_t(Rng&)>& draw) {
  Rng rng(42, "histogram_test");
  std::vector<int64_t> v(n);
  for (int64_t& x : v) x = draw(rng);
  return v;
}

TEST(HistogramTest, EmptyReportsZeros) {
  Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.mean(), 0);
  EXPECT_EQ(h.Percentile(0.5), 0);
  EXPECT_EQ(h.Percentile(1), 0);
}

TEST(HistogramTest, SmallValuesAreExact) {
  Histogram h;
  for (int64_t v = 0; v < 256; ++v) h.Record(v);
  // With 256 values, quantile (k+1)/256 is exactly the value k.
  for (int64_t k = 0; k < 256; ++k) {
    EXPECT_EQ(h.Percentile(static_cast<double>(k + 1) / 256), k) << k;
  }
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 255);
  EXPECT_DOUBLE_EQ(h.mean(), 127.5);
}

TEST(HistogramTest, NearestRankDefinition) {
  // p(k/100) of the values 1..100 is k, including where k / 100.0 * 100 is
  // not an integer in floating point (0.07 * 100 = 7.000000000000001).
  Histogram h;
  for (int64_t v = 1; v <= 100; ++v) h.Record(v);
  for (int k = 1; k <= 100; ++k) EXPECT_EQ(h.Percentile(k / 100.0), k) << k;
  EXPECT_EQ(h.Percentile(0.001), 1);
  EXPECT_EQ(h.Percentile(0.075), 8);
}

TEST(HistogramTest, UniformAccuracy) {
  CheckAgainstExact(Generate(200000, [](Rng& r) { return static_cast<int64_t>(r.Uniform(1000000)); }));
}

TEST(HistogramTest, ExponentialAccuracy) {
  CheckAgainstExact(Generate(200000, [](Rng& r) { return static_cast<int64_t>(r.Exponential(100000)); }));
}

TEST(HistogramTest, LognormalHeavyTailAccuracy) {
  CheckAgainstExact(Generate(200000, [](Rng& r) {
    const double u1 = 1 - r.UniformDouble();  // (0, 1]
    const double u2 = r.UniformDouble();
    const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
    return static_cast<int64_t>(std::exp(std::log(100000.0) + 2.0 * z));
  }));
}

TEST(HistogramTest, ConstantIsExact) {
  Histogram h;
  for (int i = 0; i < 1000; ++i) h.Record(123456789);
  for (const Quantile& q : kQuantiles) {
    EXPECT_EQ(h.Percentile(static_cast<double>(q.num) / static_cast<double>(q.den)), 123456789) << q.name;
  }
  EXPECT_EQ(h.mean(), 123456789);
}

TEST(HistogramTest, HugeValuesNearInt64Max) {
  std::vector<int64_t> v = Generate(50000, [](Rng& r) { return kMax - static_cast<int64_t>(r.Uniform(1ULL << 60)); });
  v.push_back(kMax);
  CheckAgainstExact(v);
  Histogram h;
  h.Record(kMax);
  h.Record(kMax);
  EXPECT_EQ(h.Percentile(0.5), kMax);
  EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(kMax));  // the sum does not overflow
}

TEST(HistogramTest, LogUniformOverFullRange) {
  // Exercises every power-of-two range, including the top bucket.
  CheckAgainstExact(Generate(100000, [](Rng& r) {
    const double d = std::exp2(r.UniformDouble() * 63);
    return d >= 9.2e18 ? kMax : static_cast<int64_t>(d);
  }));
}

// The exported buckets are the whole distribution: they partition the
// recorded values (counts sum to count, every value in its bucket's range,
// ascending and disjoint), and the nearest-rank rule applied to them gives
// Percentile exactly.
TEST(HistogramTest, BucketsReproduceCountsAndPercentiles) {
  Rng rng(5, "histogram.buckets");
  Histogram h;
  std::vector<int64_t> values;
  for (int i = 0; i < 20000; ++i) {
    const int64_t v = static_cast<int64_t>(std::exp(rng.UniformDouble() * 20.0));
    values.push_back(v);
    h.Record(v);
  }
  struct B {
    uint64_t low, high, n;
  };
  std::vector<B> bs;
  h.ForEachBucket([&](uint64_t low, uint64_t high, uint64_t n) { bs.push_back({low, high, n}); });
  uint64_t total = 0;
  for (size_t i = 0; i < bs.size(); ++i) {
    ASSERT_LE(bs[i].low, bs[i].high);
    ASSERT_GT(bs[i].n, 0u);
    if (i > 0) {
      ASSERT_GT(bs[i].low, bs[i - 1].high);
    }
    total += bs[i].n;
  }
  EXPECT_EQ(total, h.count());
  for (int64_t v : values) {
    const auto it = std::find_if(bs.begin(), bs.end(), [&](const B& b) { return b.high >= static_cast<uint64_t>(v); });
    ASSERT_NE(it, bs.end());
    ASSERT_GE(static_cast<uint64_t>(v), it->low);
  }
  for (double q : {0.01, 0.5, 0.9, 0.99, 0.999}) {
    const double r = q * static_cast<double>(h.count());
    const uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(r - r * 1e-15)));
    uint64_t seen = 0;
    for (const B& b : bs) {
      seen += b.n;
      if (seen < rank) continue;
      const int64_t mid = static_cast<int64_t>(b.low + (b.high - b.low) / 2);
      EXPECT_EQ(std::clamp(mid, h.min(), h.max()), h.Percentile(q)) << "q " << q;
      break;
    }
  }
}

TEST(HistogramTest, PercentileIsMonotonic) {
  Histogram h;
  for (const int64_t x : Generate(10000, [](Rng& r) { return static_cast<int64_t>(r.Exponential(5000)); })) {
    h.Record(x);
  }
  int64_t prev = h.Percentile(0);
  for (int i = 1; i <= 1000; ++i) {
    const int64_t p = h.Percentile(i / 1000.0);
    EXPECT_GE(p, prev) << i;
    prev = p;
  }
  EXPECT_EQ(prev, h.max());
}

TEST(HistogramTest, NegativeValuesClampToZero) {
  Histogram h;
  h.Record(-5);
  h.RecordN(-1, 3);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.mean(), 0);
}

TEST(HistogramTest, RecordNEqualsRepeatedRecord) {
  Histogram a;
  Histogram b;
  const int64_t values[] = {3, 700, 123456, 99999999999};
  for (const int64_t v : values) {
    a.RecordN(v, 1000);
    for (int i = 0; i < 1000; ++i) b.Record(v);
  }
  a.RecordN(5, 0);  // no-op: must not disturb min
  EXPECT_EQ(a.count(), b.count());
  EXPECT_EQ(a.min(), 3);
  EXPECT_EQ(a.max(), b.max());
  EXPECT_EQ(a.mean(), b.mean());
  for (int i = 0; i <= 100; ++i) EXPECT_EQ(a.Percentile(i / 100.0), b.Percentile(i / 100.0)) << i;
}

TEST(HistogramTest, MergeEqualsRecordingAll) {
  // Two streams with different ranges, so the merge covers disjoint buckets.
  const std::vector<int64_t> xs =
      Generate(20000, [](Rng& r) { return static_cast<int64_t>(r.Exponential(1e6)); });
  Histogram all;
  Histogram lo;
  Histogram hi;
  for (size_t i = 0; i < xs.size(); ++i) {
    const int64_t v = i % 3 == 0 ? xs[i] / 100 : xs[i] + 1000000;
    all.Record(v);
    (i % 3 == 0 ? lo : hi).Record(v);
  }

  Histogram merged;
  merged.Merge(lo);
  merged.Merge(hi);
  merged.Merge(Histogram());  // merging an empty one changes nothing
  EXPECT_EQ(merged.count(), all.count());
  EXPECT_EQ(merged.min(), all.min());
  EXPECT_EQ(merged.max(), all.max());
  EXPECT_EQ(merged.mean(), all.mean());
  for (int i = 0; i <= 1000; ++i) EXPECT_EQ(merged.Percentile(i / 1000.0), all.Percentile(i / 1000.0)) << i;
}

TEST(HistogramTest, ResetStartsOver) {
  Histogram h;
  h.Record(1000000);
  h.Record(7);
  h.Reset();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.Percentile(0.99), 0);
  h.Record(40);
  EXPECT_EQ(h.min(), 40);
  EXPECT_EQ(h.max(), 40);
  EXPECT_EQ(h.Percentile(0.5), 40);
}

}  // namespace
}  // namespace sim
