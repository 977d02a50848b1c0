// Test helpers: run FileSystem calls to completion from plain test code.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fs/file_system.h"
#include "sim/event_queue.h"
#include "sim/task.h"

namespace fs::testing {

// Runs `t` as a root simulated thread until the queue drains; returns its value.
template <class T>
T RunToEnd(sim::EventQueue* q, sim::Task<T> t) {
  std::optional<T> out;
  auto wrapper = [](sim::Task<T> task, std::optional<T>* o) -> sim::Task<void> {
    o->emplace(co_await std::move(task));
  };
  sim::Spawn(q, wrapper(std::move(t), &out));
  q->Run();
  CHECK(out.has_value()) << "task did not finish";
  return std::move(*out);
}

// Blocking-style access to a FileSystem for tests.
class SyncFs {
 public:
  SyncFs(sim::EventQueue* q, FileSystem* fs) : q_(q), fs_(fs) {}

  FsResult<Fd> Open(std::string_view p, uint32_t flags) { return RunToEnd(q_, fs_->Open(p, flags)); }
  FsStatus Close(Fd fd) { return RunToEnd(q_, fs_->Close(fd)); }
  FsResult<uint64_t> Write(Fd fd, std::string_view s) {
    return RunToEnd(q_, fs_->Write(fd, Bytes(s), s.size()));
  }
  FsResult<uint64_t> WriteZeros(Fd fd, uint64_t n) { return RunToEnd(q_, fs_->Write(fd, {}, n)); }
  FsResult<uint64_t> Pwrite(Fd fd, uint64_t off, std::string_view s) {
    return RunToEnd(q_, fs_->Pwrite(fd, off, Bytes(s), s.size()));
  }
  FsResult<uint64_t> PwriteZeros(Fd fd, uint64_t off, uint64_t n) {
    return RunToEnd(q_, fs_->Pwrite(fd, off, {}, n));
  }
  // Reads up to n bytes; on error returns the errno and an empty string.
  std::pair<Errno, std::string> Read(Fd fd, size_t n) {
    std::string buf(n, '\0');
    FsResult<uint64_t> r = RunToEnd(q_, fs_->Read(fd, MutBytes(buf)));
    buf.resize(r.ok() ? r.value : 0);
    return {r.err, buf};
  }
  std::pair<Errno, std::string> Pread(Fd fd, uint64_t off, size_t n) {
    std::string buf(n, '\0');
    FsResult<uint64_t> r = RunToEnd(q_, fs_->Pread(fd, off, MutBytes(buf)));
    buf.resize(r.ok() ? r.value : 0);
    return {r.err, buf};
  }
  FsStatus Ftruncate(Fd fd, uint64_t n) { return RunToEnd(q_, fs_->Ftruncate(fd, n)); }
  FsStatus Truncate(std::string_view p, uint64_t n) { return RunToEnd(q_, fs_->Truncate(p, n)); }
  FsStatus Fsync(Fd fd) { return RunToEnd(q_, fs_->Fsync(fd)); }
  FsStatus Fdatasync(Fd fd) { return RunToEnd(q_, fs_->Fdatasync(fd)); }
  FsResult<FileStat> Fstat(Fd fd) { return RunToEnd(q_, fs_->Fstat(fd)); }
  FsResult<FileStat> Stat(std::string_view p) { return RunToEnd(q_, fs_->Stat(p)); }
  FsStatus Unlink(std::string_view p) { return RunToEnd(q_, fs_->Unlink(p)); }
  FsStatus Mkdir(std::string_view p) { return RunToEnd(q_, fs_->Mkdir(p)); }
  FsStatus Rmdir(std::string_view p) { return RunToEnd(q_, fs_->Rmdir(p)); }
  FsStatus Rename(std::string_view a, std::string_view b) { return RunToEnd(q_, fs_->Rename(a, b)); }
  FsStatus Link(std::string_view a, std::string_view b) { return RunToEnd(q_, fs_->Link(a, b)); }
  FsResult<std::vector<std::string>> Readdir(std::string_view p) { return RunToEnd(q_, fs_->Readdir(p)); }
  FsStatus Sync() { return RunToEnd(q_, fs_->Sync()); }

  // Creates (or truncates) `p` with content `s`.
  void Put(std::string_view p, std::string_view s) {
    FsResult<Fd> fd = Open(p, kWrOnly | kCreat | kTrunc);
    CHECK(fd.ok()) << p << ": " << ErrnoName(fd.err);
    CHECK(Write(fd.value, s).ok());
    CHECK(Close(fd.value).ok());
  }
  // Whole content of `p` ("<ENOENT>"-style text on error).
  std::string Get(std::string_view p) {
    FsResult<Fd> fd = Open(p, kRdOnly);
    if (!fd.ok()) return "<" + std::string(ErrnoName(fd.err)) + ">";
    std::string all;
    for (;;) {
      auto [e, chunk] = Read(fd.value, 4096);
      CHECK(e == Errno::kOk);
      if (chunk.empty()) break;
      all += chunk;
    }
    CHECK(Close(fd.value).ok());
    return all;
  }

  static std::span<const uint8_t> Bytes(std::string_view s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
  }
  static std::span<uint8_t> MutBytes(std::string& s) { return {reinterpret_cast<uint8_t*>(s.data()), s.size()}; }

 private:
  sim::EventQueue* q_;
  FileSystem* fs_;
};

}  // namespace fs::testing
