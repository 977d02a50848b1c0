#include "host/fsworkload/index_set.h"

#include <bit>

#include <glog/logging.h>

namespace host {

void IndexSet::Reset(uint64_t capacity) {
  capacity_ = capacity;
  size_ = 0;
  l0_.assign((capacity + 63) / 64 + 1, 0);
  l1_.assign(l0_.size() / 64 + 1, 0);
}

bool IndexSet::Insert(uint64_t i) {
  DCHECK_LT(i, capacity_);
  uint64_t& w = l0_[i >> 6];
  const uint64_t bit = uint64_t{1} << (i & 63);
  if (w & bit) return false;
  w |= bit;
  l1_[(i >> 6) >> 6] |= uint64_t{1} << ((i >> 6) & 63);
  ++size_;
  return true;
}

bool IndexSet::Erase(uint64_t i) {
  DCHECK_LT(i, capacity_);
  uint64_t& w = l0_[i >> 6];
  const uint64_t bit = uint64_t{1} << (i & 63);
  if (!(w & bit)) return false;
  w &= ~bit;
  if (w == 0) l1_[(i >> 6) >> 6] &= ~(uint64_t{1} << ((i >> 6) & 63));
  --size_;
  return true;
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

}  // namespace host
