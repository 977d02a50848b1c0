#include "sim/task.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
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

// ---- FinishHook: code run when a task ends, before its awaiter resumes.

struct LogHook : FinishHook {
  explicit LogHook(std::vector<std::string>* l) : log(l) {
    finished = [](FinishHook* self, const void* v) noexcept {
      LogHook* h = static_cast<LogHook*>(self);
      h->log->push_back(v == nullptr ? std::string("hook (void)")
                                     : "hook " + std::to_string(*static_cast<const int*>(v)));
    };
  }
  std::vector<std::string>* log;
};

TEST(FinishHookTest, RunsWithTheValueBeforeTheAwaiterResumes) {
  EventQueue q;
  std::vector<std::string> log;
  LogHook hook(&log), other(&log);
  auto parent = [&]() -> Task<> {
    Task<int> c = Child(&q, 7, &log);
    EXPECT_TRUE(c.SetFinishHook(&hook));
    EXPECT_FALSE(c.SetFinishHook(&other));  // one hook per task; the first stays
    const int r = co_await std::move(c);
    log.push_back("parent got " + std::to_string(r));
    Task<> v = [&]() -> Task<> {
      log.push_back("void body");
      co_return;
    }();
    EXPECT_TRUE(v.SetFinishHook(&hook));
    co_await std::move(v);  // ends without suspending: the hook still runs first
    log.push_back("parent after void");
  };
  Spawn(&q, parent());
  q.Run();
  const std::vector<std::string> expect = {"child 7 @10us", "hook 14",          "parent got 14",
                                           "void body",     "hook (void)", "parent after void"};
  EXPECT_EQ(log, expect);
}

TEST(FinishHookTest, RunsForARootAndNeverForATaskDestroyedBeforeItsEnd) {
  EventQueue q;
  std::vector<std::string> log;
  LogHook hook(&log);
  {
    ThreadGroup g(&q);
    Task<> root = Worker(&q, 1, &log);
    EXPECT_TRUE(root.SetFinishHook(&hook));
    g.Spawn(std::move(root));
    q.Run();
    EXPECT_TRUE(g.empty());
  }
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log.back(), "hook (void)");
  log.clear();
  {
    ThreadGroup g(&q);
    Task<> root = Worker(&q, 2, &log);
    EXPECT_TRUE(root.SetFinishHook(&hook));
    g.Spawn(std::move(root));
    q.Run(q.now() + Us(15));  // the first child ended; the worker is mid-run
    EXPECT_EQ(g.size(), 1u);
  }  // destroyed mid-run
  const std::vector<std::string> expect = {"child 20 @43us", "worker 2 got 40"};
  EXPECT_EQ(log, expect);
}

// ---- Coroutine frame pool (internal::AllocateFrame / ReleaseFrame).

constexpr std::size_t kNewAlign = __STDCPP_DEFAULT_NEW_ALIGNMENT__;

TEST(FramePoolTest, FramesAreAlignedAndWritableAtEverySize) {
  std::vector<std::pair<void*, std::size_t>> frames;
  for (std::size_t n : {std::size_t{1}, std::size_t{8}, std::size_t{63}, std::size_t{64}, std::size_t{65},
                        std::size_t{1000}, internal::kPooledFrameBytes - 1, internal::kPooledFrameBytes,
                        internal::kPooledFrameBytes + 1, std::size_t{3} * internal::kPooledFrameBytes}) {
    void* p = internal::AllocateFrame(n);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % kNewAlign, 0u) << n << " bytes";
    std::memset(p, 0xA5, n);  // the whole size is usable (ASan checks it in the sanitized build)
    frames.emplace_back(p, n);
  }
  // Distinct frames while all are alive.
  for (size_t i = 0; i < frames.size(); ++i) {
    for (size_t j = i + 1; j < frames.size(); ++j) EXPECT_NE(frames[i].first, frames[j].first);
  }
  for (auto [p, n] : frames) internal::ReleaseFrame(p, n);
}

