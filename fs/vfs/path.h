// Path parsing shared by every file system model (the syntactic half of
// the kernel's path walk; each model looks the components up itself).
//
// Rules (POSIX, as Linux applies them):
// - an empty path is ENOENT; a path of kMaxPathLen bytes or more is
//   ENAMETOOLONG; a component longer than kMaxNameLen is ENAMETOOLONG when
//   the walk reaches it (CheckName), so a missing directory before it is
//   ENOENT, as in the kernel, where the file system's lookup checks it;
// - runs of '/' separate components; every path is taken from the root
//   (the models have no current directory);
// - "." components are dropped from the directories walked; ".." stays
//   for the model to follow (the root's ".." is the root);
// - a trailing '/' requires the final component to be a directory;
// - a path of only slashes names the root (no final component).
#pragma once

#include <cstddef>
#include <string_view>

#include <boost/container/small_vector.hpp>

#include "fs/file_system.h"

namespace fs::vfs {

inline constexpr size_t kMaxNameLen = 255;   // NAME_MAX
inline constexpr size_t kMaxPathLen = 4096;  // PATH_MAX, with the terminating NUL

struct ParsedPath {
  // Paths are parsed on every lookup: up to kInlineDirs directories are
  // kept without allocating.
  static constexpr size_t kInlineDirs = 8;
  Errno err = Errno::kOk;
  boost::container::small_vector<std::string_view, kInlineDirs> dirs;  // directories to walk from the root, "." dropped
  std::string_view last;               // final component ("" for the root; may be "." or "..")
  bool is_root = false;                // only slashes
  bool dir_required = false;           // a trailing '/'
  bool last_is_dot() const { return last == "." || last == ".."; }
};

// Views point into `path`, which must outlive the result.
ParsedPath ParsePath(std::string_view path);

// ENAMETOOLONG for a component longer than kMaxNameLen, else kOk.
inline Errno CheckName(std::string_view name) {
  return name.size() > kMaxNameLen ? Errno::kNameTooLong : Errno::kOk;
}

}  // namespace fs::vfs
