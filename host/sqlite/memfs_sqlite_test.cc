// Mobibench SQLite on the project's in-memory file system (fs/memfs).

#include <string>

#include <gtest/gtest.h>

#include "fs/memfs/mem_fs.h"
#include "host/sqlite/mobibench.h"
#include "host/sqlite/sqlite_db.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/stats.h"

namespace host::sqlite {
namespace {

class MemFsMobibenchTest : public ::testing::TestWithParam<std::string> {};

TEST_P(MemFsMobibenchTest, RunsAndLeavesAnIntactDatabase) {
  sim::EventQueue q;
  sim::StatsRegistry stats;
  fs::MemFs memfs(&q, sim::MakeDefault<fs::MemFsConfig>());
  MobibenchConfig cfg = sim::MakeDefault<MobibenchConfig>();
  cfg.operation = "update";
  cfg.journal_mode = GetParam();
  cfg.transactions = 20;
  cfg.tables = 2;
  cfg.databases = 2;
  auto w = MobibenchSqlite::Create(cfg, {&q, &memfs, stats.Root().Group("sqlite"), 3});
  ASSERT_TRUE(w.ok()) << w.status().message();
  MobibenchSqlite& bench = **w;
  bench.Start();
  q.Run();
  ASSERT_TRUE(bench.done());
  ASSERT_TRUE(bench.status().ok()) << bench.status().message();
  EXPECT_EQ(bench.txns(), 20u);
  EXPECT_GT(bench.measured_time(), sim::SimTime::Zero());
  bench.runtime().Spawn("inspect", [&] {
    for (uint32_t k = 0; k < 2; ++k) {
      auto db = SqliteDb::Open(&bench.vfs(), bench.DbPath(0, k), /*create=*/false);
      ASSERT_TRUE(db.ok()) << db.status().message();
      EXPECT_EQ((*db)->QueryText("PRAGMA integrity_check;").value(), "ok");
      EXPECT_EQ((*db)->QueryInt("SELECT count(*) FROM tblMyList1;").value(), 20);
      EXPECT_TRUE((*db)->Close().ok());
    }
  });
  q.Run();
  EXPECT_EQ(bench.runtime().live_fibers(), 0u);
}

INSTANTIATE_TEST_SUITE_P(JournalModes, MemFsMobibenchTest,
                         ::testing::Values("delete", "truncate", "persist", "wal", "memory", "off"));

}  // namespace
}  // namespace host::sqlite

