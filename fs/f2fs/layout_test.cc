#include "fs/f2fs/layout.h"

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fs/f2fs/on_disk.h"

namespace fs::f2fs {
namespace {

TEST(LayoutTest, SmallVolumeFollowsMkfsFormulas) {
  auto l = ComputeLayout({256ull << 20, 1, 1, 0});
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->segment0_blkaddr, 512u);  // SB area padded to one zone
  EXPECT_EQ(l->segment_count, 127u);
  EXPECT_EQ(l->segment_count_ckpt, 2u);
  EXPECT_EQ(l->segment_count_sit, 2u);
  EXPECT_EQ(l->segment_count_nat, 2u);
  EXPECT_EQ(l->segment_count_ssa, 1u);
  EXPECT_EQ(l->segment_count_main, 120u);
  EXPECT_EQ(l->main_blkaddr, 512u + 7 * 512);
  // Below 256 main segments mkfs tries 10..95 % in steps of 5: 15 % is best here.
  EXPECT_DOUBLE_EQ(l->overprovision_pct, 15);
  EXPECT_EQ(l->reserved_segments, 22u);  // (2 * (100/15 + 1) + 6) = 21.33 -> 22 (section aligned)
  EXPECT_EQ(l->overprov_segments, static_cast<uint32_t>((120 - 22) * 15 / 100.0) + 22);
  EXPECT_EQ(l->user_block_count, uint64_t{120 - l->overprov_segments} * 512);
  EXPECT_EQ(l->max_nid, 512u * 455);
}

TEST(LayoutTest, SixteenGibMatchesTheReferenceExample) {
  auto l = ComputeLayout({16ull << 30, 1, 1, 0});
  ASSERT_TRUE(l.ok());
  // Reference worked example: ~8191 segments: CP 2, SIT 2, NAT 36, SSA 16, main ~8135.
  EXPECT_EQ(l->segment_count, 8191u);
  EXPECT_EQ(l->segment_count_sit, 2u);
  EXPECT_EQ(l->segment_count_nat, 36u);
  EXPECT_EQ(l->segment_count_ssa, 16u);
  EXPECT_EQ(l->segment_count_main, 8135u);
  EXPECT_NEAR(l->overprovision_pct, 1.57, 0.05);
  EXPECT_NEAR(l->reserved_segments, 134.5, 1.5);
}

// Zoned (mkfs.f2fs -m): the metadata fills the conventional area up to the
// first zone, where the main area starts; a section is a zone, and only its
// usable segments (the zone capacity) count as space.
TEST(LayoutTest, ZonedMainStartsAtTheFirstZoneAndCountsUsableSegments) {
  LayoutParams p{1ull << 30, 4, 1, 0};
  p.zoned_main_block = (64ull << 20) / kBlockSize;  // 64 MiB conventional
  auto l = ComputeLayout(p);
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->segment0_blkaddr, 512u);  // segment-aligned, not zone-aligned
  EXPECT_EQ(l->main_blkaddr, p.zoned_main_block);
  EXPECT_EQ(l->section_count, (1024u - 64) / 8);  // 8 MiB zones
  EXPECT_TRUE(l->zoned());
  EXPECT_EQ(l->usable_segs_per_sec, 4u);
  // A zone of 8 MiB with 4 MiB of capacity: 2 usable segments a section.
  p.usable_segs_per_sec = 2;
  auto half = ComputeLayout(p);
  ASSERT_TRUE(half.ok()) << half.status().message();
  EXPECT_EQ(half->section_count, l->section_count);
  EXPECT_EQ(half->reserved_sections(), half->reserved_segments / 2);
  EXPECT_LT(half->user_block_count, l->user_block_count * 6 / 10);
  EXPECT_LE(half->user_block_count, uint64_t{half->section_count} * 2 * kBlocksPerSeg);
  // A conventional area too small for the metadata, or not whole segments.
  p.zoned_main_block = 2 * kBlocksPerSeg;
  EXPECT_NE(ComputeLayout(p).status().message().find("conventional area"), std::string::npos);
  p.zoned_main_block = (64ull << 20) / kBlockSize + 1;
  EXPECT_NE(ComputeLayout(p).status().message().find("whole 2 MiB segments"), std::string::npos);
  // Not zoned: unchanged.
  LayoutParams plain{1ull << 30, 4, 1, 0};
  auto q = ComputeLayout(plain);
  ASSERT_TRUE(q.ok());
  EXPECT_FALSE(q->zoned());
  EXPECT_EQ(q->usable_segs_per_sec, 4u);
}

