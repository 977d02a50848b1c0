#include "fs/f2fs/victim_policy.h"

#include "sim/registry.h"

namespace fs::f2fs {

const std::vector<const VictimPolicyInfo*>& VictimPolicies() { return sim::Registry<VictimPolicyInfo>::Get().entries(); }

std::vector<std::string> VictimPolicyNames() { return sim::Registry<VictimPolicyInfo>::Get().Names(); }

sim::Result<std::unique_ptr<VictimPolicy>> MakeVictimPolicy(std::string_view name, const GcConfig& cfg) {
  FS_ASSIGN_OR_RETURN(const VictimPolicyInfo* info, sim::Registry<VictimPolicyInfo>::Get().Lookup(name, "victim policy"));
  return info->make(cfg);
}

}  // namespace fs::f2fs
