// Divisor: division and remainder by a divisor fixed at construction, with
// a shift/mask fast path for powers of two.
//
// The FTL's address arithmetic (page -> block -> unit -> group) divides by
// geometry sizes on every page placed, relocated or completed; a 64-bit
// hardware division costs tens of cycles while the sizes are nearly always
// powers of two. The branch on the divisor's kind is perfectly predictable.
#pragma once

#include <bit>
#include <cstdint>

#include <glog/logging.h>

namespace ftl {

class Divisor {
 public:
  Divisor() = default;
  // REQUIRES: d > 0.
  explicit Divisor(uint64_t d) : d_(d), pow2_(std::has_single_bit(d)), shift_(std::countr_zero(d)) {
    CHECK_GT(d, 0u);
  }

  uint64_t value() const { return d_; }
  uint64_t Div(uint64_t x) const { return pow2_ ? x >> shift_ : x / d_; }
  uint64_t Mod(uint64_t x) const { return pow2_ ? x & (d_ - 1) : x % d_; }

 private:
  uint64_t d_ = 1;
  bool pow2_ = true;
  int shift_ = 0;
};

}  // namespace ftl
