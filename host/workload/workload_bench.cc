// Request-generation rate of FioGenerator against a device that completes
// every request at once (zero service time), so the figure is the cost of
// the generator plus the event engine per I/O.
#include <deque>

#include <benchmark/benchmark.h>
#include <glog/logging.h>

#include "host/workload/fio_generator.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/stats.h"

namespace host {
namespace {

// Completes everything submitted so far from one zero-delay event.
class InstantDevice final : public ssd::BlockDevice {
 public:
  explicit InstantDevice(sim::EventQueue* q) : q_(q) {}
  ~InstantDevice() override {
    if (event_.scheduled()) q_->Deschedule(&event_);
  }
  uint64_t capacity() const override { return uint64_t{1} << 40; }
  uint32_t sector_size() const override { return 512; }
  uint32_t io_unit() const override { return 4096; }
  uint32_t queues() const override { return 1u << 16; }  // any queue index
  const ssd::DeviceLayout& layout() const override {
    static const ssd::DeviceLayout kFlat;  // no flash structure
    return kFlat;
  }
  void Submit(ssd::BlockRequest* req) override {
    req->submit_time = q_->now();
    pending_.push_back(req);
    if (!event_.scheduled()) q_->Schedule(&event_, q_->now());
  }

 private:
  void OnDone() {
    size_t n = pending_.size();
    while (n-- > 0) {
      ssd::BlockRequest* r = pending_.front();
      pending_.pop_front();
      r->complete_time = q_->now();
      r->client->OnBlockComplete(r);
    }
  }
  sim::EventQueue* q_;
  std::deque<ssd::BlockRequest*> pending_;
  sim::MemberEvent<InstantDevice, &InstantDevice::OnDone> event_{this, sim::Priority::kCompletion};
};

void RunWorkload(benchmark::State& state, FioConfig cfg) {
  constexpr uint64_t kIos = 1 << 20;
  cfg.total_ios = kIos;
  for (auto _ : state) {
    sim::EventQueue q;
    sim::StatsRegistry reg;
    InstantDevice dev(&q);
    auto gen = FioGenerator::Create(cfg, {&q, &dev, reg.Root().Group("workload"), 1, cfg.numjobs});
    if (!gen.ok()) {
      state.SkipWithError(gen.status().message().c_str());
      return;
    }
    gen.value()->Start();
    q.Run();
    benchmark::DoNotOptimize(gen.value()->Iops());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kIos));
}

FioConfig Random4k(const std::string& distribution) {
  FioConfig c;
  c.rw = "randrw";
  c.rwmixread = sim::Ratio{0.7};
  c.iodepth = 32;
  c.numjobs = 4;
  c.distribution = distribution;
  if (distribution == "zoned") {
    CHECK(sim::SetKey(sim::SchemaOf<FioConfig>(), &c, "zoned.zones", "[50%/5%, 30%/15%, 20%/80%]").ok());
  }
  return c;
}

void BM_RandRwUniform(benchmark::State& s) { RunWorkload(s, Random4k("uniform")); }
void BM_RandRwZipf(benchmark::State& s) { RunWorkload(s, Random4k("zipf")); }
void BM_RandRwHotCold(benchmark::State& s) { RunWorkload(s, Random4k("hotcold")); }
void BM_RandRwZoned(benchmark::State& s) { RunWorkload(s, Random4k("zoned")); }

void BM_Jesd219(benchmark::State& s) {
  FioConfig c = Random4k("zoned");
  c.rwmixread = sim::Ratio{0.4};
  c.iodepth = 256;
  c.blockalign = sim::KiB(4);
  c.bssplit = {"512/4%",  "1KiB/1%", "1536/1%",  "2KiB/1%",  "2560/1%",  "3KiB/1%",
               "3584/1%", "4KiB/67%", "8KiB/10%", "16KiB/7%", "32KiB/3%", "64KiB/3%"};
  RunWorkload(s, c);
}

void BM_SeqWrite(benchmark::State& s) {
  FioConfig c;
  c.rw = "write";
  c.bs = sim::KiB(128);
  c.iodepth = 16;
  RunWorkload(s, c);
}

void BM_RateLimited(benchmark::State& s) {
  FioConfig c = Random4k("uniform");
  c.rate_iops = 1e6;
  c.arrival = "poisson";
  RunWorkload(s, c);
}

BENCHMARK(BM_RandRwUniform)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RandRwZipf)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RandRwHotCold)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RandRwZoned)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Jesd219)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SeqWrite)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RateLimited)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace host
