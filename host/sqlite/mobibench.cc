#include "host/sqlite/mobibench.h"

#include <sqlite3.h>

#include <algorithm>

#include <fmt/format.h>

#include "host/sqlite/sqlite_db.h"

namespace host::sqlite {

void MobibenchConfig::Describe(sim::Schema<MobibenchConfig>& s) {
  s.Choice("operation", &MobibenchConfig::operation, "insert", {"insert", "update", "delete"},
           "Statement each transaction runs (Mobibench -d 0/1/2)");
  s.Param("transactions", &MobibenchConfig::transactions, "10", "Transactions per thread (Mobibench -n)")
      .Range(1, 1e12);
  s.Param("ops_per_transaction", &MobibenchConfig::ops_per_transaction, "1",
          "Statements per table per transaction; a transaction of several statements is wrapped in "
          "BEGIN IMMEDIATE ... COMMIT")
      .Range(1, 1e6);
  s.Param("tables", &MobibenchConfig::tables, "1", "Tables per database; every transaction changes each")
      .Range(1, 1000);
  s.Param("databases", &MobibenchConfig::databases, "1",
          "Databases per thread: the main one plus databases-1 ATTACHed ones (SQLite allows 10)")
      .Range(1, 11);
  s.Param("record_size", &MobibenchConfig::record_size, "100B", "Length of the Value text of each row")
      .Range(1, 1 << 20);
  s.Param("threads", &MobibenchConfig::threads, "1", "Threads, each with its own connection (Mobibench -t)")
      .Range(1, 100);
  s.Param("shared_database", &MobibenchConfig::shared_database, "false",
          "All threads use thread 0's database files and contend on SQLite's locks");
  DescribeSqliteKeys(s, "/mobibench", "truncate");
}

sim::Status MobibenchConfig::Validate(std::string_view path) const {
  FS_RETURN_IF_ERROR(ValidateSqliteKeys(path, page_size.value, dir, journal_mode, vfs));
  if (record_size.value == 0) return sim::KeyErrors(path)("record_size", "must be at least 1 byte");
  return sim::Status::Ok();
}

struct MobibenchSqlite::Thread {
  Thread(uint32_t i, uint64_t seed) : id(i), rng(seed, fmt::format("sqlite.mobibench.thread{}", i)) {}
  uint32_t id;
  std::unique_ptr<SqliteDb> db;
  std::vector<sqlite3_stmt*> stmts;  // [database * tables + table]
  sim::Rng rng;
};

namespace {

std::string SchemaName(uint32_t k) { return k == 0 ? "main" : fmt::format("db{}", k); }

}  // namespace

sim::Result<std::unique_ptr<MobibenchSqlite>> MobibenchSqlite::Create(const MobibenchConfig& cfg, Env env,
                                                                      std::string_view path) {
  FS_RETURN_IF_ERROR(cfg.Validate(path));
  CHECK(env.queue != nullptr && env.fs != nullptr);
  return std::make_unique<MobibenchSqlite>(cfg, std::move(env));
}

MobibenchSqlite::MobibenchSqlite(const MobibenchConfig& cfg, Env env)
    : cfg_(cfg),
      env_(std::move(env)),
      sqlite_(env_.queue, env_.fs, cfg_.vfs, cfg_.fiber_stack.value, env_.seed, env_.stats.Group("vfs")),
      setup_done_(&sqlite_.runtime(), cfg_.threads),
      ready_(&sqlite_.runtime(), cfg_.threads) {
  if (env_.cpu != nullptr) sqlite_.runtime().SetCpu(env_.cpu, env_.cpu->Owner("workload"));
  CHECK(cfg_.Validate().ok()) << cfg_.Validate().message();
  insert_record_ = Record(0);
  update_record_ = Record(1);

  const sim::StatGroup& g = env_.stats;
  g.Add(&txns_, "txns", "txns", "Transactions committed in the measured window");
  g.Add(&ops_, "ops", "rows", "Rows inserted, updated or deleted in the measured window");
  g.Add(&sqlite_.errors(), "errors", "errors", "SQLite or file-system errors that stopped a thread");
  g.Add(&txn_lat_, "txn.lat", "ns", "Transaction latency: BEGIN (or the statement) to COMMIT returning");
  g.AddIntervalPercentiles(&txn_lat_, "txn.lat", "ns");
  window_.Register(g, "Start signal to the end of the last thread's transaction loop", "txn", "transaction",
                   [this] { return txns_.value(); });
  g.AddFormula([this] { return TxnPerSec(); }, "txn_per_s", "txn/s", "Transactions per simulated second");
  g.AddSeries([this] { return static_cast<double>(txns_.value()); }, sim::StatGroup::SeriesKind::kRate, "txns",
              "txn/s", "Transactions per second");
}

MobibenchSqlite::~MobibenchSqlite() {
  // A run cut short: the fibers wind down while the connections and the
  // VFS they use are alive (see SqliteThreads).
  sqlite_.Shutdown();
  threads_.clear();
}

std::string MobibenchSqlite::DbPath(uint32_t thread, uint32_t k) const {
  const uint32_t owner = cfg_.shared_database ? 0 : thread;
  const std::string base = cfg_.dir == "/" ? "" : cfg_.dir;
  if (k == 0) return fmt::format("{}/test.db{}", base, owner);
  return fmt::format("{}/test.db{}-{}", base, owner, k);
}

std::string MobibenchSqlite::TableName(uint32_t t) {
  return t == 0 ? std::string("tblMyList") : fmt::format("tblMyList{}", t);
}

uint64_t MobibenchSqlite::PrefillRows() const {
  if (cfg_.operation == "insert") return 0;
  return cfg_.transactions * cfg_.ops_per_transaction * (cfg_.shared_database ? cfg_.threads : 1);
}

std::string MobibenchSqlite::Record(int variant) const {
  // Mobibench's strings: ten 'a', ten 'b', ... ten 'j' (insert), and the
  // same starting at 'f' (update).
  std::string s(cfg_.record_size.value, 'a');
  for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<char>('a' + (i / 10 + 5 * variant) % 10);
  return s;
}

void MobibenchSqlite::Start(std::function<void()> on_done) {
  for (uint32_t t = 0; t < cfg_.threads; ++t) threads_.push_back(std::make_unique<Thread>(t, env_.seed));
  sqlite_.Start(cfg_.threads, "mobibench", [this](uint32_t t) { ThreadMain(t); }, std::move(on_done));
}

void MobibenchSqlite::ThreadMain(uint32_t t) {
  Thread& th = *threads_[t];
  const bool setup_owner = !cfg_.shared_database || t == 0;
  if (setup_owner) {
    sim::Status st = OpenAndConfigure(th);
    if (st.ok()) st = CreateSchema(th);
    if (st.ok()) st = Prefill(th);
    sqlite_.Fail(st);
  }
  setup_done_.Arrive();
  if (!sqlite_.failed() && !setup_owner) sqlite_.Fail(OpenAndConfigure(th));
  if (!sqlite_.failed()) sqlite_.Fail(Prepare(th));
  ready_.Arrive([this] {
    window_.Begin(env_.queue->now(), sqlite_.vfs().Snapshot());
    env_.stats.BeginMeasured(env_.queue->now());
  });
  if (!sqlite_.failed()) sqlite_.Fail(RunTransactions(th));
  if (++finished_loops_ == cfg_.threads) {
    window_.End(env_.queue->now(), sqlite_.vfs().Snapshot());
    env_.stats.EndMeasured(env_.queue->now());
  }
  sqlite_.Fail(Teardown(th));
}

sim::Status MobibenchSqlite::OpenAndConfigure(Thread& th) {
  FS_ASSIGN_OR_RETURN(th.db, OpenWorkloadDb(&sqlite_.vfs(), cfg_.dir, DbPath(th.id, 0), cfg_.busy_timeout));
  for (uint32_t k = 1; k < cfg_.databases; ++k) {
    FS_RETURN_IF_ERROR(th.db->Exec(fmt::format("ATTACH DATABASE '{}' AS {};", DbPath(th.id, k), SchemaName(k))));
  }
  const SqliteSettings settings{cfg_.journal_mode, cfg_.synchronous, cfg_.page_size.value, cfg_.busy_timeout};
  for (uint32_t k = 0; k < cfg_.databases; ++k) FS_RETURN_IF_ERROR(ApplySettings(*th.db, SchemaName(k), settings));
  return sim::Status::Ok();
}

sim::Status MobibenchSqlite::CreateSchema(Thread& th) {
  for (uint32_t k = 0; k < cfg_.databases; ++k) {
    for (uint32_t t = 0; t < cfg_.tables; ++t) {
      const std::string tbl = fmt::format("{}.{}", SchemaName(k), TableName(t));
      if (cfg_.operation == "insert") FS_RETURN_IF_ERROR(th.db->Exec(fmt::format("DROP TABLE IF EXISTS {};", tbl)));
      FS_RETURN_IF_ERROR(th.db->Exec(
          fmt::format("CREATE TABLE IF NOT EXISTS {} (id INTEGER PRIMARY KEY autoincrement, Value TEXT not null, "
                      "creation_date long);",
                      tbl)));
    }
  }
  return sim::Status::Ok();
}

sim::Status MobibenchSqlite::Prefill(Thread& th) {
  const uint64_t want = PrefillRows();
  if (want == 0) return sim::Status::Ok();
  constexpr uint64_t kBatch = 1000;
  for (uint32_t k = 0; k < cfg_.databases; ++k) {
    for (uint32_t t = 0; t < cfg_.tables; ++t) {
      const std::string tbl = fmt::format("{}.{}", SchemaName(k), TableName(t));
      FS_ASSIGN_OR_RETURN(int64_t have, th.db->QueryInt(fmt::format("SELECT count(*) FROM {};", tbl)));
      if (static_cast<uint64_t>(have) >= want) continue;
      const std::string sql = fmt::format("INSERT INTO {}(Value) VALUES(?1);", tbl);
      sqlite3_stmt* st = nullptr;
      if (sqlite3_prepare_v2(th.db->handle(), sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return th.db->Error(sql);
      sqlite3_bind_text(st, 1, insert_record_.data(), static_cast<int>(insert_record_.size()), SQLITE_STATIC);
      sim::Status out = sim::Status::Ok();
      for (uint64_t done = static_cast<uint64_t>(have); done < want && out.ok();) {
        out = th.db->Exec("BEGIN IMMEDIATE;");
        for (uint64_t n = 0; n < kBatch && done < want && out.ok(); ++n, ++done) {
          if (sqlite3_step(st) != SQLITE_DONE) out = th.db->Error(sql);
          sqlite3_reset(st);
        }
        if (out.ok()) out = th.db->Exec("COMMIT;");
      }
      sqlite3_finalize(st);
      FS_RETURN_IF_ERROR(out);
    }
  }
  return sim::Status::Ok();
}

sim::Status MobibenchSqlite::Prepare(Thread& th) {
  for (uint32_t k = 0; k < cfg_.databases; ++k) {
    for (uint32_t t = 0; t < cfg_.tables; ++t) {
      const std::string tbl = fmt::format("{}.{}", SchemaName(k), TableName(t));
      std::string sql;
      const std::string* text = nullptr;
      if (cfg_.operation == "insert") {
        sql = fmt::format("INSERT INTO {}(Value) VALUES(?1);", tbl);
        text = &insert_record_;
      } else if (cfg_.operation == "update") {
        sql = fmt::format("UPDATE {} SET Value = ?1 WHERE id = ?2;", tbl);
        text = &update_record_;
      } else {
        sql = fmt::format("DELETE FROM {} WHERE id = ?2;", tbl);
      }
      sqlite3_stmt* st = nullptr;
      if (sqlite3_prepare_v3(th.db->handle(), sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &st, nullptr) !=
          SQLITE_OK) {
        return th.db->Error(sql);
      }
      if (text) sqlite3_bind_text(st, 1, text->data(), static_cast<int>(text->size()), SQLITE_STATIC);
      th.stmts.push_back(st);
    }
  }
  return sim::Status::Ok();
}

sim::Status MobibenchSqlite::RunTransactions(Thread& th) {
  const uint32_t per_table = cfg_.ops_per_transaction;
  const bool explicit_txn = static_cast<uint64_t>(per_table) * cfg_.tables * cfg_.databases > 1;
  const uint64_t rows = PrefillRows();
  const uint64_t delete_base = cfg_.shared_database ? th.id * cfg_.transactions * per_table : 0;
  sqlite3* db = th.db->handle();
  for (uint64_t i = 0; i < cfg_.transactions && !sqlite_.failed(); ++i) {
    const sim::SimTime start = env_.queue->now();
    if (explicit_txn) FS_RETURN_IF_ERROR(th.db->Exec("BEGIN IMMEDIATE;"));
    uint64_t changed = 0;
    for (uint32_t j = 0; j < per_table; ++j) {
      for (sqlite3_stmt* st : th.stmts) {
        if (cfg_.cpu_per_statement.ns() > 0) sqlite_.runtime().Compute(cfg_.cpu_per_statement);
        if (cfg_.operation == "update") {
          sqlite3_bind_int64(st, 2, static_cast<sqlite3_int64>(th.rng.Uniform(rows) + 1));
        } else if (cfg_.operation == "delete") {
          sqlite3_bind_int64(st, 2, static_cast<sqlite3_int64>(delete_base + i * per_table + j + 1));
        }
        const int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE) {
          sim::Status err = th.db->Error(sqlite3_sql(st));
          if (explicit_txn) th.db->Exec("ROLLBACK;");
          return err;
        }
        changed += static_cast<uint64_t>(sqlite3_changes(db));
      }
    }
    if (explicit_txn) FS_RETURN_IF_ERROR(th.db->Exec("COMMIT;"));
    txn_lat_.Record((env_.queue->now() - start).ns());
    txns_.Inc();
    ops_.Inc(changed);
  }
  return sim::Status::Ok();
}

sim::Status MobibenchSqlite::Teardown(Thread& th) {
  for (sqlite3_stmt* st : th.stmts) sqlite3_finalize(st);
  th.stmts.clear();
  if (!th.db) return sim::Status::Ok();
  sim::Status st = th.db->Close();
  th.db.reset();
  return st;
}

}  // namespace host::sqlite
