// Mobibench SQLite: the SQLite workload of Mobibench (ESOS Lab, Hanyang
// University), run on real SQLite through SqliteVfs in simulated time.
//
// What Mobibench does (its `-d` mode), and so what this does by default:
// each thread opens its own database "<dir>/test.db<thread>", sets
// `PRAGMA page_size=4096`, the journal mode and the synchronous level,
// creates
//   CREATE TABLE tblMyList (id INTEGER PRIMARY KEY autoincrement,
//                           Value TEXT not null, creation_date long)
// and then runs `transactions` autocommit statements, each one transaction:
//   insert: INSERT INTO tblMyList(Value) VALUES('<100-char string>')
//           (the table is dropped and recreated first)
//   update: UPDATE tblMyList SET Value='<100 chars>' WHERE id=<random in 1..n>
//   delete: DELETE FROM tblMyList WHERE id=<i>
// where update and delete first fill the table with n = `transactions`
// rows. Mobibench's defaults: 10 transactions, journal mode TRUNCATE,
// synchronous FULL, 1 thread, 100-byte records. Throughput is
// transactions x threads / (time from the start signal until every thread
// finished its loop); closing the database (and a WAL checkpoint it may do)
// is outside that window, as in Mobibench.
//
// Extensions (defaults keep Mobibench's behaviour):
//  - ops_per_transaction, tables, databases: a transaction is BEGIN
//    IMMEDIATE; ops_per_transaction statements on every table
//    ("tblMyList", "tblMyList1", ...) of every database; COMMIT. Databases
//    beyond the first are ATTACHed as db1, db2, ... from
//    "<dir>/test.db<thread>-<k>"; in rollback-journal modes a transaction
//    that changes several of them commits through a super-journal, as
//    SQLite does. With a single statement per transaction no BEGIN/COMMIT
//    is issued (autocommit, like Mobibench).
//  - shared_database: all threads use thread 0's database files (each with
//    its own connection), so they contend on SQLite's locks; busy waits use
//    SQLite's busy handler (busy_timeout) in simulated time.
//  - Deletes remove id = i+1 (Mobibench's id = i deletes nothing in its
//    first transaction); each thread of a shared database deletes its own
//    id range. Prefill for update/delete runs in transactions of up to 1000
//    rows, untimed. Mobibench's final DROP TABLE and unlink after delete are
//    not done, so the database can be inspected after the run.
//  - cpu_per_statement: simulated CPU time charged before each statement
//    (SQLite's own CPU work is otherwise free in simulated time).
//
// Determinism: SQLite's internal PRNG (journal nonces, super-journal names,
// WAL salts) is process-global; Start() seeds it from the run seed through
// sqlite3_test_control(SQLITE_TESTCTRL_PRNG_SEED). Two simulations must
// not drive SQLite from two OS threads at once.
//
// Statistics (group given in Env, e.g. "sqlite"):
//   txns, ops (rows changed), errors, txn.lat (ns, histogram),
//   measured_time (s), txn_per_s, fsyncs, fsyncs_per_txn, syncs.<kind>
//   (db, journal, wal, super_journal, temp, dir), bytes_written,
//   bytes_written_per_txn, bytes_read: all over the measured window.
//   vfs.<kind>.* (whole run, setup and close included; see SqliteVfs).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fs/file_system.h"
#include "host/sqlite/fiber.h"
#include "host/sqlite/sqlite_vfs.h"
#include "host/sqlite/sqlite_workload.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/rng.h"
#include "sim/stats.h"
#include "sim/status.h"
#include "sim/task.h"
#include "sim/time.h"
#include "sim/units.h"

