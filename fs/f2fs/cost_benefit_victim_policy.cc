// Cost-benefit victim selection (the kernel's get_cb_cost): u = valid
// blocks in percent of a segment (averaged over the section), age = 100 for
// the oldest and 0 for the newest segment by SIT mtime, cost = UINT_MAX -
// 100 * (100 - u) * age / (100 + u); the lowest cost wins.
#include <algorithm>
#include <climits>

#include "fs/f2fs/victim_policy.h"
#include "sim/registry.h"

namespace fs::f2fs {
namespace {

class CostBenefitPolicy final : public VictimPolicy {
 public:
  uint32_t Select(const VictimContext& ctx) override {
    const SegmentManager& sm = *ctx.sm;
    // The age scale spans every segment in use, as the kernel's min/max mtime.
    int64_t min_m = INT64_MAX, max_m = INT64_MIN;
    for (uint32_t s = 0; s < sm.main_segments(); ++s) {
      if (sm.IsFree(SegNo{s})) continue;
      min_m = std::min(min_m, sm.seg(SegNo{s}).mtime_ns);
      max_m = std::max(max_m, sm.seg(SegNo{s}).mtime_ns);
    }
    const uint32_t sps = sm.layout().segs_per_sec;
    uint32_t best = kNoSection;
    uint64_t best_cost = UINT64_MAX;
    ForEachCandidate(ctx, [&](uint32_t sec) {
      const uint64_t vblocks = sm.SectionValid(sec) / sps;
      const int64_t mtime = sm.SectionMtime(sec);
      const uint64_t u = vblocks * 100 / kBlocksPerSeg;
      uint64_t age = 0;
      if (max_m != min_m) age = 100 - static_cast<uint64_t>(100 * (mtime - min_m) / (max_m - min_m));
      const uint64_t cost = UINT_MAX - (100 * (100 - u) * age) / (100 + u);
      if (cost < best_cost) {
        best_cost = cost;
        best = sec;
      }
    });
    if (best != kNoSection && ctx.last_victim) *ctx.last_victim = best + 1;
    return best;
  }
};

}  // namespace

const sim::Registrar<VictimPolicyInfo> kRegistered{{
    "cost_benefit", "F2FS cost-benefit: (100 - u) * age / (100 + u)",
    [](const GcConfig&) -> std::unique_ptr<VictimPolicy> { return std::make_unique<CostBenefitPolicy>(); }}};

}  // namespace fs::f2fs
