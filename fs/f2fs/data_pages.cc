#include "fs/f2fs/data_pages.h"

#include <glog/logging.h>

namespace fs::f2fs {

DataPage* DataPages::Find(Inode* inode, uint64_t index) {
  DataPage* p = inode->pages.Find(index);
  if (p != nullptr) cache_->Touch(p);
  return p;
}

DataPage* DataPages::New(Inode* inode, uint64_t index) {
  cache_->Admit();
  auto p = std::make_unique<DataPage>();
  p->ino = inode->ino;
  p->index = index;
  DataPage* raw = inode->pages.Insert(index, std::move(p));
  cache_->MaybeLru(raw);
  return raw;
}

void DataPages::Drop(Inode* inode, uint64_t index) {
  DataPage* p = inode->pages.Find(index);
  if (p == nullptr) return;
  ClearDirty(inode, p);
  cache_->Detach(inode->pages.Take(index));
}

std::unique_ptr<DataPage> DataPages::Unlink(Inode* inode, DataPage* p) {
  CHECK(inode->pages.Find(p->index) == p);
  return inode->pages.Take(p->index);
}

void DataPages::SetDirty(Inode* inode, DataPage* p) {
  if (p->dirty) return;
  p->dirty = true;
  cache_->LruRemove(p);
  ++inode->dirty_pages;
  inode->dirty_index.Insert(p->index);
  if (inode->is_dir) {
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
  inode->dirty_index.Erase(p->index);
  if (inode->is_dir) {
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
