#include "host/sqlite/sqlite_vfs.h"

#include <sqlite3.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "host/sqlite/fiber.h"
#include "host/sqlite/sqlite_db.h"
#include "host/sqlite/testing_fs.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/stats.h"

namespace host::sqlite {
namespace {

// A simulation with the test file system, a fiber runtime and the VFS.
struct Rig {
  explicit Rig(SqliteVfsConfig cfg = sim::MakeDefault<SqliteVfsConfig>())
      : fs(&q), rt(&q), vfs(&rt, &fs, cfg, /*seed=*/7, stats.Root().Group("vfs")) {}

  // Runs `body` on a fiber until the queue is empty.
  void Run(std::function<void()> body) {
    rt.Spawn("test", std::move(body));
    q.Run();
    ASSERT_EQ(rt.live_fibers(), 0u) << "a fiber is blocked forever";
  }
  std::unique_ptr<SqliteDb> Open(const std::string& path) {
    auto db = SqliteDb::Open(&vfs, path);
    EXPECT_TRUE(db.ok()) << db.status().message();
    return db.ok() ? std::move(db).value() : nullptr;
  }

  sim::EventQueue q;
  sim::StatsRegistry stats;
  testing::TestingFs fs;
  FiberRuntime rt;
  SqliteVfs vfs;
};

#define EXPECT_OK(expr)                        \
  do {                                         \
    const ::sim::Status _s = (expr);           \
    EXPECT_TRUE(_s.ok()) << _s.message();      \
  } while (0)

TEST(SqliteVfsTest, RoundTripThroughTheFileSystem) {
  Rig r;
  r.Run([&] {
    auto db = r.Open("/t.db");
    ASSERT_TRUE(db);
    EXPECT_OK(db->Exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);"));
    EXPECT_OK(db->Exec("BEGIN;"));
    for (int i = 0; i < 200; ++i) {
      EXPECT_OK(db->Exec("INSERT INTO t(v) VALUES('" + std::string(300, static_cast<char>('a' + i % 26)) + "');"));
    }
    EXPECT_OK(db->Exec("COMMIT;"));
    EXPECT_OK(db->Close());

    auto again = r.Open("/t.db");
    ASSERT_TRUE(again);
    EXPECT_EQ(again->QueryInt("SELECT count(*) FROM t;").value(), 200);
    EXPECT_EQ(again->QueryText("PRAGMA integrity_check;").value(), "ok");
    EXPECT_EQ(again->QueryText("SELECT substr(v, 1, 3) FROM t WHERE id = 28;").value(), "bbb");
    EXPECT_OK(again->Close());
  });
  EXPECT_GT(r.q.now(), sim::SimTime::Zero());
  std::vector<uint8_t> file = r.fs.Content("/t.db");
  ASSERT_GE(file.size(), 4096u * 10);
  EXPECT_EQ(file.size() % 4096, 0u);
  EXPECT_EQ(std::string(file.begin(), file.begin() + 15), "SQLite format 3");
  EXPECT_EQ(r.vfs.open_files(), 0);
  EXPECT_EQ(r.fs.open_fds(), 0u);
  const VfsCounts c = r.vfs.Snapshot();
  EXPECT_GT(c.of(FileKind::kDb).bytes_written, 4096u * 10);
  EXPECT_EQ(c.of(FileKind::kDb).bytes_written % 4096, 0u) << "SQLite writes whole pages";
  EXPECT_EQ(r.stats.Value("vfs.db.opens"), 2.0);
}

// The rollback-journal commit of one autocommit INSERT, counted per file.
struct CommitIo {
  VfsCounts d;
  bool journal_exists = false;
  uint64_t journal_size = 0;
  std::vector<uint8_t> journal;
};

CommitIo OneInsert(const std::string& mode, const std::string& sync) {
  Rig r;
  CommitIo out;
  r.Run([&] {
    auto db = r.Open("/j.db");
    ASSERT_TRUE(db);
    EXPECT_OK(db->Exec("PRAGMA journal_mode=" + mode + "; PRAGMA synchronous=" + sync + ";"));
    EXPECT_OK(db->Exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);"));
    EXPECT_OK(db->Exec("INSERT INTO t(v) VALUES('warm');"));
    const VfsCounts before = r.vfs.Snapshot();
    EXPECT_OK(db->Exec("INSERT INTO t(v) VALUES('x');"));
    out.d = r.vfs.Snapshot().Minus(before);
    out.journal_exists = r.fs.Exists("/j.db-journal");
    out.journal = r.fs.Content("/j.db-journal");
    out.journal_size = out.journal.size();
    EXPECT_OK(db->Close());
  });
  return out;
}

// The calls one autocommit INSERT makes, as strace shows them for Debian's
// sqlite3 3.40.1 CLI on Linux (open/fdatasync/ftruncate/unlink; the
// directory is opened and synced after the journal is created).
std::vector<std::string> CommitCalls(const std::string& mode) {
  Rig r;
  std::vector<std::string> calls;
  r.Run([&] {
    auto db = r.Open("/j.db");
    ASSERT_TRUE(db);
    EXPECT_OK(db->Exec("PRAGMA journal_mode=" + mode + "; PRAGMA synchronous=FULL;"));
    EXPECT_OK(db->Exec("CREATE TABLE t(id INTEGER PRIMARY KEY autoincrement, v TEXT);"));
    EXPECT_OK(db->Exec("INSERT INTO t(v) VALUES('a');"));
    r.fs.set_logging(true);
    EXPECT_OK(db->Exec("INSERT INTO t(v) VALUES('x');"));
    r.fs.set_logging(false);
    EXPECT_OK(db->Close());
  });
  for (const std::string& l : r.fs.log()) {
    if (l.rfind("pwrite", 0) != 0 && l.rfind("close", 0) != 0) calls.push_back(l);
  }
  return calls;
}

TEST(SqliteVfsTest, CommitCallsMatchSqlitesUnixVfsOnLinux) {
  EXPECT_EQ(CommitCalls("DELETE"),
            (std::vector<std::string>{"open /j.db-journal", "fdatasync /j.db-journal", "open /", "fdatasync /",
                                      "fdatasync /j.db-journal", "fdatasync /j.db", "unlink /j.db-journal"}));
  EXPECT_EQ(CommitCalls("TRUNCATE"),
            (std::vector<std::string>{"open /j.db-journal", "fdatasync /j.db-journal", "open /", "fdatasync /",
                                      "fdatasync /j.db-journal", "fdatasync /j.db", "ftruncate /j.db-journal 0",
                                      "fdatasync /j.db-journal"}));
  // PERSIST first opens the left-over journal read-only to check for a hot
  // journal, then for writing; at commit it zeroes the header and syncs.
  EXPECT_EQ(CommitCalls("PERSIST"),
            (std::vector<std::string>{"open /j.db-journal", "open /j.db-journal", "fdatasync /j.db-journal", "open /",
                                      "fdatasync /", "fdatasync /j.db-journal", "fdatasync /j.db",
                                      "fdatasync /j.db-journal"}));
}

TEST(SqliteVfsTest, DeleteModeCommitSyncsJournalTwiceDirectoryOnceDatabaseOnce) {
  CommitIo io = OneInsert("DELETE", "FULL");
  EXPECT_EQ(io.d.of(FileKind::kJournal).opens, 1u);
  EXPECT_EQ(io.d.of(FileKind::kJournal).syncs, 2u);  // content, then header with the page count
  EXPECT_EQ(io.d.of(FileKind::kDir).syncs, 1u);      // after creating the journal
  EXPECT_EQ(io.d.of(FileKind::kDb).syncs, 1u);
  EXPECT_EQ(io.d.of(FileKind::kJournal).deletes, 1u);
  EXPECT_FALSE(io.journal_exists);
}

TEST(SqliteVfsTest, TruncateModeLeavesAnEmptyJournal) {
  CommitIo io = OneInsert("TRUNCATE", "FULL");
  EXPECT_TRUE(io.journal_exists);
  EXPECT_EQ(io.journal_size, 0u);
  EXPECT_GE(io.d.of(FileKind::kJournal).truncates, 1u);
  EXPECT_EQ(io.d.of(FileKind::kJournal).deletes, 0u);
  // The pager closes the journal when it drops its lock and reopens it with
  // O_CREAT for the next transaction; the unix VFS marks every journal
  // opened with SQLITE_OPEN_CREATE for a directory sync, existing or not.
  EXPECT_EQ(io.d.of(FileKind::kJournal).opens, 1u);
  EXPECT_EQ(io.d.of(FileKind::kDir).syncs, 1u);
}

TEST(SqliteVfsTest, PersistModeZeroesTheJournalHeader) {
  CommitIo io = OneInsert("PERSIST", "FULL");
  EXPECT_TRUE(io.journal_exists);
  ASSERT_GT(io.journal_size, 28u);
  for (int i = 0; i < 28; ++i) EXPECT_EQ(io.journal[i], 0) << "header byte " << i;
  EXPECT_EQ(io.d.of(FileKind::kJournal).deletes + io.d.of(FileKind::kJournal).truncates, 0u);
}

TEST(SqliteVfsTest, WalCommitSyncsOnlyTheWal) {
  CommitIo full = OneInsert("WAL", "FULL");
  EXPECT_EQ(full.d.of(FileKind::kWal).syncs, 1u);
  EXPECT_EQ(full.d.of(FileKind::kDb).syncs, 0u);
  EXPECT_EQ(full.d.of(FileKind::kJournal).opens, 0u);
  EXPECT_GT(full.d.of(FileKind::kWal).bytes_written, 4096u);  // frame header + page
  CommitIo normal = OneInsert("WAL", "NORMAL");
  EXPECT_EQ(normal.d.TotalSyncs(), 0u);
  CommitIo off = OneInsert("DELETE", "OFF");
  EXPECT_EQ(off.d.TotalSyncs(), 0u);
}

TEST(SqliteVfsTest, FsyncCallIsConfigurable) {
  SqliteVfsConfig cfg = sim::MakeDefault<SqliteVfsConfig>();
  cfg.sync_call = "fsync";
  Rig r(cfg);
  r.Run([&] {
    auto db = r.Open("/s.db");
    ASSERT_TRUE(db);
    EXPECT_OK(db->Exec("PRAGMA journal_mode=DELETE; CREATE TABLE t(x);"));
    EXPECT_OK(db->Close());
  });
  EXPECT_GT(r.fs.counts().fsyncs, 0u);
  EXPECT_EQ(r.fs.counts().fdatasyncs, 0u);
  EXPECT_GT(r.fs.counts().dir_syncs, 0u);
}

TEST(SqliteVfsTest, WalIndexIsSharedBetweenConnectionsAndWalIsFoldedBackOnClose) {
  Rig r;
  r.Run([&] {
    auto a = r.Open("/w.db");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->QueryText("PRAGMA journal_mode=WAL;").value(), "wal");
    EXPECT_OK(a->Exec("CREATE TABLE t(x); INSERT INTO t VALUES(1),(2),(3);"));
    EXPECT_TRUE(r.fs.Exists("/w.db-wal"));
    auto b = r.Open("/w.db");
    ASSERT_TRUE(b);
    EXPECT_EQ(b->QueryInt("SELECT sum(x) FROM t;").value(), 6);
    EXPECT_OK(b->Exec("INSERT INTO t VALUES(10);"));
    EXPECT_EQ(a->QueryInt("SELECT sum(x) FROM t;").value(), 16);
    EXPECT_OK(b->Close());
    EXPECT_OK(a->Close());
    EXPECT_FALSE(r.fs.Exists("/w.db-wal")) << "the last close checkpoints and deletes the WAL";
    auto c = r.Open("/w.db");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->QueryInt("SELECT sum(x) FROM t;").value(), 16);
    EXPECT_EQ(c->QueryText("PRAGMA integrity_check;").value(), "ok");
    EXPECT_OK(c->Close());
  });
}

