#include "fs/f2fs/victim_policy.h"

#include <algorithm>

namespace fs::f2fs {

extern const VictimPolicyInfo kGreedyVictimPolicy;
extern const VictimPolicyInfo kCostBenefitVictimPolicy;
extern const VictimPolicyInfo kAtgcVictimPolicy;

const std::vector<const VictimPolicyInfo*>& VictimPolicies() {
  static const std::vector<const VictimPolicyInfo*> kAll = [] {
    std::vector<const VictimPolicyInfo*> v = {&kAtgcVictimPolicy, &kCostBenefitVictimPolicy, &kGreedyVictimPolicy};
    std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return std::string_view(a->name) < b->name; });
    return v;
  }();
  return kAll;
}

std::vector<std::string> VictimPolicyNames() {
  std::vector<std::string> names;
  for (const auto* info : VictimPolicies()) names.emplace_back(info->name);
  return names;
}

sim::Result<std::unique_ptr<VictimPolicy>> MakeVictimPolicy(std::string_view name, const GcConfig& cfg) {
  for (const auto* info : VictimPolicies())
    if (name == info->name) return info->make(cfg);
  std::string choices;
  for (const auto& n : VictimPolicyNames()) choices += (choices.empty() ? "" : ", ") + n;
  return sim::Status::InvalidInput("unknown victim policy '" + std::string(name) + "'; choices: " + choices);
}

}  // namespace fs::f2fs
