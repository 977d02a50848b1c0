#include "host/workload/access_distribution.h"

#include <glog/logging.h>

#include "sim/registry.h"

namespace host {

namespace {
const sim::Registry<AccessDistributionInfo>& Distributions() { return sim::Registry<AccessDistributionInfo>::Get(); }
}  // namespace

const std::vector<std::string>& AccessDistributionNames() {
  static const std::vector<std::string>* names = new std::vector<std::string>(Distributions().Names());
  return *names;
}

std::vector<sim::ImplSection> AccessDistributionSections() {
  std::vector<sim::ImplSection> out;
  for (const AccessDistributionInfo* info : Distributions().entries()) {
    if (info->config.schema) out.push_back(info->config);
  }
  return out;
}

sim::Status ValidateAccessDistributions(std::string_view in_use, const AccessDistributionContext& ctx,
                                        std::string_view path) {
  CHECK(ctx.params != nullptr);
  const auto below = [&](std::string_view key) {
    return path.empty() ? std::string(key) : std::string(path) + "." + std::string(key);
  };
  const AccessDistributionInfo* selected = Distributions().Find(in_use);
  if (selected == nullptr) {
    return sim::KeyErrors(path)("distribution", "unknown distribution '" + std::string(in_use) +
                                                    "'; choices: " + Distributions().JoinedNames());
  }
  // The selected distribution first: its errors are the ones that matter.
  if (selected->validate != nullptr) {
    FS_RETURN_IF_ERROR(selected->validate(ctx, in_use, sim::KeyErrors(below(selected->name))));
  }
  for (const AccessDistributionInfo* info : Distributions().entries()) {
    if (info == selected || info->validate == nullptr) continue;
    FS_RETURN_IF_ERROR(info->validate(ctx, in_use, sim::KeyErrors(below(info->name))));
  }
  return sim::Status::Ok();
}

sim::Result<std::unique_ptr<AccessDistribution>> MakeAccessDistribution(std::string_view name,
                                                                        const AccessDistributionContext& ctx) {
  CHECK_GE(ctx.units, 1u);
  CHECK(ctx.params != nullptr);
  FS_ASSIGN_OR_RETURN(const AccessDistributionInfo* info, Distributions().Lookup(name, "access distribution"));
  return info->make(ctx);
}

}  // namespace host
