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
#include "sim/registry.h"

namespace ftl {
namespace {

class GreedyPolicy final : public VictimPolicy {
 public:
  explicit GreedyPolicy(const VictimPolicyContext& ctx)
      : blocks_(*ctx.blocks),
        buckets_(blocks_.unit_pages() + 1),
        buckets_of_(static_cast<size_t>(blocks_.groups()) * buckets_),
        links_(blocks_.units()),
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

  void Remove(UnitId u) override { Unlink(blocks_.GroupOf(u), blocks_.valid(u), u); }

  void Prefetch(UnitId u) const override { __builtin_prefetch(&links_[u]); }

  uint64_t MemoryBytes() const override {
    return buckets_of_.capacity() * sizeof(Bucket) + links_.capacity() * sizeof(Link) +
           min_.capacity() * sizeof(uint32_t);
  }

  UnitId SelectVictim(uint32_t g) override {
    uint32_t& m = min_[g];
    const size_t base = static_cast<size_t>(g) * buckets_;
    while (m < buckets_ && buckets_of_[base + m].head == kNoUnit) ++m;
    if (m == buckets_) return kNoUnit;
    const UnitId u = buckets_of_[base + m].head;
    Unlink(g, m, u);
    return u;
  }

 private:
  void PushBack(uint32_t g, uint32_t v, UnitId u) {
    Bucket& b = buckets_of_[static_cast<size_t>(g) * buckets_ + v];
    Link& l = links_[u];
    l.prev = b.tail;
    l.next = kNoUnit;
    if (b.tail == kNoUnit) {
      b.head = u;
    } else {
      links_[b.tail].next = u;
    }
    b.tail = u;
  }
  void Unlink(uint32_t g, uint32_t v, UnitId u) {
    Bucket& b = buckets_of_[static_cast<size_t>(g) * buckets_ + v];
    Link& l = links_[u];
    if (l.prev == kNoUnit) {
      DCHECK_EQ(b.head, u);
      b.head = l.next;
    } else {
      links_[l.prev].next = l.next;
    }
    if (l.next == kNoUnit) {
      DCHECK_EQ(b.tail, u);
      b.tail = l.prev;
    } else {
      links_[l.next].prev = l.prev;
    }
    l.prev = l.next = kNoUnit;
  }

  // Both ends of a list, and both links of a unit, side by side: every
  // valid-count drop of a candidate relinks it (random units, so each
  // separate array would cost its own cache miss).
  struct Bucket {
    UnitId head = kNoUnit, tail = kNoUnit;
  };
  struct Link {
    UnitId prev = kNoUnit, next = kNoUnit;
  };

  const BlockManager& blocks_;
  uint32_t buckets_;
  std::vector<Bucket> buckets_of_;  // per (group, valid count)
  std::vector<Link> links_;         // per unit
  std::vector<uint32_t> min_;        // per group: no candidate has fewer valid pages
};

std::unique_ptr<VictimPolicy> Make(const VictimPolicyContext& ctx) { return std::make_unique<GreedyPolicy>(ctx); }

}  // namespace

const sim::Registrar<VictimPolicyInfo> kRegistered{{"greedy", "fewest valid pages first (O(1) valid-count buckets)",
                                                  &Make}};

}  // namespace ftl
