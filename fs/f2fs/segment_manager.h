// SegmentManager: the in-memory SIT, segment states, active logs (cursegs)
// and segment summaries (SSA) of the main area, and block allocation.
// Synchronous bookkeeping only; the F2fs issues the I/O.
//
// Segment states (derived, as in the kernel's free/dirty seglists):
//   free     free flag set (set only at a checkpoint): no valid blocks and
//            nothing the last checkpoint needs;
//   curseg   an active log writes it;
//   prefree  not free, not a curseg, no valid block (becomes free at the
//            next checkpoint);
//   dirty    not free, not a curseg, some but not all blocks valid;
//   full     every block valid.
// A section is free when all its segments are.
//
// Each segment keeps the current valid map and the checkpoint map. Like the
// kernel's update_sit_entry, validating a block also sets its checkpoint
// bit, so a block written or invalidated since the last checkpoint is never
// reused by SSR before the next one (roll-forward recovery may still need
// it). A checkpoint copies the current maps into the checkpoint maps.
//
// Allocation: when a log's segment is full (or a log opens), the
// AllocationPolicy given at construction chooses the next segment — a free
// one (LFS) or a dirty one whose free slots the log then fills (SSR); the
// SegmentManager applies the choice.
//
// Regions: with a policy of R > 1 regions each log type has R logs, one per
// region (log (t, r)). A log type's allocations stripe over them: the
// stripe cursor of t names the region whose log takes t's next block; after
// StripeBlocks() blocks there the policy's NextRegion moves it. The
// region-free accessors (curseg(t), NextAddr(t), Allocate(t)) act on the
// cursor's region, so code that knows nothing of regions sees one log per
// type. With one region everything is as without regions.
#pragma once

#include <array>
#include <utility>
#include <bitset>
#include <cstdint>
#include <vector>

#include "fs/f2fs/allocation_policy.h"
#include "fs/f2fs/layout.h"
#include "fs/f2fs/on_disk.h"
#include "sim/time.h"

namespace fs::f2fs {

class SegmentManager {
 public:
  struct SegEntry {
    uint16_t valid = 0;
    uint16_t ckpt_valid = 0;
    uint8_t type = 0xFF;  // LogType that wrote it last (0xFF: none)
    int64_t mtime_ns = 0; // average write time of the valid blocks
    std::bitset<kBlocksPerSeg> cur_map;
    std::bitset<kBlocksPerSeg> ckpt_map;
  };
  struct CurSeg {
    SegNo segno = kNullSegNo;
    uint32_t next_blkoff = 0;
    bool ssr = false;
  };
  // Where a log type's stripe stands: the region taking its next block, and
  // how many blocks that region still takes before the stripe moves on.
  using StripeCursor = StripeState;  // region, left (0: a whole stripe unit)
  // A run of blocks to discard after a checkpoint.
  struct DiscardRange {
    BlockAddr start;
    uint32_t len = 0;
  };
  // Told of every block a log takes (Allocate, PadStripe, MarkValid) when
  // it is taken, before the caller writes it (the discard queue punches
  // its pending discards there: f2fs_wait_discard_bio).
  class AllocationObserver {
   public:
    virtual ~AllocationObserver() = default;
    virtual void OnBlocksAllocated(BlockAddr first, uint32_t n) = 0;
  };

  // `policy` (outlives this) chooses the segments the logs move to.
  SegmentManager(const Layout& layout, const AllocationPolicy* policy);
  // Memory the SIT and SSA of `layout` take.
  static uint64_t BaseMemoryBytes(const Layout& layout) {
    return uint64_t{layout.segment_count_main} * (sizeof(SegEntry) + 5) +
           uint64_t{layout.main_blocks()} * sizeof(Summary);
  }

  const Layout& layout() const { return layout_; }
  // `o` (outliving this, or null) hears of every allocation from now on.
  void set_allocation_observer(AllocationObserver* o) { observer_ = o; }

  // ---- Mount / format.
  // Loads one segment's checkpointed SIT entry (current = checkpoint state).
  void LoadSit(SegNo s, const RawSitEntry& e);
  void SetSummary(BlockAddr a, const Summary& s) { ssa_[Index(a)] = s; }
  // Valid block `a` changes owner where it is (a block a transaction
  // stole, taken by its file at the commit): its SSA block is rewritten at
  // the next checkpoint.
  void Reown(BlockAddr a, const Summary& s) {
    ssa_[Index(a)] = s;
    ssa_dirty_[layout_.SegOf(a).v] = 1;
  }
  void SetCurseg(LogType t, const CurSegState& c) { SetCurseg(t, 0, c); }
  void SetCurseg(LogType t, uint32_t region, const CurSegState& c);
  void SetStripe(LogType t, StripeCursor c);
  // After all LoadSit/SetCurseg: computes free/prefree state. Segments
  // without valid blocks that are not cursegs are free. Then opens, in a
  // free segment, every persistent log of a region > 0 the load left
  // without one (a volume formatted without regions in mind).
  void FinishLoad();

