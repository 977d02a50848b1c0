// AccessDistribution: where a random workload lands its next I/O.
//
// A job's address range is cut into `units` equal slots of the block
// alignment; a distribution returns a slot index in [0, units). Skewed
// distributions put their hottest slots at the low indexes (the start of the
// range), like fio with hashing disabled, so results are easy to interpret:
// the hot set is the first part of the range.
//
// Contract for implementations: Next() is O(1), never allocates, and draws
// only from the Rng it is given (one stream per job), so a job's address
// sequence depends on nothing but its seed and the configuration.
//
// Implementations live in one .cc each and are listed by name in
// access_distribution.cc; MakeAccessDistribution() picks one by name.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/rng.h"
#include "sim/status.h"

namespace host {

class AccessDistribution {
 public:
  virtual ~AccessDistribution() = default;
  // A slot index in [0, units).
  virtual uint64_t Next(sim::Rng& rng) = 0;
};

// One zone of a zoned distribution: `access` of the I/Os go uniformly to
// the next `size` of the range (both fractions; each sums to 1 over zones).
struct AccessZone {
  double access = 0;
  double size = 0;
};

// Everything any distribution needs; each one reads its own fields.
struct AccessParams {
  uint64_t units = 1;          // slots in the range (>= 1)
  double zipf_theta = 0.99;    // zipf: exponent (> 0)
  double hot_fraction = 0.2;   // hotcold: fraction of slots that are hot, (0, 1)
  double hot_ratio = 0.8;      // hotcold: fraction of accesses to the hot slots, [0, 1]
  std::vector<AccessZone> zones;  // zoned: in address order
};

// An implementation (one .cc each) registers itself with
// sim::Registrar<AccessDistributionInfo> (sim/registry.h).
struct AccessDistributionInfo {
  const char* name;
  const char* description;
  std::unique_ptr<AccessDistribution> (*make)(const AccessParams& params);
};

// Registered names, sorted: "hotcold", "uniform", "zipf", "zoned".
const std::vector<std::string>& AccessDistributionNames();

// The distribution registered as `name`. An unknown name is InvalidInput
// listing the choices. Parameters must already be valid (FioConfig::Validate
// checks them against user-facing key names); violations CHECK-fail.
sim::Result<std::unique_ptr<AccessDistribution>> MakeAccessDistribution(std::string_view name,
                                                                        const AccessParams& params);

// Slot ranges of a zoned layout: zone i covers [bounds[i], bounds[i+1]).
// Boundaries come from cumulative size fractions, so zones tile the range
// exactly. Shared by the zoned distribution and the config checks.
std::vector<uint64_t> ZoneBounds(const std::vector<AccessZone>& zones, uint64_t units);

// Hot slots of a hotcold layout: round(hot_fraction * units) clamped to
// [1, units - 1], so both sets are non-empty. REQUIRES: units >= 2.
uint64_t HotUnits(uint64_t units, double hot_fraction);

}  // namespace host
