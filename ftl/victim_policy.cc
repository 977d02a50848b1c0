#include "ftl/victim_policy.h"

#include "sim/registry.h"

namespace ftl {

const std::vector<const VictimPolicyInfo*>& VictimPolicies() { return sim::Registry<VictimPolicyInfo>::Get().entries(); }

std::vector<std::string> VictimPolicyNames() { return sim::Registry<VictimPolicyInfo>::Get().Names(); }

std::vector<sim::ImplSection> VictimPolicySections() {
  std::vector<sim::ImplSection> out;
  for (const VictimPolicyInfo* info : VictimPolicies()) {
    if (info->config.schema) out.push_back(info->config);
  }
  return out;
}

sim::Result<std::unique_ptr<VictimPolicy>> MakeVictimPolicy(std::string_view name, const VictimPolicyContext& ctx) {
  CHECK(ctx.blocks != nullptr);
  FS_ASSIGN_OR_RETURN(const VictimPolicyInfo* info,
                      sim::Registry<VictimPolicyInfo>::Get().Lookup(name, "victim policy"));
  return info->make(ctx);
}

}  // namespace ftl
