#include "host/fsworkload/metered_fs.h"

namespace host {

std::string_view MeteredFs::CallName(Call c) {
  static constexpr std::string_view kNames[kNumCalls] = {
      "open",  "close", "read",   "write", "pread", "pwrite", "ftruncate", "truncate", "fsync",
      "fdatasync", "fstat", "stat", "unlink", "mkdir", "rmdir", "rename", "readdir", "sync", "link"};
  return kNames[c];
}

void MeteredFs::Register(const sim::StatGroup& g) const {
  for (int i = 0; i < kNumCalls; ++i) {
    const Call c = static_cast<Call>(i);
    const sim::StatGroup cg = g.Group(CallName(c));
    cg.Add(&calls_[c].calls, "calls", "calls", "Calls of this kind issued by the workload");
    cg.Add(&calls_[c].errors, "errors", "calls", "Calls of this kind that returned an error");
    cg.Add(&calls_[c].lat, "lat", "ns", "Latency of the call (issue to completion)");
    // series.csv: the calls that carry a file workload's data and its durability.
    if (c == kRead || c == kWrite || c == kFsync) cg.AddIntervalPercentiles(&calls_[c].lat, "lat", "ns");
  }
  const sim::StatGroup cp = g.Group("during_checkpoint");
  cp.Add(&during_cp_calls_, "calls", "calls",
         "Calls of any kind that overlapped the file system's checkpointing (a checkpoint running at their start "
         "or end, or begun during them)");
  cp.Add(&during_cp_lat_, "lat", "ns", "Latency of the calls that overlapped checkpointing (issue to completion)");
}

uint64_t MeteredFs::calls_total() const {
  uint64_t n = 0;
  for (const CallStats& s : calls_) n += s.calls.value();
  return n;
}

// Each call is the wrapped call, metered from now to its end.
sim::Task<fs::FsResult<fs::Fd>> MeteredFs::Open(std::string_view path, uint32_t flags) {
  return Metered(kOpen, inner_->Open(path, flags), nullptr, flags);
}
sim::Task<fs::FsStatus> MeteredFs::Close(fs::Fd fd) {
  if (IsSync(fd)) sync_fd_[fd] = false;
  return Metered(kClose, inner_->Close(fd));
}
sim::Task<fs::FsResult<uint64_t>> MeteredFs::Read(fs::Fd fd, std::span<uint8_t> out) {
  return Metered(kRead, inner_->Read(fd, out), &bytes_read_);
}
sim::Task<fs::FsResult<uint64_t>> MeteredFs::Write(fs::Fd fd, std::span<const uint8_t> data, uint64_t length) {
  if (IsSync(fd)) sync_writes_.Inc();
  return Metered(kWrite, inner_->Write(fd, data, length), &bytes_written_);
}
sim::Task<fs::FsResult<uint64_t>> MeteredFs::Pread(fs::Fd fd, uint64_t offset, std::span<uint8_t> out) {
  return Metered(kPread, inner_->Pread(fd, offset, out), &bytes_read_);
}
// The discarding reads count as the reads they stand for.
sim::Task<fs::FsResult<uint64_t>> MeteredFs::ReadDiscard(fs::Fd fd, uint64_t length) {
  return Metered(kRead, inner_->ReadDiscard(fd, length), &bytes_read_);
}
sim::Task<fs::FsResult<uint64_t>> MeteredFs::PreadDiscard(fs::Fd fd, uint64_t offset, uint64_t length) {
  return Metered(kPread, inner_->PreadDiscard(fd, offset, length), &bytes_read_);
}
sim::Task<fs::FsResult<uint64_t>> MeteredFs::Pwrite(fs::Fd fd, uint64_t offset, std::span<const uint8_t> data,
                                                    uint64_t length) {
  if (IsSync(fd)) sync_writes_.Inc();
  return Metered(kPwrite, inner_->Pwrite(fd, offset, data, length), &bytes_written_);
}
sim::Task<fs::FsStatus> MeteredFs::Ftruncate(fs::Fd fd, uint64_t size) {
  return Metered(kFtruncate, inner_->Ftruncate(fd, size));
}
sim::Task<fs::FsStatus> MeteredFs::Truncate(std::string_view path, uint64_t size) {
  return Metered(kTruncate, inner_->Truncate(path, size));
}
sim::Task<fs::FsStatus> MeteredFs::Fsync(fs::Fd fd) { return Metered(kFsync, inner_->Fsync(fd)); }
sim::Task<fs::FsStatus> MeteredFs::Fdatasync(fs::Fd fd) { return Metered(kFdatasync, inner_->Fdatasync(fd)); }
sim::Task<fs::FsResult<fs::FileStat>> MeteredFs::Fstat(fs::Fd fd) { return Metered(kFstat, inner_->Fstat(fd)); }
sim::Task<fs::FsResult<fs::FileStat>> MeteredFs::Stat(std::string_view path) {
  return Metered(kStat, inner_->Stat(path));
}
sim::Task<fs::FsStatus> MeteredFs::Unlink(std::string_view path) { return Metered(kUnlink, inner_->Unlink(path)); }
sim::Task<fs::FsStatus> MeteredFs::Mkdir(std::string_view path) { return Metered(kMkdir, inner_->Mkdir(path)); }
sim::Task<fs::FsStatus> MeteredFs::Rmdir(std::string_view path) { return Metered(kRmdir, inner_->Rmdir(path)); }
sim::Task<fs::FsStatus> MeteredFs::Rename(std::string_view from, std::string_view to) {
  return Metered(kRename, inner_->Rename(from, to));
}

sim::Task<fs::FsStatus> MeteredFs::Link(std::string_view existing, std::string_view new_path) {
  return Metered(kLink, inner_->Link(existing, new_path));
}
sim::Task<fs::FsResult<std::vector<std::string>>> MeteredFs::Readdir(std::string_view path) {
  return Metered(kReaddir, inner_->Readdir(path));
}
sim::Task<fs::FsStatus> MeteredFs::Sync() { return Metered(kSync, inner_->Sync()); }

}  // namespace host
