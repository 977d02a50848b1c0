// Random victim selection: a uniformly random candidate. Under uniform
// random writes its write amplification is 1/Sf = alpha/(alpha-1) (Van
// Houdt, d = 1), independent of the pages per unit.
#include "ftl/candidate_set.h"
#include "ftl/victim_policy.h"
#include "sim/registry.h"
#include "sim/rng.h"

namespace ftl {
namespace {

class RandomPolicy final : public VictimPolicy {
 public:
  explicit RandomPolicy(const VictimPolicyContext& ctx)
      : candidates_(*ctx.blocks), rng_(ctx.seed, "ftl.victim.random") {}

  void OnUnitFull(UnitId u) override { candidates_.Insert(u); }
  void Remove(UnitId u) override { candidates_.Remove(u); }
  void OnValidDecrement(UnitId) override {}
  uint64_t MemoryBytes() const override { return candidates_.MemoryBytes(); }
  UnitId SelectVictim(uint32_t g) override {
    const auto& c = candidates_.Of(g);
    if (c.empty()) return kNoUnit;
    const UnitId u = c[rng_.Uniform(c.size())];
    candidates_.Remove(u);
    return u;
  }

 private:
  CandidateSet candidates_;
  sim::Rng rng_;
};

std::unique_ptr<VictimPolicy> Make(const VictimPolicyContext& ctx) { return std::make_unique<RandomPolicy>(ctx); }

}  // namespace

const sim::Registrar<VictimPolicyInfo> kRegistered{{"random", "uniformly random full unit", &Make}};

}  // namespace ftl