TEST(SqliteVfsTest, LocksFollowSqliteRulesAcrossConnections) {
  Rig r;
  r.Run([&] {
    auto a = r.Open("/l.db");
    auto b = r.Open("/l.db");
    ASSERT_TRUE(a && b);
    EXPECT_OK(a->Exec("PRAGMA journal_mode=DELETE; CREATE TABLE t(x);"));
    EXPECT_OK(a->Exec("BEGIN IMMEDIATE; INSERT INTO t VALUES(1);"));  // RESERVED
    // A second writer is refused; a reader still reads the committed state.
    EXPECT_EQ(sqlite3_exec(b->handle(), "BEGIN IMMEDIATE;", nullptr, nullptr, nullptr), SQLITE_BUSY);
    EXPECT_EQ(b->QueryInt("SELECT count(*) FROM t;").value(), 0);
    // A reader holding SHARED (an unfinished statement) blocks the commit.
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(b->handle(), "SELECT x FROM t;", -1, &st, nullptr), SQLITE_OK);
    EXPECT_EQ(sqlite3_step(st), SQLITE_DONE);  // statement done, but b's read txn ends only at reset
    sqlite3_stmt* st2 = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(b->handle(), "SELECT count(*) FROM sqlite_schema;", -1, &st2, nullptr),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_step(st2), SQLITE_ROW);  // b holds SHARED now
    EXPECT_EQ(sqlite3_exec(a->handle(), "COMMIT;", nullptr, nullptr, nullptr), SQLITE_BUSY);
    // A's failed EXCLUSIVE left it at PENDING: no new reader gets in.
    auto c = r.Open("/l.db");
    ASSERT_TRUE(c);
    EXPECT_EQ(sqlite3_exec(c->handle(), "SELECT count(*) FROM t;", nullptr, nullptr, nullptr), SQLITE_BUSY);
    sqlite3_finalize(st2);
    sqlite3_finalize(st);
    EXPECT_OK(a->Exec("COMMIT;"));
    EXPECT_EQ(b->QueryInt("SELECT count(*) FROM t;").value(), 1);
    EXPECT_EQ(c->QueryInt("SELECT count(*) FROM t;").value(), 1);
    EXPECT_OK(c->Close());
    EXPECT_OK(b->Close());
    EXPECT_OK(a->Close());
  });
  EXPECT_GE(r.vfs.Snapshot().busy, 3u);
}

