#include <cmath>
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include "sim/rng.h"
#include "sim/stats.h"

namespace sim {
namespace {

// Latency-like values (exponential, mean 100 us in ns) drawn up front so the
// loop measures Record alone; the table fits in L1.
std::vector<int64_t> Latencies() {
  Rng rng(1, "stats_bench");
  std::vector<int64_t> v(4096);
  for (int64_t& x : v) x = static_cast<int64_t>(rng.Exponential(100000));
  return v;
}

void BM_HistogramRecord(benchmark::State& state) {
  const std::vector<int64_t> values = Latencies();
  Histogram h;
  size_t i = 0;
  for (auto _ : state) {
    h.Record(values[i]);
    i = (i + 1) & (values.size() - 1);
  }
  benchmark::DoNotOptimize(h.count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramRecord);

void BM_HistogramPercentile(benchmark::State& state) {
  const std::vector<int64_t> values = Latencies();
  Histogram h;
  for (const int64_t v : values) h.Record(v);
  for (auto _ : state) benchmark::DoNotOptimize(h.Percentile(0.99));
}
BENCHMARK(BM_HistogramPercentile);

void BM_CounterInc(benchmark::State& state) {
  Counter c;
  for (auto _ : state) {
    c.Inc();
    benchmark::DoNotOptimize(c);
  }
  benchmark::DoNotOptimize(c.value());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CounterInc);

}  // namespace
}  // namespace sim
