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
// - Background GC runs while free units < BgThreshold(group): with
//   gc_threshold_stagger S, bg_threshold_units() + group mod (S + 1), else
//   bg_threshold_units() =
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
// Mapping cache (ftl.map_cache, DFTL style; see ftl/map_cache.h). Off by
// default: the whole table is in DRAM and nothing below happens. When on,
// translation page t is stored under the Lpn logical_pages() + t (so the
// Mapping's entries past the logical space are the global translation
// directory, in DRAM) and written in the kMap stream; GC relocates valid
// translation pages like data. A host access goes through AccessMapping
// (hit, or a miss that reads the translation page); a dirty eviction, and
// every mapping change the FTL makes itself (GC relocation, trim) of an
// entry that is not cached, queues a translation-page update: a read of the
// page (if it exists) and a program of its new version (PlaceMapPage). In
// functional use the updates run inline (FlushMapUpdates).
//
// Not thread-safe. CHECK-fails if a group has no reclaimable space left
// (our bug: the cap above rules it out for validated configs).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "ftl/allocator.h"
#include "ftl/block_manager.h"
#include "ftl/ftl.h"
#include "ftl/ftl_config.h"
#include "ftl/map_cache.h"
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
  // With a mapping cache (ftl.map_cache): host mapping lookups that hit or
  // missed, translation-page reads (misses whose page is on flash, and the
  // read before each write-back), translation-page programs (write-backs,
  // not GC copies) and translation pages relocated by GC (within gc_copies).
  sim::Counter map_hits;
  sim::Counter map_misses;
  sim::Counter map_reads;
  sim::Counter map_writes;
  sim::Counter map_gc_copies;
  // With static wear leveling: units whose data was moved because their
  // erase count lagged, and the pages moved (within gc_copies).
  sim::Counter wl_runs;
  sim::Counter wl_copies;
};

