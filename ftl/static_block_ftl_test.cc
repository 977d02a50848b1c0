// The S-FTL's contract on the fakes::FakeFlashArray (fixed latencies; it
// counts NAND rule violations: out-of-order programs, programs without
// erase, reads of unprogrammed pages).
#include "ftl/static_block_ftl.h"

#include <cmath>
#include <memory>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "ftl/ftl_factory.h"
#include "sim/stats.h"
#include "tests/fakes/fake_flash_array.h"

namespace ftl {
namespace {

using flash::CmdSource;
using flash::FlashOpKind;

// 4 channels x 1 chip x 1 die x 2 planes, 10 blocks of 8 pages per plane.
flash::Geometry Geo(uint32_t channels = 4, uint32_t planes = 2, uint32_t blocks = 10, uint32_t pages = 8) {
  flash::Geometry g;
  g.channels = channels;
  g.chips_per_channel = 1;
  g.dies_per_chip = 1;
  g.planes_per_die = planes;
  g.blocks_per_plane = blocks;
  g.pages_per_block = pages;
  g.page_size = sim::Bytes{8192};
  return g;
}

FtlConfig Config(double spare = 0.2, uint32_t erase_limit = 0) {
  FtlConfig c;
  c.kind = "static_block";
  auto& sb = c.kinds.Mutable<StaticBlockConfig>("static_block");
  sb.spare = sim::Ratio{spare};
  sb.erase_limit = erase_limit;
  return c;
}

class Client final : public FtlClient {
 public:
  void OnFtlDone(FtlOp* op) override { done.push_back(op); }
  std::vector<FtlOp*> done;
};

struct Fixture {
  explicit Fixture(const FtlConfig& cfg, const flash::Geometry& g = Geo())
      : array(g, &q), ftl(cfg, &array, &q, registry.Root().Group("ftl")) {}

  FtlOp* Op(FtlOp::Kind kind, uint64_t lpn) {
    ops.push_back(std::make_unique<FtlOp>());
    FtlOp* op = ops.back().get();
    op->kind = kind;
    op->lpn = Lpn{lpn};
    op->client = &client;
    return op;
  }
  FtlOp* Write(uint64_t lpn) {
    FtlOp* op = Op(FtlOp::Kind::kWrite, lpn);
    ftl.Submit(op);
    return op;
  }
  FtlOp* Read(uint64_t lpn) {
    FtlOp* op = Op(FtlOp::Kind::kRead, lpn);
    ftl.Submit(op);
    return op;
  }
  // Writes logical block b from page `from` to its end, in order.
  void FillBlock(uint64_t b, uint32_t from = 0) {
    const uint32_t ppb = array.geometry().pages_per_block;
    for (uint32_t p = from; p < ppb; ++p) Write(b * ppb + p);
  }
  uint64_t Executed(FlashOpKind k, CmdSource s) const { return array.executed(k, s); }
  double Stat(const char* name) const { return registry.Value(name); }

