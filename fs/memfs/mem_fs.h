// MemFs: an in-memory FileSystem with fixed per-call service times.
//
// It is the reference model of the FileSystem contract (fs/file_system.h)
// and the test double that workloads run against: full POSIX-like namespace
// semantics with real data, and configurable, predictable timing instead of
// a device underneath.
//
// Semantics (the contract every FileSystem model should match):
//  - Paths are resolved from the root; a leading '/' is optional, repeated
//    slashes collapse, "." and ".." are honoured ("/.." is "/"). A trailing
//    slash requires a directory. "" is ENOENT. A component longer than 255
//    bytes or a path longer than 4096 bytes is ENAMETOOLONG. A non-directory
//    in the middle of a path is ENOTDIR.
//  - Open: exactly one of kRdOnly (0) / kWrOnly / kRdWr (both write bits:
//    EINVAL). kCreat creates a missing regular file (missing parent: ENOENT;
//    with a trailing slash: EISDIR, whatever exists); kCreat|kExcl on an existing
//    name is EEXIST; kCreat|kDirectory is EINVAL. kTrunc truncates a
//    regular file (whatever the access mode, as Linux does). Directories
//    open only read-only and without kCreat/kTrunc (EISDIR otherwise);
//    kDirectory on a non-directory is ENOTDIR. Descriptors are the lowest
//    free number >= 3. Each open() has its own position.
//  - Read/Write use and advance the descriptor's position; Pread/Pwrite do
//    not. kAppend writes (Write and, as on Linux, Pwrite) go to the end of
//    the file. Reads stop at EOF (short reads; 0 at or past EOF). Writing
//    past EOF leaves a hole that reads back as zeros. Reading a write-only
//    descriptor or writing a read-only one is EBADF; reading a directory
//    descriptor is EISDIR. A non-empty `data` whose size differs from
//    `length` is EINVAL. kDirect requires offset and length aligned to
//    direct_io_alignment (EINVAL otherwise); kSync adds the fsync service
//    time to each write. Growing a file past max_file_size is EFBIG; new
//    blocks beyond `capacity` are ENOSPC (nothing is written).
//  - Ftruncate needs a descriptor open for writing (EINVAL otherwise, also
//    for directories); Truncate(path) on a directory is EISDIR. Shrinking
//    frees whole blocks and zeroes the tail of the last one; growing makes
//    a hole.
//  - Unlink removes the name only: an open file keeps its data until its
//    last descriptor is closed (Fstat then shows nlink 0). Unlink of a
//    directory is EISDIR; Rmdir of a non-directory is ENOTDIR, of a
//    non-empty one ENOTEMPTY, of "/", "." or ".." EINVAL.
//  - Rename replaces an existing target atomically (a file over a file, a
//    directory over an empty directory); directory over non-directory is
//    ENOTDIR, non-directory over directory EISDIR, over a non-empty
//    directory ENOTEMPTY, a directory into its own subtree EINVAL; renaming
//    a name onto itself succeeds and changes nothing.
//  - Link gives a regular file another name (nlink + 1): EPERM for a
//    directory, EEXIST if the new name exists, ENOENT if the new name ends
//    with '/'. Unlink of one name leaves the others.
//  - Readdir lists the names of a directory (no "." / "..") sorted by byte
//    value.
//  - Fsync, Fdatasync and Sync succeed on any valid descriptor; nothing is
//    ever lost (there is no crash model here).
//  - FileStat: size in bytes, blocks = 4 KiB blocks holding data (written
//    blocks; holes are free), nlink (the names of a file, 0 once unlinked,
//    2 + subdirectories for a directory), mtime = last data/size change or,
//    for a directory, last entry change.
//
// Timing. Every call takes effect atomically at the instant it is made (its
// linearization point) and its coroutine completes after the call's
// service time: the configured latency of its kind plus, for reads and
// writes, bytes / bandwidth. With `parallelism` > 0 at most that many calls
// are in service at once (FIFO); others wait first. Even a zero service
// time suspends the caller once (a zero delay), so simulated threads always
// interleave.
//
// Not thread-safe in the OS sense; all callers run on one EventQueue.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fs/file_system.h"
#include "fs/vfs/fd_table.h"
#include "fs/vfs/path.h"
#include "sim/cpu.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "fs/fs_stats.h"
#include "sim/stats.h"
#include "sim/task.h"
#include "sim/time.h"
#include "sim/units.h"

