// FileSystem: the POSIX-like API that workloads, trace replay and the
// SQLite VFS call. Every call is a coroutine on the simulation clock: it
// completes after the simulated time its work takes (page-cache hits, CPU
// costs, device I/O, waits for checkpoints) and many simulated threads may
// call concurrently.
//
// Data is real: Pwrite stores the given bytes and Pread returns them, so
// applications such as SQLite run unmodified on top. A null/empty data span
// on write means "content does not matter" (synthetic workloads): the bytes
// read back are then zeros.
//
// Errors are returned as negative errno-style codes in FsResult, exactly as
// the kernel would return them (ENOENT, EEXIST, ENOTDIR, EISDIR, ENOTEMPTY,
// EBADF, ENOSPC, EINVAL, ENAMETOOLONG, EBUSY, EOPNOTSUPP); they are
// results, not user errors.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/task.h"
#include "sim/time.h"

namespace fs {

// Error codes (positive values, as errno).
enum class Errno : int32_t {
  kOk = 0,
  kPerm = 1,
  kNoEnt = 2,
  kBadF = 9,
  kExist = 17,
  kNotDir = 20,
  kIsDir = 21,
  kInval = 22,
  kFBig = 27,
  kNoSpc = 28,
  kNameTooLong = 36,
  kNotEmpty = 39,
  kIo = 5,
  kBusy = 16,
  kNotSup = 95,  // EOPNOTSUPP: the file system does not offer the call
};
std::string_view ErrnoName(Errno e);

// Value or errno.
template <class T>
struct FsResult {
  T value{};
  Errno err = Errno::kOk;
  bool ok() const { return err == Errno::kOk; }
};
using FsStatus = FsResult<bool>;

using Fd = int32_t;

// Where a block the file system writes to the device comes from. Every
// file system sorts its device writes into these, so that write
// amplification splits the same way for all of them (fs.written_by.*):
//   data        application data (including data written in place)
//   metadata    the file system's own structures written to their home
//               location: inodes, node blocks, directory blocks, bitmaps,
//               allocation tables
//   journal     journal or log blocks written to make operations durable
//               before their home copies (ext4's jbd2, F2FS-J)
//   cleaning    blocks moved by the file system's garbage collection
//   checkpoint  the checkpoint's own blocks (F2FS's checkpoint pack)
enum class WriteOrigin : uint8_t { kData, kMetadata, kJournal, kCleaning, kCheckpoint, kCount };
std::string_view WriteOriginName(WriteOrigin o);

// 4 KiB blocks written to the device so far, by origin.
struct WritesByOrigin {
  std::array<uint64_t, static_cast<size_t>(WriteOrigin::kCount)> blocks{};
  uint64_t& operator[](WriteOrigin o) { return blocks[static_cast<size_t>(o)]; }
  uint64_t operator[](WriteOrigin o) const { return blocks[static_cast<size_t>(o)]; }
  uint64_t total() const {
    uint64_t n = 0;
    for (uint64_t b : blocks) n += b;
    return n;
  }
};

// open(2) flags (subset; values are the project's own).
enum OpenFlags : uint32_t {
  kRdOnly = 0,
  kWrOnly = 1u << 0,
  kRdWr = 1u << 1,
  kCreat = 1u << 2,
  kTrunc = 1u << 3,
  kAppend = 1u << 4,
  kExcl = 1u << 5,
  kDirectory = 1u << 6,
  kSync = 1u << 7,   // O_SYNC: each write is followed by fsync semantics
  kDirect = 1u << 8, // O_DIRECT: bypass the page cache (aligned I/O)
};

struct FileStat {
  uint64_t ino = 0;
  uint64_t size = 0;
  uint64_t blocks = 0;  // 4 KiB blocks allocated
  uint32_t nlink = 0;
  bool is_dir = false;
  sim::SimTime mtime;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  virtual sim::Task<FsResult<Fd>> Open(std::string_view path, uint32_t flags) = 0;
  virtual sim::Task<FsStatus> Close(Fd fd) = 0;
  // Read/write at the file position (advancing it); O_APPEND writes go to
  // the end. Return bytes transferred (short reads at EOF).
  virtual sim::Task<FsResult<uint64_t>> Read(Fd fd, std::span<uint8_t> out) = 0;
  virtual sim::Task<FsResult<uint64_t>> Write(Fd fd, std::span<const uint8_t> data, uint64_t length) = 0;
  virtual sim::Task<FsResult<uint64_t>> Pread(Fd fd, uint64_t offset, std::span<uint8_t> out) = 0;
  // Read/Pread of `length` bytes by a caller that never looks at them (a
  // benchmark): the same work, simulated time and result, but no bytes are
  // handed back. The defaults read into a scratch buffer; a file system
  // overrides them to skip the copy.
  virtual sim::Task<FsResult<uint64_t>> ReadDiscard(Fd fd, uint64_t length);
  virtual sim::Task<FsResult<uint64_t>> PreadDiscard(Fd fd, uint64_t offset, uint64_t length);
  // Writes `length` bytes at `offset`: the content of `data` if it is not
  // empty (then data.size() == length), zeros otherwise.
  virtual sim::Task<FsResult<uint64_t>> Pwrite(Fd fd, uint64_t offset, std::span<const uint8_t> data,
                                               uint64_t length) = 0;
  virtual sim::Task<FsStatus> Ftruncate(Fd fd, uint64_t size) = 0;
  virtual sim::Task<FsStatus> Truncate(std::string_view path, uint64_t size) = 0;
  virtual sim::Task<FsStatus> Fsync(Fd fd) = 0;
  virtual sim::Task<FsStatus> Fdatasync(Fd fd) = 0;
  virtual sim::Task<FsResult<FileStat>> Fstat(Fd fd) = 0;
  virtual sim::Task<FsResult<FileStat>> Stat(std::string_view path) = 0;
  virtual sim::Task<FsStatus> Unlink(std::string_view path) = 0;
  virtual sim::Task<FsStatus> Mkdir(std::string_view path) = 0;
  virtual sim::Task<FsStatus> Rmdir(std::string_view path) = 0;
  virtual sim::Task<FsStatus> Rename(std::string_view from, std::string_view to) = 0;
  // link(2): `new_path` becomes another name of the regular file `existing`
  // names (nlink + 1). EPERM if `existing` is a directory, EEXIST if
  // `new_path` exists, ENOENT if `existing` or the parent of `new_path`
  // does not (or `new_path` ends with '/'), ENOTDIR for a file used as a
  // directory on either path.
  virtual sim::Task<FsStatus> Link(std::string_view existing, std::string_view new_path) = 0;
  virtual sim::Task<FsResult<std::vector<std::string>>> Readdir(std::string_view path) = 0;
  // sync(2): everything dirty becomes durable (a checkpoint in F2FS).
  virtual sim::Task<FsStatus> Sync() = 0;
  // `echo 3 > /proc/sys/vm/drop_caches`: drops every clean cached data page
  // and every clean cached metadata entry (inodes, node pages, directory
  // pages, mapping-table caches) that no open file pins, so that the next
  // reads go to the device. Dirty state stays: call Sync() first for a cold
  // cache. Instantaneous (no simulated time); call between operations, not
  // while another simulated thread is inside a call. EOPNOTSUPP (the
  // default) when the file system cannot drop its caches; a file system
  // that caches nothing returns ok.
  virtual FsStatus DropCaches() { return FsStatus{false, Errno::kNotSup}; }

