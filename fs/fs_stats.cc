#include "fs/fs_stats.h"

#include <string>

namespace fs {

std::string_view FsOpName(FsOp op) {
  static constexpr std::string_view kNames[] = {"open",  "close", "read",   "write",     "pread",
                                                "pwrite", "ftruncate", "truncate", "fsync", "fdatasync",
                                                "fstat", "stat",  "unlink", "mkdir",     "rmdir",
                                                "rename", "readdir",   "sync",     "link"};
  static_assert(std::size(kNames) == static_cast<size_t>(FsOp::kCount));
  const auto i = static_cast<size_t>(op);
  return i < std::size(kNames) ? kNames[i] : "?";
}

void OpLatencies::Register(const sim::StatGroup& g) const {
  const sim::StatGroup op = g.Group("op");
  for (size_t i = 0; i < lat_.size(); ++i) {
    const std::string name(FsOpName(static_cast<FsOp>(i)));
    op.Add(&lat_[i], name + ".lat", "ns", "latency of " + name);
  }
}

void RegisterWritesByOrigin(const sim::StatGroup& g, const FileSystem* fs) {
  const sim::StatGroup w = g.Group("written_by");
  static constexpr const char* kWhat[] = {
      "application data",
      "the file system's own structures at their home location (inodes, nodes, directories, bitmaps, tables)",
      "journal or log blocks", "blocks moved by the file system's cleaning (GC)",
      "the checkpoint's own blocks (checkpoint pack)"};
  static_assert(std::size(kWhat) == static_cast<size_t>(WriteOrigin::kCount));
  for (size_t i = 0; i < std::size(kWhat); ++i) {
    const auto o = static_cast<WriteOrigin>(i);
    w.AddFormula([fs, o] { return static_cast<double>(fs->writes_by_origin()[o]); }, WriteOriginName(o), "blocks",
                 std::string("4 KiB blocks written to the device: ") + kWhat[i]);
  }
}

}  // namespace fs
