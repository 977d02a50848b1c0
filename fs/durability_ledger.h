// DurabilityLedger: a FileSystem decorator that records what the file
// system acknowledged as durable to the workloads above it and, after a
// power cut, compares a recovered file system with it (run.power_cut).
//
// Acknowledged (the POSIX and Linux contract every durability mode keeps;
// the state is the one at the call's start, the acknowledgement its ok
// return):
//  - fsync or fdatasync of a regular file: its bytes and size, and its
//    name then (a later rename or link adds a name it may be found under);
//  - a write through a descriptor opened with O_SYNC: the same, for it;
//  - TxCommit and AtomicWriteCommit: the same, for every member;
//  - sync(): every file, and every name of the namespace;
//  - fsync of a directory: the names in it (present or removed).
// Writes and truncates of a member of a running transaction or atomic
// write are held by the file system (file_system.h): an fsync or sync
// then acknowledges nothing new of that file. An aborted transaction
// drops writes the ledger cannot undo: its members are not checked again.
//
// Anything done after a file's acknowledgement may or may not survive: a
// block written since may hold any content (the kernel gives no guarantee
// for it; F2FS may even show a stale block), a truncate since lowers the
// size that must remain, a file whose every name went since may be gone.
// Verify accepts all of that and reports as violations only acknowledged
// state that is not there:
//  - a file missing under every name it may have, or shorter than its
//    acknowledged size, or a block unchanged since the acknowledgement
//    whose content differs (content is compared for files written with
//    data; synthetic writes carry none and are checked by size);
//  - a name acknowledged present and untouched since that is missing, or
//    acknowledged removed and is back.
// Beside them it reports the losses the contract allows: bytes of the
// files linked at the cut that the recovered volume does not hold (by
// size), and names that differ from the namespace at the cut.
//
// Paths are normalized to "/a/b" (runs of '/' folded, no trailing '/').
// Bytes are kept only for files written with data (their current and
// acknowledged blocks, copy on write: up to twice their size).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fs/file_system.h"

namespace fs {

class DurabilityLedger final : public FileSystem {
 public:
  // `inner` must outlive this object.
  explicit DurabilityLedger(FileSystem* inner) : inner_(inner) {}

  // Called after every completed call (for a cut after N operations).
  void set_on_op(std::function<void(uint64_t ops)> f) { on_op_ = std::move(f); }
  uint64_t ops() const { return ops_; }

  // What the cut is checked against.
  struct Acknowledged {
    uint64_t files = 0;           // regular files with acknowledged bytes (their names too, unless only fdatasync)
    uint64_t bytes = 0;           // their acknowledged sizes
    uint64_t names = 0;           // names acknowledged present or removed, untouched since
    uint64_t fsyncs = 0;          // acknowledgements: fsync, fdatasync, O_SYNC writes
    uint64_t syncs = 0;           // sync() calls
    uint64_t commits = 0;         // transaction and atomic-write commits
  };
  Acknowledged acknowledged() const;

  struct Report {
    Acknowledged acknowledged;
    // Violations (must all be 0).
    uint64_t files_missing = 0;     // acknowledged files found under none of their names
    uint64_t files_short = 0;       // found, shorter than acknowledged
    uint64_t blocks_wrong = 0;      // acknowledged blocks with other content
    uint64_t bytes_lost_acknowledged = 0;  // acknowledged bytes not recovered (missing, short or wrong)
    uint64_t names_wrong = 0;       // acknowledged names missing, acknowledged removals back
    std::string first_violation;
    uint64_t violations() const { return files_missing + files_short + blocks_wrong + names_wrong; }
    // Losses the contract allows.
    uint64_t files_at_cut = 0;      // regular files linked at the cut
    uint64_t bytes_at_cut = 0;      // their sizes
    uint64_t bytes_lost = 0;        // of those bytes, not recovered (by size)
    uint64_t names_at_cut = 0;      // names (files and directories) at the cut
    uint64_t names_lost = 0;        // names at the cut missing after recovery
    uint64_t names_back = 0;        // names after recovery absent at the cut (undone removals)
    uint64_t files_unverifiable = 0;  // files whose content the ledger lost track of (aborted transactions)
    uint64_t blocks_compared = 0;   // acknowledged blocks whose content was compared
    std::string walk_error;         // the recovered tree could not be read ("" = it was)
  };
  // Compares `recovered` (mounted on what the cut left) with the ledger.
  // Runs on the recovered file system's clock.
  sim::Task<Report> Verify(FileSystem* recovered) const;