// One host mapping lookup through the cache (FtlCore::AccessMapping).
struct MapAccess {
  bool hit = true;
  // On a miss: the translation page to read before the op proceeds;
  // invalid if that page was never written (its entries are all unmapped).
  flash::Ppn read;
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
  // Unmaps [first, first + count) (clipped to the logical space). With a
  // mapping cache the translation-page updates are queued: the next
  // functional Write (or FlushMapUpdates), or the timed FTL, performs them.
  void Trim(Lpn first, uint64_t count);
  // Functional: performs every queued translation-page update (read, then
  // program of the new version), running GC inline where needed.
  void FlushMapUpdates();
  flash::Ppn Lookup(Lpn l) const { return mapping_.Lookup(l); }
  // Cache hints (see Ftl::PrefetchEntry/PrefetchRetire); no effect on results.
  void PrefetchEntry(Lpn l) const { mapping_.PrefetchLpn(l); }
  void PrefetchRetire(Lpn l) const {
    if (l.v >= logical_pages_) return;  // a hint never reads past the table
    const uint64_t b = mapping_.PrefetchRetire(l);
    if (b != kNoBlock) blocks_.PrefetchUnit(blocks_.UnitOfBlock(b));
  }
  // Sequential fill, then uniform random overwrites of the filled range.
  // With spec.replicate (and page_stripe on per-plane groups, as
  // FtlConfig::Validate requires for it) on a fresh FTL: the same on one
  // group of the same blocks with 1/groups of the fill and overwrites, its
  // state copied to every group (the group of stripe position s holds Lpns
  // x * groups + s), then the remainders written as above. The fill alone
  // places every page where the exact method does; with overwrites each
  // group reaches the steady state of its share of uniform writes, which is
  // what the whole device reaches (each group takes every groups-th host
  // page and sees its share of invalidations), groups times faster. Falls
  // back to the exact method where a group alone would differ (thresholds
  // or data caps that depend on the device size) or the fill is smaller
  // than the groups.
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
  uint32_t HostGroup(Lpn l, Stream s) {
    const uint32_t g = allocator_->NextGroup(s, l);
    return TakesHostPage(g, l) ? g : OtherGroup(g, l, s);
  }
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
  bool BelowGcThreshold(uint32_t group) const { return blocks_.free_units(group) < BgThreshold(group); }
  // Background GC threshold of `group`: bg_threshold_units(), raised by
  // group mod (gc_threshold_stagger + 1) units with a stagger.
  uint32_t BgThreshold(uint32_t group) const {
    return cfg_.gc_threshold_stagger == 0 ? bg_threshold_ : bg_threshold_ + group % (cfg_.gc_threshold_stagger + 1);
  }
  // Allocates a page for host data of l in `group`, retires l's old copy and
  // maps l there. REQUIRES: CanAllocateHost(group, s), TakesHostPage(group, l).
  flash::Ppn PlaceHostPage(Lpn l, uint32_t group, Stream s);
  // The program of a placed page finished.
  void ProgramDone(flash::Ppn p) { blocks_.ProgramDone(p); }
  // Marks the next victim of `group`; kNoUnit if it has no candidate.
  UnitId SelectVictim(uint32_t group);
  // The Lpn whose valid copy is at p, or an invalid Lpn.
  Lpn ValidLpnAt(flash::Ppn p) const { return mapping_.IsValid(p) ? mapping_.LpnAt(p) : Lpn{}; }
  // The first page index >= i of unit u that holds a valid copy, or
  // unit_pages(). With page mapping and one-block units a scan of the valid
  // bits; otherwise page by page, fetching validity a few pages ahead.
  uint32_t NextValidPage(UnitId u, uint32_t i) const;
  // If l's valid copy is still at `src`, allocates a GC-stream page in src's
  // group, moves the mapping there and returns it; otherwise returns
  // kInvalidPpn (the data went stale while GC was reading it).
  flash::Ppn PlaceGcCopy(Lpn l, flash::Ppn src);
  // Erases victim u (all pages relocated or stale) and returns it to the pool.
  void EraseUnit(UnitId u);
  // Static wear leveling (ftl.wear_leveling.static_gap): if an erase in
  // `group` since the last check left a full unit whose erase count lags the
  // group's most-worn unit by more than the gap, marks the least-worn such
  // unit as the victim and returns it (counted in wl_runs); else kNoUnit.
  // O(units per group) after an erase, O(1) otherwise.
  UnitId SelectWearLevelVictim(uint32_t group);
  void CountWearLevelCopy() { counters_.wl_copies.Inc(); }
  // A wear-leveling move may run in `group`: static wear leveling is on and
  // the group has more free units than the GC reserve (a move, like a GC
  // run, may open a GC unit before it frees its victim).
  bool WearLevelingRoom(uint32_t group) const {
    return cfg_.wear_leveling.static_gap != 0 && blocks_.free_units(group) > cfg_.gc_fg_threshold;
  }

  // ---- mapping cache primitives for the timed FTL (see header comment)
  bool map_cached() const { return cache_ != nullptr; }
  const MapCache* map_cache() const { return cache_.get(); }
  // Translation pages (0 without a cache).
  uint64_t translation_pages() const { return translation_pages_; }
  // The Lpn translation page t is stored under.
  Lpn TranslationLpn(uint64_t t) const { return Lpn{logical_pages_ + t}; }
  bool IsTranslation(Lpn l) const { return l.v >= logical_pages_; }
  // One host access to l's entry (`write`: the access changes it). Counts
  // the hit or miss; a dirty eviction queues an update. The caller counts
  // the translation read it issues (CountMapRead). REQUIRES: map_cached().
  MapAccess AccessMapping(Lpn l, bool write);
  void CountMapRead() { counters_.map_reads.Inc(); }
  // Takes the next queued translation-page update; false if none.
  bool NextMapUpdate(uint64_t* t);
  bool HasMapUpdates() const { return !map_updates_.empty(); }
  // Where translation page t is now (kInvalidPpn if never written); counts
  // a translation read when it is on flash.
  flash::Ppn ReadForMapUpdate(uint64_t t);
  // A group that can take translation page t now without waiting for GC,
  // rotating over groups; UINT32_MAX if none.
  uint32_t MapGroup(uint64_t t);
  // Allocates a page for the new version of translation page t in `group`
  // (stream kMap), retires the old one and records it in the directory.
  // REQUIRES: CanAllocateHost(group, kMap), TakesHostPage(group, t's Lpn).
  flash::Ppn PlaceMapPage(uint64_t t, uint32_t group);

