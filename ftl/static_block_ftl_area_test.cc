// The S-FTL's page-mapped area (ftl.static_block.page_mapped) on the
// fakes::FakeFlashArray, which counts NAND rule violations (out-of-order
// programs, programs without erase, reads of unprogrammed pages).
#include <cmath>
#include <cstdio>
#include <memory>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "ftl/ftl_factory.h"
#include "ftl/static_block_ftl.h"
#include "sim/rng.h"
#include "sim/stats.h"
#include "tests/fakes/fake_flash_array.h"

namespace ftl {
namespace {

using flash::CmdSource;
using flash::FlashOpKind;

// 4 channels x 1 chip x 1 die x 2 planes, 10 blocks of 8 pages of 8 KiB per
// plane: a flash block is 64 KiB.
flash::Geometry Geo(uint32_t blocks = 10, uint32_t pages = 8) {
  flash::Geometry g;
  g.channels = 4;
  g.chips_per_channel = 1;
  g.dies_per_chip = 1;
  g.planes_per_die = 2;
  g.blocks_per_plane = blocks;
  g.pages_per_block = pages;
  g.page_size = sim::Bytes{8192};
  return g;
}

// 2 retirement spares per plane (8 slots per plane, 64 in all); an area of
// `area_blocks` blocks of 64 KiB with `spare` extra pool blocks per area block.
FtlConfig Config(uint64_t area_bytes = 8 * 65536, double spare = 0.75, uint32_t erase_limit = 0) {
  FtlConfig c;
  c.kind = "static_block";
  auto& sb = c.kinds.Mutable<StaticBlockConfig>("static_block");
  sb.spare = sim::Ratio{0.2};
  sb.erase_limit = erase_limit;
  sb.page_mapped = sim::Bytes{area_bytes};
  sb.page_mapped_spare = sim::Ratio{spare};
  return c;
}

// Keeps `depth` ops in flight from a list, submitting the next on each
// completion (a closed loop, as a host queue would).
class Driver final : public FtlClient {
 public:
  Driver(StaticBlockFtl* ftl, uint32_t depth) : ftl_(ftl), depth_(depth) {}
  void Run(sim::EventQueue* q, const std::vector<std::pair<FtlOp::Kind, uint64_t>>& list) {
    list_ = list;
    next_ = 0;
    ops_.clear();
    ops_.reserve(list.size());
    for (uint32_t i = 0; i < depth_; ++i) SubmitNext();
    q->Run();
  }
  void OnFtlDone(FtlOp* op) override {
    if (op->status != FtlStatus::kOk) ++errors;
    ++done;
    finish_sum += static_cast<uint64_t>(op->finish_time.ns());
    SubmitNext();
  }
  uint64_t done = 0, errors = 0, finish_sum = 0;

 private:
  void SubmitNext() {
    if (next_ >= list_.size()) return;
    ops_.push_back(std::make_unique<FtlOp>());
    FtlOp* op = ops_.back().get();
    op->kind = list_[next_].first;
    op->lpn = Lpn{list_[next_].second};
    op->client = this;
    ++next_;
    ftl_->Submit(op);
  }
  StaticBlockFtl* ftl_;
  uint32_t depth_;
  std::vector<std::pair<FtlOp::Kind, uint64_t>> list_;
  size_t next_ = 0;
  std::vector<std::unique_ptr<FtlOp>> ops_;
};

struct Fixture {
  explicit Fixture(const FtlConfig& cfg, const flash::Geometry& g = Geo(), uint32_t depth = 8)
      : array(g, &q), ftl(cfg, &array, &q, registry.Root().Group("ftl")), driver(&ftl, depth) {}

  void Writes(const std::vector<uint64_t>& lpns) {
    std::vector<std::pair<FtlOp::Kind, uint64_t>> list;
    for (uint64_t l : lpns) list.emplace_back(FtlOp::Kind::kWrite, l);
    driver.Run(&q, list);
  }
  void Reads(const std::vector<uint64_t>& lpns) {
    std::vector<std::pair<FtlOp::Kind, uint64_t>> list;
    for (uint64_t l : lpns) list.emplace_back(FtlOp::Kind::kRead, l);
    driver.Run(&q, list);
  }
  // `n` uniform random writes of the area's pages.
  void RandomAreaWrites(uint64_t n, uint64_t seed) {
    sim::Rng rng(seed);
    std::vector<uint64_t> lpns(n);
    for (uint64_t& l : lpns) l = rng.Uniform(ftl.area_pages());
    Writes(lpns);
  }
  uint64_t Executed(FlashOpKind k, CmdSource s) const { return array.executed(k, s); }
  double Stat(const char* name) const { return registry.Value(name); }

