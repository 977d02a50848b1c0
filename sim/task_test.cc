#include "sim/task.h"

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

}  // namespace
}  // namespace sim
