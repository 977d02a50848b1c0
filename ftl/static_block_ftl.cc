#include "ftl/static_block_ftl.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <glog/logging.h>

#include "ftl/allocator.h"
#include "ftl/ftl_factory.h"
#include "sim/registry.h"

namespace ftl {

namespace {
constexpr const char* kKind = "static_block";
}  // namespace

void StaticBlockConfig::Describe(sim::Schema<StaticBlockConfig>& s) {
  // 2 %: NAND datasheets guarantee at least ~98 % good blocks per die (e.g.
  // Micron MLC parts: at least 4016 of 4096 blocks valid per LUN), so
  // controllers reserve about that share for bad and worn blocks.
  s.Param("spare", &StaticBlockConfig::spare, "2%",
          "Fraction of each plane's blocks kept as erased spares that replace retired blocks (rounded up); not "
          "exported")
      .Range(0, 0.5);
  // 3000: the rated program/erase endurance commonly given for 25 nm MLC
  // NAND, the cell of the ParaFS device (configs/devices/parafs.yaml).
  s.Param("erase_limit", &StaticBlockConfig::erase_limit, "3000",
          "Erases after which a block is retired and replaced by a spare of its plane (the flash model has no "
          "endurance of its own); 0 = never retire");
  s.Param("page_mapped", &StaticBlockConfig::page_mapped, "0",
          "Bytes at the start of the logical space mapped page by page, for file-system metadata updated in "
          "place (any page, any order, overwrites; cleaned by the FTL's own greedy GC); rounded up to whole "
          "flash blocks; 0 = none");
  // 50 %: under uniform random overwrites of a full area (the worst case)
  // greedy GC then copies about 0.8 pages per host page, against 2.1 at
  // 25 % and 0.27 at 100 % (static_block_ftl_area_test, 32 blocks of 64
  // pages): the kept free and open blocks (kMinPoolSpare - 1) eat much of a
  // small spare. A metadata area is a percent or two of a volume, so even
  // 50 % extra costs about 1 % of its capacity; F2FS keeps two copies of
  // its SIT and NAT and two checkpoint packs, so at most about half the
  // area is live and GC does better still.
  s.Param("page_mapped_spare", &StaticBlockConfig::page_mapped_spare, "50%",
          "Extra blocks of the page-mapped area's pool, for its GC, as a fraction of the area's blocks "
          "(rounded up; at least 5 blocks, what greedy GC needs to always find a victim); taken out of the "
          "capacity")
      .Range(0, 100);
  s.Param("page_mapped_lanes", &StaticBlockConfig::page_mapped_lanes, "1",
          "Open host blocks the page-mapped area writes in turn, page by page, each on its own plane while free "
          "blocks allow: 1 = one block at a time (one channel); the channel count stripes the area's writes as a "
          "page-mapped FTL does (each lane beyond the first adds a pool block)")
      .Range(1, 1024);
}

// ------------------------------------------------------------------ config

uint32_t StaticBlockFtl::SparesPerPlane(const FtlConfig& cfg, const flash::Geometry& g) {
  const double spare = cfg.kinds.Get<StaticBlockConfig>(kKind).spare.value;
  return static_cast<uint32_t>(std::ceil(spare * static_cast<double>(g.blocks_per_plane) - 1e-9));
}

uint64_t StaticBlockFtl::AreaBlocks(const FtlConfig& cfg, const flash::Geometry& g) {
  const uint64_t bytes = cfg.kinds.Get<StaticBlockConfig>(kKind).page_mapped.value;
  const uint64_t block_bytes = g.page_size.value * g.pages_per_block;
  return bytes / block_bytes + (bytes % block_bytes != 0 ? 1 : 0);
}

uint64_t StaticBlockFtl::PoolSpare(const FtlConfig& cfg, const flash::Geometry& g) {
  const uint64_t area = AreaBlocks(cfg, g);
  if (area == 0) return 0;
  const double ratio = cfg.kinds.Get<StaticBlockConfig>(kKind).page_mapped_spare.value;
  // The floor keeps a small area valid with the default ratio: fewer
  // blocks would let greedy GC run out of victims (see kMinPoolSpare).
  const uint64_t lanes = cfg.kinds.Get<StaticBlockConfig>(kKind).page_mapped_lanes;
  return std::max<uint64_t>(kMinPoolSpare + lanes - 1,
                            static_cast<uint64_t>(std::ceil(ratio * static_cast<double>(area) - 1e-9)));
}

uint64_t StaticBlockFtl::LogicalPages(const FtlConfig& cfg, const flash::Geometry& g) {
  const uint64_t slots = static_cast<uint64_t>(g.planes()) * (g.blocks_per_plane - SparesPerPlane(cfg, g));
  return (slots - PoolSpare(cfg, g)) * g.pages_per_block;
}

// Per logical block its state (BlockState, 32 bytes), per physical block its
// erase count and past-limit flag (5 bytes), per logical page one trim bit,
// and the spare lists (4 bytes per spare); for the page-mapped area, its
// page map (4 bytes per area page), the pool's reverse map (4 bytes per
// pool page) and per pool block its state (PoolBlock) and free-list entry.
uint64_t StaticBlockFtl::MemoryBytes(const FtlConfig& cfg, const flash::Geometry& g) {
  const uint64_t logical_pages = LogicalPages(cfg, g);
  const uint64_t logical_blocks = logical_pages / g.pages_per_block;
  const uint64_t area = AreaBlocks(cfg, g);
  const uint64_t pool = area + PoolSpare(cfg, g);
  return logical_blocks * sizeof(BlockState) + g.blocks() * 5 + (logical_pages + 63) / 64 * 8 +
         uint64_t{g.planes()} * SparesPerPlane(cfg, g) * 4 + area * g.pages_per_block * 4 +
         pool * g.pages_per_block * 4 + pool * (sizeof(PoolBlock) + 4);
}

sim::Status StaticBlockFtl::Validate(const FtlConfig& cfg, const flash::Geometry& g) {
  auto seq = StripeSequence(g, cfg.stripe_order);
  if (!seq.ok()) return sim::Status::InvalidInput("ftl.stripe_order: " + seq.status().message());
  const uint32_t spares = SparesPerPlane(cfg, g);
  if (spares >= g.blocks_per_plane) {
    return sim::Status::InvalidInput(fmt::format(
        "ftl.static_block.spare: {} spare blocks per plane leave none of the {} blocks of a plane for data",
        spares, g.blocks_per_plane));
  }
  // Block slots and pages are numbered in 32 bits.
  if (g.pages_per_block >= UINT32_MAX) {
    return sim::Status::InvalidInput("device.geometry.pages_per_block: too large for ftl.kind static_block");
  }
  const StaticBlockConfig& sb = cfg.kinds.Get<StaticBlockConfig>(kKind);
  const uint64_t area = AreaBlocks(cfg, g);
  const uint64_t block_bytes = g.page_size.value * g.pages_per_block;
  const uint64_t slots = uint64_t{g.planes()} * (g.blocks_per_plane - spares);
  if (area == 0 && sb.page_mapped_spare != StaticBlockConfig{}.page_mapped_spare) {
    return sim::Status::InvalidInput(
        "ftl.static_block.page_mapped_spare: set, but ftl.static_block.page_mapped is 0 (no page-mapped area); "
        "remove the key or set page_mapped");
  }
  if (area > 0) {
    const uint64_t pool_spare = PoolSpare(cfg, g);
    if (area >= slots) {
      return sim::Status::InvalidInput(fmt::format(
          "ftl.static_block.page_mapped: {} B ({} flash blocks of {} B, rounded up) is not smaller than the "
          "device's {} blocks in service ({} B; spares excluded)",
          sb.page_mapped.value, area, block_bytes, slots, slots * block_bytes));
    }
    // PoolSpare's floor makes the spare enough for GC whatever the ratio.
    CHECK_GE(pool_spare, kMinPoolSpare + sb.page_mapped_lanes - 1);
    // The rest must still span every plane, so a file system can stripe its
    // fixed blocks over all channels.
    const uint64_t pool = area + pool_spare;
    if (pool > slots || slots - pool < g.planes()) {
      return sim::Status::InvalidInput(fmt::format(
          "ftl.static_block.page_mapped: the page-mapped area ({} blocks) and its pool's {} extra blocks leave "
          "{} of the device's {} blocks in service as fixed blocks, fewer than its {} planes; make "
          "page_mapped or page_mapped_spare smaller",
          area, pool_spare, pool > slots ? 0 : slots - pool, slots, g.planes()));
    }
    // Area pages and pool pages are numbered in 32 bits.
    if (pool * g.pages_per_block >= kNoPage) {
      return sim::Status::InvalidInput(fmt::format(
          "ftl.static_block.page_mapped: the pool's {} pages exceed 32-bit page numbers; make it smaller",
          pool * g.pages_per_block));
    }
  }
  // Keys of the page-mapped FTL that mean nothing here: placement is fixed,
  // there is no FTL GC and the capacity is set by the spares. A value other
  // than the default is a configuration mistake, not something to ignore.
  const FtlConfig d;
  const std::string why = area > 0 ? "its page-mapped area's GC has fixed thresholds (see ftl/static_block_ftl.h)"
                                   : "it has no FTL garbage collection";
  auto unused = [&](const char* key, const std::string& what) {
    return sim::Status::InvalidInput(
        fmt::format("ftl.{}: not used by ftl.kind static_block ({}); remove the key", key, what));
  };
  if (cfg.allocation != d.allocation) return unused("allocation", "its placement is the fixed block mapping");
  if (cfg.victim != d.victim) return unused("victim", "it has no FTL garbage collection");
  if (cfg.mapping != d.mapping) return unused("mapping", "it maps whole blocks");
  if (cfg.hot_cold) {
    return unused("hot_cold", "a fixed mapping cannot separate hot and cold writes; the file system groups them");
  }
  if (cfg.op != d.op) return unused("op", "its capacity is every block but the spares; set ftl.static_block.spare");
  if (cfg.gc_max_per_die != d.gc_max_per_die) return unused("gc_max_per_die", why);
  if (cfg.gc_threshold_stagger != d.gc_threshold_stagger) return unused("gc_threshold_stagger", why);
  if (cfg.gc_preemptible != d.gc_preemptible) return unused("gc_preemptible", why);
  if (cfg.wear_leveling.enabled()) {
    return unused("wear_leveling", "it retires worn blocks to spares (ftl.static_block.erase_limit)");
  }
  if (cfg.map_cache.enabled()) return unused("map_cache", "its block map is small enough to stay in DRAM");
  if (cfg.op_basis != d.op_basis) {
    return unused("op_basis", "its capacity is every block but the spares; set ftl.static_block.spare");
  }
  if (cfg.gc_threshold != d.gc_threshold) return unused("gc_threshold", why);
  if (cfg.gc_threshold_units != d.gc_threshold_units) return unused("gc_threshold_units", why);
  if (cfg.gc_fg_threshold != d.gc_fg_threshold) return unused("gc_fg_threshold", why);
  // The page-mapped area's GC keeps up to gc_pages_in_flight copies in flight.
  if (area == 0 && cfg.gc_pages_in_flight != d.gc_pages_in_flight) return unused("gc_pages_in_flight", why);
  if (cfg.gc_pages_in_flight == 0) {
    return sim::Status::InvalidInput("ftl.gc_pages_in_flight: must be at least 1 with a page-mapped area");
  }
  if (cfg.precondition.enabled && cfg.precondition.random_overwrites > 0) {
    return sim::Status::InvalidInput(
        fmt::format("ftl.precondition.random_overwrites: {} given, but ftl.kind static_block can only be "
                    "preconditioned by a sequential fill (pages are written in order, never overwritten); set 0",
                    cfg.precondition.random_overwrites));
  }
  if (cfg.precondition.method != d.precondition.method) {
    return unused("precondition.method", "it preconditions by a sequential fill of the logical blocks");
  }
  return sim::Status::Ok();
}

// ------------------------------------------------------------------ setup

StaticBlockFtl::StaticBlockFtl(const FtlConfig& cfg, flash::FlashArray* array, sim::EventQueue* queue,
                               const sim::StatGroup& stats)
    : cfg_(cfg),
      g_(array->geometry()),
      array_(array),
      queue_(queue),
      ppb_(g_.pages_per_block),
      planes_(g_.planes()),
      spares_(SparesPerPlane(cfg, g_)),
      erase_limit_(cfg.kinds.Get<StaticBlockConfig>(kKind).erase_limit) {
  const sim::Status st = Validate(cfg, g_);
  CHECK(st.ok()) << st.message();
  plane_seq_ = StripeSequence(g_, cfg.stripe_order).value();
  const uint32_t data_per_plane = g_.blocks_per_plane - spares_;
  area_blocks_ = AreaBlocks(cfg, g_);
  host_open_.assign(cfg.kinds.Get<StaticBlockConfig>(kKind).page_mapped_lanes, kNoBlock);
  const uint64_t pool = area_blocks_ + PoolSpare(cfg, g_);
  logical_blocks_ = static_cast<uint64_t>(planes_) * data_per_plane - (pool - area_blocks_);
  // The pool takes the first stripe positions, the fixed blocks the rest.
  pool_.resize(pool);
  for (uint64_t i = 0; i < pool; ++i) {
    pool_[i].plane = plane_seq_[i % planes_];
    pool_[i].slot_block = static_cast<uint32_t>(i / planes_);
    pool_free_.push_back(static_cast<uint32_t>(i));
  }
  area_map_.assign(area_pages(), kNoPage);
  pool_rmap_.assign(pool * ppb_, kNoPage);
  blocks_.resize(logical_blocks_);
  for (uint64_t b = area_blocks_; b < logical_blocks_; ++b) {
    blocks_[b].slot_block = static_cast<uint32_t>(PositionOf(b) / planes_);
  }
  trimmed_.assign((logical_pages() + 63) / 64, 0);
  erase_count_.assign(g_.blocks(), 0);
  past_limit_.assign(g_.blocks(), 0);
  free_spares_.resize(planes_);
  for (uint32_t p = 0; p < planes_; ++p) {
    // Used from the back: the lowest-numbered spare first.
    for (uint32_t s = g_.blocks_per_plane; s-- > data_per_plane;) free_spares_[p].push_back(s);
  }
  free_blocks_count_ = logical_blocks_ - area_blocks_;
  spares_free_count_ = uint64_t{planes_} * spares_;
  UpdateGauges();
  RegisterStats(stats);
}

StaticBlockFtl::~StaticBlockFtl() {
  if (noflash_event_.scheduled()) queue_->Deschedule(&noflash_event_);
}

void StaticBlockFtl::RegisterStats(const sim::StatGroup& st) {
  st.Add(&host_reads_, "host_reads", "pages", "Host page reads served");
  st.Add(&host_writes_, "host_writes", "pages", "Host pages written (programs)");
  st.Add(&unmapped_reads_, "unmapped_reads", "pages", "Host reads of unmapped pages (no flash access)");
  // Without a page-mapped area the stats (names and descriptions) are
  // those of the S-FTL without one.
  const bool area = area_blocks_ > 0;
  st.Add(&gc_reads_, "gc_reads", "pages",
         area ? "Valid pages read by the page-mapped area's GC" : "Valid pages read by FTL GC (static_block: none, it has no GC)");
  st.Add(&gc_copies_, "gc_copies", "pages",
         area ? "Valid pages programmed by the page-mapped area's GC"
              : "Valid pages programmed by FTL GC (static_block: none, it has no GC)");
  st.Add(&gc_runs_bg_, "gc_runs_bg", "victims",
         area ? "Page-mapped area GC victims collected in the background"
              : "FTL GC victims collected in the background (static_block: none)");
  st.Add(&gc_runs_fg_, "gc_runs_fg", "victims",
         area ? "Page-mapped area GC victims collected while area writes waited"
              : "FTL GC victims collected in the foreground (static_block: none)");
  st.Add(&erases_, "erases", "blocks", "Flash blocks erased");
  st.Add(&trims_, "trims", "pages", "Mapped pages unmapped by trim");
  st.Add(&trim_commands_, "trim_commands", "commands", "Trim calls");
  st.Add(&write_stalls_, "write_stalls", "pages",
         area ? "Host writes that waited for their block's erase or for the page-mapped area's GC"
              : "Host writes that waited for their block's erase");
  st.Add(&write_stall_time_, "write_stall_time", "ns",
         area ? "Time host writes waited for their block's erase or for the page-mapped area's GC"
              : "Time host writes waited for their block's erase");
  st.Add(&free_blocks_, "free_blocks", "blocks",
         area ? "Erased blocks ready to be written from page 0 (spares and free pool blocks included)"
              : "Erased blocks ready to be written from page 0 (spares included)");
  st.Add(&trim_erases_, "trim_erases", "blocks", "Whole-block trims that erased their block");
  st.Add(&dropped_by_trim_, "writes_dropped_by_trim", "pages",
         "Accepted writes still waiting for an erase when a whole-block trim discarded them (not programmed)");
  const sim::StatGroup err = st.Group("write_errors");
  err.Add(&errors_out_of_order_, "out_of_order", "pages", "Writes refused: not the next page of their block");
  err.Add(&errors_overwrite_, "overwrite", "pages", "Writes refused: page already written since the last erase");
  st.Add(&retired_, "retired_blocks", "blocks", "Blocks retired at the erase limit and replaced by a spare");
  st.Add(&spare_blocks_free_, "spare_blocks_free", "blocks", "Spare blocks not yet used to replace a retired one");
  st.Add(&past_limit_count_, "blocks_past_limit", "blocks",
         "Blocks that reached the erase limit with no spare left in their plane (kept in service)");
  st.AddFormula(
      [this] {
        const double host = static_cast<double>(host_writes_.value());
        return host > 0 ? (host + static_cast<double>(gc_copies_.value())) / host : 0.0;
      },
      "write_amplification", "ratio", "(host + GC page programs) / host page programs");
  // Erase counts of the blocks in service (retired blocks and unused spares
  // excluded), computed at dump time.
  auto summary = [this](int which) {
    double sum = 0, sq = 0, lo = 0, hi = 0;
    bool first = true;
    auto add = [&](uint64_t phys) {
      const double e = erase_count_[phys];
      sum += e;
      sq += e * e;
      lo = first ? e : std::min(lo, e);
      hi = std::max(hi, e);
      first = false;
    };
    for (uint64_t b = area_blocks_; b < logical_blocks_; ++b) add(PhysicalBlockOf(b));
    for (uint64_t i = 0; i < pool_.size(); ++i) add(PoolPhysicalBlock(i));
    const double n = static_cast<double>(logical_blocks_ - area_blocks_ + pool_.size());
    const double mean = sum / n;
    switch (which) {
      case 0: return lo;
      case 1: return hi;
      case 2: return mean;
      default: return std::sqrt(std::max(0.0, sq / n - mean * mean));
    }
  };
  st.AddFormula([summary] { return summary(0); }, "erase_count_min", "erases", "Fewest erases of a block in service");
  st.AddFormula([summary] { return summary(1); }, "erase_count_max", "erases", "Most erases of a block in service");
  st.AddFormula([summary] { return summary(2); }, "erase_count_mean", "erases", "Mean erases per block in service");
  st.AddFormula([summary] { return summary(3); }, "erase_count_stddev", "erases",
                "Standard deviation of erases per block in service");
  st.AddFormula([this] { return static_cast<double>(logical_pages()); }, "logical_pages", "pages",
                "Exported logical pages");
  st.AddSeries([this] { return free_blocks_.value(); }, sim::StatGroup::SeriesKind::kValue, "free_blocks", "blocks",
               "Erased blocks ready to be written from page 0");
  st.AddSeries([this] { return static_cast<double>(gc_copies_.value()); }, sim::StatGroup::SeriesKind::kRate,
               "gc_copy_rate", "pages/s",
               area ? "Page-mapped area GC page relocations per second"
                    : "FTL GC page relocations per second (static_block: none)");
  st.AddIntervalRatio([this] { return static_cast<double>(host_writes_.value() + gc_copies_.value()); },
                      [this] { return static_cast<double>(host_writes_.value()); }, "write_amplification", "ratio",
                      "write amplification of the interval: its page programs / its host page programs");
  st.AddSeries([this] { return static_cast<double>(gc_copies_.value()); }, sim::StatGroup::SeriesKind::kDelta,
               "gc_copies", "pages", "GC page relocations in the interval");
  st.AddSeries([this] { return static_cast<double>(erases_.value()); }, sim::StatGroup::SeriesKind::kDelta, "erases",
               "blocks", "Flash blocks erased in the interval");
  const sim::StatGroup pre = st.Group("precondition");
  pre.Add(&pre_host_writes_, "host_writes", "pages", "Host pages written functionally by Precondition");
  pre.Add(&pre_gc_copies_, "gc_copies", "pages", "GC copies made functionally by Precondition (none)");
  pre.Add(&pre_wa_, "write_amplification", "ratio", "Write amplification of the preconditioning writes");
  if (!area) return;
  const sim::StatGroup pm = st.Group("page_mapped");
  pm.Add(&area_host_writes_, "host_writes", "pages", "Host pages written to the page-mapped area (also in host_writes)");
  pm.Add(&area_gc_reads_, "gc_reads", "pages", "Valid pages read by the area's GC (also in gc_reads)");
  pm.Add(&area_gc_copies_, "gc_copies", "pages", "Valid pages programmed by the area's GC (also in gc_copies)");
  pm.Add(&area_gc_stale_, "gc_stale_copies", "pages",
         "GC reads whose page was overwritten or trimmed before its copy was placed (copy skipped)");
  pm.Add(&area_gc_runs_, "gc_runs", "victims", "Pool blocks collected by the area's GC");
  pm.Add(&area_erases_, "erases", "blocks", "Pool blocks erased by the area's GC (also in erases)");
  pm.Add(&area_write_stalls_, "write_stalls", "pages", "Area writes that waited for GC (also in write_stalls)");
  pm.Add(&area_free_blocks_, "free_blocks", "blocks", "Erased pool blocks (also in free_blocks)");
  pm.Add(&area_valid_pages_, "valid_pages", "pages", "Area pages mapped to flash");
  pm.AddFormula([this] { return static_cast<double>(pool_.size()); }, "pool_blocks", "blocks",
                "Physical blocks of the area's pool (its logical blocks plus the extra blocks for GC)");
  pm.AddFormula([this] { return static_cast<double>(area_blocks_); }, "logical_blocks", "blocks",
                "Logical blocks of the area (FixedPlacement::fixed_from)");
}

void StaticBlockFtl::Account(const BlockState& bs, bool was_free) {
  const bool now_free = IsFree(bs);
  if (was_free == now_free) return;
  if (now_free) {
    ++free_blocks_count_;
  } else {
    --free_blocks_count_;
  }
  UpdateGauges();
}

void StaticBlockFtl::UpdateGauges() {
  free_blocks_.Set(static_cast<double>(free_blocks_count_ + spares_free_count_ + pool_free_.size()));
  spare_blocks_free_.Set(static_cast<double>(spares_free_count_));
  area_free_blocks_.Set(static_cast<double>(pool_free_.size()));
  area_valid_pages_.Set(static_cast<double>(area_valid_));
}

// ------------------------------------------------------------------ placement

FlashPlace StaticBlockFtl::PlaceOf(uint64_t logical_block) const {
  CHECK_LT(logical_block, logical_blocks_);
  const flash::FlashAddr a = g_.ToAddr(flash::Ppn{PhysicalBlockOf(logical_block) * ppb_});
  return FlashPlace{a.channel, a.chip, a.die, a.plane, a.block};
}

flash::Ppn StaticBlockFtl::Locate(Lpn l) const {
  CHECK_LT(l.v, logical_pages());
  if (!Mapped(l)) return flash::kInvalidPpn;
  if (l.v < area_pages()) return AreaPpnOf(l);
  return flash::Ppn{PhysicalBlockOf(l.v / ppb_) * ppb_ + l.v % ppb_};
}

uint64_t StaticBlockFtl::PhysicalBlockOf(uint64_t b) const {
  if (b < area_blocks_) return PoolPhysicalBlock(b);
  return static_cast<uint64_t>(PlaneOf(b)) * g_.blocks_per_plane + blocks_[b].slot_block;
}

bool StaticBlockFtl::Mapped(Lpn l) const {
  if (l.v < area_pages()) return area_map_[l.v] != kNoPage;
  const uint64_t b = l.v / ppb_;
  const auto p = static_cast<uint32_t>(l.v % ppb_);
  return p < blocks_[b].write_ptr && (trimmed_[l.v / 64] >> (l.v % 64) & 1) == 0;
}

bool StaticBlockFtl::Idle() const {
  return in_flight_ == 0 && waiting_ == 0 && erasing_ == 0 && noflash_head_ == nullptr &&
         area_wait_head_ == nullptr && !gc_active_;
}

uint64_t StaticBlockFtl::write_errors(FtlStatus s) const {
  switch (s) {
    case FtlStatus::kWriteOutOfOrder: return errors_out_of_order_.value();
    case FtlStatus::kOverwrite: return errors_overwrite_.value();
    case FtlStatus::kOk:
    case FtlStatus::kZoneError: break;  // never from this FTL
  }
  return 0;
}

// ------------------------------------------------------------------ host ops

uint32_t StaticBlockFtl::AcquireSlot() {
  uint32_t i;
  if (free_slots_.empty()) {
    CHECK_LT(slots_.size(), size_t{UINT32_MAX}) << "commands in flight exceed 32-bit slot numbers";
    i = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
    slots_.back().cmd.client = this;
  } else {
    i = free_slots_.back();
    free_slots_.pop_back();
  }
  ++in_flight_;
  return i;
}

void StaticBlockFtl::Submit(FtlOp* op) {
  CHECK(op->lpn.valid() && op->lpn.v < logical_pages()) << "lpn " << op->lpn.v << " out of range";
  op->submit_time = queue_->now();
  op->next = nullptr;
  if (op->lpn.v < area_pages()) {
    SubmitArea(op);
    return;
  }
  const uint64_t b = op->lpn.v / ppb_;
  const auto page = static_cast<uint32_t>(op->lpn.v % ppb_);
  BlockState& bs = blocks_[b];
  if (op->kind == FtlOp::Kind::kRead) {
    if (!Mapped(op->lpn)) {
      unmapped_reads_.Inc();
      CompleteWithoutFlash(op);
      return;
    }
    const uint32_t i = AcquireSlot();
    Slot& s = slots_[i];
    s.op = op;
    s.block = b;
    s.cmd.kind = flash::FlashOpKind::kRead;
    s.cmd.source = flash::CmdSource::kHost;
    s.cmd.ppn = flash::Ppn{PhysicalBlockOf(b) * ppb_ + page};
    s.cmd.tag = Tag(CmdKind::kRead, i);
    ++bs.in_flight;
    array_->Submit(&s.cmd);
    return;
  }
  if (page != bs.write_ptr) {
    op->status = page < bs.write_ptr ? FtlStatus::kOverwrite : FtlStatus::kWriteOutOfOrder;
    (page < bs.write_ptr ? errors_overwrite_ : errors_out_of_order_).Inc();
    CompleteWithoutFlash(op);
    return;
  }
  const bool was_free = IsFree(bs);
  ++bs.write_ptr;
  Account(bs, was_free);
  if (bs.erase_needed || bs.erasing) {
    write_stalls_.Inc();
    ++waiting_;
    if (bs.wait_tail == nullptr) {
      bs.wait_head = op;
    } else {
      bs.wait_tail->next = op;
    }
    bs.wait_tail = op;
    return;
  }
  IssueProgram(op, b);
}

void StaticBlockFtl::IssueProgram(FtlOp* op, uint64_t b) {
  BlockState& bs = blocks_[b];
  const uint32_t i = AcquireSlot();
  Slot& s = slots_[i];
  s.op = op;
  s.block = b;
  s.cmd.kind = flash::FlashOpKind::kProgram;
  s.cmd.source = flash::CmdSource::kHost;
  s.cmd.ppn = flash::Ppn{PhysicalBlockOf(b) * ppb_ + op->lpn.v % ppb_};
  s.cmd.tag = Tag(CmdKind::kProgram, i);
  ++bs.in_flight;
  bs.dirty = true;
  array_->Submit(&s.cmd);
}

void StaticBlockFtl::CompleteWithoutFlash(FtlOp* op) {
  op->finish_time = queue_->now() + cfg_.unmapped_read_latency;
  op->next = nullptr;
  if (noflash_tail_ == nullptr) {
    noflash_head_ = op;
  } else {
    noflash_tail_->next = op;
  }
  noflash_tail_ = op;
  if (!noflash_event_.scheduled()) queue_->Schedule(&noflash_event_, noflash_head_->finish_time);
}

void StaticBlockFtl::OnNoFlashDue() {
  const sim::SimTime now = queue_->now();
  while (noflash_head_ != nullptr && noflash_head_->finish_time <= now) {
    FtlOp* op = noflash_head_;
    noflash_head_ = op->next;
    if (noflash_head_ == nullptr) noflash_tail_ = nullptr;
    op->next = nullptr;
    if (op->kind == FtlOp::Kind::kRead) host_reads_.Inc();
    op->client->OnFtlDone(op);
  }
  if (noflash_head_ != nullptr && !noflash_event_.scheduled()) {
    queue_->Schedule(&noflash_event_, noflash_head_->finish_time);
  }
}

// ------------------------------------------------------------------ trim and erase

void StaticBlockFtl::Trim(Lpn first, uint64_t count) {
  trim_commands_.Inc();
  if (!first.valid() || first.v >= logical_pages()) return;
  const uint64_t end = std::min(logical_pages(), first.v + std::min(count, logical_pages()));
  uint64_t l = first.v;
  if (l < area_pages()) {
    TrimArea(l, std::min(end, area_pages()));
    l = area_pages();
  }
  while (l < end) {
    const uint64_t b = l / ppb_;
    const uint64_t block_start = b * ppb_;
    const uint64_t block_end = block_start + ppb_;
    if (l == block_start && end >= block_end) {
      TrimWholeBlock(b);
      l = block_end;
      continue;
    }
    const uint64_t stop = std::min(end, block_end);
    for (; l < stop; ++l) {
      if (!Mapped(Lpn{l})) continue;
      trimmed_[l / 64] |= uint64_t{1} << (l % 64);
      trims_.Inc();
    }
  }
}

void StaticBlockFtl::TrimWholeBlock(uint64_t b) {
  BlockState& bs = blocks_[b];
  for (uint64_t l = b * ppb_; l < (b + 1) * ppb_; ++l) {
    if (Mapped(Lpn{l})) trims_.Inc();
  }
  for (uint64_t l = b * ppb_; l < (b + 1) * ppb_; l += 64 - l % 64) {
    const uint64_t last = std::min<uint64_t>((b + 1) * ppb_, l + 64 - l % 64);
    const uint64_t n = last - l;
    const uint64_t mask = (n == 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1)) << (l % 64);
    trimmed_[l / 64] &= ~mask;
  }
  // Writes accepted after an earlier trim and still waiting for its erase:
  // their data is trimmed before it reached flash.
  const bool was_free = IsFree(bs);
  while (bs.wait_head != nullptr) {
    FtlOp* op = bs.wait_head;
    bs.wait_head = op->next;
    --waiting_;
    dropped_by_trim_.Inc();
    write_stall_time_.Record((queue_->now() - op->submit_time).ns());
    CompleteWithoutFlash(op);
  }
  bs.wait_tail = nullptr;
  bs.write_ptr = 0;
  if (bs.dirty) {
    bs.erase_needed = true;
    trim_erases_.Inc();
  }
  Account(bs, was_free);
  MaybeErase(b);
}

