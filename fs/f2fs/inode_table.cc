// InodeTable: the in-memory inodes, orphans and checkpoint lists (see
// inode_table.h).
#include "fs/f2fs/inode_table.h"

#include <algorithm>

#include <glog/logging.h>

namespace fs::f2fs {

void InodeTable::Retire(Inode* in) {
  auto it = inodes_.find(in->ino.v);
  CHECK(it != inodes_.end());
  retired_.push_back(std::move(it->second));
  inodes_.erase(it);
}

void InodeTable::DropRetired(Inode* in) {
  auto it = std::find_if(retired_.begin(), retired_.end(), [&](const auto& p) { return p.get() == in; });
  CHECK(it != retired_.end());
  retired_.erase(it);
}

void InodeTable::ClearTransDir() {
  for (const uint32_t ino : trans_dir_inos_) {
    auto it = inodes_.find(ino);
    if (it != inodes_.end()) it->second->trans_dir = false;
  }
  trans_dir_inos_.clear();
}

void InodeTable::KillLocks() {
  for (auto& [ino, in] : inodes_) in->lock.Kill();
  for (auto& in : retired_) in->lock.Kill();
}

}  // namespace fs::f2fs
