#include "fs/file_system.h"

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

}  // namespace fs
