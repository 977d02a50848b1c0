#include "flash/nand_array.h"

#include <deque>
#include <map>
#include <memory>

#include <gtest/gtest.h>

#include "sim/event_queue.h"
#include "flash/nand_test_util.h"
#include "sim/rng.h"
#include "sim/stats.h"

namespace flash {
namespace {

using sim::Ms;
using sim::Ns;
using sim::SimTime;
using sim::Us;
using testing::RecordingClient;

class NandArrayTest : public ::testing::Test {
 protected:
  void Build() {
    array_ = std::make_unique<NandArray>(&eq_, geo_, cfg_, stats_.Root().Group("flash"));
    tx_ = array_->page_transfer_time();
  }

  FlashCommand* Cmd(FlashOpKind kind, FlashAddr a, CmdSource src = CmdSource::kHost) {
    cmds_.emplace_back();
    FlashCommand* c = &cmds_.back();
    c->kind = kind;
    c->source = src;
    c->ppn = geo_.ToPpn(a);
    c->client = &client_;
    c->tag = cmds_.size() - 1;
    return c;
  }
  static FlashAddr Addr(uint32_t ch, uint32_t chip, uint32_t plane, uint32_t block, uint32_t page) {
    FlashAddr a;
    a.channel = ch;
    a.chip = chip;
    a.plane = plane;
    a.block = block;
    a.page = page;
    return a;
  }
  // Submits `c` at simulated time `t`.
  void SubmitAt(SimTime t, FlashCommand* c) {
    events_.push_back(std::make_unique<sim::FunctionEvent>([this, c] { array_->Submit(c); }));
    eq_.Schedule(events_.back().get(), t);
  }
  SimTime Latency(const FlashCommand* c) const { return c->finish_time - c->submit_time; }

