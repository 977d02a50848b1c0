// AliasTable: O(1) sampling from a fixed discrete distribution (Walker's
// alias method, built with Vose's stable construction).
//
// Used for small categorical choices on the per-IO path (block-size split,
// access zones). Construction is O(n) and allocates; Next() is two array
// reads and one 64-bit draw, and never allocates.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/rng.h"

namespace host {

class AliasTable {
 public:
  // REQUIRES: weights non-empty, every weight >= 0 and finite, sum > 0,
  // size < 2^32. Weights need not be normalized.
  explicit AliasTable(const std::vector<double>& weights);

  // An index in [0, size()) with probability weight[i] / sum(weights).
  // One Rng draw: the high part of x * n picks the column and the low part
  // is the coin, so the bias is below n / 2^64.
  uint32_t Next(sim::Rng& rng) const {
    const __uint128_t m = static_cast<__uint128_t>(rng.Next()) * cols_.size();
    const Column& c = cols_[static_cast<size_t>(m >> 64)];
    return static_cast<uint64_t>(m) < c.threshold ? static_cast<uint32_t>(m >> 64) : c.alias;
  }

  size_t size() const { return cols_.size(); }
  // The normalized probability of index i (for tests and reports).
  double Probability(uint32_t i) const { return probability_[i]; }

 private:
  struct Column {
    uint64_t threshold;  // keep the column's own index if the coin is below this
    uint32_t alias;
  };
  std::vector<Column> cols_;
  std::vector<double> probability_;
};

}  // namespace host
