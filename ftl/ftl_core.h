// FtlCore: the time-free state of the page-mapped FTL — mapping tables,
// erase units, victim policy and write placement — and its functional
// operation (write, trim, GC) without simulated time.
//
// Two users:
// - PageFtl (timed) drives the primitives below from flash command
//   completions: it places pages, reports program completions and erases.
// - Functional runs (Precondition, write-amplification validation, the
//   benchmarks) call Write/Trim, which place a page and run GC inline,
//   tens of millions of pages per second on small devices.
//
// GC policy (both modes, per group):
// - Host writes may take a free unit only while more than
//   gc_fg_threshold units are free (the GC reserve); otherwise the write
//   needs foreground GC first.
// - Background GC runs while free units < bg_threshold_units() =
//   max(ceil(gc_threshold * units per group), gc_threshold_units,
//   gc_fg_threshold + 1).
// - GC copies each valid page of the victim into the group's GC-stream open
//   unit (never copyback: data crosses the channel, so it can go to any
//   plane of the group), then erases the victim. With hot_cold, copies from
//   units of the cold streams go to the cold GC stream.
//
// Mapping updates happen when a page is placed (allocation), so later
// writes of the same Lpn win by submission order. A GC copy is placed only
// if the L2P still points at the source page (PlaceGcCopy re-checks it);
// host writes that overwrite a page GC is moving simply invalidate the copy.
//
// Data cap per group. The allocation scheme only proposes a group: its
// binding of host pages to groups (page_stripe's rotation, block_stripe's
// runs) is oblivious of where each Lpn's data already lives, so a skewed or
// duplicated write stream can gather more valid data in one group than that
// group can hold while GC still finds stale pages. A group therefore takes a
// host page only while its valid pages stay within
//   group_data_cap() = (units_per_group - KeptUnits) x unit pages
// (an overwrite of a page already in the group always fits: it does not add
// data); otherwise the page goes to another group (HostGroup). Validate
// guarantees that the caps add up to the logical space, so some group can
// always take the page, and a group under its cap holds at least
// (gc threshold + streams + 1) units of stale or erased pages, so its GC
// always reclaims space. Placements stay exactly the scheme's as long as no
// group reaches its cap.
//
// Not thread-safe. CHECK-fails if a group has no reclaimable space left
// (our bug: the cap above rules it out for validated configs).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ftl/allocator.h"
#include "ftl/block_manager.h"
#include "ftl/ftl.h"
#include "ftl/ftl_config.h"
#include "ftl/mapping.h"
#include "ftl/victim_policy.h"
#include "flash/flash_array.h"
#include "sim/stats.h"
#include "sim/status.h"

namespace ftl {

struct FtlCounters {
  sim::Counter host_writes;    // host pages placed
  sim::Counter gc_copies;      // valid pages relocated by GC (GC programs)
  sim::Counter gc_runs;        // victims selected
  sim::Counter unit_erases;    // erase units erased
  sim::Counter block_erases;   // flash blocks erased (unit erases x planes per unit)
  sim::Counter trimmed_pages;  // mapped pages unmapped by Trim
  // Host pages placed in another group than the allocation scheme chose,
  // because that group was at its data cap (see FtlCore).
  sim::Counter redirected_writes;
};

struct EraseCountSummary {
  uint32_t min = 0, max = 0;
  double mean = 0, stddev = 0;
};

class FtlCore {
 public:
  // Validates `cfg` against `geometry` (see FtlConfig::Validate). `array`
  // (may be null) only feeds load-aware allocation.
  static sim::Result<std::unique_ptr<FtlCore>> Make(const FtlConfig& cfg, const flash::Geometry& geometry,
                                                    const flash::FlashArray* array = nullptr);
  // REQUIRES: cfg.Validate(geometry).ok().
  FtlCore(const FtlConfig& cfg, const flash::Geometry& geometry, const flash::FlashArray* array = nullptr);
  ~FtlCore();
  FtlCore(const FtlCore&) = delete;
  FtlCore& operator=(const FtlCore&) = delete;

  const FtlConfig& config() const { return cfg_; }
  const flash::Geometry& geometry() const { return geometry_; }
  uint64_t logical_pages() const { return logical_pages_; }
  uint64_t physical_pages() const { return geometry_.pages(); }
  const Mapping& mapping() const { return mapping_; }
  const BlockManager& blocks() const { return blocks_; }
  const FtlCounters& counters() const { return counters_; }
  // Zeroes the counters (not the per-unit erase counts).
  void ResetCounters() { counters_ = FtlCounters{}; }
  uint32_t bg_threshold_units() const { return bg_threshold_; }
  uint32_t fg_reserve_units() const { return cfg_.gc_fg_threshold; }

