// CheckpointWriter: what a checkpoint writes besides the file system's
// dirty pages — the metadata of f2fs_flush_nat_entries,
// f2fs_flush_sit_entries and the SSA, and the checkpoint pack of
// do_checkpoint — built from the NAT, the segment manager and the file
// system's counters. It owns the SIT journal (in the current-segment
// summaries) and the SIT version bitmap (which copy of each SIT block is
// valid). The file system decides when a checkpoint runs, writes its dirty
// nodes first, writes the blocks returned here and commits; a metadata
// journal's apply (F2FS-J) writes the same NAT/SIT/SSA blocks.
//
// Contract:
// - FlushMeta(umount) returns, in this order, the NAT blocks of the NAT
//   table's flush plan (at the copy the NAT bitmap now selects), the SIT
//   blocks and the SSA blocks of the segments the logs have left (their SSA
//   dirty marks are cleared). Dirty SIT entries go to the SIT journal
//   (kSitJournalEntries) when all of them fit and it is not an unmount;
//   otherwise the journal is emptied and every SIT block holding a journal
//   entry or a dirty entry is written, whole, to its other copy (the bitmap
//   bit flips). Each block appears once, SIT blocks in block order.
// - BuildPack(facts) returns the pack of checkpoint version facts.cp_ver:
//   the CP block, orphan blocks (kOrphansPerBlock each), the summary block
//   (data-log current-segment summaries — with regions, those of the next
//   item —, the NAT and SIT journals, every node log's summaries at unmount) and its continuation blocks, at consecutive
//   addresses from the pack's start (CpPackAddr(cp_ver % 2)); the second CP
//   block (the commit, written last with FUA) is `commit` at the pack's
//   last address. The CP block's counts, cursegs, bitmaps and checksum
//   describe the state now.
// - With regions (R > 1), the pack carries region 0's three data-log
//   summaries (their blocks hold the NAT and SIT journals) and, of the
//   3(R-1) data logs of the other regions, only those whose open-segment
//   summary differs from its durable copy: the copy the last committed pack
//   holds or names. A log whose summary is unchanged since that pack is
//   left out of the new pack (its CpSummaryBlock::region_data entry empty,
//   region_data_in_ssa set): if the last pack held it, BuildPack returns its
//   segment's SSA block in Pack::ssa (written before the commit; the last
//   pack does not name that block, so a cut leaves that pack whole); if the
//   last pack named the SSA block already, nothing is written. After a
//   mount the first pack carries every log (the durable copies are not
//   known). One region: the pack is stock F2FS's (compacted data
//   summaries), Pack::ssa is empty.
// - PackCommitted() after the commit of the pack BuildPack last returned:
//   its copies become the durable ones.
// - Synchronous and deterministic; it writes nothing itself.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "fs/f2fs/layout.h"
#include "fs/f2fs/nat_table.h"
#include "fs/f2fs/on_disk.h"
#include "fs/f2fs/segment_manager.h"

namespace fs::f2fs {

class CheckpointWriter {
 public:
  using Blocks = std::vector<std::pair<BlockAddr, BlockPtr>>;

  // What the pack records of the file system besides the NAT and segments.
  struct PackFacts {
    uint64_t cp_ver = 0;
    bool umount = false;
    uint64_t valid_block_count = 0;  // data + reserved + node blocks
    uint64_t stolen_blocks = 0;      // of them, written early by running transactions
    std::vector<uint32_t> stolen;    // their addresses (stolen_blocks of them)
    uint32_t valid_inode_count = 0;
    std::vector<Nid> orphans;  // in inode-number order
    // Durability mode journal: where replay starts (journal.h).
    uint32_t journal_head = 0;
    uint64_t journal_block_seq = 0;
    uint64_t journal_record_seq = 0;
  };
  struct Pack {
    std::shared_ptr<CheckpointBlock> cp;
    Blocks blocks;      // CP block, orphans, summaries (not the commit)
    BlockAddr commit;   // where the second CP block goes
    Blocks ssa;         // SSA blocks of open segments the pack leaves out (regions > 1)
  };

  CheckpointWriter(const Layout& layout, NatTable* nat, SegmentManager* sm)
      : layout_(layout), nat_(nat), sm_(sm), sit_bitmap_(layout.sit_blocks, false) {}

  // Mount: the loaded checkpoint's SIT bitmap and SIT journal.
  void Load(std::vector<bool> sit_bitmap, std::vector<SitJournalEntry> sit_journal) {
    sit_bitmap_ = std::move(sit_bitmap);
    sit_journal_ = std::move(sit_journal);
  }

  Blocks FlushMeta(bool umount);
  Pack BuildPack(const PackFacts& facts);
  void PackCommitted() { durable_sums_ = pending_sums_; }

  const std::vector<bool>& sit_bitmap() const { return sit_bitmap_; }
  const std::vector<SitJournalEntry>& sit_journal() const { return sit_journal_; }

 private:
  const Layout& layout_;
  NatTable* nat_;
  SegmentManager* sm_;
  std::vector<SitJournalEntry> sit_journal_;
  std::vector<bool> sit_bitmap_;
  // With regions: the durable copy of the open-segment summary of data log
  // i of region r >= 1, at (r - 1) * 3 + i (empty until the first pack).
  struct DurableSummary {
    SegNo segno = kNullSegNo;
    bool in_ssa = false;  // in the segment's SSA block (else in the pack)
    std::vector<Summary> entries;
  };
  std::vector<DurableSummary> durable_sums_;
  std::vector<DurableSummary> pending_sums_;  // of the pack being written
};

}  // namespace fs::f2fs