  sim::EventQueue q;
  sim::StatsRegistry registry;
  fakes::FakeFlashArray array;
  StaticBlockFtl ftl;
  Driver driver;
};

TEST(StaticBlockAreaTest, CapacityIsTheAreaPlusTheFixedBlocksWithoutThePoolsExtraBlocks) {
  const flash::Geometry g = Geo();  // 64 block slots after the retirement spares
  // 8 area blocks, 75 % extra: 6 pool spares, 14 pool blocks.
  EXPECT_EQ(StaticBlockFtl::AreaBlocks(Config(), g), 8u);
  EXPECT_EQ(StaticBlockFtl::PoolSpare(Config(), g), 6u);
  EXPECT_EQ(Config().LogicalPages(g), (64u - 6) * 8);
  // Rounded up to whole blocks: one byte takes a block.
  EXPECT_EQ(StaticBlockFtl::AreaBlocks(Config(1), g), 1u);
  EXPECT_EQ(StaticBlockFtl::PoolSpare(Config(1), g), 5u);  // the floor: 75 % of 1 block is 1
  EXPECT_EQ(StaticBlockFtl::AreaBlocks(Config(65537), g), 2u);
  EXPECT_EQ(StaticBlockFtl::PoolSpare(Config(0), g), 0u);
  Fixture f(Config());
  EXPECT_EQ(f.ftl.fixed_from(), 8u);
  EXPECT_EQ(f.ftl.logical_blocks(), 58u);
  EXPECT_EQ(f.ftl.logical_pages(), 58u * 8);
  EXPECT_EQ(f.ftl.area_pages(), 64u);
  EXPECT_EQ(f.ftl.pool_blocks(), 14u);
  EXPECT_EQ(f.Stat("ftl.page_mapped.pool_blocks"), 14);
  EXPECT_EQ(f.Stat("ftl.page_mapped.logical_blocks"), 8);
  EXPECT_EQ(f.Stat("ftl.page_mapped.free_blocks"), 14);
  // 50 fixed blocks + 14 pool blocks + 16 retirement spares.
  EXPECT_EQ(f.Stat("ftl.free_blocks"), 80);
  // The page map and reverse map are counted.
  EXPECT_GE(Config().MemoryBytes(g), Config(0).MemoryBytes(g) + (64 + 14 * 8) * 4);
}

TEST(StaticBlockAreaTest, WithoutAnAreaNothingChanges) {
  Fixture f(Config(0, 0.5));
  EXPECT_EQ(f.ftl.fixed_from(), 0u);
  EXPECT_EQ(f.ftl.pool_blocks(), 0u);
  EXPECT_EQ(f.ftl.logical_blocks(), 64u);
  // Logical block b at stripe position b: channel-first.
  for (uint64_t b = 0; b < 8; ++b) EXPECT_EQ(f.ftl.PlaceOf(b).channel, b % 4) << b;
  EXPECT_EQ(f.ftl.PlaceOf(8).block, 1u);
}

TEST(StaticBlockAreaTest, OverwriteInTheAreaSucceedsOutOfPlaceAndReadsTheNewestCopy) {
  Fixture f(Config());
  f.Writes({5, 3, 5, 0, 5});  // any order, overwrites included
  EXPECT_EQ(f.driver.errors, 0u);
  EXPECT_EQ(f.driver.done, 5u);
  EXPECT_EQ(f.ftl.write_errors(FtlStatus::kOverwrite), 0u);
  EXPECT_EQ(f.ftl.write_errors(FtlStatus::kWriteOutOfOrder), 0u);
  EXPECT_TRUE(f.ftl.Mapped(Lpn{5}));
  EXPECT_FALSE(f.ftl.Mapped(Lpn{4}));
  // The host block filled in order: 5 3 5 0 5 at pages 0..4 of pool block 0.
  const flash::Ppn p5 = f.ftl.AreaPpnOf(Lpn{5});
  EXPECT_EQ(p5.v, f.ftl.PoolPhysicalBlock(0) * 8 + 4);
  EXPECT_EQ(f.Stat("ftl.page_mapped.valid_pages"), 3);
  EXPECT_EQ(f.Stat("ftl.page_mapped.host_writes"), 5);
  EXPECT_EQ(f.Stat("ftl.host_writes"), 5);
  f.Reads({5, 4});
  EXPECT_EQ(f.Executed(FlashOpKind::kRead, CmdSource::kHost), 1u);
  EXPECT_EQ(f.Stat("ftl.unmapped_reads"), 1);
  EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
  EXPECT_EQ(f.ftl.CheckArea(), "");
  EXPECT_EQ(f.Stat("ftl.gc_copies"), 0);
  EXPECT_TRUE(f.ftl.Idle());
}

TEST(StaticBlockAreaTest, RandomOverwritesManyTimesTheAreaRunGcAndKeepEveryPage) {
  Fixture f(Config());
  // Fill the area once, so every page is mapped, then overwrite at random
  // 30 times its size.
  std::vector<uint64_t> fill;
  for (uint64_t l = 0; l < f.ftl.area_pages(); ++l) fill.push_back(l);
  f.Writes(fill);
  f.RandomAreaWrites(30 * f.ftl.area_pages(), 7);
  EXPECT_EQ(f.driver.errors, 0u);
  EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
  EXPECT_TRUE(f.ftl.Idle());
  EXPECT_EQ(f.ftl.CheckArea(), "");
  const uint64_t host = 31 * f.ftl.area_pages();
  EXPECT_EQ(f.Stat("ftl.host_writes"), host);
  EXPECT_EQ(f.Stat("ftl.page_mapped.host_writes"), host);
  // GC ran, its copies are flash programs of source kGc, counted in
  // gc_copies and in the write amplification.
  const double copies = f.Stat("ftl.gc_copies");
  EXPECT_GT(copies, 0);
  EXPECT_EQ(f.Stat("ftl.page_mapped.gc_copies"), copies);
  EXPECT_EQ(f.Executed(FlashOpKind::kProgram, CmdSource::kGc), copies);
  EXPECT_EQ(f.Executed(FlashOpKind::kRead, CmdSource::kGc), f.Stat("ftl.gc_reads"));
  EXPECT_EQ(f.Stat("ftl.gc_reads"), copies + f.Stat("ftl.page_mapped.gc_stale_copies"));
  EXPECT_EQ(f.Executed(FlashOpKind::kProgram, CmdSource::kHost), host);
  EXPECT_DOUBLE_EQ(f.Stat("ftl.write_amplification"), (static_cast<double>(host) + copies) / host);
  EXPECT_GT(f.Stat("ftl.erases"), 0);
  EXPECT_EQ(f.Stat("ftl.page_mapped.erases"), f.Stat("ftl.erases"));
  EXPECT_EQ(f.Executed(FlashOpKind::kErase, CmdSource::kGc), f.Stat("ftl.erases"));
  EXPECT_EQ(f.Stat("ftl.page_mapped.gc_runs"), f.Stat("ftl.gc_runs_bg") + f.Stat("ftl.gc_runs_fg"));
  EXPECT_GE(f.ftl.pool_free_blocks(), StaticBlockFtl::kPoolGcReserve);
  // Every page is still mapped, to a programmed flash page, and reads back
  // from flash.
  std::vector<uint64_t> all;
  for (uint64_t l = 0; l < f.ftl.area_pages(); ++l) {
    ASSERT_TRUE(f.ftl.Mapped(Lpn{l})) << l;
    const flash::Ppn p = f.ftl.AreaPpnOf(Lpn{l});
    EXPECT_LT(p.v % 8, f.array.programmed(p.v / 8)) << l;
    all.push_back(l);
  }
  EXPECT_EQ(f.Stat("ftl.page_mapped.valid_pages"), f.ftl.area_pages());
  f.Reads(all);
  EXPECT_EQ(f.Executed(FlashOpKind::kRead, CmdSource::kHost), f.ftl.area_pages());
  EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
  // The pool's blocks wore, and are part of the erase-count summary.
  EXPECT_GT(f.Stat("ftl.erase_count_max"), 0);
}

TEST(StaticBlockAreaTest, WritesWaitForGcRatherThanFail) {
  // Deep queue: many writes arrive while the pool has no free block.
  Fixture f(Config(8 * 65536, 0.75), Geo(), /*depth=*/64);
  f.RandomAreaWrites(20 * f.ftl.area_pages(), 3);
  EXPECT_EQ(f.driver.errors, 0u);
  EXPECT_EQ(f.driver.done, 20 * f.ftl.area_pages());
  EXPECT_GT(f.Stat("ftl.page_mapped.write_stalls"), 0);
  EXPECT_EQ(f.Stat("ftl.write_stalls"), f.Stat("ftl.page_mapped.write_stalls"));
  EXPECT_GT(f.Stat("ftl.gc_runs_fg"), 0);
  EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
  EXPECT_EQ(f.ftl.CheckArea(), "");
  EXPECT_TRUE(f.ftl.Idle());
}

// page_mapped_lanes: successive area writes take the lanes' open blocks in
// turn, each lane on its own plane, so writes issued together program on
// different channels at once and finish sooner than one block at a time;
// under random overwrites with a deep queue GC keeps every lane fed and
// the map consistent; each lane beyond the first adds a pool block.
TEST(StaticBlockAreaTest, LanesStripeAreaWritesOverChannels) {
  auto with_lanes = [](uint32_t lanes, double spare = 0.75) {
    FtlConfig c = Config(8 * 65536, spare);
    c.kinds.Mutable<StaticBlockConfig>("static_block").page_mapped_lanes = lanes;
    return c;
  };
  const flash::Geometry g = Geo();
  const uint32_t planes_per_channel = g.chips_per_channel * g.dies_per_chip * g.planes_per_die;
  uint64_t finish_one_lane = 0;
  for (uint32_t lanes : {1u, 4u}) {
    SCOPED_TRACE(lanes);
    Fixture f(with_lanes(lanes), g, /*depth=*/8);
    f.Writes({0, 1, 2, 3});
    std::set<uint64_t> channels;
    for (uint64_t l = 0; l < 4; ++l) {
      const uint64_t block = f.ftl.AreaPpnOf(Lpn{l}).v / g.pages_per_block;
      channels.insert(block / g.blocks_per_plane / planes_per_channel);
    }
    EXPECT_EQ(channels.size(), lanes == 1 ? 1u : 4u);
    if (lanes == 1) {
      finish_one_lane = f.driver.finish_sum;
    } else {
      EXPECT_LT(f.driver.finish_sum, finish_one_lane) << "the lanes' programs did not overlap";
    }
  }
  Fixture f(with_lanes(4), g, /*depth=*/64);
  std::vector<uint64_t> fill;
  for (uint64_t l = 0; l < f.ftl.area_pages(); ++l) fill.push_back(l);
  f.Writes(fill);
  f.RandomAreaWrites(30 * f.ftl.area_pages(), 11);
  EXPECT_EQ(f.driver.errors, 0u);
  EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
  EXPECT_TRUE(f.ftl.Idle());
  EXPECT_EQ(f.ftl.CheckArea(), "");
  EXPECT_GT(f.Stat("ftl.page_mapped.gc_copies"), 0);
  EXPECT_EQ(f.Stat("ftl.page_mapped.valid_pages"), f.ftl.area_pages());
  EXPECT_EQ(StaticBlockFtl::PoolSpare(with_lanes(4, 0.0), g), StaticBlockFtl::kMinPoolSpare + 3);
  EXPECT_EQ(StaticBlockFtl::PoolSpare(with_lanes(1, 0.0), g), StaticBlockFtl::kMinPoolSpare);
}

TEST(StaticBlockAreaTest, TrimInTheAreaUnmapsWithoutErasing) {
  Fixture f(Config());
  f.Writes({0, 1, 2, 3, 9});
  f.ftl.Trim(Lpn{1}, 2);
  EXPECT_FALSE(f.ftl.Mapped(Lpn{1}));
  EXPECT_FALSE(f.ftl.Mapped(Lpn{2}));
  EXPECT_TRUE(f.ftl.Mapped(Lpn{3}));
  EXPECT_EQ(f.Stat("ftl.trims"), 2);
  EXPECT_EQ(f.Stat("ftl.page_mapped.valid_pages"), 3);
  f.Reads({1});
  EXPECT_EQ(f.Stat("ftl.unmapped_reads"), 1);
  f.q.Run();
  EXPECT_EQ(f.Stat("ftl.erases"), 0);
  // A trimmed page is written again like any other.
  f.Writes({1});
  EXPECT_EQ(f.driver.errors, 0u);
  EXPECT_TRUE(f.ftl.Mapped(Lpn{1}));
  EXPECT_EQ(f.ftl.CheckArea(), "");
}

TEST(StaticBlockAreaTest, TrimmedPagesAreReclaimedWithoutCopies) {
  Fixture f(Config());
  // Write the whole area, trim it all, many times: GC's victims hold no
  // valid page, so it only erases.
  std::vector<uint64_t> fill;
  for (uint64_t l = 0; l < f.ftl.area_pages(); ++l) fill.push_back(l);
  for (int round = 0; round < 10; ++round) {
    f.Writes(fill);
    f.ftl.Trim(Lpn{0}, f.ftl.area_pages());
  }
  f.q.Run();
  EXPECT_EQ(f.driver.errors, 0u);
  EXPECT_EQ(f.Stat("ftl.gc_copies"), 0);
  EXPECT_GT(f.Stat("ftl.erases"), 0);
  EXPECT_EQ(f.Stat("ftl.page_mapped.valid_pages"), 0);
  EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
  EXPECT_EQ(f.ftl.CheckArea(), "");
}

TEST(StaticBlockAreaTest, FixedBlocksAfterTheAreaKeepTheStaticContract) {
  Fixture f(Config());
  const uint64_t b = f.ftl.fixed_from();  // first fixed block
  const uint64_t l0 = b * 8;
  f.Writes({l0, l0 + 1});
  EXPECT_EQ(f.driver.errors, 0u);
  EXPECT_EQ(f.ftl.write_pointer(b), 2u);
  f.Writes({l0 + 1});  // overwrite without erase
  EXPECT_EQ(f.ftl.write_errors(FtlStatus::kOverwrite), 1u);
  f.Writes({l0 + 5});  // skips pages
  EXPECT_EQ(f.ftl.write_errors(FtlStatus::kWriteOutOfOrder), 1u);
  EXPECT_EQ(f.driver.errors, 2u);
  // A whole-block trim erases the block and it takes page 0 again.
  f.ftl.Trim(Lpn{l0}, 8);
  f.q.Run();
  EXPECT_EQ(f.Stat("ftl.trim_erases"), 1);
  EXPECT_EQ(f.Stat("ftl.erases"), 1);
  EXPECT_EQ(f.Stat("ftl.page_mapped.erases"), 0);
  f.Writes({l0});
  EXPECT_EQ(f.driver.errors, 2u);
  EXPECT_EQ(f.ftl.write_pointer(b), 1u);
  // A trim spanning the boundary unmaps the area's pages and erases the
  // fixed block it covers whole.
  f.Writes({l0 - 1});
  f.ftl.Trim(Lpn{l0 - 1}, 9);
  EXPECT_FALSE(f.ftl.Mapped(Lpn{l0 - 1}));
  EXPECT_FALSE(f.ftl.Mapped(Lpn{l0}));
  f.q.Run();
  EXPECT_EQ(f.Stat("ftl.trim_erases"), 2);
  EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
}

TEST(StaticBlockAreaTest, PoolAndFixedBlocksShareTheStripeOrder) {
  Fixture f(Config());  // 14 pool blocks at stripe positions 0..13
  // Pool block i at plane seq[i % 8] (CWDP: channel i % 4), slot i / 8.
  for (uint64_t i = 0; i < f.ftl.pool_blocks(); ++i) {
    const flash::FlashAddr a = f.array.geometry().ToAddr(flash::Ppn{f.ftl.PoolPhysicalBlock(i) * 8});
    EXPECT_EQ(a.channel, i % 4) << i;
    EXPECT_EQ(a.block, i / 8) << i;
  }
  // Fixed block b at position b - 8 + 14: the channel order continues.
  for (uint64_t b = f.ftl.fixed_from(); b < f.ftl.fixed_from() + 8; ++b) {
    EXPECT_EQ(f.ftl.PlaceOf(b).channel, (b - 8 + 14) % 4) << b;
  }
  // The fixed blocks and the pool cover the in-service blocks once each.
  std::set<uint64_t> seen;
  for (uint64_t b = f.ftl.fixed_from(); b < f.ftl.logical_blocks(); ++b) {
    EXPECT_TRUE(seen.insert(f.ftl.PhysicalBlockOf(b)).second) << b;
  }
  for (uint64_t i = 0; i < f.ftl.pool_blocks(); ++i) {
    EXPECT_TRUE(seen.insert(f.ftl.PoolPhysicalBlock(i)).second) << i;
  }
  EXPECT_EQ(seen.size(), 64u);
  for (uint64_t phys : seen) EXPECT_LT(phys % 10, 8u);  // no retirement spare
  // An area block has no place of its own: PlaceOf names pool block b.
  EXPECT_EQ(f.ftl.PhysicalBlockOf(3), f.ftl.PoolPhysicalBlock(3));
}

TEST(StaticBlockAreaTest, PreconditionFillsTheAreaThenTheFixedBlocks) {
  FtlConfig c = Config();
  c.precondition.random_overwrites = 0;
  Fixture f(c);
  f.ftl.Precondition(PreconditionSpec{0.5, 0, 1});
  for (uint64_t l = 0; l < f.ftl.area_pages(); ++l) EXPECT_TRUE(f.ftl.Mapped(Lpn{l})) << l;
  EXPECT_EQ(f.ftl.write_pointer(f.ftl.fixed_from()), 8u);
  EXPECT_EQ(f.ftl.CheckArea(), "");
  EXPECT_EQ(f.Stat("ftl.precondition.host_writes"), std::floor(0.5 * 58 * 8));
  EXPECT_EQ(f.ftl.pool_free_blocks(), 14u - 8);
  for (uint64_t i = 0; i < 8; ++i) f.array.SetProgrammed(f.ftl.PoolPhysicalBlock(i), 8);
  // Overwrites after the fill: the area keeps working.
  f.RandomAreaWrites(10 * f.ftl.area_pages(), 5);
  EXPECT_EQ(f.driver.errors, 0u);
  EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
  EXPECT_EQ(f.ftl.CheckArea(), "");
}

TEST(StaticBlockAreaTest, WornPoolBlocksRetireToASpareOfTheirPlane) {
  Fixture f(Config(8 * 65536, 0.75, /*erase_limit=*/3));
  f.RandomAreaWrites(40 * f.ftl.area_pages(), 11);
  EXPECT_EQ(f.driver.errors, 0u);
  EXPECT_GT(f.Stat("ftl.retired_blocks"), 0);
  EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
  EXPECT_EQ(f.ftl.CheckArea(), "");
  for (uint64_t i = 0; i < f.ftl.pool_blocks(); ++i) {
    const flash::FlashAddr a = f.array.geometry().ToAddr(flash::Ppn{f.ftl.PoolPhysicalBlock(i) * 8});
    EXPECT_EQ(a.channel, i % 4) << i;  // its plane is kept
  }
}

TEST(StaticBlockAreaTest, SameSeedSameResult) {
  auto run = [](uint64_t seed) {
    Fixture f(Config());
    f.RandomAreaWrites(20 * f.ftl.area_pages(), seed);
    return std::vector<double>{f.Stat("ftl.gc_copies"), f.Stat("ftl.erases"), f.Stat("ftl.gc_runs_fg"),
                               f.Stat("ftl.write_stalls"), static_cast<double>(f.driver.finish_sum),
                               static_cast<double>(f.q.now().ns())};
  };
  EXPECT_EQ(run(9), run(9));
  EXPECT_NE(run(9), run(10));
}

// GC copies per host write under uniform random overwrites of a full area
// of 32 blocks of 64 pages, by pool spare: the figures behind the default
// (50 %). Printed for the record (25 %: 2.10, 50 %: 0.80, 100 %: 0.27 at
// seed 1); bounds are loose.
TEST(StaticBlockAreaTest, GcCopiesPerHostWriteByPoolSpare) {
  flash::Geometry g = Geo(/*blocks=*/40, /*pages=*/64);  // 8 planes x 32 slots after the spares
  for (double spare : {0.25, 0.5, 1.0}) {
    FtlConfig c = Config(32 * 64 * 8192, spare);
    c.kinds.Mutable<StaticBlockConfig>("static_block").spare = sim::Ratio{0.2};
    Fixture f(c, g, 16);
    std::vector<uint64_t> fill;
    for (uint64_t l = 0; l < f.ftl.area_pages(); ++l) fill.push_back(l);
    f.Writes(fill);
    const double host0 = f.Stat("ftl.host_writes");
    f.RandomAreaWrites(20 * f.ftl.area_pages(), 1);
    const double per_host = f.Stat("ftl.gc_copies") / (f.Stat("ftl.host_writes") - host0);
    std::printf("page_mapped_spare %.0f%% (%llu extra blocks): %.3f GC copies per host write\n", spare * 100,
                static_cast<unsigned long long>(f.ftl.pool_blocks() - 32), per_host);
    EXPECT_EQ(f.driver.errors, 0u);
    EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
    EXPECT_GT(per_host, 0.0);
    EXPECT_LT(per_host, 5.0);
  }
}

TEST(StaticBlockAreaTest, ValidateNamesTheKey) {
  const flash::Geometry g = Geo();  // 64 block slots of 64 KiB
  EXPECT_TRUE(Config().Validate(g).ok()) << Config().Validate(g).message();
  // Larger than the device.
  EXPECT_EQ(Config(64 * 65536).Validate(g).message(),
            "ftl.static_block.page_mapped: 4194304 B (64 flash blocks of 65536 B, rounded up) is not smaller than "
            "the device's 64 blocks in service (4194304 B; spares excluded)");
  // Fewer extra blocks than greedy GC needs are raised to its minimum.
  EXPECT_TRUE(Config(8 * 65536, 0.25).Validate(g).ok());
  EXPECT_EQ(StaticBlockFtl::PoolSpare(Config(8 * 65536, 0.25), g), StaticBlockFtl::kMinPoolSpare);
  EXPECT_EQ(StaticBlockFtl::PoolSpare(Config(8 * 65536, 0.0), g), StaticBlockFtl::kMinPoolSpare);
  // The pool leaves fewer fixed blocks than planes.
  EXPECT_NE(Config(50 * 65536, 0.2).Validate(g).message().find(
                "ftl.static_block.page_mapped: the page-mapped area (50 blocks) and its pool's 10 extra blocks leave 4 "
                "of the device's 64 blocks in service as fixed blocks, fewer than its 8 planes"),
            std::string::npos)
      << Config(50 * 65536, 0.2).Validate(g).message();
  EXPECT_TRUE(Config(40 * 65536, 0.2).Validate(g).ok());  // 48 pool blocks, 16 fixed
  // The spare without an area is a mistake.
  EXPECT_NE(Config(0, 0.25).Validate(g).message().find("ftl.static_block.page_mapped_spare: set, but"),
            std::string::npos);
  EXPECT_TRUE(Config(0, 0.5).Validate(g).ok());
  // The area's GC uses gc_pages_in_flight; without an area it is refused.
  FtlConfig c = Config();
  c.gc_pages_in_flight = 2;
  EXPECT_TRUE(c.Validate(g).ok()) << c.Validate(g).message();
  FtlConfig none = Config(0, 0.5);
  none.gc_pages_in_flight = 2;
  EXPECT_NE(none.Validate(g).message().find("ftl.gc_pages_in_flight: not used"), std::string::npos);
  // Still refused with an area: the page FTL's GC thresholds.
  FtlConfig t = Config();
  t.gc_threshold = sim::Ratio{0.3};
  EXPECT_NE(t.Validate(g).message().find("ftl.gc_threshold: not used"), std::string::npos);
}

TEST(StaticBlockAreaTest, BuiltByTheFactoryWithTheBoundaryInItsPlacement) {
  sim::EventQueue q;
  sim::StatsRegistry registry;
  fakes::FakeFlashArray array(Geo(), &q);
  auto ftl = MakeFtl(Config(), &array, &q, registry.Root().Group("ftl"));
  ASSERT_TRUE(ftl.ok()) << ftl.status().message();
  const FixedPlacement* p = (*ftl)->fixed_placement();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->fixed_from(), 8u);
  EXPECT_EQ(p->logical_blocks(), 58u);
  for (const char* name : {"ftl.page_mapped.host_writes", "ftl.page_mapped.gc_copies", "ftl.page_mapped.gc_reads",
                           "ftl.page_mapped.erases", "ftl.page_mapped.free_blocks", "ftl.page_mapped.valid_pages",
                           "ftl.page_mapped.write_stalls", "ftl.page_mapped.gc_runs"}) {
    EXPECT_FALSE(std::isnan(registry.Value(name))) << name;
  }
}

}  // namespace
}  // namespace ftl