  // ---- Allocation.
  // The next block `t` writes. REQUIRES: the log is active.
  BlockAddr NextAddr(LogType t) const;
  // The next block log (t, region) writes. REQUIRES: the log is active.
  BlockAddr NextAddrOf(LogType t, uint32_t region) const {
    const CurSeg& c = curseg(t, region);
    return BlockAddr{layout_.SegStart(c.segno).v + c.next_blkoff};
  }
  // Allocates the next block of log `t` for a block owned by `sum`, marks it
  // valid and, if the segment is now full, moves the log to the segment the
  // policy chooses (`need_ssr`: AllocationPolicy::NeedSsr). Returns the block.
  BlockAddr Allocate(LogType t, const Summary& sum, sim::SimTime now, bool need_ssr);
  // Pads log t's stripe unit: when the unit in the cursor's region is only
  // partly allocated, its remaining slots are skipped (left unused, never
  // valid) and the stripe moves to the next region. Returns the first
  // skipped address and the count (0: the unit was whole). For a device
  // that programs whole flash pages only (a stripe unit is one page).
  std::pair<BlockAddr, uint32_t> PadStripe(LogType t);
  // The log writing segment s, if any: its type and region.
  bool LogOf(SegNo s, LogType* t, uint32_t* region) const {
    const uint16_t l = curseg_of_[s.v];
    if (l == kNoLog) return false;
    *t = static_cast<LogType>(l % kNumLogs);
    *region = l / kNumLogs;
    return true;
  }
  // Blocks allocated (padding included) in a region's logs so far.
  uint64_t allocated_blocks(uint32_t region) const { return region_allocated_.empty() ? 0 : region_allocated_[region]; }
  // A block stops being valid (overwritten out of place, deleted, moved).
  void Invalidate(BlockAddr a);
  // A block becomes valid at a known address (roll-forward recovery).
  void MarkValid(BlockAddr a, const Summary& sum, sim::SimTime now);
  // update_segment_mtime(old_blkaddr, 0): a block about to be rewritten
  // elsewhere (not by ATGC cleaning) weighs `now` into its segment's
  // modification time, over the valid blocks before the invalidation.
  void RefreshMtime(BlockAddr a, sim::SimTime now);
  // The modification time of a's segment (get_segment_mtime).
  sim::SimTime SegmentMtime(BlockAddr a) const;
  // Opens a log that has no segment yet (the in-memory ATGC log).
  void OpenLog(LogType t) {
    if (!LogActive(t)) MoveLog(t, stripe_[static_cast<int>(t)].region, /*need_ssr=*/false);
  }
  // Moves log (t, region) to a new free segment (with `new_section`, in a
  // new free section: f2fs_allocate_new_section); the segment left keeps
  // its summaries (written to the SSA at the next checkpoint), and a
  // stripe unit of t in that region starts whole again.
  void MoveLogToNewSegment(LogType t, uint32_t region, bool new_section = false);
  // During MoveLogToNewSegment(..., true): the policy must open a new
  // section, not the next segment of the log's section.
  bool new_section_requested() const { return new_section_; }
  // Moves every active log (of every region) to a new free segment (after
  // roll-forward recovery, so no log overwrites what recovery adopted).
  void MoveAllLogsToNewSegments();
  // Marks a free segment in use without valid blocks (it becomes prefree):
  // protects blocks recovery may read until the next checkpoint.
  void ReserveSegment(SegNo s);

