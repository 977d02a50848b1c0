// Statistics every file-system model reports under the same names, so that
// results of different file systems compare line by line:
//
//   <fs>.op.<call>.lat     (ns) latency of each FileSystem call inside the
//                          file system, from the call to its completion
//                          (OpLatencies; one histogram per call kind, the
//                          names of FsOpName)
//   <fs>.written_by.<origin>  (blocks) 4 KiB blocks written to the device
//                          by origin (RegisterWritesByOrigin, from
//                          FileSystem::writes_by_origin; the origins of
//                          WriteOrigin). They sum to the blocks the file
//                          system's write amplification counts.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "fs/file_system.h"
#include "sim/event_queue.h"
#include "sim/stats.h"

namespace fs {

// The calls of the FileSystem API timed per kind (ReadDiscard counts as
// read, PreadDiscard as pread).
enum class FsOp : uint8_t {
  kOpen, kClose, kRead, kWrite, kPread, kPwrite, kFtruncate, kTruncate, kFsync, kFdatasync, kFstat,
  kStat, kUnlink, kMkdir, kRmdir, kRename, kReaddir, kSync, kLink, kCount
};
std::string_view FsOpName(FsOp op);

class OpLatencies {
 public:
  // Registers "<g>.op.<call>.lat" (ns) for every call kind.
  void Register(const sim::StatGroup& g) const;
  void Record(FsOp op, sim::SimTime d) { lat_[static_cast<size_t>(op)].Record(d.ns()); }
  const sim::Histogram& of(FsOp op) const { return lat_[static_cast<size_t>(op)]; }

  // Records the simulated time from its construction to its destruction
  // (the end of the call's coroutine), unless `*dead` is then true (a file
  // system cut off by a simulated power loss records nothing more).
  class Scope {
   public:
    Scope(OpLatencies* l, const sim::EventQueue* q, FsOp op, const bool* dead)
        : l_(l), q_(q), op_(op), dead_(dead), start_(q->now()) {}
    ~Scope() {
      if (dead_ == nullptr || !*dead_) l_->Record(op_, q_->now() - start_);
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    OpLatencies* l_;
    const sim::EventQueue* q_;
    FsOp op_;
    const bool* dead_;
    sim::SimTime start_;
  };

 private:
  std::array<sim::Histogram, static_cast<size_t>(FsOp::kCount)> lat_;
};

// Registers "<g>.written_by.<origin>" (blocks) for every origin, read from
// fs->writes_by_origin() when the statistics are taken. `fs` must outlive
// the registry's use of `g`.
void RegisterWritesByOrigin(const sim::StatGroup& g, const FileSystem* fs);

}  // namespace fs