void StaticBlockFtl::MaybeErase(uint64_t b) {
  BlockState& bs = blocks_[b];
  if (!bs.erase_needed || bs.erasing || bs.in_flight > 0) return;
  bs.erase_needed = false;
  bs.erasing = true;
  bs.dirty = false;
  ++erasing_;
  const uint32_t i = AcquireSlot();
  Slot& s = slots_[i];
  s.op = nullptr;
  s.block = b;
  s.cmd.kind = flash::FlashOpKind::kErase;
  s.cmd.source = flash::CmdSource::kGc;
  s.cmd.ppn = flash::Ppn{PhysicalBlockOf(b) * ppb_};
  s.cmd.tag = Tag(CmdKind::kErase, i);
  array_->Submit(&s.cmd);
}

void StaticBlockFtl::OnEraseDone(uint64_t b) {
  BlockState& bs = blocks_[b];
  const bool was_free = IsFree(bs);
  bs.erasing = false;
  --erasing_;
  erases_.Inc();
  const uint64_t phys = PhysicalBlockOf(b);
  ++erase_count_[phys];
  if (erase_limit_ > 0 && erase_count_[phys] >= erase_limit_ && !past_limit_[phys]) Retire(b);
  Account(bs, was_free);
  if (bs.erase_needed) {  // trimmed again after new programs: erase once more
    MaybeErase(b);
    return;
  }
  while (bs.wait_head != nullptr) {
    FtlOp* op = bs.wait_head;
    bs.wait_head = op->next;
    op->next = nullptr;
    --waiting_;
    write_stall_time_.Record((queue_->now() - op->submit_time).ns());
    IssueProgram(op, b);
  }
  bs.wait_tail = nullptr;
  if (erase_done_hook_) erase_done_hook_(b);
}

