// Wall-clock cost of the replay driver: records replayed per second through
// a fake device (fixed 10 us latency), from an in-memory MQSim trace.
#include <string>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "tests/fakes/fake_block_device.h"
#include "host/replay/trace_replayer.h"
#include "sim/config.h"

namespace host {
namespace {

const std::string& Trace() {
  static const std::string* t = [] {
    auto* s = new std::string;
    for (int i = 0; i < 1000000; ++i) {
      *s += fmt::format("{} {} {} 16 {}\n", int64_t{i} * 2000, i % 16, (static_cast<uint64_t>(i) * 7919 % 4000000) * 16,
                        i % 3 == 0 ? 0 : 1);
    }
    return s;
  }();
  return *t;
}

void Run(benchmark::State& state, const char* mode, const char* fit) {
  uint64_t records = 0;
  for (auto _ : state) {
    sim::EventQueue q;
    sim::StatsRegistry stats;
    fakes::FakeBlockDevice dev(&q, uint64_t{16} << 30, 512, 4096, sim::Us(10));
    dev.set_keep_log(false);
    TraceReplayConfig cfg = sim::MakeDefault<TraceReplayConfig>();
    cfg.path = "bench";
    cfg.reader.format = "mqsim";
    cfg.mode = mode;
    cfg.fit = fit;
    cfg.iodepth = 64;
    auto r = TraceReplayer::CreateFromMemory(cfg, {&q, &dev, stats.Root().Group("replay"), 1, 1}, "bench", Trace());
    if (!r.ok()) {
      state.SkipWithError(r.status().message().c_str());
      return;
    }
    (*r)->Start();
    q.Run();
    records += (*r)->completed();
  }
  state.counters["records/s"] = benchmark::Counter(static_cast<double>(records), benchmark::Counter::kIsRate);
}

void BM_ReplayClosedWrap(benchmark::State& s) { Run(s, "closed", "wrap"); }
void BM_ReplayOpenWrap(benchmark::State& s) { Run(s, "open", "wrap"); }
void BM_ReplayClosedCompact(benchmark::State& s) { Run(s, "closed", "compact"); }
BENCHMARK(BM_ReplayClosedWrap)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayOpenWrap)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayClosedCompact)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace host
