// Age-threshold victim selection (ATGC): candidates are sections whose
// mtime is older than now - age_threshold (all candidates when none is);
// the oldest max(max_candidates, candidate_ratio * count) are examined with
//   age  = accu * (max_mtime - mtime) / total_time * age_weight
//   free = accu * (section blocks - valid) / section blocks * (100 - age_weight)
//   cost = UINT_MAX - (age + free), accu = 10000;
// the lowest cost wins.
#include <algorithm>
#include <climits>
#include <utility>
#include <vector>

#include "fs/f2fs/victim_policy.h"
#include "sim/registry.h"

namespace fs::f2fs {
namespace {

class AtgcPolicy final : public VictimPolicy {
 public:
  explicit AtgcPolicy(const GcConfig& cfg) : cfg_(cfg) {}

  uint32_t Select(const VictimContext& ctx) override {
    const SegmentManager& sm = *ctx.sm;
    std::vector<std::pair<int64_t, uint32_t>> all;  // (mtime, sec)
    ForEachCandidate(ctx, [&](uint32_t sec) { all.emplace_back(sm.SectionMtime(sec), sec); });
    if (all.empty()) return kNoSection;
    const int64_t threshold = ctx.now.ns() - cfg_.atgc_age_threshold.ns();
    std::vector<std::pair<int64_t, uint32_t>> old;
    for (const auto& c : all)
      if (c.first <= threshold) old.push_back(c);
    if (old.empty()) old = all;
    std::sort(old.begin(), old.end());
    int64_t min_m = old.front().first, max_m = ctx.now.ns();
    const uint64_t total = static_cast<uint64_t>(std::max<int64_t>(1, max_m - min_m));
    const size_t examine = std::min(
        old.size(), std::max<size_t>(cfg_.atgc_max_candidates,
                                     static_cast<size_t>(cfg_.atgc_candidate_ratio.value * old.size())));
    constexpr uint64_t kAccu = 10000;
    const uint64_t sec_blocks = sm.layout().blocks_per_sec();
    uint32_t best = kNoSection;
    uint64_t best_cost = UINT64_MAX;
    for (size_t i = 0; i < examine; ++i) {
      const auto [mtime, sec] = old[i];
      const uint64_t age = kAccu * static_cast<uint64_t>(max_m - mtime) / total * cfg_.atgc_age_weight;
      const uint64_t freeb = kAccu * (sec_blocks - sm.SectionValid(sec)) / sec_blocks * (100 - cfg_.atgc_age_weight);
      const uint64_t cost = UINT64_MAX / 2 - (age + freeb);
      if (cost < best_cost) {
        best_cost = cost;
        best = sec;
      }
    }
    if (best != kNoSection && ctx.last_victim) *ctx.last_victim = best + 1;
    return best;
  }

 private:
  GcConfig cfg_;
};

}  // namespace

const sim::Registrar<VictimPolicyInfo> kRegistered{{
    "atgc", "age-threshold GC: oldest sections, age weighed against free space",
    [](const GcConfig& cfg) -> std::unique_ptr<VictimPolicy> { return std::make_unique<AtgcPolicy>(cfg); }}};

}  // namespace fs::f2fs
