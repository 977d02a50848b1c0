// SqliteVfs: an sqlite3_vfs whose files live in a flashstack fs::FileSystem.
//
// Real SQLite (the system's libsqlite3) runs unmodified on a Fiber; each
// VFS method turns into the fs::FileSystem calls that SQLite's unix VFS
// makes on Linux, awaited in simulated time through FiberRuntime::
// AwaitTask(). So a transaction produces exactly the file I/O SQLite
// issues, and its latency is what the file system and device below take.
//
// Mapping (the unix VFS on Linux, SQLite 3.40):
//   xOpen     -> Open (O_CREAT/O_EXCL/O_RDWR as asked; a temp file without
//                a name gets one under SqliteVfsConfig::temp_dir, and a
//                SQLITE_OPEN_DELETEONCLOSE file is unlinked right after the
//                open, as unix does)
//   xRead     -> Pread (a short read zero-fills and is SQLITE_IOERR_SHORT_READ)
//   xWrite    -> Pwrite; xTruncate -> Ftruncate; xFileSize -> Fstat
//   xSync     -> Fdatasync (Linux builds of SQLite sync with fdatasync;
//                sync_call = "fsync" uses Fsync instead). The first sync of
//                a rollback journal, super-journal or WAL opened with
//                SQLITE_OPEN_CREATE (new or not: the pager reopens a
//                TRUNCATE/PERSIST journal every transaction) also syncs the
//                parent directory (open it, sync it, close), as unix does.
//   xDelete   -> Unlink, then a directory sync when SQLite asks for one
//   xAccess   -> Stat (EXISTS is false for an empty regular file, as unix)
//   xClose    -> Close
//   xLock/xUnlock/xCheckReservedLock: an in-process lock table keyed by path,
//                with SQLite's SHARED/RESERVED/PENDING/EXCLUSIVE rules among
//                the connections of this VFS (see LockEntry in the .cc).
//                Locks take no simulated time (fcntl locks are CPU only).
//   xShm*     -> the WAL index lives in memory, one per database path, shared
//                by the connections that map it, with SQLite's 8 shm lock
//                slots. On Linux the -shm file is mmap'ed and its pages are
//                written back only by the kernel's flusher, never by
//                SQLite; that writeback is not modelled. The index is dropped
//                when the last connection unmaps it, so the next opener
//                rebuilds it from the WAL, exactly as unix does when it
//                truncates a -shm file nobody holds.
//   xSleep    -> simulated time; xCurrentTime -> epoch_unix_s + simulated
//                time; xRandomness -> a seeded sim::Rng stream.
// File-system transactions (fs_transactions: true). The system SQLite has no
// batch-atomic-write support, so the VFS maps SQLite's commit onto the file
// system's multi-file transaction (fs::FileSystem::TxAdd/TxStart/TxCommit/
// TxEnd, exF2FS's ADD/START/COMMIT/END), as exF2FS's SQLite does with its
// ioctls. Meant for journal_mode MEMORY (or OFF): no rollback journal and no
// super-journal reach the file system; the file-system transaction is what
// makes the commit atomic and durable, over every database it changed.
//   - The database files one connection changes in a write transaction
//     form one set. A connection is the fiber it runs on: when a database
//     file gets RESERVED (or a higher lock) for the first time in a write
//     transaction, it joins the running set of the calling fiber (TxAdd), or
//     creates it and starts it (TxAdd with key 0, TxStart). Joining happens
//     with the lock held, so no other connection is writing the file.
//   - xSync of a member is not passed on: the commit makes the data
//     durable (counted in tx.syncs_skipped).
//   - SQLITE_FCNTL_COMMIT_PHASETWO on a member (sent by the pager after its
//     commit, before it drops its lock; with several databases, after every
//     database's phase one) commits the whole set (TxCommit) and dissolves
//     it (TxEnd); the members' later phase-two calls find no set.
//   - An unlock below RESERVED of a member whose set was not committed
//     (SQLite rolled back) aborts the set (TxEnd drops its writes; SQLite
//     discards its cached pages, so both agree on the old content).
//   - A file system without transactions answers EOPNOTSUPP: the lock
//     fails with SQLITE_IOERR_LOCK and tx_error() says why.
// Memory-mapped I/O (xFetch) is not offered: SQLite then uses xRead, as it
// does with the default mmap_size of 0.
//
// Registration: the constructor registers the VFS under a name unique to
// this instance (name()); pass it to sqlite3_open_v2(). Connections must be
// opened with SQLITE_OPEN_NOMUTEX (or SQLite built single-threaded): with
// fibers, several connections take turns on one OS thread, so SQLite's
// recursive per-connection mutexes must not be shared between fibers. Every
// method must be called on a fiber of `runtime` (it CHECK-fails otherwise).
//
// Statistics: per file kind (db, journal, wal, super_journal, temp, dir)
// the calls and bytes below, registered under the group given to the
// constructor as "<kind>.<stat>" (e.g. "sqlite.vfs.journal.syncs").
#pragma once

