// exF2FS under real SQLite, cut at random points. One connection runs
// multi-database transactions (a main database and two ATTACHed ones, each
// transaction inserting a row into every database, sometimes deleting an
// older one, with rows up to 1.5 MiB so transactions outgrow the 4 MiB page
// cache and steal), every SQLite transaction committed as one file-system
// transaction (vfs.fs_transactions), on an F2FS volume whose segments are
// half valid so cleaning runs meanwhile. The power is cut after a random
// number of events; after the mount (roll-forward of committed sets):
//   - the checker is clean;
//   - SQLite's integrity_check passes on every database;
//   - every database holds the same rows: a transaction is in all of them
//     or in none;
//   - every transaction COMMIT acknowledged is there, and nothing newer
//     than the one in flight at the cut.
// FLASHSTACK_SQLITE_TX_CRASH_ITERATIONS=1000 runs the long version
// (FLASHSTACK_SQLITE_TX_CRASH_FIRST picks the first iteration).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fs/f2fs/f2fs_crash_oracle.h"
#include "fs/f2fs/f2fs_test_util.h"
#include "host/sqlite/fiber.h"
#include "host/sqlite/sqlite_db.h"
#include "host/sqlite/sqlite_vfs.h"
#include "sim/config.h"
#include "sim/rng.h"
#include "sim/status.h"
#include "sim/stats.h"

namespace {

using fs::f2fs::testing::Stack;
using host::sqlite::FiberRuntime;
using host::sqlite::SqliteDb;
using host::sqlite::SqliteVfs;
using host::sqlite::SqliteVfsConfig;

constexpr int kDbs = 3;
const char* const kSchemas[kDbs] = {"main", "a1", "a2"};

int EnvInt(const char* name, int dflt) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : dflt;
}

// What every database holds after a number of committed transactions.
struct DbState {
  int64_t rows = 0, id_sum = 0, bytes = 0;
  bool operator==(const DbState&) const = default;
};
std::string Show(const DbState& s) { return fmt::format("{} rows, id sum {}, {} bytes", s.rows, s.id_sum, s.bytes); }