TEST(SqliteVfsTest, BusyHandlerWaitsInSimulatedTime) {
  Rig r;
  sim::SimTime b_got_lock;
  std::unique_ptr<SqliteDb> a, b;
  r.rt.Spawn("a", [&] {
    a = r.Open("/b.db");
    EXPECT_OK(a->Exec("CREATE TABLE t(x); BEGIN IMMEDIATE; INSERT INTO t VALUES(1);"));
    r.rt.Sleep(sim::Ms(30));  // hold RESERVED for 30 ms of simulated time
    EXPECT_OK(a->Exec("COMMIT;"));
  });
  r.rt.Spawn("b", [&] {
    r.rt.Sleep(sim::Ms(1));
    b = r.Open("/b.db");
    sqlite3_busy_timeout(b->handle(), 1000);
    EXPECT_OK(b->Exec("BEGIN IMMEDIATE; INSERT INTO t VALUES(2); COMMIT;"));
    b_got_lock = r.q.now();
    EXPECT_EQ(b->QueryInt("SELECT sum(x) FROM t;").value(), 3);
  });
  r.q.Run();
  EXPECT_EQ(r.rt.live_fibers(), 0u);
  EXPECT_GE(b_got_lock, sim::Ms(30));
  EXPECT_LT(b_got_lock, sim::Ms(130));
  EXPECT_GT(r.vfs.Snapshot().sleeps, 0u);
  r.Run([&] {
    EXPECT_OK(a->Close());
    EXPECT_OK(b->Close());
  });
}

