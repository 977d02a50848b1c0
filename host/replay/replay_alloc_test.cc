// The replay's steady state allocates nothing per request: the whole test
// binary's operator new is counted while a replay runs past its warm-up.
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include <gtest/gtest.h>

#include "host/replay/replay_test_util.h"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<uint64_t> g_allocations{0};
}  // namespace

// The replacement pair below is malloc/free on both sides.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void* operator new(std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace host {
namespace {

using testing::MqConfig;
using testing::MqLine;
using testing::ReplayBench;

uint64_t SteadyStateAllocations(const TraceReplayConfig& cfg, const std::string& trace, sim::SimTime warmup,
                                uint64_t* completed) {
  ReplayBench bench(uint64_t{1} << 30, 512, 4096, sim::Us(10));
  bench.device.set_keep_log(false);
  auto made = bench.FromMemory(cfg, trace);
  EXPECT_TRUE(made.ok()) << made.status().message();
  if (!made.ok()) return ~uint64_t{0};
  TraceReplayer* r = made->get();
  r->Start();
  bench.queue.Run(warmup);
  EXPECT_FALSE(r->done());
  g_allocations = 0;
  g_counting = true;
  bench.queue.Run();
  g_counting = false;
  EXPECT_TRUE(r->done());
  EXPECT_TRUE(r->status().ok()) << r->status().message();
  *completed = r->completed();
  return g_allocations.load();
}

std::string Trace(int records, int64_t gap_ns) {
  std::string t;
  for (int i = 0; i < records; ++i) t += MqLine(i * gap_ns, i % 4, (i * 7919 % 100000) * 8, 8, i % 3 == 0);
  return t;
}

TEST(ReplayAllocationTest, ClosedLoopAllocatesNothingPerRequest) {
  TraceReplayConfig cfg = MqConfig();
  cfg.mode = "closed";
  cfg.iodepth = 16;
  uint64_t completed = 0;
  EXPECT_EQ(SteadyStateAllocations(cfg, Trace(50000, 1000), sim::Us(500), &completed), 0u);
  EXPECT_EQ(completed, 50000u);
}

TEST(ReplayAllocationTest, OpenLoopWithBacklogAllocatesNothingPerRequest) {
  TraceReplayConfig cfg = MqConfig();
  cfg.iodepth = 4;
  cfg.max_backlog = 32;
  cfg.fit = "compact";  // exercise the extent lookup too
  uint64_t completed = 0;
  EXPECT_EQ(SteadyStateAllocations(cfg, Trace(50000, 2000), sim::Us(500), &completed), 0u);
  EXPECT_EQ(completed, 50000u);
}

}  // namespace
}  // namespace host
