// ParaFS's 2-D allocation (Zhang, Shu, Lu, ATC'16; seed 002): the file
// system sees the flash layout through a device of fixed placement (the
// S-FTL, ftl.kind static_block) and aligns itself to it:
//   region  = one flash channel,
//   section = one flash block (fs.f2fs.mkfs.segs_per_sec sections of 2 MiB
//             segments make one flash block),
//   stripe  = one flash page: a log type writes one flash page's worth of
//             4 KiB blocks in a region, then moves to the next region.
// Each region keeps its own hot/warm/cold node and data logs, so data of
// one temperature is grouped inside every flash block (grouping) while
// consecutive pages of a write go to different channels (parallelism).
//
// Dispatch (fs.f2fs.parafs_2d.dispatch), the region a log's next flash
// page goes to:
//   round_robin  the next channel, per log type (ParaFS Base);
//   least_busy   the parallelism-aware dispatcher: the channel with the
//                least queued work W = read_weight x bytes read +
//                write_weight x bytes written (allocated and not yet
//                completed), ties to the next in round-robin order.
// Reading of the design where the slides are silent:
// - W counts the file system's own I/O (what it allocated or submitted and
//   has not seen complete), the only view of a channel's queue it has.
// - Default weights: read 1, write 8 — the ParaFS device's per-channel
//   read/write bandwidth ratio (49.84 / 6.55 MB/s = 7.6), so W is about
//   the time the queued work keeps the channel busy.
// - A region's log moves to the region's first free section after its
//   current one. A region with no free section lends one from the nearest
//   region after it (the blocks land on that region's channel); cleaning
//   per region is what keeps lending rare.
// - LFS only: the S-FTL cannot overwrite a page in place, so no SSR and no
//   IPU (fs.f2fs.mode must be lfs; ATGC's in-memory log is refused).
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "fs/f2fs/parafs_2d_allocation_policy.h"

#include "fs/f2fs/allocation_policy.h"
#include "fs/f2fs/segment_manager.h"
#include "sim/registry.h"

namespace fs::f2fs {

void Parafs2dConfig::Describe(sim::Schema<Parafs2dConfig>& s) {
  s.Choice("dispatch", &Parafs2dConfig::dispatch, "round_robin", {"round_robin", "least_busy"},
           "Region of a log's next flash page: the next channel, or the least busy (parallelism-aware dispatch)");
  s.Param("read_weight", &Parafs2dConfig::read_weight, "1", "least_busy: weight of a queued byte read (W_read)")
      .Range(0, 1e6);
  s.Param("write_weight", &Parafs2dConfig::write_weight, "8",
          "least_busy: weight of a queued byte written (W_write); default: the ParaFS device's read/write "
          "bandwidth ratio per channel, 49.84/6.55 MB/s")
      .Range(0, 1e6);
  s.Choice("gc_threads", &Parafs2dConfig::gc_threads, "single", {"single", "per_region"},
           "Cleaning threads: one for the volume (F2FS's), or one per region plus a manager that checkpoints "
           "after each pass (ParaFS's multi-threaded GC; cleaner.h)");
}

namespace {

// More regions would not fit their logs' summaries in a checkpoint pack
// (3 data + 3 node summary blocks per region at umount, in one segment).
constexpr uint32_t kMaxRegions = 64;


class Parafs2dAllocationPolicy final : public AllocationPolicy {
 public:
  Parafs2dAllocationPolicy(const AllocationPolicyContext& ctx, uint32_t regions, std::vector<uint32_t> region_of_sec,
                           uint32_t stripe_blocks)
      : active_logs_(ctx.cfg->active_logs),
        params_(ctx.cfg->impl_configs.Get<Parafs2dConfig>("parafs_2d")),
        load_(ctx.load),
        layout_(*ctx.layout),
        regions_(regions),
        region_of_sec_(std::move(region_of_sec)),
        stripe_blocks_(stripe_blocks) {
    by_region_.resize(regions_);
    for (uint32_t sec = 0; sec < region_of_sec_.size(); ++sec) by_region_[region_of_sec_[sec]].push_back(sec);
  }