  // Checkpointing: the file system's global persistence step that can hold
  // operations back (F2FS: the checkpoint, with F2FS-J's apply before it).
  // `begun` counts the checkpoints started so far (skipped ones, with
  // nothing to write, not counted); `running` says one runs now. A caller
  // that samples this at a call's start and end knows whether the call
  // overlapped checkpointing (MeteredFs: the latency of calls during
  // checkpointing). The default: a file system that never checkpoints.
  struct CheckpointActivity {
    uint64_t begun = 0;
    bool running = false;
  };
  virtual CheckpointActivity checkpoint_activity() const { return {}; }

  // Every block written to the device since the mount, by origin; the
  // total is what the file system's write amplification counts. The
  // default: a file system that never writes to a device (memfs).
  virtual WritesByOrigin writes_by_origin() const { return {}; }

  // ---- Multi-file transactions (exF2FS's ADD / START / COMMIT / END
  // ioctls on a set key) and the single-file atomic write they generalize
  // (F2FS_IOC_START/COMMIT_ATOMIC_WRITE, ABORT_VOLATILE_WRITE).
  //
  // A transaction set names regular files (the application chooses the
  // members). While the set's transaction runs (TxStart .. TxCommit), every
  // write and truncate of a member, through any descriptor, is held by the
  // file system: reads and stat of the member see it at once, but none of
  // it becomes durable (fsync, sync, checkpoints and writeback leave it
  // out) until TxCommit makes all of it durable at once, for every member:
  // after a power cut the members show either all the transaction's writes
  // or none. Namespace operations (create, unlink, rename) are not part of
  // a transaction. A set lives until TxEnd; after a commit the set is idle
  // and TxStart begins its next transaction.
  //
  // The single-file atomic write is the same for one file without a key:
  // AtomicWriteStart .. AtomicWriteCommit (durable at once, all or nothing;
  // the file is then ordinary again) or AtomicWriteAbort.
  //
  // Errors (results, never crashes): EOPNOTSUPP when the file system (or
  // its configuration) has no transactions — the defaults below; EBADF for
  // a descriptor not open or not open for writing; EISDIR for a directory;
  // ENOENT for an unknown set key; EBUSY for a file already in a set (this
  // one or another) or in an atomic write, or a call on a set whose commit
  // is running; EINVAL for TxStart of a running or empty set, TxCommit of a
  // set not started, AtomicWriteCommit/Abort of a file not in an atomic
  // write. A failed commit (ENOSPC, EIO) leaves the transaction running.