TEST(LayoutTest, TooSmallDeviceIsAnError) {
  EXPECT_FALSE(ComputeLayout({16ull << 20, 1, 1, 0}).ok());
  EXPECT_FALSE(ComputeLayout({256ull << 20, 0, 1, 0}).ok());
}

TEST(LayoutTest, SectionsAndZonesAlignMain) {
  auto l = ComputeLayout({1ull << 30, 4, 2, 0});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->segment_count_main % 4, 0u);
  EXPECT_EQ((l->main_blkaddr - l->segment0_blkaddr) / 512 % 8, 0u);
  EXPECT_EQ(l->reserved_segments % 4, 0u);
  EXPECT_EQ(l->init_curseg[static_cast<int>(LogType::kWarmNode)].v, 8u);
}

// The journal area at the head (a device of fixed placement): from the
// first zone after the superblocks, F2FS's segment 0 at the next zone
// boundary after it, every block of the device F2FS's; at the end
// otherwise, after F2FS's blocks.
TEST(LayoutTest, JournalAreaAtTheHeadOrTheEnd) {
  LayoutParams p{256ull << 20, 2, 1, 0};
  p.journal_blocks = 1000;
  const Layout end = ComputeLayout(p).value();
  EXPECT_FALSE(end.journal_at_head);
  EXPECT_EQ(end.journal_blkaddr(), end.block_count);
  EXPECT_EQ(end.total_blocks(), (256ull << 20) / kBlockSize);
  EXPECT_EQ(end.segment0_blkaddr, 1024u);
  p.journal_at_head = true;
  const Layout head = ComputeLayout(p).value();
  EXPECT_TRUE(head.journal_at_head);
  EXPECT_EQ(head.block_count, (256ull << 20) / kBlockSize);
  EXPECT_EQ(head.total_blocks(), head.block_count);
  EXPECT_EQ(head.journal_blkaddr(), 1024u) << "the first zone (2 segments) after the superblocks";
  EXPECT_EQ(head.segment0_blkaddr, 2048u) << "1024 + 1000 blocks, aligned up to a zone of 1024 blocks";
  EXPECT_EQ(head.main_blkaddr % 1024, 0u);
  EXPECT_LT(head.journal_blkaddr() + head.journal_blocks, uint64_t{head.cp_blkaddr} + 1);
  EXPECT_EQ(head.segment_count, (65536u - 2048) / 512);
  EXPECT_EQ(end.segment_count, (65536u - 1000 - 1024) / 512);
  p.journal_blocks = 0;
  EXPECT_FALSE(ComputeLayout(p).value().journal_at_head) << "no journal, nothing at the head";
}

TEST(NodePathTest, LevelsAndOffsets) {
  EXPECT_EQ(GetNodePath(0).level, 0);
  EXPECT_EQ(GetNodePath(872).level, 0);
  NodePath p = GetNodePath(873);
  EXPECT_EQ(p.level, 1);
  EXPECT_EQ(p.offsets[0], 0u);
  EXPECT_EQ(p.node_ofs[1], 1u);
  p = GetNodePath(873 + 1018);
  EXPECT_EQ(p.offsets[0], 1u);
  EXPECT_EQ(p.node_ofs[1], 2u);
  p = GetNodePath(873 + 2 * 1018 + 1018 * 5 + 7);
  EXPECT_EQ(p.level, 2);
  EXPECT_EQ(p.node_ofs[1], 3u);
  EXPECT_EQ(p.offsets[1], 5u);
  EXPECT_EQ(p.node_ofs[2], 9u);
  EXPECT_EQ(p.offsets[2], 7u);
  const uint64_t dind = 873 + 2 * 1018 + 2ull * 1018 * 1018;
  p = GetNodePath(dind + 1018ull * 1018 * 2 + 1018 * 3 + 4);
  EXPECT_EQ(p.level, 3);
  EXPECT_EQ(p.offsets[1], 2u);
  EXPECT_EQ(p.offsets[2], 3u);
  EXPECT_EQ(p.offsets[3], 4u);
  // Every dnode offset maps back to its first block.
  const std::vector<uint64_t> starts = {0, 873, 873 + 1018, 873 + 2036 + 5 * 1018, 873 + 2036 + 1018ull * 1018 + 1018,
                                       dind, dind + 1018ull * 1018 * 2 + 1018 * 3};
  for (uint64_t idx : starts) {
    const NodePath q = GetNodePath(idx);
    const uint32_t ofs = q.node_ofs[q.level];
    EXPECT_TRUE(IsDnodeOffset(ofs));
    EXPECT_EQ(StartBlockOfDnode(ofs), idx - q.offsets[q.level]) << idx;
  }
  EXPECT_FALSE(IsDnodeOffset(3));
  EXPECT_FALSE(IsDnodeOffset(4 + 1018));
  EXPECT_FALSE(IsDnodeOffset(5 + 2036));
  EXPECT_FALSE(IsDnodeOffset(6 + 2036));
}

