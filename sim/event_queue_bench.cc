// Engine throughput: schedule + dispatch of events.
#include <cmath>
#include <memory>
#include <vector>

#include <benchmark/benchmark.h>

#include "sim/event_queue.h"
#include "sim/rng.h"
#include "sim/task.h"

namespace sim {
namespace {

// Delays of the steady state of a device model, where every die/channel
// keeps one pending event: pseudo-random, 1-5 us ahead.
int64_t RandomDelay(uint64_t x) { return static_cast<int64_t>(1000 + (x & 4095)); }

// The delays a device model actually uses: one of a few fixed ones (a
// page's bus transfer, two pages', a command cycle, tR, tPROG, tBERS), drawn
// with the frequencies of the 4 KiB random-write steady state
// (configs/bench/randwrite_steady.yaml).
int64_t DeviceDelay(uint64_t x) {
  // Per 1024: 429 transfers, 273 tPROG, 178 tR, 117 command cycles, 26 two-page transfers, 1 tBERS.
  const uint64_t r = x & 1023;
  if (r < 429) return 12'301;
  if (r < 702) return 750'000;
  if (r < 880) return 75'000;
  if (r < 997) return 1'024;
  if (r < 1023) return 24'602;
  return 3'800'000;
}

// A component owning one event that reschedules itself Delay(xorshift) ahead.
template <int64_t (*Delay)(uint64_t)>
class Ticker {
 public:
  Ticker(EventQueue* q, uint64_t seed) : q_(q), x_(seed | 1) {}
  void Start() { q_->ScheduleIn(&ev_, Ns(Step())); }
  void Tick() {
    if (--remaining_ > 0) q_->ScheduleIn(&ev_, Ns(Step()));
  }
  int64_t remaining_ = 0;

 private:
  int64_t Step() {
    x_ ^= x_ << 13;
    x_ ^= x_ >> 7;
    x_ ^= x_ << 17;
    return Delay(x_);
  }
  EventQueue* q_;
  uint64_t x_;
  MemberEvent<Ticker, &Ticker::Tick> ev_{this};
};

// N = state.range(0) tickers. Items = events processed.
template <int64_t (*Delay)(uint64_t)>
void BM_Tickers(benchmark::State& state) {
  const int components = static_cast<int>(state.range(0));
  const int64_t per = 1 << 20;
  uint64_t total = 0;
  for (auto _ : state) {
    EventQueue q;
    std::vector<std::unique_ptr<Ticker<Delay>>> t;
    for (int i = 0; i < components; ++i) {
      t.push_back(std::make_unique<Ticker<Delay>>(&q, 0x9e3779b97f4a7c15ULL * (i + 1)));
      t.back()->remaining_ = per / components;
      t.back()->Start();
    }
    total += q.Run();
  }
  state.SetItemsProcessed(static_cast<int64_t>(total));
}
void BM_ScheduleDispatch(benchmark::State& state) { BM_Tickers<RandomDelay>(state); }
void BM_ScheduleDispatchFixedDelays(benchmark::State& state) { BM_Tickers<DeviceDelay>(state); }
BENCHMARK(BM_ScheduleDispatch)->Arg(16)->Arg(256)->Arg(4096)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScheduleDispatchFixedDelays)->Arg(64)->Arg(256)->Arg(4096)->Unit(benchmark::kMillisecond);

Task<> Sleeper(EventQueue* q, int n) {
  for (int i = 0; i < n; ++i) co_await Delay(q, Ns(100 + (i & 63)));
}

// Simulated threads: a coroutine suspending on Delay per event.
void BM_CoroutineDelay(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  uint64_t total = 0;
  for (auto _ : state) {
    EventQueue q;
    for (int i = 0; i < threads; ++i) Spawn(&q, Sleeper(&q, (1 << 20) / threads));
    total += q.Run();
  }
  state.SetItemsProcessed(static_cast<int64_t>(total));
}
BENCHMARK(BM_CoroutineDelay)->Arg(64)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sim
