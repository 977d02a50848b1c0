#include "fs/f2fs/allocation_policy.h"

#include "sim/registry.h"

namespace fs::f2fs {

LogType KernelDataLog(const DataPlacement& p, uint32_t active_logs, bool atgc) {
  if (active_logs == 2) return LogType::kHotData;
  if (active_logs == 4) return p.is_dir ? LogType::kHotData : LogType::kColdData;
  if (p.gc_move) return atgc ? LogType::kAtgcData : LogType::kColdData;
  if (p.cold_file) return LogType::kColdData;
  if (p.hot_file || p.hot_writeback) return LogType::kHotData;
  return LogType::kWarmData;
}

LogType KernelNodeLog(const NodePlacement& p, uint32_t active_logs) {
  if (active_logs == 2) return LogType::kHotNode;
  if (p.dnode && p.file_dnode) return LogType::kWarmNode;
  if (active_logs == 4) return LogType::kColdNode;
  return p.dnode ? LogType::kHotNode : LogType::kColdNode;
}

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
