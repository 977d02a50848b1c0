// "hotcold": hot_ratio of the accesses go uniformly to the first
// hot_fraction of the slots, the rest uniformly to the others.
#include <cmath>

#include <glog/logging.h>

#include "host/workload/access_distribution.h"
#include "sim/registry.h"

namespace host {

namespace {
class HotColdDistribution final : public AccessDistribution {
 public:
  HotColdDistribution(uint64_t units, uint64_t hot_units, double hot_ratio)
      : hot_units_(hot_units), cold_units_(units - hot_units), hot_ratio_(hot_ratio) {}
  uint64_t Next(sim::Rng& rng) override {
    if (rng.UniformDouble() < hot_ratio_) return rng.Uniform(hot_units_);
    return hot_units_ + rng.Uniform(cold_units_);
  }

 private:
  uint64_t hot_units_;
  uint64_t cold_units_;
  double hot_ratio_;
};
}  // namespace

// The hot set is rounded to whole slots and kept non-empty on both sides.
uint64_t HotUnits(uint64_t units, double hot_fraction) {
  const double h = std::round(hot_fraction * static_cast<double>(units));
  if (h < 1) return 1;
  if (h >= static_cast<double>(units)) return units - 1;
  return static_cast<uint64_t>(h);
}

static std::unique_ptr<AccessDistribution> NewHotColdDistribution(const AccessParams& p) {
  CHECK_GE(p.units, 2u) << "hotcold needs a hot and a cold slot";
  CHECK(p.hot_fraction > 0 && p.hot_fraction < 1) << p.hot_fraction;
  CHECK(p.hot_ratio >= 0 && p.hot_ratio <= 1) << p.hot_ratio;
  return std::make_unique<HotColdDistribution>(p.units, HotUnits(p.units, p.hot_fraction), p.hot_ratio);
}

const sim::Registrar<AccessDistributionInfo> kRegistered{{"hotcold", "hot_ratio of accesses to hot_fraction of the range", &NewHotColdDistribution}};

}  // namespace host
