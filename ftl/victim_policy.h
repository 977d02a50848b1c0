// VictimPolicy: which full erase unit GC cleans next (cf. F2FS's victim
// selection: greedy and cost-benefit get_gc_cost).
//
// Contract:
// - A policy tracks the candidates of every group: the units the
//   BlockManager reported with OnUnitFull and that SelectVictim has not
//   returned since. Candidates are exactly the units in state kFull.
// - OnValidDecrement(u): candidate u's valid count just dropped by one
//   (blocks.valid(u) is the new value). Valid counts of candidates never rise.
// - SelectVictim(g) returns a candidate of group g and stops tracking it, or
//   kNoUnit when g has none.
// - Remove(u) stops tracking candidate u, which the FTL chose itself (wear
//   leveling moves the data of a unit whose erase count lags). REQUIRES: u
//   is a candidate. Rare: it may cost O(candidates of u's group). It must be deterministic given the sequence of
//   calls and the context's seed.
// - Policies read unit state only through the BlockManager passed in the
//   context (valid(), close_seq(), write_seq(), unit_pages()).
// - No allocation per call once constructed.
//
// Implementations (one .cc each), listed in VictimPolicies():
//   greedy        fewest valid pages (ties: first to reach its count); one key
//                 per unit, or O(1) per-group valid-count buckets
//   cost_benefit  max (1-u)/(2u) * age, u = valid fraction, age in pages
//                 written since the unit filled (LFS cost-benefit); O(candidates)
//   fifo          the unit that filled first
//   random        uniformly random candidate
//   d_choices     d random candidates (with replacement), the fewest valid wins
//
// Registration: each implementation .cc registers its VictimPolicyInfo with
// sim::Registrar (sim/registry.h); a new policy is one new file. A policy
// with parameters declares them in `config`, a section named after the
// policy below `ftl` (d_choices: `ftl.d_choices.d`).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ftl/block_manager.h"
#include "sim/config.h"
#include "sim/status.h"

namespace ftl {

class VictimPolicy {
 public:
  virtual ~VictimPolicy() = default;
  virtual void OnUnitFull(UnitId u) = 0;
  virtual void OnValidDecrement(UnitId u) = 0;
  virtual UnitId SelectVictim(uint32_t group) = 0;
  virtual void Remove(UnitId u) = 0;
  // Cache hint: OnValidDecrement(u) may follow soon. No effect on results.
  virtual void Prefetch(UnitId /*u*/) const {}
  // Bytes held by the policy's tables.
  virtual uint64_t MemoryBytes() const = 0;
};

struct VictimPolicyContext {
  const BlockManager* blocks = nullptr;
  const sim::ImplConfigs* params = nullptr;  // the policies' own sections (FtlConfig::policies)
  uint64_t seed = 1;  // randomized policies draw from Rng(seed, "ftl.victim.<name>")
};

struct VictimPolicyInfo {
  const char* name;
  const char* description;
  std::unique_ptr<VictimPolicy> (*make)(const VictimPolicyContext& ctx);
  sim::ImplSection config;  // empty (no schema) for a policy without parameters
};

// Every registered policy, sorted by name.
const std::vector<const VictimPolicyInfo*>& VictimPolicies();
std::vector<std::string> VictimPolicyNames();
// The config sections of the policies that have parameters.
std::vector<sim::ImplSection> VictimPolicySections();
// InvalidInput "unknown victim policy 'x'; choices: ..." for an unknown name.
sim::Result<std::unique_ptr<VictimPolicy>> MakeVictimPolicy(std::string_view name, const VictimPolicyContext& ctx);

}  // namespace ftl
