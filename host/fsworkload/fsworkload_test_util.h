// Shared fixture pieces for the fsworkload tests: a MemFs on a fresh queue
// and a stats registry.
#pragma once

#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "fs/memfs/mem_fs.h"
#include "host/fsworkload/fs_workload.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/stats.h"

namespace host::testing {

// Forwards every call to `inner` and records the offsets and lengths of
// positional I/O, by descriptor.
class RecordingFs final : public fs::FileSystem {
 public:
  explicit RecordingFs(fs::FileSystem* inner) : in_(inner) {}
  struct Io {
    fs::Fd fd;
    uint64_t offset;
    uint64_t length;
    bool write;
  };
  std::vector<Io> ios;

  sim::Task<fs::FsResult<fs::Fd>> Open(std::string_view p, uint32_t f) override { return in_->Open(p, f); }
  sim::Task<fs::FsStatus> Close(fs::Fd fd) override { return in_->Close(fd); }
  sim::Task<fs::FsResult<uint64_t>> Read(fs::Fd fd, std::span<uint8_t> out) override { return in_->Read(fd, out); }
  sim::Task<fs::FsResult<uint64_t>> Write(fs::Fd fd, std::span<const uint8_t> d, uint64_t n) override {
    return in_->Write(fd, d, n);
  }
  sim::Task<fs::FsResult<uint64_t>> Pread(fs::Fd fd, uint64_t off, std::span<uint8_t> out) override {
    ios.push_back(Io{fd, off, out.size(), false});
    return in_->Pread(fd, off, out);
  }
  sim::Task<fs::FsResult<uint64_t>> Pwrite(fs::Fd fd, uint64_t off, std::span<const uint8_t> d, uint64_t n) override {
    ios.push_back(Io{fd, off, n, true});
    return in_->Pwrite(fd, off, d, n);
  }
  sim::Task<fs::FsStatus> Ftruncate(fs::Fd fd, uint64_t n) override { return in_->Ftruncate(fd, n); }
  sim::Task<fs::FsStatus> Truncate(std::string_view p, uint64_t n) override { return in_->Truncate(p, n); }
  sim::Task<fs::FsStatus> Fsync(fs::Fd fd) override { return in_->Fsync(fd); }
  sim::Task<fs::FsStatus> Fdatasync(fs::Fd fd) override { return in_->Fdatasync(fd); }
  sim::Task<fs::FsResult<fs::FileStat>> Fstat(fs::Fd fd) override { return in_->Fstat(fd); }
  sim::Task<fs::FsResult<fs::FileStat>> Stat(std::string_view p) override { return in_->Stat(p); }
  sim::Task<fs::FsStatus> Unlink(std::string_view p) override { return in_->Unlink(p); }
  sim::Task<fs::FsStatus> Mkdir(std::string_view p) override { return in_->Mkdir(p); }
  sim::Task<fs::FsStatus> Rmdir(std::string_view p) override { return in_->Rmdir(p); }
  sim::Task<fs::FsStatus> Rename(std::string_view a, std::string_view b) override { return in_->Rename(a, b); }
  sim::Task<fs::FsStatus> Link(std::string_view a, std::string_view b) override { return in_->Link(a, b); }
  sim::Task<fs::FsResult<std::vector<std::string>>> Readdir(std::string_view p) override {
    return in_->Readdir(p);
  }
  sim::Task<fs::FsStatus> Sync() override { return in_->Sync(); }
  // What checkpoint_activity() reports: set by the test.
  CheckpointActivity activity;
  CheckpointActivity checkpoint_activity() const override { return activity; }

 private:
  fs::FileSystem* in_;
};

struct Rig {
  explicit Rig(fs::MemFsConfig cfg = sim::MakeDefault<fs::MemFsConfig>()) : memfs(&q, cfg) {}
  FsWorkloadEnv Env(uint64_t seed = 1) { return FsWorkloadEnv{&q, &memfs, reg.Root().Group("workload"), seed}; }
  // Runs the workload to completion; returns false if the queue drained
  // without it finishing.
  bool Run(FsWorkload& w, sim::SimTime limit = sim::Sec(3600)) {
    w.Start();
    q.Run(limit);
    return w.done();
  }
  double Stat(const std::string& name) const { return reg.Value(name); }
  uint64_t OpCount(const std::string& op) const {
    return static_cast<uint64_t>(reg.Value("workload.op." + op + ".count"));
  }
  std::string Json() const {
    std::ostringstream out;
    reg.WriteJson(out);
    return out.str();
  }

  sim::EventQueue q;
  fs::MemFs memfs;
  sim::StatsRegistry reg;
};

}  // namespace host::testing
