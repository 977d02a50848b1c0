// FIFO victim selection: candidates are cleaned in the order they filled
// (a circular log). Under uniform random writes its write amplification is
// the Lambert-W expression of Desnoyers / Xiang-Kurkoski (see wa_model.h).
#include "ftl/victim_policy.h"
#include "sim/registry.h"

namespace ftl {
namespace {

class FifoPolicy final : public VictimPolicy {
 public:
  explicit FifoPolicy(const VictimPolicyContext& ctx)
      : blocks_(*ctx.blocks),
        next_(blocks_.units(), kNoUnit),
        head_(blocks_.groups(), kNoUnit),
        tail_(blocks_.groups(), kNoUnit) {}

  void OnUnitFull(UnitId u) override {
    const uint32_t g = blocks_.GroupOf(u);
    next_[u] = kNoUnit;
    if (tail_[g] == kNoUnit) {
      head_[g] = u;
    } else {
      next_[tail_[g]] = u;
    }
    tail_[g] = u;
  }

  void OnValidDecrement(UnitId) override {}

  // O(candidates of the group): the list is singly linked (removal is rare).
  void Remove(UnitId u) override {
    const uint32_t g = blocks_.GroupOf(u);
    UnitId prev = kNoUnit;
    UnitId cur = head_[g];
    while (cur != u) {
      CHECK_NE(cur, kNoUnit) << "unit " << u << " is not a candidate";
      prev = cur;
      cur = next_[cur];
    }
    (prev == kNoUnit ? head_[g] : next_[prev]) = next_[u];
    if (tail_[g] == u) tail_[g] = prev;
    next_[u] = kNoUnit;
  }

  uint64_t MemoryBytes() const override {
    return (next_.capacity() + head_.capacity() + tail_.capacity()) * sizeof(UnitId);
  }

  UnitId SelectVictim(uint32_t g) override {
    const UnitId u = head_[g];
    if (u == kNoUnit) return kNoUnit;
    head_[g] = next_[u];
    if (head_[g] == kNoUnit) tail_[g] = kNoUnit;
    next_[u] = kNoUnit;
    return u;
  }

 private:
  const BlockManager& blocks_;
  std::vector<UnitId> next_;        // per unit
  std::vector<UnitId> head_, tail_;  // per group
};

std::unique_ptr<VictimPolicy> Make(const VictimPolicyContext& ctx) { return std::make_unique<FifoPolicy>(ctx); }

}  // namespace

const sim::Registrar<VictimPolicyInfo> kRegistered{{"fifo", "oldest full unit first (circular log)", &Make}};

}  // namespace ftl