  LogType DataLog(const DataPlacement& p) const override { return KernelDataLog(p, active_logs_, /*atgc=*/false); }
  LogType NodeLog(const NodePlacement& p) const override { return KernelNodeLog(p, active_logs_); }
  bool NeedSsr(const SegmentManager&, const SpacePressure&) const override { return false; }

  SegmentChoice NextSegment(const SegmentManager& sm, LogType t, uint32_t region, bool /*need_ssr*/) const override {
    const SegNo old = sm.curseg(t, region).segno;
    const uint32_t sps = layout_.segs_per_sec;
    // The next segment of the current section (a flash block of several
    // segments is written through before the log moves on).
    if (old != kNullSegNo && sps > 1) {
      const uint32_t s = old.v + 1;
      if (s % sps != 0 && s < sm.main_segments() && sm.IsFree(SegNo{s})) return SegmentChoice{SegNo{s}, false};
    }
    const uint32_t old_sec = old != kNullSegNo ? layout_.SecOf(old) : 0;
    for (uint32_t k = 0; k < regions_; ++k) {
      const uint32_t r = (region + k) % regions_;
      const std::vector<uint32_t>& secs = by_region_[r];
      if (secs.empty()) continue;
      // From the first section of the region after the current one.
      size_t start = 0;
      if (k == 0 && old != kNullSegNo)
        start = static_cast<size_t>(std::upper_bound(secs.begin(), secs.end(), old_sec) - secs.begin());
      for (size_t i = 0; i < secs.size(); ++i) {
        const uint32_t sec = secs[(start + i) % secs.size()];
        if (sm.SectionFree(sec)) return SegmentChoice{SegNo{sec * sps}, false};
      }
    }
    return SegmentChoice{kNullSegNo, false};
  }

  uint32_t regions() const override { return regions_; }
  uint32_t RegionOfSection(uint32_t sec) const override { return region_of_sec_[sec]; }
  uint32_t StripeBlocks() const override { return stripe_blocks_; }
  uint32_t NextRegion(const SegmentManager&, LogType, uint32_t cur) const override {
    if (params_.dispatch != "least_busy" || load_ == nullptr) return (cur + 1) % regions_;
    uint32_t best = (cur + 1) % regions_;
    double best_w = Work(best);
    for (uint32_t k = 2; k <= regions_; ++k) {
      const uint32_t r = (cur + k) % regions_;
      const double w = Work(r);
      if (w < best_w) {
        best = r;
        best_w = w;
      }
    }
    return best;
  }

 private:
  double Work(uint32_t r) const {
    return params_.read_weight * static_cast<double>(load_->ReadBytes(r)) +
           params_.write_weight * static_cast<double>(load_->WriteBytes(r));
  }

