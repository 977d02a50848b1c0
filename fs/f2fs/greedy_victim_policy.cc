// Greedy victim selection: the section with the fewest valid blocks; ties go
// to the first one found in search order.
#include "fs/f2fs/victim_policy.h"
#include "sim/registry.h"

namespace fs::f2fs {
namespace {

class GreedyPolicy final : public VictimPolicy {
 public:
  uint32_t Select(const VictimContext& ctx) override {
    uint32_t best = kNoSection, best_valid = UINT32_MAX;
    ForEachCandidate(ctx, [&](uint32_t sec) {
      const uint32_t v = ctx.sm->SectionValid(sec);
      if (v < best_valid) {
        best_valid = v;
        best = sec;
      }
    });
    if (best != kNoSection && ctx.last_victim) *ctx.last_victim = best + 1;
    return best;
  }
};

}  // namespace

const sim::Registrar<VictimPolicyInfo> kRegistered{{
    "greedy", "fewest valid blocks",
    [](const GcConfig&) -> std::unique_ptr<VictimPolicy> { return std::make_unique<GreedyPolicy>(); }}};

}  // namespace fs::f2fs
