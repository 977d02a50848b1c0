// What the SQLite workloads (Mobibench, YCSB) share:
//  - the keys of their config sections that say how SQLite runs (where the
//    database lives, journal mode, synchronous level, page size, busy
//    timeout, CPU per statement, fiber stack, the VFS section), declared by
//    one function into each workload's schema;
//  - opening and configuring a connection;
//  - SqliteThreads: the simulated threads that run SQLite (fiber runtime,
//    VFS, the join that reports their end, the first error);
//  - FiberBarrier: threads meeting between phases;
//  - MeasuredWindow: time and the VFS's I/O counts over a phase, with their
//    statistics (fsyncs, fsyncs per unit of work, bytes written, ...).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fs/file_system.h"
#include "host/sqlite/fiber.h"
#include "host/sqlite/sqlite_db.h"
#include "host/sqlite/sqlite_vfs.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/status.h"
#include "sim/task.h"
#include "sim/time.h"
#include "sim/units.h"

namespace host::sqlite {

inline const std::vector<std::string> kSqliteJournalModes = {"delete", "truncate", "persist", "wal", "memory", "off"};
inline const std::vector<std::string> kSqliteSynchronousLevels = {"off", "normal", "full", "extra"};

// Declares the SQLite keys into T's schema. T has the fields
//   std::string dir, journal_mode, synchronous; sim::Bytes page_size;
//   sim::SimTime cpu_per_statement, busy_timeout; sim::Bytes fiber_stack;
//   SqliteVfsConfig vfs;
// `dir_default` and `journal_default` are the workload's own defaults.
template <class T>
void DescribeSqliteKeys(sim::Schema<T>& s, const char* dir_default, const char* journal_default) {
  s.Param("dir", &T::dir, dir_default, "Directory of the database files (created if missing)");
  s.Choice("journal_mode", &T::journal_mode, journal_default, kSqliteJournalModes, "SQLite journal_mode");
  s.Choice("synchronous", &T::synchronous, "full", kSqliteSynchronousLevels, "SQLite synchronous level");
  s.Param("page_size", &T::page_size, "4KiB", "SQLite page_size").Range(512, 65536);
  s.Param("cpu_per_statement", &T::cpu_per_statement, "0s",
          "Simulated CPU time charged before each data statement");
  s.Param("busy_timeout", &T::busy_timeout, "1s",
          "SQLite busy timeout: how long a connection retries a lock held by another");
  s.Param("fiber_stack", &T::fiber_stack, "512KiB",
          "Stack size of each simulated thread running SQLite (guard page added)")
      .Range(64 << 10, 64 << 20);
  s.Section("vfs", &T::vfs, "How SQLite's file calls map onto the file system");
}

// Checks those keys of a config section at `path`: errors
// "<path>.<key>: problem".
sim::Status ValidateSqliteKeys(std::string_view path, uint64_t page_size, const std::string& dir,
                               const std::string& journal_mode, const SqliteVfsConfig& vfs);

// `in` with ASCII letters upper-cased (SQL keywords and names).
std::string AsciiUpper(std::string_view in);

// The SQLite keys as one connection applies them.
struct SqliteSettings {
  std::string journal_mode;  // a kSqliteJournalModes entry
  std::string synchronous;   // a kSqliteSynchronousLevels entry
  uint64_t page_size = 4096;
  sim::SimTime busy_timeout;
};

// On a fiber of `vfs`'s runtime: creates `dir` if missing, opens `path`
// (created if missing) and sets the busy timeout.
sim::Result<std::unique_ptr<SqliteDb>> OpenWorkloadDb(SqliteVfs* vfs, const std::string& dir,
                                                      const std::string& path, sim::SimTime busy_timeout);
// PRAGMA <schema>.page_size, journal_mode and synchronous.
sim::Status ApplySettings(SqliteDb& db, std::string_view schema, const SqliteSettings& s);

// The simulated threads of a SQLite workload. Own one per workload,
// declared before the per-thread state that holds connections, and call
// Shutdown() first in the workload's destructor: a run cut short then
// closes its connections through SQLite's error paths while the VFS is
// still there (see fiber.h).
class SqliteThreads {
 public:
  // `seed` seeds xRandomness and SQLite's PRNG; `vfs_stats` receives the
  // VFS's counters. REQUIRES: q and fs outlive this.
  SqliteThreads(sim::EventQueue* q, fs::FileSystem* fs, const SqliteVfsConfig& vfs, size_t stack_bytes,
                uint64_t seed, const sim::StatGroup& vfs_stats);
  ~SqliteThreads();
  SqliteThreads(const SqliteThreads&) = delete;
  SqliteThreads& operator=(const SqliteThreads&) = delete;

