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
// EBADF, ENOSPC, EINVAL, ENAMETOOLONG); they are results, not user errors.
#pragma once

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
};

}  // namespace fs
