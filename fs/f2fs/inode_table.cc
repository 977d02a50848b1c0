// InodeTable: the in-memory inodes, orphans and checkpoint lists (see
// inode_table.h).
#include "fs/f2fs/inode_table.h"

#include <algorithm>

#include <glog/logging.h>

namespace fs::f2fs {

void InodeTable::Retire(Inode* in) {
  auto it = inodes_.find(in->ino.v);
  CHECK(it != inodes_.end());
  by_ino_[in->ino.v] = nullptr;
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
    if (Inode* in = Find(Nid{ino})) in->trans_dir = false;
  }
  trans_dir_inos_.clear();
}

void InodeTable::KillLocks() {
  killed_ = true;
  for (auto& [ino, in] : inodes_) in->lock.Kill();
  for (auto& in : retired_) in->lock.Kill();
}

InodeRef& InodeRef::operator=(InodeRef&& o) noexcept {
  if (this != &o) {
    this->~InodeRef();
    t_ = o.t_;
    i_ = o.i_;
    o.i_ = nullptr;
  }
  return *this;
}

InodeRef::~InodeRef() {
  if (!i_) return;
  Inode* in = i_;
  i_ = nullptr;
  CHECK_GT(in->refs, 0u);
  if (--in->refs > 0 || t_->killed()) return;
  if (in->freed) t_->DropRetired(in);
  // An unlinked inode without references stays an orphan until a later
  // sweep (or mount) frees it; a clean idle inode may leave memory.
}

}  // namespace fs::f2fs