  // ---- Queries.
  const SegEntry& seg(SegNo s) const { return sit_[s.v]; }
  const CurSeg& curseg(LogType t) const { return cur_[LogIndex(t, stripe_[static_cast<int>(t)].region)]; }
  const CurSeg& curseg(LogType t, uint32_t region) const { return cur_[LogIndex(t, region)]; }
  bool LogActive(LogType t) const { return curseg(t).segno != kNullSegNo; }
  bool LogActive(LogType t, uint32_t region) const { return curseg(t, region).segno != kNullSegNo; }
  StripeCursor stripe(LogType t) const { return stripe_[static_cast<int>(t)]; }
  uint32_t regions() const { return regions_; }
  uint32_t RegionOf(SegNo s) const { return region_of_sec_.empty() ? 0 : region_of_sec_[layout_.SecOf(s)]; }
  uint32_t RegionOfSection(uint32_t sec) const { return region_of_sec_.empty() ? 0 : region_of_sec_[sec]; }
  bool IsCurseg(SegNo s) const { return curseg_of_[s.v] != kNoLog; }
  bool IsFree(SegNo s) const { return free_[s.v]; }
  bool SectionFree(uint32_t sec) const;
  bool IsPrefree(SegNo s) const { return !free_[s.v] && !IsCurseg(s) && sit_[s.v].valid == 0; }
  bool BlockValid(BlockAddr a) const { return sit_[layout_.SegOf(a).v].cur_map.test(layout_.OffInSeg(a)); }
  const Summary& SummaryOf(BlockAddr a) const { return ssa_[Index(a)]; }
  uint32_t main_segments() const { return static_cast<uint32_t>(sit_.size()); }
  uint32_t free_segments() const { return free_segments_; }
  uint32_t free_sections() const { return free_sections_; }
  // Free sections of one region (all of them with one region).
  uint32_t free_sections(uint32_t region) const {
    return region_free_sections_.empty() ? free_sections_ : region_free_sections_[region];
  }
  uint32_t prefree_segments() const { return prefree_; }
  uint64_t valid_blocks() const { return total_valid_; }
  uint32_t SectionValid(uint32_t sec) const;
  int64_t SectionMtime(uint32_t sec) const;
  // A section GC may clean: not free, no active log in it, some valid block.
  bool IsGcCandidate(uint32_t sec) const;
  uint32_t sections() const { return layout_.section_count; }
  // Free slots of a dirty segment usable by SSR.
  uint32_t SsrFreeSlots(SegNo s) const;

  // ---- Checkpoint.
  // Segments whose SIT entry changed since the last checkpoint.
  const std::vector<SegNo>& dirty_sit() const { return dirty_sit_list_; }
  bool SsaDirty(SegNo s) const { return ssa_dirty_[s.v] != 0; }
  std::vector<SegNo> DirtySsaSegments() const;
  RawSitEntry RawEntry(SegNo s) const;
  // Summaries of the blocks of a log's segment.
  std::vector<Summary> CursegSummaries(LogType t, uint32_t region = 0) const;
  // Commits a checkpoint: checkpoint maps := current maps, prefree segments
  // become free. Returns what to discard: the runs of blocks valid in the
  // previous checkpoint and invalid now, in segments that still hold valid
  // blocks (add_discard_addrs: any length; a segment without valid blocks
  // waits until it is prefree), then the segments that became free.
  std::vector<DiscardRange> CommitCheckpoint();
  void ClearSsaDirty(SegNo s) { ssa_dirty_[s.v] = 0; }

 private:
  static constexpr uint16_t kNoLog = 0xFFFF;
  size_t Index(BlockAddr a) const { return a.v - layout_.main_blkaddr; }
  size_t LogIndex(LogType t, uint32_t region) const { return size_t{region} * kNumLogs + static_cast<size_t>(t); }
  void UpdateValid(BlockAddr a, int delta, sim::SimTime now);
  void MarkSitDirty(SegNo s);
  void SetFree(SegNo s, bool free);
  // Moves log (t, region) to the segment the policy chooses.
  void MoveLog(LogType t, uint32_t region, bool need_ssr);
  void OpenFreeSegment(LogType t, uint32_t region, SegNo next);
  // Moves t's stripe cursor to the next region, a whole unit.
  void AdvanceStripe(LogType t, bool need_ssr);
  void OpenSsrSegment(LogType t, uint32_t region, SegNo next);
  void LeaveSegment(SegNo s);
  uint32_t NextFreeSlot(SegNo s, uint32_t from) const;

  Layout layout_;
  const AllocationPolicy* policy_;
  AllocationObserver* observer_ = nullptr;
  std::vector<SegEntry> sit_;
  std::vector<uint8_t> free_;
  uint32_t regions_ = 1;
  uint32_t stripe_blocks_ = kBlocksPerSeg;
  std::vector<uint32_t> region_of_sec_;  // empty with one region
  std::vector<uint64_t> region_allocated_;  // with regions: blocks allocated per region
  std::vector<uint32_t> region_free_sections_;  // with regions: free sections per region
  std::vector<uint16_t> curseg_of_;      // LogIndex of the log writing the segment, kNoLog none
  std::vector<uint8_t> sit_dirty_;
  std::vector<SegNo> dirty_sit_list_;
  std::vector<uint8_t> ssa_dirty_;
  std::vector<Summary> ssa_;
  std::vector<CurSeg> cur_;  // by LogIndex
  std::array<StripeCursor, kNumLogs> stripe_{};
  uint32_t free_segments_ = 0;
  uint32_t free_sections_ = 0;
  uint32_t prefree_ = 0;
  uint64_t total_valid_ = 0;
  bool new_section_ = false;  // MoveLogToNewSegment(..., new_section) is choosing
};

}  // namespace fs::f2fs
