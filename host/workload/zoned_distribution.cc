// "zoned": pick a zone by its access share (alias table, O(1)), then a slot
// uniformly inside it — fio's random_distribution=zoned, as used by the
// JESD219 endurance workload.
#include <cmath>

#include <fmt/format.h>
#include <glog/logging.h>

#include "host/workload/access_distribution.h"
#include "host/workload/alias_table.h"
#include "sim/registry.h"

namespace host {

namespace {
struct ZonedConfig {
  std::vector<std::string> zones;
  static void Describe(sim::Schema<ZonedConfig>& s) {
    s.Param("zones", &ZonedConfig::zones, "[]",
            "\"<access%>/<size%>\" entries in address order, e.g. [\"50%/5%\", \"30%/15%\", \"20%/80%\"]");
  }
};

// One zone: `access` of the I/Os go uniformly to the next `size` of the
// range (both fractions; each sums to 1 over the zones).
struct Zone {
  double access = 0;
  double size = 0;
};

constexpr double kSumTolerance = 1e-6;

std::string Pct(double fraction) { return fmt::format("{:.6g}%", fraction * 100.0); }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

sim::Result<double> ParseFraction(std::string_view text) {
  sim::ParamDecl d;
  d.kind = sim::ParamKind::kRatio;
  FS_ASSIGN_OR_RETURN(sim::ParamValue v, sim::ParseParamValue(d, text));
  return v.d;
}

// Slot ranges: zone i covers [bounds[i], bounds[i+1]). Boundaries come from
// cumulative size fractions, so the zones tile the range exactly.
std::vector<uint64_t> ZoneBounds(const std::vector<Zone>& zones, uint64_t units) {
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

// The zones of `cfg`, checked against a range of `units` slots.
sim::Result<std::vector<Zone>> ParseZones(const ZonedConfig& cfg, uint64_t units, const sim::KeyErrors& err) {
  if (cfg.zones.empty()) return err("zones", "distribution=zoned needs at least one \"<access%>/<size%>\" zone");
  std::vector<Zone> zones;
  double access_sum = 0, size_sum = 0;
  for (size_t i = 0; i < cfg.zones.size(); ++i) {
    const std::string& entry = cfg.zones[i];
    const std::string key = fmt::format("zones[{}]", i);
    const size_t slash = entry.find('/');
    if (slash == std::string::npos) return err(key, fmt::format("'{}' is not \"<access%>/<size%>\"", entry));
    sim::Result<double> a = ParseFraction(Trim(std::string_view(entry).substr(0, slash)));
    if (!a.ok()) return err(key, fmt::format("bad access share in '{}': {}", entry, a.status().message()));
    sim::Result<double> z = ParseFraction(Trim(std::string_view(entry).substr(slash + 1)));
    if (!z.ok()) return err(key, fmt::format("bad size share in '{}': {}", entry, z.status().message()));
    if (*a < 0 || *a > 1 || *z < 0 || *z > 1) {
      return err(key, fmt::format("shares in '{}' must be within 0%..100%", entry));
    }
    if (*a > 0 && *z == 0) return err(key, fmt::format("'{}' sends I/O to a zone of size 0%", entry));
    zones.push_back({*a, *z});
    access_sum += *a;
    size_sum += *z;
  }
  if (std::fabs(access_sum - 1) > kSumTolerance) {
    return err("zones", fmt::format("access percentages sum to {}, must be 100%", Pct(access_sum)));
  }
  if (std::fabs(size_sum - 1) > kSumTolerance) {
    return err("zones", fmt::format("size percentages sum to {}, must be 100%", Pct(size_sum)));
  }
  const std::vector<uint64_t> bounds = ZoneBounds(zones, units);
  for (size_t i = 0; i < zones.size(); ++i) {
    if (zones[i].access > 0 && bounds[i + 1] == bounds[i]) {
      return err(fmt::format("zones[{}]", i),
                 fmt::format("'{}' covers no whole block of the {}-block range", cfg.zones[i], units));
    }
  }
  return zones;
}

std::vector<double> AccessWeights(const std::vector<Zone>& zones) {
  std::vector<double> w;
  for (const Zone& z : zones) w.push_back(z.access);
  return w;
}

class ZonedDistribution final : public AccessDistribution {
 public:
  ZonedDistribution(const std::vector<Zone>& zones, uint64_t units)
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

sim::Status Validate(const AccessDistributionContext& ctx, std::string_view in_use, const sim::KeyErrors& err) {
  const ZonedConfig& c = ctx.params->Get<ZonedConfig>("zoned");
  if (in_use != "zoned") {
    // Zones are written only for this distribution; without it they would
    // have no effect.
    if (!c.zones.empty()) return err("zones", fmt::format("set, but distribution is '{}', not 'zoned'", in_use));
    return sim::Status::Ok();
  }
  return ParseZones(c, ctx.units, err).status();
}

std::unique_ptr<AccessDistribution> Make(const AccessDistributionContext& ctx) {
  sim::Result<std::vector<Zone>> zones = ParseZones(ctx.params->Get<ZonedConfig>("zoned"), ctx.units,
                                                    sim::KeyErrors("zoned"));
  CHECK(zones.ok()) << zones.status().message();
  return std::make_unique<ZonedDistribution>(*zones, ctx.units);
}
}  // namespace

const sim::Registrar<AccessDistributionInfo> kRegistered{
    {"zoned", "zones of given access and size fractions (zoned.zones)", &Validate, &Make,
     sim::ImplSection::Of<ZonedConfig>("zoned", "zoned access distribution (distribution: zoned)")}};

}  // namespace host
