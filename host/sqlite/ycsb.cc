#include "host/sqlite/ycsb.h"

#include <algorithm>

#include <fmt/format.h>
#include <glog/logging.h>

#include "host/sqlite/sqlite_db.h"
#include "sim/rng.h"

namespace host::sqlite {

void YcsbConfig::Describe(sim::Schema<YcsbConfig>& s) {
  s.Param("properties", &YcsbConfig::properties, "",
          "Path of a YCSB property file (workloada, ...), relative to the config file; empty = YCSB's defaults");
  s.Param("set", &YcsbConfig::set, "[]",
          "More YCSB properties as \"name=value\", applied after the file (YCSB's -p), e.g. "
          "[\"recordcount=1000\", \"requestdistribution=uniform\"]");
  s.Param("recordcount", &YcsbConfig::recordcount, "0", "Overrides the recordcount property; 0 = the properties'")
      .Range(0, 1e12);
  s.Param("operationcount", &YcsbConfig::operationcount, "0",
          "Overrides the operationcount property; 0 = the properties'")
      .Range(0, 1e12);
  s.Param("threadcount", &YcsbConfig::threadcount, "0", "Overrides the threadcount property; 0 = the properties'")
      .Range(0, 1000);
  s.Param("load_batch", &YcsbConfig::load_batch, "1000",
          "Records per transaction of the load phase; 1 = one autocommit INSERT each")
      .Range(1, 1e9);
  s.Param("count_rows", &YcsbConfig::count_rows, "false",
          "After the run, count the table's rows (untimed) into the `rows` statistic");
  DescribeSqliteKeys(s, "/ycsb", "delete");
}

sim::Result<YcsbSpec> YcsbConfig::Resolve(std::string_view path) const {
  FS_RETURN_IF_ERROR(ValidateSqliteKeys(path, page_size.value, dir, journal_mode, vfs));
  YcsbInputs in;
  in.properties = properties;
  in.set = set;
  in.recordcount = recordcount;
  in.operationcount = operationcount;
  in.threadcount = threadcount;
  return ResolveYcsb(in, path);
}

namespace {

// Simulated threads: the run's, or one for a load-only run.
uint32_t ThreadCount(const YcsbSpec& spec) { return spec.p.dotransactions ? spec.threads : 1; }

bool Busy(int rc) { return (rc & 0xff) == SQLITE_BUSY; }
bool Constraint(int rc) { return (rc & 0xff) == SQLITE_CONSTRAINT; }

}  // namespace

struct YcsbSqlite::Thread {
  Thread(uint32_t i, uint64_t seed, uint32_t fields)
      : id(i), rng(seed, fmt::format("sqlite.ycsb.thread{}", i)), values(fields) {
    for (Slots& k : keyed) k.one.assign(fields, nullptr);
  }
  uint32_t id;
  sim::Rng rng;
  std::unique_ptr<SqliteDb> db;
  // Prepared statements, made on first use and kept: per keyed kind, over
  // every field and per field; the insert.
  struct Slots {
    sqlite3_stmt* all = nullptr;
    std::vector<sqlite3_stmt*> one;
  };
  Slots keyed[kKeyedKinds];
  sqlite3_stmt* insert = nullptr;
  std::vector<std::string> values;  // field values of the statement being run
  std::string key;
};

sim::Result<std::unique_ptr<YcsbSqlite>> YcsbSqlite::Create(const YcsbConfig& cfg, Env env, std::string_view path) {
  FS_ASSIGN_OR_RETURN(YcsbSpec spec, cfg.Resolve(path));
  for (const std::string& w : spec.warnings) LOG(WARNING) << w;
  CHECK(env.queue != nullptr && env.fs != nullptr);
  return std::make_unique<YcsbSqlite>(cfg, std::move(spec), std::move(env));
}

YcsbSqlite::YcsbSqlite(const YcsbConfig& cfg, YcsbSpec spec, Env env)
    : cfg_(cfg),
      spec_(std::move(spec)),
      env_(std::move(env)),
      sqlite_(env_.queue, env_.fs, cfg_.vfs, cfg_.fiber_stack.value, env_.seed, env_.stats.Group("vfs")),
      choosers_(spec_),
      loaded_(&sqlite_.runtime(), ThreadCount(spec_)),
      ready_(&sqlite_.runtime(), ThreadCount(spec_)),
      finished_(&sqlite_.runtime(), ThreadCount(spec_)) {
  if (env_.cpu != nullptr) sqlite_.runtime().SetCpu(env_.cpu, env_.cpu->Owner("workload"));
  const std::string& t = spec_.p.table;
  const char* scan_tail = "WHERE YCSB_KEY >= ?1 ORDER BY YCSB_KEY LIMIT ?2;";
  std::string columns, params = "?1", sets;
  for (uint32_t i = 0; i < spec_.p.fieldcount; ++i) {
    const std::string c = Column(i);
    columns += ", " + c;
    params += fmt::format(", ?{}", i + 2);
    sets += fmt::format("{}{} = ?{}", i ? ", " : "", c, i + 2);
    keyed_sql_[kReadSql].one.push_back(fmt::format("SELECT {} FROM {} WHERE YCSB_KEY = ?1;", c, t));
    keyed_sql_[kUpdateSql].one.push_back(fmt::format("UPDATE {} SET {} = ?2 WHERE YCSB_KEY = ?1;", t, c));
    keyed_sql_[kScanSql].one.push_back(fmt::format("SELECT YCSB_KEY, {} FROM {} {}", c, t, scan_tail));
  }
  keyed_sql_[kReadSql].all = fmt::format("SELECT * FROM {} WHERE YCSB_KEY = ?1;", t);
  keyed_sql_[kUpdateSql].all = fmt::format("UPDATE {} SET {} WHERE YCSB_KEY = ?1;", t, sets);
  keyed_sql_[kScanSql].all = fmt::format("SELECT * FROM {} {}", t, scan_tail);
  insert_sql_ = fmt::format("INSERT INTO {} (YCSB_KEY{}) VALUES ({});", t, columns, params);

  const sim::StatGroup& g = env_.stats;
  g.Add(&ops_, "ops", "ops", "Operations done in the measured window (the run phase)");
  window_.Register(g, "Start of the run phase to the end of the last thread's operations", "op", "operation",
                   [this] { return ops_.value(); });
  g.AddFormula([this] { return OpsPerSec(); }, "ops_per_s", "ops/s", "Operations per simulated second");
  for (int i = 0; i < kYcsbOps; ++i) {
    const YcsbOp op = static_cast<YcsbOp>(i);
    const std::string name(YcsbOpStatName(op));
    OpStats& s = ops_stats_[i];
    g.Add(&s.lat, name + ".lat", "ns", fmt::format("{} latency (as YCSB reports it)", YcsbOpName(op)));
    // series.csv: the operations the workload's proportions choose (READ
    // and UPDATE also record the halves of READ-MODIFY-WRITE).
    const double rmw = spec_.p.readmodifywriteproportion;
    const double weights[kYcsbOps] = {spec_.p.readproportion + rmw, spec_.p.updateproportion + rmw,
                                      spec_.p.insertproportion, spec_.p.scanproportion, rmw};
    if (weights[i] > 0) g.AddIntervalPercentiles(&s.lat, name + ".lat", "ns");
    g.Add(&s.failed, name + ".failed", "ops",
          fmt::format("{} operations that failed: busy past busy_timeout, or a constraint", YcsbOpName(op)));
    if (op == YcsbOp::kRead || op == YcsbOp::kUpdate || op == YcsbOp::kReadModifyWrite) {
      g.Add(&s.not_found, name + ".not_found", "ops",
            fmt::format("{} operations that found no row with their key", YcsbOpName(op)));
    }
  }
  g.Add(&scan_rows_, "scan.rows", "rows", "Rows the scans returned");
  if (spec_.p.dataintegrity) {
    g.Add(&verify_ok_, "verify.ok", "reads", "Reads whose every field held the value its key and field derive");
    g.Add(&verify_bad_, "verify.bad", "reads", "Reads with a field not holding the value its key and field derive");
  }
  g.Add(&sqlite_.errors(), "errors", "errors", "SQLite or file-system errors that stopped a thread");
  if (cfg_.count_rows) {
    g.AddFormula([this] { return static_cast<double>(rows_); }, "rows", "rows",
                 "Rows in the table after the run (-1 if not counted)");
  }
  const sim::StatGroup load = g.Group("load");
  load.Add(&load_records_, "records", "records", "Records the load phase inserted");
  load.Add(&load_batch_lat_, "batch.lat", "ns", "Latency of a load transaction (load_batch inserts)");
  load_window_.Register(load, "Start to end of the load phase", "record", "record",
                        [this] { return load_records_.value(); });
  load.AddFormula([this] { return load_window_.PerSecond(load_records_.value()); }, "records_per_s",
                  "records/s", "Records loaded per simulated second");
  g.AddSeries([this] { return static_cast<double>(ops_.value()); }, sim::StatGroup::SeriesKind::kRate, "ops",
              "ops/s", "Operations per second");
}

YcsbSqlite::~YcsbSqlite() {
  // A run cut short: the fibers wind down while the connections and the
  // VFS they use are alive (see SqliteThreads).
  sqlite_.Shutdown();
  threads_.clear();
}

std::string YcsbSqlite::DbPath() const { return fmt::format("{}/ycsb.db", cfg_.dir == "/" ? "" : cfg_.dir); }

std::string YcsbSqlite::Column(uint32_t i) const { return fmt::format("{}{}", AsciiUpper(spec_.p.fieldnameprefix), i); }

uint64_t YcsbSqlite::planned() const {
  if (!spec_.p.dotransactions) return spec_.insertcount;
  return spec_.p.operationcount ? spec_.insertcount + spec_.p.operationcount : 0;
}

std::string YcsbSqlite::Summary() const {
  std::string out = fmt::format(
      "ycsb       {} operations, {} thread{}: {:.1f} ops/s, {:.2f} fsyncs/op, {:.0f} bytes written/op\n", ops(),
      spec_.threads, spec_.threads == 1 ? "" : "s", OpsPerSec(), FsyncsPerOp(), BytesWrittenPerOp());
  out += fmt::format("  load     {} records in {} (transactions of up to {}): {:.1f} records/s, {} fsyncs\n",
                     load_records(), load_window_.time().ToString(), cfg_.load_batch,
                     load_window_.PerSecond(load_records()), load_window_.counts().TotalSyncs());
  for (int i = 0; i < kYcsbOps; ++i) {
    const OpStats& s = ops_stats_[i];
    if (s.lat.count() == 0) continue;
    std::string extra;
    if (s.failed.value()) extra += fmt::format(", {} failed", s.failed.value());
    if (s.not_found.value()) extra += fmt::format(", {} not found", s.not_found.value());
    out += fmt::format("  {:<17} n={} {}{}\n", YcsbOpName(static_cast<YcsbOp>(i)), s.lat.count(),
                       sim::LatencySummary(s.lat), extra);
  }
  if (spec_.p.dataintegrity) {
    out += fmt::format("  verify   {} reads checked, {} wrong\n", verify_ok_.value() + verify_bad_.value(),
                       verify_bad_.value());
  }
  if (rows_ >= 0) out += fmt::format("  rows     {} in {} after the run\n", rows_, spec_.p.table);
  return out;
}

void YcsbSqlite::Start(std::function<void()> on_done) {
  const uint32_t n = ThreadCount(spec_);
  for (uint32_t t = 0; t < n; ++t) threads_.push_back(std::make_unique<Thread>(t, env_.seed, spec_.p.fieldcount));
  sqlite_.Start(n, "ycsb", [this](uint32_t t) { ThreadMain(t); }, std::move(on_done));
}

void YcsbSqlite::ThreadMain(uint32_t t) {
  Thread& th = *threads_[t];
  const uint32_t n = ThreadCount(spec_);
  if (t == 0) sqlite_.Fail(Setup(th));
  loaded_.Arrive();
  if (!sqlite_.failed() && t != 0) sqlite_.Fail(Connect(th));
  ready_.Arrive([this] {
    run_start_ = env_.queue->now();
    window_.Begin(run_start_, sqlite_.vfs().Snapshot());
    env_.stats.BeginMeasured(run_start_);
  });
  if (!sqlite_.failed() && spec_.p.dotransactions) sqlite_.Fail(Run(th));
  if (++finished_loops_ == n) {
    window_.End(env_.queue->now(), sqlite_.vfs().Snapshot());
    env_.stats.EndMeasured(env_.queue->now());
  }
  if (cfg_.count_rows) {
    finished_.Arrive();
    if (t == 0 && !sqlite_.failed()) {
      auto rows = th.db->QueryInt(fmt::format("SELECT count(*) FROM {};", spec_.p.table));
      if (rows.ok()) rows_ = *rows;
      sqlite_.Fail(rows.status());
    }
  }
  sqlite_.Fail(Teardown(th));
}

sim::Status YcsbSqlite::Connect(Thread& th) {
  FS_ASSIGN_OR_RETURN(th.db, OpenWorkloadDb(&sqlite_.vfs(), cfg_.dir, DbPath(), cfg_.busy_timeout));
  return ApplySettings(*th.db, "main",
                       SqliteSettings{cfg_.journal_mode, cfg_.synchronous, cfg_.page_size.value, cfg_.busy_timeout});
}

sim::Status YcsbSqlite::Setup(Thread& th) {
  FS_RETURN_IF_ERROR(Connect(th));
  std::string sql = fmt::format("CREATE TABLE IF NOT EXISTS {} (YCSB_KEY VARCHAR PRIMARY KEY", spec_.p.table);
  for (uint32_t i = 0; i < spec_.p.fieldcount; ++i) sql += fmt::format(", {} TEXT", Column(i));
  FS_RETURN_IF_ERROR(th.db->Exec(sql + ");"));
  return Load(th);
}

sqlite3_stmt* YcsbSqlite::Statement(Thread& th, sqlite3_stmt** slot, const std::string& sql) {
  if (*slot == nullptr &&
      sqlite3_prepare_v3(th.db->handle(), sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, slot, nullptr) != SQLITE_OK) {
    sqlite3_finalize(*slot);
    *slot = nullptr;
  }
  return *slot;
}

sim::Result<sqlite3_stmt*> YcsbSqlite::KeyedStatement(Thread& th, Keyed kind, int field, const std::string& key) {
  Thread::Slots& slots = th.keyed[kind];
  const KeyedSql& sql = keyed_sql_[kind];
  const size_t f = static_cast<size_t>(field);
  sqlite3_stmt* st = field < 0 ? Statement(th, &slots.all, sql.all) : Statement(th, &slots.one[f], sql.one[f]);
  if (st == nullptr) return th.db->Error(field < 0 ? sql.all : sql.one[f]);
  sqlite3_bind_text(st, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
  return st;
}

std::pair<uint32_t, uint32_t> YcsbSqlite::Fields(int field) const {
  if (field < 0) return {0, spec_.p.fieldcount};
  return {static_cast<uint32_t>(field), static_cast<uint32_t>(field) + 1};
}

std::string YcsbSqlite::FieldName(uint32_t i) const { return fmt::format("{}{}", spec_.p.fieldnameprefix, i); }

void YcsbSqlite::MakeValues(Thread& th, const std::string& key, int field) {
  const auto [first, end] = Fields(field);
  for (uint32_t i = first; i < end; ++i) {
    const uint64_t len = choosers_.NextFieldLength(th.rng);
    if (spec_.p.dataintegrity) {
      YcsbIntegrityValue(key, FieldName(i), len, &th.values[i]);
    } else {
      YcsbRandomValue(th.rng, len, &th.values[i]);
    }
  }
}

void YcsbSqlite::Charge() {
  if (cfg_.cpu_per_statement.ns() > 0) sqlite_.runtime().Compute(cfg_.cpu_per_statement);
}

sim::Result<YcsbSqlite::Outcome> YcsbSqlite::Step(Thread& th, sqlite3_stmt* st,
                                                  const std::function<void(sqlite3_stmt*)>& on_row) {
  Charge();
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (on_row) on_row(st);
  }
  sqlite3_reset(st);
  if (rc == SQLITE_DONE) return Outcome::kOk;
  if (Busy(rc) || Constraint(rc)) return Outcome::kFailed;
  return th.db->Error(sqlite3_sql(st));
}

sim::Result<YcsbSqlite::Outcome> YcsbSqlite::Read(Thread& th, const std::string& key, int field) {
  FS_ASSIGN_OR_RETURN(sqlite3_stmt * st, KeyedStatement(th, kReadSql, field, key));
  bool found = false;
  bool intact = true;
  std::string expect;
  const sim::SimTime start = env_.queue->now();
  FS_ASSIGN_OR_RETURN(Outcome out, Step(th, st, [&](sqlite3_stmt* row) {
                        found = true;
                        if (!spec_.p.dataintegrity) return;
                        // SELECT * leads with the key; one field stands alone.
                        const auto [first, end] = Fields(field);
                        for (uint32_t i = first; i < end; ++i) {
                          const int col = field < 0 ? static_cast<int>(i) + 1 : 0;
                          YcsbIntegrityValue(key, FieldName(i), spec_.p.fieldlength, &expect);
                          const unsigned char* v = sqlite3_column_text(row, col);
                          const size_t n = static_cast<size_t>(sqlite3_column_bytes(row, col));
                          if (v == nullptr || std::string_view(reinterpret_cast<const char*>(v), n) != expect) {
                            intact = false;
                          }
                        }
                      }));
  OpStats& s = ops_stats_[static_cast<int>(YcsbOp::kRead)];
  s.lat.Record((env_.queue->now() - start).ns());
  if (out == Outcome::kFailed) {
    s.failed.Inc();
    return out;
  }
  if (spec_.p.dataintegrity) (found && intact ? verify_ok_ : verify_bad_).Inc();
  if (!found) {
    s.not_found.Inc();
    return Outcome::kNotFound;
  }
  return Outcome::kOk;
}

sim::Result<YcsbSqlite::Outcome> YcsbSqlite::Update(Thread& th, const std::string& key, int field) {
  FS_ASSIGN_OR_RETURN(sqlite3_stmt * st, KeyedStatement(th, kUpdateSql, field, key));
  const auto [first, end] = Fields(field);
  for (uint32_t i = first; i < end; ++i) {
    const std::string& v = th.values[i];
    sqlite3_bind_text(st, static_cast<int>(i - first) + 2, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
  }
  const sim::SimTime start = env_.queue->now();
  FS_ASSIGN_OR_RETURN(Outcome out, Step(th, st, {}));
  OpStats& s = ops_stats_[static_cast<int>(YcsbOp::kUpdate)];
  s.lat.Record((env_.queue->now() - start).ns());
  if (out == Outcome::kFailed) {
    s.failed.Inc();
    return out;
  }
  if (sqlite3_changes(th.db->handle()) == 0) {
    s.not_found.Inc();
    return Outcome::kNotFound;
  }
  return Outcome::kOk;
}

sim::Result<YcsbSqlite::Outcome> YcsbSqlite::Insert(Thread& th, int64_t keynum) {
  th.key = YcsbKeyName(keynum, spec_.p.zeropadding, spec_.ordered_keys);
  MakeValues(th, th.key, -1);
  sqlite3_stmt* st = Statement(th, &th.insert, insert_sql_);
  if (st == nullptr) return th.db->Error(insert_sql_);
  sqlite3_bind_text(st, 1, th.key.data(), static_cast<int>(th.key.size()), SQLITE_STATIC);
  for (uint32_t i = 0; i < spec_.p.fieldcount; ++i) {
    const std::string& v = th.values[i];
    sqlite3_bind_text(st, static_cast<int>(i) + 2, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
  }
  return Step(th, st, {});
}

sim::Status YcsbSqlite::Load(Thread& th) {
  load_window_.Begin(env_.queue->now(), sqlite_.vfs().Snapshot());
  const int64_t first = static_cast<int64_t>(spec_.p.insertstart);
  const int64_t end = first + static_cast<int64_t>(spec_.insertcount);
  const bool batched = cfg_.load_batch > 1;
  for (int64_t k = first; k < end;) {
    const sim::SimTime start = env_.queue->now();
    if (batched) FS_RETURN_IF_ERROR(th.db->Exec("BEGIN;"));
    uint64_t n = 0;
    for (; n < cfg_.load_batch && k < end; ++n, ++k) {
      FS_ASSIGN_OR_RETURN(Outcome out, Insert(th, k));
      if (out != Outcome::kOk) {
        if (batched) th.db->Exec("ROLLBACK;");
        return sim::Status::IoError(fmt::format("sqlite: load: inserting key number {} ({}) failed: {}", k, th.key,
                                                sqlite3_errmsg(th.db->handle())));
      }
    }
    if (batched) FS_RETURN_IF_ERROR(th.db->Exec("COMMIT;"));
    load_batch_lat_.Record((env_.queue->now() - start).ns());
    load_records_.Inc(n);
  }
  load_window_.End(env_.queue->now(), sqlite_.vfs().Snapshot());
  return sim::Status::Ok();
}

sim::Status YcsbSqlite::Run(Thread& th) {
  const uint64_t todo = spec_.OpsOfThread(th.id);
  const sim::SimTime stop = spec_.max_execution.ns() > 0 ? run_start_ + spec_.max_execution : sim::SimTime::Zero();
  // YCSB's pacing: per-thread rate target / threadcount (the count asked
  // for), one operation every `tick` from the thread's start.
  int64_t tick = 0;
  if (spec_.p.target > 0) {
    const double per_thread_per_ms = spec_.p.target / spec_.p.threadcount / 1000.0;
    tick = static_cast<int64_t>(std::min(1e18, 1e6 / per_thread_per_ms));
    if (per_thread_per_ms <= 1.0 && tick > 0) {
      sqlite_.runtime().Sleep(sim::Ns(static_cast<int64_t>(th.rng.Uniform(static_cast<uint64_t>(tick)))));
    }
  }
  const sim::SimTime start = env_.queue->now();
  for (uint64_t done = 0; todo == 0 || done < todo; ++done) {
    if (sqlite_.failed() || (stop.ns() > 0 && env_.queue->now() >= stop)) break;
    FS_RETURN_IF_ERROR(Transaction(th));
    ops_.Inc();
    if (tick > 0) {
      const sim::SimTime next = start + sim::Ns(static_cast<int64_t>(done + 1) * tick);
      if (next > env_.queue->now()) sqlite_.runtime().Sleep(next - env_.queue->now());
    }
  }
  return sim::Status::Ok();
}

sim::Status YcsbSqlite::Transaction(Thread& th) {
  const YcsbOp op = choosers_.NextOp(th.rng);
  if (op == YcsbOp::kInsert) {
    const int64_t keynum = choosers_.inserted().Next();
    const sim::SimTime start = env_.queue->now();
    sim::Result<Outcome> out = Insert(th, keynum);
    // As YCSB: the key becomes choosable whatever the insert's fate.
    choosers_.inserted().Acknowledge(keynum);
    FS_RETURN_IF_ERROR(out.status());
    OpStats& s = ops_stats_[static_cast<int>(YcsbOp::kInsert)];
    s.lat.Record((env_.queue->now() - start).ns());
    if (*out == Outcome::kFailed) s.failed.Inc();
    return sim::Status::Ok();
  }
  FS_ASSIGN_OR_RETURN(const int64_t keynum, choosers_.NextKeynum(th.rng));
  th.key = YcsbKeyName(keynum, spec_.p.zeropadding, spec_.ordered_keys);
  const std::string& key = th.key;
  if (op == YcsbOp::kRead) {
    const int field = spec_.p.readallfields ? -1 : static_cast<int>(choosers_.NextField(th.rng));
    return Read(th, key, field).status();
  }
  if (op == YcsbOp::kUpdate) {
    const int field = spec_.p.writeallfields ? -1 : static_cast<int>(choosers_.NextField(th.rng));
    MakeValues(th, key, field);
    return Update(th, key, field).status();
  }
  if (op == YcsbOp::kScan) {
    const uint64_t len = choosers_.NextScanLength(th.rng);
    const int field = spec_.p.readallfields ? -1 : static_cast<int>(choosers_.NextField(th.rng));
    return Scan(th, key, len, field);
  }
  // Read-modify-write: the fields to read, the new values, then read and
  // (if the read found the record) update, timed as one operation.
  const int read_field = spec_.p.readallfields ? -1 : static_cast<int>(choosers_.NextField(th.rng));
  const int write_field = spec_.p.writeallfields ? -1 : static_cast<int>(choosers_.NextField(th.rng));
  MakeValues(th, key, write_field);
  const sim::SimTime start = env_.queue->now();
  FS_ASSIGN_OR_RETURN(Outcome out, Read(th, key, read_field));
  if (out == Outcome::kOk) {
    FS_ASSIGN_OR_RETURN(out, Update(th, key, write_field));
  }
  OpStats& s = ops_stats_[static_cast<int>(YcsbOp::kReadModifyWrite)];
  s.lat.Record((env_.queue->now() - start).ns());
  if (out == Outcome::kFailed) s.failed.Inc();
  if (out == Outcome::kNotFound) s.not_found.Inc();
  return sim::Status::Ok();
}

sim::Status YcsbSqlite::Scan(Thread& th, const std::string& key, uint64_t len, int field) {
  FS_ASSIGN_OR_RETURN(sqlite3_stmt * st, KeyedStatement(th, kScanSql, field, key));
  sqlite3_bind_int64(st, 2, static_cast<sqlite3_int64>(len));
  uint64_t rows = 0;
  const sim::SimTime start = env_.queue->now();
  FS_ASSIGN_OR_RETURN(Outcome out, Step(th, st, [&](sqlite3_stmt*) { ++rows; }));
  OpStats& s = ops_stats_[static_cast<int>(YcsbOp::kScan)];
  s.lat.Record((env_.queue->now() - start).ns());
  scan_rows_.Inc(rows);
  if (out == Outcome::kFailed) s.failed.Inc();
  return sim::Status::Ok();
}

sim::Status YcsbSqlite::Teardown(Thread& th) {
  for (Thread::Slots& k : th.keyed) {
    sqlite3_finalize(k.all);
    k.all = nullptr;
    for (sqlite3_stmt*& st : k.one) {
      sqlite3_finalize(st);
      st = nullptr;
    }
  }
  sqlite3_finalize(th.insert);
  th.insert = nullptr;
  if (!th.db) return sim::Status::Ok();
  sim::Status st = th.db->Close();
  th.db.reset();
  return st;
}

}  // namespace host::sqlite