namespace fs {

// In-class values equal the declared defaults (a test keeps them in step).
struct MemFsConfig {
  sim::SimTime open_latency = sim::Us(2);
  sim::SimTime close_latency = sim::Us(1);
  sim::SimTime read_latency = sim::Us(1);
  sim::SimTime write_latency = sim::Us(2);
  sim::SimTime fsync_latency = sim::Us(20);
  sim::SimTime fdatasync_latency = sim::Us(15);
  sim::SimTime stat_latency = sim::Us(1);
  sim::SimTime unlink_latency = sim::Us(5);
  sim::SimTime mkdir_latency = sim::Us(5);
  sim::SimTime rmdir_latency = sim::Us(5);
  sim::SimTime rename_latency = sim::Us(5);
  sim::SimTime link_latency = sim::Us(5);
  sim::SimTime readdir_latency = sim::Us(2);
  sim::SimTime truncate_latency = sim::Us(3);
  sim::SimTime sync_latency = sim::Us(50);
  sim::Bandwidth read_bandwidth;   // 0 = reads cost no transfer time
  sim::Bandwidth write_bandwidth;  // 0 = writes cost no transfer time
  uint32_t parallelism = 0;        // calls in service at once; 0 = unlimited
  sim::Bytes capacity;             // 0 = unlimited
  sim::Bytes max_file_size = sim::Bytes{uint64_t{4} << 40};
  sim::Bytes direct_io_alignment = sim::KiB(4);

  static void Describe(sim::Schema<MemFsConfig>& s);
};

class MemFs final : public FileSystem {
 public:
  static constexpr uint64_t kBlockSize = 4096;
  static constexpr size_t kMaxNameLen = vfs::kMaxNameLen;
  static constexpr size_t kMaxPathLen = vfs::kMaxPathLen;
  static constexpr uint64_t kRootIno = 1;

  // `q` must outlive the file system.
  MemFs(sim::EventQueue* q, const MemFsConfig& cfg);
  // Service times become CPU bursts on the host's cores (null: they run at
  // once, as before). REQUIRES: before any call.
  void set_cpu(sim::CpuScheduler* cpu) { cpu_ = cpu; }
  ~MemFs() override;
  MemFs(const MemFs&) = delete;
  MemFs& operator=(const MemFs&) = delete;

  sim::Task<FsResult<Fd>> Open(std::string_view path, uint32_t flags) override;
  sim::Task<FsStatus> Close(Fd fd) override;
  sim::Task<FsResult<uint64_t>> Read(Fd fd, std::span<uint8_t> out) override;
  sim::Task<FsResult<uint64_t>> Write(Fd fd, std::span<const uint8_t> data, uint64_t length) override;
  sim::Task<FsResult<uint64_t>> Pread(Fd fd, uint64_t offset, std::span<uint8_t> out) override;
  // No copy: the same checks, time and result as Read/Pread.
  sim::Task<FsResult<uint64_t>> ReadDiscard(Fd fd, uint64_t length) override;
  sim::Task<FsResult<uint64_t>> PreadDiscard(Fd fd, uint64_t offset, uint64_t length) override;
  sim::Task<FsResult<uint64_t>> Pwrite(Fd fd, uint64_t offset, std::span<const uint8_t> data,
                                       uint64_t length) override;
  sim::Task<FsStatus> Ftruncate(Fd fd, uint64_t size) override;
  sim::Task<FsStatus> Truncate(std::string_view path, uint64_t size) override;
  sim::Task<FsStatus> Fsync(Fd fd) override;
  sim::Task<FsStatus> Fdatasync(Fd fd) override;
  sim::Task<FsResult<FileStat>> Fstat(Fd fd) override;
  sim::Task<FsResult<FileStat>> Stat(std::string_view path) override;
  sim::Task<FsStatus> Unlink(std::string_view path) override;
  sim::Task<FsStatus> Mkdir(std::string_view path) override;
  sim::Task<FsStatus> Rmdir(std::string_view path) override;
  sim::Task<FsStatus> Rename(std::string_view from, std::string_view to) override;
  sim::Task<FsStatus> Link(std::string_view existing, std::string_view new_path) override;
  sim::Task<FsResult<std::vector<std::string>>> Readdir(std::string_view path) override;
  sim::Task<FsStatus> Sync() override;
  // Nothing is cached (every call costs its configured latency): ok.
  FsStatus DropCaches() override { return FsStatus{true, Errno::kOk}; }