void StaticBlockFtl::Retire(uint64_t b) { RetireSlot(PlaneOf(b), &blocks_[b].slot_block); }

void StaticBlockFtl::RetireSlot(uint32_t plane, uint32_t* slot_block) {
  std::vector<uint32_t>& spares = free_spares_[plane];
  const uint64_t phys = uint64_t{plane} * g_.blocks_per_plane + *slot_block;
  if (spares.empty()) {
    past_limit_[phys] = 1;
    past_limit_count_.Inc();
    return;
  }
  // The block was just erased and holds no data: its logical (or pool)
  // block moves to the erased spare and nothing is copied.
  *slot_block = spares.back();
  spares.pop_back();
  --spares_free_count_;
  retired_.Inc();
  UpdateGauges();
}

// ------------------------------------------------------------------ completions

void StaticBlockFtl::OnFlashComplete(flash::FlashCommand* cmd) {
  const auto kind = static_cast<CmdKind>(cmd->tag >> 56);
  const auto i = static_cast<uint32_t>(cmd->tag & 0xFFFFFFFFu);
  CHECK_LT(i, slots_.size()) << "completion of a command this FTL did not submit (tag " << cmd->tag << ")";
  Slot& s = slots_[i];
  const uint64_t b = s.block;
  FtlOp* op = s.op;
  s.op = nullptr;
  if (kind == CmdKind::kGcRead) {  // the slot goes on to the copy's program
    OnGcReadDone(i);
    return;
  }
  free_slots_.push_back(i);
  --in_flight_;
  switch (kind) {
    case CmdKind::kRead:
    case CmdKind::kProgram:
      --blocks_[b].in_flight;
      (kind == CmdKind::kRead ? host_reads_ : host_writes_).Inc();
      op->finish_time = queue_->now();
      MaybeErase(b);
      op->client->OnFtlDone(op);
      return;
    case CmdKind::kErase:
      OnEraseDone(b);
      return;
    case CmdKind::kAreaRead:
    case CmdKind::kAreaProgram:
    case CmdKind::kGcProgram:
      OnAreaDone(kind, s, op);
      return;
    case CmdKind::kPoolErase:
      OnPoolEraseDone(static_cast<uint32_t>(b));
      return;
    case CmdKind::kGcRead:
      break;
  }
  LOG(FATAL) << "completion of a command this FTL did not submit (tag " << cmd->tag << ")";
}

