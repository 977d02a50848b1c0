// YCSB on SQLite: YCSB's CoreWorkload (workloads A-F and any property file
// in their format) run against real SQLite through SqliteVfs, in simulated
// time, as YCSB's JDBC binding runs it against a SQL database.
//
// Input: a YCSB property file (`properties`), `set` entries "name=value"
// (YCSB's -p) and the typed overrides recordcount / operationcount /
// threadcount; see ycsb_spec.h for what is read, the order, and what is an
// error. The generators are YCSB's (ycsb_generators.h).
//
// The database: one file "<dir>/ycsb.db" holding
//   CREATE TABLE <table>(YCSB_KEY VARCHAR PRIMARY KEY, FIELD0 TEXT, ...,
//                        FIELD<fieldcount-1> TEXT)
// (the column names are the upper-cased fieldnameprefix + index), created
// after PRAGMA page_size / journal_mode / synchronous. Statements, prepared
// once per connection and reused, each an autocommit transaction:
//   read    SELECT * FROM t WHERE YCSB_KEY = ?        (readallfields)
//           SELECT FIELDk FROM t WHERE YCSB_KEY = ?   (one random field)
//   update  UPDATE t SET FIELDk = ? WHERE YCSB_KEY = ? (one random field, or
//           every field with writeallfields)
//   insert  INSERT INTO t (YCSB_KEY, FIELD0, ...) VALUES (?, ?, ...)
//   scan    SELECT * (or YCSB_KEY, FIELDk) FROM t WHERE YCSB_KEY >= ?
//           ORDER BY YCSB_KEY LIMIT ?
//   read-modify-write: the read, then the update, of one record.
// Field values are printable random text of the chosen length (with
// dataintegrity: derived from key and field, and reads are checked).
//
// Phases:
//  - load (YCSB's -load): thread 0 inserts key numbers insertstart ..
//    insertstart + insertcount - 1 in that order, `load_batch` records per
//    transaction (BEGIN ... COMMIT; 1 = one autocommit INSERT each, like
//    JDBC without batching). It takes simulated time but is outside the
//    measured window; its own figures are the load.* statistics.
//  - run (unless dotransactions=false): threadcount threads, each with its
//    own connection to the one database file, together run operationcount
//    operations (YCSB's split), or until maxexecutiontime. Lock conflicts
//    between connections wait in SQLite's busy handler (busy_timeout) in
//    simulated time; a statement still busy after it (or an insert hitting
//    an existing key) fails that operation, as YCSB counts a failed
//    operation, and the run goes on. Any other SQLite or file-system error
//    stops the run. With `target`, each thread paces its operations to
//    target / threadcount per second as YCSB's client does (start + n /
//    rate), after a random start offset below one period when that rate is
//    at most 1000/s.
//  - with count_rows, after the run thread 0 counts the table's rows
//    (untimed; the figure is `rows`).
//
// Determinism: thread t draws from sim::Rng stream "sqlite.ycsb.thread<t>"
// of the run seed; SQLite's PRNG is seeded from it (see SqliteThreads);
// the fibers interleave in the event queue's order. Same config and seed:
// the same statements in the same order, byte-identical statistics.
//
// Statistics (group given in Env, e.g. "workload"), over the measured
// window (the run phase):
//   ops, ops_per_s, measured_time (s), fsyncs, fsyncs_per_op,
//   syncs.<kind>, bytes_written, bytes_written_per_op, bytes_read;
//   <op>.lat (ns, histogram) for read, update, insert, scan and
//   read_modify_write: as in YCSB's report, read and update include the two
//   halves of every read-modify-write, whose own histogram spans both;
//   <op>.failed (busy past the timeout, or an insert's key existing),
//   read.not_found / update.not_found / read_modify_write.not_found (no row
//   with the key), scan.rows (rows scans returned), verify.ok / verify.bad
//   (dataintegrity), errors (errors that stopped a thread), rows
//   (count_rows);
//   load.records, load.records_per_s, load.batch.lat and the load phase's
//   own measured_time, fsyncs, fsyncs_per_record, syncs.<kind>,
//   bytes_written, bytes_written_per_record, bytes_read;
//   vfs.<kind>.* (whole run; see SqliteVfs).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fs/file_system.h"
#include "host/sqlite/sqlite_vfs.h"
#include "host/sqlite/sqlite_workload.h"
#include "host/sqlite/ycsb_generators.h"
#include "host/sqlite/ycsb_spec.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/status.h"
#include "sim/time.h"
#include "sim/units.h"

