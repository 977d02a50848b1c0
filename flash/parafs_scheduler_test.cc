// The "parafs" die scheduler (parafs_scheduler.h) on the timed NandArray:
// time slices, the erase-vs-write choice e = a·f + b·N_e, and its read
// latency spread against FIFO under a mixed load with erases. The
// conformance suite in die_scheduler_test.cc covers the general contract.
#include "flash/parafs_scheduler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flash/nand_array.h"
#include "flash/nand_test_util.h"
#include "sim/event_queue.h"
#include "sim/rng.h"
#include "sim/stats.h"

namespace flash {
namespace {

using sim::SimTime;

class ParafsSchedulerTest : public ::testing::Test {
 protected:
  ParafsSchedulerTest() : geo_(testing::TinyGeometry()), cfg_(testing::TestFlashConfig()) {
    cfg_.scheduler = "parafs";
  }

  ParafsSchedulerConfig& Parafs() { return cfg_.scheduler_configs.Mutable<ParafsSchedulerConfig>("parafs"); }

  void Build() { array_ = std::make_unique<NandArray>(&eq_, geo_, cfg_, stats_.Root()); }

  // A command on die `die` (chip = die on TinyGeometry: 1 die per chip),
  // plane 0, at (block, page).
  FlashCommand* Cmd(FlashOpKind kind, uint32_t channel, uint32_t chip, uint32_t block, uint32_t page,
                    uint32_t plane = 0) {
    pool_.emplace_back();
    FlashCommand* c = &pool_.back();
    c->kind = kind;
    FlashAddr a;
    a.channel = channel;
    a.chip = chip;
    a.plane = plane;
    a.block = block;
    a.page = page;
    c->ppn = geo_.ToPpn(a);
    c->client = &client_;
    c->tag = pool_.size() - 1;
    return c;
  }

  // Puts `n` of channel 0's 32 blocks in use (one page programmed each) and
  // runs until they are programmed: first die 0's plane 1 block 7 (where
  // the tests program next, so their programs add no block), then die 1's
  // blocks, then die 0's plane 0 blocks.
  void UseBlocksOfChannel0(uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) {
      if (i == 0) {
        array_->Submit(Cmd(FlashOpKind::kProgram, 0, 0, 7, 0, 1));
      } else if (i <= 16) {
        array_->Submit(Cmd(FlashOpKind::kProgram, 0, 1, (i - 1) % 8, 0, (i - 1) / 8));
      } else {
        array_->Submit(Cmd(FlashOpKind::kProgram, 0, 0, i - 17, 0, 0));
      }
    }
    eq_.Run();
    client_.done.clear();
  }