// ------------------------------------------------------------------ page-mapped area

flash::Ppn StaticBlockFtl::AreaPpnOf(Lpn l) const {
  CHECK_LT(l.v, area_pages());
  const uint32_t p = area_map_[l.v];
  if (p == kNoPage) return flash::Ppn{};
  return flash::Ppn{PoolPhysicalBlock(p / ppb_) * ppb_ + p % ppb_};
}

void StaticBlockFtl::SubmitArea(FtlOp* op) {
  const auto l = static_cast<uint32_t>(op->lpn.v);
  if (op->kind == FtlOp::Kind::kRead) {
    const uint32_t p = area_map_[l];
    if (p == kNoPage) {
      unmapped_reads_.Inc();
      CompleteWithoutFlash(op);
      return;
    }
    const uint32_t i = AcquireSlot();
    Slot& s = slots_[i];
    s.op = op;
    s.block = p / ppb_;
    s.cmd.kind = flash::FlashOpKind::kRead;
    s.cmd.source = flash::CmdSource::kHost;
    s.cmd.ppn = flash::Ppn{PoolPhysicalBlock(p / ppb_) * ppb_ + p % ppb_};
    s.cmd.tag = Tag(CmdKind::kAreaRead, i);
    ++pool_[p / ppb_].reads;  // holds off the block's erase until the read is done
    array_->Submit(&s.cmd);
    return;
  }
  // Writes are placed in submission order: one waiting makes later ones wait.
  if (area_wait_head_ != nullptr || !AreaHostReady()) {
    write_stalls_.Inc();
    area_write_stalls_.Inc();
    if (area_wait_tail_ == nullptr) {
      area_wait_head_ = op;
    } else {
      area_wait_tail_->next = op;
    }
    area_wait_tail_ = op;
    MaybeStartGc();
    return;
  }
  IssueAreaWrite(op);
}