namespace host::sqlite {

struct MobibenchConfig {
  // In-class values equal the declared defaults.
  std::string operation = "insert";
  uint64_t transactions = 10;
  uint32_t ops_per_transaction = 1;
  std::string journal_mode = "truncate";
  std::string synchronous = "full";
  uint32_t tables = 1;
  uint32_t databases = 1;
  sim::Bytes record_size{100};
  uint32_t threads = 1;
  bool shared_database = false;
  std::string dir = "/mobibench";
  sim::Bytes page_size{4096};
  sim::SimTime cpu_per_statement;
  sim::SimTime busy_timeout = sim::Sec(1);
  sim::Bytes fiber_stack{512 * 1024};
  SqliteVfsConfig vfs;

  static void Describe(sim::Schema<MobibenchConfig>& s);
  // Cross-field checks; errors "<path>.<key>: problem".
  sim::Status Validate(std::string_view path = "") const;
};

class MobibenchSqlite {
 public:
  struct Env {
    sim::EventQueue* queue = nullptr;
    fs::FileSystem* fs = nullptr;
    sim::StatGroup stats;  // e.g. root.Group("sqlite")
    uint64_t seed = 1;
    sim::CpuScheduler* cpu = nullptr;  // the host's CPUs (null: none)
  };

  // Validates `cfg` and builds the workload (its fiber runtime and VFS).
  static sim::Result<std::unique_ptr<MobibenchSqlite>> Create(const MobibenchConfig& cfg, Env env,
                                                              std::string_view path = "");
  MobibenchSqlite(const MobibenchConfig& cfg, Env env);
  ~MobibenchSqlite();
  MobibenchSqlite(const MobibenchSqlite&) = delete;
  MobibenchSqlite& operator=(const MobibenchSqlite&) = delete;

  // Spawns the threads at the current simulated time. `on_done` runs (on
  // the event loop) once every thread has closed its database, or after
  // the first error has stopped every thread; it must not destroy the
  // workload. Call once.
  void Start(std::function<void()> on_done = {});

  bool done() const { return sqlite_.done(); }
  // The first error any thread met (SQLite or file system), else OK.
  const sim::Status& status() const { return sqlite_.status(); }

  // Results over the measured window (valid once done()).
  uint64_t txns() const { return txns_.value(); }
  sim::SimTime measured_time() const { return window_.time(); }
  double TxnPerSec() const { return window_.PerSecond(txns_.value()); }
  double FsyncsPerTxn() const { return window_.SyncsPer(txns_.value()); }
  double BytesWrittenPerTxn() const { return window_.BytesWrittenPer(txns_.value()); }
  const VfsCounts& measured() const { return window_.counts(); }
  const sim::Histogram& txn_latency() const { return txn_lat_; }

  const MobibenchConfig& config() const { return cfg_; }
  SqliteVfs& vfs() { return sqlite_.vfs(); }
  FiberRuntime& runtime() { return sqlite_.runtime(); }
  // Path of database `k` (0 = main) of `thread`.
  std::string DbPath(uint32_t thread, uint32_t k) const;
  // Name of table `t` ("tblMyList", "tblMyList1", ...).
  static std::string TableName(uint32_t t);
  // Rows each table holds before the measured phase (update/delete).
  uint64_t PrefillRows() const;
  // The text of record `variant` (0 = insert, 1 = update), record_size bytes.
  std::string Record(int variant) const;

 private:
  struct Thread;
  void ThreadMain(uint32_t t);
  sim::Status OpenAndConfigure(Thread& th);
  sim::Status CreateSchema(Thread& th);
  sim::Status Prefill(Thread& th);
  sim::Status Prepare(Thread& th);
  sim::Status RunTransactions(Thread& th);
  sim::Status Teardown(Thread& th);

  MobibenchConfig cfg_;
  Env env_;
  SqliteThreads sqlite_;
  std::vector<std::unique_ptr<Thread>> threads_;
  std::string insert_record_, update_record_;

  // Threads past setup; threads ready to measure.
  FiberBarrier setup_done_, ready_;
  uint32_t finished_loops_ = 0;
  MeasuredWindow window_;

  sim::Counter txns_, ops_;
  sim::Histogram txn_lat_;
};

}  // namespace host::sqlite
