// CheckpointWriter against its contract (checkpoint_writer.h): where dirty
// SIT entries go (journal or blocks, bitmap flips), the SSA blocks, and the
// layout of the checkpoint pack.
#include "fs/f2fs/checkpoint_writer.h"

#include <map>
#include <set>

#include <gtest/gtest.h>

#include "fs/f2fs/allocation_policy.h"
#include "fs/f2fs/f2fs_config.h"
#include "sim/config.h"

namespace fs::f2fs {
namespace {

struct Rig {
  Rig() {
    auto l = ComputeLayout({256ull << 20, 1, 1, 0});
    CHECK(l.ok()) << l.status().message();
    layout = *l;
    auto p = MakeAllocationPolicy(cfg.allocation, AllocationPolicyContext{&cfg, &layout});
    CHECK(p.ok());
    policy = std::move(p).value();
    sm = std::make_unique<SegmentManager>(layout, policy.get());
    sm->FinishLoad();
    nat = std::make_unique<NatTable>(layout.max_nid, layout.nat_blocks);
    cpw = std::make_unique<CheckpointWriter>(layout, nat.get(), sm.get());
  }
  // Allocates whole segments of the warm data log: `n` segments get dirty.
  void FillSegments(int n) {
    sm->OpenLog(LogType::kWarmData);
    for (int i = 0; i < n; ++i) {
      const SegNo s = sm->curseg(LogType::kWarmData).segno;
      while (sm->curseg(LogType::kWarmData).segno == s)
        sm->Allocate(LogType::kWarmData, Summary{Nid{5}, static_cast<uint16_t>(i), 0}, sim::SimTime(), false);
    }
  }
  // The SIT blocks in `meta` by block number -> their entries.
  std::map<uint32_t, const SitBlock*> SitBlocks(const CheckpointWriter::Blocks& meta) const {
    std::map<uint32_t, const SitBlock*> out;
    for (const auto& [addr, blk] : meta) {
      if (blk->type != BlockData::Type::kSit) continue;
      bool found = false;
      for (uint32_t b = 0; b < layout.sit_blocks && !found; ++b) {
        if (layout.SitBlockAddr(b, cpw->sit_bitmap()[b]) == addr) {
          EXPECT_FALSE(out.count(b)) << "SIT block " << b << " twice";
          out[b] = static_cast<const SitBlock*>(blk.get());
          found = true;
        }
      }
      EXPECT_TRUE(found) << "SIT block written to " << addr.v << ", not the copy the bitmap now names";
    }
    return out;
  }

