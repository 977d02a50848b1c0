#include "ftl/ftl_core.h"

#include <cstdio>
#include <cstdlib>

#include <gtest/gtest.h>

#include "ftl/skewed_stream.h"
#include "sim/rng.h"

namespace ftl {
namespace {

// 2 channels x 1 chip x 2 dies x 2 planes = 8 planes.
flash::Geometry Geo(uint32_t blocks = 32, uint32_t pages = 16) {
  flash::Geometry g;
  g.channels = 2;
  g.chips_per_channel = 1;
  g.dies_per_chip = 2;
  g.planes_per_die = 2;
  g.blocks_per_plane = blocks;
  g.pages_per_block = pages;
  g.page_size = sim::Bytes{4096};
  return g;
}

FtlConfig Config(const std::string& victim = "greedy", const std::string& allocation = "page_stripe",
                 const std::string& mapping = "page") {
  FtlConfig c;
  c.op = sim::Ratio{0.25};
  c.victim = victim;
  c.allocation = allocation;
  c.mapping = mapping;
  CHECK(sim::SetKey(sim::SchemaOf<FtlConfig>(), &c, "d_choices.d", "4").ok());
  return c;
}

TEST(FtlCore, LogicalPagesFollowOpConvention) {
  FtlConfig c = Config();
  c.op = sim::Ratio{0.28};
  FtlCore core(c, Geo());
  EXPECT_EQ(core.physical_pages(), 8u * 32 * 16);
  EXPECT_EQ(core.logical_pages(), static_cast<uint64_t>(8.0 * 32 * 16 / 1.28));
}

// allocation static: Lpn l's channel, way, die and plane are the digits of
// l in the radixes of stripe_order (first letter least significant),
// whatever order the pages are written in, and GC keeps them there.
TEST(FtlCore, StaticAllocationFixesPlaceByAddress) {
  flash::Geometry g = Geo();
  g.chips_per_channel = 2;  // 2 channels x 2 ways x 2 dies x 2 planes
  for (const std::string order : {"CWDP", "PDWC", "WCPD", "DPCW"}) {
    FtlConfig c = Config("greedy", "static");
    c.stripe_order = order;
    FtlCore core(c, g);
    const uint64_t u = core.logical_pages();
    for (uint64_t l = u; l-- > 0;) core.Write(Lpn{l});  // backwards
    sim::Rng rng(2, "t");
    for (uint64_t i = 0; i < 3 * u; ++i) core.Write(Lpn{rng.Uniform(u)});
    ASSERT_GT(core.counters().gc_copies.value(), 0u);
    EXPECT_EQ(core.counters().redirected_writes.value(), 0u);
    EXPECT_EQ(core.CheckConsistency(), "");
    for (uint64_t l = 0; l < u; ++l) {
      uint64_t rest = l;
      flash::FlashAddr want;
      for (const char letter : order) {
        switch (letter) {
          case 'C': want.channel = static_cast<uint32_t>(rest % g.channels); rest /= g.channels; break;
          case 'W': want.chip = static_cast<uint32_t>(rest % g.chips_per_channel); rest /= g.chips_per_channel; break;
          case 'D': want.die = static_cast<uint32_t>(rest % g.dies_per_chip); rest /= g.dies_per_chip; break;
          default: want.plane = static_cast<uint32_t>(rest % g.planes_per_die); rest /= g.planes_per_die; break;
        }
      }
      const flash::FlashAddr got = g.ToAddr(core.Lookup(Lpn{l}));
      ASSERT_EQ(got.channel, want.channel) << order << " lpn " << l;
      ASSERT_EQ(got.chip, want.chip) << order << " lpn " << l;
      ASSERT_EQ(got.die, want.die) << order << " lpn " << l;
      ASSERT_EQ(got.plane, want.plane) << order << " lpn " << l;
    }
  }
}

// Hot/cold: a tenth of the logical space is rewritten over and over, the
// rest written once. Without wear leveling the units holding cold data are
// never erased again while hot units wear; static wear leveling moves the
// cold data off lagging units and keeps the erase-count spread near the gap.
TEST(FtlCore, WearLevelingNarrowsEraseCountSpread) {
  auto spread = [](const WearLevelingConfig& wl, uint64_t* moved, uint64_t* gc) {
    FtlConfig c = Config();
    c.wear_leveling = wl;
    FtlCore core(c, Geo(64, 16));
    const uint64_t u = core.logical_pages();
    for (uint64_t l = 0; l < u; ++l) core.Write(Lpn{l});
    sim::Rng rng(8, "hot");
    for (uint64_t i = 0; i < 40 * u; ++i) core.Write(Lpn{rng.Uniform(u / 10)});
    EXPECT_EQ(core.CheckConsistency(), "");
    *moved = core.counters().wl_copies.value();
    *gc = core.counters().gc_copies.value();
    const EraseCountSummary e = core.EraseCounts();
    return e.max - e.min;
  };
  uint64_t moved_none, gc_none, moved_dyn, gc_dyn, moved_wl, gc_wl;
  WearLevelingConfig none;
  WearLevelingConfig dynamic;
  dynamic.dynamic = true;
  WearLevelingConfig both;
  both.dynamic = true;
  both.static_gap = 10;
  const uint32_t s_none = spread(none, &moved_none, &gc_none);
  const uint32_t s_dyn = spread(dynamic, &moved_dyn, &gc_dyn);
  const uint32_t s_wl = spread(both, &moved_wl, &gc_wl);
  std::printf("erase-count spread: none %u, dynamic %u, dynamic + static gap 10 %u (moved %llu pages)\n", s_none,
              s_dyn, s_wl, static_cast<unsigned long long>(moved_wl));
  EXPECT_EQ(moved_none, 0u);
  EXPECT_EQ(moved_dyn, 0u);
  EXPECT_GT(s_none, 40u) << "cold units stay at their first erases";
  EXPECT_LE(s_wl, 10u + 6u);
  EXPECT_LT(s_wl, s_none / 4);
  EXPECT_GT(moved_wl, 0u);
  EXPECT_GT(gc_wl, gc_dyn) << "moves count as GC copies (write amplification)";
}

TEST(FtlCore, WriteLookupOverwrite) {
  FtlCore core(Config(), Geo());
  EXPECT_FALSE(core.Lookup(Lpn{5}).valid());
  core.Write(Lpn{5});
  const flash::Ppn first = core.Lookup(Lpn{5});
  ASSERT_TRUE(first.valid());
  EXPECT_EQ(core.ValidLpnAt(first), Lpn{5});
  core.Write(Lpn{5});
  const flash::Ppn second = core.Lookup(Lpn{5});
  EXPECT_NE(first, second);
  EXPECT_FALSE(core.ValidLpnAt(first).valid()) << "old copy is stale";
  EXPECT_EQ(core.counters().host_writes.value(), 2u);
  EXPECT_EQ(core.CheckConsistency(), "");
}

// Every combination of mapping, allocation and victim policy stays
// consistent through GC-heavy random writes, trims and hot/cold streams.
// Page and block mapping place and collect identically (the granularity
// only changes how validity is found): the same random writes and trims,
// with GC, end in the same counters, the same page for every Lpn and the
// same units (state, valid and erase counts, close order). With one-plane
// units, page mapping finds the pages GC moves from its valid bits (in Ppn
// order) and places host pages and GC moves in runs
// (BlockManager::AllocateRun); block mapping finds them from the L2P and
// P2L tables and places them page by page (Allocate, ProgramDone).
TEST(FtlCore, ValidBitGcMovesWhatTheTablesSay) {
  for (const std::string victim : {"greedy", "fifo", "cost_benefit"}) {
    FtlCore page(Config(victim, "page_stripe", "page"), Geo(64, 16));
    FtlCore block(Config(victim, "page_stripe", "block"), Geo(64, 16));
    const uint64_t u = page.logical_pages();
    page.Precondition(PreconditionSpec{1.0, 1.0, 4});
    block.Precondition(PreconditionSpec{1.0, 1.0, 4});
    sim::Rng rng(5, "valid-bits");
    for (int round = 0; round < 4; ++round) {
      for (uint64_t i = 0; i < u; ++i) {
        const Lpn l{rng.Uniform(4) == 0 ? rng.Uniform(16) : rng.Uniform(u)};
        page.Write(l);
        block.Write(l);
      }
      const Lpn first{rng.Uniform(u)};
      const uint64_t count = 1 + rng.Uniform(u / 8);
      page.Trim(first, count);
      block.Trim(first, count);
      ASSERT_EQ(page.CheckConsistency(), "") << victim << " round " << round;
      ASSERT_EQ(block.CheckConsistency(), "") << victim << " round " << round;
    }
    EXPECT_GT(page.counters().gc_copies.value(), u) << victim;
    EXPECT_EQ(page.counters().gc_copies.value(), block.counters().gc_copies.value()) << victim;
    EXPECT_EQ(page.counters().unit_erases.value(), block.counters().unit_erases.value()) << victim;
    for (uint64_t l = 0; l < u; ++l) ASSERT_EQ(page.Lookup(Lpn{l}), block.Lookup(Lpn{l})) << victim << " lpn " << l;
    const BlockManager& pb = page.blocks();
    const BlockManager& bb = block.blocks();
    EXPECT_EQ(pb.write_seq(), bb.write_seq()) << victim;
    EXPECT_EQ(pb.erased_pages(), bb.erased_pages()) << victim;
    for (UnitId unit = 0; unit < pb.units(); ++unit) {
      ASSERT_EQ(pb.state(unit), bb.state(unit)) << victim << " unit " << unit;
      ASSERT_EQ(pb.valid(unit), bb.valid(unit)) << victim << " unit " << unit;
      ASSERT_EQ(pb.erase_count(unit), bb.erase_count(unit)) << victim << " unit " << unit;
      ASSERT_EQ(pb.close_seq(unit), bb.close_seq(unit)) << victim << " unit " << unit;
    }
  }
}

struct Combo {
  std::string mapping, allocation, victim;
};
void PrintTo(const Combo& c, std::ostream* os) { *os << c.mapping << "/" << c.allocation << "/" << c.victim; }

class FtlCoreCombos : public ::testing::TestWithParam<Combo> {};

TEST_P(FtlCoreCombos, RandomWritesTrimsStayConsistent) {
  const Combo& p = GetParam();
  FtlConfig c = Config(p.victim, p.allocation, p.mapping);
  c.hot_cold = true;
  // Superblock units span all 8 planes: give the device enough of them.
  FtlCore core(c, p.allocation == "superblock" ? Geo(64, 8) : Geo(64, 16));
  const uint64_t u = core.logical_pages();
  sim::Rng rng(3, "combo");
  core.Precondition(PreconditionSpec{1.0, 0.5, 9});
  for (int round = 0; round < 4; ++round) {
    for (uint64_t i = 0; i < 2 * u; ++i) {
      // A small hot set rewritten often (exercises same-block rewrites in
      // block mapping) plus uniform writes, some hinted cold.
      const Lpn l{rng.Uniform(4) == 0 ? rng.Uniform(8) : rng.Uniform(u)};
      core.Write(l, rng.Uniform(3) == 0 ? Stream::kHostCold : Stream::kHostHot);
    }
    core.Trim(Lpn{rng.Uniform(u)}, 1 + rng.Uniform(u / 16));
    ASSERT_EQ(core.CheckConsistency(), "") << "round " << round;
    // NextValidPage (GC's scan) against a page-by-page check of every unit.
    const BlockManager& b = core.blocks();
    for (UnitId unit = 0; unit < b.units(); ++unit) {
      uint32_t want = 0;
      for (uint32_t i = 0; i <= b.unit_pages(); ++i) {
        if (i < b.unit_pages() && !core.ValidLpnAt(b.PpnOf(unit, i)).valid()) continue;
        for (; want <= i; ++want) {
          ASSERT_EQ(core.NextValidPage(unit, want), i) << "unit " << unit << " from page " << want;
        }
      }
    }
  }
  EXPECT_GT(core.counters().gc_copies.value(), 0u);
  EXPECT_GT(core.counters().trimmed_pages.value(), 0u);
  EXPECT_GT(core.counters().unit_erases.value(), 0u);
  EXPECT_EQ(core.counters().block_erases.value(),
            core.counters().unit_erases.value() * core.blocks().group_planes());
  const EraseCountSummary e = core.EraseCounts();
  EXPECT_LE(e.min, e.mean);
  EXPECT_LE(e.mean, e.max);
  EXPECT_GT(e.max, 0u);
}

std::vector<Combo> AllCombos() {
  std::vector<Combo> v;
  for (const char* m : {"page", "block"}) {
    for (const auto& a : AllocatorNames()) {
      for (const auto& victim : VictimPolicyNames()) v.push_back({m, a, victim});
    }
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(All, FtlCoreCombos, ::testing::ValuesIn(AllCombos()), [](const auto& info) {
  return info.param.mapping + "_" + info.param.allocation + "_" + info.param.victim;
});

TEST(FtlCore, BlockMappingFindsPagesInBlock) {
  FtlConfig c = Config("greedy", "page_stripe", "block");
  FtlCore core(c, Geo());
  EXPECT_LT(core.mapping().l2p_bits(), PackedArray::BitsFor(core.physical_pages()));
  // Rewrite one lpn many times: its copies pile up in the open block of one
  // plane; exactly one stays valid.
  for (int i = 0; i < 100; ++i) core.Write(Lpn{7});
  const flash::Ppn p = core.Lookup(Lpn{7});
  ASSERT_TRUE(p.valid());
  EXPECT_EQ(core.ValidLpnAt(p), Lpn{7});
  EXPECT_EQ(core.CheckConsistency(), "");
  core.Trim(Lpn{7}, 1);
  EXPECT_FALSE(core.Lookup(Lpn{7}).valid());
  core.Write(Lpn{7});
  EXPECT_EQ(core.CheckConsistency(), "");
}

TEST(FtlCore, TrimmingWrittenDataLowersGcCopies) {
  // Same random overwrite stream; in one run the upper half of the logical
  // space is trimmed after the fill and never written again, so that half is
  // free space the GC no longer copies.
  auto run = [](bool trim) {
    FtlCore core(Config(), Geo());
    const uint64_t u = core.logical_pages();
    core.Precondition(PreconditionSpec{1.0, 0.0, 1});
    if (trim) core.Trim(Lpn{u / 2}, u - u / 2);
    const uint64_t gc0 = core.counters().gc_copies.value();
    sim::Rng rng(5, "trim");
    for (uint64_t i = 0; i < 4 * u; ++i) core.Write(Lpn{rng.Uniform(u / 2)});
    EXPECT_EQ(core.CheckConsistency(), "");
    return std::pair(core.counters().gc_copies.value() - gc0, core.counters().trimmed_pages.value());
  };
  const auto [copies_kept, trimmed_none] = run(false);
  const auto [copies_trimmed, trimmed] = run(true);
  EXPECT_EQ(trimmed_none, 0u);
  EXPECT_GT(trimmed, 0u);
  EXPECT_LT(copies_trimmed * 3, copies_kept) << "trim should cut GC copies by far more than 3x";
}

TEST(FtlCore, HotColdSeparationLowersWa) {
  // 90% of writes go to 10% of the space; the host marks the other 90% cold.
  // With separation, cold data (host writes and its GC copies) stays out of
  // hot units, so hot units empty out and greedy GC copies less.
  auto run = [](bool separate) {
    FtlConfig c = Config();
    c.op = sim::Ratio{0.15};
    c.hot_cold = separate;
    FtlCore core(c, Geo(128, 32));
    const uint64_t u = core.logical_pages();
    const uint64_t hot = u / 10;
    core.Precondition(PreconditionSpec{1.0, 0.0, 1});
    sim::Rng rng(2, "hotcold");
    auto write = [&] {
      if (rng.Uniform(10) != 0) {
        core.Write(Lpn{rng.Uniform(hot)}, core.HostStream(Temperature::kHot));
      } else {
        core.Write(Lpn{hot + rng.Uniform(u - hot)}, core.HostStream(Temperature::kCold));
      }
    };
    for (uint64_t i = 0; i < 20 * u; ++i) write();
    const uint64_t h0 = core.counters().host_writes.value(), g0 = core.counters().gc_copies.value();
    for (uint64_t i = 0; i < 6 * u; ++i) write();
    EXPECT_EQ(core.CheckConsistency(), "");
    const double h = static_cast<double>(core.counters().host_writes.value() - h0);
    return (h + static_cast<double>(core.counters().gc_copies.value() - g0)) / h;
  };
  const double mixed = run(false);
  const double separated = run(true);
  EXPECT_LT(separated, 0.9 * mixed) << "mixed " << mixed << " separated " << separated;
}

TEST(FtlCore, KeepsBackgroundThresholdAndReserve) {
  FtlConfig c = Config();
  c.gc_threshold = sim::Ratio{0.1};  // 7 of 64 units per plane (12.8 units of spare)
  FtlCore core(c, Geo(64, 16));
  EXPECT_EQ(core.bg_threshold_units(), 7u);
  core.Precondition(PreconditionSpec{1.0, 2.0, 1});
  for (uint32_t g = 0; g < core.blocks().groups(); ++g) {
    EXPECT_GE(core.blocks().free_units(g), 7u) << "functional GC restores the threshold after each write";
  }
  c.gc_threshold = sim::Ratio{0};
  c.gc_threshold_units = 0;
  c.gc_fg_threshold = 3;
  FtlCore low(c, Geo(64, 16));
  EXPECT_EQ(low.bg_threshold_units(), 4u) << "at least one above the GC reserve";
}

// gc_threshold_stagger: group g's threshold is raised by g mod (S + 1), so
// planes filled at the same rate start GC at different times.
TEST(FtlCore, StaggeredThresholdsSpreadGcStarts) {
  auto first_erase = [](uint32_t stagger) {
    FtlConfig c = Config();
    c.gc_threshold_stagger = stagger;
    FtlCore core(c, Geo(64, 16));
    const uint32_t groups = core.blocks().groups();
    for (uint32_t g = 0; g < groups; ++g) {
      EXPECT_EQ(core.BgThreshold(g), core.bg_threshold_units() + (stagger == 0 ? 0 : g % (stagger + 1)));
    }
    std::vector<int64_t> first(groups, -1);
    sim::Rng rng(5, "t");
    const uint64_t u = core.logical_pages();
    for (uint64_t i = 0; i < 2 * u; ++i) {
      core.Write(Lpn{i < u ? i : rng.Uniform(u)});
      for (uint32_t g = 0; g < groups; ++g) {
        if (first[g] >= 0) continue;
        for (UnitId x = g * core.blocks().units_per_group(); x < (g + 1) * core.blocks().units_per_group(); ++x) {
          if (core.blocks().erase_count(x) > 0) first[g] = static_cast<int64_t>(i);
        }
      }
    }
    EXPECT_EQ(core.CheckConsistency(), "");
    for (uint32_t g = 0; g < groups; ++g) {
      EXPECT_GE(core.blocks().free_units(g), core.BgThreshold(g)) << "each group keeps its own threshold";
    }
    return first;
  };
  const std::vector<int64_t> flat = first_erase(0);
  const std::vector<int64_t> staggered = first_erase(1);
  // Page striping fills the planes in turn: without a stagger the planes of
  // a die (groups 2k, 2k+1) start GC within a few writes of each other; with
  // one, the odd plane keeps a unit (16 pages a plane) more free and starts
  // well before.
  for (uint32_t g = 0; g + 1 < flat.size(); g += 2) {
    ASSERT_GE(flat[g], 0);
    ASSERT_GE(staggered[g], 0);
    EXPECT_LE(std::abs(flat[g + 1] - flat[g]), 8) << g;
    EXPECT_GE(staggered[g] - staggered[g + 1], 8 * 16 - 8) << g;  // 8 planes: a unit = 128 host writes
  }
}

TEST(FtlCore, PreconditionIsDeterministic) {
  FtlCore a(Config("random"), Geo());
  FtlCore b(Config("random"), Geo());
  a.Precondition(PreconditionSpec{0.8, 1.5, 4});
  b.Precondition(PreconditionSpec{0.8, 1.5, 4});
  EXPECT_EQ(a.counters().gc_copies.value(), b.counters().gc_copies.value());
  for (uint64_t l = 0; l < a.logical_pages(); ++l) ASSERT_EQ(a.Lookup(Lpn{l}), b.Lookup(Lpn{l}));
  EXPECT_FALSE(a.Lookup(Lpn{a.logical_pages() - 1}).valid()) << "beyond the fill fraction stays unmapped";
}

// The exact method is the host writes it stands for, one by one: Lpns
// [0, fill) in order, then uniform overwrites of that range drawn from the
// "ftl.precondition" stream. Configurations on Write()'s inline page path
// (page table, no mapping cache, single-plane groups) and off it (a
// mapping cache, superblock groups, block mapping) alike.
TEST(FtlCore, PreconditionIsItsWritesOneByOne) {
  FtlConfig cached = Config();
  cached.map_cache.entries = 200;
  const std::vector<FtlConfig> configs = {Config(), Config("fifo"), cached, Config("greedy", "superblock"),
                                          Config("greedy", "page_stripe", "block")};
  for (const FtlConfig& c : configs) {
    const PreconditionSpec spec{0.9, 2.0, 7, false};
    FtlCore pre(c, Geo());
    pre.Precondition(spec);
    FtlCore direct(c, Geo());
    const auto fill = static_cast<uint64_t>(spec.fill_fraction * static_cast<double>(direct.logical_pages()));
    const auto overwrites = static_cast<uint64_t>(spec.random_overwrites * static_cast<double>(direct.logical_pages()));
    for (uint64_t l = 0; l < fill; ++l) direct.Write(Lpn{l});
    sim::Rng rng(spec.seed, "ftl.precondition");
    for (uint64_t i = 0; i < overwrites; ++i) direct.Write(Lpn{rng.Uniform(fill)});
    const std::string what = c.victim + " " + c.allocation + " " + c.mapping +
                             (c.map_cache.enabled() ? " cached" : "");
    ASSERT_EQ(pre.CheckConsistency(), "") << what;
    EXPECT_EQ(pre.counters().host_writes.value(), fill + overwrites) << what;
    EXPECT_GT(pre.counters().gc_copies.value(), 0u) << what;
    EXPECT_EQ(pre.counters().host_writes.value(), direct.counters().host_writes.value()) << what;
    EXPECT_EQ(pre.counters().gc_copies.value(), direct.counters().gc_copies.value()) << what;
    EXPECT_EQ(pre.counters().unit_erases.value(), direct.counters().unit_erases.value()) << what;
    for (uint64_t l = 0; l < pre.logical_pages(); ++l) {
      ASSERT_EQ(pre.Lookup(Lpn{l}), direct.Lookup(Lpn{l})) << what << " lpn " << l;
    }
  }
}

// precondition.method replicate: a sequential fill through one group and
// copies places every page exactly where writing the whole device does
// (both mappings, fill fractions that leave a remainder, stripe orders).
TEST(FtlCore, ReplicatedFillPlacesEveryPageWhereTheWholeFillDoes) {
  for (const std::string mapping : {"page", "block"}) {
    for (const double fill : {1.0, 0.61}) {
      for (const std::string order : {"CWDP", "PDWC"}) {
        FtlConfig c = Config("greedy", "page_stripe", mapping);
        c.stripe_order = order;
        FtlCore exact(c, Geo());
        FtlCore copied(c, Geo());
        exact.Precondition(PreconditionSpec{fill, 0, 3, false});
        copied.Precondition(PreconditionSpec{fill, 0, 3, true});
        ASSERT_EQ(copied.CheckConsistency(), "");
        EXPECT_EQ(copied.counters().host_writes.value(), exact.counters().host_writes.value());
        for (uint64_t l = 0; l < exact.logical_pages(); ++l) {
          ASSERT_EQ(copied.Lookup(Lpn{l}), exact.Lookup(Lpn{l})) << mapping << " fill " << fill << " " << order
                                                                 << " lpn " << l;
        }
      }
    }
  }
}

// With random overwrites, replication reaches the steady state writing the
// whole device reaches: the write amplification of the same random writes
// afterwards agrees within 1 % (every victim policy whose state the copy
// keeps: greedy's counts, fifo's and cost-benefit's close order and age).
TEST(FtlCore, ReplicatedPreconditionReachesTheSameSteadyState) {
  flash::Geometry g = Geo(256, 64);  // 8 planes, 131,072 pages
  for (const std::string victim : {"greedy", "fifo", "cost_benefit", "random"}) {
    FtlConfig c = Config(victim);
    c.op = sim::Ratio{0.12};
    auto measure = [&](bool replicate, double* pre_wa) {
      FtlCore core(c, g);
      core.Precondition(PreconditionSpec{1.0, 2.0, 5, replicate});
      EXPECT_EQ(core.CheckConsistency(), "") << victim << " replicate " << replicate;
      const auto& k = core.counters();
      EXPECT_EQ(k.host_writes.value(), core.logical_pages() * 3) << "fill plus two overwrites";
      *pre_wa = static_cast<double>(k.host_writes.value() + k.gc_copies.value()) /
                static_cast<double>(k.host_writes.value());
      core.ResetCounters();
      sim::Rng rng(8, "measure");
      const uint64_t u = core.logical_pages();
      for (uint64_t i = 0; i < 6 * u; ++i) core.Write(Lpn{rng.Uniform(u)});
      EXPECT_EQ(core.CheckConsistency(), "");
      return static_cast<double>(k.host_writes.value() + k.gc_copies.value()) /
             static_cast<double>(k.host_writes.value());
    };
    double pre_exact = 0, pre_copied = 0;
    const double exact = measure(false, &pre_exact);
    const double copied = measure(true, &pre_copied);
    std::printf("%s: steady WA after exact %.4f, after replicate %.4f (preconditioning WA %.4f / %.4f)\n",
                victim.c_str(), exact, copied, pre_exact, pre_copied);
    EXPECT_NEAR(copied / exact, 1.0, 0.01) << victim;
    EXPECT_NEAR(pre_copied / pre_exact, 1.0, 0.02) << victim;
    EXPECT_GT(exact, 1.5) << "the window is in steady state with GC";
  }
}

// A fill smaller than the groups is written the exact way: the same state.
TEST(FtlCore, ReplicationOfAFillSmallerThanTheGroupsIsTheExactMethod) {
  FtlCore exact(Config(), Geo());
  FtlCore copied(Config(), Geo());
  const double tiny = 5.0 / static_cast<double>(exact.logical_pages());  // 5 pages, 8 groups
  exact.Precondition(PreconditionSpec{tiny, 3.0, 2, false});
  copied.Precondition(PreconditionSpec{tiny, 3.0, 2, true});
  EXPECT_EQ(copied.counters().host_writes.value(), exact.counters().host_writes.value());
  for (uint64_t l = 0; l < exact.logical_pages(); ++l) ASSERT_EQ(copied.Lookup(Lpn{l}), exact.Lookup(Lpn{l}));
}

TEST(FtlCore, ReplicationIsRefusedWhereOneGroupIsNotEveryGroup) {
  auto refused = [](FtlConfig c) {
    c.precondition.method = "replicate";
    const sim::Status st = c.Validate(Geo(128));
    return st.ok() ? std::string() : st.message();
  };
  EXPECT_EQ(refused(Config()), "");
  EXPECT_NE(refused(Config("greedy", "block_stripe")).find("needs allocation page_stripe"), std::string::npos);
  FtlConfig stagger = Config();
  stagger.gc_threshold_stagger = 2;
  EXPECT_NE(refused(stagger).find("gc_threshold_stagger"), std::string::npos);
  FtlConfig cached = Config();
  cached.map_cache.entries = 1000;
  EXPECT_NE(refused(cached).find("map_cache"), std::string::npos);
  FtlConfig unknown = Config();
  unknown.precondition.method = "fast";
  EXPECT_EQ(unknown.Validate(Geo()).message(),
            "ftl.precondition.method: unknown method 'fast'; choices: exact, replicate");
}

// Regression: a skewed stream used to fill one group with valid data (its
// GC then found only fully valid victims and aborted) while the device as a
// whole had spare space. Randomized: tiny geometries x op near the smallest
// valid one x every allocation scheme and victim policy x both mappings x
// hot/cold, writing many times the physical capacity in skewed patterns.
// Nothing aborts, the mapping stays exact and no group exceeds its cap.
TEST(FtlCore, SkewedStreamsNeverExhaustAGroup) {
  sim::Rng rng(11, "skew");
  const std::vector<std::string> allocations = AllocatorNames();
  const std::vector<std::string> victims = VictimPolicyNames();
  uint64_t redirected = 0;
  int runs = 0;
  for (int trial = 0; trial < 600; ++trial) {
    flash::Geometry g;
    g.channels = 1 + static_cast<uint32_t>(rng.Uniform(2));
    g.chips_per_channel = 1 + static_cast<uint32_t>(rng.Uniform(2));
    g.dies_per_chip = 1 + static_cast<uint32_t>(rng.Uniform(2));
    g.planes_per_die = 1 + static_cast<uint32_t>(rng.Uniform(2));
    g.blocks_per_plane = 8 + static_cast<uint32_t>(rng.Uniform(33));
    g.pages_per_block = 4u << rng.Uniform(4);
    g.page_size = sim::Bytes{4096};
    FtlConfig c = Config(victims[trial % victims.size()], allocations[(trial / victims.size()) % allocations.size()],
                         rng.Uniform(2) == 0 ? "page" : "block");
    c.hot_cold = rng.Uniform(2) == 0;
    c.seed = 1 + rng.Uniform(1000);
    const double op = SmallestValidOp(c, g, 0.01, 0.01 * static_cast<double>(rng.Uniform(20)));
    if (op == 0) continue;
    c.op = sim::Ratio{op};
    FtlCore core(c, g);
    const uint64_t u = core.logical_pages();
    if (u < 2) continue;
    SkewedStream stream = SkewedStream::Random(rng, g, u, c.hot_cold);
    const std::string what = c.allocation + "/" + c.victim + "/" + c.mapping + (c.hot_cold ? "/hot_cold" : "") +
                             " op=" + std::to_string(op) + " " + std::to_string(g.planes()) + " planes x " +
                             std::to_string(g.blocks_per_plane) + " x " + std::to_string(g.pages_per_block) + ", " +
                             stream.Describe();
    const uint64_t writes = 6 * core.physical_pages();
    for (uint64_t i = 0; i < writes; ++i) {
      const SkewedStream::Write w = stream.Next();
      core.Write(w.lpn, core.HostStream(w.cold ? Temperature::kCold : Temperature::kHot));
      if (i % (writes / 3) == 0) {
        ASSERT_EQ(core.CheckConsistency(), "") << what;
      }
    }
    ASSERT_EQ(core.CheckConsistency(), "") << what;
    ASSERT_EQ(core.counters().host_writes.value(), writes) << what;
    for (uint32_t grp = 0; grp < core.blocks().groups(); ++grp) {
      ASSERT_LE(core.group_valid(grp), core.group_data_cap()) << what;
    }
    redirected += core.counters().redirected_writes.value();
    ++runs;
  }
  EXPECT_GE(runs, 500);
  EXPECT_GT(redirected, 0u) << "the streams reach the data cap of some group";
}

TEST(FtlCore, AlignedStreamFillsTheCapThenSpillsToOtherGroups) {
  // page_stripe over 8 planes: every 8th write is a new Lpn and lands on
  // plane 0 while the rest rewrite one hot Lpn. Plane 0 fills to its cap and
  // new data then goes elsewhere; placements before that are the scheme's.
  FtlConfig c = Config();
  FtlCore core(c, Geo(32, 16));
  const uint64_t u = core.logical_pages();
  SkewedStream stream(SkewedStream::Pattern::kAligned, u, 8, 1, 1);
  for (uint64_t i = 0;; ++i) {
    ASSERT_LT(i, 4 * core.physical_pages()) << "the stream never reached the cap";
    const SkewedStream::Write w = stream.Next();
    core.Write(w.lpn);
    if (core.counters().redirected_writes.value() > 0) break;
    if (i % 8 == 0) {
      ASSERT_EQ(core.blocks().GroupOf(core.blocks().UnitOf(core.Lookup(w.lpn))), 0u) << i;
    }
  }
  EXPECT_EQ(core.group_valid(0), core.group_data_cap());
  EXPECT_EQ(core.group_data_cap(), (32u - c.KeptUnits(32)) * 16);
  for (uint64_t n = 0; n < 8 * u; ++n) core.Write(stream.Next().lpn);
  EXPECT_EQ(core.CheckConsistency(), "");
  EXPECT_EQ(core.group_valid(0), core.group_data_cap());
  EXPECT_GT(core.counters().redirected_writes.value(), u / 2);
}

}  // namespace
}  // namespace ftl
