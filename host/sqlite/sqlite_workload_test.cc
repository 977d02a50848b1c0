#include "host/sqlite/sqlite_workload.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "host/sqlite/testing_fs.h"
#include "sim/event_queue.h"
#include "sim/stats.h"

namespace host::sqlite {
namespace {

using ::testing::HasSubstr;

// Threads arriving at different times all leave at the last arrival's
// time; the last one runs the barrier's action, once, before any leaves.
TEST(SqliteWorkloadTest, BarrierReleasesEveryoneAtTheLastArrival) {
  sim::EventQueue q;
  FiberRuntime rt(&q);
  FiberBarrier barrier(&rt, 3);
  std::vector<sim::SimTime> left(3);
  int actions = 0;
  sim::SimTime action_time;
  for (int i = 0; i < 3; ++i) {
    rt.Spawn("t", [&, i] {
      rt.Sleep(sim::Ms(10 * (3 - i)));
      barrier.Arrive([&] {
        ++actions;
        action_time = q.now();
      });
      left[static_cast<size_t>(i)] = q.now();
    });
  }
  q.Run();
  EXPECT_EQ(actions, 1);
  EXPECT_EQ(action_time, sim::Ms(30));
  for (sim::SimTime t : left) EXPECT_EQ(t, sim::Ms(30));
}

// The threads start together, the join reports once all returned, the
// first error is kept and every one counted; the window's figures.
TEST(SqliteWorkloadTest, ThreadsJoinKeepTheFirstErrorAndMeasure) {
  sim::EventQueue q;
  sim::StatsRegistry stats;
  testing::TestingFs fs(&q);
  SqliteThreads threads(&q, &fs, sim::MakeDefault<SqliteVfsConfig>(), 256 << 10, 1, stats.Root().Group("vfs"));
  MeasuredWindow window;
  uint64_t units = 0;
  window.Register(stats.Root(), "the test's window", "unit", "unit", [&] { return units; });
  bool joined = false;
  threads.Start(
      2, "w",
      [&](uint32_t t) {
        if (t == 0) {
          window.Begin(q.now(), threads.vfs().Snapshot());
          auto db = OpenWorkloadDb(&threads.vfs(), "/d", "/d/x.db", sim::Sec(1));
          ASSERT_TRUE(db.ok()) << db.status().message();
          threads.Fail(ApplySettings(**db, "main", SqliteSettings{"delete", "full", 8192, sim::Sec(1)}));
          threads.Fail((*db)->Exec("CREATE TABLE t(a); INSERT INTO t VALUES(1);"));
          EXPECT_EQ((*db)->QueryInt("PRAGMA page_size;").value(), 8192);
          units = 2;
          window.End(q.now(), threads.vfs().Snapshot());
          threads.Fail((*db)->Close());
          threads.Fail(sim::Status::IoError("first"));
        } else {
          threads.runtime().Sleep(sim::Sec(1));
          threads.Fail(sim::Status::IoError("second"));
        }
      },
      [&] { joined = true; });
  q.Run();
  EXPECT_TRUE(joined);
  EXPECT_TRUE(threads.done());
  EXPECT_THAT(threads.status().message(), HasSubstr("first"));
  EXPECT_EQ(threads.errors().value(), 2u);
  EXPECT_GT(window.time(), sim::SimTime::Zero());
  EXPECT_GE(window.counts().TotalSyncs(), 2u);
  EXPECT_EQ(stats.Value("fsyncs"), static_cast<double>(window.counts().TotalSyncs()));
  EXPECT_DOUBLE_EQ(stats.Value("fsyncs_per_unit"), window.counts().TotalSyncs() / 2.0);
  EXPECT_DOUBLE_EQ(stats.Value("bytes_written_per_unit"), window.counts().TotalBytesWritten() / 2.0);
  EXPECT_DOUBLE_EQ(window.PerSecond(units), 2 / window.time().sec());
}

TEST(SqliteWorkloadTest, KeysAreChecked) {
  const SqliteVfsConfig vfs = sim::MakeDefault<SqliteVfsConfig>();
  EXPECT_TRUE(ValidateSqliteKeys("w", 4096, "/d", "delete", vfs).ok());
  EXPECT_THAT(ValidateSqliteKeys("w", 3000, "/d", "delete", vfs).message(), HasSubstr("w.page_size: 3000 bytes"));
  EXPECT_THAT(ValidateSqliteKeys("w", 4096, "d", "delete", vfs).message(), HasSubstr("w.dir: 'd' is not an absolute path"));
  SqliteVfsConfig tx = vfs;
  tx.fs_transactions = true;
  EXPECT_TRUE(ValidateSqliteKeys("w", 4096, "/d", "memory", tx).ok());
  EXPECT_TRUE(ValidateSqliteKeys("w", 4096, "/d", "off", tx).ok());
  EXPECT_THAT(ValidateSqliteKeys("w", 4096, "/d", "persist", tx).message(),
              HasSubstr("w.vfs.fs_transactions: needs journal_mode memory or off"));
  EXPECT_EQ(AsciiUpper("wal2_x"), "WAL2_X");
}

}  // namespace
}  // namespace host::sqlite
