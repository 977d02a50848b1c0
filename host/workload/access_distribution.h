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
// Registration: each implementation .cc registers its
// AccessDistributionInfo with sim::Registrar (sim/registry.h); a new
// distribution is one new file. A distribution with parameters declares them
// in `config`, a section named after the distribution below the fio section
// (zipf: `workload.fio.zipf.theta`), and checks them in `validate`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config.h"
#include "sim/rng.h"
#include "sim/status.h"

namespace host {

class AccessDistribution {
 public:
  virtual ~AccessDistribution() = default;
  // A slot index in [0, units).
  virtual uint64_t Next(sim::Rng& rng) = 0;
};

// What a distribution is checked against and built from.
struct AccessDistributionContext {
  uint64_t units = 1;                        // slots in the range (>= 1)
  const sim::ImplConfigs* params = nullptr;  // the distributions' own sections (FioConfig::distributions)
};

struct AccessDistributionInfo {
  const char* name;
  const char* description;
  // Checks the distribution's own section for a range of ctx.units slots;
  // `err` prefixes the section's path, so err("theta", ...) names
  // "workload.fio.zipf.theta". `in_use` is the distribution the workload
  // selected: only that one's values must be valid, but a distribution not
  // in use may reject a setting that only it reads and that would otherwise
  // be silently ignored. nullptr when there is nothing to check.
  sim::Status (*validate)(const AccessDistributionContext& ctx, std::string_view in_use, const sim::KeyErrors& err);
  // REQUIRES: validate(ctx, name, ...) is ok; violations CHECK-fail.
  std::unique_ptr<AccessDistribution> (*make)(const AccessDistributionContext& ctx);
  sim::ImplSection config;  // empty (no schema) for a distribution without parameters
};

// Registered names, sorted: "hotcold", "uniform", "zipf", "zoned".
const std::vector<std::string>& AccessDistributionNames();

// The config sections of the distributions that have parameters.
std::vector<sim::ImplSection> AccessDistributionSections();

// Checks every distribution's section, as AccessDistributionInfo::validate,
// with `in_use` selected. Errors name keys below `path` (the fio section,
// "" for bare keys): "<path>.<distribution>.<key>: problem". An unknown
// `in_use` is an error of the key "<path>.distribution".
sim::Status ValidateAccessDistributions(std::string_view in_use, const AccessDistributionContext& ctx,
                                        std::string_view path);

// The distribution registered as `name`. An unknown name is InvalidInput
// listing the choices. REQUIRES: ValidateAccessDistributions(name, ctx) is
// ok; violations CHECK-fail.
sim::Result<std::unique_ptr<AccessDistribution>> MakeAccessDistribution(std::string_view name,
                                                                        const AccessDistributionContext& ctx);

}  // namespace host
