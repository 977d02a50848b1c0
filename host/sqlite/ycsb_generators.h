// The number generators of YCSB's CoreWorkload, with YCSB's semantics, so a
// run here chooses operations, keys, field lengths and scan lengths as YCSB
// does (the random draws come from sim::Rng streams, not Java's, so the
// sequences differ but the distributions are YCSB's).
//
//  - Keys: key number k names the record "user" + digits, the digits being
//    FNV-64(k) (YcsbFnvHash64) with insertorder=hashed and k itself with
//    insertorder=ordered, zero-padded to `zeropadding` digits.
//  - Zipfian (YcsbZipfian): Gray et al.'s generator ("Quickly generating
//    billion-record synthetic databases", SIGMOD 1994) as YCSB implements
//    it: item `min` is the most popular, P(min) = 1/zeta(n, theta); the item
//    count may grow between draws (zeta is then extended incrementally, and
//    eta keeps the item count the generator was built with, as in YCSB).
//    Constant 0.99.
//  - Scrambled zipfian (requestdistribution=zipfian): a zipfian draw over
//    10^10 items (zeta precomputed, as YCSB's ScrambledZipfianGenerator),
//    hashed with FNV-64 and taken modulo the key range, so popular keys are
//    spread over the key space. The range is insertstart .. insertstart +
//    insertcount + expected new keys (2 x operationcount x
//    insertproportion, YCSB's fudge factor); keys not inserted yet are
//    drawn again.
//  - Latest (YCSB's SkewedLatestGenerator): the latest acknowledged insert
//    minus a zipfian draw over the keys inserted so far: recent keys are the
//    popular ones.
//  - Hotspot, sequential, uniform, exponential: YCSB's
//    HotspotIntegerGenerator, SequentialGenerator, UniformLongGenerator and
//    ExponentialGenerator (exponential counts back from the latest key).
//  - YcsbAckCounter is YCSB's AcknowledgedCounterGenerator: run-phase
//    inserts take the next key number; the key becomes choosable once it and
//    every key before it are acknowledged (insert done).
//  - YcsbOpChooser is YCSB's DiscreteGenerator over the proportions
//    (weights normalized to their sum).
// Generators are shared by the workload's threads, as YCSB's are; each draw
// takes the calling thread's Rng.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/sqlite/ycsb_spec.h"
#include "sim/rng.h"
#include "sim/status.h"

namespace host::sqlite {

// YCSB's FNV-64 hash of a key number: FNV-1a over its 8 bytes, low byte
// first, then made non-negative as Java's Math.abs (INT64_MIN stays).
int64_t YcsbFnvHash64(int64_t v);
// "user" + the key number's digits (hashed unless `ordered`), zero-padded.
std::string YcsbKeyName(int64_t keynum, uint32_t zeropadding, bool ordered);

// A source of integers (YCSB's NumberGenerator).
class YcsbNumberGenerator {
 public:
  virtual ~YcsbNumberGenerator() = default;
  virtual int64_t Next(sim::Rng& rng) = 0;
};

class YcsbConstant final : public YcsbNumberGenerator {
 public:
  explicit YcsbConstant(int64_t v) : v_(v) {}
  int64_t Next(sim::Rng&) override { return v_; }

 private:
  int64_t v_;
};

// Uniform over lo..hi inclusive. REQUIRES: lo <= hi.
class YcsbUniform final : public YcsbNumberGenerator {
 public:
  YcsbUniform(int64_t lo, int64_t hi);
  int64_t Next(sim::Rng& rng) override;

 private:
  int64_t lo_;
  uint64_t span_;
};

class YcsbZipfian final : public YcsbNumberGenerator {
 public:
  static constexpr double kConstant = 0.99;
  // Items min..max inclusive; zeta computed (O(max - min)) or given.
  YcsbZipfian(int64_t min, int64_t max, double theta = kConstant);
  YcsbZipfian(int64_t min, int64_t max, double theta, double zetan);
  int64_t Next(sim::Rng& rng) override { return Next(rng, items_); }
  // A draw over `itemcount` items from min; a larger count than before
  // extends zeta (a smaller one keeps it, as YCSB does).
  int64_t Next(sim::Rng& rng, int64_t itemcount);
  // sum_{i=from}^{to-1} 1 / (i + 1)^theta, added to `initial`.
  static double Zeta(int64_t from, int64_t to, double theta, double initial);
  double zetan() const { return zetan_; }
  int64_t items() const { return items_; }

 private:
  int64_t items_, base_;
  double theta_, zeta2theta_, alpha_, zetan_, eta_;
  int64_t count_for_zeta_;
};

class YcsbScrambledZipfian final : public YcsbNumberGenerator {
 public:
  static constexpr int64_t kItemCount = 10000000000;
  static constexpr double kZetan = 26.46902820178302;  // zeta(kItemCount, 0.99)
  YcsbScrambledZipfian(int64_t min, int64_t max);
  int64_t Next(sim::Rng& rng) override;

