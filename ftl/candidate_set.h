// CandidateSet: the victim candidates of every group as dense arrays, for
// policies that sample or scan candidates (random, d_choices, cost_benefit).
// Insert and Remove are O(1) (swap with the last element); the order of a
// group's array depends only on the call sequence, so iteration is
// deterministic. Memory: 8 bytes per unit. Internal to the victim policies.
#pragma once

#include <cstdint>
#include <vector>

#include <glog/logging.h>

#include "ftl/block_manager.h"

namespace ftl {

class CandidateSet {
 public:
  explicit CandidateSet(const BlockManager& blocks)
      : blocks_per_group_(blocks.units_per_group()), pos_(blocks.units(), kAbsent), members_(blocks.groups()) {
    for (auto& m : members_) m.reserve(blocks_per_group_);
  }

  void Insert(UnitId u) {
    DCHECK_EQ(pos_[u], kAbsent);
    auto& m = members_[u / blocks_per_group_];
    pos_[u] = static_cast<uint32_t>(m.size());
    m.push_back(u);
  }
  void Remove(UnitId u) {
    DCHECK_NE(pos_[u], kAbsent);
    auto& m = members_[u / blocks_per_group_];
    const uint32_t i = pos_[u];
    const UnitId last = m.back();
    m[i] = last;
    pos_[last] = i;
    m.pop_back();
    pos_[u] = kAbsent;
  }
  bool Contains(UnitId u) const { return pos_[u] != kAbsent; }
  const std::vector<UnitId>& Of(uint32_t group) const { return members_[group]; }
  uint64_t MemoryBytes() const {
    uint64_t n = pos_.capacity() * sizeof(uint32_t);
    for (const auto& m : members_) n += m.capacity() * sizeof(UnitId);
    return n;
  }

 private:
  static constexpr uint32_t kAbsent = UINT32_MAX;
  uint32_t blocks_per_group_;
  std::vector<uint32_t> pos_;
  std::vector<std::vector<UnitId>> members_;
};

}  // namespace ftl
