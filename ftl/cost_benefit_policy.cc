// Cost-benefit victim selection (LFS; F2FS's GC_CB): maximize
//   benefit / cost = (1 - u) / (2u) * age
// where u is the unit's valid fraction (reading u and writing u back costs
// 2u, freeing 1 - u) and age is the number of pages written device-wide
// since the unit filled (BlockManager::write_seq), a clock that is the same
// in timed and functional runs. A unit with no valid page wins outright.
// Selection scans every candidate of the group: O(candidates).
#include "ftl/candidate_set.h"
#include "ftl/victim_policy.h"
#include "sim/registry.h"

namespace ftl {
namespace {

class CostBenefitPolicy final : public VictimPolicy {
 public:
  explicit CostBenefitPolicy(const VictimPolicyContext& ctx) : blocks_(*ctx.blocks), candidates_(*ctx.blocks) {}

  void OnUnitFull(UnitId u) override { candidates_.Insert(u); }
  void Remove(UnitId u) override { candidates_.Remove(u); }
  void OnValidDecrement(UnitId) override {}
  uint64_t MemoryBytes() const override { return candidates_.MemoryBytes(); }
  UnitId SelectVictim(uint32_t g) override {
    const auto& c = candidates_.Of(g);
    if (c.empty()) return kNoUnit;
    const double pages = blocks_.unit_pages();
    const uint64_t now = blocks_.write_seq();
    UnitId best = kNoUnit;
    double best_score = -1;
    for (const UnitId u : c) {
      const uint32_t v = blocks_.valid(u);
      if (v == 0) {
        best = u;
        break;
      }
      const double util = v / pages;
      const double age = static_cast<double>(now - blocks_.close_seq(u)) + 1.0;
      const double score = (1.0 - util) / (2.0 * util) * age;
      if (score > best_score) {
        best = u;
        best_score = score;
      }
    }
    candidates_.Remove(best);
    return best;
  }

 private:
  const BlockManager& blocks_;
  CandidateSet candidates_;
};

std::unique_ptr<VictimPolicy> Make(const VictimPolicyContext& ctx) {
  return std::make_unique<CostBenefitPolicy>(ctx);
}

}  // namespace

const sim::Registrar<VictimPolicyInfo> kRegistered{{
    "cost_benefit", "max (1-u)/2u * age (LFS cost-benefit, age in pages written)", &Make}};

}  // namespace ftl
