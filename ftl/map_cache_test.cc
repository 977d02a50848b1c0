// MapCache (LRU over mapping entries, DFTL write-back batching) and the
// page-mapped FTL's demand-cached mapping table run functionally.
#include "ftl/map_cache.h"

#include <cstdio>

#include <gtest/gtest.h>

#include "ftl/ftl_core.h"
#include "sim/rng.h"

namespace ftl {
namespace {

TEST(MapCache, LruEvictsLeastRecentlyUsed) {
  MapCache c(/*logical_pages=*/100, /*capacity=*/3, /*entries_per_page=*/10);
  EXPECT_FALSE(c.Touch(Lpn{1}, false).hit);
  EXPECT_FALSE(c.Touch(Lpn{2}, false).hit);
  EXPECT_FALSE(c.Touch(Lpn{3}, false).hit);
  EXPECT_TRUE(c.Touch(Lpn{1}, false).hit);  // 2 is now least recent
  EXPECT_FALSE(c.Touch(Lpn{4}, false).hit);
  EXPECT_FALSE(c.Cached(Lpn{2}));
  EXPECT_TRUE(c.Cached(Lpn{1}));
  EXPECT_TRUE(c.Cached(Lpn{3}));
  EXPECT_EQ(c.size(), 3u);
}

TEST(MapCache, DirtyEvictionWritesItsPageOnceForAllItsEntries) {
  MapCache c(100, 3, 10);
  c.Touch(Lpn{11}, true);   // page 1
  c.Touch(Lpn{12}, true);   // page 1
  c.Touch(Lpn{25}, false);  // page 2, clean
  // Evicts 11 (dirty): page 1 is written back, and 12 rides along.
  MapCache::Access a = c.Touch(Lpn{30}, false);
  EXPECT_FALSE(a.hit);
  EXPECT_EQ(a.writeback, 1u);
  EXPECT_TRUE(c.Cached(Lpn{12}));
  EXPECT_FALSE(c.Dirty(Lpn{12}));
  // Evicting 12 (clean now) and 25 (clean) writes nothing.
  EXPECT_EQ(c.Touch(Lpn{40}, false).writeback, MapCache::kNoPage);
  EXPECT_EQ(c.Touch(Lpn{50}, false).writeback, MapCache::kNoPage);
}

TEST(MapCache, MarkDirtyKeepsLruOrderAndReportsUncachedEntries) {
  MapCache c(100, 2, 10);
  c.Touch(Lpn{1}, false);
  c.Touch(Lpn{2}, false);
  EXPECT_TRUE(c.MarkDirty(Lpn{1}));
  EXPECT_FALSE(c.MarkDirty(Lpn{3}));
  // 1 stays least recent: it is evicted, dirty, page 0 written back.
  EXPECT_EQ(c.Touch(Lpn{3}, false).writeback, 0u);
  EXPECT_FALSE(c.Cached(Lpn{1}));
}

// 4 planes x 128 blocks x 64 pages of 4 KiB: 32768 pages; 1024 entries per
// translation page.
flash::Geometry Geo() {
  flash::Geometry g;
  g.channels = 2;
  g.chips_per_channel = 1;
  g.dies_per_chip = 1;
  g.planes_per_die = 2;
  g.blocks_per_plane = 128;
  g.pages_per_block = 64;
  g.page_size = sim::Bytes{4096};
  return g;
}

FtlConfig CachedConfig(uint64_t entries) {
  FtlConfig c;
  c.op = sim::Ratio{0.25};
  c.gc_threshold = sim::Ratio{0.05};
  c.map_cache.entries = entries;
  return c;
}

// The model check: under uniform random accesses over a working
// set of W entries, an LRU cache of C entries hits C / W of the time.
TEST(MapCacheFtl, UniformRandomHitRatioIsCacheSizeOverWorkingSet) {
  for (const double fraction : {0.125, 0.25, 0.5}) {
    FtlConfig cfg;
    cfg = CachedConfig(1);
    FtlCore probe(cfg, Geo());
    const uint64_t w = probe.logical_pages();
    const auto c = static_cast<uint64_t>(fraction * static_cast<double>(w));
    cfg.map_cache.entries = c;
    FtlCore core(cfg, Geo());
    for (uint64_t l = 0; l < w; ++l) core.Write(Lpn{l});
    sim::Rng rng(7, "test");
    for (uint64_t i = 0; i < w; ++i) core.Write(Lpn{rng.Uniform(w)});  // warm the cache
    core.ResetCounters();
    for (uint64_t i = 0; i < 8 * w; ++i) core.Write(Lpn{rng.Uniform(w)});
    const double hits = static_cast<double>(core.counters().map_hits.value());
    const double misses = static_cast<double>(core.counters().map_misses.value());
    const double ratio = hits / (hits + misses);
    const double model = static_cast<double>(c) / static_cast<double>(w);
    std::printf("map cache %llu of %llu entries: hit ratio %.4f, model C/W %.4f\n",
                static_cast<unsigned long long>(c), static_cast<unsigned long long>(w), ratio, model);
    EXPECT_NEAR(ratio / model, 1.0, 0.02) << "cache " << c << " of " << w << ": hit ratio " << ratio;
    EXPECT_EQ(core.CheckConsistency(), "");
    // Misses read translation pages; dirty evictions write them.
    EXPECT_GT(core.counters().map_reads.value(), core.counters().map_misses.value() / 2);
    EXPECT_GT(core.counters().map_writes.value(), 0u);
  }
}

TEST(MapCacheFtl, TranslationPagesSurviveHeavyGcWithASmallCache) {
  FtlCore core(CachedConfig(64), Geo());
  const uint64_t w = core.logical_pages();
  ASSERT_EQ(core.translation_pages(), (w + 1023) / 1024);
  for (uint64_t l = 0; l < w; ++l) core.Write(Lpn{l});
  sim::Rng rng(3, "test");
  for (uint64_t i = 0; i < 6 * w; ++i) core.Write(Lpn{rng.Uniform(w)});
  core.Trim(Lpn{100}, 3000);
  core.FlushMapUpdates();
  EXPECT_GT(core.counters().map_gc_copies.value(), 0u) << "GC relocated translation pages";
  EXPECT_EQ(core.CheckConsistency(), "");
  // Every translation page is on flash, valid, and recorded in the directory.
  for (uint64_t t = 0; t < core.translation_pages(); ++t) {
    const flash::Ppn p = core.Lookup(core.TranslationLpn(t));
    ASSERT_TRUE(p.valid()) << "translation page " << t;
    EXPECT_EQ(core.mapping().LpnAt(p), core.TranslationLpn(t));
    EXPECT_TRUE(core.mapping().IsValid(p));
  }
  // Every data page is still mapped (except the trimmed range).
  for (uint64_t l = 0; l < w; ++l) {
    EXPECT_EQ(core.Lookup(Lpn{l}).valid(), l < 100 || l >= 3100) << "lpn " << l;
  }
}

TEST(MapCacheFtl, WholeTableCacheWritesNoTranslationPage) {
  FtlCore probe(CachedConfig(1), Geo());
  FtlCore core(CachedConfig(probe.logical_pages()), Geo());
  const uint64_t w = core.logical_pages();
  sim::Rng rng(5, "test");
  for (uint64_t i = 0; i < 3 * w; ++i) core.Write(Lpn{rng.Uniform(w)});
  EXPECT_EQ(core.counters().map_writes.value(), 0u);
  EXPECT_EQ(core.counters().map_reads.value(), 0u);
  EXPECT_EQ(core.CheckConsistency(), "");
}

TEST(MapCacheFtl, ConfigErrorsNameTheKey) {
  FtlConfig c = CachedConfig(100);
  c.map_cache.size = sim::Bytes{4096};
  EXPECT_EQ(c.Validate(Geo()).message().rfind("ftl.map_cache.size: give the cache as entries or as size", 0), 0u);
  c.map_cache.entries = 0;
  c.map_cache.size = sim::Bytes{2};
  EXPECT_EQ(c.Validate(Geo()).message().rfind("ftl.map_cache.size: 2 bytes hold no 4-byte entry", 0), 0u);
  c.map_cache.size = sim::Bytes{4096};
  EXPECT_TRUE(c.Validate(Geo()).ok());
  EXPECT_EQ(c.map_cache.Capacity(), 1024u);
  c.map_cache.size = sim::Bytes{0};
  c.map_cache.entries = 100;
  c.map_cache.entry_bytes = 8192;
  EXPECT_EQ(c.Validate(Geo()).message().rfind("ftl.map_cache.entry_bytes: 8192 bytes do not fit", 0), 0u);
}

}  // namespace
}  // namespace ftl
