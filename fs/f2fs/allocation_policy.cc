#include "fs/f2fs/allocation_policy.h"

#include "sim/registry.h"

namespace fs::f2fs {

const std::vector<const AllocationPolicyInfo*>& AllocationPolicies() {
  return sim::Registry<AllocationPolicyInfo>::Get().entries();
}

std::vector<std::string> AllocationPolicyNames() { return sim::Registry<AllocationPolicyInfo>::Get().Names(); }

std::vector<sim::ImplSection> AllocationPolicySections() {
  std::vector<sim::ImplSection> out;
  for (const AllocationPolicyInfo* info : AllocationPolicies())
    if (info->config.schema) out.push_back(info->config);
  return out;
}

sim::Result<std::unique_ptr<AllocationPolicy>> MakeAllocationPolicy(std::string_view name,
                                                                    const AllocationPolicyContext& ctx) {
  CHECK(ctx.cfg != nullptr && ctx.layout != nullptr);
  FS_ASSIGN_OR_RETURN(const AllocationPolicyInfo* info,
                      sim::Registry<AllocationPolicyInfo>::Get().Lookup(name, "allocation policy"));
  return info->make(ctx);
}

}  // namespace fs::f2fs
