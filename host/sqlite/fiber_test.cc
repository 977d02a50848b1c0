#include "host/sqlite/fiber.h"

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "host/sqlite/testing_fs.h"
#include "sim/event_queue.h"
#include "sim/task.h"

namespace host::sqlite {
namespace {

sim::Task<int> AddLater(sim::EventQueue* q, sim::SimTime d, int a, int b) {
  co_await sim::Delay(q, d);
  co_return a + b;
}

sim::Task<void> JustWait(sim::EventQueue* q, sim::SimTime d, int* touched) {
  co_await sim::Delay(q, d);
  ++*touched;
}

TEST(FiberTest, AwaitTaskBlocksTheFiberForTheTasksSimulatedTime) {
  sim::EventQueue q;
  FiberRuntime rt(&q);
  int result = 0;
  sim::SimTime seen;
  int touched = 0;
  Fiber* f = rt.Spawn("adder", [&] {
    EXPECT_TRUE(rt.InFiber());
    result = rt.AwaitTask(AddLater(&q, sim::Us(7), 40, 2));
    seen = q.now();
    rt.AwaitTask(JustWait(&q, sim::Us(3), &touched));
  });
  EXPECT_FALSE(f->finished());
  q.Run();
  EXPECT_TRUE(f->finished());
  EXPECT_EQ(result, 42);
  EXPECT_EQ(seen, sim::Us(7));
  EXPECT_EQ(touched, 1);
  EXPECT_EQ(f->finish_time(), sim::Us(10));
  EXPECT_EQ(rt.live_fibers(), 0u);
  EXPECT_FALSE(rt.InFiber());
}

// Two fibers that sleep different periods interleave in simulated time
// order; the log is the same on every run.
std::vector<std::string> RunTwoSleepers() {
  sim::EventQueue q;
  FiberRuntime rt(&q);
  std::vector<std::string> log;
  auto sleeper = [&](const char* name, int period_us, int steps) {
    return [&, name, period_us, steps] {
      for (int i = 0; i < steps; ++i) {
        rt.Sleep(sim::Us(period_us));
        log.push_back(std::string(name) + "@" + std::to_string(q.now().ns() / 1000));
      }
    };
  };
  rt.Spawn("a", sleeper("a", 10, 4));
  rt.Spawn("b", sleeper("b", 15, 3));
  q.Run();
  return log;
}

TEST(FiberTest, TwoFibersInterleaveInSimulatedTime) {
  std::vector<std::string> log = RunTwoSleepers();
  // a wakes at 10 20 30 40, b at 15 30 45. Both wake at 30: b's wake-up
  // was scheduled first (at 15, a's at 20), so b runs first.
  std::vector<std::string> want = {"a@10", "b@15", "a@20", "b@30", "a@30", "a@40", "b@45"};
  EXPECT_EQ(log, want);
  EXPECT_EQ(RunTwoSleepers(), log);  // deterministic
}

TEST(FiberTest, JoinFromACoroutineAndYield) {
  sim::EventQueue q;
  FiberRuntime rt(&q);
  std::vector<int> order;
  Fiber* f = rt.Spawn("worker", [&] {
    order.push_back(1);
    rt.Yield();
    order.push_back(3);
    rt.Sleep(sim::Ms(1));
    order.push_back(4);
  });
  sim::SimTime joined;
  auto joiner = [&]() -> sim::Task<void> {
    order.push_back(2);
    co_await f->Join();
    joined = q.now();
    order.push_back(5);
  };
  // The spawned fiber's first entry was scheduled before the joiner starts.
  sim::Spawn(&q, joiner());
  q.Run();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(joined, sim::Ms(1));
  EXPECT_GE(f->switches(), 3u);
}

// A body that needs a deep stack (SQLite-sized) runs on the default stack.
int DeepRecursion(int depth) {
  volatile char pad[4096];
  std::memset(const_cast<char*>(pad), depth & 0xff, sizeof(pad));
  if (depth == 0) return pad[17];
  return DeepRecursion(depth - 1) + (pad[100] & 1);
}

TEST(FiberTest, DefaultStackHoldsAFewHundredKiB) {
  sim::EventQueue q;
  FiberRuntime rt(&q);
  int r = -1;
  rt.Spawn("deep", [&] { r = DeepRecursion(96); });  // ~400 KiB of frames
  q.Run();
  EXPECT_GE(r, 0);
}

TEST(FiberDeathTest, StackOverflowHitsTheGuardPage) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_DEATH(
      {
        sim::EventQueue q;
        FiberRuntime rt(&q, 64 * 1024);
        rt.Spawn("overflow", [] { DeepRecursion(64); });  // ~256 KiB on a 64 KiB stack
        q.Run();
      },
      "");
}

TEST(FiberTest, FileSystemCallsFromAFiber) {
  sim::EventQueue q;
  testing::TestingFsLatency lat;
  testing::TestingFs fs(&q, lat);
  FiberRuntime rt(&q);
  std::string back;
  rt.Spawn("io", [&] {
    auto fd = rt.AwaitTask(fs.Open("/f", fs::kRdWr | fs::kCreat));
    ASSERT_TRUE(fd.ok());
    const std::string msg = "hello fiber";
    auto w = rt.AwaitTask(fs.Pwrite(fd.value, 0, {reinterpret_cast<const uint8_t*>(msg.data()), msg.size()},
                                    msg.size()));
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE(rt.AwaitTask(fs.Fdatasync(fd.value)).ok());
    std::vector<uint8_t> buf(64);
    auto r = rt.AwaitTask(fs.Pread(fd.value, 0, buf));
    ASSERT_TRUE(r.ok());
    back.assign(buf.begin(), buf.begin() + static_cast<long>(r.value));
    ASSERT_TRUE(rt.AwaitTask(fs.Close(fd.value)).ok());
  });
  q.Run();
  EXPECT_EQ(back, "hello fiber");
  // open + write + sync + read + close, each with its fixed latency.
  EXPECT_EQ(q.now(), lat.base * 4 + lat.per_4k * 2 + lat.sync);
}

// The runtime goes while the fiber sleeps: the sleep is cut and the body
// returns, running its destructors (on the fiber stack, which ASan is told
// about).
TEST(FiberTest, UnfinishedFiberIsUnwoundWhenTheRuntimeGoes) {
  sim::EventQueue q;
  bool destroyed = false;
  struct Guard {
    bool* flag;
    ~Guard() { *flag = true; }
  };
  {
    FiberRuntime rt(&q);
    rt.Spawn("forever", [&] {
      Guard g{&destroyed};
      rt.Sleep(sim::Sec(100));
    });
    q.Run(sim::Ms(1));
    EXPECT_FALSE(destroyed);
    EXPECT_EQ(rt.live_fibers(), 1u);
  }
  EXPECT_TRUE(destroyed);
  EXPECT_TRUE(q.empty());
}

// A shutdown while a fiber waits for a file-system call: the call is
// destroyed and fails with EIO, and so does every later one, at once; the
// body winds down on its own error path.
TEST(FiberTest, ShutdownFailsTheWaitsSoTheBodyWindsDown) {
  sim::EventQueue q;
  testing::TestingFsLatency lat;
  testing::TestingFs fs(&q, lat);
  std::vector<fs::Errno> seen;
  bool returned = false;
  {
    FiberRuntime rt(&q);
    rt.Spawn("io", [&] {
      auto fd = rt.AwaitTask(fs.Open("/f", fs::kRdWr | fs::kCreat));
      ASSERT_TRUE(fd.ok());
      for (int i = 0; i < 3; ++i) {
        auto w = rt.AwaitTask(fs.Pwrite(fd.value, 0, {}, 4096));
        seen.push_back(w.err);
        rt.Sleep(sim::Sec(1));
      }
      seen.push_back(rt.AwaitTask(fs.Close(fd.value)).err);
      returned = true;
    });
    q.Run(lat.base + sim::Ns(1));  // the first write is under way
    EXPECT_TRUE(seen.empty());
    EXPECT_FALSE(q.empty());
    rt.Shutdown();
    EXPECT_TRUE(returned);
    EXPECT_EQ(rt.live_fibers(), 0u);
  }
  EXPECT_EQ(seen, std::vector<fs::Errno>(4, fs::Errno::kIo));
  EXPECT_TRUE(q.empty());  // the write's delay went with it
}

// A fiber that keeps waiting during the shutdown is unwound.
TEST(FiberTest, AFiberThatKeepsWaitingIsUnwound) {
  sim::EventQueue q;
  bool destroyed = false;
  uint64_t cut = 0;
  struct Guard {
    bool* flag;
    ~Guard() { *flag = true; }
  };
  {
    FiberRuntime rt(&q);
    rt.Spawn("forever", [&] {
      Guard g{&destroyed};
      for (;;) {
        rt.Sleep(sim::Ms(1));
        if (rt.shutting_down()) ++cut;
      }
    });
    q.Run(sim::Ms(10));
  }
  EXPECT_TRUE(destroyed);
  EXPECT_EQ(cut, FiberRuntime::kMaxCutWaits);
  EXPECT_TRUE(q.empty());
}

// A result type without a CancelledResult cannot fail: the fiber waiting
// for it is unwound.
TEST(FiberTest, AwaitingAResultThatCannotFailUnwindsDuringTheShutdown) {
  sim::EventQueue q;
  bool after = false, destroyed = false;
  struct Guard {
    bool* flag;
    ~Guard() { *flag = true; }
  };
  {
    FiberRuntime rt(&q);
    rt.Spawn("adder", [&] {
      Guard g{&destroyed};
      rt.AwaitTask(AddLater(&q, sim::Sec(1), 1, 2));
      after = true;
    });
    q.Run(sim::Ms(1));
  }
  EXPECT_TRUE(destroyed);
  EXPECT_FALSE(after);
  EXPECT_TRUE(q.empty());
}

TEST(FiberTest, AFiberNotStartedBeforeTheShutdownNeverRuns) {
  sim::EventQueue q;
  bool ran = false;
  {
    FiberRuntime rt(&q);
    rt.Spawn("late", [&] { ran = true; });
  }
  EXPECT_FALSE(ran);
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace host::sqlite