  F2fsConfig cfg = sim::MakeDefault<F2fsConfig>();
  Layout layout;
  std::unique_ptr<AllocationPolicy> policy;
  std::unique_ptr<SegmentManager> sm;
  std::unique_ptr<NatTable> nat;
  std::unique_ptr<CheckpointWriter> cpw;
};

TEST(CheckpointWriterTest, FewDirtySitEntriesGoToTheJournal) {
  Rig r;
  r.FillSegments(2);  // two full segments and the log's next one
  const std::vector<SegNo> dirty = r.sm->dirty_sit();
  ASSERT_GE(dirty.size(), 2u);
  ASSERT_LE(dirty.size(), kSitJournalEntries);
  const std::vector<bool> bitmap = r.cpw->sit_bitmap();
  const CheckpointWriter::Blocks meta = r.cpw->FlushMeta(/*umount=*/false);
  EXPECT_TRUE(r.SitBlocks(meta).empty());
  EXPECT_EQ(r.cpw->sit_bitmap(), bitmap);
  ASSERT_EQ(r.cpw->sit_journal().size(), dirty.size());
  for (const SitJournalEntry& j : r.cpw->sit_journal()) {
    const RawSitEntry e = r.sm->RawEntry(j.segno);
    EXPECT_EQ(j.entry.valid, e.valid);
    EXPECT_EQ(j.entry.map, e.map);
  }
  // The SSA blocks of the segments the log left, once each, and no more.
  std::set<uint32_t> ssa;
  for (const auto& [addr, blk] : meta) {
    if (blk->type != BlockData::Type::kSummary) continue;
    EXPECT_TRUE(ssa.insert(addr.v).second);
    const auto* sb = static_cast<const SummaryBlock*>(blk.get());
    EXPECT_FALSE(sb->is_node);
    EXPECT_EQ(sb->entries[0].nid, Nid{5});
  }
  EXPECT_EQ(ssa.size(), 2u);
  EXPECT_TRUE(r.sm->DirtySsaSegments().empty());
}

TEST(CheckpointWriterTest, AFullJournalGoesToSitBlocksAndFlipsTheirCopies) {
  Rig r;
  r.FillSegments(2);
  r.cpw->FlushMeta(false);  // two or three entries journalled
  const size_t journalled = r.cpw->sit_journal().size();
  ASSERT_GT(journalled, 0u);
  r.sm->CommitCheckpoint();
  r.FillSegments(static_cast<int>(kSitJournalEntries));  // more than the journal takes
  const std::vector<bool> before = r.cpw->sit_bitmap();
  std::set<uint32_t> want;
  for (const SitJournalEntry& j : r.cpw->sit_journal()) want.insert(j.segno.v / kSitEntriesPerBlock);
  for (SegNo s : r.sm->dirty_sit()) want.insert(s.v / kSitEntriesPerBlock);
  const CheckpointWriter::Blocks meta = r.cpw->FlushMeta(false);
  EXPECT_TRUE(r.cpw->sit_journal().empty());
  const auto sit = r.SitBlocks(meta);
  std::set<uint32_t> got;
  for (const auto& [b, blk] : sit) {
    got.insert(b);
    EXPECT_NE(r.cpw->sit_bitmap()[b], before[b]) << "block " << b << " written over its valid copy";
    for (uint32_t k = 0; k < kSitEntriesPerBlock; ++k) {
      const uint32_t s = b * kSitEntriesPerBlock + k;
      if (s >= r.sm->main_segments()) break;
      EXPECT_EQ(blk->entries[k].valid, r.sm->RawEntry(SegNo{s}).valid) << "segment " << s;
    }
  }
  EXPECT_EQ(got, want);
  for (uint32_t b = 0; b < r.layout.sit_blocks; ++b) {
    if (!want.count(b)) {
      EXPECT_EQ(r.cpw->sit_bitmap()[b], before[b]);
    }
  }
}

TEST(CheckpointWriterTest, UnmountEmptiesTheJournalIntoBlocks) {
  Rig r;
  r.FillSegments(1);
  r.cpw->FlushMeta(false);
  ASSERT_FALSE(r.cpw->sit_journal().empty());
  const uint32_t journalled_block = r.cpw->sit_journal()[0].segno.v / kSitEntriesPerBlock;
  r.sm->CommitCheckpoint();
  const CheckpointWriter::Blocks meta = r.cpw->FlushMeta(/*umount=*/true);
  EXPECT_TRUE(r.cpw->sit_journal().empty());
  EXPECT_TRUE(r.SitBlocks(meta).count(journalled_block));
}

TEST(CheckpointWriterTest, PackLayout) {
  Rig r;
  r.FillSegments(1);
  r.cpw->FlushMeta(false);
  for (bool umount : {false, true}) {
    CheckpointWriter::PackFacts f;
    f.cp_ver = umount ? 8 : 7;
    f.umount = umount;
    f.valid_block_count = 1234;
    f.valid_inode_count = 17;
    for (uint32_t i = 0; i < kOrphansPerBlock + 5; ++i) f.orphans.push_back(Nid{100 + i});
    const CheckpointWriter::Pack p = r.cpw->BuildPack(f);
    const BlockAddr base = r.layout.CpPackAddr(static_cast<int>(f.cp_ver % 2));
    ASSERT_NE(p.cp, nullptr);
    EXPECT_EQ(p.cp->cp_ver, f.cp_ver);
    EXPECT_EQ(p.cp->checksum, p.cp->Checksum());
    EXPECT_EQ(p.cp->valid_block_count, 1234u);
    EXPECT_EQ(p.cp->valid_inode_count, 17u);
    EXPECT_EQ(p.cp->umount, umount);
    EXPECT_TRUE(p.cp->orphan_present);
    EXPECT_EQ(p.cp->orphan_blocks, 2u);
    EXPECT_EQ(p.cp->sit_bitmap, r.cpw->sit_bitmap());
    EXPECT_EQ(p.cp->data_sum_blocks, 1u);  // one segment's entries fit the compacted form
    const uint32_t node_sums = umount ? 3 : 0;
    EXPECT_EQ(p.cp->cp_pack_total_block_count, 2 + 2 + 1 + node_sums);
    // Consecutive from the pack's start: CP, orphans, summaries; the commit last.
    ASSERT_EQ(p.blocks.size(), p.cp->cp_pack_total_block_count - 1);
    for (size_t i = 0; i < p.blocks.size(); ++i) EXPECT_EQ(p.blocks[i].first.v, base.v + i);
    EXPECT_EQ(p.blocks[0].second, p.cp);
    EXPECT_EQ(p.commit.v, base.v + p.cp->cp_pack_total_block_count - 1);
    const auto* o1 = static_cast<const OrphanBlock*>(p.blocks[1].second.get());
    const auto* o2 = static_cast<const OrphanBlock*>(p.blocks[2].second.get());
    EXPECT_EQ(o1->inos.size(), kOrphansPerBlock);
    ASSERT_EQ(o2->inos.size(), 5u);
    EXPECT_EQ(o2->inos.back(), f.orphans.back());
    EXPECT_EQ(p.cp->cp_pack_start_sum, 3u);
    ASSERT_EQ(p.blocks[3].second->type, BlockData::Type::kCpSummary);
    const auto* sum = static_cast<const CpSummaryBlock*>(p.blocks[3].second.get());
    EXPECT_FALSE(sum->continuation);
    EXPECT_EQ(sum->has_node, umount);
    EXPECT_EQ(sum->sit_journal.size(), r.cpw->sit_journal().size());
    EXPECT_EQ(sum->data[1], r.sm->CursegSummaries(LogType::kWarmData, 0));
    for (size_t i = 4; i < p.blocks.size(); ++i)
      EXPECT_TRUE(static_cast<const CpSummaryBlock*>(p.blocks[i].second.get())->continuation);
  }
}

}  // namespace
}  // namespace fs::f2fs