  // ---- functional operation
  // Writes one host page, running foreground/background GC inline.
  void Write(Lpn l, Stream s = Stream::kHostHot);
  // Unmaps [first, first + count) (clipped to the logical space).
  void Trim(Lpn first, uint64_t count);
  flash::Ppn Lookup(Lpn l) const { return mapping_.Lookup(l); }
  // Sequential fill, then uniform random overwrites of the filled range.
  void Precondition(const PreconditionSpec& spec);
  // One functional GC: selects a victim of `group`, copies its valid pages
  // and erases it. Returns the pages copied, or -1 if there was no candidate.
  int64_t CollectOnce(uint32_t group);

  // ---- primitives for the timed FTL
  Stream HostStream(Temperature t) const {
    return cfg_.hot_cold && t == Temperature::kCold ? Stream::kHostCold : Stream::kHostHot;
  }
  // The group that takes the next host page of stream s, holding data of l:
  // the allocation scheme's choice unless that group is at its data cap
  // (then OtherGroup). Advances the scheme once per call.
  uint32_t HostGroup(Lpn l, Stream s);
  // Whether `group` may take a host page of l without exceeding its data
  // cap (true if l's current copy is already in the group).
  bool TakesHostPage(uint32_t group, Lpn l) const {
    if (group_valid_[group] < group_data_cap_) return true;
    const uint64_t old = mapping_.BlockOf(l);
    return old != kNoBlock && blocks_.GroupOf(blocks_.UnitOfBlock(old)) == group;
  }
  // A group other than `from` that takes a host page of l: preferably one
  // that can allocate for s without waiting for GC, then the one with the
  // most room under its cap; ties go to the first after `from`. Counts a
  // redirected write. REQUIRES: !TakesHostPage(from, l).
  uint32_t OtherGroup(uint32_t from, Lpn l, Stream s);
  uint64_t group_data_cap() const { return group_data_cap_; }
  // Valid pages in `group`.
  uint64_t group_valid(uint32_t group) const { return group_valid_[group]; }
  bool CanAllocateHost(uint32_t group, Stream s) const { return blocks_.CanAllocate(group, s, cfg_.gc_fg_threshold); }
  bool BelowGcThreshold(uint32_t group) const { return blocks_.free_units(group) < bg_threshold_; }
  // Allocates a page for host data of l in `group`, retires l's old copy and
  // maps l there. REQUIRES: CanAllocateHost(group, s), TakesHostPage(group, l).
  flash::Ppn PlaceHostPage(Lpn l, uint32_t group, Stream s);
  // The program of a placed page finished.
  void ProgramDone(flash::Ppn p) { blocks_.ProgramDone(p); }
  // Marks the next victim of `group`; kNoUnit if it has no candidate.
  UnitId SelectVictim(uint32_t group);
  // The Lpn whose valid copy is at p, or an invalid Lpn.
  Lpn ValidLpnAt(flash::Ppn p) const { return mapping_.IsValid(p) ? mapping_.LpnAt(p) : Lpn{}; }
  // If l's valid copy is still at `src`, allocates a GC-stream page in src's
  // group, moves the mapping there and returns it; otherwise returns
  // kInvalidPpn (the data went stale while GC was reading it).
  flash::Ppn PlaceGcCopy(Lpn l, flash::Ppn src);
  // Erases victim u (all pages relocated or stale) and returns it to the pool.
  void EraseUnit(UnitId u);

  // ---- inspection
  // "" if the mapping, valid counts and unit states agree; otherwise the
  // first inconsistency found. O(logical pages * lookup + physical pages).
  std::string CheckConsistency() const;
  EraseCountSummary EraseCounts() const;
  // Bytes held by mapping tables, unit tables and policy/allocator state.
  uint64_t MemoryBytes() const;

 private:
  void Invalidate(Lpn l);
  void EnsureHostRoom(uint32_t group, Stream s);
  // Moves valid page src (of victim `from`, holding l) to a GC-stream page.
  flash::Ppn MoveValidPage(UnitId from, flash::Ppn src, Lpn l);

  FtlConfig cfg_;
  flash::Geometry geometry_;
  uint64_t logical_pages_;
  uint32_t bg_threshold_;
  uint64_t group_data_cap_;
  BlockManager blocks_;
  Mapping mapping_;
  std::unique_ptr<VictimPolicy> policy_;
  std::unique_ptr<Allocator> allocator_;
  FtlCounters counters_;
  std::vector<uint64_t> group_valid_;  // per group: valid pages
};

}  // namespace ftl
