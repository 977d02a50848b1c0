#include "fs/f2fs/data_pages.h"

#include <glog/logging.h>

namespace fs::f2fs {

DataPage* DataPages::Find(Inode* inode, uint64_t index) {
  auto it = inode->pages.find(index);
  if (it == inode->pages.end()) return nullptr;
  cache_->Touch(it->second.get());
  return it->second.get();
}

DataPage* DataPages::New(Inode* inode, uint64_t index) {
  CHECK(!inode->pages.count(index));
  cache_->Admit();
  auto p = std::make_unique<DataPage>();
  p->ino = inode->ino;
  p->index = index;
  DataPage* raw = p.get();
  inode->pages[index] = std::move(p);
  cache_->MaybeLru(raw);
  return raw;
}

void DataPages::Drop(Inode* inode, uint64_t index) {
  auto it = inode->pages.find(index);
  if (it == inode->pages.end()) return;
  ClearDirty(inode, it->second.get());
  std::unique_ptr<DataPage> owned = std::move(it->second);
  inode->pages.erase(it);
  cache_->Detach(std::move(owned));
}

void DataPages::SetDirty(Inode* inode, DataPage* p) {
  if (p->dirty) return;
  p->dirty = true;
  cache_->LruRemove(p);
  ++inode->dirty_pages;
  inode->dirty_index.insert(p->index);
  if (nodes_->I(inode).is_dir) {
    ++dirty_dentry_pages_;
    dirty_dirs_.insert(inode->ino.v);
    return;
  }
  wb_->FileDataDirtied(inode->ino.v, &inode->wb);
}

void DataPages::ClearDirty(Inode* inode, DataPage* p) {
  if (!p->dirty) return;
  p->dirty = false;
  --inode->dirty_pages;
  inode->dirty_index.erase(p->index);
  if (nodes_->I(inode).is_dir) {
    --dirty_dentry_pages_;
    if (inode->dirty_pages == 0) dirty_dirs_.erase(inode->ino.v);
  } else {
    wb_->FileDataCleaned(&inode->wb, inode->dirty_pages);
  }
  cache_->MaybeLru(p);
}

DataBlock& DataPages::MutBytes(DataPage* p) {
  if (!p->bytes) p->bytes = std::make_shared<DataBlock>();
  else if (p->bytes.use_count() > 1) p->bytes = std::make_shared<DataBlock>(*p->bytes);
  return *p->bytes;
}

DentryBlock& DataPages::MutDents(DataPage* p) {
  if (!p->dents) p->dents = std::make_shared<DentryBlock>();
  else if (p->dents.use_count() > 1) p->dents = std::make_shared<DentryBlock>(*p->dents);
  return *p->dents;
}

}  // namespace fs::f2fs