bool StaticBlockFtl::AreaHostReady() const {
  for (uint32_t open : host_open_)
    if (open != kNoBlock) return true;  // an open block has a page left
  return pool_free_.size() > kPoolGcReserve;
}

uint32_t* StaticBlockFtl::NextHostLane() {
  const uint32_t lanes = static_cast<uint32_t>(host_open_.size());
  // The next lane in turn that has an open block, or may open one.
  for (uint32_t k = 0; k < lanes; ++k) {
    const uint32_t l = (next_lane_ + k) % lanes;
    if (host_open_[l] != kNoBlock || pool_free_.size() > kPoolGcReserve) {
      next_lane_ = (l + 1) % lanes;
      return &host_open_[l];
    }
  }
  LOG(FATAL) << "page-mapped area: a write issued with no lane ready (AreaHostReady)";
}

uint32_t StaticBlockFtl::AllocPoolPage(uint32_t* open) {
  if (*open == kNoBlock) {
    CHECK(!pool_free_.empty()) << "page-mapped area: no free pool block (the GC reserve should rule this out)";
    // The oldest erased block on a plane no other open host block uses
    // (lanes stripe over planes), else the oldest.
    auto pick = pool_free_.begin();
    for (auto it = pool_free_.begin(); it != pool_free_.end(); ++it) {
      bool used = false;
      for (uint32_t o : host_open_) used = used || (o != kNoBlock && pool_[o].plane == pool_[*it].plane);
      if (!used) {
        pick = it;
        break;
      }
    }
    *open = *pick;
    pool_free_.erase(pick);
    pool_[*open].state = PoolState::kOpen;
  }
  PoolBlock& pb = pool_[*open];
  const uint32_t p = *open * ppb_ + pb.write_ptr;
  if (++pb.write_ptr == ppb_) {
    // Full: no longer open (GC may take it as a victim and free it).
    pb.state = PoolState::kFull;
    *open = kNoBlock;
  }
  return p;
}

