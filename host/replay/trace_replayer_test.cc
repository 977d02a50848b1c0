#include "host/replay/trace_replayer.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "host/replay/replay_test_util.h"

namespace host {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using testing::MqConfig;
using testing::MqLine;
using testing::ReplayBench;

constexpr uint64_t kGiB = uint64_t{1} << 30;
constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kSectors4K = 8;  // 4 KiB in 512-byte sectors

std::vector<int64_t> SubmitTimesNs(const fakes::FakeBlockDevice& d) {
  std::vector<int64_t> v;
  for (const auto& s : d.log()) v.push_back(s.time.ns());
  return v;
}
std::vector<uint64_t> Offsets(const fakes::FakeBlockDevice& d) {
  std::vector<uint64_t> v;
  for (const auto& s : d.log()) v.push_back(s.offset);
  return v;
}
std::vector<uint64_t> Lengths(const fakes::FakeBlockDevice& d) {
  std::vector<uint64_t> v;
  for (const auto& s : d.log()) v.push_back(s.length);
  return v;
}

// Runs `trace` with `cfg` on a fresh bench and expects a clean finish.
struct Ran {
  std::unique_ptr<ReplayBench> bench;
  std::unique_ptr<TraceReplayer> replay;
};
Ran RunOk(const TraceReplayConfig& cfg, const std::string& trace, ReplayBench* bench = nullptr) {
  Ran r;
  if (bench == nullptr) {
    r.bench = std::make_unique<ReplayBench>();
    bench = r.bench.get();
  }
  auto made = bench->FromMemory(cfg, trace);
  EXPECT_TRUE(made.ok()) << made.status().message();
  if (!made.ok()) return r;
  r.replay = std::move(made).value();
  bench->Run(r.replay.get());
  EXPECT_TRUE(r.replay->done());
  EXPECT_TRUE(r.replay->status().ok()) << r.replay->status().message();
  EXPECT_EQ(bench->device.violations(), 0u);
  EXPECT_EQ(r.replay->outstanding(), 0u);
  return r;
}

// ---------------------------------------------------------------- timing

class OpenLoopTimingTest : public ::testing::TestWithParam<double> {};

TEST_P(OpenLoopTimingTest, IssueTimesAreTraceTimesOverScale) {
  const double scale = GetParam();
  const std::vector<int64_t> times = {5000000, 6000000, 6500000, 9000000, 9000000, 15000000};  // absolute ns
  std::string trace;
  for (size_t i = 0; i < times.size(); ++i) trace += MqLine(times[i], 0, i * kSectors4K, kSectors4K, i % 2 == 0);
  TraceReplayConfig cfg = MqConfig();
  cfg.speedup = scale;
  ReplayBench bench;
  bench.queue.Run(sim::Ms(3));  // the replay starts at 3 ms, not at 0
  ASSERT_EQ(bench.queue.now(), sim::Ms(3));
  Ran r = RunOk(cfg, trace, &bench);
  std::vector<int64_t> want;
  for (int64_t t : times) want.push_back(sim::Ms(3).ns() + std::llround((t - times[0]) / scale));
  EXPECT_EQ(SubmitTimesNs(bench.device), want);
  EXPECT_EQ(r.replay->lateness().max(), 0);
  EXPECT_EQ(r.replay->delayed(), 0u);
  EXPECT_EQ(r.replay->issued(), times.size());
  EXPECT_EQ(r.replay->trace_time(), sim::Ns(times.back() - times.front()));
  // Ends one device latency after the last issue.
  EXPECT_EQ(r.replay->end_time(), sim::Ns(want.back()) + sim::Us(10));
  EXPECT_EQ(r.replay->op_stats(ssd::BlockOp::kRead).ios.value(), 3u);
  EXPECT_EQ(r.replay->op_stats(ssd::BlockOp::kWrite).ios.value(), 3u);
  EXPECT_EQ(r.replay->op_stats(ssd::BlockOp::kRead).lat.max(), sim::Us(10).ns());
}

INSTANTIATE_TEST_SUITE_P(Scales, OpenLoopTimingTest, ::testing::Values(1.0, 2.0, 0.5, 4.0));

TEST(OpenLoopTest, UnsortedRecordsArriveWithTheirPredecessor) {
  const std::string trace = MqLine(1000, 0, 0, 8, true) + MqLine(101000, 0, 8, 8, true) +
                            MqLine(51000, 0, 16, 8, true) + MqLine(201000, 0, 24, 8, true);
  ReplayBench bench;
  Ran r = RunOk(MqConfig(), trace, &bench);
  EXPECT_THAT(SubmitTimesNs(bench.device), ElementsAre(0, 100000, 100000, 200000));
}

// A record earlier than the file's first record was dropped and counted
// under "window" although no window was set. It is now issued at the start
// (with the record before it) and counted out of order, as are other
// unsorted records; the summary says so.
TEST(OpenLoopTest, RecordsBeforeTheFirstAreIssuedNotDropped) {
  const std::string trace = MqLine(50000, 0, 0, 8, true) + MqLine(20000, 0, 8, 8, true) +
                            MqLine(150000, 0, 16, 8, true) + MqLine(100000, 0, 24, 8, true) +
                            MqLine(250000, 0, 32, 8, true);
  ReplayBench bench;
  Ran r = RunOk(MqConfig(), trace, &bench);
  EXPECT_THAT(SubmitTimesNs(bench.device), ElementsAre(0, 0, 100000, 100000, 200000));
  EXPECT_EQ(r.replay->issued(), 5u);
  EXPECT_EQ(r.replay->skipped_window(), 0u);
  EXPECT_EQ(bench.stats.Value("replay.out_of_order"), 2);
  const std::string report = r.replay->Report();
  EXPECT_THAT(report, HasSubstr("skipped    volume 0, window 0,"));
  EXPECT_THAT(report, HasSubstr("order      2 records earlier than a record before them, issued at once with it "
                                "(the earliest 50us before); none dropped"));
  // A window that is set still drops what lies before it.
  TraceReplayConfig cfg = MqConfig();
  cfg.start_time = sim::Us(1);
  ReplayBench windowed;
  Ran w = RunOk(cfg, trace, &windowed);
  EXPECT_EQ(w.replay->skipped_window(), 2u);  // the first (t = 0) and the one before it
}

// Whole-second timestamps: every record of a second was issued at once with
// no warning. The summary now warns; spread_ties spreads each second's
// records evenly across it.
TEST(OpenLoopTest, CoarseTimestampsWarnAndSpread) {
  std::string trace;
  for (int s = 0; s < 3; ++s) {
    for (int i = 0; i < 8; ++i) trace += MqLine(int64_t{s} * 1'000'000'000, 0, (s * 8 + i) * kSectors4K, kSectors4K, true);
  }
  {
    ReplayBench bench;
    Ran r = RunOk(MqConfig(), trace, &bench);
    const std::vector<int64_t> got = SubmitTimesNs(bench.device);
    ASSERT_EQ(got.size(), 24u);
    EXPECT_EQ(got[7], 0);
    EXPECT_EQ(got[8], 1'000'000'000);
    EXPECT_EQ(bench.stats.Value("replay.ties"), 21);
    EXPECT_THAT(r.replay->Report(), HasSubstr("warning    21 of 24 records have the time of the record before (a "
                                              "coarse clock): each run is issued at once; set "
                                              "workload.trace.spread_ties"));
  }
  TraceReplayConfig cfg = MqConfig();
  cfg.spread_ties = sim::Sec(1);
  cfg.speedup = 2;
  ReplayBench bench;
  Ran r = RunOk(cfg, trace, &bench);
  const std::vector<int64_t> got = SubmitTimesNs(bench.device);
  ASSERT_EQ(got.size(), 24u);
  for (int s = 0; s < 3; ++s) {
    for (int i = 0; i < 8; ++i) {
      // t + i * 1 s / 8, halved by the speedup.
      EXPECT_EQ(got[s * 8 + i], (int64_t{s} * 1'000'000'000 + i * 125'000'000) / 2) << s << " " << i;
    }
  }
  EXPECT_EQ(bench.stats.Value("replay.spread"), 21);
  EXPECT_THAT(r.replay->Report(), HasSubstr("ties       21 of 24 records have the time of the record before (a "
                                            "coarse clock); each run spread evenly over 1s"));
  EXPECT_THAT(r.replay->Report(), Not(HasSubstr("warning")));
  // Same config, same trace: the same issue times.
  ReplayBench again;
  RunOk(cfg, trace, &again);
  EXPECT_EQ(SubmitTimesNs(again.device), got);
}

TEST(OpenLoopTest, ArrivalsBeyondIodepthQueueHostSide) {
  std::string trace;
  for (int i = 0; i < 50; ++i) trace += MqLine(0, 0, i * kSectors4K, kSectors4K, true);
  TraceReplayConfig cfg = MqConfig();
  cfg.iodepth = 4;
  ReplayBench bench;
  Ran r = RunOk(cfg, trace, &bench);
  EXPECT_EQ(r.replay->outstanding_max(), 4u);
  EXPECT_EQ(bench.device.max_in_flight(), 4u);
  EXPECT_EQ(r.replay->delayed(), 46u);
  EXPECT_EQ(r.replay->backlog_max(), 46u);
  EXPECT_EQ(r.replay->pauses(), 0u);
  // 50 requests, 4 at a time, 10 us each: the last issues at 120 us.
  EXPECT_EQ(r.replay->lateness().max(), sim::Us(120).ns());
  EXPECT_EQ(r.replay->end_time(), sim::Us(130));
  // End-to-end latency counts the host-queue wait; device latency does not.
  EXPECT_EQ(r.replay->op_stats(ssd::BlockOp::kRead).lat.max(), sim::Us(130).ns());
  EXPECT_EQ(r.replay->op_stats(ssd::BlockOp::kRead).device_lat.max(), sim::Us(10).ns());
  // Issue order is file order.
  const std::vector<uint64_t> offs = Offsets(bench.device);
  for (size_t i = 0; i < offs.size(); ++i) EXPECT_EQ(offs[i], i * 4096) << i;
}


// Samples a replayer's host queue every `every` until it is done.
class BacklogProbe final : public sim::Event {
 public:
  BacklogProbe(sim::EventQueue* q, const TraceReplayer* r, sim::SimTime every) : q_(q), r_(r), every_(every) {
    set_daemon(true);
  }
  ~BacklogProbe() override {
    if (scheduled()) q_->Deschedule(this);
  }
  void Process() override {
    worst = std::max(worst, r_->backlog());
    ++samples;
    if (!r_->done()) q_->ScheduleIn(this, every_);
  }
  size_t worst = 0;
  uint64_t samples = 0;

 private:
  sim::EventQueue* q_;
  const TraceReplayer* r_;
  sim::SimTime every_;
};

TEST(OpenLoopTest, FullHostQueuePausesReadingAndBoundsMemory) {
  // 200k arrivals 1 us apart (1 M/s) against a device that completes 4 per ms.
  constexpr int kRecords = 200000;
  std::string trace;
  trace.reserve(kRecords * 24);
  for (int i = 0; i < kRecords; ++i) {
    trace += MqLine(int64_t{i} * 1000, 0, (i % 100000) * kSectors4K, kSectors4K, i % 3 == 0);
  }
  TraceReplayConfig cfg = MqConfig();
  cfg.iodepth = 4;
  cfg.max_backlog = 64;
  ReplayBench bench(kGiB, 512, 4096, sim::Ms(1));
  bench.device.set_keep_log(false);
  auto made = bench.FromMemory(cfg, trace);
  ASSERT_TRUE(made.ok()) << made.status().message();
  TraceReplayer* rp = made->get();
  BacklogProbe probe(&bench.queue, rp, sim::Us(997));
  bench.queue.Schedule(&probe, sim::Us(1));
  bench.Run(rp);
  ASSERT_TRUE(rp->done());
  ASSERT_TRUE(rp->status().ok()) << rp->status().message();
  EXPECT_EQ(rp->issued(), uint64_t{kRecords});
  EXPECT_EQ(rp->completed(), uint64_t{kRecords});
  EXPECT_EQ(rp->backlog_max(), 64u);  // the bound is reached and never passed
  EXPECT_LE(probe.worst, 64u);
  EXPECT_GT(probe.samples, 1000u);
  EXPECT_EQ(bench.device.max_in_flight(), 4u);
  EXPECT_GE(rp->pauses(), 1u);
  // The device is the bottleneck: 50 s of replay for 0.2 s of trace.
  EXPECT_EQ(rp->end_time(), sim::Sec(50) + sim::Us(3));  // the first four arrived at 0..3 us
  EXPECT_EQ(rp->trace_time(), sim::Ns(int64_t{kRecords - 1} * 1000));
  EXPECT_GT(rp->lateness().max(), sim::Sec(49).ns());
}

// ------------------------------------------------------------ closed loop

TEST(ClosedLoopTest, KeepsExactlyIodepthOutstanding) {
  std::string trace;
  for (int i = 0; i < 100; ++i) trace += MqLine(int64_t{i} * 1000000000, 0, i * kSectors4K, kSectors4K, i % 4 != 0);
  TraceReplayConfig cfg = MqConfig();
  cfg.mode = "closed";
  cfg.iodepth = 8;
  ReplayBench bench;
  auto made = bench.FromMemory(cfg, trace, /*device_queues=*/4);
  ASSERT_TRUE(made.ok()) << made.status().message();
  TraceReplayer* rp = made->get();
  bench.Run(rp);
  ASSERT_TRUE(rp->done());
  const auto& log = bench.device.log();
  ASSERT_EQ(log.size(), 100u);
  for (size_t i = 0; i < log.size(); ++i) {
    EXPECT_EQ(log[i].in_flight, std::min<uint32_t>(static_cast<uint32_t>(i) + 1, 8)) << i;
    EXPECT_LT(log[i].queue, 4u);
  }
  // Trace times are ignored: 13 rounds of 8 (the last one of 4) at 10 us.
  EXPECT_EQ(rp->end_time(), sim::Us(130));
  EXPECT_EQ(rp->outstanding_max(), 8u);
  EXPECT_EQ(rp->op_stats(ssd::BlockOp::kRead).ios.value(), 75u);
  EXPECT_EQ(rp->op_stats(ssd::BlockOp::kWrite).ios.value(), 25u);
  EXPECT_EQ(rp->lateness().count(), 0u);
  EXPECT_EQ(bench.stats.Value("replay.ios_total"), 100.0);
  EXPECT_EQ(bench.stats.Value("replay.records_issued"), 100.0);
  EXPECT_NEAR(bench.stats.Value("replay.iops"), 100 / 130e-6, 1e-3);
}

// ------------------------------------------------------------- volumes

// Records on devices 0..3 of an MQSim trace.
std::string FourVolumes() {
  return MqLine(0, 0, 0, 8, true) +          // vol 0 @ 0
         MqLine(1000, 1, 8, 8, true) +       // vol 1 @ 4 KiB
         MqLine(2000, 3, 16, 8, false) +     // vol 3 @ 8 KiB
         MqLine(3000, 2, 0, 8, false) +      // vol 2 @ 0
         MqLine(4000, 1, 2048, 8, true);     // vol 1 @ 1 MiB
}

TEST(VolumeTest, SplitLayoutGivesEachListedVolumeItsRegion) {
  TraceReplayConfig cfg = MqConfig();
  cfg.volume_layout = "split";
  cfg.volumes = {"3", "1"};  // region order follows the list
  ReplayBench bench;
  Ran r = RunOk(cfg, FourVolumes(), &bench);
  EXPECT_THAT(Offsets(bench.device), ElementsAre(512 * kMiB + 4096, 8192, 512 * kMiB + kMiB));
  EXPECT_EQ(r.replay->skipped_volume(), 2u);
  EXPECT_EQ(r.replay->records_read(), 5u);
  ASSERT_EQ(r.replay->address_map().regions().size(), 2u);
  EXPECT_EQ(r.replay->address_map().regions()[0].volume, 3u);
}

TEST(VolumeTest, OverlayLayoutSharesTheDevice) {
  TraceReplayConfig cfg = MqConfig();  // overlay is the default
  cfg.volumes = {"1", "3"};
  ReplayBench bench;
  Ran r = RunOk(cfg, FourVolumes(), &bench);
  EXPECT_THAT(Offsets(bench.device), ElementsAre(4096, 8192, kMiB));
}

TEST(VolumeTest, EmptyListSplitsOverEveryVolumeFoundByThePrePass) {
  TraceReplayConfig cfg = MqConfig();
  cfg.volume_layout = "split";
  ReplayBench bench;
  Ran r = RunOk(cfg, FourVolumes(), &bench);
  // Four volumes of 256 MiB in id order.
  EXPECT_THAT(Offsets(bench.device), ElementsAre(0, 256 * kMiB + 4096, 768 * kMiB + 8192, 512 * kMiB,
                                                 256 * kMiB + kMiB));
  EXPECT_EQ(r.replay->skipped_volume(), 0u);
}

TEST(VolumeTest, PrePassBoundsTheNumberOfVolumes) {
  std::string trace;
  for (uint32_t v = 0; v <= AddressMap::kMaxVolumes; ++v) trace += MqLine(v, v, 0, 8, true);
  TraceReplayConfig cfg = MqConfig();
  cfg.volume_layout = "split";
  ReplayBench bench;
  auto made = bench.FromMemory(cfg, trace);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().message(),
            "mem: volumes: the trace has more than 4096 volumes; list the ones to replay in volumes, or use "
            "volume_layout: overlay");
}

TEST(VolumeTest, DeviceNumbersSelectBlkparseDevices) {
  const std::string trace =
      "  8,16   1        1     0.000100000  2301  D  WS 1000 + 8 [x]\n"
      "  8,32   1        2     0.000200000  2301  D   R 2000 + 8 [x]\n"
      "  8,16   1        3     0.000300000  2301  D   R 3000 + 8 [x]\n";
  TraceReplayConfig cfg = sim::MakeDefault<TraceReplayConfig>();
  cfg.path = "mem";
  cfg.volumes = {"8,16"};
  ReplayBench bench;
  Ran r = RunOk(cfg, trace, &bench);
  EXPECT_THAT(Offsets(bench.device), ElementsAre(1000 * 512, 3000 * 512));
  EXPECT_EQ(r.replay->skipped_volume(), 1u);
}

// ----------------------------------------------------------------- fit

TEST(FitTest, WrapTakesOffsetsModuloTheDevice) {
  const std::string trace = MqLine(0, 0, (kGiB + 4096) / 512, 8, true) +        // 1 GiB + 4 KiB
                            MqLine(1, 0, (kGiB - 4096) / 512, 16, true) +       // crosses the end
                            MqLine(2, 0, (3 * kGiB + 512) / 512, 2, false) +    // 3 GiB + 512
                            MqLine(3, 0, 4096 / 512, (2 * kGiB) / 512, false);  // longer than the device
  ReplayBench bench;
  TraceReplayConfig cfg = MqConfig();
  cfg.fit = "wrap";  // the default, error, refuses these
  Ran r = RunOk(cfg, trace, &bench);
  EXPECT_THAT(Offsets(bench.device), ElementsAre(4096, 0, 512, 0));
  EXPECT_THAT(Lengths(bench.device), ElementsAre(4096, 8192, 1024, kGiB));
  EXPECT_EQ(r.replay->fit_counters().wrapped.value(), 2u);
  EXPECT_EQ(r.replay->fit_counters().moved.value(), 1u);
  EXPECT_EQ(r.replay->fit_counters().clamped.value(), 1u);
}

TEST(FitTest, ScaleWithAConfiguredSpan) {
  const std::string trace = MqLine(0, 0, (2 * kGiB) / 512, 8, true) +          // middle of 4 GiB
                            MqLine(1, 0, (4 * kGiB - 4096) / 512, 8, true) +   // last 4 KiB of 4 GiB
                            MqLine(2, 0, 3, 1, true) +                          // 1536 -> 384 -> 0
                            MqLine(3, 0, (5 * kGiB) / 512, 8, true);            // beyond the span: wraps
  TraceReplayConfig cfg = MqConfig();
  cfg.fit = "scale";
  cfg.trace_span = sim::GiB(4);
  ReplayBench bench;
  Ran r = RunOk(cfg, trace, &bench);
  EXPECT_THAT(Offsets(bench.device), ElementsAre(512 * kMiB, kGiB - 4096, 0, 256 * kMiB));
  EXPECT_EQ(r.replay->fit_counters().moved.value(), 1u);
  EXPECT_EQ(r.replay->fit_counters().wrapped.value(), 1u);
}

TEST(FitTest, ScaleFindsTheSpanWithAPrePass) {
  const std::string trace = MqLine(0, 0, 0, 8, true) + MqLine(1, 0, kGiB / 512, 8, true) +
                            MqLine(2, 0, (2 * kGiB - 4096) / 512, 8, false);  // span 2 GiB
  TraceReplayConfig cfg = MqConfig();
  cfg.fit = "scale";
  ReplayBench bench;
  Ran r = RunOk(cfg, trace, &bench);
  EXPECT_THAT(Offsets(bench.device), ElementsAre(0, 512 * kMiB, kGiB - 4096));
  EXPECT_EQ(r.replay->address_map().regions()[0].span, 2 * kGiB);
}

TEST(FitTest, ScaleLeavesASmallerTraceAlone) {
  const std::string trace = MqLine(0, 0, 8, 8, true) + MqLine(1, 0, 4096, 8, true);
  TraceReplayConfig cfg = MqConfig();
  cfg.fit = "scale";
  ReplayBench bench;
  Ran r = RunOk(cfg, trace, &bench);
  EXPECT_THAT(Offsets(bench.device), ElementsAre(4096, 4096 * 512));
}

TEST(FitTest, CompactPacksTheUsedExtents) {
  const uint64_t g100 = 100 * kGiB, g200 = 200 * kGiB;
  const std::string trace = MqLine(0, 0, 0, 8, true) +                              // extent 0
                            MqLine(1, 0, (g100 + 4096) / 512, 8, true) +            // extent 102400
                            MqLine(2, 0, g200 / 512, 8, false) +                    // extent 204800
                            MqLine(3, 0, (g100 + kMiB - 512) / 512, 2, false) +     // 102400..102401
                            MqLine(4, 0, (g100 + 4096) / 512, 8, true);             // again
  TraceReplayConfig cfg = MqConfig();
  cfg.fit = "compact";
  ReplayBench bench;
  Ran r = RunOk(cfg, trace, &bench);
  EXPECT_THAT(Offsets(bench.device), ElementsAre(0, kMiB + 4096, 3 * kMiB, 2 * kMiB - 512, kMiB + 4096));
  const auto& runs = r.replay->address_map().regions()[0].runs;
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[1].first, 102400u);
  EXPECT_EQ(runs[1].count, 2u);
  EXPECT_EQ(runs[2].packed, 3u);
  EXPECT_EQ(r.replay->fit_counters().wrapped.value(), 0u);
}

TEST(FitTest, CompactWrapsWhatStillDoesNotFit) {
  // 3 used extents of 1 MiB on a 2 MiB device.
  const std::string trace = MqLine(0, 0, 0, 8, true) + MqLine(1, 0, kGiB / 512, 8, true) +
                            MqLine(2, 0, (2 * kGiB) / 512, 8, true);
  TraceReplayConfig cfg = MqConfig();
  cfg.fit = "compact";
  ReplayBench bench(2 * kMiB);
  Ran r = RunOk(cfg, trace, &bench);
  EXPECT_THAT(Offsets(bench.device), ElementsAre(0, kMiB, 0));
  EXPECT_EQ(r.replay->fit_counters().wrapped.value(), 1u);
}

TEST(FitTest, ErrorModeStopsWithPathLineAndTheLine) {
  testing::TempDir dir;
  const std::string line3 = "2000 0 4194304 8 1";  // 2 GiB on a 1 GiB device
  const std::string path =
      dir.Write("t.trace", MqLine(0, 0, 0, 8, true) + MqLine(1000, 0, 8, 8, false) + line3 + "\n" +
                               MqLine(3000, 0, 16, 8, true));
  TraceReplayConfig cfg = MqConfig();
  cfg.path = path;
  cfg.fit = "error";
  ReplayBench bench;
  auto made = TraceReplayer::Create(cfg, bench.MakeEnv());
  ASSERT_TRUE(made.ok()) << made.status().message();
  TraceReplayer* rp = made->get();
  bench.Run(rp);
  ASSERT_TRUE(rp->done());
  ASSERT_FALSE(rp->status().ok());
  EXPECT_EQ(rp->status().code(), sim::Status::Code::kInvalidInput);
  EXPECT_EQ(rp->status().message(),
            path + ":3: request beyond the device (fit: error): bytes [2147483648, 2147487744) exceed the "
                   "device's 1073741824 bytes; to fold the trace onto the device choose workload.trace.fit: wrap, "
                   "scale or compact: " + line3);
  EXPECT_EQ(rp->issued(), 2u);
  EXPECT_EQ(rp->completed(), 2u);
  EXPECT_THAT(rp->Report(), HasSubstr("stopped    " + path + ":3: request beyond"));
}

TEST(FitTest, ErrorModeNamesTheVolumeRegion) {
  TraceReplayConfig cfg = MqConfig();
  cfg.fit = "error";
  cfg.volume_layout = "split";
  cfg.volumes = {"0", "1"};
  ReplayBench bench;
  auto made = bench.FromMemory(cfg, MqLine(0, 0, 0, 8, true) + MqLine(1, 1, kGiB / 512, 8, true));
  ASSERT_TRUE(made.ok());
  bench.Run(made->get());
  EXPECT_THAT((*made)->status().message(),
              StartsWith("mem:2: request beyond the device (fit: error): bytes [1073741824, 1073745920) exceed the "
                         "536870912 bytes given to volume 1; to fold the trace onto the device choose "
                         "workload.trace.fit: wrap, scale or compact: 1 1 2097152 8 1"));
}

// ---------------------------------------------------------- alignment

TEST(AlignTest, WidensToTheConfiguredAlignment) {
  const std::string trace = MqLine(0, 0, 3, 1, true) +         // [1536, 2048)
                            MqLine(1, 0, 15, 2, false) +       // [7680, 8704)
                            MqLine(2, 0, 16, 8, false);        // already aligned
  TraceReplayConfig cfg = MqConfig();
  cfg.align = sim::KiB(4);
  ReplayBench bench;
  Ran r = RunOk(cfg, trace, &bench);
  EXPECT_THAT(Offsets(bench.device), ElementsAre(0, 4096, 8192));
  EXPECT_THAT(Lengths(bench.device), ElementsAre(4096, 8192, 4096));
  EXPECT_EQ(r.replay->fit_counters().align_bytes.value(), (4096 - 512) + (8192 - 1024));
  EXPECT_EQ(r.replay->op_stats(ssd::BlockOp::kWrite).bytes.value(), 8192u + 4096u);
}

TEST(AlignTest, DefaultsToTheDeviceSectorSize) {
  const std::string trace = MqLine(0, 0, 3, 1, true) + MqLine(1, 0, 15, 2, false);
  {
    ReplayBench bench;  // 512-byte sectors: nothing to do
    Ran r = RunOk(MqConfig(), trace, &bench);
    EXPECT_THAT(Offsets(bench.device), ElementsAre(1536, 7680));
    EXPECT_THAT(Lengths(bench.device), ElementsAre(512, 1024));
  }
  {
    ReplayBench bench(kGiB, 4096, 4096);  // 4 KiB sectors
    Ran r = RunOk(MqConfig(), trace, &bench);
    EXPECT_THAT(Offsets(bench.device), ElementsAre(0, 4096));
    EXPECT_THAT(Lengths(bench.device), ElementsAre(4096, 8192));
  }
}

// ------------------------------------------------------------ windows

std::string TenRecords() {
  std::string t;
  for (int i = 0; i < 10; ++i) t += MqLine(int64_t{i} * 1000000, 0, i * kSectors4K, kSectors4K, true);
  return t;
}

TEST(WindowTest, ByCount) {
  TraceReplayConfig cfg = MqConfig();
  cfg.skip_records = 3;
  cfg.max_records = 4;
  ReplayBench bench;
  Ran r = RunOk(cfg, TenRecords(), &bench);
  EXPECT_THAT(Offsets(bench.device), ElementsAre(3 * 4096, 4 * 4096, 5 * 4096, 6 * 4096));
  // Times start at the first replayed record.
  EXPECT_THAT(SubmitTimesNs(bench.device), ElementsAre(0, 1000000, 2000000, 3000000));
  EXPECT_EQ(r.replay->skipped_window(), 3u);
  EXPECT_EQ(r.replay->records_read(), 7u);  // reading stops once max_records are taken
}

TEST(WindowTest, ByTime) {
  TraceReplayConfig cfg = MqConfig();
  cfg.start_time = sim::Ms(2);
  cfg.end_time = sim::Ms(5);
  ReplayBench bench;
  Ran r = RunOk(cfg, TenRecords(), &bench);
  EXPECT_THAT(Offsets(bench.device), ElementsAre(2 * 4096, 3 * 4096, 4 * 4096));
  EXPECT_THAT(SubmitTimesNs(bench.device), ElementsAre(0, 1000000, 2000000));
  EXPECT_EQ(r.replay->skipped_window(), 7u);
  EXPECT_EQ(r.replay->records_read(), 10u);
}

TEST(WindowTest, TimeThenCount) {
  TraceReplayConfig cfg = MqConfig();
  cfg.start_time = sim::Ms(2);
  cfg.skip_records = 1;
  cfg.max_records = 2;
  ReplayBench bench;
  Ran r = RunOk(cfg, TenRecords(), &bench);
  EXPECT_THAT(Offsets(bench.device), ElementsAre(3 * 4096, 4 * 4096));
}

// -------------------------------------------------------------- loops

TEST(LoopTest, TimeContinuesMonotonicallyAcrossLoops) {
  const std::string trace = MqLine(7000, 0, 0, 8, true) + MqLine(17000, 0, 8, 8, false) +
                            MqLine(27000, 0, 16, 8, true) + MqLine(37000, 0, 24, 8, false);
  TraceReplayConfig cfg = MqConfig();
  cfg.loops = 3;
  ReplayBench bench;
  Ran r = RunOk(cfg, trace, &bench);
  // Period = duration (30 us) + last gap (10 us).
  std::vector<int64_t> want;
  for (int i = 0; i < 12; ++i) want.push_back(int64_t{i} * 10000);
  EXPECT_EQ(SubmitTimesNs(bench.device), want);
  EXPECT_EQ(r.replay->records_read(), 12u);
  EXPECT_EQ(r.replay->loops_started(), 3u);
  EXPECT_EQ(r.replay->op_stats(ssd::BlockOp::kRead).ios.value(), 6u);
  EXPECT_EQ(r.replay->trace_time(), sim::Us(110));
  EXPECT_THAT(Offsets(bench.device), ElementsAre(0, 4096, 8192, 12288, 0, 4096, 8192, 12288, 0, 4096, 8192, 12288));
}

TEST(LoopTest, LoopsAWindowAndStrictlyIncreasesForASingleInstant) {
  std::string trace;
  for (int i = 0; i < 5; ++i) trace += MqLine(1000, 0, i * 8, 8, true);  // all at one instant
  TraceReplayConfig cfg = MqConfig();
  cfg.loops = 4;
  cfg.max_records = 2;
  ReplayBench bench;
  Ran r = RunOk(cfg, trace, &bench);
  EXPECT_THAT(SubmitTimesNs(bench.device), ElementsAre(0, 0, 1, 1, 2, 2, 3, 3));
  EXPECT_EQ(r.replay->issued(), 8u);
}

TEST(LoopTest, ClosedLoopReplaysEveryLoop) {
  TraceReplayConfig cfg = MqConfig();
  cfg.mode = "closed";
  cfg.loops = 5;
  Ran r = RunOk(cfg, TenRecords());
  EXPECT_EQ(r.replay->issued(), 50u);
  EXPECT_EQ(r.replay->completed(), 50u);
}

// ------------------------------------------------------------ bad input

TEST(BadInputTest, MalformedLineFailModeStopsWithPathAndLine) {
  testing::TempDir dir;
  const std::string path =
      dir.Write("bad.trace", MqLine(0, 0, 0, 8, true) + MqLine(1000, 0, 8, 8, true) + "2000 0 abc 8 1\n" +
                                 MqLine(3000, 0, 16, 8, true));
  TraceReplayConfig cfg = MqConfig();
  cfg.path = path;
  for (const char* mode : {"open", "closed"}) {
    cfg.mode = mode;
    ReplayBench bench;
    auto made = TraceReplayer::Create(cfg, bench.MakeEnv());
    ASSERT_TRUE(made.ok()) << made.status().message();
    bench.Run(made->get());
    const TraceReplayer& r = **made;
    ASSERT_TRUE(r.done()) << mode;
    ASSERT_FALSE(r.status().ok()) << mode;
    EXPECT_EQ(r.status().code(), sim::Status::Code::kInvalidInput);
    EXPECT_THAT(r.status().message(), StartsWith(path + ":3: "));
    EXPECT_THAT(r.status().message(), HasSubstr(": 2000 0 abc 8 1"));
    EXPECT_EQ(r.issued(), 2u) << mode;
    EXPECT_EQ(r.completed(), 2u) << mode;
  }
}

TEST(BadInputTest, MalformedLineFailsCreateWhenAPrePassRuns) {
  TraceReplayConfig cfg = MqConfig();
  cfg.fit = "compact";
  ReplayBench bench;
  auto made = bench.FromMemory(cfg, MqLine(0, 0, 0, 8, true) + "1000 0 8 8 7\n");
  ASSERT_FALSE(made.ok());
  EXPECT_THAT(made.status().message(), StartsWith("mem:2: "));
  EXPECT_THAT(made.status().message(), HasSubstr("1000 0 8 8 7"));
}

TEST(BadInputTest, SkipModeCountsAndReports) {
  const std::string trace = MqLine(0, 0, 0, 8, true) + "garbage line\n" + MqLine(1000, 0, 8, 8, false) +
                            "5 5 5\n" + MqLine(2000, 0, 16, 0, true) + MqLine(3000, 0, 24, 8, true);
  TraceReplayConfig cfg = MqConfig();
  cfg.reader.on_error = "skip";
  cfg.loops = 2;
  ReplayBench bench;
  Ran r = RunOk(cfg, trace, &bench);
  EXPECT_EQ(r.replay->issued(), 6u);
  EXPECT_EQ(r.replay->skipped_malformed(), 2u);  // per pass over the file
  EXPECT_EQ(r.replay->skipped_zero_length(), 1u);
  ASSERT_EQ(r.replay->reader_errors().size(), 2u);
  EXPECT_THAT(r.replay->reader_errors()[0], StartsWith("mem:2: "));
  EXPECT_THAT(r.replay->reader_errors()[1], StartsWith("mem:4: "));
  const std::string report = r.replay->Report();
  EXPECT_THAT(report, HasSubstr("malformed 2"));
  EXPECT_THAT(report, HasSubstr("  mem:2: "));
  EXPECT_EQ(bench.stats.Value("replay.skipped.malformed"), 2.0);
  EXPECT_EQ(bench.stats.Value("replay.skipped.zero_length"), 1.0);
}

TEST(BadInputTest, SkippedLinesStayReportedWhenALaterErrorStops) {
  TraceReplayConfig cfg = MqConfig();
  cfg.reader.on_error = "skip";
  cfg.fit = "error";
  ReplayBench bench;
  auto made = bench.FromMemory(cfg, MqLine(0, 0, 0, 8, true) + "bad\n" + MqLine(1, 0, (2 * kGiB) / 512, 8, true));
  ASSERT_TRUE(made.ok());
  bench.Run(made->get());
  EXPECT_THAT((*made)->status().message(), StartsWith("mem:3: request beyond the device"));
  EXPECT_EQ((*made)->skipped_malformed(), 1u);
  ASSERT_EQ((*made)->reader_errors().size(), 1u);
  EXPECT_THAT((*made)->Report(), HasSubstr("  mem:2: "));
}

TEST(BadInputTest, MissingFileIsNotFound) {
  TraceReplayConfig cfg = MqConfig();
  cfg.path = "no/such/trace.csv";
  ReplayBench bench;
  auto made = TraceReplayer::Create(cfg, bench.MakeEnv(), "/nonexistent");
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), sim::Status::Code::kNotFound);
  EXPECT_THAT(made.status().message(), HasSubstr("/nonexistent/no/such/trace.csv"));
}

TEST(BadInputTest, InvalidConfigNamesTheKey) {
  TraceReplayConfig cfg = MqConfig();
  cfg.speedup = 0;
  ReplayBench bench;
  auto made = TraceReplayer::Create(cfg, bench.MakeEnv(), "", "workload.trace");
  ASSERT_FALSE(made.ok());
  EXPECT_THAT(made.status().message(), StartsWith("workload.trace.speedup: "));
}

TEST(BadInputTest, RelativePathResolvesAgainstBaseDir) {
  testing::TempDir dir;
  dir.Write("t.trace", TenRecords());
  TraceReplayConfig cfg = MqConfig();
  cfg.path = "t.trace";
  ReplayBench bench;
  auto made = TraceReplayer::Create(cfg, bench.MakeEnv(), dir.path().string());
  ASSERT_TRUE(made.ok()) << made.status().message();
  bench.Run(made->get());
  EXPECT_EQ((*made)->completed(), 10u);
}

TEST(BadInputTest, TimeOutOfRangeAfterScalingIsAnErrorNotACrash) {
  // 9e18 ns (285 years) is a valid trace time; divided by 1e-6 it is not.
  const std::string trace = MqLine(0, 0, 0, 8, true) + "9000000000000000000 0 8 8 1\n";
  TraceReplayConfig cfg = MqConfig();
  cfg.speedup = 1e-6;
  ReplayBench bench;
  auto made = bench.FromMemory(cfg, trace);
  ASSERT_TRUE(made.ok()) << made.status().message();
  bench.Run(made->get());
  ASSERT_TRUE((*made)->done());
  EXPECT_THAT((*made)->status().message(), StartsWith("mem:2: time "));
  EXPECT_THAT((*made)->status().message(), HasSubstr("out of range: 9000000000000000000 0 8 8 1"));
  EXPECT_EQ((*made)->completed(), 1u);
}

TEST(BadInputTest, ArrivalsDecadesAwayAreReplayedWithAWarning) {
  // 20 years between two records: within the clock's range, but worth a word.
  const int64_t twenty_years = int64_t{20} * 365 * 24 * 3600 * 1000000000;
  const std::string trace = MqLine(0, 0, 0, 8, true) + MqLine(twenty_years, 0, 8, 8, true);
  ::testing::internal::CaptureStderr();
  Ran r = RunOk(MqConfig(), trace);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_NE(r.replay, nullptr);
  EXPECT_EQ(r.replay->completed(), 2u);
  EXPECT_GE(r.replay->end_time() - r.replay->start_time(), sim::Ns(twenty_years));
  EXPECT_THAT(err, HasSubstr("mem:2: arrives 20 years after the replay start"));
}

TEST(BadInputTest, LoopingBeyondTheTimeRangeIsAnError) {
  const std::string trace = MqLine(0, 0, 0, 8, true) + "4000000000000000000 0 8 8 1\n";
  TraceReplayConfig cfg = MqConfig();
  cfg.mode = "closed";
  cfg.loops = 1000;
  ReplayBench bench;
  auto made = bench.FromMemory(cfg, trace);
  ASSERT_TRUE(made.ok());
  bench.Run(made->get());
  ASSERT_TRUE((*made)->done());
  EXPECT_THAT((*made)->status().message(), StartsWith("mem: loops: replaying 1000 loops"));
  EXPECT_EQ((*made)->completed(), 2u);  // loop 1 would start 8e18 ns in: only loop 0 fits
}

TEST(BadInputTest, EmptySliceFinishesAtOnce) {
  TraceReplayConfig cfg = MqConfig();
  cfg.volumes = {"9"};
  ReplayBench bench;
  bool called = false;
  auto made = bench.FromMemory(cfg, TenRecords());
  ASSERT_TRUE(made.ok());
  (*made)->SetDoneCallback([&] { called = true; });
  (*made)->Start();
  EXPECT_TRUE((*made)->done());
  EXPECT_TRUE(called);
  EXPECT_EQ((*made)->issued(), 0u);
  EXPECT_EQ((*made)->skipped_volume(), 10u);
}

// ---------------------------------------------------------- operations

TEST(OpsTest, TrimsAndFlushesFollowTheIncludeFlags) {
  const std::string trace =
      "  8,16   1        1     0.000100000  2301  D  WS 1000 + 8 [x]\n"
      "  8,16   3        1     0.000200000  2010  D  FN [jbd2]\n"
      "  8,16   1        2     0.000300000  2301  D   D 8192 + 2048 [fstrim]\n"
      "  8,16   1        3     0.000400000  2301  D WFS 4096 + 8 [x]\n";
  TraceReplayConfig cfg = sim::MakeDefault<TraceReplayConfig>();
  cfg.path = "mem";
  {
    ReplayBench bench;
    Ran r = RunOk(cfg, trace, &bench);
    const auto& log = bench.device.log();
    ASSERT_EQ(log.size(), 4u);
    EXPECT_EQ(log[1].op, ssd::BlockOp::kFlush);
    EXPECT_EQ(log[1].length, 0u);
    EXPECT_EQ(log[2].op, ssd::BlockOp::kTrim);
    EXPECT_EQ(log[2].length, 2048u * 512);
    EXPECT_TRUE(log[3].fua);
    EXPECT_FALSE(log[0].fua);
    EXPECT_EQ(r.replay->op_stats(ssd::BlockOp::kFlush).ios.value(), 1u);
    EXPECT_EQ(r.replay->op_stats(ssd::BlockOp::kTrim).bytes.value(), 2048u * 512);
  }
  cfg.include_trims = false;
  cfg.include_flushes = false;
  ReplayBench bench;
  Ran r = RunOk(cfg, trace, &bench);
  EXPECT_EQ(bench.device.log().size(), 2u);
  EXPECT_EQ(r.replay->skipped_op(), 2u);
}

TEST(StatsTest, RegistersUnderTheGivenGroup) {
  ReplayBench bench;
  Ran r = RunOk(MqConfig(), TenRecords(), &bench);
  for (const char* name : {"replay.records_read", "replay.records_issued", "replay.read.ios", "replay.read.bytes",
                           "replay.skipped.volume", "replay.skipped.window", "replay.skipped.op",
                           "replay.skipped.malformed", "replay.fit.wrapped", "replay.iops", "replay.bw",
                           "replay.measured_time", "replay.trace_time", "replay.speedup", "replay.delayed",
                           "replay.outstanding_max", "replay.backlog_max", "replay.loops"}) {
    EXPECT_TRUE(bench.stats.Has(name)) << name;
  }
  EXPECT_NE(bench.stats.FindHistogram("replay.read.lat"), nullptr);
  EXPECT_NE(bench.stats.FindHistogram("replay.lateness"), nullptr);
  EXPECT_NE(bench.stats.FindHistogram("replay.outstanding"), nullptr);
  EXPECT_EQ(bench.stats.Value("replay.records_read"), 10.0);
  EXPECT_EQ(bench.stats.Value("replay.read.bytes"), 40960.0);
  EXPECT_NEAR(bench.stats.Value("replay.trace_time"), 9e-3, 1e-12);
  EXPECT_NEAR(bench.stats.Value("replay.measured_time"), 9.01e-3, 1e-12);
  EXPECT_NEAR(bench.stats.Value("replay.speedup"), 9.0 / 9.01, 1e-9);
}

}  // namespace
}  // namespace host