  sim::EventQueue q;
  sim::StatsRegistry registry;
  fakes::FakeFlashArray array;
  StaticBlockFtl ftl;
  Client client;
  std::vector<std::unique_ptr<FtlOp>> ops;
};

TEST(StaticBlockFtlTest, CapacityIsEveryBlockButTheSpares) {
  const flash::Geometry g = Geo();  // 8 planes x 10 blocks x 8 pages
  // 20 % of 10 blocks: 2 spares per plane.
  EXPECT_EQ(StaticBlockFtl::SparesPerPlane(Config(0.2), g), 2u);
  EXPECT_EQ(Config(0.2).LogicalPages(g), 8u * 8 * 8);
  // Rounded up: 2 % of 10 blocks is one spare.
  EXPECT_EQ(StaticBlockFtl::SparesPerPlane(Config(0.02), g), 1u);
  EXPECT_EQ(StaticBlockFtl::SparesPerPlane(Config(0.0), g), 0u);
  Fixture f(Config(0.2));
  EXPECT_EQ(f.ftl.logical_pages(), 512u);
  EXPECT_EQ(f.ftl.logical_blocks(), 64u);
  EXPECT_EQ(f.Stat("ftl.logical_pages"), 512);
  EXPECT_GT(Config().MemoryBytes(g), 0u);
}

TEST(StaticBlockFtlTest, InOrderWritesSucceedAndReadBackFromFlash) {
  Fixture f(Config());
  f.FillBlock(3);
  f.q.Run();
  ASSERT_EQ(f.client.done.size(), 8u);
  for (FtlOp* op : f.client.done) EXPECT_EQ(op->status, FtlStatus::kOk);
  EXPECT_EQ(f.ftl.write_pointer(3), 8u);
  EXPECT_EQ(f.Executed(FlashOpKind::kProgram, CmdSource::kHost), 8u);
  EXPECT_EQ(f.array.programmed(f.ftl.PhysicalBlockOf(3)), 8u);
  for (uint64_t l = 24; l < 32; ++l) EXPECT_TRUE(f.ftl.Mapped(Lpn{l}));
  f.Read(27);
  f.q.Run();
  EXPECT_EQ(f.Executed(FlashOpKind::kRead, CmdSource::kHost), 1u);
  EXPECT_EQ(f.array.violations(), 0u);
  EXPECT_EQ(f.ftl.host_writes(), 8u);
  EXPECT_EQ(f.Stat("ftl.host_reads"), 1);
  EXPECT_EQ(f.Stat("ftl.write_amplification"), 1);
}

TEST(StaticBlockFtlTest, SeveralPagesOfABlockMayBeInFlightInOrder) {
  Fixture f(Config());
  // Submitted back to back: all accepted, programmed in order on the die.
  for (uint64_t l = 0; l < 16; ++l) f.Write(l);
  EXPECT_FALSE(f.ftl.Idle());
  f.q.Run();
  EXPECT_TRUE(f.ftl.Idle());
  for (FtlOp* op : f.client.done) EXPECT_EQ(op->status, FtlStatus::kOk);
  EXPECT_EQ(f.array.violations(), 0u);
}

TEST(StaticBlockFtlTest, ReadsOfUnwrittenPagesCompleteWithoutFlash) {
  FtlConfig c = Config();
  c.unmapped_read_latency = sim::Us(3);
  Fixture f(c);
  f.Write(0);
  FtlOp* r = f.Read(1);  // not yet written
  f.q.Run();
  EXPECT_EQ(r->status, FtlStatus::kOk);
  EXPECT_EQ(r->finish_time, sim::Us(3));
  EXPECT_EQ(f.Executed(FlashOpKind::kRead, CmdSource::kHost), 0u);
  EXPECT_EQ(f.Stat("ftl.unmapped_reads"), 1);
}

TEST(StaticBlockFtlTest, OutOfOrderWriteIsRefusedAndNothingIsProgrammed) {
  Fixture f(Config());
  f.Write(0);
  FtlOp* skip = f.Write(2);  // page 1 not written yet
  f.q.Run();
  EXPECT_EQ(skip->status, FtlStatus::kWriteOutOfOrder);
  EXPECT_EQ(f.ftl.write_pointer(0), 1u);
  EXPECT_FALSE(f.ftl.Mapped(Lpn{2}));
  EXPECT_EQ(f.Executed(FlashOpKind::kProgram, CmdSource::kHost), 1u);
  EXPECT_EQ(f.ftl.write_errors(FtlStatus::kWriteOutOfOrder), 1u);
  EXPECT_EQ(f.Stat("ftl.write_errors.out_of_order"), 1);
  // The block goes on from where it was.
  FtlOp* next = f.Write(1);
  f.q.Run();
  EXPECT_EQ(next->status, FtlStatus::kOk);
  EXPECT_EQ(f.array.violations(), 0u);
}

TEST(StaticBlockFtlTest, OverwriteWithoutEraseIsRefused) {
  Fixture f(Config());
  f.Write(8);
  f.Write(9);
  f.q.Run();
  FtlOp* again = f.Write(8);
  f.q.Run();
  EXPECT_EQ(again->status, FtlStatus::kOverwrite);
  EXPECT_EQ(f.ftl.write_pointer(1), 2u);
  EXPECT_EQ(f.Executed(FlashOpKind::kProgram, CmdSource::kHost), 2u);
  EXPECT_EQ(f.Stat("ftl.write_errors.overwrite"), 1);
  EXPECT_EQ(f.ftl.host_writes(), 2u);
  EXPECT_EQ(f.array.violations(), 0u);
}

TEST(StaticBlockFtlTest, WholeBlockTrimErasesAndTheBlockIsWritableFromPageZero) {
  Fixture f(Config());
  f.FillBlock(5);
  f.q.Run();
  const uint64_t phys = f.ftl.PhysicalBlockOf(5);
  EXPECT_EQ(f.ftl.EraseCount(phys), 0u);
  const sim::SimTime t0 = f.q.now();
  f.ftl.Trim(Lpn{40}, 8);
  // Unmapped at once; the erase is on the array.
  for (uint64_t l = 40; l < 48; ++l) EXPECT_FALSE(f.ftl.Mapped(Lpn{l}));
  EXPECT_EQ(f.ftl.write_pointer(5), 0u);
  FtlOp* r = f.Read(44);
  // Accepted at once, programmed after the erase.
  FtlOp* w0 = f.Write(40);
  FtlOp* w1 = f.Write(41);
  f.q.Run();
  EXPECT_EQ(f.Executed(FlashOpKind::kErase, CmdSource::kGc), 1u);
  EXPECT_EQ(f.ftl.EraseCount(phys), 1u);
  EXPECT_EQ(f.ftl.erases(), 1u);
  EXPECT_EQ(r->status, FtlStatus::kOk);
  EXPECT_EQ(f.Executed(FlashOpKind::kRead, CmdSource::kHost), 0u);
  EXPECT_EQ(w0->status, FtlStatus::kOk);
  EXPECT_EQ(w1->status, FtlStatus::kOk);
  // The erase takes tBERS (3 ms in the fake) before the program (0.5 ms).
  EXPECT_GE(w0->finish_time - t0, sim::Ms(3) + sim::Us(500));
  EXPECT_EQ(f.Stat("ftl.write_stalls"), 2);
  EXPECT_EQ(f.Stat("ftl.trim_erases"), 1);
  EXPECT_EQ(f.Stat("ftl.trims"), 8);
  EXPECT_EQ(f.ftl.write_pointer(5), 2u);
  EXPECT_EQ(f.array.programmed(phys), 2u);
  EXPECT_EQ(f.array.violations(), 0u);
  EXPECT_EQ(f.Stat("ftl.erase_count_max"), 1);
  EXPECT_EQ(f.Stat("ftl.erase_count_min"), 0);
  EXPECT_EQ(f.Stat("ftl.gc_copies"), 0);
}

TEST(StaticBlockFtlTest, EraseWaitsForTheBlocksCommandsInFlight) {
  Fixture f(Config());
  f.FillBlock(0);
  f.ftl.Trim(Lpn{0}, 8);  // programs still queued on the die
  f.Write(0);
  f.q.Run();
  EXPECT_EQ(f.Executed(FlashOpKind::kErase, CmdSource::kGc), 1u);
  EXPECT_EQ(f.array.violations(), 0u);
  EXPECT_EQ(f.array.programmed(f.ftl.PhysicalBlockOf(0)), 1u);
  EXPECT_TRUE(f.ftl.Idle());
}

TEST(StaticBlockFtlTest, TrimOfAnUnwrittenBlockErasesNothing) {
  Fixture f(Config());
  f.ftl.Trim(Lpn{0}, 64);
  f.q.Run();
  EXPECT_EQ(f.ftl.erases(), 0u);
  EXPECT_EQ(f.Stat("ftl.trim_commands"), 1);
}

TEST(StaticBlockFtlTest, SecondTrimDropsWritesStillWaitingForTheFirstErase) {
  Fixture f(Config());
  f.FillBlock(2);
  f.q.Run();
  f.ftl.Trim(Lpn{16}, 8);
  FtlOp* w = f.Write(16);  // waits for the erase
  f.ftl.Trim(Lpn{16}, 8);  // trimmed before it reached flash
  f.q.Run();
  EXPECT_EQ(w->status, FtlStatus::kOk);
  EXPECT_EQ(f.Stat("ftl.writes_dropped_by_trim"), 1);
  EXPECT_EQ(f.ftl.erases(), 1u);
  EXPECT_EQ(f.ftl.write_pointer(2), 0u);
  EXPECT_FALSE(f.ftl.Mapped(Lpn{16}));
  EXPECT_EQ(f.array.programmed(f.ftl.PhysicalBlockOf(2)), 0u);
  EXPECT_TRUE(f.ftl.Idle());
  // Free again: every block is erased and ready.
  EXPECT_EQ(f.Stat("ftl.free_blocks"), 64 + 16);
}

TEST(StaticBlockFtlTest, PartialTrimOnlyUnmapsItsPages) {
  Fixture f(Config());
  f.FillBlock(1);
  f.q.Run();
  f.ftl.Trim(Lpn{10}, 3);  // pages 2..4 of block 1
  f.ftl.Trim(Lpn{16}, 4);  // pages 0..3 of block 2, never written
  f.q.Run();
  EXPECT_EQ(f.ftl.erases(), 0u);
  EXPECT_TRUE(f.ftl.Mapped(Lpn{9}));
  for (uint64_t l = 10; l < 13; ++l) EXPECT_FALSE(f.ftl.Mapped(Lpn{l}));
  EXPECT_TRUE(f.ftl.Mapped(Lpn{13}));
  EXPECT_EQ(f.Stat("ftl.trims"), 3);
  // The pages stay programmed: no rewrite before a whole-block trim.
  FtlOp* w = f.Write(10);
  // Unwritten pages of block 2 are untouched and writable.
  FtlOp* w2 = f.Write(16);
  f.q.Run();
  EXPECT_EQ(w->status, FtlStatus::kOverwrite);
  EXPECT_EQ(w2->status, FtlStatus::kOk);
  EXPECT_EQ(f.ftl.write_pointer(1), 8u);
  // A whole-block trim clears the partial trims and erases.
  f.ftl.Trim(Lpn{8}, 8);
  f.FillBlock(1);
  f.q.Run();
  for (uint64_t l = 8; l < 16; ++l) EXPECT_TRUE(f.ftl.Mapped(Lpn{l}));
  EXPECT_EQ(f.array.violations(), 0u);
}

TEST(StaticBlockFtlTest, PlaceOfSpreadsConsecutiveBlocksChannelFirstAndIsABijection) {
  flash::Geometry g = Geo(4, 2, 10, 8);
  g.chips_per_channel = 2;
  Fixture f(Config(), g);  // 16 planes, 8 data blocks each
  const uint64_t n = f.ftl.logical_blocks();
  ASSERT_EQ(n, 16u * 8);
  std::set<uint64_t> physical;
  for (uint64_t b = 0; b < n; ++b) {
    const FlashPlace p = f.ftl.PlaceOf(b);
    EXPECT_EQ(p.channel, b % 4) << b;             // C fastest
    EXPECT_EQ(p.chip, (b / 4) % 2) << b;          // then W
    EXPECT_EQ(p.die, 0u);
    EXPECT_EQ(p.plane, (b / 8) % 2) << b;         // then P (one die)
    EXPECT_EQ(p.block, b / 16) << b;              // then the block slot
    EXPECT_LT(p.block, 8u) << "a spare in service";
    EXPECT_EQ(p, f.ftl.PlaceOf(b)) << "stable";
    const flash::FlashAddr a{p.channel, p.chip, p.die, p.plane, static_cast<uint32_t>(p.block), 0};
    EXPECT_EQ(g.BlockOfPpn(g.ToPpn(a)), f.ftl.PhysicalBlockOf(b));
    physical.insert(f.ftl.PhysicalBlockOf(b));
  }
  EXPECT_EQ(physical.size(), n);  // one-to-one onto the non-spare blocks
  // Writes land where PlaceOf says.
  f.FillBlock(5);
  f.q.Run();
  EXPECT_EQ(f.array.programmed(f.ftl.PhysicalBlockOf(5)), 8u);
}

TEST(StaticBlockFtlTest, StripeOrderChoosesThePlaneOrder) {
  FtlConfig c = Config();
  c.stripe_order = "PCWD";
  Fixture f(c);
  EXPECT_EQ(f.ftl.PlaceOf(0).plane, 0u);
  EXPECT_EQ(f.ftl.PlaceOf(1).plane, 1u);
  EXPECT_EQ(f.ftl.PlaceOf(1).channel, 0u);
  EXPECT_EQ(f.ftl.PlaceOf(2).channel, 1u);
}

TEST(StaticBlockFtlTest, RetirementMovesABlockToASpareOfItsPlane) {
  Fixture f(Config(0.2, /*erase_limit=*/2));  // 2 spares per plane: blocks 8 and 9
  const FlashPlace before = f.ftl.PlaceOf(4);
  const uint64_t old_phys = f.ftl.PhysicalBlockOf(4);
  for (int round = 0; round < 2; ++round) {
    f.FillBlock(4);
    f.ftl.Trim(Lpn{32}, 8);
    f.q.Run();
  }
  EXPECT_EQ(f.ftl.EraseCount(old_phys), 2u);
  EXPECT_EQ(f.ftl.retired_blocks(), 1u);
  const FlashPlace after = f.ftl.PlaceOf(4);
  EXPECT_EQ(after.channel, before.channel);
  EXPECT_EQ(after.chip, before.chip);
  EXPECT_EQ(after.die, before.die);
  EXPECT_EQ(after.plane, before.plane);
  EXPECT_EQ(after.block, 8u);  // the first spare
  EXPECT_NE(f.ftl.PhysicalBlockOf(4), old_phys);
  EXPECT_EQ(f.Stat("ftl.spare_blocks_free"), 8 * 2 - 1);
  // Data goes to the replacement; the retired block is never used again.
  f.FillBlock(4);
  f.Read(33);
  f.q.Run();
  EXPECT_EQ(f.array.programmed(f.ftl.PhysicalBlockOf(4)), 8u);
  EXPECT_EQ(f.array.programmed(old_phys), 0u);
  EXPECT_EQ(f.array.violations(), 0u);
  // Still a bijection onto distinct in-service blocks.
  std::set<uint64_t> physical;
  for (uint64_t b = 0; b < f.ftl.logical_blocks(); ++b) physical.insert(f.ftl.PhysicalBlockOf(b));
  EXPECT_EQ(physical.size(), f.ftl.logical_blocks());
  EXPECT_EQ(physical.count(old_phys), 0u);
  // In-service erase counts: the replacement is fresh.
  EXPECT_EQ(f.Stat("ftl.erase_count_max"), 0);
}

TEST(StaticBlockFtlTest, WithNoSpareLeftAWornBlockStaysInService) {
  Fixture f(Config(0.1, /*erase_limit=*/1));  // 1 spare per plane
  // Blocks 0 and 8 share plane 0 (8 planes, channel-first).
  for (uint64_t b : {0, 8}) {
    f.FillBlock(b);
    f.ftl.Trim(Lpn{b * 8}, 8);
    f.q.Run();
  }
  EXPECT_EQ(f.ftl.retired_blocks(), 1u);
  EXPECT_EQ(f.Stat("ftl.blocks_past_limit"), 1);
  f.FillBlock(8);
  f.q.Run();
  EXPECT_EQ(f.array.violations(), 0u);
}

TEST(StaticBlockFtlTest, PreconditionIsASequentialFill) {
  FtlConfig c = Config();
  Fixture f(c);
  f.ftl.Precondition(PreconditionSpec{0.5, 0.0, 1});
  EXPECT_EQ(f.Stat("ftl.precondition.host_writes"), 256);
  EXPECT_EQ(f.ftl.write_pointer(31), 8u);
  EXPECT_EQ(f.ftl.write_pointer(32), 0u);
  EXPECT_EQ(f.Stat("ftl.host_writes"), 0);
  FtlOp* w = f.Write(255);
  f.q.Run();
  EXPECT_EQ(w->status, FtlStatus::kOverwrite);
}

TEST(StaticBlockFtlTest, ValidateRefusesKeysThatMeanNothingHere) {
  const flash::Geometry g = Geo();
  EXPECT_TRUE(Config().Validate(g).ok()) << Config().Validate(g).message();
  auto message = [&](auto edit) {
    FtlConfig c = Config();
    edit(c);
    return c.Validate(g).message();
  };
  EXPECT_EQ(message([](FtlConfig& c) { c.allocation = "block_stripe"; }),
            "ftl.allocation: not used by ftl.kind static_block (its placement is the fixed block mapping); remove "
            "the key");
  EXPECT_NE(message([](FtlConfig& c) { c.victim = "fifo"; }).find("ftl.victim: not used"), std::string::npos);
  EXPECT_NE(message([](FtlConfig& c) { c.mapping = "block"; }).find("ftl.mapping: not used"), std::string::npos);
  EXPECT_NE(message([](FtlConfig& c) { c.hot_cold = true; }).find("ftl.hot_cold: not used"), std::string::npos);
  EXPECT_NE(message([](FtlConfig& c) { c.op = sim::Ratio{0.3}; }).find("ftl.op: not used"), std::string::npos);
  EXPECT_NE(message([](FtlConfig& c) { c.gc_threshold = sim::Ratio{0.3}; }).find("ftl.gc_threshold: not used"),
            std::string::npos);
  EXPECT_NE(message([](FtlConfig& c) { c.stripe_order = "CWD"; }).find("ftl.stripe_order: bad stripe order"),
            std::string::npos);
  EXPECT_NE(message([](FtlConfig& c) {
              c.precondition.enabled = true;
              c.precondition.random_overwrites = 2;
            }).find("ftl.precondition.random_overwrites: 2 given"),
            std::string::npos);
  EXPECT_TRUE(message([](FtlConfig& c) {
                c.precondition.enabled = true;
                c.precondition.random_overwrites = 0;
              }).empty());
  EXPECT_NE(message([](FtlConfig& c) {
              c.precondition.random_overwrites = 0;
              c.precondition.method = "replicate";
            }).find("ftl.precondition.method: not used by ftl.kind static_block"),
            std::string::npos);
  EXPECT_EQ(Config(0.5).Validate(Geo(4, 2, 1, 8)).message(),
            "ftl.static_block.spare: 1 spare blocks per plane leave none of the 1 blocks of a plane for data");
  EXPECT_TRUE(Config(0.5).Validate(g).ok());
  EXPECT_TRUE(Config().FixesPlacement());
  FtlConfig page;
  EXPECT_FALSE(page.FixesPlacement());
}

TEST(StaticBlockFtlTest, BuiltByTheFactoryWithItsPlacement) {
  sim::EventQueue q;
  sim::StatsRegistry registry;
  fakes::FakeFlashArray array(Geo(), &q);
  auto ftl = MakeFtl(Config(), &array, &q, registry.Root().Group("ftl"));
  ASSERT_TRUE(ftl.ok()) << ftl.status().message();
  ASSERT_NE((*ftl)->fixed_placement(), nullptr);
  EXPECT_EQ((*ftl)->fixed_placement()->logical_blocks(), 64u);
  for (const char* name : {"ftl.host_writes", "ftl.host_reads", "ftl.unmapped_reads", "ftl.gc_copies",
                           "ftl.gc_runs_bg", "ftl.gc_runs_fg", "ftl.erases", "ftl.trims", "ftl.write_stalls",
                           "ftl.free_blocks", "ftl.erase_count_mean", "ftl.erase_count_stddev",
                           "ftl.precondition.host_writes"}) {
    EXPECT_FALSE(std::isnan(registry.Value(name))) << name;
  }
  EXPECT_EQ(registry.Value("ftl.free_blocks"), 80);
}

}  // namespace
}  // namespace ftl
