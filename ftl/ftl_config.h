// Configuration of the page-mapped FTL (YAML section "ftl" of a device).
//
// Over-provisioning: the FTL exports U logical pages out of T physical pages.
// ftl.op_basis says which of the two conventions in use ftl.op follows:
//   logical   op = (T - U) / U (spare over logical), U = floor(T / (1 + op))
//   physical  op = (T - U) / T (spare over physical), U = floor(T * (1 - op)),
//             REQUIRES op < 1
// The same device is 7 % logical = 6.54 % physical. OpOfLogical/OpOfPhysical
// give a device's figure in either convention.
// GC thresholds count free erase units per group (a unit is a block, or a
// superblock with allocation "superblock"; a group is a plane, or all planes).
#pragma once

#include <cstdint>
#include <string>

#include "ftl/ftl.h"
#include "sim/config.h"
#include "flash/geometry.h"
#include "sim/status.h"
#include "sim/time.h"
#include "sim/units.h"

namespace ftl {

struct PreconditionConfig {
  bool enabled = false;
  double fill_fraction = 1.0;
  double random_overwrites = 2.0;
  uint64_t seed = 1;
  std::string method = "exact";  // exact | replicate (see PreconditionSpec::replicate)

  PreconditionSpec spec() const {
    return PreconditionSpec{fill_fraction, random_overwrites, seed, method == "replicate"};
  }
  static void Describe(sim::Schema<PreconditionConfig>& s);
};

// The demand-cached mapping table (ftl/map_cache.h): by default the whole
// L2P table sits in controller DRAM (no translation I/O). With a cache of
// `entries` entries (or `size` bytes of entry_bytes each) the table lives
// on flash in translation pages of page_size / entry_bytes entries; misses
// read a translation page and dirty evictions write one.
struct MapCacheConfig {
  uint64_t entries = 0;
  sim::Bytes size{0};
  uint32_t entry_bytes = 4;

  static void Describe(sim::Schema<MapCacheConfig>& s);
  // Entries the cache holds: `entries`, or size / entry_bytes; 0 = the
  // whole table in DRAM.
  uint64_t Capacity() const { return entries != 0 ? entries : size.value / entry_bytes; }
  bool enabled() const { return Capacity() != 0; }
};

// Wear leveling of the page-mapped FTL (off by default).
//   dynamic     host data opens the least-worn free unit of its group, GC
//               copies (colder: they survived) the most-worn one
//   static_gap  when a group's most-erased unit has more than static_gap
//               erases above its least-erased full unit, GC moves that
//               unit's (cold) data out so the unit is erased and reused;
//               0 = off. Moves count in gc_copies (write amplification)
//               and under wear_leveling.* in the stats.
struct WearLevelingConfig {
  bool dynamic = false;
  uint32_t static_gap = 0;

  static void Describe(sim::Schema<WearLevelingConfig>& s);
  bool enabled() const { return dynamic || static_gap != 0; }
};

// Largest number of GC copies in flight in one group (gc_pages_in_flight x
// planes per group): the timed FTL numbers them in 24 bits.
inline constexpr uint64_t kMaxGcSlots = (uint64_t{1} << 24) - 1;

// In-class initializers equal the declared defaults (ftl_config_test checks
// them against MakeDefault<FtlConfig>()).
// Over-provisioning of a device exporting `logical` of `physical` pages, in
// each convention (see above). REQUIRES: 0 < logical <= physical.
inline double OpOfLogical(uint64_t logical, uint64_t physical) {
  return static_cast<double>(physical - logical) / static_cast<double>(logical);
}
inline double OpOfPhysical(uint64_t logical, uint64_t physical) {
  return static_cast<double>(physical - logical) / static_cast<double>(physical);
}

struct FtlConfig {
  std::string kind = "page";
  sim::Ratio op{0.07};
  std::string op_basis = "logical";
  std::string mapping = "page";
  std::string victim = "greedy";
  std::string allocation = "page_stripe";
  std::string stripe_order = "CWDP";
  sim::Ratio gc_threshold{0.005};
  uint32_t gc_threshold_units = 0;
  uint32_t gc_fg_threshold = 1;
  uint32_t gc_pages_in_flight = 4;
  uint32_t gc_max_per_die = 0;
  uint32_t gc_threshold_stagger = 0;
  bool gc_preemptible = false;
  bool hot_cold = false;
  sim::SimTime unmapped_read_latency = sim::SimTime::Zero();
  uint64_t seed = 1;
  PreconditionConfig precondition;
  MapCacheConfig map_cache;
  WearLevelingConfig wear_leveling;
  sim::ImplConfigs policies;  // victim policies' own sections (ftl.d_choices.d)
  sim::ImplConfigs kinds;     // FTL kinds' own sections (ftl.<kind>.*)

  static void Describe(sim::Schema<FtlConfig>& s);

  // Checks the kind and then what the kind checks (see FtlKindInfo in
  // ftl/ftl_factory.h). Errors name the key. REQUIRES: g.Validate().ok().
  sim::Status Validate(const flash::Geometry& g) const;
  // The page-mapped kind's checks: names, the stripe order, that the spare
  // space covers the GC reserve and open units on `g`, and that unit sizes
  // and GC copy slots fit their index types.
  sim::Status ValidatePageMapped(const flash::Geometry& g) const;

  // Free units per group below which background GC runs:
  // max(ceil(gc_threshold * units_per_group), gc_threshold_units, gc_fg_threshold + 1).
  uint32_t BgThresholdUnits(uint32_t units_per_group) const;

  // Units of a group that hold no data in steady state: the free units
  // background GC keeps (BgThresholdUnits, plus gc_threshold_stagger: the
  // most a group's threshold is raised), one open unit per stream (2, or
  // 4 with hot_cold, one more with a mapping cache for translation pages)
  // and one more, so that GC always finds stale pages.
  // A group takes host data only while its valid pages stay within
  // (units_per_group - KeptUnits) x unit pages (see ftl_core.h); Validate
  // checks that the groups together hold the logical space under that cap.
  uint64_t KeptUnits(uint32_t units_per_group) const;

  // Exported logical pages on `g`, as the kind exports them.
  // REQUIRES: Validate(g).ok().
  uint64_t LogicalPages(const flash::Geometry& g) const;
  // The page-mapped kind's capacity: floor(pages / (1 + op)) with op_basis
  // logical, floor(pages * (1 - op)) with op_basis physical.
  uint64_t LogicalPagesByOp(const flash::Geometry& g) const;
  // Translation pages of the page-mapped kind on `g`: 0 without a mapping
  // cache, else ceil(LogicalPagesByOp / entries per translation page).
  // They take spare space (they are valid pages GC keeps).
  uint64_t TranslationPages(const flash::Geometry& g) const;
  // The selected kind's estimate of the memory it takes on `g`; 0 when the
  // kind gives none. REQUIRES: Validate(g).ok().
  uint64_t MemoryBytes(const flash::Geometry& g) const;
  // Whether the selected kind fixes placement (FtlKindInfo::fixed_placement).
  // REQUIRES: the kind is registered (Validate).
  bool FixesPlacement() const;
  // With fixed placement: the first logical block with a fixed place (the
  // FTL's FixedPlacement::fixed_from()). REQUIRES: Validate(g).ok().
  uint64_t FixedFrom(const flash::Geometry& g) const;
  // The zone layout of a zoned kind (ftl.kind: zns) on `g`; false (and
  // *out untouched) for a kind that is not zoned. REQUIRES: Validate ok.
  bool Zones(const flash::Geometry& g, ZoneLayout* out) const;
};

}  // namespace ftl