void StaticBlockFtl::MapArea(uint32_t l, uint32_t p) {
  const uint32_t old = area_map_[l];
  if (old != kNoPage) {
    CHECK_GT(pool_[old / ppb_].valid, 0u);
    --pool_[old / ppb_].valid;
    pool_rmap_[old] = kNoPage;
    --area_valid_;
  }
  area_map_[l] = p;
  if (p != kNoPage) {
    ++pool_[p / ppb_].valid;
    pool_rmap_[p] = l;
    ++area_valid_;
  }
}

void StaticBlockFtl::IssueAreaWrite(FtlOp* op) {
  const uint32_t p = AllocPoolPage(NextHostLane());
  MapArea(static_cast<uint32_t>(op->lpn.v), p);
  PoolBlock& pb = pool_[p / ppb_];
  ++pb.programs;
  const uint32_t i = AcquireSlot();
  Slot& s = slots_[i];
  s.op = op;
  s.block = p / ppb_;
  s.cmd.kind = flash::FlashOpKind::kProgram;
  s.cmd.source = flash::CmdSource::kHost;
  s.cmd.ppn = flash::Ppn{PoolPhysicalBlock(p / ppb_) * ppb_ + p % ppb_};
  s.cmd.tag = Tag(CmdKind::kAreaProgram, i);
  UpdateGauges();
  array_->Submit(&s.cmd);
  MaybeStartGc();
}