TEST(SqliteVfsTest, SuperJournalForATransactionOverAttachedDatabases) {
  Rig r;
  r.Run([&] {
    auto db = r.Open("/m.db");
    ASSERT_TRUE(db);
    EXPECT_OK(db->Exec("ATTACH DATABASE '/m2.db' AS two;"));
    EXPECT_OK(db->Exec("PRAGMA main.journal_mode=DELETE; PRAGMA two.journal_mode=DELETE;"));
    EXPECT_OK(db->Exec("CREATE TABLE main.a(x); CREATE TABLE two.b(y);"));
    const VfsCounts before = r.vfs.Snapshot();
    EXPECT_OK(db->Exec("BEGIN; INSERT INTO a VALUES(1); INSERT INTO b VALUES(2); COMMIT;"));
    const VfsCounts d = r.vfs.Snapshot().Minus(before);
    EXPECT_EQ(d.of(FileKind::kSuperJournal).opens, 1u);
    EXPECT_GE(d.of(FileKind::kSuperJournal).syncs, 1u);
    EXPECT_EQ(d.of(FileKind::kSuperJournal).deletes, 1u);
    EXPECT_EQ(d.of(FileKind::kJournal).opens, 2u);
    EXPECT_EQ(d.of(FileKind::kDb).syncs, 2u);
    EXPECT_OK(db->Close());
    auto two = r.Open("/m2.db");
    EXPECT_EQ(two->QueryInt("SELECT y FROM b;").value(), 2);
    EXPECT_OK(two->Close());
  });
  auto names = r.fs.Exists("/m.db") && r.fs.Exists("/m2.db");
  EXPECT_TRUE(names);
}

