#include "ftl/ftl_config.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <glog/logging.h>

#include "ftl/allocator.h"
#include "ftl/ftl_factory.h"
#include "ftl/mapping.h"
#include "ftl/victim_policy.h"
#include "sim/registry.h"

namespace ftl {

void PreconditionConfig::Describe(sim::Schema<PreconditionConfig>& s) {
  s.Param("enabled", &PreconditionConfig::enabled, "false",
          "Bring the device to steady state functionally (no simulated time) when it is built");
  s.Param("fill_fraction", &PreconditionConfig::fill_fraction, "1.0",
          "Fraction of the logical space written sequentially first")
      .Range(0, 1);
  s.Param("random_overwrites", &PreconditionConfig::random_overwrites, "2.0",
          "Then uniform random page overwrites of the filled space, in multiples of the logical space")
      .Range(0, 1000);
  s.Param("seed", &PreconditionConfig::seed, "1", "Seed of the random overwrites");
  s.Param("method", &PreconditionConfig::method, "exact",
          "exact: write the whole device. replicate: precondition one group (plane) with its share of the logical "
          "space and copy its state to every group, logical pages interleaved (group of stripe position s holds "
          "pages x*groups+s): the same sequential fill, and the same per-group steady state of uniform overwrites "
          "(each group takes every groups-th host page under page_stripe), groups times faster. Needs "
          "allocation page_stripe, no map_cache, no static wear leveling, no gc_threshold_stagger");
}

void MapCacheConfig::Describe(sim::Schema<MapCacheConfig>& s) {
  s.Param("entries", &MapCacheConfig::entries, "0",
          "Mapping entries cached in controller DRAM (DFTL); 0 with size 0: the whole table in DRAM, no "
          "translation I/O");
  s.Param("size", &MapCacheConfig::size, "0B",
          "Mapping cache size in bytes (entries = size / entry_bytes), instead of entries");
  s.Param("entry_bytes", &MapCacheConfig::entry_bytes, "4",
          "Bytes of one mapping entry in a translation page (entries per page = page_size / entry_bytes)")
      .Range(1, 1 << 20);
}

void WearLevelingConfig::Describe(sim::Schema<WearLevelingConfig>& s) {
  s.Param("dynamic", &WearLevelingConfig::dynamic, "false",
          "Dynamic wear leveling: host writes open the least-worn free unit of a group, GC copies the most-worn, "
          "instead of the longest-free one");
  s.Param("static_gap", &WearLevelingConfig::static_gap, "0",
          "Static wear leveling: move the data of a full unit whose erase count lags its group's most-worn unit "
          "by more than this many erases (0: off)")
      .Range(0, 1u << 30);
}

void FtlConfig::Describe(sim::Schema<FtlConfig>& s) {
  s.Choice("kind", &FtlConfig::kind, "page", FtlKindNames(), "FTL implementation");
  s.Param("op", &FtlConfig::op, "7%",
          "Over-provisioning: spare pages over logical (op_basis logical: logical = floor(physical / (1+op))) or "
          "over physical (op_basis physical: logical = floor(physical x (1-op)))")
      .Range(0.0001, 10);
  s.Choice("op_basis", &FtlConfig::op_basis, "logical", {"logical", "physical"},
           "Convention of ftl.op: spare/logical (T-U)/U, or spare/physical (T-U)/T as some tools and vendors "
           "state it");
  s.Choice("mapping", &FtlConfig::mapping, "page", {"page", "block"},
           "L2P entry granularity: exact page, or block id with an in-block search (smaller tables)");
  s.Choice("victim", &FtlConfig::victim, "greedy", VictimPolicyNames(), "GC victim selection policy");
  s.Choice("allocation", &FtlConfig::allocation, "page_stripe", AllocatorNames(), "Host write placement scheme");
  s.Param("stripe_order", &FtlConfig::stripe_order, "CWDP",
          "Order in which consecutive pages visit channels (C), ways (W), dies (D), planes (P); first varies "
          "fastest (allocation static: consecutive logical pages)");
  s.Param("gc_threshold", &FtlConfig::gc_threshold, "0.5%",
          "Background GC runs on a group while its free units are below this fraction of its units (kept-free "
          "units hold no data, so they lower the effective over-provisioning)");
  s.Param("gc_threshold_units", &FtlConfig::gc_threshold_units, "0",
          "Background GC also runs while free units are below this count (0: fraction only)");
  s.Param("gc_fg_threshold", &FtlConfig::gc_fg_threshold, "1",
          "Free units per group reserved for GC; a host write needing a new unit there waits for GC")
      .Range(1, 1u << 20);
  s.Param("gc_pages_in_flight", &FtlConfig::gc_pages_in_flight, "4",
          "Valid-page copies (read then program) GC keeps in flight per plane")
      .Range(1, 1024);
  s.Param("gc_threshold_stagger", &FtlConfig::gc_threshold_stagger, "0",
          "Staggered background GC thresholds: group g (a plane) starts GC g mod (stagger+1) units above the "
          "threshold, so the planes of a die do not all start GC at once (0: all equal)")
      .Range(0, 1u << 20);
  s.Param("gc_max_per_die", &FtlConfig::gc_max_per_die, "0",
          "Background GC runs (and wear-leveling moves) at once on the planes of one die; 0: no limit. "
          "Foreground GC, which host writes wait for, ignores it");
  s.Param("gc_preemptible", &FtlConfig::gc_preemptible, "false",
          "Preemptible background GC: while a host read is outstanding on a die, GC of its planes starts no new "
          "page copy (copies in flight finish) and resumes when the die has no host read left; never while "
          "host writes wait for the group or its free units are down to the GC reserve (gc_fg_threshold)");
  s.Param("hot_cold", &FtlConfig::hot_cold, "false",
          "Separate host writes hinted cold (FtlOp::temperature) into their own open units");
  s.Param("unmapped_read_latency", &FtlConfig::unmapped_read_latency, "0ns",
          "Completion delay of a read of an unmapped page (mapping lookup only)")
      .Range(0, 1e9);
  s.Param("seed", &FtlConfig::seed, "1", "Seed of randomized victim policies");
  s.Section("precondition", &FtlConfig::precondition, "Functional preconditioning to steady state");
  s.Section("wear_leveling", &FtlConfig::wear_leveling, "Wear leveling: dynamic (allocation) and static (moves)");
  s.Section("map_cache", &FtlConfig::map_cache,
            "Demand-cached mapping table: translation pages on flash, a cache of entries in DRAM (DFTL)");
  s.Implementations(&FtlConfig::policies, VictimPolicySections());
  s.Implementations(&FtlConfig::kinds, FtlKindSections());
}

uint32_t FtlConfig::BgThresholdUnits(uint32_t units_per_group) const {
  const auto by_fraction =
      static_cast<uint32_t>(std::ceil(gc_threshold.value * static_cast<double>(units_per_group) - 1e-9));
  return std::max({by_fraction, gc_threshold_units, gc_fg_threshold + 1});
}

uint64_t FtlConfig::KeptUnits(uint32_t units_per_group) const {
  const uint32_t streams = (hot_cold ? 4 : 2) + (map_cache.enabled() ? 1 : 0);
  return uint64_t{BgThresholdUnits(units_per_group)} + gc_threshold_stagger + streams + 1;
}

uint64_t FtlConfig::LogicalPages(const flash::Geometry& g) const {
  const FtlKindInfo* k = sim::Registry<FtlKindInfo>::Get().Find(kind);
  CHECK(k != nullptr) << "unknown ftl.kind '" << kind << "' (Validate first)";
  return k->logical_pages(*this, g);
}

uint64_t FtlConfig::MemoryBytes(const flash::Geometry& g) const {
  const FtlKindInfo* k = sim::Registry<FtlKindInfo>::Get().Find(kind);
  CHECK(k != nullptr) << "unknown ftl.kind '" << kind << "' (Validate first)";
  return k->memory_bytes != nullptr ? k->memory_bytes(*this, g) : 0;
}

bool FtlConfig::FixesPlacement() const {
  const FtlKindInfo* k = sim::Registry<FtlKindInfo>::Get().Find(kind);
  CHECK(k != nullptr) << "unknown ftl.kind '" << kind << "' (Validate first)";
  return k->fixed_placement;
}

uint64_t FtlConfig::FixedFrom(const flash::Geometry& g) const {
  const FtlKindInfo* k = sim::Registry<FtlKindInfo>::Get().Find(kind);
  CHECK(k != nullptr) << "unknown ftl.kind '" << kind << "' (Validate first)";
  return k->fixed_from ? k->fixed_from(*this, g) : 0;
}

bool FtlConfig::Zones(const flash::Geometry& g, ZoneLayout* out) const {
  const FtlKindInfo* k = sim::Registry<FtlKindInfo>::Get().Find(kind);
  CHECK(k != nullptr) << "unknown ftl.kind '" << kind << "' (Validate first)";
  if (k->zone_layout == nullptr) return false;
  *out = k->zone_layout(*this, g);
  return true;
}

uint64_t FtlConfig::LogicalPagesByOp(const flash::Geometry& g) const {
  if (op_basis == "physical") {
    return static_cast<uint64_t>(std::floor(static_cast<double>(g.pages()) * (1.0 - op.value)));
  }
  return static_cast<uint64_t>(std::floor(static_cast<double>(g.pages()) / (1.0 + op.value)));
}

uint64_t FtlConfig::TranslationPages(const flash::Geometry& g) const {
  if (!map_cache.enabled()) return 0;
  const uint64_t per_page = g.page_size.value / map_cache.entry_bytes;
  if (per_page == 0) return 0;
  const uint64_t logical = LogicalPagesByOp(g);
  return (logical + per_page - 1) / per_page;
}

sim::Status FtlConfig::Validate(const flash::Geometry& g) const {
  auto k = sim::Registry<FtlKindInfo>::Get().Lookup(kind, "FTL kind");
  if (!k.ok()) return sim::Status::InvalidInput("ftl.kind: " + k.status().message());
  return (*k)->validate(*this, g);
}

sim::Status FtlConfig::ValidatePageMapped(const flash::Geometry& g) const {
  auto mapping_unit = ParseMapUnit(mapping);
  if (!mapping_unit.ok()) return sim::Status::InvalidInput("ftl.mapping: " + mapping_unit.status().message());
  bool known_victim = false;
  for (const auto& n : VictimPolicyNames()) known_victim = known_victim || n == victim;
  if (!known_victim) {
    std::string choices;
    for (const auto& n : VictimPolicyNames()) choices += (choices.empty() ? "" : ", ") + n;
    return sim::Status::InvalidInput("ftl.victim: unknown victim policy '" + victim + "'; choices: " + choices);
  }
  auto alloc = FindAllocator(allocation);
  if (!alloc.ok()) return sim::Status::InvalidInput("ftl.allocation: " + alloc.status().message());
  auto seq = StripeSequence(g, stripe_order);
  if (!seq.ok()) return sim::Status::InvalidInput("ftl.stripe_order: " + seq.status().message());
  if (gc_fg_threshold == 0) return sim::Status::InvalidInput("ftl.gc_fg_threshold: must be at least 1");
  if (op.value <= 0) return sim::Status::InvalidInput("ftl.op: must be positive");
  if (op_basis != "logical" && op_basis != "physical") {
    return sim::Status::InvalidInput("ftl.op_basis: unknown convention '" + op_basis + "'; choices: logical, physical");
  }
  if (op_basis == "physical" && op.value >= 1) {
    return sim::Status::InvalidInput(fmt::format(
        "ftl.op: {} of the physical space (op_basis physical) leaves no logical page; use a value below 100%",
        op.value));
  }

  const uint64_t physical = g.pages();
  if (LogicalPages(g) == 0) return sim::Status::InvalidInput("ftl.op: leaves no logical page");
  if (map_cache.entries != 0 && map_cache.size.value != 0) {
    return sim::Status::InvalidInput("ftl.map_cache.size: give the cache as entries or as size, not both");
  }
  if (map_cache.enabled() && g.page_size.value < map_cache.entry_bytes) {
    return sim::Status::InvalidInput(fmt::format(
        "ftl.map_cache.entry_bytes: {} bytes do not fit a {}-byte flash page", map_cache.entry_bytes,
        g.page_size.value));
  }
  if (map_cache.size.value != 0 && map_cache.Capacity() == 0) {
    return sim::Status::InvalidInput(fmt::format("ftl.map_cache.size: {} bytes hold no {}-byte entry",
                                                 map_cache.size.value, map_cache.entry_bytes));
  }
  if (map_cache.Capacity() >= (uint64_t{1} << 32) - 1) {
    return sim::Status::InvalidInput(
        fmt::format("ftl.map_cache: {} entries; at most {} are supported", map_cache.Capacity(), UINT32_MAX - 1));
  }
  // Translation pages are valid pages like data: they count against the
  // spare space below.
  const uint64_t logical = LogicalPages(g) + TranslationPages(g);
  if (logical >= physical) {
    return sim::Status::InvalidInput(fmt::format(
        "ftl.map_cache.entry_bytes: {} translation pages of {} entries each do not fit beside {} logical pages in "
        "{} physical pages; use smaller entries or raise op",
        TranslationPages(g), g.page_size.value / map_cache.entry_bytes, LogicalPages(g), physical));
  }
  const bool superblock = (*alloc)->superblock_units;
  const uint64_t groups = superblock ? 1 : g.planes();
  const uint64_t unit_pages = superblock ? static_cast<uint64_t>(g.planes()) * g.pages_per_block : g.pages_per_block;
  // Pages of a unit are counted in 32 bits.
  if (unit_pages > UINT32_MAX) {
    return sim::Status::InvalidInput(
        fmt::format("ftl.allocation: a superblock of {} planes x {} pages = {} pages; at most {} are supported",
                    g.planes(), g.pages_per_block, unit_pages, UINT32_MAX));
  }
  if (gc_max_per_die != 0 && superblock) {
    return sim::Status::InvalidInput(
        "ftl.gc_max_per_die: needs per-plane GC groups; allocation superblock collects across every plane");
  }
  // GC copy slots of a group are numbered in 24 bits (command tags).
  const uint64_t group_planes = superblock ? g.planes() : 1;
  if (static_cast<uint64_t>(gc_pages_in_flight) * group_planes > kMaxGcSlots) {
    return sim::Status::InvalidInput(fmt::format(
        "ftl.gc_pages_in_flight: {} per plane x {} planes per GC group = {} copies in flight; at most {} are "
        "supported",
        gc_pages_in_flight, group_planes, static_cast<uint64_t>(gc_pages_in_flight) * group_planes, kMaxGcSlots));
  }
  // Units that hold no data in steady state (see KeptUnits). Each group's
  // data is capped at (units - kept) units, so the caps must add up to the
  // logical space: then some group can always take the next host page, and
  // every group under its cap keeps enough stale pages for GC to progress.
  const uint64_t kept = KeptUnits(g.blocks_per_plane);
  if (kept >= g.blocks_per_plane) {
    return sim::Status::InvalidInput(
        fmt::format("ftl.gc_threshold: GC would keep {} of the {} units of a group free or open; lower "
                    "gc_threshold, gc_threshold_units or gc_fg_threshold",
                    kept, g.blocks_per_plane));
  }
  const uint64_t held = groups * kept * unit_pages;
  if (physical - logical < held) {
    return sim::Status::InvalidInput(
        "ftl.op: spare space of " + std::to_string(physical - logical) + " pages is below the " +
        std::to_string(held) +
        " pages that GC thresholds (gc_threshold, gc_fg_threshold) and open units keep erased; raise op or "
        "lower the thresholds");
  }
  if (precondition.method != "exact" && precondition.method != "replicate") {
    return sim::Status::InvalidInput("ftl.precondition.method: unknown method '" + precondition.method +
                                     "'; choices: exact, replicate");
  }
  if (precondition.method == "replicate") {
    // Replication copies one group's state to every group: it is the state
    // the whole device reaches only where every group sees the same kind of
    // traffic with the same thresholds (see FtlCore::Precondition).
    auto refuse = [](const std::string& why) {
      return sim::Status::InvalidInput("ftl.precondition.method: replicate " + why + "; use method: exact");
    };
    if (allocation != "page_stripe") {
      return refuse("needs allocation page_stripe (each group takes every groups-th host page), not '" +
                    allocation + "'");
    }
    if (map_cache.enabled()) return refuse("does not copy translation pages (ftl.map_cache is on)");
    if (wear_leveling.static_gap != 0) return refuse("does not model static wear leveling (static_gap > 0)");
    if (gc_threshold_stagger != 0) return refuse("needs the same GC threshold in every group (gc_threshold_stagger)");
  }
  return sim::Status::Ok();
}

}  // namespace ftl