TEST(FramePoolTest, ReleasedFrameIsReusedForItsSizeClassOnly) {
  if (!internal::kPoolFrames) GTEST_SKIP() << "frames are plain allocations under AddressSanitizer";
  constexpr std::size_t g = internal::kFrameGrain;
  void* a = internal::AllocateFrame(g + 1);  // class 1: (64, 128] bytes
  internal::ReleaseFrame(a, g + 1);
  // Another class does not take it...
  void* b = internal::AllocateFrame(2 * g + 1);
  EXPECT_NE(b, a);
  // ...any size of the same class does, last released first.
  void* c = internal::AllocateFrame(2 * g);
  EXPECT_EQ(c, a);
  void* d = internal::AllocateFrame(2 * g);
  EXPECT_NE(d, a);
  internal::ReleaseFrame(d, 2 * g);
  internal::ReleaseFrame(c, g + 7);
  EXPECT_EQ(internal::AllocateFrame(g + 2), c);  // LIFO: the frame released last
  EXPECT_EQ(internal::AllocateFrame(g + 3), d);
  internal::ReleaseFrame(c, g + 2);
  internal::ReleaseFrame(d, g + 3);
  internal::ReleaseFrame(b, 2 * g + 1);
}

TEST(FramePoolTest, FramesBeyondTheClassesBypassTheLists) {
  if (!internal::kPoolFrames) GTEST_SKIP() << "frames are plain allocations under AddressSanitizer";
  const std::size_t big = internal::kPooledFrameBytes + 1;
  std::vector<internal::FreeFrame*> heads(std::begin(internal::free_frames), std::end(internal::free_frames));
  void* p = internal::AllocateFrame(big);
  std::memset(p, 0x5A, big);
  internal::ReleaseFrame(p, big);  // back to operator delete, no list touched
  EXPECT_TRUE(std::equal(heads.begin(), heads.end(), std::begin(internal::free_frames)));
  // The largest pooled size is pooled.
  void* q = internal::AllocateFrame(internal::kPooledFrameBytes);
  internal::ReleaseFrame(q, internal::kPooledFrameBytes);
  EXPECT_EQ(internal::free_frames[internal::kPooledFrameBytes / internal::kFrameGrain - 1],
            static_cast<internal::FreeFrame*>(q));
  EXPECT_EQ(internal::AllocateFrame(internal::kPooledFrameBytes), q);
  internal::ReleaseFrame(q, internal::kPooledFrameBytes);
}

TEST(FramePoolTest, ListsArePerThread) {
  if (!internal::kPoolFrames) GTEST_SKIP() << "frames are plain allocations under AddressSanitizer";
  void* mine = internal::AllocateFrame(100);
  internal::ReleaseFrame(mine, 100);
  void* theirs = nullptr;
  std::thread t([&] {
    theirs = internal::AllocateFrame(100);  // that thread's list is its own: not `mine`
    internal::ReleaseFrame(theirs, 100);
    EXPECT_EQ(internal::AllocateFrame(100), theirs);
    internal::ReleaseFrame(theirs, 100);
    // Frames still listed when a thread ends stay with it (not returned to
    // the heap): the lists only hold what the thread's simulation used.
  });
  t.join();
  EXPECT_NE(theirs, mine);
  EXPECT_EQ(internal::AllocateFrame(100), mine);
  internal::ReleaseFrame(mine, 100);
}

Task<int> Sum(int a, int b) { co_return a + b; }
// A frame of about 1.5 KiB: `big` lives across a suspension, so it is in the frame.
Task<int> SumWithLocals(int a) {
  char big[1500];
  std::memset(big, a, sizeof(big));
  const int x = co_await Sum(a, 0);
  co_return big[x % 1500] + big[1499];
}

TEST(FramePoolTest, TaskFramesComeFromThePoolAndAreReused) {
  if (!internal::kPoolFrames) GTEST_SKIP() << "frames are plain allocations under AddressSanitizer";
  void* small_frame = nullptr;
  void* big_frame = nullptr;
  {
    Task<int> s = Sum(1, 2);
    Task<int> b = SumWithLocals(3);
    small_frame = s.handle().address();
    big_frame = b.handle().address();
    EXPECT_NE(small_frame, big_frame);
  }
  // Destroyed in reverse order; the next frames of the same sizes take the same memory.
  Task<int> b = SumWithLocals(4);
  Task<int> s = Sum(5, 6);
  EXPECT_EQ(s.handle().address(), small_frame);
  EXPECT_EQ(b.handle().address(), big_frame);
  // And they run as usual.
  int got = 0;
  auto outer = [&]() -> Task<> { got = co_await std::move(s) + co_await std::move(b); };
  Task<> o = outer();
  Resume(o.handle());
  EXPECT_EQ(got, 11 + 4 + 4);  // Sum(5, 6) + SumWithLocals(4)
}

}  // namespace
}  // namespace sim
