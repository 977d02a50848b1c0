// YCSB on SQLite end to end: on the in-memory file system (fs/memfs) and
// on the test double that counts every call (testing_fs.h). The F2FS runs
// are in tests/presets_test.cc (the shipped configs on the whole stack).
#include "host/sqlite/ycsb.h"

#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fs/memfs/mem_fs.h"
#include "host/sqlite/sqlite_db.h"
#include "host/sqlite/testing_fs.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/stats.h"

namespace host::sqlite {
namespace {

using ::testing::HasSubstr;

std::string Shipped(const std::string& w) {
  return std::string(FLASHSTACK_SOURCE_DIR) + "/configs/ycsb/workloads/" + w;
}

YcsbConfig Config(const std::string& workload, std::vector<std::string> set = {}) {
  YcsbConfig c = sim::MakeDefault<YcsbConfig>();
  c.properties = Shipped(workload);
  c.set = std::move(set);
  return c;
}

// One YCSB run on file system F, and a look at the database afterwards.
template <class F>
struct Run {
  Run(const YcsbConfig& cfg, uint64_t seed = 1) : fs(MakeFs()) {
    YcsbSqlite::Env env{&q, fs.get(), stats.Root().Group("workload"), seed};
    auto w = YcsbSqlite::Create(cfg, env, "workload.ycsb");
    EXPECT_TRUE(w.ok()) << w.status().message();
    if (!w.ok()) return;
    ycsb = std::move(w).value();
    bool called = false;
    ycsb->Start([&] { called = true; });
    q.Run();
    EXPECT_TRUE(called);
    EXPECT_TRUE(ycsb->done());
    EXPECT_TRUE(ycsb->status().ok()) << ycsb->status().message();
  }
  std::unique_ptr<F> MakeFs() {
    if constexpr (std::is_same_v<F, fs::MemFs>) {
      return std::make_unique<fs::MemFs>(&q, sim::MakeDefault<fs::MemFsConfig>());
    } else {
      return std::make_unique<F>(&q);
    }
  }

  void Inspect(const std::function<void(SqliteDb&)>& body) {
    ycsb->runtime().Spawn("inspect", [&] {
      auto db = SqliteDb::Open(&ycsb->vfs(), ycsb->DbPath(), /*create=*/false);
      ASSERT_TRUE(db.ok()) << db.status().message();
      body(**db);
      EXPECT_TRUE((*db)->Close().ok());
    });
    q.Run();
  }
  int64_t Rows() {
    int64_t n = -1;
    Inspect([&](SqliteDb& db) {
      EXPECT_EQ(db.QueryText("PRAGMA integrity_check;").value(), "ok");
      n = db.QueryInt("SELECT count(*) FROM usertable;").value();
    });
    return n;
  }
  std::string StatsJson() const {
    std::ostringstream out;
    stats.WriteJson(out);
    return out.str();
  }
  uint64_t Count(YcsbOp op) const { return ycsb->latency(op).count(); }