  Geometry geo_;
  FlashConfig cfg_;
  sim::EventQueue eq_;
  sim::StatsRegistry stats_;
  std::unique_ptr<NandArray> array_;
  std::deque<FlashCommand> pool_;
  testing::RecordingClient client_;
};

TEST_F(ParafsSchedulerTest, ConfigSectionHasTheSlidesDefaults) {
  const FlashConfig d = sim::MakeDefault<FlashConfig>();
  const auto& p = d.scheduler_configs.Get<ParafsSchedulerConfig>("parafs");
  EXPECT_EQ(p.a, 2.0);
  EXPECT_EQ(p.b, 1.0);
  EXPECT_EQ(p.threshold, 1.0);
  EXPECT_EQ(p.read_slice, sim::Ms(1));
  EXPECT_EQ(p.write_slice, sim::Ms(1));
}

// 20 programs then 40 reads queued at one die at once: FIFO would finish
// every program first; parafs alternates runs of reads and programs.
TEST_F(ParafsSchedulerTest, SlicesAlternateAndServeBothClasses) {
  Build();
  for (uint32_t i = 0; i < 20; ++i) array_->Submit(Cmd(FlashOpKind::kProgram, 0, 0, 0, i));
  for (uint32_t i = 0; i < 40; ++i) array_->Submit(Cmd(FlashOpKind::kRead, 0, 0, 1, i % 16));
  eq_.Run();
  ASSERT_EQ(client_.done.size(), 60u);
  // Runs of one kind in completion order.
  std::vector<std::pair<FlashOpKind, int>> runs;
  for (const FlashCommand* c : client_.done) {
    if (runs.empty() || runs.back().first != c->kind) runs.emplace_back(c->kind, 0);
    ++runs.back().second;
  }
  EXPECT_EQ(runs.front().first, FlashOpKind::kRead) << "a channel starts in its read slice";
  EXPECT_GE(runs.size(), 6u) << "read and write slices alternate while both classes are queued";
  // A 1 ms read slice holds about ten reads (~100 us each); a 1 ms write
  // slice one or two programs (~775 us each).
  EXPECT_GE(runs.front().second, 5);
  EXPECT_LE(runs.front().second, 12);
  EXPECT_LE(runs[1].second, 2);
  // Programs of the plane kept their order.
  uint64_t last = 0;
  for (const FlashCommand* c : client_.done) {
    if (c->kind != FlashOpKind::kProgram) continue;
    EXPECT_GE(c->tag, last);
    last = c->tag;
  }
}

// Longer write slices give programs a larger share.
TEST_F(ParafsSchedulerTest, SliceLengthsAreHonoured) {
  Parafs().write_slice = sim::Ms(4);
  Parafs().read_slice = sim::Us(250);
  Build();
  for (uint32_t i = 0; i < 20; ++i) array_->Submit(Cmd(FlashOpKind::kProgram, 0, 0, 0, i));
  for (uint32_t i = 0; i < 40; ++i) array_->Submit(Cmd(FlashOpKind::kRead, 0, 0, 1, i % 16));
  eq_.Run();
  ASSERT_EQ(client_.done.size(), 60u);
  int first_reads = 0, then_programs = 0;
  size_t i = 0;
  for (; i < client_.done.size() && client_.done[i]->kind == FlashOpKind::kRead; ++i) ++first_reads;
  for (; i < client_.done.size() && client_.done[i]->kind == FlashOpKind::kProgram; ++i) ++then_programs;
  EXPECT_LE(first_reads, 3);
  EXPECT_GE(then_programs, 5);
}

// A class with nothing queued does not hold the die: programs alone in a
// read slice, reads alone in a write slice, run back to back as under FIFO.
TEST_F(ParafsSchedulerTest, IdleClassDoesNotHoldTheDie) {
  auto finish_times = [&](const std::string& scheduler, FlashOpKind kind) {
    FlashConfig cfg = cfg_;
    cfg.scheduler = scheduler;
    sim::EventQueue eq;
    sim::StatsRegistry stats;
    NandArray array(&eq, geo_, cfg, stats.Root());
    std::deque<FlashCommand> cmds(12);
    testing::RecordingClient client;
    std::vector<int64_t> t;
    client.on_done = [&](FlashCommand* c) { t.push_back(c->finish_time.ns()); };
    for (uint32_t i = 0; i < cmds.size(); ++i) {
      FlashAddr a;
      a.page = i;
      cmds[i].kind = kind;
      cmds[i].ppn = geo_.ToPpn(a);
      cmds[i].client = &client;
      array.Submit(&cmds[i]);
    }
    eq.Run();
    return t;
  };
  for (FlashOpKind k : {FlashOpKind::kProgram, FlashOpKind::kRead, FlashOpKind::kErase}) {
    const auto fifo = finish_times("fifo", k);
    EXPECT_EQ(fifo.size(), 12u);
    EXPECT_EQ(finish_times("parafs", k), fifo) << static_cast<int>(k);
  }
}

// With no reads queued the channel is in its write/erase slice; a die holds
// one erase (submitted last) and three programs. Where the erase goes
// depends on e = 2·f + 1·N_e against 1.
class EraseUrgencyTest : public ParafsSchedulerTest {
 protected:
  // Returns the position of the erase in die 0's completion order (0..3).
  int ErasePosition(uint32_t blocks_in_use, bool other_channel_erasing) {
    Build();
    UseBlocksOfChannel0(blocks_in_use);
    if (other_channel_erasing) {
      array_->Submit(Cmd(FlashOpKind::kErase, 1, 0, 7, 0));
      eq_.Run(eq_.now() + sim::Us(10));  // the erase is under way
    }
    for (uint32_t i = 1; i <= 3; ++i) array_->Submit(Cmd(FlashOpKind::kProgram, 0, 0, 7, i, 1));
    array_->Submit(Cmd(FlashOpKind::kErase, 0, 0, 6, 0, 1));
    eq_.Run();
    int pos = 0;
    for (const FlashCommand* c : client_.done) {
      if (c->addr.channel != 0) continue;
      if (c->kind == FlashOpKind::kErase) return pos;
      ++pos;
    }
    return -1;
  }
};

TEST_F(EraseUrgencyTest, PlentyOfFreeSpaceKeepsProgramsFirst) {
  // 8 of 32 blocks in use: f = 0.75, e = 1.5 >= 1.
  EXPECT_EQ(ErasePosition(8, false), 3);
}

TEST_F(EraseUrgencyTest, ShortSpaceMovesTheEraseAhead) {
  // 20 of 32 blocks in use: f = 0.375, e = 0.75 < 1.
  EXPECT_EQ(ErasePosition(20, false), 0);
}

TEST_F(EraseUrgencyTest, ThresholdIsWhereTheChoiceFlips) {
  // 16 of 32 in use: f = 0.5, e = 1.0, not below the threshold.
  EXPECT_EQ(ErasePosition(16, false), 3);
}

TEST_F(EraseUrgencyTest, ConcurrentErasesOnOtherChannelsHoldTheEraseBack) {
  // f = 0.375 but one of two channels erasing: e = 0.75 + 0.5 >= 1.
  EXPECT_EQ(ErasePosition(20, true), 3);
}

TEST_F(EraseUrgencyTest, WeightsAreConfigurable) {
  // Same space as PlentyOfFreeSpace, but a = 1: e = 0.75 < 1.
  Parafs().a = 1;
  EXPECT_EQ(ErasePosition(8, false), 0);
}

// Read latency under a mixed open-loop load with erases on one command
// stream: the spread (p99 - p50) is lower under parafs than under FIFO.
struct ReadLatency {
  int64_t p50 = 0, p99 = 0;
  double mean = 0;
  uint64_t reads = 0;
  int64_t end = 0;
};

ReadLatency RunMixed(const std::string& scheduler, uint64_t seed) {
  const Geometry geo = testing::TinyGeometry();
  FlashConfig cfg = testing::TestFlashConfig();
  cfg.scheduler = scheduler;
  sim::EventQueue eq;
  sim::StatsRegistry stats;
  NandArray array(&eq, geo, cfg, stats.Root());
  sim::Rng rng(seed, "parafs-mixed");
  constexpr uint32_t kCmds = 6000;
  std::vector<FlashCommand> cmds(kCmds);
  std::vector<uint32_t> next_page(geo.planes(), 0);
  std::vector<int64_t> read_lat;
  testing::RecordingClient client;
  int64_t end = 0;
  client.on_done = [&](FlashCommand* c) {
    if (c->kind == FlashOpKind::kRead) read_lat.push_back((c->finish_time - c->submit_time).ns());
    end = std::max(end, c->finish_time.ns());
  };
  // Per plane: programs fill blocks 0..5 in page order; erases hit 6..7.
  // Mix 60 % reads, 36 % programs, 4 % erases at ~70 % die utilization
  // under FIFO (4 dies; mean service ~ 0.6·0.1 + 0.36·0.78 + 0.04·3.8 ms).
  const double mean_gap_ns = 1e6 * (0.6 * 0.1 + 0.36 * 0.78 + 0.04 * 3.8) / 4 / 0.7;
  SimTime t;
  std::vector<std::unique_ptr<sim::FunctionEvent>> arrivals;
  for (uint32_t i = 0; i < kCmds; ++i) {
    FlashCommand* c = &cmds[i];
    const uint32_t plane = static_cast<uint32_t>(rng.Uniform(geo.planes()));
    const uint64_t r = rng.Uniform(100);
    c->kind = r < 60 ? FlashOpKind::kRead : (r < 96 ? FlashOpKind::kProgram : FlashOpKind::kErase);
    uint64_t block = static_cast<uint64_t>(plane) * geo.blocks_per_plane;
    uint32_t page = static_cast<uint32_t>(rng.Uniform(geo.pages_per_block));
    if (c->kind == FlashOpKind::kProgram) {
      const uint32_t n = next_page[plane]++;
      block += (n / geo.pages_per_block) % 6;
      page = n % geo.pages_per_block;
    } else if (c->kind == FlashOpKind::kErase) {
      block += 6 + rng.Uniform(2);
      page = 0;
    } else {
      block += rng.Uniform(6);
    }
    c->ppn = Ppn{block * geo.pages_per_block + page};
    c->client = &client;
    c->tag = i;
    // Exponential gaps (deterministic from the seed).
    t = t + sim::Ns(static_cast<int64_t>(-std::log(1.0 - rng.UniformDouble()) * mean_gap_ns));
    arrivals.push_back(std::make_unique<sim::FunctionEvent>([&array, c] { array.Submit(c); }));
    eq.Schedule(arrivals.back().get(), t);
  }
  eq.Run();
  std::sort(read_lat.begin(), read_lat.end());
  ReadLatency out;
  out.reads = read_lat.size();
  out.p50 = read_lat[read_lat.size() / 2];
  out.p99 = read_lat[read_lat.size() * 99 / 100];
  double sum = 0;
  for (int64_t v : read_lat) sum += static_cast<double>(v);
  out.mean = sum / static_cast<double>(read_lat.size());
  out.end = end;
  return out;
}

TEST(ParafsVersusFifoTest, LowerReadLatencySpreadUnderMixedLoadWithErases) {
  for (uint64_t seed : {1, 2, 3}) {
    const ReadLatency fifo = RunMixed("fifo", seed);
    const ReadLatency parafs = RunMixed("parafs", seed);
    ASSERT_EQ(fifo.reads, parafs.reads);
    std::printf("seed %llu: read latency us  fifo p50 %.1f p99 %.1f spread %.1f mean %.1f end %.1f ms | "
                "parafs p50 %.1f p99 %.1f spread %.1f mean %.1f end %.1f ms\n",
                static_cast<unsigned long long>(seed), fifo.p50 / 1e3, fifo.p99 / 1e3, (fifo.p99 - fifo.p50) / 1e3,
                fifo.mean / 1e3, fifo.end / 1e6, parafs.p50 / 1e3, parafs.p99 / 1e3,
                (parafs.p99 - parafs.p50) / 1e3, parafs.mean / 1e3, parafs.end / 1e6);
    EXPECT_LT(parafs.p99 - parafs.p50, fifo.p99 - fifo.p50) << "seed " << seed;
  }
}

}  // namespace
}  // namespace flash
