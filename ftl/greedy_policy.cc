// Greedy victim selection: the candidate with the fewest valid pages.
//
// Candidates of a group sit in buckets indexed by valid count, each an
// intrusive doubly linked list (prev/next unit ids), plus the lowest bucket
// that may be non-empty. A valid-count drop moves a unit one bucket down and
// lowers the bound; selection advances the bound past empty buckets. The
// bound only rises during selection and every drop lowers it by at most the
// distance it later re-climbs, so selection is amortized O(1). Within a
// bucket the unit that entered it first is chosen (deterministic).
#include <algorithm>

#include "ftl/victim_policy.h"

namespace ftl {
namespace {

class GreedyPolicy final : public VictimPolicy {
 public:
  explicit GreedyPolicy(const VictimPolicyContext& ctx)
      : blocks_(*ctx.blocks),
        buckets_(blocks_.unit_pages() + 1),
        head_(static_cast<size_t>(blocks_.groups()) * buckets_, kNoUnit),
        tail_(head_.size(), kNoUnit),
        prev_(blocks_.units(), kNoUnit),
        next_(blocks_.units(), kNoUnit),
        min_(blocks_.groups(), buckets_) {}

  void OnUnitFull(UnitId u) override {
    const uint32_t g = blocks_.GroupOf(u);
    const uint32_t v = blocks_.valid(u);
    PushBack(g, v, u);
    min_[g] = std::min(min_[g], v);
  }

  void OnValidDecrement(UnitId u) override {
    const uint32_t g = blocks_.GroupOf(u);
    const uint32_t v = blocks_.valid(u);
    Unlink(g, v + 1, u);
    PushBack(g, v, u);
    min_[g] = std::min(min_[g], v);
  }

  uint64_t MemoryBytes() const override {
    return (head_.capacity() + tail_.capacity() + prev_.capacity() + next_.capacity()) * sizeof(UnitId) +
           min_.capacity() * sizeof(uint32_t);
  }

  UnitId SelectVictim(uint32_t g) override {
    uint32_t& m = min_[g];
    const size_t base = static_cast<size_t>(g) * buckets_;
    while (m < buckets_ && head_[base + m] == kNoUnit) ++m;
    if (m == buckets_) return kNoUnit;
    const UnitId u = head_[base + m];
    Unlink(g, m, u);
    return u;
  }

 private:
  void PushBack(uint32_t g, uint32_t v, UnitId u) {
    const size_t b = static_cast<size_t>(g) * buckets_ + v;
    prev_[u] = tail_[b];
    next_[u] = kNoUnit;
    if (tail_[b] == kNoUnit) {
      head_[b] = u;
    } else {
      next_[tail_[b]] = u;
    }
    tail_[b] = u;
  }
  void Unlink(uint32_t g, uint32_t v, UnitId u) {
    const size_t b = static_cast<size_t>(g) * buckets_ + v;
    if (prev_[u] == kNoUnit) {
      DCHECK_EQ(head_[b], u);
      head_[b] = next_[u];
    } else {
      next_[prev_[u]] = next_[u];
    }
    if (next_[u] == kNoUnit) {
      DCHECK_EQ(tail_[b], u);
      tail_[b] = prev_[u];
    } else {
      prev_[next_[u]] = prev_[u];
    }
    prev_[u] = next_[u] = kNoUnit;
  }

  const BlockManager& blocks_;
  uint32_t buckets_;
  std::vector<UnitId> head_, tail_;  // per (group, valid count)
  std::vector<UnitId> prev_, next_;  // per unit
  std::vector<uint32_t> min_;        // per group: no candidate has fewer valid pages
};

std::unique_ptr<VictimPolicy> Make(const VictimPolicyContext& ctx) { return std::make_unique<GreedyPolicy>(ctx); }

}  // namespace

extern const VictimPolicyInfo kGreedyVictimPolicy{"greedy", "fewest valid pages first (O(1) valid-count buckets)",
                                                  &Make};

}  // namespace ftl