// fs_transactions: one SQLite transaction over three databases is one
// file-system transaction: the files join one set when they take their
// write locks, no journal or super-journal is written, no member is synced,
// and the commit comes once, after every database's pages are written.
SqliteVfsConfig TxConfig() {
  SqliteVfsConfig c = sim::MakeDefault<SqliteVfsConfig>();
  c.fs_transactions = true;
  return c;
}

TEST(SqliteVfsTest, FsTransactionsCommitAMultiDatabaseTransactionOnce) {
  Rig r(TxConfig());
  r.fs.set_transactions(true);
  std::vector<std::string> commit_log;
  r.Run([&] {
    auto db = r.Open("/x.db");
    ASSERT_TRUE(db);
    EXPECT_OK(db->Exec("ATTACH DATABASE '/y.db' AS y; ATTACH DATABASE '/z.db' AS z;"));
    for (const char* s : {"main", "y", "z"}) EXPECT_OK(db->Exec(fmt::format("PRAGMA {}.journal_mode=MEMORY;", s)));
    EXPECT_OK(db->Exec("CREATE TABLE main.a(v); CREATE TABLE y.b(v); CREATE TABLE z.c(v);"));
    r.fs.set_logging(true);
    r.fs.log().clear();
    const VfsCounts before = r.vfs.Snapshot();
    EXPECT_OK(db->Exec("BEGIN; INSERT INTO a VALUES(1); INSERT INTO b VALUES(2); INSERT INTO c VALUES(3); COMMIT;"));
    const VfsCounts d = r.vfs.Snapshot().Minus(before);
    commit_log = r.fs.log();
    EXPECT_EQ(d.TotalSyncs(), 0u);
    EXPECT_EQ(d.of(FileKind::kJournal).opens + d.of(FileKind::kSuperJournal).opens, 0u);
    EXPECT_OK(db->Close());
  });
  // Keep the transaction calls and the data writes, in order.
  std::vector<std::string> calls;
  for (const std::string& l : commit_log)
    if (l.rfind("tx", 0) == 0 || l.rfind("pwrite", 0) == 0) calls.push_back(l);
  ASSERT_GE(calls.size(), 7u);
  ASSERT_EQ(calls[0].rfind("txadd /x.db ", 0), 0u) << calls[0];
  const std::string key = calls[0].substr(12);
  const auto pos = [&](const std::string& l) { return std::find(calls.begin(), calls.end(), l) - calls.begin(); };
  EXPECT_EQ(calls[1], "txstart " + key);
  EXPECT_LT(pos("txadd /y.db " + key), pos("pwrite /y.db"));
  EXPECT_LT(pos("txadd /z.db " + key), pos("pwrite /z.db"));
  EXPECT_EQ(calls[calls.size() - 2], "txcommit " + key);
  EXPECT_EQ(calls.back(), "txend " + key);
  EXPECT_EQ(std::count_if(calls.begin(), calls.end(), [](const std::string& l) { return l.rfind("txcommit", 0) == 0; }),
            1);
  for (const std::string& l : commit_log) EXPECT_EQ(l.find("sync"), std::string::npos) << l;
  EXPECT_EQ(r.stats.Value("vfs.tx.commits"), static_cast<double>(r.vfs.tx_commits()));
  EXPECT_EQ(r.vfs.tx_aborts(), 0u);
  EXPECT_TRUE(r.vfs.tx_error().empty());
}

