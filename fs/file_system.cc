#include "fs/file_system.h"

#include <vector>

namespace fs {

std::string_view ErrnoName(Errno e) {
  switch (e) {
    case Errno::kOk: return "OK";
    case Errno::kPerm: return "EPERM";
    case Errno::kNoEnt: return "ENOENT";
    case Errno::kBadF: return "EBADF";
    case Errno::kExist: return "EEXIST";
    case Errno::kNotDir: return "ENOTDIR";
    case Errno::kIsDir: return "EISDIR";
    case Errno::kInval: return "EINVAL";
    case Errno::kFBig: return "EFBIG";
    case Errno::kNoSpc: return "ENOSPC";
    case Errno::kNameTooLong: return "ENAMETOOLONG";
    case Errno::kNotEmpty: return "ENOTEMPTY";
    case Errno::kIo: return "EIO";
    case Errno::kBusy: return "EBUSY";
    case Errno::kNotSup: return "EOPNOTSUPP";
  }
  return "E?";
}

std::string_view WriteOriginName(WriteOrigin o) {
  switch (o) {
    case WriteOrigin::kData: return "data";
    case WriteOrigin::kMetadata: return "metadata";
    case WriteOrigin::kJournal: return "journal";
    case WriteOrigin::kCleaning: return "cleaning";
    case WriteOrigin::kCheckpoint: return "checkpoint";
    case WriteOrigin::kCount: break;
  }
  return "?";
}

sim::Task<FsResult<uint64_t>> FileSystem::ReadDiscard(Fd fd, uint64_t length) {
  std::vector<uint8_t> scratch(length);
  co_return co_await Read(fd, scratch);
}

sim::Task<FsResult<uint64_t>> FileSystem::PreadDiscard(Fd fd, uint64_t offset, uint64_t length) {
  std::vector<uint8_t> scratch(length);
  co_return co_await Pread(fd, offset, scratch);
}

}  // namespace fs
