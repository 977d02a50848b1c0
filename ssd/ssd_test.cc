#include "ssd/ssd.h"

#include <cstdio>
#include <deque>
#include <string>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "sim/event_queue.h"
#include "flash/nand_array.h"
#include "flash/nand_test_util.h"
#include "sim/rng.h"
#include "tests/fakes/fake_ftl.h"
#include "sim/stats.h"

namespace ssd {
namespace {

using ssd::BlockOp;
using ssd::BlockRequest;
using sim::Ms;
using sim::Ns;
using sim::SimTime;
using sim::Us;

class HostClient final : public ssd::BlockClient {
 public:
  void OnBlockComplete(BlockRequest* r) override {
    done.push_back(r);
    if (on_done) on_done(r);
  }
  std::vector<BlockRequest*> done;
  std::function<void(BlockRequest*)> on_done;
};

class SsdTest : public ::testing::Test {
 protected:
  SsdTest() {
    geo_ = flash::testing::TinyGeometry();
    flash_ = flash::testing::TestFlashConfig();
    cfg_ = sim::MakeDefault<SsdConfig>();
    cfg_.request_overhead = Us(2);
    cfg_.pcie_rate = sim::Bandwidth{4e9};
    cfg_.queue_depth = 8;
  }
  void Build(bool plane_first = false, bool precondition = true) {
    array_ = std::make_unique<flash::NandArray>(&eq_, geo_, flash_, stats_.Root().Group("flash"));
    ftl_ = std::make_unique<fakes::DirectFtl>(&eq_, array_.get(), plane_first);
    if (precondition) ftl_->Precondition(ftl::PreconditionSpec{});
    ssd_ = std::make_unique<Ssd>(&eq_, cfg_, geo_, ftl_.get(), stats_.Root().Group("ssd"));
    tx_ = array_->page_transfer_time();
  }
  BlockRequest* Req(BlockOp op, uint64_t offset, uint64_t length, uint32_t queue = 0, bool fua = false) {
    reqs_.emplace_back();
    BlockRequest* r = &reqs_.back();
    r->op = op;
    r->offset = offset;
    r->length = length;
    r->queue = queue;
    r->fua = fua;
    r->client = &client_;
    r->tag = reqs_.size() - 1;
    return r;
  }
  void SubmitAt(SimTime t, BlockRequest* r) {
    events_.push_back(std::make_unique<sim::FunctionEvent>([this, r] { ssd_->Submit(r); }));
    eq_.Schedule(events_.back().get(), t);
  }
  static SimTime E2e(const BlockRequest* r) { return r->complete_time - r->submit_time; }
  SimTime Pcie(uint64_t bytes) const { return sim::TransferTime(bytes, cfg_.pcie_rate.bytes_per_sec); }
  SimTime ReadT() const { return c_ + flash_.timing.t_read + tx_; }
  SimTime ProgT() const { return c_ + tx_ + flash_.timing.t_prog; }

