#include "fs/f2fs/raw_block_passthrough.h"

#include <gtest/gtest.h>

#include "fs/f2fs/fixed_latency_device.h"
#include "sim/event_queue.h"

namespace fs::f2fs {
namespace {

class Sink : public sim::BlockClient {
 public:
  void OnBlockComplete(sim::BlockRequest* r) override { done.push_back(r); }
  std::vector<sim::BlockRequest*> done;
};

TEST(RawBlockPassthroughTest, ForwardsRequestsAndCompletesTheCallersOwn) {
  sim::EventQueue q;
  FixedLatencyDeviceConfig dc;
  dc.capacity = 1 << 20;
  FixedLatencyDevice dev(&q, dc);
  sim::StatsRegistry stats;
  RawBlockPassthrough raw(&dev, stats.Root().Group("fs").Group("raw"));
  EXPECT_EQ(raw.capacity(), dev.capacity());
  Sink sink;
  sim::BlockRequest reqs[3];
  for (int i = 0; i < 3; ++i) {
    reqs[i].op = i == 2 ? sim::BlockOp::kFlush : sim::BlockOp::kWrite;
    reqs[i].offset = uint64_t(i) * 4096;
    reqs[i].length = i == 2 ? 0 : 4096;
    reqs[i].client = &sink;
    reqs[i].tag = 100 + i;
    raw.Submit(&reqs[i]);
  }
  EXPECT_EQ(raw.in_flight(), 3u);
  q.Run();
  ASSERT_EQ(sink.done.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(reqs[i].tag, uint64_t(100 + i));  // untouched
    EXPECT_GT(reqs[i].complete_time, sim::SimTime::Zero());
  }
  EXPECT_EQ(dev.requests(sim::BlockOp::kWrite), 2u);
  EXPECT_EQ(stats.Value("fs.raw.write.count"), 2);
  EXPECT_EQ(stats.Value("fs.raw.write.bytes"), 8192);
  EXPECT_EQ(stats.FindHistogram("fs.raw.flush.lat")->count(), 1u);
}

}  // namespace
}  // namespace fs::f2fs