  sim::Task<FsResult<Fd>> Open(std::string_view path, uint32_t flags) override;
  sim::Task<FsStatus> Close(Fd fd) override;
  sim::Task<FsResult<uint64_t>> Read(Fd fd, std::span<uint8_t> out) override;
  sim::Task<FsResult<uint64_t>> Write(Fd fd, std::span<const uint8_t> data, uint64_t length) override;
  sim::Task<FsResult<uint64_t>> Pread(Fd fd, uint64_t offset, std::span<uint8_t> out) override;
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
  FsStatus DropCaches() override { return inner_->DropCaches(); }
  CheckpointActivity checkpoint_activity() const override { return inner_->checkpoint_activity(); }
  WritesByOrigin writes_by_origin() const override { return inner_->writes_by_origin(); }
  sim::Task<FsResult<uint64_t>> TxAdd(uint64_t key, Fd fd) override;
  sim::Task<FsStatus> TxStart(uint64_t key) override;
  sim::Task<FsStatus> TxCommit(uint64_t key) override;
  sim::Task<FsStatus> TxEnd(uint64_t key) override;
  sim::Task<FsStatus> AtomicWriteStart(Fd fd) override;
  sim::Task<FsStatus> AtomicWriteCommit(Fd fd) override;
  sim::Task<FsStatus> AtomicWriteAbort(Fd fd) override;

  static constexpr uint64_t kBlock = 4096;
  // "/a/b" for any spelling of the path.
  static std::string Normalize(std::string_view path);

 private:
  using Bytes = std::array<uint8_t, kBlock>;
  using BytesPtr = std::shared_ptr<const Bytes>;  // null: zeros
  struct Block {
    BytesPtr cur, acked;
    uint64_t cur_seq = 0;    // write that set cur
    uint64_t acked_seq = 0;  // write that set acked (0: never acknowledged)
  };
  struct File {
    uint64_t size = 0;
    bool known = true;          // false: content unknown (existed before, or an aborted transaction)
    bool content = false;       // some write carried data: blocks are kept
    bool held = false;          // in a running transaction or atomic write
    uint64_t held_key = 0;
    std::unordered_map<uint64_t, Block> blocks;  // content files only
    std::unordered_set<uint64_t> dirty;          // blocks changed since their acknowledgement
    uint64_t writes = 0;        // data changes so far (write, truncate)
    // Acknowledged state.
    bool acked = false;
    uint64_t acked_size = 0;
    uint64_t min_size_since = UINT64_MAX;  // smallest size a truncate after the acknowledged state set
    std::vector<std::pair<uint64_t, uint64_t>> truncs;  // (write, size) of truncates since the acknowledged state
    bool name_acked = false;               // its names are acknowledged (fsync, sync), not only its data
    std::vector<std::string> names;        // current names
    std::vector<std::string> ack_names;    // names it may be found under
    bool gone_since_ack = false;           // lost every name after its acknowledgement
  };
  // The state an acknowledgement will make acknowledged, taken at the
  // call's start.
  struct Snapshot {
    uint64_t file = 0;
    uint64_t size = 0;
    uint64_t writes = 0;
    std::vector<std::pair<uint64_t, Block>> blocks;  // the dirty blocks as they were
    std::vector<std::string> names;
    bool with_names = true;  // fdatasync acknowledges data and size only
  };
  struct Entry {
    bool is_dir = false;
    uint64_t file = 0;  // regular files
  };
  struct OpenFile {
    uint64_t file = 0;  // 0: a directory
    std::string path;
    uint64_t offset = 0;
    uint32_t flags = 0;
  };

  void Op() {
    ++ops_;
    if (on_op_) on_op_(ops_);
  }
  File* FileOf(Fd fd);
  OpenFile* Desc(Fd fd);
  uint64_t NewFile(const std::string& path, bool known);
  void ApplyWrite(File& f, uint64_t offset, std::span<const uint8_t> data, uint64_t n);
  void ApplyTruncate(File& f, uint64_t size);
  // A write or pwrite (`offset`) of `n` bytes through `fd` returned: its
  // bytes land in the file, and on an O_SYNC descriptor are acknowledged.
  void Written(Fd fd, std::optional<uint64_t> offset, std::span<const uint8_t> data, uint64_t n);
  Snapshot Take(uint64_t id, bool with_names) const;
  void Acknowledge(const Snapshot& s);
  void AddName(uint64_t id, const std::string& path);
  void RemoveName(const std::string& path);
  void TouchName(const std::string& path) { ns_ack_touched_.insert(path); }
  // The names under `dir` ("/" with `all`: every name), present or removed
  // since their acknowledgement.
  std::vector<std::pair<std::string, bool>> NamesUnder(const std::string& dir, bool all) const;
  void AckNames(const std::vector<std::pair<std::string, bool>>& names);

  FileSystem* inner_;
  std::function<void(uint64_t)> on_op_;
  uint64_t ops_ = 0;
  uint64_t next_file_ = 1;
  std::map<uint64_t, File> files_;
  std::map<std::string, Entry> ns_{{"/", Entry{true, 0}}};
  std::unordered_map<Fd, OpenFile> fds_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> tx_members_;  // set key -> files
  // Names acknowledged present (true) or removed (false), and those
  // touched by a namespace change since.
  std::map<std::string, bool> ns_ack_;
  std::unordered_set<std::string> ns_ack_touched_;
  uint64_t fsyncs_ = 0, syncs_ = 0, commits_ = 0;
};

}  // namespace fs
