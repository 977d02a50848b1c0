#include "fs/f2fs/durability.h"

#include "sim/registry.h"

namespace fs::f2fs {

const std::vector<const DurabilityInfo*>& DurabilityModes() { return sim::Registry<DurabilityInfo>::Get().entries(); }

std::vector<std::string> DurabilityModeNames() { return sim::Registry<DurabilityInfo>::Get().Names(); }

std::vector<sim::ImplSection> DurabilitySections() {
  std::vector<sim::ImplSection> out;
  for (const DurabilityInfo* info : DurabilityModes())
    if (info->config.schema) out.push_back(info->config);
  return out;
}

sim::Result<std::unique_ptr<Durability>> MakeDurability(std::string_view name, const DurabilityContext& ctx) {
  CHECK(ctx.cfg != nullptr && ctx.layout != nullptr && ctx.nat != nullptr && ctx.sm != nullptr &&
        ctx.host != nullptr);
  FS_ASSIGN_OR_RETURN(const DurabilityInfo* info, sim::Registry<DurabilityInfo>::Get().Lookup(name, "durability mode"));
  return info->make(ctx);
}

}  // namespace fs::f2fs
