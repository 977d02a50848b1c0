#include "sim/task.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace sim {
namespace {

Task<int> Child(EventQueue* q, int v, std::vector<std::string>* log) {
  co_await Delay(q, Us(10));
  log->push_back("child " + std::to_string(v) + " @" + q->now().ToString());
  co_return v * 2;
}

Task<> Worker(EventQueue* q, int id, std::vector<std::string>* log) {
  for (int i = 0; i < 3; ++i) {
    const int r = co_await Child(q, id * 10 + i, log);
    log->push_back("worker " + std::to_string(id) + " got " + std::to_string(r));
    co_await Delay(q, Us(id));
  }
}

TEST(TaskTest, ThreadsInterleaveOnTheClock) {
  EventQueue q;
  std::vector<std::string> log;
  Spawn(&q, Worker(&q, 1, &log));
  Spawn(&q, Worker(&q, 2, &log));
  q.Run();
  // Worker 1: child at 10us, resumes at 11 -> child at 21, 22 -> 32, 33 end.
  // Worker 2: child at 10us, 12 -> 22, 24 -> 34, 36 end.
  EXPECT_EQ(q.now(), Us(36));
  std::vector<std::string> expect = {
      "child 10 @10us", "worker 1 got 20", "child 20 @10us", "worker 2 got 40",
      "child 11 @21us", "worker 1 got 22", "child 21 @22us", "worker 2 got 42",
      "child 12 @32us", "worker 1 got 24", "child 22 @34us", "worker 2 got 44",
  };
  EXPECT_EQ(log, expect);
}

TEST(TaskTest, CompletionBeforeAndAfterWait) {
  EventQueue q;
  Completion<int> early(&q), late(&q);
  std::vector<int> got;
  early.Complete(5);
  auto waiter = [&]() -> Task<> {
    got.push_back(co_await early);
    got.push_back(co_await late);
    got.push_back(static_cast<int>(q.now().ns()));
  };
  Spawn(&q, waiter());
  FunctionEvent fire([&] { late.Complete(9); });
  q.Schedule(&fire, Ns(123));
  q.Run();
  EXPECT_EQ(got, (std::vector<int>{5, 9, 123}));
}

TEST(TaskTest, SemaphoreIsFifoAndBoundsConcurrency) {
  EventQueue q;
  Semaphore sem(&q, 2);
  int inside = 0, max_inside = 0;
  std::vector<int> order;
  auto user = [&](int id) -> Task<> {
    co_await sem.Acquire();
    order.push_back(id);
    ++inside;
    max_inside = std::max(max_inside, inside);
    co_await Delay(&q, Us(5));
    --inside;
    sem.Release();
  };
  for (int i = 0; i < 6; ++i) Spawn(&q, user(i));
  q.Run();
  EXPECT_EQ(max_inside, 2);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(q.now(), Us(15));
  EXPECT_EQ(sem.available(), 2);
}


// ---- Control transfer stays flat.

// Spread of the native stack addresses seen by a set of frames.
struct StackSpan {
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  void See() {
    volatile char marker = 0;
    const auto a = reinterpret_cast<uintptr_t>(&marker);
    lo = std::min(lo, a);
    hi = std::max(hi, a);
  }
  uintptr_t bytes() const { return hi - lo; }
};

Task<int> Immediate(int v, StackSpan* span) {
  span->See();
  co_return v;
}

// A loop over children that finish without suspending: each await used to
// nest the next child (and the caller's resumption) on the native stack
// unless the compiler made the transfers tail calls.
TEST(TaskTest, AMillionSynchronousAwaitsKeepTheStackFlat) {
  EventQueue q;
  StackSpan span;
  int64_t sum = 0;
  bool done = false;
  auto loop = [&]() -> Task<> {
    for (int i = 0; i < 1'000'000; ++i) sum += co_await Immediate(i & 7, &span);
    done = true;
  };
  ThreadGroup g(&q);
  g.Spawn(loop());
  q.Run();
  ASSERT_TRUE(done);
  EXPECT_EQ(sum, 3'500'000);
  EXPECT_LT(span.bytes(), 64u << 10);
  EXPECT_TRUE(g.empty());
}

TEST(TaskDeathTest, AwaitingInACoroutineResumedOutsideResumeIsCaught) {
  EXPECT_DEATH(
      {
        StackSpan span;
        auto parent = [&]() -> Task<> { co_await Immediate(1, &span); };
        Task<> t = parent();
        t.handle().resume();  // not through Resume(): the child never runs
        Task<> other = parent();
        Resume(other.handle());
      },
      "outside sim::Resume");
}

// Each level awaits the next: a chain of `depth` frames, resumed from an
// event when the leaf waits (`wait`), else completing synchronously.
Task<int> Chain(EventQueue* q, int depth, bool wait, StackSpan* span) {
  span->See();
  if (depth == 0) {
    if (wait) co_await Delay(q, Us(1));
    span->See();
    co_return 0;
  }
  const int below = co_await Chain(q, depth - 1, wait, span);
  span->See();
  co_return below + 1;
}

class DeepChainTest : public ::testing::TestWithParam<bool> {};

TEST_P(DeepChainTest, KeepsTheStackFlat) {
  EventQueue q;
  StackSpan span;
  int got = -1;
  auto root = [&]() -> Task<> { got = co_await Chain(&q, 200'000, GetParam(), &span); };
  ThreadGroup g(&q);
  g.Spawn(root());
  q.Run();
  EXPECT_EQ(got, 200'000);
  EXPECT_LT(span.bytes(), 64u << 10);
  EXPECT_EQ(q.now(), GetParam() ? Us(1) : SimTime::Zero());
}

INSTANTIATE_TEST_SUITE_P(LeafWaits, DeepChainTest, ::testing::Bool());

// ---- Thread groups own their roots.

struct Guard {
  int* destroyed;
  ~Guard() { ++*destroyed; }
};

Task<> SleepLong(EventQueue* q, int* destroyed) {
  Guard g{destroyed};
  co_await Delay(q, Sec(100));
}

TEST(ThreadGroupTest, DestroysSuspendedThreadsWithTheTasksTheyAwait) {
  EventQueue q;
  int destroyed = 0;
  Semaphore sem(&q, 0);
  Completion<int> never(&q);
  auto sleeper = [&]() -> Task<> {
    Guard g{&destroyed};
    co_await SleepLong(&q, &destroyed);
  };
  auto waiter = [&]() -> Task<> {
    Guard g{&destroyed};
    co_await sem.Acquire();
  };
  auto completion = [&]() -> Task<> {
    Guard g{&destroyed};
    co_await never;
  };
  {
    ThreadGroup g(&q);
    g.Spawn(sleeper());
    g.Spawn(waiter());
    g.Spawn(waiter());
    g.Spawn(completion());
    q.Run(Ms(1));
    g.Spawn(sleeper());  // not started yet
    EXPECT_EQ(q.pending(), 2u);  // the running sleeper's delay and that start
    EXPECT_EQ(g.size(), 5u);
    EXPECT_EQ(destroyed, 0);
  }
  // Both frames of the sleeper, the waiters and the completion's waiter; the
  // unstarted thread has no local yet.
  EXPECT_EQ(destroyed, 2 + 1 + 1 + 1);
  EXPECT_TRUE(q.empty());  // the delays went with their frames
  EXPECT_FALSE(sem.has_waiters());
  never.Complete(1);  // no waiter left to resume
  q.Run();
  EXPECT_EQ(q.now(), Ms(1));
}

TEST(ThreadGroupTest, AWaiterDestroyedMidWaitLeavesTheSemaphoreConsistent) {
  EventQueue q;
  Semaphore sem(&q, 0);
  std::vector<int> got;
  auto user = [&](int id) -> Task<> {
    co_await sem.Acquire();
    got.push_back(id);
  };
  ThreadGroup first(&q);
  first.Spawn(user(1));
  {
    ThreadGroup second(&q);
    second.Spawn(user(2));
    second.Spawn(user(3));
    q.Run();
    sem.Release();  // handed to 1
    EXPECT_EQ(first.size(), 1u);
  }
  // 2 and 3 left the queue; 1 still gets its permit.
  q.Run();
  EXPECT_EQ(got, (std::vector<int>{1}));
  EXPECT_EQ(sem.available(), 0);

  ThreadGroup third(&q);
  third.Spawn(user(4));
  third.Spawn(user(5));
  q.Run();
  sem.Release();  // handed to 4, which has not run yet
  third.DestroyAll();
  EXPECT_EQ(sem.available(), 1);  // the permit came back
  EXPECT_TRUE(q.empty());
}

TEST(ThreadGroupTest, FinishedThreadsLeaveTheGroup) {
  EventQueue q;
  ThreadGroup g(&q);
  std::vector<std::string> log;
  g.Spawn(Worker(&q, 1, &log));
  g.Spawn(Worker(&q, 2, &log));
  EXPECT_EQ(g.size(), 2u);
  q.Run();
  EXPECT_TRUE(g.empty());
  EXPECT_EQ(log.size(), 12u);
}

}  // namespace
}  // namespace sim
