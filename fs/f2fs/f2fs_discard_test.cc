// Discard (TRIM) of the F2FS model: what a checkpoint frees reaches the
// device only as Linux 5.15 sends it, and never a block the file system
// still needs.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fs/f2fs/f2fs_test_util.h"

namespace fs::f2fs {
namespace {

using testing::Pattern;
using testing::Stack;

// Keeps the simulation alive for `d` so background threads (daemons) run.
sim::Task<void> Idle(sim::EventQueue* q, sim::SimTime d) { co_await sim::Delay(q, d); }

Fd Open(Stack& s, const std::string& p) {
  FsResult<Fd> r = s.Run(s.fs().Open(p, kCreat | kRdWr));
  CHECK(r.ok()) << p << " " << ErrnoName(r.err);
  return r.value;
}
void Write(Stack& s, Fd fd, uint64_t off, const std::vector<uint8_t>& data) {
  FsResult<uint64_t> r = s.Run(s.fs().Pwrite(fd, off, data, data.size()));
  CHECK(r.ok() && r.value == data.size()) << ErrnoName(r.err);
}
std::vector<uint8_t> Read(Stack& s, Fd fd, uint64_t off, uint64_t n) {
  std::vector<uint8_t> out(n);
  FsResult<uint64_t> r = s.Run(s.fs().Pread(fd, off, out));
  CHECK(r.ok() && r.value == n) << ErrnoName(r.err);
  return out;
}

void Fsync(Stack& s, Fd fd) { CHECK(s.Run(s.fs().Fsync(fd)).ok()); }
void Unlink(Stack& s, const std::string& p) { CHECK(s.Run(s.fs().Unlink(p)).ok()); }

// Twelve discard commands of 20, 30, ..., 130 blocks (and the few short
// ones of the files' nodes): each file's data run sits between two valid
// 17-block spacers (warm data, like the files), so the runs cannot merge.
void QueueTwelveCommands(Stack& s) {
  for (uint32_t i = 0; i < 12; ++i) {
    const std::string f = "/f" + std::to_string(i), sp = "/s" + std::to_string(i);
    const Fd a = Open(s, f);
    Write(s, a, 0, Pattern((20 + 10 * i) * kBlockSize, i));
    Fsync(s, a);
    s.Run(s.fs().Close(a));
    const Fd b = Open(s, sp);
    Write(s, b, 0, Pattern(17 * kBlockSize, 100 + i));
    Fsync(s, b);
    s.Run(s.fs().Close(b));
  }
  s.Run(s.fs().Sync());
  for (uint32_t i = 0; i < 12; ++i) Unlink(s, "/f" + std::to_string(i));
  s.Run(s.fs().Sync());
}

// Lengths (blocks) of the trims the device saw from index `from` on.
std::vector<uint64_t> TrimLengths(Stack& s, size_t from = 0) {
  std::vector<uint64_t> out;
  const auto& log = s.device().trim_log();
  for (size_t i = from; i < log.size(); ++i) out.push_back(log[i].length / kBlockSize);
  return out;
}

// A workload that never lets the file system be idle for discard (a
// request every second, the idle interval is 5 s) sends no background
// discard; once it stops, the queue goes out 5 s after its last request.
TEST(DiscardTest, NothingIsIssuedWhileTheFileSystemIsBusy) {
  Stack s;
  s.FormatAndMount();
  const Fd big = Open(s, "/big");
  Write(s, big, 0, Pattern(3 * kBlocksPerSeg * kBlockSize, 1));
  s.Run(s.fs().Close(big));
  s.Run(s.fs().Sync());
  Unlink(s, "/big");
  s.Run(s.fs().Sync());
  // The freed segments (and the runs around them) merged into one command.
  uint32_t longest = 0;
  for (const auto& [start, c] : s.fs().discards().commands_by_address()) longest = std::max(longest, c.len);
  EXPECT_GE(longest, 3 * kBlocksPerSeg);
  EXPECT_GT(s.stats().Value("fs.discard.merged"), 0);
  const Fd busy = Open(s, "/busy");
  auto work = [&]() -> sim::Task<void> {
    for (int i = 0; i < 180; ++i) {
      std::vector<uint8_t> d(kBlockSize, static_cast<uint8_t>(i));
      co_await s.fs().Pwrite(busy, uint64_t(i % 64) * kBlockSize, d, d.size());
      co_await sim::Delay(&s.q(), sim::Sec(1));
    }
  };
  s.Run(work());
  EXPECT_EQ(s.device().requests(ssd::BlockOp::kTrim), 0u);
  EXPECT_EQ(s.stats().Value("fs.discard.commands"), 0);
  EXPECT_GT(s.stats().Value("fs.discard.interrupted_rounds"), 0);  // it tried
  const sim::SimTime last_request = s.q().now() - sim::Sec(1);
  s.Run(Idle(&s.q(), sim::Sec(10)));
  ASSERT_GT(s.device().trim_log().size(), 0u);
  EXPECT_GE(s.device().trim_log().front().at, last_request + sim::Sec(5));
  EXPECT_EQ(s.fs().discards().pending_commands(), 0u);
  s.ExpectCheck();
}

// After the idle interval the thread sends the longest commands first, at
// most max_requests (8) per round, rounds min_interval (50 ms) apart; the
// short ones follow by address (5.15's ordered phase), unless max_ordered
// is 0: then none shorter than the granularity (16 blocks) goes.
TEST(DiscardTest, IdleRoundsSendTheLongestFirstEightAtATime) {
  for (const uint32_t max_ordered : {16u, 0u}) {
    SCOPED_TRACE(max_ordered);
    F2fsConfig c = testing::TestConfig();
    c.discard.max_ordered = max_ordered;
    Stack s(256ull << 20, c);
    s.FormatAndMount();
    QueueTwelveCommands(s);
    ASSERT_GE(s.fs().discards().pending_commands(), 12u);
    ASSERT_EQ(s.device().requests(ssd::BlockOp::kTrim), 0u);
    const sim::SimTime last_request = s.q().now();
    s.Run(Idle(&s.q(), sim::Sec(70)));  // the thread sleeps max_interval (60 s) with nothing queued at mount
    const auto& log = s.device().trim_log();
    ASSERT_GE(log.size(), 12u);
    EXPECT_GE(log[0].at, last_request + sim::Sec(5));
    for (size_t i = 1; i < 8; ++i) EXPECT_EQ(log[i].at, log[0].at);
    EXPECT_GE(log[8].at, log[0].at + sim::Ms(50));
    const std::vector<uint64_t> first12 = [&] {
      std::vector<uint64_t> v = TrimLengths(s);
      v.resize(12);
      return v;
    }();
    EXPECT_EQ(first12, (std::vector<uint64_t>{130, 120, 110, 100, 90, 80, 70, 60, 50, 40, 30, 20}));
    const std::vector<uint64_t> rest = TrimLengths(s, 12);
    const bool short_sent = std::any_of(rest.begin(), rest.end(), [](uint64_t n) { return n < 16; });
    if (max_ordered > 0) {
      EXPECT_TRUE(short_sent);  // the files' node blocks, by address
      EXPECT_EQ(s.fs().discards().pending_commands(), 0u);
    } else {
      EXPECT_FALSE(short_sent);
      EXPECT_GT(s.fs().discards().pending_commands(), 0u);
      EXPECT_FALSE(s.fs().discards().HasPendingAtLeast(16));
    }
    s.ExpectCheck();
  }
}

// Unmount sends everything pending (any length, not waiting for idleness)
// and waits; past umount_timeout the rest is dropped.
TEST(DiscardTest, UnmountIssuesEverythingPending) {
  for (const bool timeout : {false, true}) {
    SCOPED_TRACE(timeout);
    F2fsConfig c = testing::TestConfig();
    if (timeout) c.discard.umount_timeout = sim::SimTime::Zero();  // one batch, issued at once
    Stack s(256ull << 20, c);
    s.FormatAndMount();
    QueueTwelveCommands(s);
    const uint64_t pending = s.fs().discards().pending_blocks();
    const uint64_t commands = s.fs().discards().pending_commands();
    ASSERT_GT(commands, 8u);
    s.Run(s.fs().Unmount());
    EXPECT_EQ(s.fs().discards().commands(), 0u);
    EXPECT_EQ(s.fs().discards().issued_commands(), 0u);
    if (!timeout) {
      EXPECT_GE(s.stats().Value("fs.discard.blocks"), pending);  // the umount checkpoint may add some
      EXPECT_EQ(s.stats().Value("fs.discard.dropped_blocks"), 0);
    } else {
      EXPECT_EQ(s.stats().Value("fs.discard.commands"), 8);
      EXPECT_GT(s.stats().Value("fs.discard.dropped_blocks"), 0);
    }
  }
}

// A write to a block an issued discard still covers waits until the
// discard completed, so the device sees the trim first.
TEST(DiscardTest, AWriteWaitsForAnIssuedDiscardOfItsBlock) {
  F2fsConfig c = testing::TestConfig();
  c.checkpoint.background = false;
  c.gc.background = false;
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  const Layout& l = s.fs().layout();
  ASSERT_EQ(s.fs().segments().curseg(LogType::kWarmData).segno, SegNo{5});
  const Fd w = Open(s, "/w");
  {
    // Cold data freed from segments 4, 6 and 7 (see the test above).
    const Fd a = Open(s, "/a.mp4");
    Write(s, a, 0, Pattern(3 * kBlocksPerSeg * kBlockSize, 1));
    s.Run(s.fs().Close(a));
    s.Run(s.fs().Sync());
    Unlink(s, "/a.mp4");
    s.Run(s.fs().Sync());
  }
  // The warm log fills segment 5 and moves to the free segment 6.
  Write(s, w, 0, Pattern(kBlocksPerSeg * kBlockSize, 2));
  Fsync(s, w);
  ASSERT_EQ(s.fs().segments().curseg(LogType::kWarmData).segno, SegNo{6});
  // The discards go out (60 s after mount) and take 2 s each.
  s.device().set_trim_latency(sim::Sec(2));
  s.Run(Idle(&s.q(), sim::Sec(61)));
  ASSERT_TRUE(s.fs().discards().IssuedOverlaps(l.SegStart(SegNo{6}), 1));
  const sim::SimTime t0 = s.q().now();
  // 17 pages: more than min_hot_blocks, so the warm log writes them.
  const std::vector<uint8_t> data = Pattern(17 * kBlockSize, 3);
  Write(s, w, kBlocksPerSeg * kBlockSize, data);
  Fsync(s, w);
  EXPECT_EQ(s.stats().Value("fs.discard.write_waits"), 1);
  EXPECT_GT(s.q().now() - t0, sim::Ms(500));
  EXPECT_TRUE(s.image().Read(l.SegStart(SegNo{6})) != nullptr);
  s.PowerCut([](BlockAddr, bool) { return true; });
  ASSERT_TRUE(s.Mount().ok());
  EXPECT_TRUE(Read(s, Open(s, "/w"), kBlocksPerSeg * kBlockSize, data.size()) == data);
  s.ExpectCheck();
}

// Issue 10 item 8: a block a checkpoint freed (its discard still pending)
// is reused for a file's data, the file is fsynced, then the page is
// written again out of place (no fsync), so the block is invalid. A
// discard of the freed range must not reach the block: roll-forward
// recovery from that checkpoint still reads it.
TEST(DiscardTest, RollForwardFindsAReusedBlockAfterDiscards) {
  F2fsConfig c = testing::TestConfig();
  c.checkpoint.background = false;  // the fsync is what makes the data durable
  c.gc.background = false;
  c.page_cache.writeback_interval = sim::Ms(100);
  c.page_cache.dirty_expire = sim::Ms(100);
  c.discard.max_requests = 1;  // one range per round ...
  c.discard.min_interval = sim::Sec(10);  // ... and rounds far apart: the reused range is still queued
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  const Layout& l = s.fs().layout();
  // Logs start at mkfs's places: cold data in segment 4, warm data in 5.
  ASSERT_EQ(s.fs().segments().curseg(LogType::kColdData).segno, SegNo{4});
  ASSERT_EQ(s.fs().segments().curseg(LogType::kWarmData).segno, SegNo{5});
  const Fd w = Open(s, "/w");
  {
    // A cold file fills segments 4, 6 and 7 (5 is the warm log's), is
    // checkpointed, then freed by the next checkpoint.
    const Fd a = Open(s, "/a.mp4");
    Write(s, a, 0, Pattern(3 * kBlocksPerSeg * kBlockSize, 1));
    s.Run(s.fs().Close(a));
    s.Run(s.fs().Sync());
    ASSERT_TRUE(s.Run(s.fs().Unlink("/a.mp4")).ok());
    s.Run(s.fs().Sync());
    for (uint32_t seg : {4u, 6u, 7u}) ASSERT_TRUE(s.fs().segments().IsFree(SegNo{seg})) << seg;
  }
  const double cp_fsyncs = s.stats().Value("fs.fsync.checkpoints");
  // The warm log fills segment 5, then takes the free segment 6: page 512
  // of /w lands on its first block.
  const uint64_t page = kBlocksPerSeg;
  const std::vector<uint8_t> fsynced = Pattern(kBlockSize, 7);
  Write(s, w, 0, Pattern(page * kBlockSize, 2));
  Write(s, w, page * kBlockSize, fsynced);
  ASSERT_TRUE(s.Run(s.fs().Fsync(w)).ok());
  ASSERT_EQ(s.stats().Value("fs.fsync.checkpoints"), cp_fsyncs) << "the fsync must roll forward";
  const BlockAddr reused = l.SegStart(SegNo{6});
  ASSERT_TRUE(s.fs().segments().BlockValid(reused));
  // Written again out of place by the flusher: the block is invalid now.
  Write(s, w, page * kBlockSize, Pattern(kBlockSize, 8));
  s.Run(Idle(&s.q(), sim::Sec(1)));
  ASSERT_FALSE(s.fs().segments().BlockValid(reused));
  // Long idle: every queued discard goes out.
  s.Run(Idle(&s.q(), sim::Sec(120)));
  EXPECT_EQ(s.fs().discards().pending_commands(), 0u);
  EXPECT_EQ(s.image().Read(BlockAddr{reused.v + 10}), nullptr) << "the rest of segment 6 was discarded";
  ASSERT_EQ(s.fs().checkpoint_version(), s.fs().mounted_checkpoint_version() + 2) << "no other checkpoint";
  // Power cut: the device keeps everything it was sent.
  s.PowerCut([](BlockAddr, bool) { return true; });
  sim::Status st = s.Mount();
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_GT(s.fs().recovered_dnodes(), 0u);
  const Fd fd = Open(s, "/w");
  EXPECT_TRUE(Read(s, fd, page * kBlockSize, kBlockSize) == fsynced)
      << "roll-forward recovery read a block the discard trimmed";
  s.ExpectCheck();
}

}  // namespace
}  // namespace fs::f2fs
