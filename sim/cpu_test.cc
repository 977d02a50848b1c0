#include "sim/cpu.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace sim {
namespace {

CpuConfig Config(uint32_t cores, SimTime slice = Ms(3), SimTime sw = SimTime::Zero()) {
  CpuConfig c;
  c.cores = cores;
  c.slice = slice;
  c.context_switch = sw;
  c.lock_acquire = SimTime::Zero();
  return c;
}

// A thread of pure CPU work: `bursts` bursts of `each`, back to back.
Task<> Compute(CpuScheduler* cpu, int bursts, SimTime each, SimTime* done) {
  for (int i = 0; i < bursts; ++i) co_await cpu->Run(each);
  *done = cpu->queue()->now();
}

struct Outcome {
  SimTime makespan;
  std::vector<SimTime> done;
  double utilization = 0;
  uint64_t switches = 0;
};

Outcome RunThreads(uint32_t cores, int threads, int bursts, SimTime each, SimTime slice = Ms(3),
               SimTime sw = SimTime::Zero()) {
  EventQueue q;
  StatsRegistry reg;
  CpuScheduler cpu(&q, Config(cores, slice, sw), reg.Root().Group("cpu"));
  const uint16_t owner = cpu.Owner("workload");
  ThreadGroup g(&q);
  Outcome r;
  r.done.resize(threads);
  for (int t = 0; t < threads; ++t) g.Spawn(Compute(&cpu, bursts, each, &r.done[t]), owner);
  q.Run();
  r.makespan = *std::max_element(r.done.begin(), r.done.end());
  r.utilization = reg.Value("cpu.utilization");
  r.switches = static_cast<uint64_t>(reg.Value("cpu.context_switches"));
  EXPECT_EQ(reg.Value("cpu.owner.workload.time"), static_cast<double>(threads * bursts * each.ns()) +
                                                       reg.Value("cpu.context_switch_time"));
  return r;
}

// N threads of pure CPU work W on C cores take max(N / C, 1) x W.
TEST(CpuSchedulerTest, PureCpuWorkTakesThreadsOverCoresTimesTheWork) {
  const SimTime each = Us(10);
  const int bursts = 1000;  // W = 10 ms per thread
  for (uint32_t cores : {1u, 2u, 4u, 8u}) {
    for (int threads : {1, 2, 3, 4, 8, 16}) {
      const Outcome r = RunThreads(cores, threads, bursts, each);
      const double expect = std::max(static_cast<double>(threads) / cores, 1.0) * bursts * each.ns();
      // Threads not a multiple of the cores finish within one slice of the
      // ideal (round robin hands out whole slices).
      EXPECT_NEAR(static_cast<double>(r.makespan.ns()), expect, Ms(3).ns() + 1)
          << threads << " threads on " << cores << " cores";
      if (threads % cores == 0 || threads < static_cast<int>(cores)) {
        EXPECT_EQ(r.makespan.ns(), static_cast<int64_t>(expect)) << threads << " threads on " << cores << " cores";
      }
      const double busy_cores = std::min<double>(threads, cores);
      EXPECT_GT(r.utilization, 0.99 * busy_cores / cores * expect / static_cast<double>(r.makespan.ns()))
          << threads << " threads on " << cores << " cores";
    }
  }
}

TEST(CpuSchedulerTest, UnlimitedCoresRunEveryThreadAtOnce) {
  const Outcome r = RunThreads(0, 16, 100, Us(10));
  EXPECT_EQ(r.makespan, Ms(1));
  EXPECT_EQ(r.switches, 0u);
}

// Round robin: equal threads share the cores evenly, finishing together
// (within a slice), and a long burst is cut into slices while others wait.
TEST(CpuSchedulerTest, TimeSlicesShareACoreFairly) {
  const Outcome r = RunThreads(1, 4, 1, Ms(30), Ms(3));
  std::vector<SimTime> d = r.done;
  std::sort(d.begin(), d.end());
  EXPECT_EQ(d.back(), Ms(120));
  EXPECT_GE(d.front(), Ms(120) - Ms(3) * 3);  // all finish in the last round
}

TEST(CpuSchedulerTest, AThreadKeepsItsCoreAcrossBurstsUntilItBlocks) {
  // One core, two threads of many short bursts: no switch until the slice
  // ends; then one switch per slice.
  const Outcome r = RunThreads(1, 2, 1000, Us(10), Ms(3), Us(2));
  // 20 ms of work in 3 ms slices: about 7 switches, not 2,000.
  EXPECT_LE(r.switches, 10u);
  EXPECT_GE(r.switches, 5u);
}

TEST(CpuSchedulerTest, ContextSwitchesCostCpuTime) {
  // Threads that block between bursts (a delay stands for I/O) give their
  // core up; the next thread on it pays the switch.
  EventQueue q;
  StatsRegistry reg;
  CpuScheduler cpu(&q, Config(1, Ms(3), Us(2)), reg.Root().Group("cpu"));
  ThreadGroup g(&q);
  auto worker = [&]() -> Task<> {
    for (int i = 0; i < 10; ++i) {
      co_await cpu.Run(Us(10));
      co_await Delay(&q, Us(5));
    }
  };
  g.Spawn(worker());
  g.Spawn(worker());
  q.Run();
  // Alternating on one core: every burst after the first switches.
  EXPECT_EQ(reg.Value("cpu.context_switches"), 19);
  EXPECT_EQ(reg.Value("cpu.context_switch_time"), 19 * 2000);
  EXPECT_EQ(reg.Value("cpu.busy_time"), 20 * 10000 + 19 * 2000);
}

// Cached reads: throughput saturates at cores / per-call CPU cost however
// many threads issue them.
TEST(CpuSchedulerTest, CallThroughputSaturatesAtCoresOverPerCallCost) {
  const SimTime per_call = Us(2);
  for (uint32_t cores : {1u, 2u, 4u}) {
    for (int threads : {1, 4, 16, 64}) {
      EventQueue q;
      StatsRegistry reg;
      CpuScheduler cpu(&q, Config(cores), reg.Root().Group("cpu"));
      ThreadGroup g(&q);
      uint64_t calls = 0;
      const SimTime until = Ms(20);
      auto worker = [&]() -> Task<> {
        while (q.now() < until) {
          co_await cpu.Run(per_call);
          ++calls;
          co_await Delay(&q, SimTime::Zero());  // the call returns to user space
        }
      };
      for (int t = 0; t < threads; ++t) g.Spawn(worker());
      q.Run();
      const double rate = static_cast<double>(calls) / until.sec();
      const double bound = std::min<double>(threads, cores) / per_call.sec();
      EXPECT_LE(rate, bound * 1.001 + 1 / until.sec() * threads) << threads << " threads, " << cores << " cores";
      EXPECT_GE(rate, bound * 0.99) << threads << " threads, " << cores << " cores";
    }
  }
}

TEST(CpuSchedulerTest, HoldKeepsACoreFromOthers) {
  EventQueue q;
  StatsRegistry reg;
  CpuScheduler cpu(&q, Config(1), reg.Root().Group("cpu"));
  const uint16_t spin = cpu.Owner("spinner");
  ThreadGroup g(&q);
  SimTime other_done;
  auto holder = [&]() -> Task<> {
    CoreHold h;
    co_await cpu.Hold(&h);
    co_await Delay(&q, Ms(10));  // spinning: the core stays busy
    h.Release();
  };
  auto other = [&]() -> Task<> {
    co_await cpu.Run(Ms(1));
    other_done = q.now();
  };
  g.Spawn(holder(), spin);
  g.Spawn(other());
  q.Run();
  EXPECT_EQ(other_done, Ms(11));
  EXPECT_EQ(reg.Value("cpu.owner.spinner.time"), Ms(10).ns());
  EXPECT_EQ(reg.Value("cpu.busy_time"), Ms(11).ns());
}

TEST(CpuSchedulerTest, OwedTimeJoinsTheNextBurst) {
  EventQueue q;
  StatsRegistry reg;
  CpuScheduler cpu(&q, Config(1), reg.Root().Group("cpu"));
  ThreadGroup g(&q);
  SimTime done;
  auto t = [&]() -> Task<> {
    CpuScheduler::Owe(Us(3));
    co_await cpu.Run(Us(10));
    done = q.now();
  };
  g.Spawn(t());
  q.Run();
  EXPECT_EQ(done, Us(13));
}

TEST(CpuSchedulerTest, ThreadsDestroyedMidBurstGiveTheirCoresBack) {
  EventQueue q;
  StatsRegistry reg;
  CpuScheduler cpu(&q, Config(1), reg.Root().Group("cpu"));
  SimTime done;
  {
    ThreadGroup doomed(&q);
    auto long_burst = [&]() -> Task<> { co_await cpu.Run(Sec(1)); };
    doomed.Spawn(long_burst());
    doomed.Spawn(long_burst());  // queued behind the first
    q.Run(Ms(1));
  }
  ThreadGroup g(&q);
  auto t = [&]() -> Task<> {
    co_await cpu.Run(Us(10));
    done = q.now();
  };
  g.Spawn(t());
  q.Run();
  EXPECT_EQ(done, Ms(1) + Us(10));
  EXPECT_EQ(cpu.run_queue_length(), 0u);
}

TEST(CpuSchedulerTest, SameInputsSameSchedule) {
  auto run = [] {
    EventQueue q;
    StatsRegistry reg;
    CpuScheduler cpu(&q, Config(3, Us(50), Us(1)), reg.Root().Group("cpu"));
    ThreadGroup g(&q);
    std::vector<int64_t> trace;
    auto worker = [&](int id) -> Task<> {
      for (int i = 0; i < 50; ++i) {
        co_await cpu.Run(Us(1 + (id * 7 + i * 3) % 40));
        trace.push_back(id * 1000000 + q.now().ns() % 1000000);
        if ((id + i) % 3 == 0) co_await Delay(&q, Us(id));
      }
    };
    for (int t = 0; t < 7; ++t) g.Spawn(worker(t));
    q.Run();
    return trace;
  };
  EXPECT_EQ(run(), run());
}

// A thread awaiting `n` CpuBursts of `each`, recording when each ended.
Task<> Bursts(CpuScheduler* cpu, EventQueue* q, int n, SimTime each, std::vector<SimTime>* ends) {
  for (int i = 0; i < n; ++i) {
    co_await CpuBurst(cpu, q, each);
    ends->push_back(q->now());
  }
}

// CpuBurst is cpu->Run(d) with a scheduler: the same times and bursts as
// Run, threads sharing the cores.
TEST(CpuBurstTest, WithASchedulerIsARunOnIt) {
  EventQueue q;
  StatsRegistry reg;
  CpuScheduler cpu(&q, Config(1), reg.Root().Group("cpu"));
  const uint16_t owner = cpu.Owner("workload");
  ThreadGroup g(&q);
  std::vector<SimTime> a, b;
  g.Spawn(Bursts(&cpu, &q, 3, Us(10), &a), owner);
  g.Spawn(Bursts(&cpu, &q, 3, Us(10), &b), owner);
  q.Run();
  // One core: the first thread runs its three bursts, then the second.
  EXPECT_EQ(a, (std::vector<SimTime>{Us(10), Us(20), Us(30)}));
  EXPECT_EQ(b, (std::vector<SimTime>{Us(40), Us(50), Us(60)}));
  EXPECT_EQ(reg.Value("cpu.owner.workload.bursts"), 6);
  EXPECT_EQ(reg.Value("cpu.owner.workload.time"), static_cast<double>(Us(60).ns()));
}

// Without a scheduler it is a delay of d, and no suspension at all for 0.
TEST(CpuBurstTest, WithoutASchedulerIsADelay) {
  EventQueue q;
  std::vector<SimTime> ends, zero;
  Spawn(&q, Bursts(nullptr, &q, 2, Us(7), &ends));
  Spawn(&q, Bursts(nullptr, &q, 2, SimTime::Zero(), &zero));
  const uint64_t events = q.Run();
  EXPECT_EQ(ends, (std::vector<SimTime>{Us(7), Us(14)}));
  EXPECT_EQ(zero, (std::vector<SimTime>{SimTime::Zero(), SimTime::Zero()}));
  // Two starts and the two delays: zero-length bursts schedule nothing.
  EXPECT_EQ(events, 4u);
}

}  // namespace
}  // namespace sim
