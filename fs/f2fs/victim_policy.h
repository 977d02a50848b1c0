// VictimPolicy: which section F2FS cleaning takes next (get_victim_by_default).
//
// Contract:
// - Select() examines at most ctx.max_search candidate sections (0 = all),
//   starting at *ctx.last_victim and wrapping (round robin like the kernel's
//   last_victim), skips sections with ctx.skip[sec] != 0 and, when
//   ctx.region is set, sections of other regions (a ParaFS region's own
//   cleaning thread), and returns the
//   chosen section (updating *ctx.last_victim) or kNoSection.
// - Candidates are sections SegmentManager::IsGcCandidate accepts.
// - Deterministic; reads state only through the SegmentManager.
//
// Implementations (one .cc each), listed in VictimPolicies():
//   greedy        fewest valid blocks (foreground GC)
//   cost_benefit  get_cb_cost: max (100 - u) * age / (100 + u), u = valid %,
//                 age from the SIT mtime relative to the oldest/newest segment
//   atgc          age-threshold GC: among sections older than the threshold,
//                 examine the oldest max(max_candidates, ratio * count) and
//                 weigh age against free space (age_weight)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/segment_manager.h"
#include "sim/status.h"
#include "sim/time.h"

namespace fs::f2fs {

inline constexpr uint32_t kNoSection = UINT32_MAX;
inline constexpr uint32_t kAnyRegion = UINT32_MAX;

struct VictimContext {
  const SegmentManager* sm = nullptr;
  sim::SimTime now;
  uint32_t max_search = 0;
  uint32_t* last_victim = nullptr;
  const std::vector<uint8_t>* skip = nullptr;
  uint32_t region = kAnyRegion;  // candidates of this region only
};

class VictimPolicy {
 public:
  virtual ~VictimPolicy() = default;
  virtual uint32_t Select(const VictimContext& ctx) = 0;
};

struct VictimPolicyInfo {
  const char* name;
  const char* description;
  std::unique_ptr<VictimPolicy> (*make)(const GcConfig& cfg);
};

const std::vector<const VictimPolicyInfo*>& VictimPolicies();
std::vector<std::string> VictimPolicyNames();
// InvalidInput "unknown victim policy 'x'; choices: ..." for an unknown name.
sim::Result<std::unique_ptr<VictimPolicy>> MakeVictimPolicy(std::string_view name, const GcConfig& cfg);

// Helper for implementations: calls fn(sec) for each candidate in search order.
template <class Fn>
void ForEachCandidate(const VictimContext& ctx, Fn&& fn) {
  const uint32_t n = ctx.sm->sections();
  const uint32_t start = ctx.last_victim ? *ctx.last_victim % n : 0;
  uint32_t examined = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t sec = (start + i) % n;
    if (ctx.skip && (*ctx.skip)[sec]) continue;
    if (ctx.region != kAnyRegion && ctx.sm->RegionOfSection(sec) != ctx.region) continue;
    if (!ctx.sm->IsGcCandidate(sec)) continue;
    fn(sec);
    if (ctx.max_search && ++examined >= ctx.max_search) break;
  }
}

}  // namespace fs::f2fs
