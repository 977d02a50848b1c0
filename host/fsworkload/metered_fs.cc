#include "host/fsworkload/metered_fs.h"

namespace host {

std::string_view MeteredFs::CallName(Call c) {
  static constexpr std::string_view kNames[kNumCalls] = {
      "open",  "close", "read",   "write", "pread", "pwrite", "ftruncate", "truncate", "fsync",
      "fdatasync", "fstat", "stat", "unlink", "mkdir", "rmdir", "rename", "readdir", "sync"};
  return kNames[c];
}

void MeteredFs::Register(const sim::StatGroup& g) const {
  for (int i = 0; i < kNumCalls; ++i) {
    const Call c = static_cast<Call>(i);
    const sim::StatGroup cg = g.Group(CallName(c));
    cg.Add(&calls_[c].calls, "calls", "calls", "Calls of this kind issued by the workload");
    cg.Add(&calls_[c].errors, "errors", "calls", "Calls of this kind that returned an error");
    cg.Add(&calls_[c].lat, "lat", "ns", "Latency of the call (issue to completion)");
  }
}

uint64_t MeteredFs::calls_total() const {
  uint64_t n = 0;
  for (const CallStats& s : calls_) n += s.calls.value();
  return n;
}

sim::Task<fs::FsResult<fs::Fd>> MeteredFs::Open(std::string_view path, uint32_t flags) {
  const sim::SimTime t0 = q_->now();
  fs::FsResult<fs::Fd> r = co_await inner_->Open(path, flags);
  Note(kOpen, t0, r.ok());
  co_return r;
}

sim::Task<fs::FsStatus> MeteredFs::Close(fs::Fd fd) {
  const sim::SimTime t0 = q_->now();
  fs::FsStatus r = co_await inner_->Close(fd);
  Note(kClose, t0, r.ok());
  co_return r;
}

sim::Task<fs::FsResult<uint64_t>> MeteredFs::Read(fs::Fd fd, std::span<uint8_t> out) {
  const sim::SimTime t0 = q_->now();
  fs::FsResult<uint64_t> r = co_await inner_->Read(fd, out);
  Note(kRead, t0, r.ok());
  if (r.ok()) bytes_read_.Inc(r.value);
  co_return r;
}

sim::Task<fs::FsResult<uint64_t>> MeteredFs::Write(fs::Fd fd, std::span<const uint8_t> data, uint64_t length) {
  const sim::SimTime t0 = q_->now();
  fs::FsResult<uint64_t> r = co_await inner_->Write(fd, data, length);
  Note(kWrite, t0, r.ok());
  if (r.ok()) bytes_written_.Inc(r.value);
  co_return r;
}

sim::Task<fs::FsResult<uint64_t>> MeteredFs::Pread(fs::Fd fd, uint64_t offset, std::span<uint8_t> out) {
  const sim::SimTime t0 = q_->now();
  fs::FsResult<uint64_t> r = co_await inner_->Pread(fd, offset, out);
  Note(kPread, t0, r.ok());
  if (r.ok()) bytes_read_.Inc(r.value);
  co_return r;
}

sim::Task<fs::FsResult<uint64_t>> MeteredFs::Pwrite(fs::Fd fd, uint64_t offset, std::span<const uint8_t> data,
                                                    uint64_t length) {
  const sim::SimTime t0 = q_->now();
  fs::FsResult<uint64_t> r = co_await inner_->Pwrite(fd, offset, data, length);
  Note(kPwrite, t0, r.ok());
  if (r.ok()) bytes_written_.Inc(r.value);
  co_return r;
}

sim::Task<fs::FsStatus> MeteredFs::Ftruncate(fs::Fd fd, uint64_t size) {
  const sim::SimTime t0 = q_->now();
  fs::FsStatus r = co_await inner_->Ftruncate(fd, size);
  Note(kFtruncate, t0, r.ok());
  co_return r;
}

sim::Task<fs::FsStatus> MeteredFs::Truncate(std::string_view path, uint64_t size) {
  const sim::SimTime t0 = q_->now();
  fs::FsStatus r = co_await inner_->Truncate(path, size);
  Note(kTruncate, t0, r.ok());
  co_return r;
}

sim::Task<fs::FsStatus> MeteredFs::Fsync(fs::Fd fd) {
  const sim::SimTime t0 = q_->now();
  fs::FsStatus r = co_await inner_->Fsync(fd);
  Note(kFsync, t0, r.ok());
  co_return r;
}

sim::Task<fs::FsStatus> MeteredFs::Fdatasync(fs::Fd fd) {
  const sim::SimTime t0 = q_->now();
  fs::FsStatus r = co_await inner_->Fdatasync(fd);
  Note(kFdatasync, t0, r.ok());
  co_return r;
}

sim::Task<fs::FsResult<fs::FileStat>> MeteredFs::Fstat(fs::Fd fd) {
  const sim::SimTime t0 = q_->now();
  fs::FsResult<fs::FileStat> r = co_await inner_->Fstat(fd);
  Note(kFstat, t0, r.ok());
  co_return r;
}

sim::Task<fs::FsResult<fs::FileStat>> MeteredFs::Stat(std::string_view path) {
  const sim::SimTime t0 = q_->now();
  fs::FsResult<fs::FileStat> r = co_await inner_->Stat(path);
  Note(kStat, t0, r.ok());
  co_return r;
}

sim::Task<fs::FsStatus> MeteredFs::Unlink(std::string_view path) {
  const sim::SimTime t0 = q_->now();
  fs::FsStatus r = co_await inner_->Unlink(path);
  Note(kUnlink, t0, r.ok());
  co_return r;
}

sim::Task<fs::FsStatus> MeteredFs::Mkdir(std::string_view path) {
  const sim::SimTime t0 = q_->now();
  fs::FsStatus r = co_await inner_->Mkdir(path);
  Note(kMkdir, t0, r.ok());
  co_return r;
}

sim::Task<fs::FsStatus> MeteredFs::Rmdir(std::string_view path) {
  const sim::SimTime t0 = q_->now();
  fs::FsStatus r = co_await inner_->Rmdir(path);
  Note(kRmdir, t0, r.ok());
  co_return r;
}

sim::Task<fs::FsStatus> MeteredFs::Rename(std::string_view from, std::string_view to) {
  const sim::SimTime t0 = q_->now();
  fs::FsStatus r = co_await inner_->Rename(from, to);
  Note(kRename, t0, r.ok());
  co_return r;
}

sim::Task<fs::FsResult<std::vector<std::string>>> MeteredFs::Readdir(std::string_view path) {
  const sim::SimTime t0 = q_->now();
  fs::FsResult<std::vector<std::string>> r = co_await inner_->Readdir(path);
  Note(kReaddir, t0, r.ok());
  co_return r;
}

sim::Task<fs::FsStatus> MeteredFs::Sync() {
  const sim::SimTime t0 = q_->now();
  fs::FsStatus r = co_await inner_->Sync();
  Note(kSync, t0, r.ok());
  co_return r;
}

}  // namespace host