  sim::EventQueue eq_;
  sim::StatsRegistry stats_;
  flash::Geometry geo_;
  flash::FlashConfig flash_;
  SsdConfig cfg_;
  std::unique_ptr<flash::NandArray> array_;
  std::unique_ptr<fakes::DirectFtl> ftl_;
  std::unique_ptr<Ssd> ssd_;
  HostClient client_;
  std::deque<BlockRequest> reqs_;
  std::vector<std::unique_ptr<sim::Event>> events_;
  SimTime tx_;
  const SimTime c_ = Ns(500);
  const SimTime o_ = Us(2);
};

TEST_F(SsdTest, ReportsGeometry) {
  Build();
  EXPECT_EQ(ssd_->capacity(), geo_.bytes());
  EXPECT_EQ(ssd_->io_unit(), 8192u);
  EXPECT_EQ(ssd_->sector_size(), 512u);
}

TEST_F(SsdTest, ReportsLayoutAndQueuesToTheLayerAbove) {
  cfg_.queues = 3;
  Build();
  EXPECT_EQ(ssd_->queues(), 3u);
  const DeviceLayout& l = ssd_->layout();
  EXPECT_EQ(l.channels, geo_.channels);
  EXPECT_EQ(l.chips_per_channel, geo_.chips_per_channel);
  EXPECT_EQ(l.dies_per_chip, geo_.dies_per_chip);
  EXPECT_EQ(l.planes_per_die, geo_.planes_per_die);
  EXPECT_EQ(l.blocks_per_plane, geo_.blocks_per_plane);
  EXPECT_EQ(l.pages_per_block, geo_.pages_per_block);
  EXPECT_EQ(l.page_size, ssd_->io_unit());
  EXPECT_EQ(l.fixed, nullptr);  // the FTL places data itself
}

TEST_F(SsdTest, StreamHintsReachTheFtlAsTemperatures) {
  cfg_.write_buffer.size = sim::Bytes{0};
  Build();
  const StreamHint hints[] = {StreamHint::kNone, StreamHint::kHot, StreamHint::kWarm, StreamHint::kCold};
  for (size_t i = 0; i < 4; ++i) {
    BlockRequest* r = Req(BlockOp::kWrite, i * 8192, 8192);
    r->stream = hints[i];
    r->channel = static_cast<int32_t>(i % geo_.channels);  // a hint the page-mapped path may ignore
    SubmitAt(Us(1 + i), r);
  }
  eq_.Run();
  ASSERT_EQ(client_.done.size(), 4u);
  const std::vector<ftl::Temperature> want = {ftl::Temperature::kUnknown, ftl::Temperature::kHot,
                                              ftl::Temperature::kUnknown, ftl::Temperature::kCold};
  EXPECT_EQ(ftl_->write_temperatures, want);
}

TEST_F(SsdTest, Qd1ReadAddsOverheadAndPcie) {
  Build();
  BlockRequest* r = Req(BlockOp::kRead, 5 * 8192, 8192);
  SubmitAt(Us(3), r);
  eq_.Run();
  ASSERT_EQ(client_.done.size(), 1u);
  EXPECT_EQ(r->submit_time, Us(3));
  EXPECT_EQ(E2e(r), o_ + ReadT() + Pcie(8192));
  EXPECT_EQ(stats_.FindHistogram("ssd.flash_latency.read")->max(), ReadT().ns());
  EXPECT_EQ(stats_.FindHistogram("ssd.latency.read")->max(), E2e(r).ns());
  EXPECT_EQ(stats_.Value("ssd.ops.read"), 1);
  EXPECT_EQ(stats_.Value("ssd.bytes.read"), 8192);
}

TEST_F(SsdTest, Qd1WriteIsPcieThenProgram) {
  Build();
  BlockRequest* w = Req(BlockOp::kWrite, 3 * 8192, 8192);
  SubmitAt(SimTime::Zero(), w);
  eq_.Run();
  EXPECT_EQ(E2e(w), o_ + Pcie(8192) + ProgT());
  EXPECT_EQ(stats_.FindHistogram("ssd.flash_latency.write")->max(), ProgT().ns());
}

TEST_F(SsdTest, TwoPageReadTransfersPagesOverPcieInTurn) {
  Build();
  // Pages 0 and 1 are on different channels: both are read at once.
  BlockRequest* r = Req(BlockOp::kRead, 0, 16384);
  SubmitAt(SimTime::Zero(), r);
  eq_.Run();
  EXPECT_EQ(E2e(r), o_ + ReadT() + Pcie(8192) * 2);
}

TEST_F(SsdTest, PartialPageWriteReadsFirst) {
  Build();
  BlockRequest* w = Req(BlockOp::kWrite, 8192 + 4096, 4096);
  SubmitAt(SimTime::Zero(), w);
  eq_.Run();
  EXPECT_EQ(E2e(w), o_ + Pcie(4096) + ReadT() + ProgT());
  EXPECT_EQ(stats_.Value("ssd.rmw_reads"), 1);
}

TEST_F(SsdTest, PartialPageWriteWithoutRmw) {
  cfg_.partial_page_rmw = false;
  Build();
  BlockRequest* w = Req(BlockOp::kWrite, 8192 + 4096, 4096);
  SubmitAt(SimTime::Zero(), w);
  eq_.Run();
  EXPECT_EQ(E2e(w), o_ + Pcie(4096) + ProgT());
}

TEST_F(SsdTest, ReadOfUnmappedPageSkipsFlash) {
  Build(false, /*precondition=*/false);
  BlockRequest* r = Req(BlockOp::kRead, 0, 8192);
  SubmitAt(SimTime::Zero(), r);
  eq_.Run();
  EXPECT_EQ(E2e(r), o_ + Pcie(8192));
  EXPECT_EQ(ftl_->unmapped_reads, 1u);
}

TEST_F(SsdTest, FullQueueWaitsInHostFifoInOrder) {
  cfg_.queue_depth = 1;
  cfg_.queues = 2;
  Build();
  BlockRequest* a = Req(BlockOp::kRead, 0, 8192, 0);
  BlockRequest* b = Req(BlockOp::kRead, 8192, 8192, 0);
  BlockRequest* d = Req(BlockOp::kRead, 2 * 8192, 8192, 0);
  BlockRequest* other = Req(BlockOp::kRead, 3 * 8192, 8192, 1);  // queue 1 is free
  for (BlockRequest* r : {a, b, d, other}) SubmitAt(SimTime::Zero(), r);
  eq_.Run(Ns(1));
  EXPECT_EQ(ssd_->admitted(0), 1u);
  EXPECT_EQ(ssd_->host_waiting(0), 2u);
  EXPECT_EQ(ssd_->admitted(1), 1u);
  eq_.Run();
  ASSERT_EQ(client_.done.size(), 4u);
  const SimTime one = o_ + ReadT() + Pcie(8192);
  EXPECT_EQ(a->complete_time, one);
  EXPECT_EQ(b->complete_time, one * 2);
  EXPECT_EQ(d->complete_time, one * 3);
  // lpn 3 is on another die and channel: its flash read overlaps a's, but
  // its data follows a's on the shared device-to-host link.
  EXPECT_EQ(other->complete_time, one + Pcie(8192));
  const sim::Histogram* wait = stats_.FindHistogram("ssd.queue_wait");
  EXPECT_EQ(wait->count(), 4u);
  EXPECT_EQ(wait->max(), (one * 2).ns());
}

// ---------------------------------------------------------------------------
// NVMe arbitration (max_outstanding bounds the controller's commands).

class ArbitrationTest : public SsdTest {
 protected:
  // Submits `per_queue[q]` 8 KiB reads on each queue q at time 0 (queue 0's
  // first, each to its own page) and returns the queue of each completion,
  // in completion order. With max_outstanding = 1 that is the fetch order.
  std::vector<uint32_t> Order(const std::vector<uint32_t>& per_queue) {
    uint64_t page = 0;
    for (uint32_t q = 0; q < per_queue.size(); ++q) {
      for (uint32_t i = 0; i < per_queue[q]; ++i) SubmitAt(SimTime::Zero(), Req(BlockOp::kRead, 8192 * page++, 8192, q));
    }
    eq_.Run();
    std::vector<uint32_t> out;
    for (const BlockRequest* r : client_.done) out.push_back(r->queue);
    return out;
  }
};

TEST_F(ArbitrationTest, UnboundedControllerFetchesEveryAdmittedCommandAtOnce) {
  cfg_.queues = 2;
  Build();
  for (uint32_t q = 0; q < 2; ++q) {
    for (int i = 0; i < 3; ++i) SubmitAt(SimTime::Zero(), Req(BlockOp::kRead, 8192 * (3 * q + i), 8192, q));
  }
  eq_.Run(Ns(1));
  EXPECT_EQ(ssd_->queued(0), 0u);
  EXPECT_EQ(ssd_->outstanding(), 0u);  // not counted without a bound
  eq_.Run();
  EXPECT_EQ(stats_.FindHistogram("ssd.queue_wait")->max(), 0);
}

TEST_F(ArbitrationTest, RoundRobinAlternatesBetweenQueues) {
  cfg_.queues = 3;
  cfg_.arbitration.max_outstanding = 1;
  Build();
  EXPECT_EQ(Order({3, 1, 2}), (std::vector<uint32_t>{0, 1, 2, 0, 2, 0}));
  EXPECT_GT(stats_.FindHistogram("ssd.queue_wait")->max(), 0);
}

TEST_F(ArbitrationTest, RoundRobinIgnoresPriorityClasses) {
  cfg_.queues = 2;
  cfg_.arbitration.max_outstanding = 1;
  Build();
  ssd_->SetupQueue(1, QueueSetup{QueuePriority::kUrgent, 0, ""});
  EXPECT_EQ(Order({2, 2}), (std::vector<uint32_t>{0, 1, 0, 1}));
}

TEST_F(ArbitrationTest, BurstTakesSeveralCommandsOfOneQueueAtOneDecision) {
  cfg_.queues = 2;
  cfg_.arbitration.max_outstanding = 4;
  cfg_.arbitration.burst = 2;
  Build();
  for (uint32_t q = 0; q < 2; ++q) {
    for (int i = 0; i < 4; ++i) SubmitAt(SimTime::Zero(), Req(BlockOp::kRead, 8192 * (4 * q + i), 8192, q));
  }
  // Queue 0's requests arrive first: each arrival is fetched at once while
  // slots are free, so the first four fetched are queue 0's; from then on
  // each freed slot goes to the other queue in turn.
  eq_.Run(Ns(1));
  EXPECT_EQ(ssd_->outstanding(), 4u);
  EXPECT_EQ(ssd_->queued(0), 0u);
  EXPECT_EQ(ssd_->queued(1), 4u);
  eq_.Run();
  EXPECT_EQ(client_.done.size(), 8u);
}

TEST_F(ArbitrationTest, BurstIsBoundedByFreeSlotsAndQueuedCommands) {
  cfg_.queues = 2;
  cfg_.arbitration.max_outstanding = 1;
  cfg_.arbitration.burst = 4;
  Build();
  // One slot: a burst of 4 still takes one command at a time.
  EXPECT_EQ(Order({2, 2}), (std::vector<uint32_t>{0, 1, 0, 1}));
}

TEST_F(ArbitrationTest, WrrServesUrgentQueuesFirst) {
  cfg_.queues = 3;
  cfg_.arbitration.max_outstanding = 1;
  cfg_.arbitration.policy = "wrr";
  Build();
  ssd_->SetupQueue(0, QueueSetup{QueuePriority::kLow, 0, ""});
  ssd_->SetupQueue(1, QueueSetup{QueuePriority::kHigh, 0, ""});
  ssd_->SetupQueue(2, QueueSetup{QueuePriority::kUrgent, 0, ""});
  // Queue 0's first request is fetched on arrival (nothing else queued),
  // spending the low class's credit of the first round; then urgent queue
  // 2 drains before high and low share by weight (1:1 per round).
  EXPECT_EQ(Order({3, 2, 3}), (std::vector<uint32_t>{0, 2, 2, 2, 1, 1, 0, 0}));
}

TEST_F(ArbitrationTest, WrrSharesByWeight) {
  cfg_.queues = 3;
  cfg_.arbitration.max_outstanding = 1;
  cfg_.arbitration.policy = "wrr";
  cfg_.arbitration.high_weight = 3;
  cfg_.arbitration.medium_weight = 2;
  cfg_.arbitration.low_weight = 1;
  Build();
  ssd_->SetupQueue(0, QueueSetup{QueuePriority::kLow, 0, ""});
  ssd_->SetupQueue(1, QueueSetup{QueuePriority::kMedium, 0, ""});
  ssd_->SetupQueue(2, QueueSetup{QueuePriority::kHigh, 0, ""});
  const std::vector<uint32_t> got = Order({5, 5, 8});
  // Rounds of 3 high, 2 medium, 1 low, in that order; the first arrival
  // (queue 0) is fetched at once with the low credit of round 1; a class
  // with nothing queued yields its share.
  const std::vector<uint32_t> want = {0, 2, 2, 2, 1, 1, /**/ 2, 2, 2, 1, 1, 0, /**/ 2, 2, 1, 0, /**/ 0, /**/ 0};
  EXPECT_EQ(got, want);
}

TEST_F(ArbitrationTest, QueueDepthPerQueueAndPerFlowFigures) {
  cfg_.queues = 2;
  Build();
  ssd_->SetupQueue(0, QueueSetup{QueuePriority::kMedium, 1, "a"});
  ssd_->SetupQueue(1, QueueSetup{QueuePriority::kMedium, 0, "b"});
  for (int i = 0; i < 3; ++i) SubmitAt(SimTime::Zero(), Req(BlockOp::kRead, 8192 * i, 8192, 0));
  for (int i = 0; i < 2; ++i) SubmitAt(SimTime::Zero(), Req(BlockOp::kWrite, 8192 * (8 + i), 8192, 1));
  eq_.Run(Ns(1));
  EXPECT_EQ(ssd_->admitted(0), 1u);
  EXPECT_EQ(ssd_->host_waiting(0), 2u);
  EXPECT_EQ(ssd_->admitted(1), 2u);
  eq_.Run();
  EXPECT_EQ(stats_.Value("ssd.flow.a.ops.read"), 3);
  EXPECT_EQ(stats_.Value("ssd.flow.a.ops.write"), 0);
  EXPECT_EQ(stats_.Value("ssd.flow.b.ops.write"), 2);
  EXPECT_EQ(stats_.Value("ssd.flow.b.bytes.write"), 2 * 8192);
  EXPECT_EQ(stats_.FindHistogram("ssd.flow.a.queue_wait")->count(), 3u);
  EXPECT_GT(stats_.FindHistogram("ssd.flow.a.queue_wait")->max(), 0);
  EXPECT_EQ(stats_.FindHistogram("ssd.flow.b.queue_wait")->max(), 0);
  const sim::Histogram* e2e = stats_.FindHistogram("ssd.flow.a.latency.read");
  const sim::Histogram* dev = stats_.FindHistogram("ssd.flow.a.device_latency.read");
  EXPECT_EQ(e2e->count(), 3u);
  EXPECT_GT(e2e->max(), dev->max());  // the last read waited for the queue
}

TEST_F(SsdTest, TrimUnmapsWholePagesOnly) {
  Build();
  BlockRequest* t = Req(BlockOp::kTrim, 4096, 3 * 8192);  // covers page 1 and 2 fully, 0 and 3 in part
  SubmitAt(SimTime::Zero(), t);
  eq_.Run();
  ASSERT_EQ(ftl_->trims.size(), 1u);
  EXPECT_EQ(ftl_->trims[0], std::make_pair(uint64_t{1}, uint64_t{2}));
  EXPECT_EQ(E2e(t), o_);
  // A trimmed page reads without flash access.
  BlockRequest* r = Req(BlockOp::kRead, 8192, 8192);
  SubmitAt(eq_.now(), r);
  eq_.Run();
  EXPECT_EQ(E2e(r), o_ + Pcie(8192));
}

TEST_F(SsdTest, FlushWithoutBufferCompletesAfterOverhead) {
  Build();
  BlockRequest* f = Req(BlockOp::kFlush, 0, 0);
  SubmitAt(SimTime::Zero(), f);
  eq_.Run();
  EXPECT_EQ(E2e(f), o_);
}

class SsdBufferTest : public SsdTest {
 protected:
  SsdBufferTest() {
    cfg_.write_buffer.size = sim::Bytes{4 * 8192};
    cfg_.write_buffer.destage_threshold = sim::Ratio{1.0};
    cfg_.write_buffer.max_destage_inflight = 1;
  }
};

TEST_F(SsdBufferTest, BufferedWriteCompletesAfterPcie) {
  Build();
  BlockRequest* w = Req(BlockOp::kWrite, 0, 8192);
  SubmitAt(SimTime::Zero(), w);
  eq_.Run();
  EXPECT_EQ(E2e(w), o_ + Pcie(8192));
  EXPECT_EQ(ssd_->write_buffer()->dirty(), 1u);
  EXPECT_EQ(ftl_->writes, 0u);  // below the destage threshold: stays in DRAM
}

TEST_F(SsdBufferTest, ReadHitIsServedFromBuffer) {
  Build();
  BlockRequest* w = Req(BlockOp::kWrite, 0, 8192);
  BlockRequest* r = Req(BlockOp::kRead, 4096, 4096);
  SubmitAt(SimTime::Zero(), w);
  SubmitAt(Us(100), r);
  eq_.Run();
  EXPECT_EQ(E2e(r), o_ + Pcie(4096));
  EXPECT_EQ(stats_.Value("ssd.buffer.read_hits"), 1);
  EXPECT_EQ(ftl_->reads, 0u);
}

TEST_F(SsdBufferTest, FlushWaitsUntilBufferedDataIsProgrammed) {
  Build();
  BlockRequest* w = Req(BlockOp::kWrite, 0, 8192);
  BlockRequest* f = Req(BlockOp::kFlush, 0, 0);
  SubmitAt(SimTime::Zero(), w);
  SubmitAt(Us(100), f);
  eq_.Run();
  EXPECT_EQ(f->complete_time, Us(100) + o_ + ProgT());
  EXPECT_EQ(ssd_->write_buffer()->occupied(), 0u);
  EXPECT_EQ(stats_.Value("ssd.buffer.destaged"), 1);
}

TEST_F(SsdBufferTest, FlushDoesNotWaitForLaterWrites) {
  cfg_.write_buffer.max_destage_inflight = 4;
  Build();
  BlockRequest* w1 = Req(BlockOp::kWrite, 0, 8192);
  BlockRequest* f = Req(BlockOp::kFlush, 0, 0);
  BlockRequest* w2 = Req(BlockOp::kWrite, 8192, 8192);
  SubmitAt(SimTime::Zero(), w1);
  SubmitAt(Us(100), f);
  SubmitAt(Us(100), w2);
  eq_.Run();
  // w2 lands in the buffer after the flush was fetched: not covered.
  EXPECT_EQ(f->complete_time, Us(100) + o_ + ProgT());
  EXPECT_EQ(ssd_->write_buffer()->dirty(), 1u);
}

TEST_F(SsdBufferTest, FullBufferStallsWritesUntilADestageCompletes) {
  cfg_.write_buffer.size = sim::Bytes{2 * 8192};
  Build();
  BlockRequest* w1 = Req(BlockOp::kWrite, 0, 8192);
  BlockRequest* w2 = Req(BlockOp::kWrite, 8192, 8192);
  BlockRequest* w3 = Req(BlockOp::kWrite, 2 * 8192, 8192);
  for (BlockRequest* w : {w1, w2, w3}) SubmitAt(SimTime::Zero(), w);
  eq_.Run();
  const SimTime p = Pcie(8192);
  EXPECT_EQ(w1->complete_time, o_ + p);
  EXPECT_EQ(w2->complete_time, o_ + p * 2);
  // Full at o+2p: the oldest page (lpn 0) is destaged; w3 takes its slot.
  EXPECT_EQ(w3->complete_time, o_ + p * 2 + ProgT());
  EXPECT_EQ(stats_.Value("ssd.buffer.stalls"), 1);
}

TEST_F(SsdBufferTest, FuaWriteBypassesBuffer) {
  Build();
  BlockRequest* w = Req(BlockOp::kWrite, 0, 8192, 0, /*fua=*/true);
  SubmitAt(SimTime::Zero(), w);
  eq_.Run();
  EXPECT_EQ(E2e(w), o_ + Pcie(8192) + ProgT());
  EXPECT_EQ(ssd_->write_buffer()->occupied(), 0u);
}

TEST_F(SsdBufferTest, TrimDropsDirtyBufferedPages) {
  Build();
  BlockRequest* w = Req(BlockOp::kWrite, 0, 2 * 8192);
  BlockRequest* t = Req(BlockOp::kTrim, 0, 8192);
  SubmitAt(SimTime::Zero(), w);
  SubmitAt(Us(100), t);
  eq_.Run();
  EXPECT_EQ(ssd_->write_buffer()->dirty(), 1u);
  EXPECT_EQ(ssd_->write_buffer()->Lookup(0), 0u);
}

TEST_F(SsdBufferTest, DestageThresholdStartsBackgroundDestage) {
  cfg_.write_buffer.destage_threshold = sim::Ratio{0.5};
  cfg_.write_buffer.max_destage_inflight = 8;
  Build();
  BlockRequest* w1 = Req(BlockOp::kWrite, 0, 8192);
  BlockRequest* w2 = Req(BlockOp::kWrite, 8192, 8192);
  SubmitAt(SimTime::Zero(), w1);
  SubmitAt(Us(50), w2);
  eq_.Run();
  // Two of four slots reach the threshold: both destage.
  EXPECT_EQ(ftl_->writes, 2u);
  EXPECT_EQ(ssd_->write_buffer()->occupied(), 0u);
}

// ---------------------------------------------------------------------------
// Saturation against the analytical bounds of validation.md section 2.

struct Throughput {
  double pages_per_sec;
};

// Closed loop of `qd` outstanding requests of `pages` pages each, random
// aligned offsets (or sequential) over the device; counts pages completed
// in [warmup, warmup + window).
Throughput RunClosedLoop(const flash::Geometry& geo, const flash::FlashConfig& fcfg, const SsdConfig& scfg,
                         bool plane_first, BlockOp op, bool sequential, uint32_t pages, uint32_t qd,
                         SimTime warmup, SimTime window) {
  sim::EventQueue eq;
  sim::StatsRegistry stats;
  flash::NandArray array(&eq, geo, fcfg, stats.Root().Group("flash"));
  fakes::DirectFtl ftl(&eq, &array, plane_first);
  ftl.Precondition(ftl::PreconditionSpec{});
  Ssd ssd(&eq, scfg, geo, &ftl, stats.Root().Group("ssd"));
  sim::Rng rng(5, "load");
  const uint64_t unit = static_cast<uint64_t>(pages) * geo.page_size.value;
  const uint64_t slots = ssd.capacity() / unit;
  uint64_t next_seq = 0;
  uint64_t counted = 0;
  const SimTime end = warmup + window;
  HostClient client;
  std::vector<BlockRequest> reqs(qd);
  auto issue = [&](BlockRequest* r) {
    r->op = op;
    r->length = unit;
    r->offset = (sequential ? (next_seq++ % slots) : rng.Uniform(slots)) * unit;
    r->client = &client;
    ssd.Submit(r);
  };
  client.on_done = [&](BlockRequest* r) {
    if (r->complete_time >= warmup && r->complete_time < end) counted += pages;
    if (eq.now() < end) issue(r);
  };
  for (BlockRequest& r : reqs) issue(&r);
  eq.Run();
  const Throughput t{static_cast<double>(counted) / window.sec()};
  ::testing::Test::RecordProperty("pages_per_sec", std::to_string(t.pages_per_sec));
  std::printf("  %.1f pages/s die_util=%.4f ch_util=%.4f mp=%.0f\n", t.pages_per_sec, stats.Value("flash.die_utilization"), stats.Value("flash.channel_utilization"), stats.Value("flash.multi_plane.ops"));
  return t;
}

flash::FlashConfig BoundConfig() {
  flash::FlashConfig c = flash::testing::TestFlashConfig();
  c.timing.cmd_overhead = SimTime::Zero();  // the section 2 formulas have no command term
  return c;
}

TEST(SsdSaturationTest, RandomReadsReachChannelBound) {
  flash::Geometry geo = flash::testing::TinyGeometry();
  geo.channels = 2;
  geo.chips_per_channel = 8;
  geo.planes_per_die = 1;
  const flash::FlashConfig fcfg = BoundConfig();
  SsdConfig scfg = sim::MakeDefault<SsdConfig>();
  scfg.queue_depth = 256;
  const double tx = sim::TransferTime(8192, 333e6).sec();
  const double channel_bound = geo.channels / tx;
  const double die_bound = geo.dies() * 1.0 / (fcfg.timing.t_read.sec() + tx);
  ASSERT_LT(channel_bound, die_bound);
  const Throughput t = RunClosedLoop(geo, fcfg, scfg, false, BlockOp::kRead, false, 1, 256, Ms(10), Ms(200));
  EXPECT_GT(t.pages_per_sec, 0.98 * channel_bound);
  EXPECT_LE(t.pages_per_sec, 1.001 * channel_bound);
}

TEST(SsdSaturationTest, MultiPlaneRandomReadsReachDieBound) {
  flash::Geometry geo = flash::testing::TinyGeometry();
  geo.channels = 4;
  geo.chips_per_channel = 1;
  geo.planes_per_die = 2;
  flash::FlashConfig fcfg = BoundConfig();
  fcfg.multi_plane.enabled = true;
  SsdConfig scfg = sim::MakeDefault<SsdConfig>();
  scfg.queue_depth = 256;  // closed loop: idle dies vanish as Q/(N+Q-1) -> 1
  const double tx = sim::TransferTime(8192, 333e6).sec();
  const double p = geo.planes_per_die;
  const double channel_bound = geo.channels / tx;
  const double die_bound = geo.dies() * p / (fcfg.timing.t_read.sec() + p * tx);
  ASSERT_LT(die_bound, channel_bound);
  // 2-page requests: both planes of one die, same page (plane-first stripe).
  const Throughput t = RunClosedLoop(geo, fcfg, scfg, true, BlockOp::kRead, false, 2, 256, Ms(10), Ms(200));
  EXPECT_GT(t.pages_per_sec, 0.98 * die_bound);
  EXPECT_LE(t.pages_per_sec, 1.001 * die_bound);
}

TEST(SsdSaturationTest, SequentialFreshWritesReachProgramBound) {
  flash::Geometry geo = flash::testing::TinyGeometry();
  geo.blocks_per_plane = 64;
  flash::FlashConfig fcfg = BoundConfig();
  fcfg.multi_plane.enabled = true;
  fcfg.cache_program = true;
  SsdConfig scfg = sim::MakeDefault<SsdConfig>();
  scfg.queue_depth = 64;
  const double program_bound = geo.dies() * geo.planes_per_die / fcfg.timing.t_prog.sec();
  const double tx = sim::TransferTime(8192, 333e6).sec();
  ASSERT_LT(program_bound, geo.channels / tx);
  const Throughput t = RunClosedLoop(geo, fcfg, scfg, true, BlockOp::kWrite, true, 1, 64, Ms(10), Ms(400));
  EXPECT_GT(t.pages_per_sec, 0.98 * program_bound);
  EXPECT_LE(t.pages_per_sec, 1.001 * program_bound);
}

// ---------------------------------------------------------------------------

std::vector<std::pair<uint64_t, int64_t>> RunMixed(uint64_t seed) {
  flash::Geometry geo = flash::testing::TinyGeometry();
  flash::FlashConfig fcfg = flash::testing::TestFlashConfig();
  fcfg.scheduler = "read_priority";
  fcfg.multi_plane.enabled = true;
  fcfg.cache_program = true;
  fcfg.suspend.program = true;
  SsdConfig scfg = sim::MakeDefault<SsdConfig>();
  scfg.queues = 2;
  scfg.queue_depth = 4;
  scfg.write_buffer.size = sim::Bytes{16 * 8192};
  scfg.write_buffer.destage_threshold = sim::Ratio{0.5};
  scfg.write_buffer.max_destage_inflight = 4;
  sim::EventQueue eq;
  sim::StatsRegistry stats;
  flash::NandArray array(&eq, geo, fcfg, stats.Root().Group("flash"));
  fakes::DirectFtl ftl(&eq, &array);
  Ssd ssd(&eq, scfg, geo, &ftl, stats.Root().Group("ssd"));
  sim::Rng rng(seed, "mixed");
  std::vector<std::pair<uint64_t, int64_t>> out;
  std::vector<BlockRequest> reqs(12);
  uint64_t issued = 0;
  HostClient client;
  const uint64_t sectors = ssd.capacity() / 512;
  auto issue = [&](BlockRequest* r) {
    const uint64_t k = rng.Uniform(100);
    r->op = k < 45 ? BlockOp::kRead : k < 90 ? BlockOp::kWrite : k < 95 ? BlockOp::kTrim : BlockOp::kFlush;
    const uint64_t len = (1 + rng.Uniform(48)) * 512;
    r->offset = rng.Uniform(sectors - len / 512) * 512;
    r->length = r->op == BlockOp::kFlush ? 0 : len;
    r->fua = r->op == BlockOp::kWrite && rng.Bernoulli(0.1);
    r->queue = static_cast<uint32_t>(rng.Uniform(2));
    r->tag = issued++;
    r->client = &client;
    ssd.Submit(r);
  };
  client.on_done = [&](BlockRequest* r) {
    out.emplace_back(r->tag, r->complete_time.ns());
    if (issued < 4000) issue(r);
  };
  for (BlockRequest& r : reqs) issue(&r);
  eq.Run();
  EXPECT_EQ(out.size(), 4000u);
  return out;
}

TEST(SsdDeterminismTest, SameSeedSameCompletions) {
  const auto a = RunMixed(3);
  const auto b = RunMixed(3);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, RunMixed(4));
}

}  // namespace
}  // namespace ssd