  // ---- inspection
  // "" if the mapping, valid counts and unit states agree; otherwise the
  // first inconsistency found. O(logical pages * lookup + physical pages).
  std::string CheckConsistency() const;
  EraseCountSummary EraseCounts() const;
  // Bytes held by mapping tables, unit tables and policy/allocator state.
  uint64_t MemoryBytes() const;

 private:
  void Invalidate(Lpn l);
  // Precondition's two methods: writes Lpns [0, fill) in order, then
  // `overwrites` uniform random pages of that range; or (Replicate) the
  // same through one group and copies, false if it does not apply.
  void FillAndOverwrite(uint64_t fill, uint64_t overwrites, uint64_t seed);
  template <bool kPlain>
  void FillAndOverwriteAs(uint64_t fill, uint64_t overwrites, uint64_t seed);
  // Write()'s steps where they apply without a mapping cache, with a page
  // table and single-plane groups (PlainPageWrites()): inline, so a loop of
  // writes (preconditioning) tests the configuration once.
  bool PlainPageWrites() const {
    return cache_ == nullptr && blocks_.group_planes() == 1 && mapping_.unit() == MapUnit::kPage;
  }
  [[gnu::always_inline]] void WritePlainPage(Lpn l, Stream s);
  // The page placement of WritePlainPage (also Write()'s with a cache): the
  // program done at once, as a run of one page, the old copy's entry
  // rewritten once.
  [[gnu::always_inline]] void PlacePlainPage(Lpn l, uint32_t g, Stream s);
  bool Replicate(uint64_t fill, uint64_t overwrites, uint64_t seed);
  void EnsureHostRoom(uint32_t group, Stream s);
  // Functional background GC of g while it is below the threshold, then
  // one static wear-leveling move if due.
  void RunBackgroundGc(uint32_t g);
  // Functional: copies victim u's valid pages and erases it; returns the
  // pages copied.
  int64_t CollectUnit(UnitId u);
  // CollectUnit of a one-block unit with page mapping: finds the pages to
  // move from the valid bits.
  int64_t CollectBlock(UnitId u);
  // Moves valid page src (of victim `from`, holding l) to a GC-stream page.
  flash::Ppn MoveValidPage(UnitId from, flash::Ppn src, Lpn l);
  // The GC stream that copies from unit u go to.
  Stream GcStreamOf(UnitId u) const {
    return cfg_.hot_cold && IsColdStream(blocks_.stream(u)) ? Stream::kGcCold : Stream::kGc;
  }
  // MoveValidPage with from's group and GC stream given (a victim's loop
  // computes them once). Defined in ftl_core.cc, its only user.
  flash::Ppn MoveValidPageTo(UnitId from, uint32_t group, Stream to, flash::Ppn src, Lpn l);
  // The FTL changed l's mapping itself (GC, trim): with a cache, the entry
  // becomes dirty if cached, else its translation page needs an update.
  void NoteMapChange(Lpn l) {
    if (cache_ != nullptr && !IsTranslation(l) && !cache_->MarkDirty(l)) QueueMapUpdate(cache_->PageOf(l));
  }
  void QueueMapUpdate(uint64_t t);

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
  uint64_t translation_pages_ = 0;
  std::unique_ptr<MapCache> cache_;       // null: the whole table in DRAM
  std::deque<uint64_t> map_updates_;      // translation pages to write, in order
  std::vector<uint8_t> map_update_queued_;  // per translation page
  uint32_t next_map_group_ = 0;
  std::vector<uint8_t> wl_check_;  // per group: erased since the last wear-leveling check
  bool flushing_ = false;
  // CollectBlock's scratch: the victim's valid pages and their Lpns.
  std::vector<uint64_t> gc_pages_;
  std::vector<uint64_t> gc_lpns_;
};

}  // namespace ftl