  sim::EventQueue eq_;
  sim::StatsRegistry stats_;
  Geometry geo_ = testing::TinyGeometry();
  FlashConfig cfg_ = testing::TestFlashConfig();
  std::unique_ptr<NandArray> array_;
  RecordingClient client_;
  std::deque<FlashCommand> cmds_;
  std::vector<std::unique_ptr<sim::Event>> events_;
  SimTime tx_;
  const SimTime c_ = Ns(500);
};

TEST_F(NandArrayTest, TransferTimeIsPageOverChannelRate) {
  Build();
  EXPECT_EQ(tx_, sim::TransferTime(8192, 333e6));
  EXPECT_EQ(tx_, Ns(24601));
}

TEST_F(NandArrayTest, Qd1ReadIsCmdPlusTrPlusTransfer) {
  Build();
  FlashCommand* r = Cmd(FlashOpKind::kRead, Addr(0, 0, 0, 3, 5));
  SubmitAt(Us(10), r);
  eq_.Run();
  ASSERT_EQ(client_.done.size(), 1u);
  EXPECT_EQ(Latency(r), c_ + Us(75) + tx_);
  EXPECT_EQ(r->start_time, Us(10));
  EXPECT_EQ(r->finish_time, Us(10) + c_ + Us(75) + tx_);
}

TEST_F(NandArrayTest, ProgramIsCmdPlusTransferPlusTprog) {
  Build();
  FlashCommand* p = Cmd(FlashOpKind::kProgram, Addr(1, 1, 1, 2, 0));
  SubmitAt(SimTime::Zero(), p);
  eq_.Run();
  EXPECT_EQ(Latency(p), c_ + tx_ + Us(750));
}

TEST_F(NandArrayTest, EraseIsCmdPlusTbers) {
  Build();
  FlashCommand* e = Cmd(FlashOpKind::kErase, Addr(0, 1, 0, 2, 0));
  SubmitAt(SimTime::Zero(), e);
  eq_.Run();
  EXPECT_EQ(Latency(e), c_ + Ms(3.8));
}

TEST_F(NandArrayTest, PageTypeTimesForMlc) {
  cfg_.timing.cell = "mlc";
  cfg_.timing.t_read_msb = Us(120);
  cfg_.timing.t_prog_msb = Us(1500);
  Build();
  FlashCommand* lsb = Cmd(FlashOpKind::kRead, Addr(0, 0, 0, 0, 4));
  FlashCommand* msb = Cmd(FlashOpKind::kRead, Addr(1, 0, 0, 0, 5));
  FlashCommand* pmsb = Cmd(FlashOpKind::kProgram, Addr(0, 1, 0, 0, 7));
  SubmitAt(SimTime::Zero(), lsb);
  SubmitAt(SimTime::Zero(), msb);
  SubmitAt(SimTime::Zero(), pmsb);
  eq_.Run();
  EXPECT_EQ(Latency(lsb), c_ + Us(75) + tx_);
  EXPECT_EQ(Latency(msb), c_ + Us(120) + tx_);
  // pmsb's command waits for lsb's command on channel 0.
  EXPECT_EQ(Latency(pmsb), c_ + c_ + tx_ + Us(1500));
}

TEST_F(NandArrayTest, ValidateRejectsMsbTimeOnSlc) {
  cfg_.timing.t_read_msb = Us(100);
  EXPECT_FALSE(cfg_.Validate(geo_).ok());
  cfg_.timing.cell = "mlc";
  EXPECT_TRUE(cfg_.Validate(geo_).ok());
  cfg_.timing.t_read_csb = Us(100);
  EXPECT_FALSE(cfg_.Validate(geo_).ok());
  cfg_.timing.cell = "tlc";
  EXPECT_TRUE(cfg_.Validate(geo_).ok());
  cfg_.scheduler = "lifo";
  sim::Status st = cfg_.Validate(geo_);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("read_priority"), std::string::npos) << st.message();
}

TEST_F(NandArrayTest, TwoDiesOnOneChannelSerializeDataOut) {
  Build();
  FlashCommand* a = Cmd(FlashOpKind::kRead, Addr(0, 0, 0, 0, 0));
  FlashCommand* b = Cmd(FlashOpKind::kRead, Addr(0, 1, 0, 0, 0));
  SubmitAt(SimTime::Zero(), a);
  SubmitAt(SimTime::Zero(), b);
  eq_.Run();
  // a: cmd [0,c], tR, out [c+tR, c+tR+tx]. b: cmd [c,2c], tR ends at
  // 2c+tR < c+tR+tx, so b's data waits for a's and ends at c+tR+2tx.
  EXPECT_EQ(a->finish_time, c_ + Us(75) + tx_);
  EXPECT_EQ(b->finish_time, c_ + Us(75) + tx_ * 2);
  EXPECT_EQ(array_->ChannelBusyTime(0), c_ * 2 + tx_ * 2);
  EXPECT_EQ(array_->DieBusyTime(1), b->finish_time);
}

// Die A reads twice, die B once, all on channel 0. When A's first page is
// out, A's second command and B's data-out both want the bus.
TEST_F(NandArrayTest, CmdFirstArbitrationGrantsCommandBeforeWaitingData) {
  Build();
  FlashCommand* a1 = Cmd(FlashOpKind::kRead, Addr(0, 0, 0, 0, 0));
  FlashCommand* a2 = Cmd(FlashOpKind::kRead, Addr(0, 0, 0, 0, 1));
  FlashCommand* b = Cmd(FlashOpKind::kRead, Addr(0, 1, 0, 0, 0));
  for (FlashCommand* x : {a1, a2, b}) SubmitAt(SimTime::Zero(), x);
  eq_.Run();
  EXPECT_EQ(a1->finish_time, c_ + Us(75) + tx_);
  EXPECT_EQ(b->finish_time, c_ * 2 + Us(75) + tx_ * 2);
  EXPECT_EQ(a2->finish_time, c_ * 2 + Us(150) + tx_ * 2);
}

TEST_F(NandArrayTest, FifoArbitrationGrantsInRequestOrder) {
  cfg_.channel_arbitration = "fifo";
  Build();
  FlashCommand* a1 = Cmd(FlashOpKind::kRead, Addr(0, 0, 0, 0, 0));
  FlashCommand* a2 = Cmd(FlashOpKind::kRead, Addr(0, 0, 0, 0, 1));
  FlashCommand* b = Cmd(FlashOpKind::kRead, Addr(0, 1, 0, 0, 0));
  for (FlashCommand* x : {a1, a2, b}) SubmitAt(SimTime::Zero(), x);
  eq_.Run();
  EXPECT_EQ(a1->finish_time, c_ + Us(75) + tx_);
  EXPECT_EQ(b->finish_time, c_ + Us(75) + tx_ * 2);
  EXPECT_EQ(a2->finish_time, c_ * 2 + Us(150) + tx_ * 3);
}

TEST_F(NandArrayTest, DiesOnDifferentChannelsDoNotInterfere) {
  Build();
  FlashCommand* a = Cmd(FlashOpKind::kRead, Addr(0, 0, 0, 0, 0));
  FlashCommand* b = Cmd(FlashOpKind::kRead, Addr(1, 0, 0, 0, 0));
  SubmitAt(SimTime::Zero(), a);
  SubmitAt(SimTime::Zero(), b);
  eq_.Run();
  EXPECT_EQ(a->finish_time, c_ + Us(75) + tx_);
  EXPECT_EQ(b->finish_time, c_ + Us(75) + tx_);
}

TEST_F(NandArrayTest, SameDieReadsSerializeWithoutMultiPlane) {
  Build();
  FlashCommand* a = Cmd(FlashOpKind::kRead, Addr(0, 0, 0, 1, 3));
  FlashCommand* b = Cmd(FlashOpKind::kRead, Addr(0, 0, 1, 1, 3));
  SubmitAt(SimTime::Zero(), a);
  SubmitAt(SimTime::Zero(), b);
  eq_.Run();
  EXPECT_EQ(a->finish_time, c_ + Us(75) + tx_);
  EXPECT_EQ(b->finish_time, (c_ + Us(75) + tx_) * 2);
}

TEST_F(NandArrayTest, MultiPlaneReadSharesOneTr) {
  cfg_.multi_plane.enabled = true;
  Build();
  FlashCommand* a = Cmd(FlashOpKind::kRead, Addr(0, 0, 0, 1, 3));
  FlashCommand* b = Cmd(FlashOpKind::kRead, Addr(0, 0, 1, 6, 3));  // other block, same page
  SubmitAt(SimTime::Zero(), a);
  SubmitAt(SimTime::Zero(), b);
  eq_.Run();
  EXPECT_EQ(a->finish_time, c_ * 2 + Us(75) + tx_);
  EXPECT_EQ(b->finish_time, c_ * 2 + Us(75) + tx_ * 2);
  EXPECT_EQ(stats_.Value("flash.multi_plane.ops"), 1);
  EXPECT_EQ(stats_.Value("flash.multi_plane.cmds"), 2);
}

TEST_F(NandArrayTest, MultiPlaneRespectsPageAndBlockRules) {
  cfg_.multi_plane.enabled = true;
  cfg_.multi_plane.same_block = true;
  Build();
  FlashCommand* a = Cmd(FlashOpKind::kRead, Addr(0, 0, 0, 1, 3));
  FlashCommand* b = Cmd(FlashOpKind::kRead, Addr(0, 0, 1, 6, 3));  // other block: not a partner
  FlashCommand* d = Cmd(FlashOpKind::kRead, Addr(0, 0, 1, 1, 4));  // other page: not a partner
  SubmitAt(SimTime::Zero(), a);
  SubmitAt(SimTime::Zero(), b);
  SubmitAt(SimTime::Zero(), d);
  eq_.Run();
  const SimTime one = c_ + Us(75) + tx_;
  EXPECT_EQ(a->finish_time, one);
  EXPECT_EQ(b->finish_time, one * 2);
  EXPECT_EQ(d->finish_time, one * 3);
  EXPECT_EQ(stats_.Value("flash.multi_plane.ops"), 0);
}

TEST_F(NandArrayTest, MultiPlaneProgramSharesOneTprog) {
  cfg_.multi_plane.enabled = true;
  Build();
  FlashCommand* a = Cmd(FlashOpKind::kProgram, Addr(1, 0, 0, 2, 0));
  FlashCommand* b = Cmd(FlashOpKind::kProgram, Addr(1, 0, 1, 5, 0));
  SubmitAt(SimTime::Zero(), a);
  SubmitAt(SimTime::Zero(), b);
  eq_.Run();
  EXPECT_EQ(a->finish_time, (c_ + tx_) * 2 + Us(750));
  EXPECT_EQ(b->finish_time, (c_ + tx_) * 2 + Us(750));
}

TEST_F(NandArrayTest, MultiPlaneProgramDoesNotOvertakeEarlierProgramOfItsPlane) {
  cfg_.multi_plane.enabled = true;
  Build();
  FlashCommand* a = Cmd(FlashOpKind::kProgram, Addr(0, 0, 0, 0, 5));
  FlashCommand* b = Cmd(FlashOpKind::kProgram, Addr(0, 0, 1, 0, 4));
  FlashCommand* d = Cmd(FlashOpKind::kProgram, Addr(0, 0, 1, 0, 5));
  SubmitAt(SimTime::Zero(), a);
  SubmitAt(SimTime::Zero(), b);
  SubmitAt(SimTime::Zero(), d);
  eq_.Run();
  // d matches a's page offset but must not run before b on plane 1.
  EXPECT_LT(b->finish_time, d->finish_time);
  EXPECT_EQ(a->finish_time, c_ + tx_ + Us(750));
}

TEST_F(NandArrayTest, WithoutCacheProgramProgramsSerialize) {
  Build();
  FlashCommand* a = Cmd(FlashOpKind::kProgram, Addr(0, 0, 0, 0, 0));
  FlashCommand* b = Cmd(FlashOpKind::kProgram, Addr(0, 0, 0, 0, 1));
  SubmitAt(SimTime::Zero(), a);
  SubmitAt(SimTime::Zero(), b);
  eq_.Run();
  EXPECT_EQ(b->finish_time, (c_ + tx_ + Us(750)) * 2);
}

TEST_F(NandArrayTest, CacheProgramOverlapsDataInWithTprog) {
  cfg_.cache_program = true;
  Build();
  FlashCommand* a = Cmd(FlashOpKind::kProgram, Addr(0, 0, 0, 0, 0));
  FlashCommand* b = Cmd(FlashOpKind::kProgram, Addr(0, 0, 0, 0, 1));
  FlashCommand* d = Cmd(FlashOpKind::kProgram, Addr(0, 0, 0, 0, 2));
  SubmitAt(SimTime::Zero(), a);
  SubmitAt(SimTime::Zero(), b);
  SubmitAt(SimTime::Zero(), d);
  eq_.Run();
  EXPECT_EQ(a->finish_time, c_ + tx_ + Us(750));
  EXPECT_EQ(b->finish_time, c_ + tx_ + Us(750) * 2);
  EXPECT_EQ(d->finish_time, c_ + tx_ + Us(750) * 3);
  // The die was busy all along; the channel only for the three data-ins.
  EXPECT_EQ(array_->ChannelBusyTime(0), (c_ + tx_) * 3);
}

TEST_F(NandArrayTest, FifoKeepsReadBehindQueuedPrograms) {
  Build();
  FlashCommand* p1 = Cmd(FlashOpKind::kProgram, Addr(0, 0, 0, 0, 0));
  FlashCommand* p2 = Cmd(FlashOpKind::kProgram, Addr(0, 0, 0, 0, 1));
  FlashCommand* p3 = Cmd(FlashOpKind::kProgram, Addr(0, 0, 0, 0, 2));
  FlashCommand* r = Cmd(FlashOpKind::kRead, Addr(0, 0, 1, 3, 3));
  for (FlashCommand* p : {p1, p2, p3}) SubmitAt(SimTime::Zero(), p);
  SubmitAt(Us(1), r);
  eq_.Run();
  const SimTime prog = c_ + tx_ + Us(750);
  EXPECT_EQ(p3->finish_time, prog * 3);
  EXPECT_EQ(r->finish_time, prog * 3 + c_ + Us(75) + tx_);
}

TEST_F(NandArrayTest, ReadPriorityRunsReadBeforeQueuedPrograms) {
  cfg_.scheduler = "read_priority";
  Build();
  FlashCommand* p1 = Cmd(FlashOpKind::kProgram, Addr(0, 0, 0, 0, 0));
  FlashCommand* p2 = Cmd(FlashOpKind::kProgram, Addr(0, 0, 0, 0, 1));
  FlashCommand* p3 = Cmd(FlashOpKind::kProgram, Addr(0, 0, 0, 0, 2));
  FlashCommand* r = Cmd(FlashOpKind::kRead, Addr(0, 0, 1, 3, 3));
  for (FlashCommand* p : {p1, p2, p3}) SubmitAt(SimTime::Zero(), p);
  SubmitAt(Us(1), r);
  eq_.Run();
  const SimTime prog = c_ + tx_ + Us(750);
  const SimTime read = c_ + Us(75) + tx_;
  EXPECT_EQ(p1->finish_time, prog);
  EXPECT_EQ(r->finish_time, prog + read);
  EXPECT_EQ(p2->finish_time, prog * 2 + read);
  EXPECT_EQ(p3->finish_time, prog * 3 + read);
}

TEST_F(NandArrayTest, ReadPriorityPutsHostReadsBeforeGcReads) {
  cfg_.scheduler = "read_priority";
  Build();
  FlashCommand* p = Cmd(FlashOpKind::kProgram, Addr(0, 0, 0, 0, 0));
  FlashCommand* gc = Cmd(FlashOpKind::kRead, Addr(0, 0, 0, 1, 1), CmdSource::kGc);
  FlashCommand* host = Cmd(FlashOpKind::kRead, Addr(0, 0, 0, 1, 2), CmdSource::kHost);
  SubmitAt(SimTime::Zero(), p);
  SubmitAt(Us(1), gc);
  SubmitAt(Us(2), host);
  eq_.Run();
  EXPECT_LT(host->finish_time, gc->finish_time);
}

TEST_F(NandArrayTest, EraseSuspendBoundsReadLatency) {
  cfg_.scheduler = "read_priority";
  cfg_.suspend.erase = true;
  cfg_.suspend.erase_latency = Us(20);
  cfg_.suspend.resume_latency = Us(5);
  Build();
  FlashCommand* e = Cmd(FlashOpKind::kErase, Addr(0, 0, 0, 4, 0));
  FlashCommand* r = Cmd(FlashOpKind::kRead, Addr(0, 0, 1, 3, 3));
  SubmitAt(SimTime::Zero(), e);
  SubmitAt(Ms(1), r);
  eq_.Run();
  const SimTime read = c_ + Us(75) + tx_;
  EXPECT_EQ(Latency(r), Us(20) + read);
  // Erase: c + 1ms - c of progress before the suspend, then the rest after
  // the read and the resume latency.
  EXPECT_EQ(e->finish_time, c_ + Ms(3.8) + Us(20) + read + Us(5));
  EXPECT_EQ(array_->suspensions(), 1u);
  EXPECT_EQ(stats_.Value("flash.suspends.erase"), 1);
}

TEST_F(NandArrayTest, WithoutSuspendReadWaitsForErase) {
  cfg_.scheduler = "read_priority";
  Build();
  FlashCommand* e = Cmd(FlashOpKind::kErase, Addr(0, 0, 0, 4, 0));
  FlashCommand* r = Cmd(FlashOpKind::kRead, Addr(0, 0, 1, 3, 3));
  SubmitAt(SimTime::Zero(), e);
  SubmitAt(Ms(1), r);
  eq_.Run();
  EXPECT_EQ(r->finish_time, c_ + Ms(3.8) + c_ + Us(75) + tx_);
  EXPECT_EQ(array_->suspensions(), 0u);
}

TEST_F(NandArrayTest, ProgramSuspendServesQueuedReadsThenResumes) {
  cfg_.scheduler = "read_priority";
  cfg_.suspend.program = true;
  cfg_.suspend.program_latency = Us(10);
  Build();
  FlashCommand* p = Cmd(FlashOpKind::kProgram, Addr(0, 0, 0, 0, 0));
  FlashCommand* r1 = Cmd(FlashOpKind::kRead, Addr(0, 0, 1, 3, 3));
  FlashCommand* r2 = Cmd(FlashOpKind::kRead, Addr(0, 0, 1, 3, 4));
  SubmitAt(SimTime::Zero(), p);
  SubmitAt(Us(100), r1);
  SubmitAt(Us(101), r2);  // arrives during the suspend latency: served in the same suspension
  eq_.Run();
  const SimTime read = c_ + Us(75) + tx_;
  EXPECT_EQ(r1->finish_time, Us(110) + read);
  EXPECT_EQ(r2->finish_time, Us(110) + read * 2);
  EXPECT_EQ(p->finish_time, c_ + tx_ + Us(750) + Us(10) + read * 2);
  EXPECT_EQ(array_->suspensions(), 1u);
}

TEST_F(NandArrayTest, MaxSuspendsPerOpLimitsSuspensions) {
  cfg_.scheduler = "read_priority";
  cfg_.suspend.erase = true;
  cfg_.suspend.max_per_op = 1;
  Build();
  FlashCommand* e = Cmd(FlashOpKind::kErase, Addr(0, 0, 0, 4, 0));
  SubmitAt(SimTime::Zero(), e);
  FlashCommand* r1 = Cmd(FlashOpKind::kRead, Addr(0, 0, 1, 3, 3));
  FlashCommand* r2 = Cmd(FlashOpKind::kRead, Addr(0, 0, 1, 3, 4));
  SubmitAt(Ms(1), r1);
  SubmitAt(Ms(2), r2);
  eq_.Run();
  EXPECT_EQ(array_->suspensions(), 1u);
  EXPECT_GT(r2->finish_time, e->finish_time);
}

TEST_F(NandArrayTest, UtilizationFormulas) {
  Build();
  FlashCommand* r = Cmd(FlashOpKind::kRead, Addr(0, 0, 0, 0, 0));
  SubmitAt(SimTime::Zero(), r);
  eq_.Run();
  const SimTime end = r->finish_time;
  sim::FunctionEvent tick([] {});
  eq_.Schedule(&tick, end * 2);
  eq_.Run();
  // One of four dies busy half of the time; one of two channels busy (c + tx) of 2*end.
  EXPECT_DOUBLE_EQ(stats_.Value("flash.die_utilization"), 0.5 / 4);
  EXPECT_DOUBLE_EQ(stats_.Value("flash.die_utilization_max"), 0.5);
  EXPECT_DOUBLE_EQ(stats_.Value("flash.channel.0.utilization"),
                   static_cast<double>((c_ + tx_).ns()) / static_cast<double>((end * 2).ns()));
  EXPECT_EQ(stats_.Value("flash.cmds.read.host"), 1);
  EXPECT_EQ(stats_.Value("flash.cmds.read.gc"), 0);
}

TEST_F(NandArrayTest, DieLoadCountsQueuedAndRunning) {
  Build();
  const uint32_t die = geo_.DieId(1, 1, 0);
  for (int i = 0; i < 3; ++i) SubmitAt(SimTime::Zero(), Cmd(FlashOpKind::kRead, Addr(1, 1, 0, 0, i)));
  eq_.Run(Ns(1));
  EXPECT_EQ(array_->DieLoad(die), 3u);
  eq_.Run();
  EXPECT_EQ(array_->DieLoad(die), 0u);
}

TEST_F(NandArrayTest, DestroyingWithCommandsInFlightIsSafe) {
  Build();
  for (int i = 0; i < 4; ++i) SubmitAt(SimTime::Zero(), Cmd(FlashOpKind::kProgram, Addr(0, 0, 0, 0, i)));
  eq_.Run(Us(30));
  EXPECT_GT(eq_.pending(), 0u);
  array_.reset();
  eq_.Run();
  EXPECT_TRUE(client_.done.empty());
}

// Submit decodes each ppn (by shifts when every size below the channel is a
// power of two): the address and die id must match Geometry::ToAddr for
// every page, for power-of-two and other geometries alike.
TEST_F(NandArrayTest, SubmitDecodesEveryPpnLikeGeometry) {
  for (const bool pow2 : {true, false}) {
    Geometry g = testing::TinyGeometry();
    g.channels = 3;
    g.dies_per_chip = 2;
    if (!pow2) {
      g.chips_per_channel = 3;
      g.blocks_per_plane = 5;
      g.pages_per_block = 12;
    }
    sim::EventQueue eq;
    sim::StatsRegistry stats;
    NandArray array(&eq, g, cfg_, stats.Root().Group("flash"));
    for (uint64_t p = 0; p < g.pages(); p += 7) {
      FlashCommand c;
      c.kind = FlashOpKind::kRead;
      c.ppn = Ppn{p};
      c.client = &client_;
      array.Submit(&c);
      const FlashAddr want = g.ToAddr(c.ppn);
      EXPECT_EQ(c.addr.channel, want.channel) << p;
      EXPECT_EQ(c.addr.chip, want.chip) << p;
      EXPECT_EQ(c.addr.die, want.die) << p;
      EXPECT_EQ(c.addr.plane, want.plane) << p;
      EXPECT_EQ(c.addr.block, want.block) << p;
      EXPECT_EQ(c.addr.page, want.page) << p;
      EXPECT_EQ(c.die, g.DieId(want.channel, want.chip, want.die)) << p;
      eq.Run();
    }
  }
}

}  // namespace
}  // namespace flash