  sim::EventQueue q;
  sim::StatsRegistry stats;
  std::unique_ptr<F> fs;
  std::unique_ptr<YcsbSqlite> ycsb;
};

using MemRun = Run<fs::MemFs>;
using CountingRun = Run<testing::TestingFs>;

// Within 5 standard deviations of a binomial count.
void ExpectShare(uint64_t got, uint64_t n, double p, const char* what) {
  const double sd = std::sqrt(static_cast<double>(n) * p * (1 - p));
  EXPECT_NEAR(static_cast<double>(got), static_cast<double>(n) * p, 5 * sd + 1) << what;
}

TEST(YcsbConfigTest, InClassValuesAreTheDeclaredDefaults) {
  const YcsbConfig d = sim::MakeDefault<YcsbConfig>();
  const YcsbConfig c;
  EXPECT_EQ(c.properties, d.properties);
  EXPECT_EQ(c.set, d.set);
  EXPECT_EQ(c.recordcount, d.recordcount);
  EXPECT_EQ(c.operationcount, d.operationcount);
  EXPECT_EQ(c.threadcount, d.threadcount);
  EXPECT_EQ(c.load_batch, d.load_batch);
  EXPECT_EQ(c.count_rows, d.count_rows);
  EXPECT_EQ(c.dir, d.dir);
  EXPECT_EQ(c.journal_mode, d.journal_mode);
  EXPECT_EQ(c.synchronous, d.synchronous);
  EXPECT_EQ(c.page_size, d.page_size);
  EXPECT_EQ(c.cpu_per_statement, d.cpu_per_statement);
  EXPECT_EQ(c.busy_timeout, d.busy_timeout);
  EXPECT_EQ(c.fiber_stack, d.fiber_stack);
  // SQLite's own defaults.
  EXPECT_EQ(d.journal_mode, "delete");
  EXPECT_EQ(d.synchronous, "full");
}

TEST(YcsbConfigTest, ResolveChecksTheKeysAndTheProperties) {
  YcsbConfig c = Config("workloada");
  c.page_size = sim::Bytes{3000};
  EXPECT_THAT(c.Resolve("workload.ycsb").status().message(), HasSubstr("workload.ycsb.page_size: 3000 bytes"));
  c = Config("workloada", {"requestdistribution=sideways"});
  EXPECT_THAT(c.Resolve("workload.ycsb").status().message(), HasSubstr("workload.ycsb.set: requestdistribution"));
  c.properties = "/nonexistent/workloada";
  EXPECT_THAT(c.Resolve("workload.ycsb").status().message(), HasSubstr("/nonexistent/workloada: cannot read"));
}

// Workload A on memfs: the mix matches the proportions, every read finds
// its record, updates change one field each, the table keeps its rows.
TEST(YcsbTest, WorkloadAOnMemfs) {
  MemRun r(Config("workloada"));
  ASSERT_TRUE(r.ycsb);
  const YcsbSqlite& y = *r.ycsb;
  EXPECT_EQ(y.ops(), 1000u);
  EXPECT_EQ(y.load_records(), 1000u);
  EXPECT_EQ(r.Count(YcsbOp::kRead) + r.Count(YcsbOp::kUpdate), 1000u);
  ExpectShare(r.Count(YcsbOp::kRead), 1000, 0.5, "reads");
  EXPECT_EQ(r.Count(YcsbOp::kInsert) + r.Count(YcsbOp::kScan) + r.Count(YcsbOp::kReadModifyWrite), 0u);
  EXPECT_EQ(y.not_found(YcsbOp::kRead), 0u) << "every read finds its record";
  EXPECT_EQ(y.not_found(YcsbOp::kUpdate), 0u);
  EXPECT_EQ(y.failed(YcsbOp::kRead) + y.failed(YcsbOp::kUpdate), 0u);
  EXPECT_GT(y.OpsPerSec(), 0);
  EXPECT_GT(y.FsyncsPerOp(), 1.0) << "DELETE + FULL: every update syncs the journal, its directory, the database";
  EXPECT_GT(y.BytesWrittenPerOp(), 1000);
  EXPECT_EQ(r.stats.Value("workload.ops"), 1000);
  EXPECT_EQ(r.stats.Value("workload.load.records"), 1000);
  EXPECT_EQ(r.Rows(), 1000);
  r.Inspect([&](SqliteDb& db) {
    // The schema of YCSB's JDBC binding, the page size, hashed keys.
    const std::string sql = db.QueryText("SELECT sql FROM sqlite_master WHERE name = 'usertable';").value();
    EXPECT_THAT(sql, HasSubstr("YCSB_KEY VARCHAR PRIMARY KEY, FIELD0 TEXT"));
    EXPECT_THAT(sql, HasSubstr("FIELD9 TEXT)"));
    EXPECT_EQ(db.QueryInt("PRAGMA page_size;").value(), 4096);
    EXPECT_EQ(db.QueryInt("SELECT count(*) FROM usertable WHERE YCSB_KEY = 'user6284781860667377211';").value(), 1);
    EXPECT_EQ(db.QueryInt("SELECT min(length(FIELD3)) FROM usertable;").value(), 100);
    EXPECT_EQ(db.QueryInt("SELECT max(length(FIELD3)) FROM usertable;").value(), 100);
  });
  EXPECT_EQ(r.ycsb->vfs().open_files(), 0);
  EXPECT_THAT(y.Summary(), HasSubstr("ycsb       1000 operations, 1 thread:"));
  EXPECT_THAT(y.Summary(), HasSubstr("  UPDATE            n="));
}

// Inserts grow the key space: the table ends with recordcount + inserts
// rows, and reads (of acknowledged keys only) all find their record.
TEST(YcsbTest, InsertsGrowTheTable) {
  for (const char* w : {"workloadd", "workloade"}) {
    YcsbConfig c = Config(w, {"operationcount=600"});
    c.count_rows = true;
    MemRun r(c);
    ASSERT_TRUE(r.ycsb);
    const uint64_t inserts = r.Count(YcsbOp::kInsert);
    ExpectShare(inserts, 600, 0.05, w);
    EXPECT_GT(inserts, 0u) << w;
    EXPECT_EQ(r.ycsb->failed(YcsbOp::kInsert), 0u) << w;
    EXPECT_EQ(r.ycsb->rows(), static_cast<int64_t>(1000 + inserts)) << w;
    EXPECT_EQ(r.stats.Value("workload.rows"), static_cast<double>(1000 + inserts)) << w;
    EXPECT_EQ(r.Rows(), static_cast<int64_t>(1000 + inserts)) << w;
    EXPECT_EQ(r.ycsb->not_found(YcsbOp::kRead), 0u) << w;
  }
  MemRun e(Config("workloade", {"operationcount=300"}));
  ASSERT_TRUE(e.ycsb);
  const uint64_t scans = e.Count(YcsbOp::kScan);
  ExpectShare(scans, 300, 0.95, "scans");
  // Uniform lengths 1..100 from keys spread over the table: about 50 rows.
  EXPECT_GT(e.ycsb->scan_rows(), 30 * scans);
  EXPECT_LT(e.ycsb->scan_rows(), 60 * scans);
}

// Workload F: reads and read-modify-writes; as in YCSB's report, READ and
// UPDATE include the halves of every read-modify-write.
TEST(YcsbTest, ReadModifyWriteCountsAsYcsbReportsIt) {
  MemRun r(Config("workloadf", {"operationcount=500"}));
  ASSERT_TRUE(r.ycsb);
  const uint64_t rmw = r.Count(YcsbOp::kReadModifyWrite);
  ExpectShare(rmw, 500, 0.5, "read-modify-writes");
  EXPECT_EQ(r.Count(YcsbOp::kRead), 500u) << "plain reads + the reads of the read-modify-writes";
  EXPECT_EQ(r.Count(YcsbOp::kUpdate), rmw);
  EXPECT_EQ(r.ycsb->not_found(YcsbOp::kReadModifyWrite), 0u);
  EXPECT_GE(r.ycsb->latency(YcsbOp::kReadModifyWrite).mean(), r.ycsb->latency(YcsbOp::kUpdate).mean());
}

// Workload C only reads: the database file and the journals are never
// written, and nothing is synced, in the measured window.
TEST(YcsbTest, ReadOnlyWorkloadWritesNoDatabasePage) {
  for (const char* journal : {"delete", "wal"}) {
    YcsbConfig c = Config("workloadc");
    c.journal_mode = journal;
    CountingRun r(c);
    ASSERT_TRUE(r.ycsb);
    const VfsCounts& m = r.ycsb->measured();
    EXPECT_EQ(r.Count(YcsbOp::kRead), 1000u);
    EXPECT_EQ(m.TotalBytesWritten(), 0u) << journal;
    EXPECT_EQ(m.of(FileKind::kDb).writes, 0u) << journal;
    EXPECT_EQ(m.TotalSyncs(), 0u) << journal;
    EXPECT_EQ(r.ycsb->FsyncsPerOp(), 0.0);
    EXPECT_GT(r.ycsb->load_window().counts().TotalBytesWritten(), 1000u * 1000u) << "the load wrote the records";
  }
}

// Same config and seed: byte-identical statistics and database; another
// seed: other keys and values.
TEST(YcsbTest, SameSeedSameBytes) {
  auto once = [](uint64_t seed) {
    YcsbConfig c = Config("workloada", {"operationcount=300", "threadcount=3", "insertproportion=0.1"});
    c.journal_mode = "wal";
    CountingRun r(c, seed);
    return std::make_pair(r.StatsJson(), r.fs->Content("/ycsb/ycsb.db"));
  };
  const auto a = once(7), b = once(7), c = once(8);
  EXPECT_EQ(a.first, b.first) << "stats.json";
  EXPECT_EQ(a.second, b.second) << "database file";
  EXPECT_NE(a.second, c.second);
  EXPECT_NE(a.first, c.first);
}

// Threads share one database, each with its own connection: all the work
// gets done, lock conflicts wait in the busy handler in simulated time.
TEST(YcsbTest, ThreadsShareOneDatabase) {
  for (const char* journal : {"delete", "wal"}) {
    YcsbConfig c = Config("workloada", {"operationcount=400", "insertproportion=0.1"});
    c.threadcount = 4;
    c.journal_mode = journal;
    c.count_rows = true;
    c.busy_timeout = sim::Sec(60);
    MemRun r(c);
    ASSERT_TRUE(r.ycsb);
    EXPECT_EQ(r.ycsb->ops(), 400u) << journal;
    EXPECT_EQ(r.ycsb->spec().threads, 4u);
    uint64_t failed = 0;
    for (int i = 0; i < kYcsbOps; ++i) failed += r.ycsb->failed(static_cast<YcsbOp>(i));
    EXPECT_EQ(failed, 0u) << journal << ": a 60 s busy timeout outlasts every conflict";
    EXPECT_EQ(r.ycsb->rows(), static_cast<int64_t>(1000 + r.Count(YcsbOp::kInsert))) << journal;
    EXPECT_GT(r.ycsb->vfs().Snapshot().busy, 0u) << journal << ": connections met each other's locks";
    EXPECT_EQ(r.ycsb->not_found(YcsbOp::kRead), 0u) << journal;
  }
}

TEST(YcsbTest, DataIntegrityChecksEveryRead) {
  for (const char* fields : {"readallfields=true", "readallfields=false"}) {
    MemRun r(Config("workloada", {"dataintegrity=true", "operationcount=300", fields}));
    ASSERT_TRUE(r.ycsb);
    EXPECT_EQ(r.stats.Value("workload.verify.ok"), static_cast<double>(r.Count(YcsbOp::kRead))) << fields;
    EXPECT_EQ(r.ycsb->verify_bad(), 0u) << fields;
  }
}

TEST(YcsbTest, LoadBatchesAndLoadOnly) {
  YcsbConfig c = Config("workloada", {"dotransactions=false", "recordcount=200"});
  c.load_batch = 1;
  CountingRun one(c);
  ASSERT_TRUE(one.ycsb);
  EXPECT_EQ(one.ycsb->ops(), 0u);
  EXPECT_EQ(one.ycsb->load_records(), 200u);
  c.load_batch = 50;
  CountingRun batched(c);
  ASSERT_TRUE(batched.ycsb);
  EXPECT_EQ(batched.ycsb->load_records(), 200u);
  EXPECT_EQ(batched.stats.FindHistogram("workload.load.batch.lat")->count(), 4u);
  const double per_record_1 = one.stats.Value("workload.load.fsyncs_per_record");
  const double per_record_50 = batched.stats.Value("workload.load.fsyncs_per_record");
  EXPECT_GE(per_record_1, 3.0) << "each autocommit insert syncs";
  EXPECT_NEAR(per_record_50 * 50, per_record_1, 0.5) << "a transaction of 50 syncs as one insert does";
  EXPECT_EQ(one.Rows(), 200);
  EXPECT_EQ(batched.Rows(), 200);
}

// Found by the randomized-input driver: a load-only run of an empty table
// built the key chooser over no keys.
TEST(YcsbTest, EmptyLoadOnlyRun) {
  CountingRun r(Config("workloadd", {"recordcount=0", "dotransactions=false"}));
  ASSERT_TRUE(r.ycsb);
  EXPECT_EQ(r.ycsb->load_records(), 0u);
  EXPECT_EQ(r.ycsb->ops(), 0u);
  EXPECT_EQ(r.Rows(), 0);
}

TEST(YcsbTest, InsertOnlyRunStartsEmpty) {
  YcsbConfig c = Config("workloada", {"recordcount=0", "readproportion=0", "updateproportion=0",
                                      "insertproportion=1", "operationcount=50", "insertorder=ordered",
                                      "zeropadding=6"});
  MemRun r(c);
  ASSERT_TRUE(r.ycsb);
  EXPECT_EQ(r.ycsb->load_records(), 0u);
  EXPECT_EQ(r.Count(YcsbOp::kInsert), 50u);
  EXPECT_EQ(r.Rows(), 50);
  r.Inspect([](SqliteDb& db) {
    EXPECT_EQ(db.QueryText("SELECT min(YCSB_KEY) FROM usertable;").value(), "user000000");
    EXPECT_EQ(db.QueryText("SELECT max(YCSB_KEY) FROM usertable;").value(), "user000049");
  });
}

// target paces the run (YCSB's throttle); maxexecutiontime ends an
// unbounded one.
TEST(YcsbTest, TargetAndMaxExecutionTime) {
  MemRun paced(Config("workloadc", {"operationcount=200", "target=100", "threadcount=2"}));
  ASSERT_TRUE(paced.ycsb);
  EXPECT_NEAR(paced.ycsb->OpsPerSec(), 100, 2);
  MemRun timed(Config("workloadc", {"operationcount=0", "maxexecutiontime=1", "target=50"}));
  ASSERT_TRUE(timed.ycsb);
  EXPECT_NEAR(static_cast<double>(timed.ycsb->ops()), 50, 2);
  EXPECT_LE(timed.ycsb->measured_time(), sim::Sec(1.03));
}

TEST(YcsbTest, CpuPerStatementAddsSimulatedTime) {
  MemRun base(Config("workloadc", {"operationcount=100"}));
  YcsbConfig c = Config("workloadc", {"operationcount=100"});
  c.cpu_per_statement = sim::Us(100);
  MemRun slow(c);
  ASSERT_TRUE(base.ycsb && slow.ycsb);
  EXPECT_EQ(slow.ycsb->measured_time() - base.ycsb->measured_time(), sim::Ms(10));
}

// A run stopped mid-way (a time limit) is destroyed cleanly.
TEST(YcsbTest, RunCutShortCanBeDestroyed) {
  for (const char* journal : {"wal", "delete"}) {
    sim::EventQueue q;
    sim::StatsRegistry stats;
    testing::TestingFs fs(&q);
    YcsbConfig c = Config("workloada", {"operationcount=100000"});
    c.threadcount = 3;
    c.journal_mode = journal;
    auto w = YcsbSqlite::Create(c, {&q, &fs, stats.Root().Group("workload"), 1}, "workload.ycsb");
    ASSERT_TRUE(w.ok()) << w.status().message();
    std::unique_ptr<YcsbSqlite> y = std::move(w).value();
    y->Start();
    q.Run(sim::Ms(300));
    ASSERT_FALSE(y->done()) << journal;
    EXPECT_GT(y->ops(), 0u) << journal;
    const SqliteVfs* vfs = &y->vfs();
    y->runtime().Shutdown();
    EXPECT_EQ(vfs->open_files(), 0) << journal;
    y.reset();
    EXPECT_TRUE(q.empty()) << journal;
  }
}

}  // namespace
}  // namespace host::sqlite