void StaticBlockFtl::TrimArea(uint64_t first, uint64_t end) {
  for (uint64_t l = first; l < end; ++l) {
    if (area_map_[l] == kNoPage) continue;
    MapArea(static_cast<uint32_t>(l), kNoPage);
    trims_.Inc();
  }
  UpdateGauges();
  // A trim may leave a full block with no valid page: a victim for free.
  MaybeStartGc();
}

void StaticBlockFtl::MaybeStartGc() {
  if (gc_active_) return;
  const bool fg = area_wait_head_ != nullptr;
  if (!fg && pool_free_.size() >= kPoolBgFreeBlocks) return;
  // Greedy: the full block with the fewest valid pages; ties to the lowest
  // index, so runs are deterministic.
  uint32_t victim = kNoBlock;
  for (uint32_t i = 0; i < pool_.size(); ++i) {
    if (!PoolCandidate(i)) continue;
    if (victim == kNoBlock || pool_[i].valid < pool_[victim].valid) victim = i;
  }
  // A fully valid victim frees nothing; wait for a program to complete or
  // a page to go stale (kMinPoolSpare ensures one will, see the header).
  if (victim == kNoBlock || pool_[victim].valid == ppb_) return;
  (fg ? gc_runs_fg_ : gc_runs_bg_).Inc();
  area_gc_runs_.Inc();
  gc_active_ = true;
  gc_victim_ = victim;
  gc_scan_ = 0;
  pool_[victim].state = PoolState::kVictim;
  PumpGc();
}

void StaticBlockFtl::PumpGc() {
  const uint32_t v = gc_victim_;
  while (gc_in_flight_ < cfg_.gc_pages_in_flight && gc_scan_ < ppb_) {
    const uint32_t src = v * ppb_ + gc_scan_++;
    const uint32_t l = pool_rmap_[src];
    if (l == kNoPage) continue;
    const uint32_t i = AcquireSlot();
    Slot& s = slots_[i];
    s.op = nullptr;
    s.block = v;
    s.src = src;
    s.lpn = l;
    s.cmd.kind = flash::FlashOpKind::kRead;
    s.cmd.source = flash::CmdSource::kGc;
    s.cmd.ppn = flash::Ppn{PoolPhysicalBlock(v) * ppb_ + src % ppb_};
    s.cmd.tag = Tag(CmdKind::kGcRead, i);
    ++pool_[v].reads;
    ++gc_in_flight_;
    gc_reads_.Inc();
    area_gc_reads_.Inc();
    array_->Submit(&s.cmd);
  }
  MaybeErasePoolVictim();
}

void StaticBlockFtl::OnGcReadDone(uint32_t slot_index) {
  Slot& s = slots_[slot_index];
  --pool_[gc_victim_].reads;
  if (area_map_[s.lpn] != s.src) {
    // Overwritten or trimmed while GC read it: nothing to copy.
    area_gc_stale_.Inc();
    free_slots_.push_back(slot_index);
    --in_flight_;
    --gc_in_flight_;
    PumpGc();
    return;
  }
  const uint32_t dst = AllocPoolPage(&gc_open_);
  MapArea(s.lpn, dst);
  ++pool_[dst / ppb_].programs;
  gc_copies_.Inc();
  area_gc_copies_.Inc();
  s.block = dst / ppb_;
  s.cmd.kind = flash::FlashOpKind::kProgram;
  s.cmd.ppn = flash::Ppn{PoolPhysicalBlock(dst / ppb_) * ppb_ + dst % ppb_};
  s.cmd.tag = Tag(CmdKind::kGcProgram, slot_index);
  UpdateGauges();
  array_->Submit(&s.cmd);
}

void StaticBlockFtl::MaybeErasePoolVictim() {
  if (!gc_active_ || gc_scan_ < ppb_ || gc_in_flight_ > 0) return;
  PoolBlock& pb = pool_[gc_victim_];
  if (pb.state != PoolState::kVictim || pb.reads > 0) return;  // erasing already, or host reads still to finish
  CHECK_EQ(pb.valid, 0u) << "page-mapped area: GC victim " << gc_victim_ << " still holds valid pages";
  pb.state = PoolState::kErasing;
  const uint32_t i = AcquireSlot();
  Slot& s = slots_[i];
  s.op = nullptr;
  s.block = gc_victim_;
  s.cmd.kind = flash::FlashOpKind::kErase;
  s.cmd.source = flash::CmdSource::kGc;
  s.cmd.ppn = flash::Ppn{PoolPhysicalBlock(gc_victim_) * ppb_};
  s.cmd.tag = Tag(CmdKind::kPoolErase, i);
  array_->Submit(&s.cmd);
}

