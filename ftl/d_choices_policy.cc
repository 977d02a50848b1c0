// d-choices victim selection: sample d candidates uniformly (with
// replacement) and take the one with the fewest valid pages; ties go to the
// earliest sample. d = 1 is random selection; large d approaches greedy.
#include "ftl/candidate_set.h"
#include "ftl/victim_policy.h"
#include "sim/registry.h"
#include "sim/rng.h"

namespace ftl {
namespace {

struct DChoicesConfig {
  uint32_t d = 10;
  static void Describe(sim::Schema<DChoicesConfig>& s) {
    s.Param("d", &DChoicesConfig::d, "10", "Candidates sampled per selection").Range(1, 1u << 20);
  }
};

class DChoicesPolicy final : public VictimPolicy {
 public:
  explicit DChoicesPolicy(const VictimPolicyContext& ctx)
      : blocks_(*ctx.blocks), d_(ctx.params->Get<DChoicesConfig>("d_choices").d), candidates_(*ctx.blocks), rng_(ctx.seed, "ftl.victim.d_choices") {
    CHECK_GE(d_, 1u);
  }

  void OnUnitFull(UnitId u) override { candidates_.Insert(u); }
  void Remove(UnitId u) override { candidates_.Remove(u); }
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

const sim::Registrar<VictimPolicyInfo> kRegistered{
    {"d_choices", "fewest valid of d random full units", &Make,
     sim::ImplSection::Of<DChoicesConfig>("d_choices", "d-choices victim policy (ftl.victim: d_choices)")}};

}  // namespace ftl
