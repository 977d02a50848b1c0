// "hotcold": hot_ratio of the accesses go uniformly to the first
// hot_fraction of the slots, the rest uniformly to the others.
#include <cmath>

#include <fmt/format.h>
#include <glog/logging.h>

#include "host/workload/access_distribution.h"
#include "sim/registry.h"

namespace host {

namespace {
struct HotColdConfig {
  sim::Ratio hot_fraction{0.2};
  sim::Ratio hot_ratio{0.8};
  static void Describe(sim::Schema<HotColdConfig>& s) {
    s.Param("hot_fraction", &HotColdConfig::hot_fraction, "20%",
            "Fraction of the range (from its start) that is hot");
    s.Param("hot_ratio", &HotColdConfig::hot_ratio, "80%", "Fraction of I/Os to the hot part");
  }
};

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

// Hot slots: round(hot_fraction * units), kept to [1, units - 1] so both
// sets are non-empty. REQUIRES: units >= 2.
uint64_t HotUnits(uint64_t units, double hot_fraction) {
  const double h = std::round(hot_fraction * static_cast<double>(units));
  if (h < 1) return 1;
  if (h >= static_cast<double>(units)) return units - 1;
  return static_cast<uint64_t>(h);
}

std::string Pct(double fraction) { return fmt::format("{:.6g}%", fraction * 100.0); }

// The declared ratio range already keeps both keys within 0%..100%.
sim::Status Validate(const AccessDistributionContext& ctx, std::string_view in_use, const sim::KeyErrors& err) {
  if (in_use != "hotcold") return sim::Status::Ok();
  const HotColdConfig& c = ctx.params->Get<HotColdConfig>("hotcold");
  if (!(c.hot_fraction.value > 0 && c.hot_fraction.value < 1)) {
    return err("hot_fraction", fmt::format("{} must be strictly between 0% and 100%", Pct(c.hot_fraction.value)));
  }
  if (ctx.units < 2) {
    return err("hot_fraction", "the range has a single block; it cannot be split into hot and cold parts");
  }
  return sim::Status::Ok();
}

std::unique_ptr<AccessDistribution> Make(const AccessDistributionContext& ctx) {
  const HotColdConfig& c = ctx.params->Get<HotColdConfig>("hotcold");
  CHECK_GE(ctx.units, 2u) << "hotcold needs a hot and a cold slot";
  CHECK(c.hot_fraction.value > 0 && c.hot_fraction.value < 1) << c.hot_fraction.value;
  CHECK(c.hot_ratio.value >= 0 && c.hot_ratio.value <= 1) << c.hot_ratio.value;
  return std::make_unique<HotColdDistribution>(ctx.units, HotUnits(ctx.units, c.hot_fraction.value),
                                               c.hot_ratio.value);
}
}  // namespace

const sim::Registrar<AccessDistributionInfo> kRegistered{
    {"hotcold", "hotcold.hot_ratio of accesses to hotcold.hot_fraction of the range", &Validate, &Make,
     sim::ImplSection::Of<HotColdConfig>("hotcold", "hot/cold access distribution (distribution: hotcold)")}};

}  // namespace host