TEST(DentryArrayTest, InsertFindRemove) {
  DentryArray d(kDentrySlotsPerBlock);
  const std::string long_name(20, 'x');  // 3 slots
  const int s = d.FindRoom(3);
  ASSERT_EQ(s, 0);
  d.Insert(s, long_name, DentryHash(long_name), Nid{9}, FileType::kRegular);
  EXPECT_EQ(d.Find(long_name, DentryHash(long_name)), 0);
  EXPECT_EQ(d.FindRoom(1), 3);
  d.Insert(3, "a", DentryHash("a"), Nid{10}, FileType::kDir);
  EXPECT_EQ(d.UsedEntries(), 2u);
  d.Remove(0);
  EXPECT_EQ(d.Find(long_name, DentryHash(long_name)), -1);
  EXPECT_EQ(d.FindRoom(3), 0);
  EXPECT_EQ(kInlineDentrySlots, 182u);
  EXPECT_EQ(kMaxInlineData, 3488u);
}

// Find and FindRoom against walks over the slots, on random inserts and
// removes of names of 1..40 bytes (1..5 slots): with hashes colliding on
// purpose, and with the real hash (most lookups of absent names then end
// at a dentry block's filter, which many removes leave stale and rebuild).
// `Dir` is a DentryArray (inline dentries: no filter) or a DentryBlock
// (Find, Insert and Remove through the block, which keeps its filter).
template <class Dir>
void CheckFindAndFindRoomAgainstWalks(Dir& dir, DentryArray& d, uint32_t (*hash_of)(const std::string&)) {
  std::mt19937 rng(7);
  std::map<std::string, int> present;
  auto walk = [&](std::string_view name, uint32_t hash) {
    int found = -1;
    d.ForEach([&](uint32_t s, const Dentry&) {
      if (found < 0 && d.hashes[s] == hash && d.NameAt(s) == name) found = static_cast<int>(s);
    });
    return found;
  };
  auto room_walk = [&](uint32_t slots) {
    uint32_t run = 0;
    for (uint32_t s = 0; s < d.nr_slots; ++s) {
      if (s < d.stored_slots() && d.used[s]) {
        run = 0;
        continue;
      }
      if (++run == slots) return static_cast<int>(s + 1 - slots);
    }
    return -1;
  };
  for (int step = 0; step < 20000; ++step) {
    for (uint32_t k = 1; k <= 6; ++k) ASSERT_EQ(d.FindRoom(k), room_walk(k)) << "step " << step << " run " << k;
    ASSERT_EQ(d.used_slots, static_cast<uint32_t>(std::count(d.used.begin(), d.used.end(), 1))) << "step " << step;
    std::string name(1 + rng() % 40, 'a');
    for (char& c : name) c = static_cast<char>('a' + rng() % 3);
    const uint32_t h = hash_of(name);
    auto it = present.find(name);
    if (it != present.end() && rng() % 2) {
      dir.Remove(it->second);
      present.erase(it);
    } else if (it == present.end()) {
      const int slot = d.FindRoom(std::max<uint32_t>(1, DentryArray::SlotsFor(name.size())));
      if (slot >= 0) {
        dir.Insert(slot, name, h, Nid{static_cast<uint32_t>(step + 3)}, FileType::kRegular);
        present[name] = slot;
      }
    }
    std::string probe(1 + rng() % 40, 'a');
    for (char& c : probe) c = static_cast<char>('a' + rng() % 3);
    ASSERT_EQ(dir.Find(probe, hash_of(probe)), walk(probe, hash_of(probe))) << "step " << step;
    if (!present.empty()) {
      const auto& [n, s] = *present.begin();
      ASSERT_EQ(dir.Find(n, hash_of(n)), s);
    }
  }
}

