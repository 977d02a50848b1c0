#include "ftl/mapping.h"

#include <vector>

#include <gtest/gtest.h>

#include "sim/rng.h"

namespace ftl {
namespace {

flash::Geometry Geo() {
  flash::Geometry g;
  g.channels = 1;
  g.chips_per_channel = 1;
  g.dies_per_chip = 1;
  g.planes_per_die = 2;
  g.blocks_per_plane = 8;
  g.pages_per_block = 96;  // not a multiple of 64: blocks share valid-bit words
  g.page_size = sim::Bytes{4096};
  return g;
}

// The valid bits of kPage mode against a reference model of both tables
// under random maps, remaps, unmaps and block erases: IsValid, the rule
// computed from the tables, NextValid and ValidPages over random ranges all
// agree with the model after every step.
TEST(Mapping, ValidBitsAgreeWithTheTablesUnderRandomUpdates) {
  const flash::Geometry g = Geo();
  const uint64_t pages = g.pages();
  const uint64_t logical = pages * 3 / 4;
  Mapping m(logical, g, MapUnit::kPage);
  std::vector<int64_t> l2p(logical, -1), p2l(pages, -1);
  std::vector<uint64_t> next_free(g.blocks(), 0);  // pages written per block since its erase
  sim::Rng rng(7, "mapping");
  auto valid = [&](uint64_t p) { return p2l[p] >= 0 && l2p[p2l[p]] == static_cast<int64_t>(p); };
  uint64_t checked = 0, valid_seen = 0;
  for (int step = 0; step < 20000; ++step) {
    const uint64_t r = rng.Uniform(100);
    if (r < 80) {  // write l to the next erased page of a random block (remapping it if mapped)
      const uint64_t b = rng.Uniform(g.blocks());
      if (next_free[b] == g.pages_per_block) continue;
      const uint64_t p = b * g.pages_per_block + next_free[b]++;
      const Lpn l{rng.Uniform(logical)};
      if (m.IsMapped(l)) m.Unmap(l, /*block_still_written=*/false);
      m.Map(l, flash::Ppn{p});
      l2p[l.v] = static_cast<int64_t>(p);
      p2l[p] = static_cast<int64_t>(l.v);
    } else if (r < 95) {  // trim
      const Lpn l{rng.Uniform(logical)};
      if (!m.IsMapped(l)) continue;
      m.Unmap(l, false);
      l2p[l.v] = -1;
    } else {  // erase a block whose pages are all stale (unmap what is still valid first)
      const uint64_t b = rng.Uniform(g.blocks());
      for (uint64_t p = b * g.pages_per_block; p < (b + 1) * g.pages_per_block; ++p) {
        if (!valid(p)) continue;
        m.Unmap(Lpn{static_cast<uint64_t>(p2l[p])}, false);
        l2p[p2l[p]] = -1;
      }
      m.ResetBlock(b);
      for (uint64_t p = b * g.pages_per_block; p < (b + 1) * g.pages_per_block; ++p) p2l[p] = -1;
      next_free[b] = 0;
    }
    for (int k = 0; k < 8; ++k) {
      const flash::Ppn p{rng.Uniform(pages)};
      ASSERT_EQ(m.IsValid(p), valid(p.v)) << "step " << step << " ppn " << p.v;
      ASSERT_EQ(m.IsValidByTables(p), valid(p.v)) << "step " << step << " ppn " << p.v;
      valid_seen += valid(p.v);
      ++checked;
    }
    const uint64_t first = rng.Uniform(pages);
    const uint64_t last = first + rng.Uniform(pages - first + 1);
    uint64_t want = first;
    while (want < last && !valid(want)) ++want;
    ASSERT_EQ(m.NextValid(first, last), want) << "step " << step << " range [" << first << ", " << last << ")";
    // ValidPages lists the same pages as a page-by-page walk.
    std::vector<uint64_t> listed(last - first + 1, UINT64_MAX), walked;
    for (uint64_t p = first; p < last; ++p) {
      if (valid(p)) walked.push_back(p);
    }
    listed.resize(m.ValidPages(first, last, listed.data()));
    ASSERT_EQ(listed, walked) << "step " << step << " range [" << first << ", " << last << ")";
  }
  // The walk visited both states often.
  EXPECT_GT(valid_seen, checked / 10);
  EXPECT_LT(valid_seen, checked * 9 / 10);
}

// Widths of 17 to 32 bits become 32-bit words while both tables so stored
// fit kAlignedTableBytes; a larger device (1 TiB of 4 KiB pages) keeps the
// packed widths, and so does a narrow table (block mapping's block ids).
// TableBytes is what the Mapping takes, and random writes, remaps and trims
// read back as written through the 32-bit entries.
TEST(Mapping, EntriesOfSeventeenToThirtyTwoBitsAreWordsUpToTheLimit) {
  flash::Geometry g = Geo();
  g.blocks_per_plane = 1024;
  g.pages_per_block = 128;  // 2^18 pages
  const uint64_t pages = g.pages();
  const uint64_t logical = pages * 7 / 8;
  ASSERT_GT(PackedArray::BitsFor(pages), 16u);
  ASSERT_LT(PackedArray::BitsFor(pages), 32u);
  const Mapping::Widths w = Mapping::TableWidths(logical, g, MapUnit::kPage);
  EXPECT_EQ(w.l2p, 32u);
  EXPECT_EQ(w.p2l, 32u);
  EXPECT_EQ(Mapping::TableWidths(logical, g, MapUnit::kBlock).l2p, PackedArray::BitsFor(g.blocks()));
  flash::Geometry big = g;
  big.channels = 8;
  big.chips_per_channel = 4;
  big.dies_per_chip = 2;
  big.blocks_per_plane = 8192;
  big.pages_per_block = 256;
  ASSERT_EQ(big.pages(), uint64_t{1} << 28);
  const uint64_t big_logical = big.pages() * 15 / 16;
  const Mapping::Widths wb = Mapping::TableWidths(big_logical, big, MapUnit::kPage);
  EXPECT_EQ(wb.l2p, PackedArray::BitsFor(big.pages()));
  EXPECT_EQ(wb.p2l, PackedArray::BitsFor(big_logical));

  Mapping m(logical, g, MapUnit::kPage);
  EXPECT_EQ(m.l2p_bits(), 32u);
  EXPECT_EQ(m.p2l_bits(), 32u);
  EXPECT_EQ(m.MemoryBytes(), Mapping::TableBytes(logical, g, MapUnit::kPage));
  std::vector<int64_t> l2p(logical, -1), p2l(pages, -1);
  sim::Rng rng(11, "mapping.aligned");
  uint64_t next = 0;  // pages are written once each, in order
  for (int step = 0; step < 200000 && next < pages; ++step) {
    const Lpn l{rng.Uniform(logical)};
    const flash::Ppn old = m.PageOf(l);
    ASSERT_EQ(old.valid() ? static_cast<int64_t>(old.v) : -1, l2p[l.v]) << "step " << step;
    if (rng.Uniform(10) == 0) {
      if (old.valid()) {
        m.Unmap(l, false);
        l2p[l.v] = -1;
      }
      continue;
    }
    const flash::Ppn dst{next++};
    m.Remap(l, old, dst);
    l2p[l.v] = static_cast<int64_t>(dst.v);
    p2l[dst.v] = static_cast<int64_t>(l.v);
    ASSERT_EQ(m.LpnAt(dst), l);
    if (old.valid()) ASSERT_FALSE(m.IsValid(old));
    ASSERT_TRUE(m.IsValid(dst));
  }
  for (uint64_t i = 0; i < logical; ++i) {
    const flash::Ppn p = m.Lookup(Lpn{i});
    ASSERT_EQ(p.valid() ? static_cast<int64_t>(p.v) : -1, l2p[i]) << "lpn " << i;
  }
}

// MovePage (a GC move that knows the source page) and Remap (a host write
// that read the old page) leave the same tables as Unmap + Map: two
// mappings under the same random writes, moves and erases, one updated with
// Unmap + Map and one with Remap and MovePage, agree on every L2P entry,
// P2L entry and valid bit after every step.
TEST(Mapping, MovePageAndRemapEqualUnmapThenMap) {
  const flash::Geometry g = Geo();
  const uint64_t pages = g.pages();
  const uint64_t logical = pages / 2;
  Mapping a(logical, g, MapUnit::kPage), b(logical, g, MapUnit::kPage);
  std::vector<uint64_t> next_free(g.blocks(), 0);
  sim::Rng rng(11, "mapping.move");
  uint64_t moves = 0;
  auto take = [&]() -> int64_t {  // the next erased page of a random block, or -1
    const uint64_t blk = rng.Uniform(g.blocks());
    if (next_free[blk] == g.pages_per_block) return -1;
    return static_cast<int64_t>(blk * g.pages_per_block + next_free[blk]++);
  };
  for (int step = 0; step < 20000; ++step) {
    const uint64_t r = rng.Uniform(100);
    const Lpn l{rng.Uniform(logical)};
    if (r < 50) {  // host write: a unmaps and maps, b remaps
      const int64_t p = take();
      if (p < 0) continue;
      const flash::Ppn old = b.PageOf(l);
      ASSERT_EQ(old, a.Lookup(l)) << "step " << step;
      if (a.IsMapped(l)) a.Unmap(l, false);
      a.Map(l, flash::Ppn{static_cast<uint64_t>(p)});
      b.Remap(l, old, flash::Ppn{static_cast<uint64_t>(p)});
    } else if (r < 95) {  // GC move of l's valid copy
      if (!a.IsMapped(l)) continue;
      const int64_t p = take();
      if (p < 0) continue;
      const flash::Ppn src = a.Lookup(l), dst{static_cast<uint64_t>(p)};
      a.Unmap(l, false);
      a.Map(l, dst);
      b.MovePage(l, src, dst);
      ++moves;
    } else {  // erase a block whose valid pages are trimmed first
      const uint64_t blk = rng.Uniform(g.blocks());
      for (uint64_t p = blk * g.pages_per_block; p < (blk + 1) * g.pages_per_block; ++p) {
        if (!a.IsValid(flash::Ppn{p})) continue;
        a.Unmap(a.LpnAt(flash::Ppn{p}), false);
        b.Unmap(b.LpnAt(flash::Ppn{p}), false);
      }
      a.ResetBlock(blk);
      b.ResetBlock(blk);
      next_free[blk] = 0;
    }
    if (step % 97 == 0 || step == 19999) {
      for (uint64_t x = 0; x < logical; ++x) ASSERT_EQ(a.Lookup(Lpn{x}), b.Lookup(Lpn{x})) << "step " << step;
      for (uint64_t p = 0; p < pages; ++p) {
        ASSERT_EQ(a.LpnAt(flash::Ppn{p}), b.LpnAt(flash::Ppn{p})) << "step " << step << " ppn " << p;
        ASSERT_EQ(b.IsValid(flash::Ppn{p}), b.IsValidByTables(flash::Ppn{p})) << "step " << step << " ppn " << p;
        ASSERT_EQ(a.IsValid(flash::Ppn{p}), b.IsValid(flash::Ppn{p})) << "step " << step << " ppn " << p;
      }
    }
  }
  EXPECT_GT(moves, 1000u);
}

// kBlock mode keeps no valid bits: NextValid follows the tables' rule.
TEST(Mapping, BlockModeNextValidFollowsTheTables) {
  const flash::Geometry g = Geo();
  Mapping m(g.pages() / 2, g, MapUnit::kBlock);
  for (uint64_t l = 0; l < 10; ++l) m.Map(Lpn{l}, flash::Ppn{3 * l});
  m.Unmap(Lpn{0}, /*block_still_written=*/true);
  m.Unmap(Lpn{1}, true);
  EXPECT_EQ(m.NextValid(0, g.pages()), 6u);
  EXPECT_EQ(m.NextValid(7, 9), 9u);
  EXPECT_TRUE(m.IsValid(flash::Ppn{27}));
}

}  // namespace
}  // namespace ftl
