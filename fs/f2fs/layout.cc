#include "fs/f2fs/layout.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace fs::f2fs {

namespace {

uint32_t CeilDiv(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

// f2fs-tools: (2 * (100 / ovp + 1) + NR_CURSEG_TYPE) * segs_per_sec, with
// NR_CURSEG_TYPE (6) logs in each of `regions` regions.
double ReservedFor(double ovp, uint32_t segs_per_sec, uint32_t regions) {
  const double r = (2 * (100 / ovp + 1) + 6.0 * regions) * segs_per_sec;
  // Keep section alignment.
  return std::ceil(r / segs_per_sec) * segs_per_sec;
}

double BestOverprovision(uint32_t main_segs, uint32_t segs_per_sec, uint32_t regions) {
  double candidate, end, diff;
  if (main_segs < 256) {
    candidate = 10;
    end = 95;
    diff = 5;
  } else {
    candidate = 0.01;
    end = 10;
    diff = 0.01;
  }
  double max_ovp = 0, max_space = 0;
  // Integer steps avoid accumulating floating-point error in the candidate.
  const int steps = static_cast<int>(std::lround((end - candidate) / diff));
  for (int i = 0; i <= steps; ++i) {
    const double c = candidate + i * diff;
    const double reserved = ReservedFor(c, segs_per_sec, regions);
    const double ovp = (main_segs - reserved) * c / 100;
    if (ovp < 0) continue;
    const double space = main_segs - reserved - ovp;
    if (max_space < space) {
      max_space = space;
      max_ovp = c;
    }
  }
  return max_ovp;
}

}  // namespace

LayoutParams LayoutParamsOf(const SuperBlock& sb) {
  LayoutParams lp;
  lp.device_bytes = (sb.block_count + (sb.journal_at_head ? 0 : sb.journal_blocks)) * kBlockSize;
  lp.segs_per_sec = sb.segs_per_sec;
  lp.secs_per_zone = sb.secs_per_zone;
  lp.overprovision_pct = sb.overprovision_pct;
  lp.regions = sb.regions;
  lp.journal_blocks = sb.journal_blocks;
  lp.journal_at_head = sb.journal_at_head;
  lp.zoned_main_block = sb.zoned_main_block;
  lp.usable_segs_per_sec = sb.usable_segs_per_sec;
  return lp;
}

sim::Result<Layout> ComputeLayout(const LayoutParams& p) {
  if (p.segs_per_sec == 0 || p.secs_per_zone == 0)
    return sim::Status::InvalidInput("segs_per_sec and secs_per_zone must be >= 1");
  if (p.regions == 0) return sim::Status::InvalidInput("regions must be >= 1");
  if (p.overprovision_pct < 0 || p.overprovision_pct >= 100)
    return sim::Status::InvalidInput(fmt::format("overprovision {}% out of range [0, 100)", p.overprovision_pct));
  if (uint64_t{p.journal_blocks} * kBlockSize * 2 > p.device_bytes)
    return sim::Status::InvalidInput(fmt::format("a journal of {} blocks takes more than half of a device of {} bytes",
                                                 p.journal_blocks, p.device_bytes));
  Layout l;
  l.segs_per_sec = p.segs_per_sec;
  l.secs_per_zone = p.secs_per_zone;
  const bool head = p.journal_at_head && p.journal_blocks > 0;
  const uint64_t device_bytes = head ? p.device_bytes : p.device_bytes - uint64_t{p.journal_blocks} * kBlockSize;
  l.block_count = device_bytes / kBlockSize;
  l.journal_blocks = p.journal_blocks;
  l.journal_at_head = head;
  l.journal_start = l.block_count;
  const uint64_t seg_bytes = uint64_t{kBlockSize} * kBlocksPerSeg;
  const bool zoned = p.zoned_main_block != 0;
  if (p.usable_segs_per_sec > p.segs_per_sec)
    return sim::Status::InvalidInput(fmt::format("{} usable segments of a section of {}", p.usable_segs_per_sec,
                                                 p.segs_per_sec));
  l.zoned_main_block = p.zoned_main_block;
  l.usable_segs_per_sec = p.usable_segs_per_sec > 0 ? p.usable_segs_per_sec : p.segs_per_sec;
  // Zoned: the metadata lives in the conventional area, segment-aligned;
  // zone alignment applies to the main area only (its start is given).
  const uint64_t zone_bytes = zoned ? seg_bytes : seg_bytes * p.segs_per_sec * p.secs_per_zone;
  auto zone_align = [&](uint64_t bytes) { return (bytes + zone_bytes - 1) / zone_bytes * zone_bytes; };
  // The two superblocks occupy the start; segment 0 begins at the next zone
  // (after the journal area, if it is at the head).
  uint64_t zone_align_start = zone_align(2 * kBlockSize);
  if (head) {
    l.journal_start = zone_align_start / kBlockSize;
    zone_align_start = zone_align(zone_align_start + uint64_t{p.journal_blocks} * kBlockSize);
  }
  if (device_bytes <= zone_align_start)
    return sim::Status::InvalidInput(fmt::format("device of {} bytes is too small for F2FS", device_bytes));
  l.segment_count = static_cast<uint32_t>((device_bytes - zone_align_start) / seg_bytes);
  l.segment0_blkaddr = static_cast<uint32_t>(zone_align_start / kBlockSize);
  l.cp_blkaddr = l.segment0_blkaddr;
  l.segment_count_ckpt = 2;
  l.sit_blkaddr = l.segment0_blkaddr + l.segment_count_ckpt * kBlocksPerSeg;

  const uint32_t blocks_for_sit = CeilDiv(l.segment_count, kSitEntriesPerBlock);
  const uint32_t sit_segments = CeilDiv(blocks_for_sit, kBlocksPerSeg);
  l.segment_count_sit = sit_segments * 2;
  l.nat_blkaddr = l.sit_blkaddr + l.segment_count_sit * kBlocksPerSeg;

  uint64_t avail = uint64_t{l.segment_count - (l.segment_count_ckpt + l.segment_count_sit)} * kBlocksPerSeg;
  const uint32_t blocks_for_nat = CeilDiv(avail, kNatEntriesPerBlock);
  uint32_t nat_segments = CeilDiv(blocks_for_nat, kBlocksPerSeg);
  // The NAT and SIT version bitmaps share the CP block (4092-byte checksum
  // offset minus the fixed 192-byte checkpoint header).
  const uint32_t sit_bitmap_bytes = (l.segment_count_sit / 2 * kBlocksPerSeg) / 8;
  const int64_t max_nat_bitmap = 4092 - 192 + 1 - static_cast<int64_t>(sit_bitmap_bytes);
  const uint32_t max_nat_segments = static_cast<uint32_t>(std::max<int64_t>(1, max_nat_bitmap * 8 / kBlocksPerSeg));
  nat_segments = std::min(nat_segments, max_nat_segments);
  l.segment_count_nat = nat_segments * 2;
  l.ssa_blkaddr = l.nat_blkaddr + l.segment_count_nat * kBlocksPerSeg;

  avail = uint64_t{l.segment_count - (l.segment_count_ckpt + l.segment_count_sit + l.segment_count_nat)} *
          kBlocksPerSeg;
  const uint64_t blocks_for_ssa = avail / kBlocksPerSeg + 1;
  l.segment_count_ssa = CeilDiv(blocks_for_ssa, kBlocksPerSeg);
  const uint32_t meta = l.segment_count_ckpt + l.segment_count_sit + l.segment_count_nat + l.segment_count_ssa;
  const uint32_t zone_segs = p.segs_per_sec * p.secs_per_zone;
  if (zoned) {
    // The SSA reaches up to the first sequential zone.
    const uint64_t meta_end = uint64_t{l.segment0_blkaddr} + uint64_t{meta} * kBlocksPerSeg;
    if (meta_end > p.zoned_main_block || (p.zoned_main_block - l.segment0_blkaddr) % kBlocksPerSeg != 0)
      return sim::Status::InvalidInput(fmt::format(
          "the metadata (superblocks{}, checkpoint, SIT, NAT, SSA) takes {} MiB before the first zone; the "
          "conventional area holds {} MiB{}: it must hold the metadata, in whole 2 MiB segments",
          head ? ", journal" : "", (meta_end * kBlockSize + (1 << 20) - 1) >> 20,
          (p.zoned_main_block * kBlockSize) >> 20,
          (p.zoned_main_block - l.segment0_blkaddr) % kBlocksPerSeg != 0 ? " (not whole segments after them)" : ""));
    l.segment_count_ssa += static_cast<uint32_t>((p.zoned_main_block - meta_end) / kBlocksPerSeg);
  } else if (meta % zone_segs) {
    l.segment_count_ssa += zone_segs - meta % zone_segs;
  }
  l.main_blkaddr = l.ssa_blkaddr + l.segment_count_ssa * kBlocksPerSeg;
  const uint32_t meta_total =
      l.segment_count_ckpt + l.segment_count_sit + l.segment_count_nat + l.segment_count_ssa;
  if (l.segment_count <= meta_total)
    return sim::Status::InvalidInput(fmt::format("device of {} bytes leaves no main area", device_bytes));
  l.segment_count_main = l.segment_count - meta_total;
  l.section_count = l.segment_count_main / p.segs_per_sec;
  l.segment_count_main = l.section_count * p.segs_per_sec;
  const uint32_t total_zones = l.segment_count_main / (zoned ? p.segs_per_sec * p.secs_per_zone : zone_segs);
  if (total_zones <= 6)
    return sim::Status::InvalidInput(
        fmt::format("device of {} bytes gives {} zones; F2FS needs at least 7", device_bytes, total_zones));

  l.sit_blocks = CeilDiv(l.segment_count_main, kSitEntriesPerBlock);
  l.nat_blocks = nat_segments * kBlocksPerSeg;
  l.max_nid = l.nat_blocks * kNatEntriesPerBlock;

  // With a zone capacity below its size only the usable segments hold
  // data: space and reserves count those (f2fs_usable_segs_in_sec).
  const uint32_t usable_main = l.section_count * l.usable_segs_per_sec;
  l.overprovision_pct = p.overprovision_pct > 0 ? p.overprovision_pct
                                                : BestOverprovision(usable_main, l.usable_segs_per_sec, p.regions);
  if (l.overprovision_pct <= 0)
    return sim::Status::InvalidInput(
        fmt::format("device of {} bytes is too small: no over-provisioning ratio fits", device_bytes));
  l.regions = p.regions;
  l.reserved_segments = static_cast<uint32_t>(ReservedFor(l.overprovision_pct, l.usable_segs_per_sec, p.regions));
  if (usable_main < 2 || usable_main - 2 < l.reserved_segments)
    return sim::Status::InvalidInput(fmt::format(
        "device of {} bytes is too small: {} main segments cannot hold {} reserved segments", device_bytes,
        usable_main, l.reserved_segments));
  l.overprov_segments =
      static_cast<uint32_t>((usable_main - l.reserved_segments) * l.overprovision_pct / 100) + l.reserved_segments;
  if (l.overprov_segments >= usable_main)
    return sim::Status::InvalidInput(fmt::format("overprovision {}% leaves no user space", l.overprovision_pct));
  l.user_block_count = uint64_t{usable_main - l.overprov_segments} * kBlocksPerSeg;

  const uint32_t z = zone_segs;
  l.init_curseg[static_cast<int>(LogType::kHotNode)] = SegNo{0};
  l.init_curseg[static_cast<int>(LogType::kWarmNode)] = SegNo{1 * z};
  l.init_curseg[static_cast<int>(LogType::kColdNode)] = SegNo{2 * z};
  l.init_curseg[static_cast<int>(LogType::kHotData)] = SegNo{3 * z};
  l.init_curseg[static_cast<int>(LogType::kColdData)] = SegNo{4 * z};
  l.init_curseg[static_cast<int>(LogType::kWarmData)] = SegNo{5 * z};
  return l;
}

}  // namespace fs::f2fs
