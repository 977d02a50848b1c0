#include "host/workload/fio_generator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <map>
#include <new>
#include <sstream>
#include <string_view>

#include <gtest/gtest.h>

#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/stats.h"

// Counts every global allocation in this test binary, for the no-allocation
// test below.
namespace {
uint64_t g_allocations = 0;
}  // namespace
void* operator new(size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
// GCC cannot see that operator new above is malloc-based.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace host {
namespace {

using ssd::BlockOp;
using sim::Ms;
using sim::SimTime;
using sim::Us;

// A device that completes every request a fixed service time after it
// starts: with unlimited servers (start = submit) or one FIFO server.
// Records every submission and the outstanding count per queue.
class FakeDevice final : public ssd::BlockDevice {
 public:
  enum class Mode { kInfiniteServers, kSingleServer };
  struct Submission {
    SimTime time;
    BlockOp op;
    uint64_t offset;
    uint64_t length;
    uint32_t queue;
    uint32_t outstanding_after;  // on its queue, this one included
    bool operator==(const Submission&) const = default;
  };

  FakeDevice(sim::EventQueue* q, uint64_t capacity, SimTime service, Mode mode, uint32_t sector)
      : q_(q), capacity_(capacity), service_(service), mode_(mode), sector_(sector) {}
  ~FakeDevice() override {
    if (event_.scheduled()) q_->Deschedule(&event_);
  }

  uint64_t capacity() const override { return capacity_; }
  uint32_t sector_size() const override { return sector_; }
  uint32_t io_unit() const override { return 4096; }
  uint32_t queues() const override { return 1u << 16; }  // any queue index
  const ssd::DeviceLayout& layout() const override {
    static const ssd::DeviceLayout kFlat;  // no flash structure
    return kFlat;
  }

  void Submit(ssd::BlockRequest* req) override {
    const SimTime now = q_->now();
    if (req->op != BlockOp::kFlush) {
      EXPECT_EQ(req->offset % sector_, 0u);
      EXPECT_EQ(req->length % sector_, 0u);
      EXPECT_GT(req->length, 0u);
      EXPECT_LE(req->offset + req->length, capacity_);
    }
    req->submit_time = now;
    SimTime done = now + service_;
    if (mode_ == Mode::kSingleServer) {
      done = std::max(now, busy_until_) + service_;
      busy_until_ = done;
    }
    pending_.push_back({done, req});
    uint32_t& out = outstanding_[req->queue];
    ++out;
    max_outstanding_[req->queue] = std::max(max_outstanding_[req->queue], out);
    log_.push_back({now, req->op, req->offset, req->length, req->queue, out});
    if (!event_.scheduled()) q_->Schedule(&event_, std::max(now, pending_.front().done));
  }

  const std::vector<Submission>& log() const { return log_; }
  uint32_t max_outstanding(uint32_t queue) const {
    auto it = max_outstanding_.find(queue);
    return it == max_outstanding_.end() ? 0 : it->second;
  }
  std::vector<Submission> QueueLog(uint32_t queue) const {
    std::vector<Submission> v;
    for (const Submission& s : log_) {
      if (s.queue == queue) v.push_back(s);
    }
    return v;
  }

 private:
  struct Pending {
    SimTime done;
    ssd::BlockRequest* req;
  };
  // Completion times are non-decreasing in submission order in both modes,
  // so one FIFO and one event suffice.
  void OnDone() {
    const SimTime now = q_->now();
    size_t n = pending_.size();  // requests submitted by the callbacks wait for the next event
    while (n-- > 0 && pending_.front().done <= now) {
      ssd::BlockRequest* req = pending_.front().req;
      pending_.pop_front();
      --outstanding_[req->queue];
      req->complete_time = now;
      req->client->OnBlockComplete(req);
    }
    if (pending_.empty()) {
      if (event_.scheduled()) q_->Deschedule(&event_);
    } else {
      q_->Reschedule(&event_, std::max(now, pending_.front().done));
    }
  }

  sim::EventQueue* q_;
  uint64_t capacity_;
  SimTime service_;
  Mode mode_;
  uint32_t sector_;
  SimTime busy_until_;
  std::deque<Pending> pending_;
  std::map<uint32_t, uint32_t> outstanding_, max_outstanding_;
  std::vector<Submission> log_;
  sim::MemberEvent<FakeDevice, &FakeDevice::OnDone> event_{this, sim::Priority::kCompletion};
};

// Queue, stats, fake device and generator; job i uses device queue i.
struct Harness {
  explicit Harness(SimTime service = Us(100), FakeDevice::Mode mode = FakeDevice::Mode::kInfiniteServers,
                   uint64_t capacity = uint64_t{1} << 30, uint32_t sector = 512)
      : dev(&q, capacity, service, mode, sector) {}

  // Builds the generator; fails the test on a config error.
  FioGenerator& Make(const FioConfig& cfg, uint64_t seed = 1) {
    FioGenerator::Env env{&q, &dev, reg.Root().Group("workload"), seed, cfg.numjobs};
    auto g = FioGenerator::Create(cfg, env, "workload");
    EXPECT_TRUE(g.ok()) << g.status().message();
    gen = std::move(g.value());
    gen->SetDoneCallback([this] { ++done_calls; });
    return *gen;
  }
  // Starts and runs until the queue is empty.
  void Run() {
    gen->Start();
    q.Run();
    EXPECT_TRUE(gen->done());
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(done_calls, 1);
  }
  uint64_t Count(BlockOp op) const {
    uint64_t n = 0;
    for (const auto& s : dev.log()) n += s.op == op;
    return n;
  }

  sim::EventQueue q;
  sim::StatsRegistry reg;
  FakeDevice dev;
  std::unique_ptr<FioGenerator> gen;
  int done_calls = 0;
};

FioConfig Base() {
  FioConfig c;
  c.rw = "randread";
  c.bs = sim::KiB(4);
  c.total_ios = 1000;
  return c;
}

// Sets `key` of `c` (an access distribution's parameter) from config text.
void SetKey(FioConfig& c, std::string_view key, std::string_view text) {
  const sim::Status s = sim::SetKey(sim::SchemaOf<FioConfig>(), &c, key, text);
  ASSERT_TRUE(s.ok()) << s.message();
}

// ---- closed loop

TEST(FioGeneratorTest, ClosedLoopKeepsExactlyIodepthInFlight) {
  Harness h(Us(100));
  FioConfig c = Base();
  c.rw = "randrw";
  c.numjobs = 2;
  c.iodepth = 4;
  c.total_ios = 8000;
  FioGenerator& g = h.Make(c);
  h.Run();

  ASSERT_EQ(h.dev.log().size(), 8000u);
  for (uint32_t job = 0; job < 2; ++job) {
    EXPECT_EQ(h.dev.max_outstanding(job), 4u);
    const auto log = h.dev.QueueLog(job);
    // After the initial fill every submission restores exactly iodepth in flight.
    for (size_t i = 3; i < log.size(); ++i) ASSERT_EQ(log[i].outstanding_after, 4u) << "submission " << i;
  }
  // Infinite servers: throughput = numjobs * iodepth / service, exactly.
  EXPECT_EQ(g.end_time(), Ms(100));
  EXPECT_DOUBLE_EQ(g.Iops(), 80000.0);
  EXPECT_DOUBLE_EQ(h.reg.Value("workload.iops"), 80000.0);
  EXPECT_DOUBLE_EQ(h.reg.Value("workload.read.ios") + h.reg.Value("workload.write.ios"), 8000.0);
  EXPECT_DOUBLE_EQ(g.Bandwidth(), 80000.0 * 4096);
  EXPECT_EQ(g.op_stats(BlockOp::kRead).lat.max(), 100000);
  EXPECT_EQ(g.op_stats(BlockOp::kRead).lat.min(), 100000);
}

TEST(FioGeneratorTest, SingleServerThroughputAndQueueingLatency) {
  Harness h(Us(10), FakeDevice::Mode::kSingleServer);
  FioConfig c = Base();
  c.iodepth = 8;
  c.total_ios = 1000;
  FioGenerator& g = h.Make(c);
  h.Run();
  EXPECT_DOUBLE_EQ(g.Iops(), 100000.0);  // 1 / service, whatever the depth
  const sim::Histogram& lat = g.op_stats(BlockOp::kRead).lat;
  EXPECT_EQ(lat.max(), 80000);  // iodepth * service in steady state
  EXPECT_EQ(lat.min(), 10000);  // the first request of the initial fill
  EXPECT_NEAR(static_cast<double>(lat.Percentile(0.5)), 80000, 80000 * 0.01);
}

// ---- op and size mix

TEST(FioGeneratorTest, ReadWriteMixMatchesRwmixread) {
  Harness h;
  FioConfig c = Base();
  c.rw = "randrw";
  c.rwmixread = sim::Ratio{0.7};
  c.iodepth = 8;
  c.total_ios = 40000;
  h.Make(c);
  h.Run();
  const double reads = static_cast<double>(h.Count(BlockOp::kRead)) / 40000;
  EXPECT_NEAR(reads, 0.7, 0.01);
  EXPECT_EQ(h.Count(BlockOp::kRead) + h.Count(BlockOp::kWrite), 40000u);
  EXPECT_EQ(h.Count(BlockOp::kTrim), 0u);
}

TEST(FioGeneratorTest, TrimRatioMixesTrims) {
  Harness h;
  FioConfig c = Base();
  c.rw = "randrw";
  c.rwmixread = sim::Ratio{0.7};
  c.trim_ratio = sim::Ratio{0.1};
  c.iodepth = 8;
  c.total_ios = 40000;
  FioGenerator& g = h.Make(c);
  h.Run();
  EXPECT_NEAR(static_cast<double>(h.Count(BlockOp::kTrim)) / 40000, 0.10, 0.01);
  EXPECT_NEAR(static_cast<double>(h.Count(BlockOp::kRead)) / 40000, 0.63, 0.01);
  EXPECT_EQ(g.op_stats(BlockOp::kTrim).ios.value(), h.Count(BlockOp::kTrim));
  for (const auto& s : h.dev.log()) {
    if (s.op == BlockOp::kTrim) {
      ASSERT_EQ(s.length, 4096u);
    }
  }
}

TEST(FioGeneratorTest, PureRandtrim) {
  Harness h;
  FioConfig c = Base();
  c.rw = "randtrim";
  h.Make(c);
  h.Run();
  EXPECT_EQ(h.Count(BlockOp::kTrim), 1000u);
}

TEST(FioGeneratorTest, BssplitFractionsMatch) {
  Harness h;
  FioConfig c = Base();
  c.rw = "randwrite";
  c.bssplit = {"4KiB/67%", "8KiB/10%", "16KiB/23%"};
  c.iodepth = 16;
  c.total_ios = 40000;
  FioGenerator& g = h.Make(c);
  h.Run();
  std::map<uint64_t, uint64_t> n;
  uint64_t bytes = 0;
  for (const auto& s : h.dev.log()) {
    ++n[s.length];
    bytes += s.length;
  }
  ASSERT_EQ(n.size(), 3u);
  EXPECT_NEAR(n[4096] / 40000.0, 0.67, 0.01);
  EXPECT_NEAR(n[8192] / 40000.0, 0.10, 0.01);
  EXPECT_NEAR(n[16384] / 40000.0, 0.23, 0.01);
  EXPECT_EQ(g.op_stats(BlockOp::kWrite).bytes.value(), bytes);
}

// ---- rate limits (open loop)

TEST(FioGeneratorTest, FixedRateAchievesRequestedIops) {
  Harness h(Us(50));
  FioConfig c = Base();
  c.numjobs = 2;
  c.iodepth = 4;
  c.rate_iops = 20000;
  c.total_ios = 0;
  c.runtime = Ms(100);
  FioGenerator& g = h.Make(c);
  h.Run();
  EXPECT_NEAR(g.Iops(), 40000, 400);
  EXPECT_EQ(g.delayed_arrivals(), 0u);
  EXPECT_EQ(h.dev.log().size(), 4000u);
  // Evenly spaced: job 0 submits exactly every 50us.
  const auto log = h.dev.QueueLog(0);
  for (size_t i = 0; i < log.size(); ++i) ASSERT_EQ(log[i].time, Us(50) * static_cast<int64_t>(i));
}

TEST(FioGeneratorTest, PoissonRateAchievesRequestedIops) {
  Harness h(Us(20));
  FioConfig c = Base();
  c.iodepth = 64;
  c.rate_iops = 10000;
  c.arrival = "poisson";
  c.total_ios = 100000;
  FioGenerator& g = h.Make(c);
  h.Run();
  EXPECT_NEAR(g.Iops(), 10000, 100);
  // Exponential gaps: about e^-1 of them exceed the mean.
  const auto log = h.dev.QueueLog(0);
  uint64_t longer = 0;
  for (size_t i = 1; i < log.size(); ++i) longer += (log[i].time - log[i - 1].time) > Us(100);
  EXPECT_NEAR(static_cast<double>(longer) / static_cast<double>(log.size() - 1), std::exp(-1.0), 0.01);
}

TEST(FioGeneratorTest, BandwidthRateAchievesRequestedBandwidth) {
  Harness h(Us(20));
  FioConfig c = Base();
  c.rw = "randwrite";
  c.bssplit = {"4KiB/50%", "64KiB/50%"};
  c.iodepth = 8;
  c.rate_bw = sim::Bandwidth{40.0 * (1 << 20)};
  c.total_ios = 0;
  c.runtime = sim::Sec(1);
  FioGenerator& g = h.Make(c);
  h.Run();
  EXPECT_NEAR(g.Bandwidth(), 40.0 * (1 << 20), 0.01 * 40.0 * (1 << 20));
}

TEST(FioGeneratorTest, ArrivalsWaitForAFullQueueAndAreCounted) {
  Harness h(Ms(1));  // 2 slots / 1ms = 2000 IOPS at most
  FioConfig c = Base();
  c.iodepth = 2;
  c.rate_iops = 10000;
  c.total_ios = 0;
  c.runtime = Ms(100);
  FioGenerator& g = h.Make(c);
  h.Run();
  EXPECT_EQ(h.dev.max_outstanding(0), 2u);
  EXPECT_GT(g.delayed_arrivals(), 150u);
  EXPECT_NEAR(g.Iops(), 2000, 20);
  EXPECT_GT(g.arrival_delay().max(), Ms(50).ns());  // the backlog grows all run long
  EXPECT_DOUBLE_EQ(h.reg.Value("workload.delayed_arrivals"), static_cast<double>(g.delayed_arrivals()));
}

TEST(FioGeneratorTest, RateBelowCapacityNeverDelays) {
  Harness h(Us(100));
  FioConfig c = Base();
  c.iodepth = 1;
  c.rate_iops = 5000;  // one every 200us, service 100us
  c.total_ios = 500;
  FioGenerator& g = h.Make(c);
  h.Run();
  EXPECT_EQ(g.delayed_arrivals(), 0u);
  EXPECT_EQ(g.arrival_delay().max(), 0);
  EXPECT_EQ(h.dev.log().size(), 500u);
}

// ---- bounds

TEST(FioGeneratorTest, CountBoundStopsExactlyAcrossJobs) {
  Harness h;
  FioConfig c = Base();
  c.numjobs = 3;
  c.iodepth = 16;
  c.total_ios = 1001;
  FioGenerator& g = h.Make(c);
  h.Run();
  EXPECT_EQ(h.dev.log().size(), 1001u);
  EXPECT_EQ(g.issued(), 1001u);
  EXPECT_EQ(g.completed(), 1001u);
}

TEST(FioGeneratorTest, CountBoundStopsOpenLoopAndQueueRunsDry) {
  Harness h;
  FioConfig c = Base();
  c.numjobs = 2;
  c.rate_iops = 1000;
  c.total_ios = 101;
  FioGenerator& g = h.Make(c);
  h.Run();  // checks the queue is empty: no arrival event left behind
  EXPECT_EQ(h.dev.log().size(), 101u);
  // Both jobs arrive at 0, 1ms, ...: the 101st I/O is job 0's at 50ms.
  EXPECT_EQ(h.dev.log().back().time, Ms(50));
  EXPECT_EQ(g.end_time(), Ms(50) + Us(100));
}

TEST(FioGeneratorTest, TimeBoundStopsExactly) {
  Harness h(Us(100));
  FioConfig c = Base();
  c.iodepth = 1;
  c.total_ios = 0;
  c.runtime = Ms(10);
  FioGenerator& g = h.Make(c);
  h.Run();
  ASSERT_EQ(h.dev.log().size(), 100u);  // at 0, 100us, ..., 9.9ms
  EXPECT_EQ(h.dev.log().back().time, Us(9900));
  EXPECT_EQ(g.end_time(), Ms(10));
  EXPECT_DOUBLE_EQ(g.Iops(), 10000.0);
}

TEST(FioGeneratorTest, TimeBoundStopsOpenLoop) {
  Harness h(Us(100));
  FioConfig c = Base();
  c.iodepth = 4;
  c.rate_iops = 1000;
  c.total_ios = 0;
  c.runtime = Ms(10);
  FioGenerator& g = h.Make(c);
  h.Run();
  ASSERT_EQ(h.dev.log().size(), 10u);  // at 0, 1ms, ..., 9ms
  EXPECT_EQ(h.dev.log().back().time, Ms(9));
  EXPECT_EQ(g.end_time(), Ms(9) + Us(100));
}

TEST(FioGeneratorTest, IoSizeBoundEndsOnTheExactByte) {
  Harness h;
  FioConfig c = Base();
  c.rw = "randwrite";
  c.bssplit = {"4KiB/50%", "64KiB/50%"};
  c.iodepth = 8;
  c.total_ios = 0;
  c.io_size = sim::Bytes{(10u << 20) + 4096 + 512};
  h.Make(c);
  h.Run();
  uint64_t bytes = 0;
  for (const auto& s : h.dev.log()) bytes += s.length;
  EXPECT_EQ(bytes, c.io_size.value);
}

TEST(FioGeneratorTest, RampTimeExcludesEarlyCompletions) {
  Harness h(Us(100));
  FioConfig c = Base();
  c.iodepth = 1;
  c.total_ios = 100;
  c.ramp_time = Ms(1);
  FioGenerator& g = h.Make(c);
  h.Run();
  EXPECT_EQ(g.op_stats(BlockOp::kRead).ios.value(), 90u);  // completions at 0.1ms..1ms are ramp
  EXPECT_EQ(g.completed(), 100u);
  EXPECT_DOUBLE_EQ(g.Iops(), 10000.0);
  EXPECT_DOUBLE_EQ(h.reg.Value("workload.measured_time"), 0.009);
  EXPECT_DOUBLE_EQ(h.reg.Value("workload.ios_total"), 100.0);
}

// ---- addresses

TEST(FioGeneratorTest, SequentialStripesAreConsecutiveAndWrap) {
  Harness h;
  FioConfig c = Base();
  c.rw = "write";
  c.numjobs = 2;
  c.iodepth = 4;
  c.offset = "1MiB";
  c.size = "64KiB";  // two 32KiB stripes of 8 blocks
  c.total_ios = 40;
  h.Make(c);
  h.Run();
  for (uint32_t job = 0; job < 2; ++job) {
    const auto log = h.dev.QueueLog(job);
    ASSERT_EQ(log.size(), 20u);
    for (size_t i = 0; i < log.size(); ++i) {
      EXPECT_EQ(log[i].op, BlockOp::kWrite);
      EXPECT_EQ(log[i].offset, (1u << 20) + job * 32768 + (i % 8) * 4096) << "job " << job << " io " << i;
    }
  }
}

TEST(FioGeneratorTest, SequentialMixedSizesAreContiguous) {
  Harness h;
  FioConfig c = Base();
  c.rw = "rw";
  c.bssplit = {"4KiB/50%", "12KiB/50%"};
  c.size = "1MiB";
  c.iodepth = 4;
  c.total_ios = 2000;
  h.Make(c);
  h.Run();
  const auto& log = h.dev.log();
  int wraps = 0;
  for (size_t i = 1; i < log.size(); ++i) {
    const uint64_t expect = log[i - 1].offset + log[i - 1].length;
    if (log[i].offset == 0) {
      ++wraps;
      EXPECT_GT(expect + log[i].length, uint64_t{1} << 20);  // wrapped only when the next one did not fit
    } else {
      ASSERT_EQ(log[i].offset, expect) << i;
    }
  }
  EXPECT_GT(wraps, 5);
  EXPECT_GT(h.Count(BlockOp::kRead), 800u);
  EXPECT_GT(h.Count(BlockOp::kWrite), 800u);
}

TEST(FioGeneratorTest, RandomOffsetsAreAlignedAndInRange) {
  Harness h;
  FioConfig c = Base();
  c.rw = "randrw";
  // The JESD219 size mix: sub-4KiB sizes, every offset 4KiB aligned.
  c.bssplit = {"512/4%",   "1KiB/1%", "1536/1%", "2KiB/1%",   "2560/1%",  "3KiB/1%",
               "3584/1%", "4KiB/67%", "8KiB/10%", "16KiB/7%", "32KiB/3%", "64KiB/3%"};
  c.blockalign = sim::KiB(4);
  c.offset = "10%";
  c.size = "100MiB";
  c.iodepth = 32;
  c.total_ios = 20000;
  FioGenerator& g = h.Make(c);
  h.Run();
  const uint64_t start = g.plan().range_start;
  EXPECT_EQ(start % 4096, 0u);
  EXPECT_NEAR(static_cast<double>(start), 0.1 * (1 << 30), 4096);
  for (const auto& s : h.dev.log()) {
    ASSERT_EQ((s.offset - start) % 4096, 0u);
    ASSERT_GE(s.offset, start);
    ASSERT_LE(s.offset + s.length, start + (100u << 20));
  }
}

// Frequencies of each block index (offset / 4KiB from the range start).
std::map<uint64_t, uint64_t> BlockCounts(const FakeDevice& dev) {
  std::map<uint64_t, uint64_t> n;
  for (const auto& s : dev.log()) ++n[s.offset / 4096];
  return n;
}

TEST(FioGeneratorTest, ZipfFollowsTheta) {
  Harness h(Us(1));
  FioConfig c = Base();
  c.distribution = "zipf";
  SetKey(c, "zipf.theta", "1.2");
  c.size = "1GiB";  // 2^18 blocks
  c.iodepth = 32;
  c.total_ios = 200000;
  h.Make(c);
  h.Run();
  auto n = BlockCounts(h.dev);
  const double ratio = static_cast<double>(n[0]) / static_cast<double>(n[1]);
  EXPECT_NEAR(ratio, std::pow(2.0, 1.2), 0.05 * std::pow(2.0, 1.2));
  // Chi-square over the 10 hottest ranks against k^-theta / H.
  double h_n = 0;
  for (uint64_t k = 1; k <= (1u << 18); ++k) h_n += std::pow(static_cast<double>(k), -1.2);
  double chi2 = 0;
  for (uint64_t k = 1; k <= 10; ++k) {
    const double expect = 200000 * std::pow(static_cast<double>(k), -1.2) / h_n;
    const double d = static_cast<double>(n[k - 1]) - expect;
    chi2 += d * d / expect;
  }
  EXPECT_LT(chi2, 29.6);  // p = 0.001 for 9 degrees of freedom
}

TEST(FioGeneratorTest, HotColdSplitsAccesses) {
  Harness h(Us(1));
  FioConfig c = Base();
  c.distribution = "hotcold";
  SetKey(c, "hotcold.hot_fraction", "20%");
  SetKey(c, "hotcold.hot_ratio", "80%");
  c.size = "100MiB";  // 25600 blocks, 5120 hot
  c.iodepth = 32;
  c.total_ios = 100000;
  h.Make(c);
  h.Run();
  uint64_t hot = 0, hot_low_half = 0, cold_low_half = 0;
  for (const auto& s : h.dev.log()) {
    const uint64_t b = s.offset / 4096;
    if (b < 5120) {
      ++hot;
      hot_low_half += b < 2560;
    } else {
      cold_low_half += b < 5120 + 10240;
    }
  }
  EXPECT_NEAR(hot / 100000.0, 0.8, 0.01);
  EXPECT_NEAR(static_cast<double>(hot_low_half) / static_cast<double>(hot), 0.5, 0.02);  // uniform inside
  EXPECT_NEAR(static_cast<double>(cold_low_half) / static_cast<double>(100000 - hot), 0.5, 0.02);
}

TEST(FioGeneratorTest, ZonedFollowsJesd219Zones) {
  Harness h(Us(1));
  FioConfig c = Base();
  c.distribution = "zoned";
  SetKey(c, "zoned.zones", "[50%/5%, 30%/15%, 20%/80%]");
  c.size = "100MiB";  // zones end at blocks 1280, 5120, 25600
  c.iodepth = 32;
  c.total_ios = 100000;
  h.Make(c);
  h.Run();
  uint64_t z[3] = {0, 0, 0};
  for (const auto& s : h.dev.log()) {
    const uint64_t b = s.offset / 4096;
    ++z[b < 1280 ? 0 : b < 5120 ? 1 : 2];
  }
  EXPECT_NEAR(z[0] / 100000.0, 0.5, 0.01);
  EXPECT_NEAR(z[1] / 100000.0, 0.3, 0.01);
  EXPECT_NEAR(z[2] / 100000.0, 0.2, 0.01);
}

// ---- determinism

std::vector<FakeDevice::Submission> RunLog(const FioConfig& c, uint64_t seed) {
  Harness h;
  h.Make(c, seed);
  h.Run();
  return h.dev.log();
}

TEST(FioGeneratorTest, SameSeedSameSequenceJobsDiffer) {
  FioConfig c = Base();
  c.rw = "randrw";
  c.bssplit = {"4KiB/50%", "8KiB/50%"};
  c.numjobs = 2;
  c.iodepth = 4;
  c.total_ios = 2000;
  const auto a = RunLog(c, 7);
  const auto b = RunLog(c, 7);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, RunLog(c, 8));

  std::vector<uint64_t> job0, job1;
  for (const auto& s : a) (s.queue == 0 ? job0 : job1).push_back(s.offset);
  ASSERT_EQ(job0.size(), job1.size());
  size_t same = 0;
  for (size_t i = 0; i < job0.size(); ++i) same += job0[i] == job1[i];
  EXPECT_LT(same, 5u);
}

// ---- flush

TEST(FioGeneratorTest, FlushAfterEveryNthWrite) {
  Harness h;
  FioConfig c = Base();
  c.rw = "randrw";
  c.numjobs = 2;
  c.iodepth = 4;
  c.fsync = 4;
  c.total_ios = 4000;
  FioGenerator& g = h.Make(c);
  h.Run();
  uint64_t flushes = 0;
  for (uint32_t job = 0; job < 2; ++job) {
    const auto log = h.dev.QueueLog(job);
    uint32_t writes = 0;
    for (size_t i = 0; i < log.size(); ++i) {
      if (log[i].op == BlockOp::kFlush) {
        ++flushes;
        EXPECT_EQ(writes, 4u) << "job " << job << " submission " << i;
        EXPECT_EQ(log[i].length, 0u);
        writes = 0;
      } else if (log[i].op == BlockOp::kWrite) {
        ASSERT_LT(writes, 4u) << "missing flush at job " << job << " submission " << i;
        ++writes;
        if (writes == 4 && i + 1 < log.size()) {
          EXPECT_EQ(log[i + 1].op, BlockOp::kFlush);
        }
      }
    }
  }
  EXPECT_EQ(g.flushes_issued(), flushes);
  EXPECT_EQ(g.op_stats(BlockOp::kFlush).ios.value(), flushes);
  EXPECT_EQ(h.Count(BlockOp::kRead) + h.Count(BlockOp::kWrite), 4000u);  // flushes are extra
  EXPECT_NEAR(static_cast<double>(flushes), h.Count(BlockOp::kWrite) / 4.0, 2);
}

// ---- stats output

TEST(FioGeneratorTest, SeriesReportIopsPerInterval) {
  Harness h(Us(100));
  FioConfig c = Base();
  c.iodepth = 1;
  c.total_ios = 50;  // 5ms
  h.Make(c);
  h.reg.StartSampling(&h.q, Ms(1));
  h.Run();
  h.reg.StopSampling();
  std::ostringstream csv;
  h.reg.WriteSeriesCsv(csv);
  std::istringstream in(csv.str());
  std::string header, row;
  std::getline(in, header);
  EXPECT_NE(header.find("workload.iops"), std::string::npos) << header;
  EXPECT_NE(header.find("workload.MBps"), std::string::npos) << header;
  int rows = 0;
  while (std::getline(in, row)) {
    ++rows;
    EXPECT_NE(row.find(",10000,"), std::string::npos) << row;  // 10 completions per 1ms
  }
  EXPECT_EQ(rows, 5);
}

// A device that never allocates: a fixed ring of pending requests.
class RingDevice final : public ssd::BlockDevice {
 public:
  RingDevice(sim::EventQueue* q, SimTime service) : q_(q), service_(service) {}
  ~RingDevice() override {
    if (event_.scheduled()) q_->Deschedule(&event_);
  }
  uint64_t capacity() const override { return uint64_t{1} << 34; }
  uint32_t sector_size() const override { return 512; }
  uint32_t io_unit() const override { return 4096; }
  uint32_t queues() const override { return 1u << 16; }  // any queue index
  const ssd::DeviceLayout& layout() const override {
    static const ssd::DeviceLayout kFlat;  // no flash structure
    return kFlat;
  }
  void Submit(ssd::BlockRequest* req) override {
    CHECK_LT(tail_ - head_, ring_.size());
    req->submit_time = q_->now();
    ring_[tail_++ % ring_.size()] = {q_->now() + service_, req};
    if (!event_.scheduled()) q_->Schedule(&event_, q_->now() + service_);
  }

 private:
  void OnDone() {
    uint64_t n = tail_ - head_;
    while (n-- > 0 && ring_[head_ % ring_.size()].done <= q_->now()) {
      ssd::BlockRequest* req = ring_[head_++ % ring_.size()].req;
      req->complete_time = q_->now();
      req->client->OnBlockComplete(req);
    }
    if (head_ != tail_) q_->Reschedule(&event_, ring_[head_ % ring_.size()].done);
  }
  struct Slot {
    SimTime done;
    ssd::BlockRequest* req = nullptr;
  };
  sim::EventQueue* q_;
  SimTime service_;
  std::array<Slot, 1024> ring_{};
  uint64_t head_ = 0, tail_ = 0;
  sim::MemberEvent<RingDevice, &RingDevice::OnDone> event_{this, sim::Priority::kCompletion};
};

TEST(FioGeneratorTest, NoHeapAllocationPerIo) {
  FioConfig closed = Base();
  closed.rw = "randrw";
  closed.bssplit = {"4KiB/50%", "8KiB/30%", "64KiB/20%"};
  closed.distribution = "zipf";
  closed.numjobs = 4;
  closed.iodepth = 32;
  closed.fsync = 8;
  closed.ramp_time = Ms(1);
  closed.total_ios = 100000;
  FioConfig open = closed;
  open.distribution = "zoned";
  SetKey(open, "zoned.zones", "[50%/5%, 30%/15%, 20%/80%]");
  open.rate_iops = 100000;
  open.arrival = "poisson";
  for (const FioConfig& c : {closed, open}) {
    sim::EventQueue q;
    sim::StatsRegistry reg;
    RingDevice dev(&q, Us(20));
    auto g = FioGenerator::Create(c, {&q, &dev, reg.Root().Group("workload"), 1, 4});
    ASSERT_TRUE(g.ok()) << g.status().message();
    g.value()->Start();
    q.Run(Us(100));  // grows the event heap to its peak
    const uint64_t before = g_allocations;
    q.Run();
    EXPECT_EQ(g_allocations - before, 0u) << c.rw << " " << c.distribution;
    EXPECT_TRUE(g.value()->done());
    EXPECT_EQ(g.value()->issued(), 100000u);
  }
}

TEST(FioGeneratorTest, ConfigErrorNamesTheKey) {
  Harness h;
  FioConfig c = Base();
  c.bssplit = {"4KiB/60%", "8KiB/30%"};
  FioGenerator::Env env{&h.q, &h.dev, h.reg.Root().Group("workload"), 1, 1};
  auto g = FioGenerator::Create(c, env, "workload");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(), "workload.bssplit: percentages sum to 90%, must be 100%");
}

}  // namespace
}  // namespace host
