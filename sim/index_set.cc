#include "sim/index_set.h"

#include <bit>

#include <glog/logging.h>

namespace sim {

void IndexSet::Reset(uint64_t capacity) {
  capacity_ = capacity;
  size_ = 0;
  l0_.assign((capacity + 63) / 64 + 1, 0);
  l1_.assign(l0_.size() / 64 + 1, 0);
}

void IndexSet::Grow(uint64_t capacity) {
  CHECK_GE(capacity, capacity_);
  capacity_ = capacity;
  l0_.resize((capacity + 63) / 64 + 1, 0);
  l1_.resize(l0_.size() / 64 + 1, 0);
}

int64_t IndexSet::NextAtOrAfter(uint64_t i) const {
  if (i >= capacity_ || size_ == 0) return kNone;
  uint64_t w = i >> 6;
  const uint64_t first = l0_[w] & (~uint64_t{0} << (i & 63));
  if (first != 0) return static_cast<int64_t>((w << 6) + std::countr_zero(first));
  // Next non-empty word after w, through the summary level.
  ++w;
  uint64_t s = w >> 6;
  if (s >= l1_.size()) return kNone;
  uint64_t bits = l1_[s] & (w & 63 ? ~uint64_t{0} << (w & 63) : ~uint64_t{0});
  while (bits == 0) {
    if (++s >= l1_.size()) return kNone;
    bits = l1_[s];
  }
  const uint64_t word = (s << 6) + std::countr_zero(bits);
  const int64_t r = static_cast<int64_t>((word << 6) + std::countr_zero(l0_[word]));
  return r < static_cast<int64_t>(capacity_) ? r : kNone;
}

}  // namespace sim