// The connection's work: transaction k (1, 2, ...) inserts row k with
// `sizes[k]` bytes into every database and, when `drops[k]` > 0, deletes
// that row from every database. states[k] is the content after k commits.
struct Plan {
  std::vector<int64_t> sizes{0}, drops{0};
  std::vector<DbState> states{DbState{}};
  void Add(sim::Rng& rng) {
    const int64_t k = static_cast<int64_t>(sizes.size());
    const int64_t size = rng.Bernoulli(0.15) ? 200'000 + static_cast<int64_t>(rng.Uniform(1'300'000))
                                             : 100 + static_cast<int64_t>(rng.Uniform(6000));
    int64_t drop = 0;
    DbState s = states.back();
    s.rows += 1;
    s.id_sum += k;
    s.bytes += size;
    // Row k-4 goes at random, and always when it is big, so the databases
    // stay within the volume.
    if (k > 4 && (rng.Bernoulli(0.3) || sizes[static_cast<size_t>(k - 4)] >= 200'000)) {
      const int64_t d = k - 4;
      bool present = true;  // each row is dropped at most once
      for (int64_t x : drops) present = present && x != d;
      if (present) {
        drop = d;
        s.rows -= 1;
        s.id_sum -= d;
        s.bytes -= sizes[static_cast<size_t>(d)];
      }
    }
    sizes.push_back(size);
    drops.push_back(drop);
    states.push_back(s);
  }
};

SqliteVfsConfig TxVfs() {
  SqliteVfsConfig c = sim::MakeDefault<SqliteVfsConfig>();
  c.fs_transactions = true;
  return c;
}

sim::Status OpenAll(SqliteVfs* vfs, std::unique_ptr<SqliteDb>* out, bool create) {
  auto db = SqliteDb::Open(vfs, "/db/m.db", create);
  if (!db.ok()) return db.status();
  *out = std::move(db).value();
  for (int i = 1; i < kDbs; ++i) {
    FS_RETURN_IF_ERROR((*out)->Exec(fmt::format("ATTACH DATABASE '/db/{}.db' AS {};", kSchemas[i], kSchemas[i])));
  }
  for (const char* s : kSchemas) {
    FS_RETURN_IF_ERROR((*out)->Exec(fmt::format("PRAGMA {}.journal_mode=MEMORY; PRAGMA {}.synchronous=FULL;", s, s)));
  }
  return sim::Status::Ok();
}

sim::Task<void> Cleaner(fs::f2fs::F2fs* fs, sim::EventQueue* q, uint64_t seed, const bool* stop) {
  sim::Rng rng(seed, "test.sqlite_tx_crash.gc");
  while (!*stop) {
    co_await sim::Delay(q, sim::Us(static_cast<int64_t>(500 + rng.Uniform(1000))));
    if (*stop) break;
    co_await fs->GarbageCollect(/*foreground=*/false);
  }
}

struct Figures {
  uint64_t full = 0;  // runs that filled the volume before the cut
  uint64_t cuts = 0, acked = 0, in_flight_cuts = 0, in_flight_present = 0, recovered = 0, stolen = 0, moved = 0;
};

void RunIterations(int first, int iterations, Figures* fig) {
  for (int it = first; it < first + iterations; ++it) {
    SCOPED_TRACE("iteration " + std::to_string(it));
    if (std::getenv("FLASHSTACK_SQLITE_TX_CRASH_VERBOSE")) std::fprintf(stderr, "iteration %d\n", it);
    sim::Rng rng(11 + static_cast<uint64_t>(it), "test.sqlite_tx_crash");
    fs::f2fs::F2fsConfig cfg = fs::f2fs::testing::CrashTimingConfig();
    cfg.page_cache.memory = sim::MiB(4);  // the big transactions steal
    Stack s(128ull << 20, cfg);
    s.FormatAndMount();
    fs::f2fs::testing::FillHalfValidBallast(s, 70);

    Plan plan;
    int64_t acked = 0, begun = 0;
    std::string failure;
    bool stop = false, full = false;
    auto rt = std::make_unique<FiberRuntime>(&s.q());
    sim::StatsRegistry stats;
    auto vfs = std::make_unique<SqliteVfs>(rt.get(), s.fs_ptr(), TxVfs(), rng.Next(), stats.Root().Group("vfs"));
    const uint64_t plan_seed = rng.Next();
    rt->Spawn("sqlite", [&] {
      sim::Rng prng(plan_seed, "test.sqlite_tx_crash.plan");
      auto mk = rt->AwaitTask(s.fs().Mkdir("/db"));
      if (!mk.ok()) return;
      std::unique_ptr<SqliteDb> db;
      if (!OpenAll(vfs.get(), &db, true).ok()) return;
      std::string ddl = "BEGIN;";
      for (const char* sc : kSchemas) ddl += fmt::format(" CREATE TABLE {}.t(id INTEGER PRIMARY KEY, v BLOB);", sc);
      if (!db->Exec(ddl + " COMMIT;").ok()) return;
      // Committed (and acknowledged) before the first transaction counts.
      for (int64_t k = 1; !stop; ++k) {
        plan.Add(prng);
        begun = k;
        std::string sql = "BEGIN IMMEDIATE;";
        for (const char* sc : kSchemas) {
          sql += fmt::format(" INSERT INTO {}.t VALUES({}, zeroblob({}));", sc, k, plan.sizes[k]);
          if (plan.drops[k] > 0) sql += fmt::format(" DELETE FROM {}.t WHERE id = {};", sc, plan.drops[k]);
        }
        const sim::Status st = db->Exec(sql + " COMMIT;");
        if (!st.ok()) {
          if (rt->shutting_down()) break;
          if (st.message().find("database or disk is full") != std::string::npos) {
            full = true;  // a legitimate end: SQLite rolled the transaction back
            break;
          }
          failure = "transaction " + std::to_string(k) + ": " + st.message();
          break;
        }
        acked = k;
      }
      db->Close();
    });
    sim::Task<void> gc = Cleaner(s.fs_ptr(), &s.q(), rng.Next(), &stop);
    auto gh = gc.Release();
    sim::Resume(gh);
    const uint64_t cut = 2000 + rng.Uniform(150000);
    uint64_t steps = 0;
    while (steps < cut && failure.empty() && s.q().Step()) ++steps;
    ASSERT_TRUE(failure.empty()) << failure;
    if (full) ++fig->full;
    fig->stolen += s.fs().tx_stolen_pages();
    fig->moved += s.fs().gc_moved_blocks();
    // The cut: the file system stops, SQLite's calls fail, the connection
    // unwinds; then the device keeps a random part of what was volatile.
    stop = true;
    s.fs().PowerCut();
    rt->Shutdown();
    vfs.reset();
    rt.reset();
    s.q().Clear();
    gh.destroy();
    s.RandomPowerCut(rng);
    const sim::Status mounted = s.Mount();
    ASSERT_TRUE(mounted.ok()) << mounted.message();
    s.ExpectCheck();
    ++fig->cuts;
    fig->acked += static_cast<uint64_t>(acked);
    fig->recovered += s.fs().tx_recovered();
    const bool in_flight = begun > acked;
    if (in_flight) ++fig->in_flight_cuts;
    if (begun == 0) continue;  // cut before the tables were made: nothing was promised

    // Read every database back through SQLite.
    std::vector<DbState> got(kDbs);
    std::vector<std::string> integrity(kDbs);
    std::string read_error;
    rt = std::make_unique<FiberRuntime>(&s.q());
    vfs = std::make_unique<SqliteVfs>(rt.get(), s.fs_ptr(), TxVfs(), 1, stats.Root().Group("vfs2"));
    rt->Spawn("check", [&] {
      std::unique_ptr<SqliteDb> db;
      const sim::Status st = OpenAll(vfs.get(), &db, false);
      if (!st.ok()) {
        read_error = st.message();
        return;
      }
      for (int i = 0; i < kDbs; ++i) {
        auto ic = db->QueryText(fmt::format("PRAGMA {}.integrity_check;", kSchemas[i]));
        integrity[i] = ic.ok() ? *ic : ic.status().message();
        auto n = db->QueryInt(fmt::format("SELECT count(*) FROM {}.t;", kSchemas[i]));
        auto sum = db->QueryInt(fmt::format("SELECT coalesce(sum(id), 0) FROM {}.t;", kSchemas[i]));
        auto bytes = db->QueryInt(fmt::format("SELECT coalesce(sum(length(v)), 0) FROM {}.t;", kSchemas[i]));
        if (!n.ok() || !sum.ok() || !bytes.ok()) {
          read_error = fmt::format("{}: {}", kSchemas[i], !n.ok() ? n.status().message() : "query failed");
          break;
        }
        got[i] = DbState{*n, *sum, *bytes};
      }
      db->Close();
    });
    s.q().Run();
    ASSERT_EQ(rt->live_fibers(), 0u);
    vfs.reset();
    rt.reset();
    ASSERT_TRUE(read_error.empty()) << read_error;
    for (int i = 0; i < kDbs; ++i) ASSERT_EQ(integrity[i], "ok") << kSchemas[i];
    for (int i = 1; i < kDbs; ++i)
      ASSERT_EQ(got[i], got[0]) << kSchemas[i] << ": " << Show(got[i]) << " vs main: " << Show(got[0]);
    const DbState& want = plan.states[static_cast<size_t>(acked)];
    if (got[0] == want) continue;
    ASSERT_TRUE(in_flight && got[0] == plan.states[static_cast<size_t>(begun)])
        << "after " << acked << " acknowledged commits (" << begun << " begun): " << Show(got[0]) << ", want "
        << Show(want);
    ++fig->in_flight_present;
  }
}

TEST(SqliteTxCrashTest, EveryMultiDatabaseTransactionIsWholeOrAbsentAfterAPowerCut) {
  Figures fig;
  RunIterations(EnvInt("FLASHSTACK_SQLITE_TX_CRASH_FIRST", 0),
                std::max(1, EnvInt("FLASHSTACK_SQLITE_TX_CRASH_ITERATIONS", 6)), &fig);
  std::printf("sqlite tx crash: %llu cuts, %llu transactions acknowledged, %llu cuts during a transaction (%llu of "
              "them kept it), %llu commits recovered by roll-forward, %llu pages stolen, %llu blocks moved by "
              "cleaning, %llu runs filled the volume\n",
              static_cast<unsigned long long>(fig.cuts), static_cast<unsigned long long>(fig.acked),
              static_cast<unsigned long long>(fig.in_flight_cuts),
              static_cast<unsigned long long>(fig.in_flight_present), static_cast<unsigned long long>(fig.recovered),
              static_cast<unsigned long long>(fig.stolen), static_cast<unsigned long long>(fig.moved),
              static_cast<unsigned long long>(fig.full));
  EXPECT_GT(fig.acked, 0u);
  EXPECT_GT(fig.stolen, 0u);
}

}  // namespace