  // Adds the file of `fd` to set `key`; key 0 creates a set. Returns the
  // set's key (never 0). A file added to a running set joins its
  // transaction from now on.
  virtual sim::Task<FsResult<uint64_t>> TxAdd(uint64_t key, Fd fd) {
    (void)key, (void)fd;
    co_return FsResult<uint64_t>{0, Errno::kNotSup};
  }
  // Starts the set's transaction. What the members held before becomes
  // the transaction's starting point (their dirty data is written back).
  virtual sim::Task<FsStatus> TxStart(uint64_t key) {
    (void)key;
    co_return FsStatus{false, Errno::kNotSup};
  }
  // Makes every write of the running transaction durable, atomically over
  // all members; returns once durable. The set stays, idle.
  virtual sim::Task<FsStatus> TxCommit(uint64_t key) {
    (void)key;
    co_return FsStatus{false, Errno::kNotSup};
  }
  // Dissolves the set; a running transaction is aborted: its writes are
  // dropped and the members read as before TxStart.
  virtual sim::Task<FsStatus> TxEnd(uint64_t key) {
    (void)key;
    co_return FsStatus{false, Errno::kNotSup};
  }
  virtual sim::Task<FsStatus> AtomicWriteStart(Fd fd) {
    (void)fd;
    co_return FsStatus{false, Errno::kNotSup};
  }
  virtual sim::Task<FsStatus> AtomicWriteCommit(Fd fd) {
    (void)fd;
    co_return FsStatus{false, Errno::kNotSup};
  }
  virtual sim::Task<FsStatus> AtomicWriteAbort(Fd fd) {
    (void)fd;
    co_return FsStatus{false, Errno::kNotSup};
  }
};

}  // namespace fs
