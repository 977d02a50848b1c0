// Greedy victim selection: the candidate with the fewest valid pages; among
// those, the one that reached its valid count first (deterministic).
//
// Two ways to find it, chosen by the shape of a group; for the same calls
// both return the same victims:
//  - Buckets: candidates of a group sit in buckets indexed by valid count,
//    each an intrusive doubly linked list (prev/next unit ids) in the order
//    units entered it, plus the lowest bucket that may be non-empty. A
//    valid-count drop moves a unit one bucket down and lowers the bound;
//    selection advances the bound past empty buckets. The bound only rises
//    during selection and every drop lowers it by at most the distance it
//    later re-climbs, so selection is amortized O(1). A drop touches the
//    unit's links, both neighbours' and two buckets: random accesses.
//  - Keys, when a group has no more units than a unit has pages: each unit
//    has one 64-bit key, (valid count << kStampBits) | a stamp ordering the
//    calls that set counts (OnUnitFull, OnValidDecrement), all ones for a
//    unit that is not a candidate. A drop writes one key; selection takes
//    the least key of the group in one pass over its contiguous keys. In a
//    steady state every selection follows unit_pages * (1 - u) drops on
//    average (u: the victims' valid fraction), so with units per group <=
//    unit pages the pass costs units / (unit_pages * (1 - u)) keys a drop.
#include <algorithm>

#include <glog/logging.h>

#include "ftl/victim_policy.h"
#include "sim/registry.h"

namespace ftl {
namespace {

class GreedyPolicy final : public VictimPolicy {
 public:
  explicit GreedyPolicy(const VictimPolicyContext& ctx)
      : blocks_(*ctx.blocks),
        upg_(blocks_.units_per_group()),
        keyed_(upg_ <= blocks_.unit_pages() && blocks_.unit_pages() < (uint64_t{1} << (64 - kStampBits)) - 1) {
    if (keyed_) {
      keys_.assign(blocks_.units(), kNotCandidate);
      return;
    }
    buckets_ = blocks_.unit_pages() + 1;
    buckets_of_.resize(static_cast<size_t>(blocks_.groups()) * buckets_);
    links_.resize(blocks_.units());
    min_.assign(blocks_.groups(), buckets_);
  }

  void OnUnitFull(UnitId u) override {
    const uint32_t v = blocks_.valid(u);
    if (keyed_) {
      keys_[u] = Key(v);
      return;
    }
    const uint32_t g = blocks_.GroupOf(u);
    PushBack(g, v, u);
    min_[g] = std::min(min_[g], v);
  }

  void OnValidDecrement(UnitId u) override {
    const uint32_t v = blocks_.valid(u);
    if (keyed_) {
      keys_[u] = Key(v);
      return;
    }
    const uint32_t g = blocks_.GroupOf(u);
    Unlink(g, v + 1, u);
    PushBack(g, v, u);
    min_[g] = std::min(min_[g], v);
  }

  void Remove(UnitId u) override {
    if (keyed_) {
      keys_[u] = kNotCandidate;
      return;
    }
    Unlink(blocks_.GroupOf(u), blocks_.valid(u), u);
  }

  void Prefetch(UnitId u) const override {
    if (keyed_) {
      __builtin_prefetch(&keys_[u]);
    } else {
      __builtin_prefetch(&links_[u]);
    }
  }

  uint64_t MemoryBytes() const override {
    return keys_.capacity() * sizeof(uint64_t) + buckets_of_.capacity() * sizeof(Bucket) +
           links_.capacity() * sizeof(Link) + min_.capacity() * sizeof(uint32_t);
  }

  UnitId SelectVictim(uint32_t g) override { return keyed_ ? SelectByKey(g) : SelectByBucket(g); }

 private:
  // Stamps take the low kStampBits bits of a key, the valid count the rest.
  static constexpr int kStampBits = 42;
  static constexpr uint64_t kNotCandidate = UINT64_MAX;

  uint64_t Key(uint32_t valid) {
    CHECK_LT(stamp_, uint64_t{1} << kStampBits) << "greedy victim policy: valid-count stamps exhausted";
    return (static_cast<uint64_t>(valid) << kStampBits) | stamp_++;
  }

  UnitId SelectByKey(uint32_t g) {
    const uint64_t* k = &keys_[static_cast<size_t>(g) * upg_];
    // The least key first (a branch-free pass the compiler vectorizes),
    // then where it is: keys of candidates are unique (distinct stamps).
    uint64_t least = kNotCandidate;
    for (uint32_t i = 0; i < upg_; ++i) least = std::min(least, k[i]);
    if (least == kNotCandidate) return kNoUnit;
    const uint32_t i = static_cast<uint32_t>(std::find(k, k + upg_, least) - k);
    const UnitId u = static_cast<UnitId>(static_cast<size_t>(g) * upg_ + i);
    keys_[u] = kNotCandidate;
    return u;
  }

  UnitId SelectByBucket(uint32_t g) {
    uint32_t& m = min_[g];
    const size_t base = static_cast<size_t>(g) * buckets_;
    while (m < buckets_ && buckets_of_[base + m].head == kNoUnit) ++m;
    if (m == buckets_) return kNoUnit;
    const UnitId u = buckets_of_[base + m].head;
    Unlink(g, m, u);
    return u;
  }

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
  const uint32_t upg_;
  const bool keyed_;
  // Keys.
  std::vector<uint64_t> keys_;  // per unit
  uint64_t stamp_ = 0;
  // Buckets.
  uint32_t buckets_ = 0;
  std::vector<Bucket> buckets_of_;  // per (group, valid count)
  std::vector<Link> links_;         // per unit
  std::vector<uint32_t> min_;        // per group: no candidate has fewer valid pages
};

std::unique_ptr<VictimPolicy> Make(const VictimPolicyContext& ctx) { return std::make_unique<GreedyPolicy>(ctx); }

}  // namespace

const sim::Registrar<VictimPolicyInfo> kRegistered{
    {"greedy", "fewest valid pages first (one key per unit, or O(1) valid-count buckets for groups of many units)",
     &Make}};

}  // namespace ftl
