#include "fs/vfs/sync_primitives.h"

#include <gtest/gtest.h>

#include "sim/cpu.h"
#include "sim/stats.h"

namespace fs::vfs {
namespace {

sim::CpuConfig Cores(uint32_t n) {
  sim::CpuConfig c;
  c.cores = n;
  c.slice = sim::Ms(3);
  c.context_switch = sim::SimTime::Zero();
  c.lock_acquire = sim::SimTime::Zero();
  return c;
}

// A spinlock held across a long section burns its waiters' cores: a thread
// that only wants a little CPU waits until the holder and the spinner let
// go. With a sleeping lock the waiter gives its core up and it runs at once.
TEST(LockClassTest, SpinningWaitersBurnTheirCoresSleepingOnesDoNot) {
  for (bool spinning : {true, false}) {
    sim::EventQueue q;
    sim::StatsRegistry reg;
    sim::CpuScheduler cpu(&q, Cores(2), reg.Root().Group("cpu"));
    LockClass cls("l", spinning ? LockClass::Kind::kSpinning : LockClass::Kind::kSleeping, &cpu,
                  reg.Root().Group("locks").Group("l"));
    LockClass spin_cls("s", LockClass::Kind::kSpinning, &cpu, reg.Root().Group("locks").Group("s"));
    SpinLock spin(&q, spinning ? &cls : &spin_cls);
    RwLock sleep(&q, &cls);
    sim::ThreadGroup g(&q);
    sim::SimTime small_done;
    auto locker = [&](sim::SimTime start, sim::SimTime cs) -> sim::Task<> {
      co_await sim::Delay(&q, start);
      if (spinning) {
        co_await spin.Section(cs);
      } else {
        co_await sleep.LockExclusive();
        ExclusiveLock held(&sleep);
        co_await cpu.Run(cs);
      }
    };
    auto small = [&]() -> sim::Task<> {
      co_await sim::Delay(&q, sim::Us(2));
      co_await cpu.Run(sim::Ms(1));
      small_done = q.now();
    };
    g.Spawn(locker(sim::SimTime::Zero(), sim::Ms(10)));
    g.Spawn(locker(sim::Us(1), sim::Ms(1)));
    g.Spawn(small());
    q.Run();
    if (spinning) {
      // Cores: the holder (10 ms) and the spinner (10 ms spinning, then its
      // own 1 ms section); the small thread gets the holder's core at 10 ms.
      EXPECT_EQ(small_done, sim::Ms(11));
      EXPECT_EQ(q.now(), sim::Ms(11));
      EXPECT_EQ(reg.Value("locks.l.spin_time"), (sim::Ms(10) - sim::Us(1)).ns());
      EXPECT_EQ(reg.Value("cpu.busy_time"), (sim::Ms(10) + sim::Ms(11) - sim::Us(1) + sim::Ms(1)).ns());
    } else {
      EXPECT_EQ(small_done, sim::Us(2) + sim::Ms(1));
      EXPECT_EQ(q.now(), sim::Ms(11));
      EXPECT_EQ(reg.Value("cpu.busy_time"), sim::Ms(12).ns());
    }
    EXPECT_EQ(reg.Value("locks.l.acquisitions"), 2);
    EXPECT_EQ(reg.Value("locks.l.contended"), 1);
    const sim::Histogram* wait = reg.FindHistogram("locks.l.wait");
    ASSERT_NE(wait, nullptr);
    EXPECT_EQ(wait->max(), (sim::Ms(10) - sim::Us(1)).ns());
    const sim::Histogram* hold = reg.FindHistogram("locks.l.hold");
    ASSERT_NE(hold, nullptr);
    EXPECT_EQ(hold->count(), 2u);
    EXPECT_EQ(hold->max(), sim::Ms(10).ns());
  }
}

TEST(LockClassTest, AcquisitionsOweTheirCostToTheNextBurst) {
  sim::EventQueue q;
  sim::StatsRegistry reg;
  sim::CpuConfig c = Cores(1);
  c.lock_acquire = sim::Ns(50);
  sim::CpuScheduler cpu(&q, c, reg.Root().Group("cpu"));
  LockClass cls("l", LockClass::Kind::kSleeping, &cpu, reg.Root().Group("locks").Group("l"));
  RwLock l(&q, &cls);
  sim::ThreadGroup g(&q);
  auto t = [&]() -> sim::Task<> {
    for (int i = 0; i < 4; ++i) {
      co_await l.LockShared();
      SharedLock held(&l);
    }
    co_await cpu.Run(sim::Us(1));
  };
  g.Spawn(t());
  q.Run();
  EXPECT_EQ(q.now(), sim::Us(1) + sim::Ns(200));
  EXPECT_EQ(reg.Value("locks.l.contended"), 0);
}

TEST(LockClassTest, SpinLockHandsOverInFifoOrder) {
  sim::EventQueue q;
  sim::StatsRegistry reg;
  sim::CpuScheduler cpu(&q, Cores(0), reg.Root().Group("cpu"));
  LockClass cls("l", LockClass::Kind::kSpinning, &cpu, reg.Root().Group("locks").Group("l"));
  SpinLock l(&q, &cls);
  sim::ThreadGroup g(&q);
  std::vector<int> order;
  auto t = [&](int id) -> sim::Task<> {
    co_await sim::Delay(&q, sim::Ns(id));
    co_await l.Section(sim::Us(10));
    order.push_back(id);
  };
  for (int i = 0; i < 5; ++i) g.Spawn(t(i));
  q.Run();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(q.now(), sim::Us(50));
  EXPECT_FALSE(l.held());
}

}  // namespace
}  // namespace fs::vfs
