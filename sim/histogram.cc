#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include <glog/logging.h>

#include "sim/stats.h"

namespace sim {

namespace {

// Bucket layout. Values v < 2^(kSubBits+1) get one bucket each (index v).
// Above that, v with floor(log2 v) = e is shifted right by s = e - kSubBits,
// leaving a mantissa m in [2^kSubBits, 2^(kSubBits+1)); its index is
// s * 2^kSubBits + m. The two rules agree at the boundary, so the index is
// continuous and one formula with s = max(e - kSubBits, 0) covers both.
constexpr int kSubBits = Histogram::kSubBits;
constexpr uint64_t kSubCount = uint64_t{1} << kSubBits;
// The largest recordable value is INT64_MAX (e = 62, s = 62 - kSubBits).
constexpr size_t kNumBuckets = static_cast<size_t>(64 - kSubBits) * kSubCount;

}  // namespace

Histogram::Histogram() : buckets_(new uint64_t[kNumBuckets]()) {}

uint64_t Histogram::BucketLow(size_t b) {
  if (b < 2 * kSubCount) return b;
  const int shift = static_cast<int>(b >> kSubBits) - 1;
  const uint64_t m = (b & (kSubCount - 1)) | kSubCount;
  return m << shift;
}

uint64_t Histogram::BucketHigh(size_t b) {
  if (b < 2 * kSubCount) return b;
  const int shift = static_cast<int>(b >> kSubBits) - 1;
  const uint64_t m = (b & (kSubCount - 1)) | kSubCount;
  return ((m + 1) << shift) - 1;
}

void Histogram::RecordN(int64_t v, uint64_t n) {
  if (n == 0) return;
  v = std::max<int64_t>(v, 0);
  buckets_[BucketOf(static_cast<uint64_t>(v))] += n;
  count_ += n;
  sum_ += static_cast<__int128>(v) * n;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
}

void Histogram::Merge(const Histogram& o) {
  if (o.count_ == 0) return;
  // Only buckets in [BucketOf(o.min_), BucketOf(o.max_)] can be non-zero.
  const size_t first = BucketOf(static_cast<uint64_t>(o.min_));
  const size_t last = BucketOf(static_cast<uint64_t>(o.max_));
  for (size_t b = first; b <= last; ++b) buckets_[b] += o.buckets_[b];
  count_ += o.count_;
  sum_ += o.sum_;
  min_ = std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
}

void Histogram::Reset() {
  std::memset(buckets_.get(), 0, kNumBuckets * sizeof(uint64_t));
  count_ = 0;
  sum_ = 0;
  min_ = std::numeric_limits<int64_t>::max();
  max_ = 0;
}

void Histogram::MarkNow(Mark* m) const {
  m->count = count_;
  m->counts.clear();
  m->first = 0;
  if (count_ == 0) return;
  m->first = BucketOf(static_cast<uint64_t>(min_));
  const size_t last = BucketOf(static_cast<uint64_t>(max_));
  m->counts.assign(buckets_.get() + m->first, buckets_.get() + last + 1);
}

void Histogram::PercentilesSince(const Mark& m, const std::vector<double>& qs, std::vector<double>* out) const {
  CHECK_EQ(out->size(), qs.size());
  CHECK_GE(count_, m.count) << "histogram changed under a mark (Reset?)";
  const uint64_t n = count_ - m.count;
  if (n == 0) {
    std::fill(out->begin(), out->end(), std::nan(""));
    return;
  }
  // Ranks of the quantiles among the n new values, as Percentile() ranks.
  std::vector<uint64_t> rank(qs.size());
  for (size_t i = 0; i < qs.size(); ++i) {
    CHECK(qs[i] >= 0 && qs[i] <= 1) << "percentile out of [0, 1]: " << qs[i];
    const double r = qs[i] * static_cast<double>(n);
    rank[i] = std::clamp<uint64_t>(static_cast<uint64_t>(std::ceil(r - r * 1e-15)), 1, n);
  }
  const size_t first = BucketOf(static_cast<uint64_t>(min_));
  const size_t last = BucketOf(static_cast<uint64_t>(max_));
  size_t found = 0;
  uint64_t seen = 0;
  for (size_t b = first; b <= last && found < qs.size(); ++b) {
    const uint64_t before = b >= m.first && b - m.first < m.counts.size() ? m.counts[b - m.first] : 0;
    const uint64_t d = buckets_[b] - before;
    if (d == 0) continue;
    seen += d;
    const uint64_t low = BucketLow(b);
    const int64_t mid = std::clamp(static_cast<int64_t>(low + (BucketHigh(b) - low) / 2), min_, max_);
    for (size_t i = 0; i < qs.size(); ++i) {
      if (rank[i] != 0 && seen >= rank[i]) {
        (*out)[i] = static_cast<double>(mid);
        rank[i] = 0;  // found
        ++found;
      }
    }
  }
  CHECK_EQ(found, qs.size()) << "histogram bucket counts disagree with the mark";
}

int64_t Histogram::Percentile(double q) const {
  CHECK(q >= 0 && q <= 1) << "percentile out of [0, 1]: " << q;
  if (count_ == 0) return 0;
  if (q == 0) return min_;
  if (q == 1) return max_;
  // Nearest rank: the smallest recorded value with at least q * count values
  // at or below it. The small downward nudge keeps a product that is an
  // integer in exact arithmetic (0.999 * 1000) from rounding up to the next
  // rank because q is not representable.
  const double r = q * static_cast<double>(count_);
  uint64_t rank = static_cast<uint64_t>(std::ceil(r - r * 1e-15));
  rank = std::clamp<uint64_t>(rank, 1, count_);

  const size_t first = BucketOf(static_cast<uint64_t>(min_));
  const size_t last = BucketOf(static_cast<uint64_t>(max_));
  uint64_t seen = 0;
  for (size_t b = first; b <= last; ++b) {
    seen += buckets_[b];
    if (seen < rank) continue;
    // The true order statistic lies in [low, high]; the midpoint is within
    // half a bucket width (< 2^-(kSubBits+1) relative) of it, and clamping
    // to the exact extremes can only move it closer.
    const uint64_t low = BucketLow(b);
    const uint64_t mid = low + (BucketHigh(b) - low) / 2;
    return std::clamp(static_cast<int64_t>(mid), min_, max_);
  }
  LOG(FATAL) << "histogram bucket counts disagree with count " << count_;
  return max_;
}

}  // namespace sim