  // Seeds SQLite's process-global PRNG (journal nonces, super-journal
  // names, WAL salts) from the seed, then starts `n` fibers "<name><i>"
  // running body(i); `on_exit` runs on the event loop once all returned.
  // Two simulations must not drive SQLite from two OS threads at once.
  // Call once.
  void Start(uint32_t n, std::string_view name, std::function<void(uint32_t)> body, std::function<void()> on_exit);
  // Stops the join and runs unfinished fibers to their ends with their
  // waits cut. Idempotent.
  void Shutdown();

  // Records `st` if it is an error: counts it, and keeps the first.
  void Fail(const sim::Status& st);
  bool failed() const { return !status_.ok(); }
  const sim::Status& status() const { return status_; }
  const sim::Counter& errors() const { return errors_; }
  bool done() const { return done_; }

  FiberRuntime& runtime() { return *runtime_; }
  SqliteVfs& vfs() { return *vfs_; }
  const SqliteVfs& vfs() const { return *vfs_; }
  sim::EventQueue* queue() const { return q_; }

 private:
  sim::EventQueue* q_;
  uint64_t seed_;
  std::unique_ptr<FiberRuntime> runtime_;
  std::unique_ptr<SqliteVfs> vfs_;
  sim::Status status_ = sim::Status::Ok();
  sim::Counter errors_;
  bool started_ = false;
  bool done_ = false;
  sim::ThreadGroup roots_{q_};  // the coroutine joining the fibers
};

// `parties` fibers meet: each Arrive() blocks until all have arrived; the
// last to arrive runs `on_last` first. Single use.
class FiberBarrier {
 public:
  FiberBarrier(FiberRuntime* rt, uint32_t parties) : rt_(rt), parties_(parties), sem_(rt->queue(), 0) {}
  void Arrive(const std::function<void()>& on_last = {});

 private:
  FiberRuntime* rt_;
  uint32_t parties_;
  uint32_t arrived_ = 0;
  sim::Semaphore sem_;
};

// Simulated time and the VFS's counts between Begin() and End().
class MeasuredWindow {
 public:
  void Begin(sim::SimTime now, const VfsCounts& c) {
    start_ = now;
    at_start_ = c;
  }
  void End(sim::SimTime now, const VfsCounts& c) {
    end_ = now;
    counts_ = c.Minus(at_start_);
  }
  sim::SimTime time() const { return end_ - start_; }
  const VfsCounts& counts() const { return counts_; }
  // `n` per simulated second of the window, per sync, per byte written.
  double PerSecond(uint64_t n) const;
  double SyncsPer(uint64_t n) const;
  double BytesWrittenPer(uint64_t n) const;

  // Registers into `g`: measured_time (described by `window`), fsyncs,
  // fsyncs_per_<unit>, syncs.<file kind>, bytes_written,
  // bytes_written_per_<unit>, bytes_read; `count` is the units of work
  // done in the window, `unit_name` their name ("transaction").
  void Register(const sim::StatGroup& g, std::string_view window, std::string_view unit,
                std::string_view unit_name, std::function<uint64_t()> count) const;

 private:
  sim::SimTime start_, end_;
  VfsCounts at_start_, counts_;
};

}  // namespace host::sqlite
