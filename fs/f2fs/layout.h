// Volume layout as mkfs.f2fs computes it (f2fs-tools mkfs/f2fs_format.c,
// f2fs_prepare_super_block, and get_best_overprovision):
//
//   | SB (2 copies, padded to a zone) | CP (2 segs) | SIT (2 copies) |
//   | NAT (2 copies, interleaved per segment) | SSA (padded to a zone) | Main |
//   [ | journal area (durability mode `journal`) ]
//
//   segment_count   = (device bytes - zone-aligned SB area) / 2 MiB
//   SIT segments    = 2 * ceil(ceil(segment_count / 55) / 512)
//   NAT segments    = 2 * ceil(ceil((segment_count - CP - SIT) * 512 / 455) / 512),
//                     capped so the NAT+SIT version bitmaps fit the CP block
//   SSA segments    = ceil(((segment_count - CP - SIT - NAT) + 1) / 512), then
//                     padded so CP..SSA is a whole number of zones
//   main segments   = rest, rounded down to whole sections
//   overprovision   = the ratio maximising user space when not given:
//                     candidates 10..95 step 5 % below 256 main segments,
//                     0.01..10 step 0.01 % otherwise;
//                     reserved = (2 * (100 / ovp + 1) + 6) * segs_per_sec,
//                     ovp segs = (main - reserved) * ovp / 100 + reserved,
//                     user blocks = (main - ovp segs) * 512.
// Initial cursegs (non-heap allocation): hot node 0, warm node 1, cold node
// 2, hot data 3, cold data 4, warm data 5 (in zone units).
#pragma once

#include <array>
#include <cstdint>

#include "fs/f2fs/on_disk.h"
#include "sim/status.h"

namespace fs::f2fs {

struct LayoutParams {
  uint64_t device_bytes = 0;
  uint32_t segs_per_sec = 1;
  uint32_t secs_per_zone = 1;
  double overprovision_pct = 0;  // 0: choose as mkfs does
  // Regions of the allocation policy (ParaFS: one per flash channel), each
  // with its own six logs: mkfs's reserve counts one free section per
  // log (the 6 of (2 x (100 / ovp + 1) + 6) x segs_per_sec) for all of them.
  uint32_t regions = 1;
  // A metadata journal area (durability mode `journal`) at the end of the
  // device, in 4 KiB blocks; F2FS lays itself out on the blocks before it.
  uint32_t journal_blocks = 0;
  // The journal area at the head instead: from the first zone boundary
  // after the superblocks, segment 0 at the next zone boundary after it. On
  // a device of fixed placement (the static block-mapped FTL) only the
  // head, the FTL's page-mapped area, may be rewritten in place, as the
  // journal ring is.
  bool journal_at_head = false;
  // A zoned device (mkfs.f2fs -m): the block where its first sequential
  // zone starts, where the main area must start (0: not zoned). The
  // metadata before it must fit in the conventional area; segment 0 is
  // segment-aligned (not zone-aligned), and a section is a zone
  // (segs_per_sec = zone size / 2 MiB).
  uint64_t zoned_main_block = 0;
  // Segments of a section that lie within the zone's capacity
  // (f2fs_usable_segs_in_sec); 0 = all.
  uint32_t usable_segs_per_sec = 0;
};

struct Layout {
  // Device blocks F2FS uses: every block with the journal at the head; the
  // journal area follows them otherwise.
  uint64_t block_count = 0;
  uint32_t journal_blocks = 0;  // LayoutParams::journal_blocks, from block journal_blkaddr()
  bool journal_at_head = false;  // LayoutParams::journal_at_head
  uint64_t journal_start = 0;    // first block of the journal area
  uint32_t segs_per_sec = 1;
  uint32_t secs_per_zone = 1;
  uint32_t segment0_blkaddr = 0;  // = cp_blkaddr
  uint32_t segment_count = 0;     // segments from segment0 to the end
  uint32_t segment_count_ckpt = 2;
  uint32_t segment_count_sit = 0;
  uint32_t segment_count_nat = 0;
  uint32_t segment_count_ssa = 0;
  uint32_t segment_count_main = 0;
  uint32_t section_count = 0;
  uint32_t cp_blkaddr = 0;
  uint32_t sit_blkaddr = 0;
  uint32_t nat_blkaddr = 0;
  uint32_t ssa_blkaddr = 0;
  uint32_t main_blkaddr = 0;
  uint32_t sit_blocks = 0;  // SIT blocks per copy (covering the main segments)
  uint32_t nat_blocks = 0;  // NAT blocks per copy
  uint32_t max_nid = 0;
  double overprovision_pct = 0;
  uint32_t regions = 1;  // LayoutParams::regions
  uint32_t reserved_segments = 0;
  uint32_t overprov_segments = 0;
  uint64_t user_block_count = 0;
  std::array<SegNo, kNumPersistentLogs> init_curseg{};  // by LogType
  // Zoned (LayoutParams::zoned_main_block): sections are the device's
  // sequential zones, of which usable_segs_per_sec segments are writable.
  uint64_t zoned_main_block = 0;
  uint32_t usable_segs_per_sec = 1;  // = segs_per_sec unless zoned with capacity < size
  bool zoned() const { return zoned_main_block != 0; }