TEST(SqliteVfsTest, FsTransactionsAbortWhenSqliteRollsBack) {
  Rig r(TxConfig());
  r.fs.set_transactions(true);
  r.Run([&] {
    auto db = r.Open("/r.db");
    ASSERT_TRUE(db);
    EXPECT_OK(db->Exec("PRAGMA journal_mode=MEMORY; CREATE TABLE t(v);"));
    const uint64_t commits = r.vfs.tx_commits();
    EXPECT_OK(db->Exec("BEGIN; INSERT INTO t VALUES(1); ROLLBACK;"));
    EXPECT_EQ(r.vfs.tx_commits(), commits);
    EXPECT_EQ(r.vfs.tx_aborts(), 1u);
    EXPECT_EQ(db->QueryInt("SELECT count(*) FROM t;").value(), 0);
    // The file is free for the next transaction.
    EXPECT_OK(db->Exec("INSERT INTO t VALUES(2);"));
    EXPECT_EQ(r.vfs.tx_commits(), commits + 1);
    EXPECT_OK(db->Close());
  });
}

TEST(SqliteVfsTest, FsTransactionsOnAFileSystemWithoutThemFailClearly) {
  Rig r(TxConfig());  // TestingFs with transactions off: EOPNOTSUPP
  r.Run([&] {
    auto db = r.Open("/n.db");
    ASSERT_TRUE(db);
    const sim::Status st = db->Exec("PRAGMA journal_mode=MEMORY; CREATE TABLE t(v);");
    EXPECT_FALSE(st.ok());
    EXPECT_OK(db->Close());
  });
  EXPECT_NE(r.vfs.tx_error().find("EOPNOTSUPP"), std::string::npos) << r.vfs.tx_error();
  EXPECT_NE(r.vfs.tx_error().find("/n.db"), std::string::npos) << r.vfs.tx_error();
}

TEST(SqliteVfsTest, ClockAndSleepAreSimulated) {
  SqliteVfsConfig cfg = sim::MakeDefault<SqliteVfsConfig>();
  Rig r(cfg);
  r.Run([&] {
    auto db = r.Open("/c.db");
    ASSERT_TRUE(db);
    r.rt.Sleep(sim::Sec(90));
    const int64_t unix_s = db->QueryInt("SELECT CAST(strftime('%s','now') AS INTEGER);").value();
    EXPECT_EQ(unix_s, static_cast<int64_t>(cfg.epoch_unix_s) + r.q.now().ns() / 1000000000);
    const sim::SimTime t0 = r.q.now();
    sqlite3_vfs* v = r.vfs.vfs();
    EXPECT_EQ(v->xSleep(v, 25000), 25000);
    EXPECT_EQ(r.q.now() - t0, sim::Ms(25));
    EXPECT_OK(db->Close());
  });
}

TEST(SqliteVfsTest, TempFilesLiveInTheTempDirectoryAndVanish) {
  Rig r;
  r.Run([&] {
    auto db = r.Open("/x.db");
    ASSERT_TRUE(db);
    // A temp database that outgrows a two-page cache spills to a file.
    EXPECT_OK(db->Exec("PRAGMA temp_store=FILE; PRAGMA temp.cache_size=2;"));
    EXPECT_OK(db->Exec("CREATE TEMP TABLE big(v); "
                       "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<400) "
                       "INSERT INTO big SELECT randomblob(500) FROM c;"));
    EXPECT_EQ(db->QueryInt("SELECT count(*) FROM big;").value(), 400);
    EXPECT_OK(db->Close());
  });
  const VfsCounts c = r.vfs.Snapshot();
  EXPECT_GT(c.of(FileKind::kTemp).opens, 0u);
  EXPECT_GT(c.of(FileKind::kTemp).bytes_written, 0u);
  EXPECT_EQ(c.of(FileKind::kTemp).deletes, c.of(FileKind::kTemp).opens) << "unlinked at open, like unix";
  EXPECT_EQ(r.fs.open_fds(), 0u);
}

}  // namespace
}  // namespace host::sqlite