  // Calls made, by kind, and bytes moved (successful calls only for bytes).
  struct Counters {
    sim::Counter open, close, read, write, pread, pwrite, ftruncate, truncate, fsync, fdatasync, fstat,
        stat, unlink, mkdir, rmdir, rename, readdir, sync, link;
    sim::Counter errors;         // calls that returned an error
    sim::Counter bytes_read;     // returned by read/pread
    sim::Counter bytes_written;  // accepted by write/pwrite
  };
  const Counters& counters() const { return counters_; }
  // Registers the counters under `g` ("<g>.calls.<kind>", "<g>.errors",
  // "<g>.bytes_read", "<g>.bytes_written", "<g>.used_bytes", "<g>.inodes").
  void RegisterStats(const sim::StatGroup& g);

  // Introspection (no simulated time).
  uint64_t used_bytes() const { return used_blocks_ * kBlockSize; }
  size_t inode_count() const { return inodes_.size(); }  // live inodes, root included
  size_t open_fd_count() const { return fds_.open_count(); }
  uint32_t calls_in_service() const { return in_service_; }

 private:
  struct Inode;
  struct OpenFile {
    Inode* inode = nullptr;  // null = free slot
    uint32_t flags = 0;
    uint64_t pos = 0;
  };
  struct Lookup;

  // Waits for a service slot (if limited), then for `t`.
  sim::Task<void> Serve(sim::SimTime t);
  sim::SimTime ReadTime(uint64_t bytes) const;
  sim::SimTime WriteTime(uint64_t bytes, uint32_t flags) const;

  template <class T>
  T Fail(Errno e) {
    counters_.errors.Inc();
    T r;
    r.err = e;
    return r;
  }

  Lookup Resolve(std::string_view path) const;
  Inode* NewInode(bool is_dir, Inode* parent);
  void DropInodeIfUnused(Inode* node);
  OpenFile* FileOf(Fd fd);
  FileStat StatOf(const Inode& n) const;

  FsResult<Fd> DoOpen(std::string_view path, uint32_t flags);
  // Reads `length` bytes at `offset` into `out`, or only counts them when
  // `out` is null (the discarding reads).
  FsResult<uint64_t> DoRead(OpenFile* f, uint64_t offset, uint64_t length, uint8_t* out);
  // Read (at the descriptor's position, advancing it) or Pread (at
  // `offset`) of `length` bytes into `out` (null: discarded).
  sim::Task<FsResult<uint64_t>> ReadAt(Fd fd, std::optional<uint64_t> offset, uint64_t length, uint8_t* out);
  FsResult<uint64_t> DoWrite(OpenFile* f, uint64_t offset, std::span<const uint8_t> data, uint64_t length);
  Errno CheckIo(const OpenFile* f, uint64_t offset, uint64_t length, bool write) const;
  Errno ResizeFile(Inode* n, uint64_t size);
  FsStatus DoRename(std::string_view from, std::string_view to);
  static bool IsAncestor(const Inode* a, const Inode* b);

  sim::EventQueue* q_;
  MemFsConfig cfg_;
  std::unique_ptr<sim::Semaphore> slots_;  // null when parallelism is unlimited
  sim::CpuScheduler* cpu_ = nullptr;       // null: service times run at once
  uint32_t in_service_ = 0;

  std::unordered_map<uint64_t, std::unique_ptr<Inode>> inodes_;
  Inode* root_ = nullptr;
  uint64_t next_ino_ = kRootIno;
  uint64_t used_blocks_ = 0;

  vfs::FdTable<OpenFile> fds_;

  Counters counters_;
  OpLatencies ops_;  // <g>.op.<call>.lat
};

}  // namespace fs
