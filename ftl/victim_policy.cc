#include "ftl/victim_policy.h"

#include <algorithm>

namespace ftl {

extern const VictimPolicyInfo kCostBenefitVictimPolicy;
extern const VictimPolicyInfo kDChoicesVictimPolicy;
extern const VictimPolicyInfo kFifoVictimPolicy;
extern const VictimPolicyInfo kGreedyVictimPolicy;
extern const VictimPolicyInfo kRandomVictimPolicy;

const std::vector<const VictimPolicyInfo*>& VictimPolicies() {
  static const std::vector<const VictimPolicyInfo*> kAll = [] {
    std::vector<const VictimPolicyInfo*> v = {&kCostBenefitVictimPolicy, &kDChoicesVictimPolicy,
                                              &kFifoVictimPolicy, &kGreedyVictimPolicy, &kRandomVictimPolicy};
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

sim::Result<std::unique_ptr<VictimPolicy>> MakeVictimPolicy(std::string_view name, const VictimPolicyContext& ctx) {
  CHECK(ctx.blocks != nullptr);
  for (const auto* info : VictimPolicies()) {
    if (name == info->name) return info->make(ctx);
  }
  std::string choices;
  for (const auto& n : VictimPolicyNames()) choices += (choices.empty() ? "" : ", ") + n;
  return sim::Status::InvalidInput("unknown victim policy '" + std::string(name) + "'; choices: " + choices);
}

}  // namespace ftl