uint32_t CollidingHash(const std::string& n) { return DentryHash(n) % 4; }
uint32_t RealHash(const std::string& n) { return DentryHash(n); }

TEST(DentryArrayTest, FindAndFindRoomAgreeWithWalksOverTheSlots) {
  for (auto* hash_of : {&CollidingHash, &RealHash}) {
    DentryBlock blk;
    CheckFindAndFindRoomAgainstWalks(blk, blk.d, hash_of);
    EXPECT_TRUE(blk.FilterCoversEntries());
    EXPECT_TRUE(blk.TagsMatchEntries());
    for (uint32_t nr_slots : {kInlineDentrySlots, 7u}) {
      SCOPED_TRACE(nr_slots);
      DentryArray d(nr_slots);
      CheckFindAndFindRoomAgainstWalks(d, d, hash_of);
    }
  }
}

// The filter only ever passes over blocks that cannot hold the name: with
// real hashes, most lookups of absent names end at it, and none of a
// present one does, however many removes it has seen since its rebuild.
TEST(DentryArrayTest, DentryBlockFilterSkipsAbsentNamesOnly) {
  DentryBlock blk;
  std::vector<std::string> names;
  for (int i = 0; i < 200; ++i) names.push_back(fmt::format("f{:06d}", i));
  for (size_t i = 0; i < names.size(); ++i)
    blk.Insert(static_cast<int>(i), names[i], DentryHash(names[i]), Nid{static_cast<uint32_t>(i + 3)}, FileType::kRegular);
  for (size_t i = 0; i < names.size(); i += 2) blk.Remove(static_cast<int>(i));
  ASSERT_TRUE(blk.FilterCoversEntries());
  int passed = 0;
  for (int i = 0; i < 10000; ++i) {
    const std::string absent = fmt::format("g{:06d}", i);
    passed += blk.MayHold(DentryHash(absent)) ? 1 : 0;
    ASSERT_EQ(blk.Find(absent, DentryHash(absent)), -1);
  }
  // 100 entries in 1,024 bits pass about 9 % of absent names to the scan.
  EXPECT_LT(passed, 2000);
  for (size_t i = 1; i < names.size(); i += 2) EXPECT_EQ(blk.Find(names[i], DentryHash(names[i])), static_cast<int>(i));
  for (size_t i = 0; i < names.size(); i += 2) EXPECT_EQ(blk.Find(names[i], DentryHash(names[i])), -1);
}

// Find looks at the hash and name only where a slot's tag matches: a tag
// lost (or left behind) is a name Find misses, and fsck's check sees it.
TEST(DentryArrayTest, DentryBlockTagsFollowInsertsAndRemoves) {
  DentryBlock blk;
  const std::string a = "alpha", b = "a-name-of-three-slots-long-enough";
  blk.Insert(5, a, DentryHash(a), Nid{3}, FileType::kRegular);
  blk.Insert(20, b, DentryHash(b), Nid{4}, FileType::kRegular);
  EXPECT_EQ(blk.tags[5], DentryBlock::TagOf(DentryHash(a)));
  EXPECT_EQ(blk.tags[20], DentryBlock::TagOf(DentryHash(b)));
  EXPECT_EQ(blk.tags[21], 0);  // inside b's name: no entry starts there
  EXPECT_TRUE(blk.TagsMatchEntries());
  EXPECT_EQ(blk.Find(b, DentryHash(b)), 20);
  blk.Remove(5);
  EXPECT_EQ(blk.tags[5], 0);
  EXPECT_TRUE(blk.TagsMatchEntries());
  DentryBlock lost = blk;
  lost.tags[20] = 0;
  EXPECT_FALSE(lost.TagsMatchEntries());
  EXPECT_EQ(lost.Find(b, DentryHash(b)), -1);
  DentryBlock stale = blk;
  stale.tags[5] = DentryBlock::TagOf(DentryHash(a));
  EXPECT_FALSE(stale.TagsMatchEntries());
  for (uint32_t h = 0; h < 100000; ++h) ASSERT_NE(DentryBlock::TagOf(h), 0) << h;
}

}  // namespace
}  // namespace fs::f2fs