  const uint32_t active_logs_;
  const Parafs2dConfig params_;
  const RegionLoad* load_;
  const Layout layout_;
  const uint32_t regions_;
  const std::vector<uint32_t> region_of_sec_;
  const uint32_t stripe_blocks_;
  std::vector<std::vector<uint32_t>> by_region_;  // sections of each region, ascending
};

sim::Result<std::unique_ptr<AllocationPolicy>> Make(const AllocationPolicyContext& ctx) {
  const F2fsConfig& cfg = *ctx.cfg;
  const Layout& l = *ctx.layout;
  if (ctx.device && !ctx.device->fixed)
    return sim::Status::InvalidInput(
        "fs.f2fs.allocation: parafs_2d needs a device that exposes its flash placement (ftl.kind: static_block); "
        "this device places data itself");
  if (cfg.mode != "lfs")
    return sim::Status::InvalidInput(
        "fs.f2fs.mode: the parafs_2d allocation writes out of place only (the static block-mapped FTL cannot "
        "overwrite a page): set mode: lfs");
  if (cfg.atgc) return sim::Status::InvalidInput("fs.f2fs.atgc: the parafs_2d allocation has no ATGC log");
  if (!ctx.device) {
    // No device (a unit test of the registry): one region, no striping.
    return std::unique_ptr<AllocationPolicy>(std::make_unique<Parafs2dAllocationPolicy>(
        ctx, 1, std::vector<uint32_t>(l.section_count, 0), kBlocksPerSeg));
  }
  const ssd::DeviceLayout& d = *ctx.device;
  const uint64_t flash_block = uint64_t{d.page_size} * d.pages_per_block;
  const uint64_t sec_bytes = uint64_t{l.blocks_per_sec()} * kBlockSize;
  if (sec_bytes != flash_block) {
    const uint64_t seg_bytes = uint64_t{kBlocksPerSeg} * kBlockSize;
    std::string hint = flash_block % seg_bytes == 0
                           ? fmt::format("; set segs_per_sec: {}", flash_block / seg_bytes)
                           : fmt::format("; a flash block of {} B is not a whole number of 2 MiB segments", flash_block);
    return sim::Status::InvalidInput(fmt::format(
        "fs.f2fs.mkfs.segs_per_sec: parafs_2d maps one section to one flash block: the flash block is {} B, the "
        "section {} B{}",
        flash_block, sec_bytes, hint));
  }
  if (uint64_t{l.main_blkaddr} * kBlockSize % flash_block != 0)
    return sim::Status::InvalidInput(fmt::format(
        "fs.f2fs.mkfs.segs_per_sec: the main area starts at byte {}, not on a flash block boundary ({} B)",
        uint64_t{l.main_blkaddr} * kBlockSize, flash_block));
  // The metadata area before main_blkaddr is updated in place: it must be
  // the device's page-mapped area exactly (blocks [0, fixed_from())), and
  // the main area fixed blocks.
  const uint64_t main_block = uint64_t{l.main_blkaddr} * kBlockSize / flash_block;
  if (d.fixed->fixed_from() != main_block)
    return sim::Status::InvalidInput(fmt::format(
        "ftl.static_block.page_mapped: F2FS updates its metadata area (the {} flash blocks before its main "
        "area{}) in place and writes the main area block by block, so the device's page-mapped area must be "
        "exactly those blocks; it is {} blocks: set page_mapped: {}",
        main_block, l.journal_at_head ? ", its journal area included" : "", d.fixed->fixed_from(),
        sim::internal::FormatBytes(sim::Bytes{main_block * flash_block})));
  if (d.channels < 1 || d.channels > kMaxRegions)
    return sim::Status::InvalidInput(fmt::format(
        "fs.f2fs.allocation: parafs_2d takes one region per flash channel, at most {}; the device has {}",
        kMaxRegions, d.channels));
  std::vector<uint32_t> region_of_sec(l.section_count);
  const uint64_t first_block = uint64_t{l.main_blkaddr} * kBlockSize / flash_block;
  for (uint32_t sec = 0; sec < l.section_count; ++sec) {
    const ssd::FlashPlace p = d.fixed->PlaceOf(first_block + sec);
    if (p.channel >= d.channels)
      return sim::Status::InvalidInput(fmt::format("device placement puts logical block {} on channel {} of {}",
                                                   first_block + sec, p.channel, d.channels));
    region_of_sec[sec] = p.channel;
  }
  const uint32_t stripe_blocks = std::max<uint32_t>(1, d.page_size / kBlockSize);
  return std::unique_ptr<AllocationPolicy>(
      std::make_unique<Parafs2dAllocationPolicy>(ctx, d.channels, std::move(region_of_sec), stripe_blocks));
}

}  // namespace

const sim::Registrar<AllocationPolicyInfo> kRegisteredParafs2d{{
    "parafs_2d",
    "ParaFS's 2-D allocation: regions = flash channels of a fixed-placement device, section = flash block, "
    "temperature logs per region, each log striped flash page by flash page over the regions (LFS only)",
    &Make,
    sim::ImplSection::Of<Parafs2dConfig>("parafs_2d", "ParaFS 2-D allocation (fs.f2fs.allocation: parafs_2d)")}};

}  // namespace fs::f2fs
