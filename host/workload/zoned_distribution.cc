// "zoned": pick a zone by its access share (alias table, O(1)), then a slot
// uniformly inside it — fio's random_distribution=zoned, as used by the
// JESD219 endurance workload.
#include <glog/logging.h>

#include "host/workload/access_distribution.h"
#include "host/workload/alias_table.h"
#include "sim/registry.h"

namespace host {

namespace {
std::vector<double> AccessWeights(const std::vector<AccessZone>& zones) {
  std::vector<double> w;
  for (const AccessZone& z : zones) w.push_back(z.access);
  return w;
}

class ZonedDistribution final : public AccessDistribution {
 public:
  ZonedDistribution(const std::vector<AccessZone>& zones, uint64_t units)
      : pick_(AccessWeights(zones)), bounds_(ZoneBounds(zones, units)) {
    for (size_t i = 0; i < zones.size(); ++i) {
      CHECK(zones[i].access == 0 || bounds_[i + 1] > bounds_[i]) << "zone " << i << " is accessed but empty";
    }
  }
  uint64_t Next(sim::Rng& rng) override {
    const uint32_t z = pick_.Next(rng);
    return bounds_[z] + rng.Uniform(bounds_[z + 1] - bounds_[z]);
  }

 private:
  AliasTable pick_;
  std::vector<uint64_t> bounds_;
};
}  // namespace

static std::unique_ptr<AccessDistribution> NewZonedDistribution(const AccessParams& p) {
  CHECK(!p.zones.empty());
  return std::make_unique<ZonedDistribution>(p.zones, p.units);
}

const sim::Registrar<AccessDistributionInfo> kRegistered{{"zoned", "zones of given access and size fractions", &NewZonedDistribution}};

}  // namespace host
