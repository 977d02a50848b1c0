#include "fs/f2fs/checkpoint_writer.h"

#include <algorithm>

namespace fs::f2fs {

CheckpointWriter::Blocks CheckpointWriter::FlushMeta(bool umount) {
  Blocks meta;
  // NAT (f2fs_flush_nat_entries) and SIT (f2fs_flush_sit_entries).
  const NatTable::FlushPlan nat_plan = nat_->PlanFlush(umount);
  for (uint32_t b : nat_plan.blocks) {
    auto nb = std::make_shared<NatBlock>(nat_->BuildBlock(b));
    meta.emplace_back(layout_.NatBlockAddr(b, nat_->BitmapBit(b)), std::move(nb));
  }
  {
    const std::vector<SegNo>& dirty = sm_->dirty_sit();
    auto in_journal = [&](SegNo s) {
      for (const SitJournalEntry& j : sit_journal_)
        if (j.segno == s) return true;
      return false;
    };
    size_t need = 0;
    for (SegNo s : dirty)
      if (!in_journal(s)) ++need;
    std::vector<uint32_t> blocks;
    if (umount || sit_journal_.size() + need > kSitJournalEntries) {
      // Journal too small: everything (journal included) goes to SIT blocks.
      for (const SitJournalEntry& j : sit_journal_) blocks.push_back(j.segno.v / kSitEntriesPerBlock);
      sit_journal_.clear();
      for (SegNo s : dirty) blocks.push_back(s.v / kSitEntriesPerBlock);
    } else {
      for (SegNo s : dirty) {
        bool updated = false;
        for (SitJournalEntry& j : sit_journal_) {
          if (j.segno == s) {
            j.entry = sm_->RawEntry(s);
            updated = true;
          }
        }
        if (!updated) sit_journal_.push_back(SitJournalEntry{s, sm_->RawEntry(s)});
      }
    }
    std::sort(blocks.begin(), blocks.end());
    blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
    for (uint32_t b : blocks) {
      auto sb = std::make_shared<SitBlock>();
      for (uint32_t k = 0; k < kSitEntriesPerBlock; ++k) {
        const uint32_t s = b * kSitEntriesPerBlock + k;
        if (s >= sm_->main_segments()) break;
        sb->entries[k] = sm_->RawEntry(SegNo{s});
      }
      sit_bitmap_[b] = !sit_bitmap_[b];
      meta.emplace_back(layout_.SitBlockAddr(b, sit_bitmap_[b]), std::move(sb));
    }
  }
  // SSA blocks of segments the logs have left.
  for (SegNo s : sm_->DirtySsaSegments()) {
    auto sb = std::make_shared<SummaryBlock>();
    const BlockAddr start = layout_.SegStart(s);
    for (uint32_t i = 0; i < kBlocksPerSeg; ++i) sb->entries[i] = sm_->SummaryOf(BlockAddr{start.v + i});
    const uint8_t t = sm_->seg(s).type;
    sb->is_node = t != 0xFF && IsNodeLog(static_cast<LogType>(t));
    meta.emplace_back(layout_.SsaBlockAddr(s), std::move(sb));
    sm_->ClearSsaDirty(s);
  }
  return meta;
}

CheckpointWriter::Pack CheckpointWriter::BuildPack(const PackFacts& f) {
  auto cp = std::make_shared<CheckpointBlock>();
  cp->cp_ver = f.cp_ver;
  cp->journal_head = f.journal_head;
  cp->journal_block_seq = f.journal_block_seq;
  cp->journal_record_seq = f.journal_record_seq;
  cp->user_block_count = layout_.user_block_count;
  cp->valid_block_count = f.valid_block_count;
  cp->stolen_blocks = f.stolen_blocks;
  cp->rsvd_segment_count = layout_.reserved_segments;
  cp->overprov_segment_count = layout_.overprov_segments;
  cp->free_segment_count = sm_->free_segments();
  for (int l = 0; l < kNumPersistentLogs; ++l) {
    const SegmentManager::CurSeg& c = sm_->curseg(static_cast<LogType>(l), 0);
    cp->cursegs[l] = CurSegState{c.segno, static_cast<uint16_t>(c.next_blkoff), c.ssr};
  }
  for (uint32_t r = 1; r < sm_->regions(); ++r) {
    for (int l = 0; l < kNumPersistentLogs; ++l) {
      const SegmentManager::CurSeg& c = sm_->curseg(static_cast<LogType>(l), r);
      cp->region_cursegs.push_back(CurSegState{c.segno, static_cast<uint16_t>(c.next_blkoff), c.ssr});
    }
  }
  for (int l = 0; l < kNumPersistentLogs; ++l) cp->stripes[l] = sm_->stripe(static_cast<LogType>(l));
  cp->umount = f.umount;
  cp->valid_node_count = nat_->valid_nodes();
  cp->valid_inode_count = f.valid_inode_count;
  cp->next_free_nid = nat_->next_scan();
  cp->sit_bitmap = sit_bitmap_;
  cp->nat_bitmap = nat_->bitmap();
  const std::vector<Nid>& orphans = f.orphans;
  cp->orphan_present = !orphans.empty();
  cp->orphan_blocks = static_cast<uint32_t>((orphans.size() + kOrphansPerBlock - 1) / kOrphansPerBlock);
  // Data summaries: compacted into 1-3 blocks by the number of entries.
  // With regions, one normal summary block per data log (and per node log
  // at umount), as the kernel writes when the compacted form does not fit.
  const uint32_t regions = sm_->regions();
  const LogType dl[3] = {LogType::kHotData, LogType::kWarmData, LogType::kColdData};
  // With regions: which data logs of regions 1 .. R-1 the pack carries (a
  // summary changed since its durable copy), and the SSA blocks written for
  // those it leaves out whose durable copy is in the last pack: that pack's
  // location is the next pack's, so the copy moves to the segment's own
  // SSA block, which the last pack does not name (it is read only after
  // this pack commits).
  Pack out;
  std::vector<std::vector<Summary>> region_data;
  std::vector<uint8_t> region_in_ssa;
  uint32_t region_sum_blocks = 0;
  pending_sums_.clear();
  for (uint32_t r = 1; r < regions; ++r) {
    for (int i = 0; i < 3; ++i) {
      const size_t k = (r - 1) * 3 + i;
      std::vector<Summary> cur = sm_->CursegSummaries(dl[i], r);
      const SegNo segno = sm_->curseg(dl[i], r).segno;
      DurableSummary d{segno, false, {}};
      const bool unchanged = k < durable_sums_.size() && segno != kNullSegNo && durable_sums_[k].segno == segno &&
                             durable_sums_[k].entries == cur;
      if (unchanged) {
        if (!durable_sums_[k].in_ssa) {
          auto sb = std::make_shared<SummaryBlock>();
          std::copy(cur.begin(), cur.end(), sb->entries.begin());
          out.ssa.emplace_back(layout_.SsaBlockAddr(segno), std::move(sb));
        }
        d.in_ssa = true;
        region_data.emplace_back();
        region_in_ssa.push_back(1);
      } else {
        if (segno != kNullSegNo) ++region_sum_blocks;
        region_data.push_back(cur);
        region_in_ssa.push_back(0);
      }
      d.entries = std::move(cur);
      pending_sums_.push_back(std::move(d));
    }
  }
  uint64_t entries = 0;
  for (LogType t : {LogType::kHotData, LogType::kWarmData, LogType::kColdData})
    entries += sm_->LogActive(t, 0) ? sm_->curseg(t, 0).next_blkoff : 0;
  cp->data_sum_blocks = regions > 1                                                 ? 3 + region_sum_blocks
                        : entries <= kCompactFirstEntries                            ? 1
                        : entries - kCompactFirstEntries <= kCompactNextEntries ? 2
                                                                                 : 3;
  const uint32_t node_sum_blocks = f.umount ? 3 * regions : 0;
  CHECK_EQ(f.stolen.size(), f.stolen_blocks);
  cp->stolen_list_blocks = static_cast<uint32_t>((f.stolen.size() + kStolenPerBlock - 1) / kStolenPerBlock);
  cp->cp_pack_start_sum = 1 + cp->orphan_blocks + cp->stolen_list_blocks;
  cp->cp_pack_total_block_count =
      2 + cp->orphan_blocks + cp->stolen_list_blocks + cp->data_sum_blocks + node_sum_blocks;
  cp->checksum = cp->Checksum();

  auto sum = std::make_shared<CpSummaryBlock>();
  {
    for (int i = 0; i < 3; ++i) sum->data[i] = sm_->CursegSummaries(dl[i], 0);
    sum->region_data = std::move(region_data);
    sum->region_data_in_ssa = std::move(region_in_ssa);
    sum->nat_journal = nat_->journal();
    sum->sit_journal = sit_journal_;
    if (f.umount) {
      const LogType nl[3] = {LogType::kHotNode, LogType::kWarmNode, LogType::kColdNode};
      sum->has_node = true;
      for (int i = 0; i < 3; ++i) sum->node[i] = sm_->CursegSummaries(nl[i], 0);
      for (uint32_t r = 1; r < regions; ++r)
        for (int i = 0; i < 3; ++i) sum->region_node.push_back(sm_->CursegSummaries(nl[i], r));
    }
  }
  const BlockAddr base = layout_.CpPackAddr(static_cast<int>(f.cp_ver % 2));
  Blocks& pack_blocks = out.blocks;
  pack_blocks.emplace_back(base, cp);
  uint32_t off = 1;
  for (uint32_t i = 0; i < cp->orphan_blocks; ++i) {
    auto ob = std::make_shared<OrphanBlock>();
    for (size_t k = i * kOrphansPerBlock; k < std::min(orphans.size(), size_t{(i + 1) * kOrphansPerBlock}); ++k)
      ob->inos.push_back(orphans[k]);
    pack_blocks.emplace_back(BlockAddr{base.v + off++}, std::move(ob));
  }
  for (uint32_t i = 0; i < cp->stolen_list_blocks; ++i) {
    auto sb = std::make_shared<StolenListBlock>();
    for (size_t k = i * kStolenPerBlock; k < std::min(f.stolen.size(), size_t{(i + 1) * kStolenPerBlock}); ++k)
      sb->addrs.push_back(f.stolen[k]);
    pack_blocks.emplace_back(BlockAddr{base.v + off++}, std::move(sb));
  }
  for (uint32_t i = 0; i < cp->data_sum_blocks + node_sum_blocks; ++i) {
    if (i == 0) {
      pack_blocks.emplace_back(BlockAddr{base.v + off++}, sum);
    } else {
      auto cont = std::make_shared<CpSummaryBlock>();
      cont->continuation = true;
      pack_blocks.emplace_back(BlockAddr{base.v + off++}, std::move(cont));
    }
  }
  out.cp = cp;
  out.commit = BlockAddr{base.v + cp->cp_pack_total_block_count - 1};
  return out;
}

}  // namespace fs::f2fs
