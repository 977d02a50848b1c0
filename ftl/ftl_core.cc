#include "ftl/ftl_core.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "sim/rng.h"

namespace ftl {

namespace {

const AllocatorInfo& AllocatorOrDie(const std::string& name) {
  auto info = FindAllocator(name);
  CHECK(info.ok()) << info.status().message();
  return **info;
}

BlockManager MakeBlocks(const FtlConfig& cfg, const flash::Geometry& g) {
  auto stripe = StripeSequence(g, cfg.stripe_order);
  CHECK(stripe.ok()) << stripe.status().message();
  if (AllocatorOrDie(cfg.allocation).superblock_units) return BlockManager(g, g.planes(), std::move(*stripe));
  return BlockManager(g);
}

MapUnit MapUnitOrDie(const std::string& name) {
  auto u = ParseMapUnit(name);
  CHECK(u.ok()) << u.status().message();
  return *u;
}

}  // namespace

sim::Result<std::unique_ptr<FtlCore>> FtlCore::Make(const FtlConfig& cfg, const flash::Geometry& geometry,
                                                    const flash::FlashArray* array) {
  FS_RETURN_IF_ERROR(cfg.Validate(geometry));
  return std::make_unique<FtlCore>(cfg, geometry, array);
}

FtlCore::FtlCore(const FtlConfig& cfg, const flash::Geometry& geometry, const flash::FlashArray* array)
    : cfg_(cfg),
      geometry_(geometry),
      logical_pages_(cfg.LogicalPagesByOp(geometry)),
      blocks_(MakeBlocks(cfg, geometry)),
      mapping_(logical_pages_ + cfg.TranslationPages(geometry), geometry, MapUnitOrDie(cfg.mapping)) {
  const sim::Status st = cfg.Validate(geometry);
  CHECK(st.ok()) << st.message();
  if (cfg.map_cache.enabled()) {
    translation_pages_ = cfg.TranslationPages(geometry);
    cache_ = std::make_unique<MapCache>(logical_pages_, cfg.map_cache.Capacity(),
                                        geometry.page_size.value / cfg.map_cache.entry_bytes);
    CHECK_EQ(cache_->pages(), translation_pages_);
    map_update_queued_.assign(translation_pages_, 0);
  }
  bg_threshold_ = cfg.BgThresholdUnits(blocks_.units_per_group());
  group_data_cap_ = (blocks_.units_per_group() - cfg.KeptUnits(blocks_.units_per_group())) * blocks_.unit_pages();
  group_valid_.assign(blocks_.groups(), 0);

  VictimPolicyContext vctx;
  vctx.blocks = &blocks_;
  vctx.params = &cfg.policies;
  vctx.seed = cfg.seed;
  auto policy = MakeVictimPolicy(cfg.victim, vctx);
  CHECK(policy.ok()) << policy.status().message();
  policy_ = std::move(*policy);
  blocks_.set_policy(policy_.get());
  blocks_.set_least_worn_first(cfg.wear_leveling.dynamic);
  wl_check_.assign(blocks_.groups(), 0);

  AllocatorContext actx;
  actx.blocks = &blocks_;
  actx.array = array;
  actx.stripe = StripeSequence(geometry, cfg.stripe_order).value();
  actx.host_reserve = cfg.gc_fg_threshold;
  allocator_ = AllocatorOrDie(cfg.allocation).make(actx);
}

FtlCore::~FtlCore() { blocks_.set_policy(nullptr); }

void FtlCore::Invalidate(Lpn l) {
  const uint64_t old_block = mapping_.BlockOf(l);
  if (old_block == kNoBlock) return;
  const UnitId u = blocks_.UnitOfBlock(old_block);
  mapping_.Unmap(l, blocks_.Writable(u));
  blocks_.RemoveValid(u);
  --group_valid_[blocks_.GroupOf(u)];
}

uint32_t FtlCore::OtherGroup(uint32_t from, Lpn l, Stream s) {
  DCHECK(!TakesHostPage(from, l));
  const uint32_t groups = blocks_.groups();
  uint32_t best = UINT32_MAX;
  bool best_ready = false;
  uint64_t best_room = 0;
  for (uint32_t i = 1; i < groups; ++i) {
    uint32_t g = from + i;
    if (g >= groups) g -= groups;
    if (!TakesHostPage(g, l)) continue;
    const bool ready = CanAllocateHost(g, s);
    const uint64_t room = group_data_cap_ - std::min(group_valid_[g], group_data_cap_);
    if (best == UINT32_MAX || (ready && !best_ready) || (ready == best_ready && room > best_room)) {
      best = g;
      best_ready = ready;
      best_room = room;
    }
  }
  // The caps add up to at least the logical space (FtlConfig::Validate), and
  // at most logical - 1 pages other than l's are valid: some group is below.
  CHECK_NE(best, UINT32_MAX) << "no group can take a host page: every group is at its data cap of "
                             << group_data_cap_ << " pages";
  counters_.redirected_writes.Inc();
  return best;
}

flash::Ppn FtlCore::PlaceHostPage(Lpn l, uint32_t group, Stream s) {
  DCHECK_LT(l.v, logical_pages_);
  DCHECK(CanAllocateHost(group, s));
  DCHECK(TakesHostPage(group, l));
  // Retire the old copy first: if it sits in the open unit that this
  // allocation completes, the unit is still writable at this point, so a
  // block-granular mapping clears the stale reverse entry.
  Invalidate(l);
  const flash::Ppn p = blocks_.Allocate(group, s);
  mapping_.Map(l, p);
  blocks_.AddValid(blocks_.UnitOf(p));
  ++group_valid_[group];
  counters_.host_writes.Inc();
  return p;
}

UnitId FtlCore::SelectVictim(uint32_t group) {
  const UnitId u = blocks_.SelectVictim(group);
  if (u != kNoUnit) counters_.gc_runs.Inc();
  return u;
}

flash::Ppn FtlCore::PlaceGcCopy(Lpn l, flash::Ppn src) {
  if (!mapping_.IsValid(src) || mapping_.LpnAt(src) != l) return flash::kInvalidPpn;
  const UnitId from = blocks_.UnitOf(src);
  DCHECK(blocks_.state(from) == UnitState::kVictim);
  return MoveValidPage(from, src, l);
}

inline flash::Ppn FtlCore::MoveValidPageTo(UnitId from, uint32_t group, Stream to, flash::Ppn src, Lpn l) {
  CHECK(blocks_.CanAllocate(group, to, 0)) << "GC of group " << group << " has no destination";
  const flash::Ppn dst = blocks_.Allocate(group, to);
  if (mapping_.unit() == MapUnit::kPage) {
    mapping_.MovePage(l, src, dst);
    blocks_.RemoveValid(from);
  } else {
    mapping_.Unmap(l, /*block_still_written=*/false);
    blocks_.RemoveValid(from);
    mapping_.Map(l, dst);
  }
  blocks_.AddValid(blocks_.UnitOf(dst));
  counters_.gc_copies.Inc();
  if (cache_ != nullptr) {
    if (IsTranslation(l)) {
      counters_.map_gc_copies.Inc();  // the directory is in DRAM: nothing else changes
    } else {
      NoteMapChange(l);
    }
  }
  return dst;
}

flash::Ppn FtlCore::MoveValidPage(UnitId from, flash::Ppn src, Lpn l) {
  return MoveValidPageTo(from, blocks_.GroupOf(from), GcStreamOf(from), src, l);
}

// ------------------------------------------------------------- mapping cache

MapAccess FtlCore::AccessMapping(Lpn l, bool write) {
  DCHECK(cache_ != nullptr);
  const MapCache::Access a = cache_->Touch(l, write);
  if (a.writeback != MapCache::kNoPage) QueueMapUpdate(a.writeback);
  MapAccess r;
  if (a.hit) {
    counters_.map_hits.Inc();
    return r;
  }
  counters_.map_misses.Inc();
  r.hit = false;
  r.read = mapping_.Lookup(TranslationLpn(cache_->PageOf(l)));
  return r;
}

void FtlCore::QueueMapUpdate(uint64_t t) {
  if (map_update_queued_[t] != 0) return;  // the queued write will carry this change too
  map_update_queued_[t] = 1;
  map_updates_.push_back(t);
}

bool FtlCore::NextMapUpdate(uint64_t* t) {
  if (map_updates_.empty()) return false;
  *t = map_updates_.front();
  map_updates_.pop_front();
  map_update_queued_[*t] = 0;
  return true;
}

flash::Ppn FtlCore::ReadForMapUpdate(uint64_t t) {
  const flash::Ppn p = mapping_.Lookup(TranslationLpn(t));
  if (p.valid()) counters_.map_reads.Inc();
  return p;
}

uint32_t FtlCore::MapGroup(uint64_t t) {
  const uint32_t groups = blocks_.groups();
  const Lpn tl = TranslationLpn(t);
  for (uint32_t i = 0; i < groups; ++i) {
    uint32_t g = next_map_group_ + i;
    if (g >= groups) g -= groups;
    if (TakesHostPage(g, tl) && CanAllocateHost(g, Stream::kMap)) {
      next_map_group_ = g + 1 == groups ? 0 : g + 1;
      return g;
    }
  }
  return UINT32_MAX;
}

flash::Ppn FtlCore::PlaceMapPage(uint64_t t, uint32_t group) {
  const Lpn tl = TranslationLpn(t);
  DCHECK(CanAllocateHost(group, Stream::kMap));
  DCHECK(TakesHostPage(group, tl));
  Invalidate(tl);
  const flash::Ppn p = blocks_.Allocate(group, Stream::kMap);
  mapping_.Map(tl, p);
  blocks_.AddValid(blocks_.UnitOf(p));
  ++group_valid_[group];
  counters_.map_writes.Inc();
  return p;
}

void FtlCore::FlushMapUpdates() {
  if (flushing_) return;  // GC inside a flush queues more: the loop below takes them
  flushing_ = true;
  uint64_t t;
  while (NextMapUpdate(&t)) {
    ReadForMapUpdate(t);
    uint32_t g = MapGroup(t);
    if (g == UINT32_MAX) {
      // Every group needs GC first: take the next one that may hold the page.
      const uint32_t groups = blocks_.groups();
      for (uint32_t i = 0; i < groups && g == UINT32_MAX; ++i) {
        const uint32_t c = (next_map_group_ + i) % groups;
        if (TakesHostPage(c, TranslationLpn(t))) g = c;
      }
      CHECK_NE(g, UINT32_MAX) << "no group can take translation page " << t;
      next_map_group_ = g + 1 == groups ? 0 : g + 1;
      EnsureHostRoom(g, Stream::kMap);
    }
    blocks_.ProgramDone(PlaceMapPage(t, g));
    RunBackgroundGc(g);
  }
  flushing_ = false;
}

void FtlCore::EraseUnit(UnitId u) {
  for (uint32_t j = 0; j < blocks_.group_planes(); ++j) mapping_.ResetBlock(blocks_.BlockIdOf(u, j));
  blocks_.Erase(u);
  wl_check_[blocks_.GroupOf(u)] = 1;
  counters_.unit_erases.Inc();
  counters_.block_erases.Inc(blocks_.group_planes());
}

UnitId FtlCore::SelectWearLevelVictim(uint32_t group) {
  const uint32_t gap = cfg_.wear_leveling.static_gap;
  if (gap == 0 || wl_check_[group] == 0) return kNoUnit;
  wl_check_[group] = 0;
  const uint32_t upg = blocks_.units_per_group();
  UnitId best = kNoUnit;
  for (UnitId u = group * upg; u < (group + 1) * upg; ++u) {
    if (blocks_.state(u) != UnitState::kFull) continue;
    if (best == kNoUnit || blocks_.erase_count(u) < blocks_.erase_count(best)) best = u;
  }
  if (best == kNoUnit || blocks_.max_erase_count(group) - blocks_.erase_count(best) <= gap) return kNoUnit;
  blocks_.TakeVictim(best);
  counters_.wl_runs.Inc();
  return best;
}

uint32_t FtlCore::NextValidPage(UnitId u, uint32_t i) const {
  const uint32_t pages = blocks_.unit_pages();
  if (mapping_.unit() == MapUnit::kPage && blocks_.group_planes() == 1) {
    const uint64_t first = geometry_.FirstPpnOfBlock(blocks_.BlockIdOf(u, 0)).v;
    return static_cast<uint32_t>(mapping_.NextValid(first + i, first + pages) - first);
  }
  for (; i < pages; ++i) {
    // Validity checks read random L2P entries: fetch a few pages ahead.
    if (i + 8 < pages) mapping_.PrefetchValidity(blocks_.PpnOf(u, i + 8));
    if (mapping_.IsValid(blocks_.PpnOf(u, i))) return i;
  }
  return pages;
}

int64_t FtlCore::CollectOnce(uint32_t group) {
  const UnitId u = SelectVictim(group);
  if (u == kNoUnit) return -1;
  return CollectUnit(u);
}

int64_t FtlCore::CollectUnit(UnitId u) {
  const uint32_t pages = blocks_.unit_pages();
  if (mapping_.unit() == MapUnit::kPage && blocks_.group_planes() == 1) return CollectBlock(u);
  uint32_t remaining = blocks_.valid(u);
  int64_t copied = 0;
  // Validity checks read the victim's P2L entries (a cold but contiguous
  // range per block: request all of it now) and then random L2P entries
  // (look ahead far enough for the P2L lines to have arrived).
  for (uint32_t j = 0; j < blocks_.group_planes(); ++j) {
    mapping_.PrefetchP2l(geometry_.FirstPpnOfBlock(blocks_.BlockIdOf(u, j)), geometry_.pages_per_block);
  }
  constexpr uint32_t kAhead = 16;
  for (uint32_t i = 0; i < std::min(kAhead, pages); ++i) mapping_.PrefetchValidity(blocks_.PpnOf(u, i));
  for (uint32_t i = 0; remaining > 0 && i < pages; ++i) {
    if (i + kAhead < pages) mapping_.PrefetchValidity(blocks_.PpnOf(u, i + kAhead));
    const flash::Ppn src = blocks_.PpnOf(u, i);
    const Lpn l = ValidLpnAt(src);
    if (!l.valid()) continue;
    blocks_.ProgramDone(MoveValidPage(u, src, l));
    --remaining;
    ++copied;
  }
  EraseUnit(u);
  return copied;
}

int64_t FtlCore::CollectBlock(UnitId u) {
  // Unit u is one flash block, its pages in Ppn order. The valid bits say
  // which pages move without reading L2P; the L2P entries of the pages that
  // move (each is rewritten) are fetched kAhead pages ahead of their move.
  // Moving a page touches only its own entries, so the set found first is
  // exactly the set moved, in the same order as a page-by-page scan.
  const uint64_t first = geometry_.FirstPpnOfBlock(blocks_.BlockIdOf(u, 0)).v;
  const uint64_t last = first + blocks_.unit_pages();
  mapping_.PrefetchP2l(flash::Ppn{first}, blocks_.unit_pages());
  const uint32_t n = blocks_.valid(u);
  gc_pages_.resize(blocks_.unit_pages());
  gc_lpns_.resize(n);
  const uint64_t found = mapping_.ValidPages(first, last, gc_pages_.data());
  CHECK_EQ(found, n) << "unit " << u << ": " << found << " valid bits but a valid count of " << n;
  constexpr uint32_t kAhead = 16;
  for (uint32_t k = 0; k < std::min(kAhead, n); ++k) {
    gc_lpns_[k] = mapping_.LpnAt(flash::Ppn{gc_pages_[k]}).v;
    mapping_.PrefetchLpn(Lpn{gc_lpns_[k]});
  }
  const uint32_t group = blocks_.GroupOf(u);
  const Stream to = GcStreamOf(u);
  auto fetch_ahead = [&](uint32_t k) {
    if (k + kAhead < n) {
      gc_lpns_[k + kAhead] = mapping_.LpnAt(flash::Ppn{gc_pages_[k + kAhead]}).v;
      mapping_.PrefetchLpn(Lpn{gc_lpns_[k + kAhead]});
    }
  };
  if (cache_ != nullptr) {
    for (uint32_t k = 0; k < n; ++k) {
      fetch_ahead(k);
      blocks_.ProgramDone(MoveValidPageTo(u, group, to, flash::Ppn{gc_pages_[k]}, Lpn{gc_lpns_[k]}));
    }
  } else {
    // Without a mapping cache a move changes only the tables and the two
    // units' counts: place the moves in runs of the destination unit's
    // consecutive pages (the same pages, counts and unit closings as page
    // by page).
    for (uint32_t k = 0; k < n;) {
      CHECK(blocks_.CanAllocate(group, to, 0)) << "GC of group " << group << " has no destination";
      const BlockManager::Run run = blocks_.AllocateRun(group, to, n - k);
      mapping_.PrefetchP2l(run.first, run.pages);
      for (uint32_t j = 0; j < run.pages; ++j, ++k) {
        fetch_ahead(k);
        mapping_.MovePage(Lpn{gc_lpns_[k]}, flash::Ppn{gc_pages_[k]}, flash::Ppn{run.first.v + j});
      }
      blocks_.RemoveValidOfVictim(u, run.pages);
      blocks_.EndRun(run);
    }
    counters_.gc_copies.Inc(n);
  }
  EraseUnit(u);
  return n;
}

void FtlCore::EnsureHostRoom(uint32_t group, Stream s) {
  uint32_t fruitless = 0;
  while (!CanAllocateHost(group, s)) {
    const int64_t copied = CollectOnce(group);
    CHECK_GE(copied, 0) << "group " << group << " is out of space and has no GC candidate";
    if (copied == static_cast<int64_t>(blocks_.unit_pages())) {
      CHECK_LT(++fruitless, 4 * blocks_.units_per_group())
          << "group " << group << " has no reclaimable space: every candidate is fully valid";
    } else {
      fruitless = 0;
    }
  }
}

inline void FtlCore::PlacePlainPage(Lpn l, uint32_t g, Stream s) {
  const flash::Ppn old = mapping_.PageOf(l);
  if (old.valid()) {
    const UnitId u = blocks_.UnitOf(old);
    blocks_.RemoveValid(u);
    --group_valid_[blocks_.GroupOf(u)];
  }
  const BlockManager::Run run = blocks_.AllocateRun(g, s, 1);
  mapping_.Remap(l, old, run.first);
  blocks_.EndRun(run);
  ++group_valid_[g];
  counters_.host_writes.Inc();
}

inline void FtlCore::WritePlainPage(Lpn l, Stream s) {
  const uint32_t g = HostGroup(l, s);
  if (!CanAllocateHost(g, s)) EnsureHostRoom(g, s);
  PlacePlainPage(l, g, s);
  if (BelowGcThreshold(g) || WearLevelingRoom(g)) RunBackgroundGc(g);
}

void FtlCore::Write(Lpn l, Stream s) {
  if (PlainPageWrites()) {
    WritePlainPage(l, s);
    return;
  }
  if (cache_ != nullptr && !AccessMapping(l, /*write=*/true).hit && mapping_.IsMapped(TranslationLpn(cache_->PageOf(l)))) {
    CountMapRead();
  }
  const uint32_t g = HostGroup(l, s);
  if (!CanAllocateHost(g, s)) EnsureHostRoom(g, s);
  if (blocks_.group_planes() == 1 && mapping_.unit() == MapUnit::kPage) {
    PlacePlainPage(l, g, s);
  } else {
    blocks_.ProgramDone(PlaceHostPage(l, g, s));
  }
  if (BelowGcThreshold(g) || WearLevelingRoom(g)) RunBackgroundGc(g);
  if (cache_ != nullptr) FlushMapUpdates();
}

void FtlCore::RunBackgroundGc(uint32_t g) {
  uint32_t fruitless = 0;
  while (BelowGcThreshold(g)) {
    const int64_t copied = CollectOnce(g);
    if (copied < 0) break;
    if (copied == static_cast<int64_t>(blocks_.unit_pages()) && ++fruitless > blocks_.units_per_group()) break;
  }
  if (WearLevelingRoom(g)) {
    const UnitId u = SelectWearLevelVictim(g);
    if (u != kNoUnit) counters_.wl_copies.Inc(static_cast<uint64_t>(CollectUnit(u)));
  }
}

void FtlCore::Trim(Lpn first, uint64_t count) {
  if (first.v >= logical_pages_) return;
  const uint64_t end = first.v + std::min(count, logical_pages_ - first.v);
  for (uint64_t l = first.v; l < end; ++l) {
    if (!mapping_.IsMapped(Lpn{l})) continue;
    Invalidate(Lpn{l});
    NoteMapChange(Lpn{l});
    counters_.trimmed_pages.Inc();
  }
}

void FtlCore::Precondition(const PreconditionSpec& spec) {
  CHECK_GE(spec.fill_fraction, 0.0);
  CHECK_LE(spec.fill_fraction, 1.0);
  const auto fill = static_cast<uint64_t>(spec.fill_fraction * static_cast<double>(logical_pages_));
  const auto overwrites = static_cast<uint64_t>(spec.random_overwrites * static_cast<double>(logical_pages_));
  if (spec.replicate && fill > 0 && Replicate(fill, overwrites, spec.seed)) return;
  FillAndOverwrite(fill, overwrites, spec.seed);
}

void FtlCore::FillAndOverwrite(uint64_t fill, uint64_t overwrites, uint64_t seed) {
  if (PlainPageWrites()) {
    FillAndOverwriteAs<true>(fill, overwrites, seed);
  } else {
    FillAndOverwriteAs<false>(fill, overwrites, seed);
  }
}

// The plain-page case writes through the inline WritePlainPage: the same
// steps as Write(), with the configuration tested once for the whole loop.
template <bool kPlain>
void FtlCore::FillAndOverwriteAs(uint64_t fill, uint64_t overwrites, uint64_t seed) {
  const auto write = [this](Lpn l) __attribute__((always_inline)) {
    if constexpr (kPlain) {
      WritePlainPage(l, Stream::kHostHot);
    } else {
      Write(l);
    }
  };
  for (uint64_t l = 0; l < fill; ++l) write(Lpn{l});
  if (fill == 0) return;
  sim::Rng rng(seed, "ftl.precondition");
  // Draw lpns kAhead writes ahead so their L2P entries are fetched before
  // use; kUnitAhead writes ahead, read the (by then cached) entry and fetch
  // what retiring the old copy touches: its unit's counters and victim-list
  // links, random accesses into tables larger than the L2 cache.
  constexpr uint64_t kAhead = 32;
  constexpr uint64_t kUnitAhead = 16;
  uint64_t ahead[kAhead];
  for (uint64_t& a : ahead) {
    a = rng.Uniform(fill);
    mapping_.PrefetchLpn(Lpn{a});
  }
  for (uint64_t i = 0; i < overwrites; ++i) {
    uint64_t& slot = ahead[i % kAhead];
    const Lpn l{slot};
    slot = rng.Uniform(fill);
    mapping_.PrefetchLpn(Lpn{slot});
    PrefetchRetire(Lpn{ahead[(i + kUnitAhead) % kAhead]});
    write(l);
  }
}

bool FtlCore::Replicate(uint64_t fill, uint64_t overwrites, uint64_t seed) {
  const uint32_t groups = blocks_.groups();
  if (groups < 2 || blocks_.group_planes() != 1 || cache_ != nullptr || blocks_.write_seq() != 0) return false;
  // One group of the same blocks: a single plane.
  flash::Geometry one = geometry_;
  one.channels = one.chips_per_channel = one.dies_per_chip = one.planes_per_die = 1;
  FtlConfig c = cfg_;
  c.precondition.method = "exact";
  if (!c.Validate(one).ok()) return false;
  FtlCore small(c, one);
  if (small.group_data_cap_ != group_data_cap_ || small.bg_threshold_ != bg_threshold_) return false;
  // Group of stripe position s holds Lpns x * groups + s, x < share: the
  // sequential fill puts Lpn l at stripe position l mod groups, and each
  // group takes every groups-th host page, so each sees a share of the
  // fill and of the uniform overwrites (drawn over its own share).
  const uint64_t share = fill / groups;
  // A fill smaller than the groups, or a share the single group cannot
  // hold, is left to the exact method.
  if (share == 0 || share > small.logical_pages()) return false;
  small.FillAndOverwrite(share, overwrites / groups, seed);

  const std::vector<uint32_t> stripe = StripeSequence(geometry_, cfg_.stripe_order).value();
  const uint32_t upg = blocks_.units_per_group();
  const uint32_t unit_pages = blocks_.unit_pages();
  std::vector<uint32_t> dst(groups);
  for (uint32_t s = 0; s < groups; ++s) {
    dst[s] = blocks_.GroupOfPlane(stripe[s]);
    blocks_.CopyGroup(small.blocks_, 0, dst[s], groups);
    group_valid_[dst[s]] = small.group_valid_[0];
  }
  for (UnitId k = 0; k < upg; ++k) {
    if (small.blocks_.valid(k) == 0) continue;
    for (uint32_t i = 0; i < unit_pages; ++i) {
      const flash::Ppn sp = small.blocks_.PpnOf(k, i);
      if (!small.mapping_.IsValid(sp)) continue;
      const uint64_t x = small.mapping_.LpnAt(sp).v;
      for (uint32_t s = 0; s < groups; ++s) {
        mapping_.Map(Lpn{x * groups + s}, blocks_.PpnOf(dst[s] * upg + k, i));
      }
    }
  }
  blocks_.set_write_seq(small.blocks_.write_seq() * groups);
  for (uint32_t g = 0; g < groups; ++g) blocks_.AnnounceFull(g);
  const FtlCounters& sc = small.counters();
  counters_.host_writes.Inc(sc.host_writes.value() * groups);
  counters_.gc_copies.Inc(sc.gc_copies.value() * groups);
  counters_.gc_runs.Inc(sc.gc_runs.value() * groups);
  counters_.unit_erases.Inc(sc.unit_erases.value() * groups);
  counters_.block_erases.Inc(sc.block_erases.value() * groups);
  counters_.redirected_writes.Inc(sc.redirected_writes.value() * groups);

  // The rest of the fill (fewer than `groups` pages unless the small
  // device's logical space was the limit) and of the overwrites.
  for (uint64_t l = share * groups; l < fill; ++l) Write(Lpn{l});
  sim::Rng rng(seed, "ftl.precondition.rest");
  for (uint64_t i = overwrites / groups * groups; i < overwrites; ++i) Write(Lpn{rng.Uniform(fill)});
  return true;
}

std::string FtlCore::CheckConsistency() const {
  std::ostringstream err;
  std::vector<uint32_t> valid(blocks_.units(), 0);
  // Data pages, then translation pages (with a mapping cache).
  for (uint64_t l = 0; l < mapping_.logical_pages(); ++l) {
    const Lpn lpn{l};
    if (!mapping_.IsMapped(lpn)) continue;
    const uint64_t block = mapping_.BlockOf(lpn);
    if (mapping_.unit() == MapUnit::kBlock && mapping_.CountInBlock(lpn, block) != 1) {
      err << "lpn " << l << ": block " << block << " has " << mapping_.CountInBlock(lpn, block)
          << " P2L entries for it (want 1)";
      return err.str();
    }
    const flash::Ppn p = mapping_.Lookup(lpn);
    if (!p.valid() || mapping_.LpnAt(p) != lpn || !mapping_.IsValid(p)) {
      err << "lpn " << l << ": L2P -> ppn " << p.v << " whose P2L does not point back";
      return err.str();
    }
    const UnitId u = blocks_.UnitOf(p);
    const UnitState st = blocks_.state(u);
    if (st == UnitState::kFree) {
      err << "lpn " << l << " maps into free unit " << u;
      return err.str();
    }
    ++valid[u];
  }
  uint64_t valid_pages = 0;
  for (uint64_t p = 0; p < geometry_.pages(); ++p) {
    const bool v = mapping_.IsValid(flash::Ppn{p});
    if (v != mapping_.IsValidByTables(flash::Ppn{p})) {
      err << "ppn " << p << ": valid bit " << v << " but the L2P and P2L tables say " << !v;
      return err.str();
    }
    valid_pages += v;
  }
  uint64_t mapped = std::accumulate(valid.begin(), valid.end(), uint64_t{0});
  if (valid_pages != mapped) {
    err << valid_pages << " valid physical pages but " << mapped << " mapped logical pages";
    return err.str();
  }
  std::vector<uint64_t> group_valid(blocks_.groups(), 0);
  for (UnitId u = 0; u < blocks_.units(); ++u) group_valid[blocks_.GroupOf(u)] += valid[u];
  for (uint32_t g = 0; g < blocks_.groups(); ++g) {
    if (group_valid[g] != group_valid_[g]) {
      err << "group " << g << ": valid count " << group_valid_[g] << " but " << group_valid[g] << " mapped pages";
      return err.str();
    }
    if (group_valid[g] > group_data_cap_) {
      err << "group " << g << " holds " << group_valid[g] << " valid pages, above its cap of " << group_data_cap_;
      return err.str();
    }
  }
  uint64_t free_units = 0, erased = 0;
  for (UnitId u = 0; u < blocks_.units(); ++u) {
    if (valid[u] != blocks_.valid(u)) {
      err << "unit " << u << ": valid count " << blocks_.valid(u) << " but " << valid[u] << " mapped pages";
      return err.str();
    }
    if (blocks_.state(u) == UnitState::kFree) {
      ++free_units;
      erased += blocks_.unit_pages();
    }
  }
  if (free_units != blocks_.total_free_units()) {
    err << free_units << " units in state free but the pools hold " << blocks_.total_free_units();
    return err.str();
  }
  for (uint32_t g = 0; g < blocks_.groups(); ++g) {
    for (uint32_t s = 0; s < kNumStreams; ++s) {
      const UnitId u = blocks_.open_unit(g, static_cast<Stream>(s));
      if (u == kNoUnit) continue;
      if (blocks_.state(u) != UnitState::kOpen) {
        err << "open unit " << u << " of group " << g << " is not in state open";
        return err.str();
      }
      const uint32_t wp = blocks_.write_pointer(g, static_cast<Stream>(s));
      erased += blocks_.unit_pages() - wp;
      for (uint32_t i = wp; i < blocks_.unit_pages(); ++i) {
        if (mapping_.LpnAt(blocks_.PpnOf(u, i)).valid()) {
          err << "unit " << u << " page " << i << " beyond the write pointer " << wp << " has a P2L entry";
          return err.str();
        }
      }
    }
  }
  if (erased != blocks_.erased_pages()) {
    err << "free and open units hold " << erased << " erased pages but " << blocks_.erased_pages()
        << " are counted";
    return err.str();
  }
  return "";
}

EraseCountSummary FtlCore::EraseCounts() const {
  EraseCountSummary s;
  const uint64_t n = blocks_.units();
  if (n == 0) return s;
  s.min = UINT32_MAX;
  double sum = 0, sq = 0;
  for (UnitId u = 0; u < n; ++u) {
    const uint32_t e = blocks_.erase_count(u);
    s.min = std::min(s.min, e);
    s.max = std::max(s.max, e);
    sum += e;
    sq += static_cast<double>(e) * e;
  }
  s.mean = sum / static_cast<double>(n);
  s.stddev = std::sqrt(std::max(0.0, sq / static_cast<double>(n) - s.mean * s.mean));
  return s;
}

uint64_t FtlCore::MemoryBytes() const {
  return mapping_.MemoryBytes() + blocks_.MemoryBytes() + policy_->MemoryBytes() + sizeof(*this) +
         (cache_ != nullptr ? cache_->MemoryBytes() + map_update_queued_.capacity() : 0);
}

}  // namespace ftl
