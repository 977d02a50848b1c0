#include "host/workload/access_distribution.h"

#include <cmath>

#include <glog/logging.h>

#include "sim/registry.h"

namespace host {

const std::vector<std::string>& AccessDistributionNames() {
  static const std::vector<std::string>* names = new std::vector<std::string>(
      sim::Registry<AccessDistributionInfo>::Get().Names());
  return *names;
}

sim::Result<std::unique_ptr<AccessDistribution>> MakeAccessDistribution(std::string_view name,
                                                                        const AccessParams& params) {
  CHECK_GE(params.units, 1u);
  FS_ASSIGN_OR_RETURN(const AccessDistributionInfo* info,
                      sim::Registry<AccessDistributionInfo>::Get().Lookup(name, "access distribution"));
  return info->make(params);
}

std::vector<uint64_t> ZoneBounds(const std::vector<AccessZone>& zones, uint64_t units) {
  std::vector<uint64_t> bounds(zones.size() + 1, 0);
  double cum = 0;
  for (size_t i = 0; i < zones.size(); ++i) {
    cum += zones[i].size;
    const double b = std::round(cum * static_cast<double>(units));
    bounds[i + 1] = b >= static_cast<double>(units) ? units : static_cast<uint64_t>(b);
  }
  bounds.back() = units;  // absorb rounding of the size sum
  return bounds;
}

}  // namespace host