 private:
  int64_t min_, itemcount_;
  YcsbZipfian gen_;
};

class YcsbAckCounter {
 public:
  explicit YcsbAckCounter(int64_t start) : next_(start), limit_(start - 1) {}
  // The next key number to insert.
  int64_t Next() { return next_++; }
  // Marks `v` inserted; Last() advances over every contiguous acknowledged one.
  void Acknowledge(int64_t v);
  // The highest key number below which every key is acknowledged.
  int64_t Last() const { return limit_; }

 private:
  int64_t next_, limit_;
  std::set<int64_t> pending_;
};

class YcsbSkewedLatest final : public YcsbNumberGenerator {
 public:
  explicit YcsbSkewedLatest(const YcsbAckCounter* basis);
  int64_t Next(sim::Rng& rng) override;

 private:
  const YcsbAckCounter* basis_;
  YcsbZipfian zipfian_;
};

class YcsbHotspot final : public YcsbNumberGenerator {
 public:
  YcsbHotspot(int64_t lo, int64_t hi, double hot_data, double hot_ops);
  int64_t Next(sim::Rng& rng) override;

 private:
  int64_t lo_, hot_, cold_;
  double hot_ops_;
};

class YcsbSequential final : public YcsbNumberGenerator {
 public:
  YcsbSequential(int64_t lo, int64_t hi) : lo_(lo), interval_(hi - lo + 1) {}
  int64_t Next(sim::Rng&) override { return lo_ + static_cast<int64_t>(count_++ % static_cast<uint64_t>(interval_)); }

 private:
  int64_t lo_, interval_;
  uint64_t count_ = 0;
};

// Exponential with `percentile` % of the draws below `range`; the draw is
// truncated toward zero.
class YcsbExponential final : public YcsbNumberGenerator {
 public:
  YcsbExponential(double percentile, double range);
  int64_t Next(sim::Rng& rng) override;

 private:
  double gamma_;
};

enum class YcsbOp { kRead, kUpdate, kInsert, kScan, kReadModifyWrite };
inline constexpr int kYcsbOps = 5;
std::string_view YcsbOpName(YcsbOp op);      // "READ", ..., "READ-MODIFY-WRITE"
std::string_view YcsbOpStatName(YcsbOp op);  // "read", ..., "read_modify_write"

class YcsbOpChooser {
 public:
  // The operations with a positive weight, in YCSB's order.
  explicit YcsbOpChooser(const YcsbProperties& p);
  YcsbOp Next(sim::Rng& rng) const;
  // The normalized probability of `op`.
  double Probability(YcsbOp op) const;

 private:
  std::vector<std::pair<YcsbOp, double>> weights_;
  double sum_ = 0;
};

// Everything CoreWorkload draws from, built from a resolved spec.
class YcsbChoosers {
 public:
  explicit YcsbChoosers(const YcsbSpec& spec);
  YcsbChoosers(const YcsbChoosers&) = delete;  // the latest-key generator points at inserted_
  YcsbChoosers& operator=(const YcsbChoosers&) = delete;

  YcsbOp NextOp(sim::Rng& rng) const { return ops_.Next(rng); }
  // A key number that has been inserted and acknowledged (YCSB's
  // nextKeynum: keys not inserted yet are drawn again). An error after
  // kMaxKeyDraws draws in a row, where YCSB would spin: a zipfian range
  // whose room for expected inserts dwarfs the records inserted so far.
  // REQUIRES: keys() is not null.
  static constexpr int kMaxKeyDraws = 10000000;
  sim::Result<int64_t> NextKeynum(sim::Rng& rng);
  // A field index, uniform over the fields.
  uint32_t NextField(sim::Rng& rng) { return static_cast<uint32_t>(field_.Next(rng)); }
  uint64_t NextFieldLength(sim::Rng& rng) { return static_cast<uint64_t>(field_length_->Next(rng)); }
  uint64_t NextScanLength(sim::Rng& rng) { return static_cast<uint64_t>(scan_length_->Next(rng)); }
  YcsbAckCounter& inserted() { return inserted_; }
  const YcsbOpChooser& ops() const { return ops_; }
  // The request distribution's generator (null without a run phase or
  // for one that only inserts).
  YcsbNumberGenerator* keys() { return keys_.get(); }

 private:
  YcsbOpChooser ops_;
  YcsbAckCounter inserted_;
  std::unique_ptr<YcsbNumberGenerator> keys_;
  bool back_from_latest_ = false;  // exponential: keys count back from the latest
  YcsbUniform field_;
  std::unique_ptr<YcsbNumberGenerator> field_length_, scan_length_;
};

// Field values: `n` printable characters from `rng`; or, for
// dataintegrity, the value that key `key` and field `field` always have.
void YcsbRandomValue(sim::Rng& rng, uint64_t n, std::string* out);
void YcsbIntegrityValue(std::string_view key, std::string_view field, uint64_t n, std::string* out);

}  // namespace host::sqlite