namespace host::sqlite {

struct YcsbConfig {
  // In-class values equal the declared defaults.
  std::string properties;
  std::vector<std::string> set;
  uint64_t recordcount = 0;
  uint64_t operationcount = 0;
  uint32_t threadcount = 0;
  uint64_t load_batch = 1000;
  bool count_rows = false;
  std::string dir = "/ycsb";
  std::string journal_mode = "delete";
  std::string synchronous = "full";
  sim::Bytes page_size{4096};
  sim::SimTime cpu_per_statement;
  sim::SimTime busy_timeout = sim::Sec(1);
  sim::Bytes fiber_stack{512 * 1024};
  SqliteVfsConfig vfs;

  static void Describe(sim::Schema<YcsbConfig>& s);
  // Checks the keys and resolves the properties (reading the file);
  // errors name "<path>.<key>" or the property file's "file:line".
  sim::Result<YcsbSpec> Resolve(std::string_view path) const;
};

class YcsbSqlite {
 public:
  struct Env {
    sim::EventQueue* queue = nullptr;
    fs::FileSystem* fs = nullptr;
    sim::StatGroup stats;  // e.g. root.Group("workload")
    uint64_t seed = 1;
    sim::CpuScheduler* cpu = nullptr;  // the host's CPUs (null: none)
  };

  // Resolves `cfg` and builds the workload; logs the spec's warnings.
  static sim::Result<std::unique_ptr<YcsbSqlite>> Create(const YcsbConfig& cfg, Env env,
                                                         std::string_view path = "");
  YcsbSqlite(const YcsbConfig& cfg, YcsbSpec spec, Env env);
  ~YcsbSqlite();
  YcsbSqlite(const YcsbSqlite&) = delete;
  YcsbSqlite& operator=(const YcsbSqlite&) = delete;

  // Spawns the threads at the current simulated time; `on_done` runs on the
  // event loop once all have closed their connections (or the first error
  // stopped them). Call once.
  void Start(std::function<void()> on_done = {});

  bool done() const { return sqlite_.done(); }
  const sim::Status& status() const { return sqlite_.status(); }

  // Results over the measured window (valid once done()).
  uint64_t ops() const { return ops_.value(); }
  sim::SimTime measured_time() const { return window_.time(); }
  double OpsPerSec() const { return window_.PerSecond(ops_.value()); }
  double FsyncsPerOp() const { return window_.SyncsPer(ops_.value()); }
  double BytesWrittenPerOp() const { return window_.BytesWrittenPer(ops_.value()); }
  const VfsCounts& measured() const { return window_.counts(); }
  const sim::Histogram& latency(YcsbOp op) const { return ops_stats_[static_cast<int>(op)].lat; }
  uint64_t failed(YcsbOp op) const { return ops_stats_[static_cast<int>(op)].failed.value(); }
  uint64_t not_found(YcsbOp op) const { return ops_stats_[static_cast<int>(op)].not_found.value(); }
  uint64_t scan_rows() const { return scan_rows_.value(); }
  uint64_t verify_bad() const { return verify_bad_.value(); }
  uint64_t load_records() const { return load_records_.value(); }
  const MeasuredWindow& load_window() const { return load_window_; }
  // Rows in the table after the run (count_rows), else -1.
  int64_t rows() const { return rows_; }
  // Operations and load records done / planned (0 = unbounded).
  uint64_t completed() const { return load_records_.value() + ops_.value(); }
  uint64_t planned() const;
  // The summary lines of the run.
  std::string Summary() const;

