#include "fs/vfs/path.h"

namespace fs::vfs {

ParsedPath ParsePath(std::string_view path) {
  ParsedPath r;
  if (path.empty()) {
    r.err = Errno::kNoEnt;
    return r;
  }
  if (path.size() >= kMaxPathLen) {
    r.err = Errno::kNameTooLong;
    return r;
  }
  const size_t n = path.size();
  size_t i = 0;
  for (;;) {
    while (i < n && path[i] == '/') ++i;
    if (i >= n) break;
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = n;
    const std::string_view comp = path.substr(i, j - i);
    size_t k = j;
    while (k < n && path[k] == '/') ++k;
    if (k >= n) {
      r.last = comp;
      r.dir_required = j < n;
      return r;
    }
    if (comp != ".") r.dirs.push_back(comp);
    i = j;
  }
  r.is_root = true;
  r.dir_required = true;
  return r;
}

}  // namespace fs::vfs