void StaticBlockFtl::OnAreaDone(CmdKind kind, Slot& s, FtlOp* op) {
  PoolBlock& pb = pool_[s.block];
  switch (kind) {
    case CmdKind::kAreaRead:
      --pb.reads;
      host_reads_.Inc();
      op->finish_time = queue_->now();
      MaybeErasePoolVictim();
      op->client->OnFtlDone(op);
      return;
    case CmdKind::kAreaProgram:
      --pb.programs;
      host_writes_.Inc();
      area_host_writes_.Inc();
      op->finish_time = queue_->now();
      MaybeStartGc();  // the block may have become a candidate
      op->client->OnFtlDone(op);
      return;
    case CmdKind::kGcProgram:
      --pb.programs;
      --gc_in_flight_;
      PumpGc();
      return;
    default:
      break;
  }
  LOG(FATAL) << "not a command of the page-mapped area";
}

void StaticBlockFtl::OnPoolEraseDone(uint32_t i) {
  PoolBlock& pb = pool_[i];
  CHECK(pb.state == PoolState::kErasing && i == gc_victim_);
  erases_.Inc();
  area_erases_.Inc();
  const uint64_t phys = PoolPhysicalBlock(i);
  ++erase_count_[phys];
  if (erase_limit_ > 0 && erase_count_[phys] >= erase_limit_ && !past_limit_[phys]) RetireSlot(pb.plane, &pb.slot_block);
  pb.state = PoolState::kFree;
  pb.write_ptr = 0;
  pool_free_.push_back(i);
  gc_active_ = false;
  gc_victim_ = kNoBlock;
  UpdateGauges();
  DrainAreaWaiting();
  MaybeStartGc();
}

void StaticBlockFtl::DrainAreaWaiting() {
  while (area_wait_head_ != nullptr && AreaHostReady()) {
    FtlOp* op = area_wait_head_;
    area_wait_head_ = op->next;
    if (area_wait_head_ == nullptr) area_wait_tail_ = nullptr;
    op->next = nullptr;
    write_stall_time_.Record((queue_->now() - op->submit_time).ns());
    IssueAreaWrite(op);
  }
}

void StaticBlockFtl::PreconditionArea(uint64_t pages) {
  for (uint64_t l = 0; l < pages; ++l) {
    const uint32_t p = AllocPoolPage(NextHostLane());
    MapArea(static_cast<uint32_t>(l), p);
  }
}

std::string StaticBlockFtl::CheckArea() const {
  std::vector<uint32_t> valid(pool_.size(), 0);
  uint64_t mapped = 0;
  for (uint32_t l = 0; l < area_map_.size(); ++l) {
    const uint32_t p = area_map_[l];
    if (p == kNoPage) continue;
    ++mapped;
    if (pool_rmap_[p] != l) return fmt::format("area page {} maps to pool page {}, whose reverse entry is {}", l, p, pool_rmap_[p]);
    if (p % ppb_ >= pool_[p / ppb_].write_ptr) return fmt::format("area page {} maps to unwritten pool page {}", l, p);
    ++valid[p / ppb_];
  }
  for (uint32_t p = 0; p < pool_rmap_.size(); ++p) {
    if (pool_rmap_[p] != kNoPage && area_map_[pool_rmap_[p]] != p) return fmt::format("pool page {} is a stale reverse entry", p);
  }
  for (uint32_t i = 0; i < pool_.size(); ++i) {
    if (valid[i] != pool_[i].valid) return fmt::format("pool block {}: {} valid pages counted, {} mapped", i, pool_[i].valid, valid[i]);
  }
  if (mapped != area_valid_) return fmt::format("{} area pages mapped, {} counted", mapped, area_valid_);
  std::vector<uint8_t> in_free(pool_.size(), 0);
  for (uint32_t i : pool_free_) {
    if (in_free[i]++ != 0) return fmt::format("pool block {} is on the free list twice", i);
    if (pool_[i].state != PoolState::kFree || pool_[i].write_ptr != 0 || pool_[i].valid != 0) {
      return fmt::format("pool block {} is on the free list but not erased and empty", i);
    }
  }
  for (uint32_t i = 0; i < pool_.size(); ++i) {
    if (pool_[i].state == PoolState::kFree && in_free[i] == 0) return fmt::format("free pool block {} is not on the free list", i);
  }
  std::vector<uint32_t> opens = host_open_;
  opens.push_back(gc_open_);
  for (uint32_t open : opens) {
    if (open != kNoBlock && (pool_[open].state != PoolState::kOpen || in_free[open] != 0)) {
      return fmt::format("open pool block {} is not open", open);
    }
  }
  return "";
}

// ------------------------------------------------------------------ precondition

void StaticBlockFtl::Precondition(const PreconditionSpec& spec) {
  CHECK(Idle()) << "Precondition requires an idle FTL";
  CHECK_EQ(spec.random_overwrites, 0.0) << "static_block preconditions by a sequential fill only (Validate)";
  const auto pages = static_cast<uint64_t>(std::floor(spec.fill_fraction * static_cast<double>(logical_pages())));
  uint64_t done = std::min(pages, area_pages());
  PreconditionArea(done);
  for (uint64_t b = area_blocks_; b < logical_blocks_ && done < pages; ++b) {
    BlockState& bs = blocks_[b];
    CHECK(IsFree(bs));
    bs.write_ptr = static_cast<uint32_t>(std::min<uint64_t>(ppb_, pages - done));
    bs.dirty = true;
    done += bs.write_ptr;
    Account(bs, true);
  }
  pre_host_writes_.Add(static_cast<double>(done));
  pre_wa_.Set(done > 0 ? 1.0 : 0.0);
  UpdateGauges();
}

// ------------------------------------------------------------------ registration

namespace {
std::unique_ptr<Ftl> Make(const FtlConfig& cfg, flash::FlashArray* array, sim::EventQueue* queue,
                          const sim::StatGroup& stats) {
  return std::make_unique<StaticBlockFtl>(cfg, array, queue, stats);
}
}  // namespace

const sim::Registrar<FtlKindInfo> kRegisteredStaticBlock{
    {kKind,
     "static block-mapped S-FTL of ParaFS: fixed logical-to-physical block map striped over channels, pages "
     "written in order, whole-block trim erases, no FTL GC",
     &StaticBlockFtl::Validate, &StaticBlockFtl::LogicalPages, &Make,
     sim::ImplSection::Of<StaticBlockConfig>(kKind, "static block-mapped FTL (ftl.kind: static_block)"),
     &StaticBlockFtl::MemoryBytes, /*fixed_placement=*/true, &StaticBlockFtl::AreaBlocks}};

}  // namespace ftl