  uint64_t journal_blkaddr() const { return journal_start; }
  uint64_t total_blocks() const { return journal_at_head ? block_count : block_count + journal_blocks; }
  uint32_t blocks_per_sec() const { return segs_per_sec * kBlocksPerSeg; }
  uint32_t main_blocks() const { return segment_count_main * kBlocksPerSeg; }
  uint32_t reserved_sections() const { return reserved_segments / usable_segs_per_sec; }
  bool InMain(BlockAddr a) const { return a.v >= main_blkaddr && a.v < main_blkaddr + main_blocks(); }
  SegNo SegOf(BlockAddr a) const { return SegNo{(a.v - main_blkaddr) / kBlocksPerSeg}; }
  uint32_t OffInSeg(BlockAddr a) const { return (a.v - main_blkaddr) % kBlocksPerSeg; }
  BlockAddr SegStart(SegNo s) const { return BlockAddr{main_blkaddr + s.v * kBlocksPerSeg}; }
  uint32_t SecOf(SegNo s) const { return s.v / segs_per_sec; }
  uint32_t ZoneOfSec(uint32_t sec) const { return sec / secs_per_zone; }
  BlockAddr CpPackAddr(int pack) const { return BlockAddr{cp_blkaddr + static_cast<uint32_t>(pack) * kBlocksPerSeg}; }
  // Address of NAT block `i` in copy `copy` (copies interleave per segment).
  BlockAddr NatBlockAddr(uint32_t i, bool copy) const {
    const uint32_t seg = i / kBlocksPerSeg, off = i % kBlocksPerSeg;
    return BlockAddr{nat_blkaddr + (2 * seg + (copy ? 1 : 0)) * kBlocksPerSeg + off};
  }
  BlockAddr SitBlockAddr(uint32_t i, bool copy) const {
    return BlockAddr{sit_blkaddr + (copy ? segment_count_sit / 2 * kBlocksPerSeg : 0) + i};
  }
  BlockAddr SsaBlockAddr(SegNo s) const { return BlockAddr{ssa_blkaddr + s.v}; }
};

// The layout mkfs.f2fs would create on a device of params.device_bytes.
// InvalidInput when the device is too small (fewer than 7 zones, or main
// segments cannot hold the reserved segments), or parameters are out of range.
sim::Result<Layout> ComputeLayout(const LayoutParams& params);
// The parameters mkfs laid out the volume of superblock `sb` with.
LayoutParams LayoutParamsOf(const SuperBlock& sb);

}  // namespace fs::f2fs
