// d-choices victim selection: sample d candidates uniformly (with
// replacement) and take the one with the fewest valid pages; ties go to the
// earliest sample. d = 1 is random selection; large d approaches greedy.
#include "ftl/candidate_set.h"
#include "ftl/victim_policy.h"
#include "sim/rng.h"

namespace ftl {
namespace {

class DChoicesPolicy final : public VictimPolicy {
 public:
  explicit DChoicesPolicy(const VictimPolicyContext& ctx)
      : blocks_(*ctx.blocks), d_(ctx.d), candidates_(*ctx.blocks), rng_(ctx.seed, "ftl.victim.d_choices") {
    CHECK_GE(d_, 1u);
  }

  void OnUnitFull(UnitId u) override { candidates_.Insert(u); }
  void OnValidDecrement(UnitId) override {}
  uint64_t MemoryBytes() const override { return candidates_.MemoryBytes(); }
  UnitId SelectVictim(uint32_t g) override {
    const auto& c = candidates_.Of(g);
    if (c.empty()) return kNoUnit;
    UnitId best = kNoUnit;
    uint32_t best_valid = UINT32_MAX;
    for (uint32_t i = 0; i < d_; ++i) {
      const UnitId u = c[rng_.Uniform(c.size())];
      if (blocks_.valid(u) < best_valid) {
        best = u;
        best_valid = blocks_.valid(u);
      }
    }
    candidates_.Remove(best);
    return best;
  }

 private:
  const BlockManager& blocks_;
  uint32_t d_;
  CandidateSet candidates_;
  sim::Rng rng_;
};

std::unique_ptr<VictimPolicy> Make(const VictimPolicyContext& ctx) { return std::make_unique<DChoicesPolicy>(ctx); }

}  // namespace

extern const VictimPolicyInfo kDChoicesVictimPolicy{"d_choices", "fewest valid of d random full units", &Make};

}  // namespace ftl