#include <sqlite3.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "fs/file_system.h"
#include "host/sqlite/fiber.h"
#include "sim/config.h"
#include "sim/rng.h"
#include "sim/stats.h"
#include "sim/time.h"

namespace host::sqlite {

enum class FileKind : uint8_t { kDb, kJournal, kWal, kSuperJournal, kTemp, kDir };
inline constexpr int kFileKinds = 6;
std::string_view FileKindName(FileKind k);  // "db", "journal", ...

// VFS settings (a section of the SQLite workload's config).
struct SqliteVfsConfig {
  std::string sync_call = "fdatasync";
  bool dir_sync = true;
  sim::Bytes sector_size{4096};
  bool powersafe_overwrite = true;
  std::string temp_dir;
  uint64_t epoch_unix_s = 0;
  bool fs_transactions = false;

  static void Describe(sim::Schema<SqliteVfsConfig>& s);
};

// Calls and bytes for one kind of file. Plain counters, updated in place.
struct VfsKindStats {
  sim::Counter opens, closes, reads, writes, bytes_read, bytes_written, syncs, truncates, deletes, size_queries;
  sim::Counter short_reads;
};

// A snapshot of the counters as plain numbers (for deltas over a phase).
struct VfsCounts {
  struct Kind {
    uint64_t opens = 0, closes = 0, reads = 0, writes = 0, bytes_read = 0, bytes_written = 0, syncs = 0,
             truncates = 0, deletes = 0, size_queries = 0, short_reads = 0;
  };
  std::array<Kind, kFileKinds> kind{};
  uint64_t accesses = 0;
  uint64_t busy = 0;  // lock requests answered SQLITE_BUSY
  uint64_t sleeps = 0;

  const Kind& of(FileKind k) const { return kind[static_cast<int>(k)]; }
  uint64_t TotalSyncs() const;
  uint64_t TotalBytesWritten() const;
  uint64_t TotalBytesRead() const;
  VfsCounts Minus(const VfsCounts& earlier) const;
};

class VfsCallbacks;

class SqliteVfs {
 public:
  // Registers the VFS (not as the default). `stats` receives the counters.
  // `seed` seeds xRandomness. REQUIRES: runtime, fs outlive the VFS;
  // cfg.sync_call is "fdatasync" or "fsync".
  SqliteVfs(FiberRuntime* runtime, fs::FileSystem* fs, const SqliteVfsConfig& cfg, uint64_t seed,
            sim::StatGroup stats);
  // Unregisters. Every connection using it should be closed first; files
  // left open (a run stopped early) are abandoned, not closed.
  ~SqliteVfs();
  SqliteVfs(const SqliteVfs&) = delete;
  SqliteVfs& operator=(const SqliteVfs&) = delete;

  // The registered name, for sqlite3_open_v2's zVfs.
  const char* name() const { return name_.c_str(); }
  sqlite3_vfs* vfs() { return &vfs_; }
  FiberRuntime* runtime() const { return rt_; }
  fs::FileSystem* file_system() const { return fs_; }

  VfsCounts Snapshot() const;
  const VfsKindStats& stats(FileKind k) const { return kind_stats_[static_cast<int>(k)]; }
  // Files currently open through this VFS.
  int open_files() const { return open_files_; }
  // File-system transactions (fs_transactions): commits and aborts so far,
  // and the first refusal from the file system ("" if none).
  uint64_t tx_commits() const { return tx_commits_.value(); }
  uint64_t tx_aborts() const { return tx_aborts_.value(); }
  const std::string& tx_error() const { return tx_error_; }

  // Lock and shared-memory tables (defined in the .cc).
  struct Impl;

 private:
  friend class VfsCallbacks;  // the C callbacks
  FiberRuntime* rt_;
  fs::FileSystem* fs_;
  SqliteVfsConfig cfg_;
  std::string name_;
  sqlite3_vfs vfs_{};
  sim::Rng rng_;
  std::array<VfsKindStats, kFileKinds> kind_stats_;
  sim::Counter accesses_, busy_, sleeps_;
  sim::Counter tx_commits_, tx_aborts_, tx_syncs_skipped_;
  sim::Histogram tx_commit_lat_;
  std::string tx_error_;
  int open_files_ = 0;
  bool use_fsync_ = false;
  bool temp_dir_ready_ = false;
  uint64_t temp_seq_ = 0;
  std::unique_ptr<Impl> impl_;
};

}  // namespace host::sqlite