  const YcsbSpec& spec() const { return spec_; }
  const YcsbConfig& config() const { return cfg_; }
  std::string DbPath() const;
  // Column name of field `i` ("FIELD3").
  std::string Column(uint32_t i) const;
  SqliteVfs& vfs() { return sqlite_.vfs(); }
  FiberRuntime& runtime() { return sqlite_.runtime(); }

 private:
  struct Thread;
  struct OpStats {
    sim::Histogram lat;
    sim::Counter failed, not_found;
  };
  // How one statement of an operation ended: YCSB's OK, NOT_FOUND (no row
  // with the key), or a failed operation (busy past the timeout, or a
  // constraint); other errors are error statuses and stop the run.
  enum class Outcome { kOk, kNotFound, kFailed };

  void ThreadMain(uint32_t t);
  sim::Status Connect(Thread& th);
  sim::Status Setup(Thread& th);  // connect, create the table, load
  sim::Status Load(Thread& th);
  sim::Status Run(Thread& th);
  sim::Status Transaction(Thread& th);
  sim::Status Teardown(Thread& th);

  // The statements; `field` < 0 is every field. Each records its latency.
  sim::Result<Outcome> Read(Thread& th, const std::string& key, int field);
  sim::Result<Outcome> Update(Thread& th, const std::string& key, int field);  // th.values
  sim::Result<Outcome> Insert(Thread& th, int64_t keynum);                     // unmeasured
  sim::Status Scan(Thread& th, const std::string& key, uint64_t len, int field);
  // Charges cpu_per_statement, steps `st` to its end (on_row for each row)
  // and resets it.
  sim::Result<Outcome> Step(Thread& th, sqlite3_stmt* st, const std::function<void(sqlite3_stmt*)>& on_row);
  // Statements on a key: read, update, scan (indexes of keyed_sql_).
  enum Keyed { kReadSql, kUpdateSql, kScanSql, kKeyedKinds };
  // The SQL of one of them over every field, and over each one field.
  struct KeyedSql {
    std::string all;
    std::vector<std::string> one;
  };
  // The prepared statement in *slot, prepared from `sql` on first use;
  // null if it does not prepare.
  static sqlite3_stmt* Statement(Thread& th, sqlite3_stmt** slot, const std::string& sql);
  // The `kind` statement on `field` (< 0: every field), key bound as ?1.
  sim::Result<sqlite3_stmt*> KeyedStatement(Thread& th, Keyed kind, int field, const std::string& key);
  // The fields [first, end) a statement on `field` covers; YCSB's name of
  // field i (fieldnameprefix + i).
  std::pair<uint32_t, uint32_t> Fields(int field) const;
  std::string FieldName(uint32_t i) const;
  // New values (of field lengths drawn as YCSB does) into th.values.
  void MakeValues(Thread& th, const std::string& key, int field);
  void Charge();

  YcsbConfig cfg_;
  YcsbSpec spec_;
  Env env_;
  SqliteThreads sqlite_;
  YcsbChoosers choosers_;
  std::vector<std::unique_ptr<Thread>> threads_;
  KeyedSql keyed_sql_[kKeyedKinds];
  std::string insert_sql_;
  FiberBarrier loaded_, ready_, finished_;
  uint32_t finished_loops_ = 0;
  MeasuredWindow window_, load_window_;
  sim::SimTime run_start_;
  int64_t rows_ = -1;

  sim::Counter ops_, scan_rows_, verify_ok_, verify_bad_, load_records_;
  OpStats ops_stats_[kYcsbOps];
  sim::Histogram load_batch_lat_;
};

}  // namespace host::sqlite
